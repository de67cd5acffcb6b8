// Option checks shared by the `loom` subcommands.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace loom_cli {

/// A number above zero.  CLI11's own PositiveNumber names the range it
/// checks as "0.000000 to 1.797...e308" spelled out in 300 digits; this one
/// says what is wrong in a few words.
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(s, v)) return "'" + s + "' is not a number";
        return v > 0 ? std::string() : "must be above zero, got " + s;
      },
      "POSITIVE");
}

}  // namespace loom_cli
