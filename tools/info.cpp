#include "info.h"

#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <string>

#include <fmt/format.h>

#include "bench/dual_type.h"
#include "build_flavor.hpp"
#include "loom.h"
#include "settings.hpp"

#ifndef LOOM_VERSION
#define LOOM_VERSION "unknown"
#endif

namespace loom_cli {
namespace {

using namespace loom::settings;

const char *flavor_name(Flavor f) { return f == Flavor::mpich ? "MPICH" : "Open MPI"; }

const char *type_name(Type t) {
  switch (t) {
    case Type::boolean: return "boolean";
    case Type::size: return "size";
    case Type::choice: return "name";
    case Type::path: return "path";
  }
  return "";
}

// A value as `loom info` shows it: a path's text, "unset" for none.
std::string shown(const Spec &sp, const Value &v) {
  if (sp.type != Type::path) return format(sp, v.value);
  return v.text.empty() ? "unset" : v.text;
}

// The accepted values, for the reference's Range column.
std::string range_text(const Spec &sp) {
  switch (sp.type) {
    case Type::boolean:
    case Type::path: return "";
    case Type::size: return "`" + format(sp.type, sp.min) + "` to `" + format(sp.type, sp.max) + "`";
    case Type::choice: {
      std::string names;
      for (const std::string &c : sp.choices) names += (names.empty() ? "`" : ", `") + c + "`";
      return names;
    }
  }
  return "";
}

// "default", "environment", and which variable when not the setting's own
// name (a legacy one) or when its value was rejected.
std::string source_text(const Spec &sp, const Value &v) {
  switch (v.source) {
    case Source::default_value: return "default";
    case Source::environment:
      return v.variable == sp.name ? "environment"
                                   : "environment (" + v.variable + "=" + v.text + ")";
    case Source::rejected: return "default (" + v.variable + "='" + v.text + "' rejected)";
  }
  return "";
}

}  // namespace

std::string dropin_beside_me() {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  std::string path(exe, (size_t)n);
  path = path.substr(0, path.rfind('/') + 1) + "libloom-mpi.so";
  return access(path.c_str(), R_OK) == 0 ? path : "";
}

int print_info(std::FILE *out) {
  fmt::print(out, "Loom {} for {}\n", LOOM_VERSION, flavor_name(kBuildFlavor));
  fmt::print(out, "MPI library: {}\n", loom_bench::mpi_library_name());
  std::string dropin = dropin_beside_me();
  fmt::print(out, "Drop-in: {}\n", dropin.empty() ? "not found beside this program" : dropin);
  fmt::print(out, "Kernels: {} (this CPU runs: {})\n", loom_isa(), loom_isa_list());
  fmt::print(out, "  measured: {}\n", loom_isa_measured());
  fmt::print(out, "Last-level cache: {} MiB\n", loom_last_level_cache_bytes() >> 20);

  Snapshot s = Snapshot::from_environment(kBuildFlavor);
  for (const std::string &w : s.warnings()) fmt::print(stderr, "loom: warning: {}\n", w);
  fmt::print(out, "\nSettings (environment variables, docs/settings.md):\n");
  for (const Spec &sp : registry()) {
    const Value &v = s.value(sp.id);
    fmt::print(out, "  {:<20} {:<6} {}\n      {}\n", sp.name, shown(sp, v), source_text(sp, v),
               sp.description);
  }
  return 0;
}

int print_settings_markdown(std::FILE *out) {
  fmt::print(out,
             "# Loom settings\n"
             "\n"
             "<!-- Generated from src/settings/registry.cpp by `loom info --markdown`;\n"
             "     the test docs.settings fails when this file differs from it. -->\n"
             "\n"
             "Loom reads these environment variables once per process (the drop-in\n"
             "when it first needs one of them).  `loom info` shows their current\n"
             "values and where each comes from.\n"
             "\n"
             "* Booleans: `1`/`0`, `yes`/`no`, `on`/`off`, `true`/`false`, in any case.\n"
             "* Sizes: bytes, optionally with a suffix `K`, `M`, `G` or `T` (powers of\n"
             "  1024; `KiB`, `MiB`, ... read the same), e.g. `512`, `8K`, `4M`.\n"
             "* Names: one of those listed, in any case.  Paths: taken as they are.\n"
             "* An empty variable counts as unset.  An invalid or out-of-range value\n"
             "  is reported on stderr in one line naming the variable, the value and\n"
             "  the default, and the default applies.\n"
             "* The drop-in's lines on stderr start with `loom[R]:`, R the rank in\n"
             "  `MPI_COMM_WORLD` (`loom[pid N]:` before `MPI_Init`).\n"
             "\n"
             "| Variable | Type | Default | Range | Description |\n"
             "|---|---|---|---|---|\n");
  std::string legacy;
  for (const Spec &sp : registry()) {
    std::string dflt = sp.type == Type::path ? "unset" : "`" + format(sp, sp.default_mpich) + "`";
    if (sp.default_mpich != sp.default_openmpi)
      dflt += " (" + std::string(flavor_name(Flavor::mpich)) + "), `" +
              format(sp, sp.default_openmpi) + "` (" + flavor_name(Flavor::openmpi) + ")";
    fmt::print(out, "| `{}` | {} | {} | {} | {} |\n", sp.name, type_name(sp.type), dflt,
               range_text(sp), sp.description);
    if (sp.legacy_name)
      legacy += fmt::format("* `{}` for `{}` (plain numbers in units of {})\n",
                            sp.legacy_name, sp.name, format(sp.type, sp.legacy_unit));
  }
  if (!legacy.empty())
    fmt::print(out, "\nOlder names, still read when the new name is unset:\n\n{}", legacy);
  return 0;
}

}  // namespace loom_cli
