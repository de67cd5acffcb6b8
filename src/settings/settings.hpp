// Loom's settings: every LOOM_* environment variable in one typed registry
// (name, type, default, range, description), one syntax for all of them,
// and a snapshot that reads them once.
//
// No MPI and no global state in here: the drop-in keeps one snapshot for
// the process (src/mpi/config.hpp), the `loom info` command takes its own,
// the tests build snapshots from made-up environments.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loom {
namespace settings {

/// The MPI library a component was built for; some defaults differ.
enum class Flavor { mpich, openmpi };

/// What a setting holds.
enum class Type {
  boolean,  ///< 1/0, yes/no, on/off, true/false (any case)
  size,     ///< bytes: digits with an optional K, M, G or T (powers of 1024)
  choice,   ///< one of the names in Spec::choices (any case); the value is its index
  path,     ///< a file name, taken as it is (Value::text); the value is 0
};

/// Every setting; the index of its entry in registry().
enum class Id {
  verbose,
  p2p,
  scheme,
  profile,
  system_run,
  system_min,
  system_max,
  staging_max,
  staging_cache,
  l2l,
  l2l_min,
  l2l_grace,
  l2l_run,
  l2l_coll_min,
  l2l_arena,
  cma,
  threads,
  isa,
  jit
};

/// One setting's definition.
struct Spec {
  Id id;
  const char *name;  ///< the environment variable
  Type type;
  int64_t default_mpich;    ///< the default for the MPICH build
  int64_t default_openmpi;  ///< the default for the Open MPI build
  int64_t min, max;         ///< accepted values, inclusive (booleans: 0, 1)
  const char *description;  ///< one line
  /// An older name still read when `name` is unset (nullptr: none), and
  /// what a plain number means under it (LOOM_STAGING_MAX_MB counts MiB).
  const char *legacy_name;
  int64_t legacy_unit;
  /// Type::choice: the accepted names, value i meaning choices[i].
  std::vector<std::string> choices = {};

  /// The default of the build for @p f.
  int64_t default_for(Flavor f) const {
    return f == Flavor::mpich ? default_mpich : default_openmpi;
  }
};

/// All settings, in Id order.
const std::vector<Spec> &registry();
/// The definition of @p id.
const Spec &spec(Id id);

/// Parses a boolean (1/0, yes/no, on/off, true/false in any case, blanks
/// around ignored) into @p out; false when @p text is none of those.
bool parse_bool(const std::string &text, bool *out);
/// Parses a size into @p out: digits, optionally a K, M, G or T suffix
/// (powers of 1024, optionally followed by "iB"; any case; blanks around
/// ignored).  A plain number counts @p unit bytes.  False on anything
/// else, including overflow and negative numbers.
bool parse_size(const std::string &text, int64_t unit, int64_t *out);
/// Whether @p text (any case, blanks around ignored) is the name @p name.
bool parse_choice(const std::string &text, const std::string &name);
/// A value as the parsers read it back: on/off, or a size with the largest
/// suffix that divides it exactly (8192 -> "8K").
std::string format(Type type, int64_t value);
/// A value of setting @p s as the parsers read it back (format(), or the
/// name of a choice); "" for a path (its text is the value).
std::string format(const Spec &s, int64_t value);

/// Where a setting's current value comes from.
enum class Source {
  default_value,  ///< the variable is unset (or empty)
  environment,    ///< the variable's value
  rejected,       ///< the variable's value was invalid: the default applies
};

/// A setting's value in a snapshot.
struct Value {
  int64_t value = 0;
  Source source = Source::default_value;
  std::string variable;  ///< the variable read (the legacy name if that one)
  std::string text;      ///< its text as found in the environment
};

/// Looks up an environment variable: nullptr when unset.
using Lookup = std::function<const char *(const char *)>;

/// Every setting, read once.
class Snapshot {
 public:
  /// Reads every setting through @p env with the defaults of @p flavor.
  /// An invalid or out-of-range value keeps the default and adds a
  /// warning naming the variable, the value and the default.
  Snapshot(Flavor flavor, const Lookup &env);
  /// The same from the process environment (std::getenv).
  static Snapshot from_environment(Flavor flavor);

  const Value &value(Id id) const { return values_[(size_t)id]; }
  /// Whether the environment set it (else it holds the build's default).
  bool set(Id id) const { return value(id).source == Source::environment; }
  /// A boolean setting.
  bool on(Id id) const { return value(id).value != 0; }
  /// A size setting, in bytes.
  int64_t bytes(Id id) const { return value(id).value; }
  /// A choice setting: the index of the name chosen in Spec::choices.
  int64_t choice(Id id) const { return value(id).value; }
  /// A path setting: the path, "" when unset (or rejected).
  const std::string &path(Id id) const { return value(id).text; }
  /// One line per rejected or ignored variable (no trailing newline).
  const std::vector<std::string> &warnings() const { return warnings_; }

 private:
  std::vector<Value> values_;
  std::vector<std::string> warnings_;
};

}  // namespace settings
}  // namespace loom
