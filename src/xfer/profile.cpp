// The profile file: JSON (nlohmann/json), validated field by field so that a
// damaged or foreign file is refused with a reason instead of steering the
// drop-in with garbage.
#include "profile.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace loom {
namespace xfer {
namespace {

using nlohmann::json;

// A positive, finite, ascending axis of numbers under grid[key].
bool read_axis(const json &grid, const char *key, std::vector<double> *out, std::string *why) {
  auto it = grid.find(key);
  if (it == grid.end() || !it->is_array() || it->empty()) {
    *why = std::string("grid.") + key + " is missing or not a non-empty array";
    return false;
  }
  out->clear();
  for (const json &v : *it) {
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()) ||
        (!out->empty() && !(v.get<double>() > out->back()))) {
      *why = std::string("grid.") + key + " must hold positive numbers in ascending order";
      return false;
    }
    out->push_back(v.get<double>());
  }
  return true;
}

// One row of times, one per message size, appended to *out.
bool read_row(const json &row, const Profile &p, const std::string &where,
              std::vector<double> *out, std::string *why) {
  if (!row.is_array() || row.size() != p.bytes.size()) {
    *why = where + ": every row must hold one time per grid.bytes (" +
           std::to_string(p.bytes.size()) + ")";
    return false;
  }
  for (const json &t : row) {
    if (t.is_null()) {
      out->push_back(NAN);
    } else if (t.is_number() && t.get<double>() > 0 && std::isfinite(t.get<double>())) {
      out->push_back(t.get<double>());
    } else {
      *why = where + ": a time is neither a positive number of seconds nor null";
      return false;
    }
  }
  return true;
}

// One scheme's rows (one per mean run, each one time per message size).
bool read_cells(const json &rows, const Profile &p, const std::string &where,
                std::vector<double> *out, std::string *why) {
  if (!rows.is_array() || rows.size() != p.runs.size()) {
    *why = where + " must hold one row per grid.mean_run (" + std::to_string(p.runs.size()) + ")";
    return false;
  }
  out->clear();
  for (const json &row : rows)
    if (!read_row(row, p, where, out, why)) return false;
  return true;
}

// A string member, or "" when absent or not a string.
std::string text_of(const json &j, const char *key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool parse_json(const json &j, Profile *out, std::string *why) {
  if (!j.is_object()) return *why = "not a JSON object", false;
  auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_number_integer() || schema->get<int>() != kProfileSchema) {
    *why = "schema is not " + std::to_string(kProfileSchema);
    return false;
  }
  Profile p;
  auto mpi = j.find("mpi");
  if (mpi == j.end() || !mpi->is_object()) return *why = "mpi is missing", false;
  p.flavor = text_of(*mpi, "flavor");
  if (p.flavor != "mpich" && p.flavor != "openmpi") {
    *why = "mpi.flavor is not mpich or openmpi";
    return false;
  }
  p.mpi_library = text_of(*mpi, "library");
  p.date = text_of(j, "date");
  p.loom = text_of(j, "loom");
  auto machine = j.find("machine");
  if (machine != j.end() && machine->is_object()) {
    p.machine.host = text_of(*machine, "host");
    p.machine.cpu = text_of(*machine, "cpu");
    p.machine.kernel = text_of(*machine, "kernel");
    auto cores = machine->find("cores");
    if (cores != machine->end() && cores->is_number_integer()) p.machine.cores = cores->get<int>();
    auto load = machine->find("load");
    if (load != machine->end() && load->is_array() && load->size() == 3)
      for (size_t i = 0; i < 3; ++i)
        if ((*load)[i].is_number()) p.machine.load[i] = (*load)[i].get<double>();
  }
  auto grid = j.find("grid");
  if (grid == j.end() || !grid->is_object()) return *why = "grid is missing", false;
  if (!read_axis(*grid, "mean_run", &p.runs, why) || !read_axis(*grid, "bytes", &p.bytes, why))
    return false;
  auto schemes = j.find("schemes");
  if (schemes == j.end() || !schemes->is_object() || schemes->empty())
    return *why = "schemes is missing or empty", false;
  for (auto it = schemes->begin(); it != schemes->end(); ++it) {
    std::optional<Scheme> s = parse_scheme(it.key());
    if (!s) return *why = "unknown scheme '" + it.key() + "'", false;
    if (!read_cells(it.value(), p, "schemes." + it.key(), &p.cells[(size_t)*s], why)) return false;
  }
  auto pack = j.find("pack");
  if (pack != j.end() && !read_cells(*pack, p, "pack", &p.pack, why)) return false;
  auto coll = j.find("coll_min");
  if (coll != j.end()) {
    if (!coll->is_number_unsigned()) return *why = "coll_min is not a byte count", false;
    p.coll_min = coll->get<size_t>();
  }
  auto contig = j.find("contiguous");
  if (contig != j.end()) {
    if (!contig->is_object()) return *why = "contiguous is not an object", false;
    for (auto [key, dst] : {std::pair<const char *, std::vector<double> *>{"system", &p.contig_system},
                            std::pair<const char *, std::vector<double> *>{"single_copy", &p.contig_read}}) {
      auto row = contig->find(key);
      if (row == contig->end()) return *why = std::string("contiguous.") + key + " is missing", false;
      if (!read_row(*row, p, std::string("contiguous.") + key, dst, why)) return false;
    }
  }
  *out = std::move(p);
  return true;
}

}  // namespace

double Profile::cell(Scheme s, size_t i, size_t j) const {
  const std::vector<double> &c = cells[(size_t)s];
  return c.empty() ? NAN : c[i * bytes.size() + j];
}

double Profile::pack_cell(size_t i, size_t j) const {
  return pack.empty() ? NAN : pack[i * bytes.size() + j];
}

bool parse_profile(const std::string &text, Profile *out, std::string *why) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return *why = "not valid JSON", false;
  try {
    return parse_json(j, out, why);
  } catch (const std::exception &e) {  // a number out of range of its type
    *why = e.what();
    return false;
  }
}

bool load_profile(const std::string &path, Profile *out, std::string *why) {
  std::ifstream in(path);
  if (!in) return *why = "cannot read " + path + ": " + std::strerror(errno), false;
  std::stringstream text;
  text << in.rdbuf();
  if (!parse_profile(text.str(), out, why)) return *why = path + ": " + *why, false;
  return true;
}

namespace {

// Times [first, first + n) as a JSON row, null where NaN.
json row_of(const double *first, size_t n) {
  json row = json::array();
  for (size_t j = 0; j < n; ++j) row.push_back(std::isnan(first[j]) ? json(nullptr) : json(first[j]));
  return row;
}

// A table of times over the grid as rows per mean run.
json grid_rows(const Profile &p, const std::vector<double> &cells) {
  json rows = json::array();
  for (size_t i = 0; i < p.runs.size(); ++i)
    rows.push_back(row_of(&cells[i * p.bytes.size()], p.bytes.size()));
  return rows;
}

}  // namespace

std::string profile_json(const Profile &p) {
  json schemes = json::object();
  for (size_t s = 0; s < kSchemeCount; ++s)
    if (!p.cells[s].empty()) schemes[kSchemeNames[s]] = grid_rows(p, p.cells[s]);
  json j = {
      {"schema", kProfileSchema},
      {"kind", "loom transfer profile"},
      {"date", p.date},
      {"loom", p.loom},
      {"mpi", {{"flavor", p.flavor}, {"library", p.mpi_library}}},
      {"machine",
       {{"host", p.machine.host},
        {"cpu", p.machine.cpu},
        {"kernel", p.machine.kernel},
        {"cores", p.machine.cores},
        {"load", {p.machine.load[0], p.machine.load[1], p.machine.load[2]}}}},
      {"time_unit", "seconds per message (half a ping-pong round trip), fastest repeat's median"},
      {"grid", {{"mean_run", p.runs}, {"bytes", p.bytes}}},
      {"schemes", schemes}};
  if (p.coll_min > 0) j["coll_min"] = p.coll_min;
  if (!p.contig_system.empty() && !p.contig_read.empty())
    j["contiguous"] = {{"system", row_of(p.contig_system.data(), p.bytes.size())},
                       {"single_copy", row_of(p.contig_read.data(), p.bytes.size())}};
  if (!p.pack.empty()) j["pack"] = grid_rows(p, p.pack);
  return j.dump(1) + "\n";
}

bool write_profile(const std::string &path, const Profile &p, std::string *why) {
  if (!make_parent_dirs(path, why)) return false;
  std::ofstream out(path);
  out << profile_json(p);
  out.close();
  if (!out) return *why = "cannot write " + path + ": " + std::strerror(errno), false;
  return true;
}

bool make_parent_dirs(const std::string &path, std::string *why) {
  for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    std::string dir = path.substr(0, at);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = "cannot create " + dir + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

std::string default_profile_path(const std::string &flavor, const char *xdg_config_home,
                                 const char *home) {
  std::string dir;
  if (xdg_config_home && *xdg_config_home)
    dir = xdg_config_home;
  else if (home && *home)
    dir = std::string(home) + "/.config";
  else
    return "";
  return dir + "/loom/profile-" + flavor + ".json";
}

}  // namespace xfer
}  // namespace loom
