// `loom info`: the Loom version, the MPI this build is for, and every
// setting with its current value and where that value comes from (as
// `ompi_info --param` and MPICH's mpivars list theirs); `--markdown`
// prints the settings reference instead (docs/settings.md is its output).
#pragma once

#include <cstdio>
#include <string>

namespace loom_cli {

// Prints the report to @p out; warnings about invalid settings go to
// stderr.  Returns the exit status.
int print_info(std::FILE *out);
// The drop-in built beside this program (build/<flavor>/libloom-mpi.so),
// or "" when there is none.
std::string dropin_beside_me();
// Prints docs/settings.md, generated from the settings registry.
int print_settings_markdown(std::FILE *out);

}  // namespace loom_cli
