// The syntax every setting shares: booleans, sizes and names.
#include <cctype>

#include "setting_text.hpp"
#include "settings.hpp"

namespace loom {
namespace settings {
namespace {

// Suffix letters, each 1024 times the one before.
constexpr char kSuffixes[] = "kmgt";

}  // namespace

bool parse_bool(const std::string &text, bool *out) { return setting_bool(text, out); }

bool parse_size(const std::string &text, int64_t unit, int64_t *out) {
  const std::string s = setting_text(text);
  size_t i = 0;
  int64_t n = 0;
  for (; i < s.size() && std::isdigit((unsigned char)s[i]); ++i)
    if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, s[i] - '0', &n))
      return false;
  if (i == 0) return false;  // no digits (also: a sign)
  int64_t scale = unit;
  if (i < s.size()) {
    scale = 1;
    for (const char *p = kSuffixes; *p; ++p) {
      scale *= 1024;
      if (s[i] == *p) break;
      if (!p[1]) return false;  // not a suffix letter
    }
    ++i;
    if (s.compare(i, std::string::npos, "ib") == 0) i += 2;
  }
  return i == s.size() && !__builtin_mul_overflow(n, scale, out);
}

bool parse_choice(const std::string &text, const std::string &name) {
  return setting_is(text, name);
}

std::string format(const Spec &s, int64_t value) {
  if (s.type == Type::path) return "";
  if (s.type == Type::choice)
    return value >= 0 && (size_t)value < s.choices.size() ? s.choices[(size_t)value] : "?";
  return format(s.type, value);
}

std::string format(Type type, int64_t value) {
  if (type == Type::boolean) return value ? "on" : "off";
  int k = 0;
  while (value != 0 && value % 1024 == 0 && kSuffixes[k]) {
    value /= 1024;
    ++k;
  }
  std::string s = std::to_string(value);
  if (k) s += (char)std::toupper((unsigned char)kSuffixes[k - 1]);
  return s;
}

}  // namespace settings
}  // namespace loom
