// Reference expectations and verdicts of the signature test.
#include "sig_oracle.hpp"

#include <signal.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sigtest {

namespace {

// At most this many notes (system disagreements) are printed per rank.
constexpr long kMaxNotes = 20;

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

bool x87(loom_prim p) {
  return p == LOOM_LONG_DOUBLE || p == LOOM_C_LONG_DOUBLE_COMPLEX || p == LOOM_F_REAL16;
}

std::string fmt_diff(const std::vector<unsigned char> &want,
                     const std::vector<unsigned char> &got, const std::vector<bool> &skip,
                     int64_t base) {
  long first = first_diff(want, got, &skip), n = 0;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i)
    n += want[i] != got[i] && !skip[i];
  char b[160];
  std::snprintf(b, sizeof b, "first at byte %" PRId64 " (0x%02x, reference 0x%02x), %ld bytes differ",
                (int64_t)first + base, first >= 0 && (size_t)first < got.size() ? got[(size_t)first] : 0,
                first >= 0 && (size_t)first < want.size() ? want[(size_t)first] : 0, n);
  return b;
}

// The latest report's context, for a crash (a fixed buffer: the signal
// handler may not allocate).
char g_current[4096];
struct sigaction g_previous[NSIG];

extern "C" void on_crash(int sig) {
  static const char head[] = "\nCRASH (signal) during: ";
  if (write(2, head, sizeof head - 1) < 0 || write(2, g_current, std::strlen(g_current)) < 0 ||
      write(2, "\n", 1) < 0) {
    // nothing more to do: the signal goes on below
  }
  sigaction(sig, &g_previous[sig], nullptr);
  raise(sig);
}

}  // namespace

void report_crashes() {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE}) {
    struct sigaction a {};
    a.sa_handler = on_crash;
    sigemptyset(&a.sa_mask);
    sigaction(sig, &a, &g_previous[sig]);
  }
}

unsigned char keyed(uint64_t key, int64_t x) {
  return (unsigned char)(mix(key + (uint64_t)x * 0xD1B54A32D192ED03ull) >> 56);
}

void keyed_fill(Buf &b, uint64_t key) {
  for (size_t i = 0; i < b.g.size(); ++i) b.g.data()[i] = keyed(key, (int64_t)i + b.lo);
}

std::vector<unsigned char> keyed_stream(const Layout &l, int64_t count, uint64_t key) {
  std::vector<unsigned char> s;
  s.reserve((size_t)(l.size * count));
  for (const Piece &p : reference_pieces(l, count, true))
    for (int64_t i = 0; i < p.len; ++i) s.push_back(keyed(key, p.disp + i));
  return s;
}

Expected expect(int64_t sent, const Side &recv) {
  Expected e;
  const int64_t size = recv.L.size, cap = recv.count * size;
  e.err = sent > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  e.bytes = std::min(sent, cap);
  e.whole = size > 0 && e.bytes % size == 0;
  e.count = e.whole ? e.bytes / size : size == 0 ? 0 : MPI_UNDEFINED;
  e.elements = size > 0 ? e.bytes / size * recv.L.nelems : 0;
  // The rest ends on an element boundary of the receive signature (the
  // signatures match): count its elements.
  int64_t rest = size > 0 ? e.bytes % size : 0;
  for (const SigRun &r : recv.sig) {
    const int64_t each = prim_info(r.prim).size, n = std::min(r.n, rest / each);
    e.elements += n;
    rest -= n * each;
    if (n < r.n) break;
  }
  return e;
}

void unpack_at(std::vector<unsigned char> *buf, int64_t at, const Side &recv,
               const std::vector<unsigned char> &stream, int64_t bytes) {
  reference_unpack_range(recv.L, recv.count, stream.data(), 0, bytes, buf->data() + at);
}

void mark_undefined(std::vector<bool> *mask, int64_t at, const Side &recv) {
  if (!is_mpich()) return;
  bool any = false;
  for (const SigRun &r : recv.sig) any |= x87(r.prim);
  if (!any) return;
  // Pieces in typemap order are the basic elements in signature order.
  const std::vector<Piece> pieces = reference_pieces(recv.L, recv.count, false);
  size_t k = 0;
  for (int64_t c = 0; c < recv.count; ++c)
    for (const SigRun &r : recv.sig)
      for (int64_t e = 0; e < r.n; ++e, ++k) {
        if (!x87(r.prim)) continue;
        const Piece &p = pieces[k];
        for (int64_t u = 0; u + 16 <= p.len; u += 16)
          for (int64_t b = 10; b < 16; ++b) {
            const int64_t i = at + p.disp + u + b;
            if (i >= 0 && i < (int64_t)mask->size()) (*mask)[(size_t)i] = true;
          }
      }
}

void mark_covered(std::vector<bool> *mask, int64_t at, const Side &recv) {
  for (const Piece &p : reference_pieces(recv.L, recv.count, true))
    for (int64_t i = 0; i < p.len; ++i) {
      const int64_t x = at + p.disp + i;
      if (x >= 0 && x < (int64_t)mask->size()) (*mask)[(size_t)x] = true;
    }
}

Report::Report(std::string context, bool system_tested)
    : context_(std::move(context)), system_tested_(system_tested) {
  static const bool trace = std::getenv("LOOM_TEST_TRACE") != nullptr;
  if (trace) std::fprintf(stderr, "%s\n", context_.c_str());
  std::snprintf(g_current, sizeof g_current, "%s", context_.c_str());
}

void Report::judge(const std::string &what, bool ok, const int *sys_ok,
                   const std::string &detail) {
  ++tally().checks;
  if (sys_ok) ++tally().sys_checks;
  if (sys_ok && !*sys_ok) ++tally().sys_wrong;
  const char *tested = system_tested_ ? "the system" : "loom";
  const std::string known = known_.empty() ? "" : " (known system defect: " + known_ + ")";
  if (!ok && system_tested_ && !known_.empty()) {
    ++tally().known;
    notes_.push_back(what + ": the system differs from the reference" + known + ": " + detail);
  } else if (!ok) {
    std::string oracle = !sys_ok ? "oracle: reference"
                         : *sys_ok ? "oracle: reference; the system agrees with it"
                                   : "oracle: reference; the system differs from it too";
    fails_.push_back(what + ": " + tested + " differs from the reference: " + detail + " [" +
                     oracle + "]");
  } else if (sys_ok && !*sys_ok) {
    notes_.push_back(what + ": the system differs from the reference" + known + ", " + tested +
                     " agrees with the reference [oracle: reference]");
  }
}

void Report::bytes(const std::string &what, const std::vector<unsigned char> &want,
                   const std::vector<unsigned char> &got, const std::vector<unsigned char> *sys,
                   const std::vector<bool> &skip, int64_t base) {
  const bool ok = same_except(got, want, skip);
  int sys_ok = sys && same_except(*sys, want, skip);
  std::string detail = ok ? "" : fmt_diff(want, got, skip, base);
  if (sys && !sys_ok && ok) detail = fmt_diff(want, *sys, skip, base);
  judge(what, ok, sys ? &sys_ok : nullptr, detail);
  if (sys && !sys_ok && ok) notes_.back() += ": " + detail;
}

void Report::value(const std::string &what, int64_t want, int64_t got, const int64_t *sys) {
  int sys_ok = sys && *sys == want;
  char b[120];
  std::snprintf(b, sizeof b, "%" PRId64 ", reference %" PRId64, got, want);
  if (sys) std::snprintf(b + std::strlen(b), sizeof b - std::strlen(b), ", system %" PRId64, *sys);
  judge(what, got == want, sys ? &sys_ok : nullptr, b);
  if (sys && !sys_ok && got == want) notes_.back() += std::string(": ") + b;
}

void Report::fail(const std::string &line) { fails_.push_back(line); }

Report::~Report() {
  static long printed = 0;
  if (!fails_.empty()) {
    std::string all = context_;
    for (const std::string &f : fails_) all += "\n    " + f;
    loomtest::failf("%s", all.c_str());
  }
  for (const std::string &n : notes_)
    if (printed++ < kMaxNotes) std::printf("NOTE: %s\n    %s\n", context_.c_str(), n.c_str());
  if (!notes_.empty()) std::fflush(stdout);
}

Tally &tally() {
  static Tally t;
  return t;
}

}  // namespace sigtest
