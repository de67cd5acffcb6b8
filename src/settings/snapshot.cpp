// Reading every setting once: the variable (or its legacy name), its
// syntax and its range; the default and a warning for anything else.
#include <cstdlib>

#include "settings.hpp"

namespace loom {
namespace settings {
namespace {

const char *kBooleanSyntax = "1/0, yes/no, on/off, true/false";
const char *kSizeSyntax = "bytes, optionally with a K, M, G or T suffix";

// Parses @p text for @p s (a plain number counting @p unit bytes); on
// failure, says why in @p why.
bool parse_value(const Spec &s, const std::string &text, int64_t unit, int64_t *out,
                 std::string *why) {
  if (s.type == Type::path) {
    *out = 0;
    return true;
  }
  if (s.type == Type::choice) {
    std::string names;
    for (size_t i = 0; i < s.choices.size(); ++i) {
      if (parse_choice(text, s.choices[i])) return *out = (int64_t)i, true;
      names += (i ? ", " : "") + s.choices[i];
    }
    *why = "is not one of " + names;
    return false;
  }
  if (s.type == Type::boolean) {
    bool b;
    if (!parse_bool(text, &b)) {
      *why = std::string("is not a boolean (") + kBooleanSyntax + ")";
      return false;
    }
    *out = b;
    return true;
  }
  int64_t n;
  if (!parse_size(text, unit, &n)) {
    *why = std::string("is not a size (") + kSizeSyntax + ")";
    return false;
  }
  if (n < s.min || n > s.max) {
    *why = "is out of range [" + format(s.type, s.min) + ", " + format(s.type, s.max) + "]";
    return false;
  }
  *out = n;
  return true;
}

// @p text with control characters shown as '?', so a warning stays one line.
std::string printable(const char *text) {
  std::string s = text;
  for (char &c : s)
    if ((unsigned char)c < 0x20 || c == 0x7f) c = '?';
  return s;
}

}  // namespace

Snapshot::Snapshot(Flavor flavor, const Lookup &env) {
  for (const Spec &s : registry()) {
    Value v;
    v.value = s.default_for(flavor);
    const char *text = env(s.name);
    int64_t unit = 1;
    v.variable = s.name;
    if (!text || !*text) {
      const char *legacy = s.legacy_name ? env(s.legacy_name) : nullptr;
      if (legacy && *legacy) {
        text = legacy;
        unit = s.legacy_unit;
        v.variable = s.legacy_name;
      }
    } else if (s.legacy_name) {
      const char *legacy = env(s.legacy_name);
      if (legacy && *legacy)
        warnings_.push_back(std::string(s.legacy_name) + "=" + printable(legacy) + " is ignored: " +
                            s.name + " is set");
    }
    if (text && *text) {
      v.text = text;
      std::string why;
      if (parse_value(s, v.text, unit, &v.value, &why)) {
        v.source = Source::environment;
      } else {
        v.source = Source::rejected;
        warnings_.push_back(v.variable + "='" + printable(text) + "' " + why +
                            "; using the default " + format(s, v.value));
      }
    }
    values_.push_back(std::move(v));
  }
}

Snapshot Snapshot::from_environment(Flavor flavor) {
  return Snapshot(flavor, [](const char *name) -> const char * { return std::getenv(name); });
}

}  // namespace settings
}  // namespace loom
