// How a LOOM_* variable's text is read, shared by the engine (which reads
// LOOM_ISA and LOOM_JIT itself: it does not link src/settings) and the
// settings layer (which `loom info` and the drop-in validate them with), so
// that a value both accept means the same to both.  Header-only.
#pragma once

#include <cctype>
#include <string>

namespace loom {

/// `text` without leading and trailing white space, in lower case.
inline std::string setting_text(const std::string &text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace((unsigned char)text[b])) ++b;
  while (e > b && std::isspace((unsigned char)text[e - 1])) --e;
  std::string s = text.substr(b, e - b);
  for (char &c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

/// A boolean: 1/yes/on/true or 0/no/off/false, trimmed, any case.  False
/// (and `*out` untouched) for anything else.
inline bool setting_bool(const std::string &text, bool *out) {
  const std::string s = setting_text(text);
  for (const char *t : {"1", "yes", "on", "true"})
    if (s == t) return *out = true, true;
  for (const char *f : {"0", "no", "off", "false"})
    if (s == f) return *out = false, true;
  return false;
}

/// Whether `text` names `name` (trimmed, any case).
inline bool setting_is(const std::string &text, const std::string &name) {
  return setting_text(text) == setting_text(name);
}

}  // namespace loom
