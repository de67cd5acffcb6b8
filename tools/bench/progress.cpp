#include "progress.h"

#include <unistd.h>

#include <fmt/format.h>

#include "harness.h"

namespace loom_bench {

Progress::Progress(std::string suite, size_t cases, ProgressMode mode, bool enabled,
                   std::FILE *out)
    : suite_(std::move(suite)),
      cases_(cases),
      mode_(mode),
      enabled_(enabled && mode != ProgressMode::kQuiet),
      tty_(isatty(fileno(out)) != 0),
      out_(out),
      start_s_(now_s()),
      last_line_s_(start_s_) {}

Progress::~Progress() { finish(); }

void Progress::start(size_t i, const std::string &name) {
  if (!enabled_) return;
  const double now = now_s();
  const double elapsed = now - start_s_;
  if (mode_ == ProgressMode::kAuto && tty_) {
    fmt::print(out_, "\r\033[K[{}/{}] {}  ({:.0f} s)", i + 1, cases_, name, elapsed);
    std::fflush(out_);
    printed_ = true;
    return;
  }
  if (mode_ == ProgressMode::kAuto && now - last_line_s_ < kProgressInterval) return;
  // The remaining time, from the average case so far (cases differ in
  // length; it is a hint).
  std::string left;
  if (i > 0)
    left = fmt::format(", about {:.0f} s left",
                       elapsed / static_cast<double>(i) * static_cast<double>(cases_ - i));
  fmt::print(out_, "{}: case {}/{} {} ({:.0f} s elapsed{})\n", suite_, i + 1, cases_, name,
             elapsed, left);
  std::fflush(out_);
  last_line_s_ = now;
  printed_ = true;
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_ || !printed_) return;
  if (mode_ == ProgressMode::kAuto && tty_) {
    fmt::print(out_, "\r\033[K");
  } else {
    fmt::print(out_, "{}: {} cases in {:.0f} s\n", suite_, cases_, now_s() - start_s_);
  }
  std::fflush(out_);
}

}  // namespace loom_bench
