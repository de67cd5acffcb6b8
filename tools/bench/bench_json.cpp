#include "bench_json.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "harness.h"
#include "json_field.h"

namespace loom_bench {

namespace {

const char *const kSuites[] = {"pack", "p2p", "coll", "engine"};

// RFC 4180: a field with a comma, a quote or a line break is quoted, its
// quotes doubled.
std::string csv_field(const std::string &s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(const JsonField &f) {
  if (f.is_null()) return "";
  if (f.value().is_number_integer()) return std::to_string(f.integer());
  return fmt::format("{}", f.number());
}

bool write_file(const std::string &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    fmt::print(stderr, "loom: cannot write {}: {}\n", path, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

const char kCsvHeader[] =
    "suite,flavor,mpi,host,date,git_commit,table,group,case,bytes,contender,reps,sample,"
    "seconds";

nlohmann::json bench_document(const std::string &suite, const RunInfo &info) {
  return {{"schema", kBenchSchemaVersion},
          {"suite", suite},
          {"tool", "loom bench " + suite},
          {"run", run_json(info)}};
}

nlohmann::json table_json(const std::string &key, const std::string &title,
                          const std::string &what, const std::vector<std::string> &contenders) {
  return {{"key", key}, {"title", title}, {"what", what}, {"contenders", contenders}};
}

nlohmann::json row_json(const std::string &name, const std::string &group,
                        const std::string &sizes, const std::string &plan, size_t bytes,
                        int rounds, const std::vector<std::string> &mismatches,
                        const std::string &error) {
  nlohmann::json r = {{"name", name},         {"group", group},
                      {"sizes", sizes},       {"plan", plan},
                      {"bytes", bytes},       {"rounds", rounds},
                      {"mismatches", mismatches},
                      {"verified", mismatches.empty() && error.empty()}};
  if (!error.empty()) r["error"] = error;
  return r;
}

nlohmann::json samples_json(int64_t reps, const std::vector<double> &samples_s) {
  if (samples_s.empty()) return nullptr;
  return {{"reps", reps},
          {"median_s", median(samples_s)},
          {"min_s", *std::min_element(samples_s.begin(), samples_s.end())},
          {"samples_s", samples_s}};
}

bool write_json_file(const std::string &path, const nlohmann::json &doc) {
  return write_file(path, doc.dump(1) + "\n");
}

bool write_csv_file(const std::string &path, const nlohmann::json &doc) {
  std::string text = std::string(kCsvHeader) + "\n";
  try {
    const JsonField d(doc, "");
    const JsonField run = d.at("run");
    const std::string common =
        fmt::format("{},{},{},{},{},{},", csv_field(d.at("suite").str()),
                    csv_field(run.at("flavor").str()), csv_field(run.at("mpi").at("name").str()),
                    csv_field(run.at("machine").at("hostname").str()),
                    csv_field(run.at("date").str()), csv_field(run.at("git").at("commit").str()));
    const JsonField tables = d.at("tables");
    for (size_t t = 0; t < tables.size(); ++t) {
      const JsonField table = tables.at(t);
      const JsonField names = table.at("contenders");
      const JsonField rows = table.at("rows");
      for (size_t r = 0; r < rows.size(); ++r) {
        const JsonField row = rows.at(r);
        const std::string head =
            common + fmt::format("{},{},{},{},", csv_field(table.at("key").str()),
                                 csv_field(row.at("group").str()),
                                 csv_field(row.at("name").str()),
                                 row.has("bytes") ? csv_number(row.at("bytes")) : "");
        for (size_t c = 0; c < names.size(); ++c) {
          const std::string who = names.at(c).str();
          const JsonField op = row.at("contenders").at(who);
          if (op.is_null()) continue;
          const std::string reps = csv_number(op.at("reps"));
          const JsonField samples = op.at("samples_s");
          for (size_t s = 0; s < samples.size(); ++s)
            text += fmt::format("{}{},{},{},{}\n", head, csv_field(who), reps, s,
                                csv_number(samples.at(s)));
        }
      }
    }
  } catch (const ShapeError &e) {
    // The document is the tool's own: a shape error here is a bug.
    fmt::print(stderr, "loom: cannot write {}: {}\n", path, e.what());
    return false;
  }
  return write_file(path, text);
}

bool write_results(const std::string &json_path, const std::string &csv_path,
                   const nlohmann::json &doc) {
  bool ok = true;
  if (!json_path.empty()) ok = write_json_file(json_path, doc) && ok;
  if (!csv_path.empty()) ok = write_csv_file(csv_path, doc) && ok;
  return ok;
}

bool read_bench_file(const std::string &path, nlohmann::json &doc, std::string &error) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = fmt::format("cannot open: {}", std::strerror(errno));
    return false;
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool read_error = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (read_error) {
    error = fmt::format("cannot read: {}", std::strerror(err));
    return false;
  }
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // "[json.exception.parse_error.101] parse error at line 1, ..." without
    // the library's tag.
    std::string what = e.what();
    auto tag = what.find("] ");
    error = "not JSON: " + (tag == std::string::npos ? what : what.substr(tag + 2));
    return false;
  }
  if (!doc.is_object()) {
    error = "not a loom bench JSON file (the document is not an object)";
    return false;
  }
  auto schema = doc.find("schema");
  if (schema == doc.end()) {
    auto tool = doc.find("tool");
    if (tool != doc.end() && tool->is_string() &&
        tool->get<std::string>().rfind("loom bench", 0) == 0)
      error = fmt::format(
          "no \"schema\" field: written by a loom bench older than schema version {}; "
          "run the suite again",
          kBenchSchemaVersion);
    else
      error = "not a loom bench JSON file (no \"schema\" field)";
    return false;
  }
  if (!schema->is_number_integer() || schema->get<int64_t>() != kBenchSchemaVersion) {
    error = fmt::format("schema version {} is not supported (this loom reads version {})",
                        schema->dump(), kBenchSchemaVersion);
    return false;
  }
  auto suite = doc.find("suite");
  if (suite == doc.end() || !suite->is_string() ||
      std::find(std::begin(kSuites), std::end(kSuites), suite->get<std::string>()) ==
          std::end(kSuites)) {
    error = fmt::format("suite: expected one of pack, p2p, coll, engine, found {}",
                        suite == doc.end() ? std::string("nothing") : suite->dump());
    return false;
  }
  return true;
}

}  // namespace loom_bench
