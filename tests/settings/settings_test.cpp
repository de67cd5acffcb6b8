// The settings registry, its parsers and snapshots read from made-up
// environments.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <set>
#include <string>

#include "settings.hpp"

using namespace loom::settings;

namespace {

constexpr int64_t K = 1024, M = K * K, G = M * K, T = G * K;

// A snapshot of an environment holding exactly @p vars.
Snapshot snapshot(const std::map<std::string, std::string> &vars,
                  Flavor flavor = Flavor::openmpi) {
  return Snapshot(flavor, [&vars](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

std::string all_warnings(const Snapshot &s) {
  std::string all;
  for (const std::string &w : s.warnings()) all += w + "\n";
  return all;
}

}  // namespace

TEST(Parse, EveryBooleanSpellingInAnyCase) {
  const std::map<std::string, bool> spellings = {
      {"1", true},  {"yes", true},  {"on", true},   {"true", true},
      {"0", false}, {"no", false},  {"off", false}, {"false", false},
      {"YES", true}, {"On", true},  {"TrUe", true}, {"NO", false},
      {"oFF", false}, {"FALSE", false}, {" yes\t", true}, {"\toff ", false}};
  for (const auto &[text, expected] : spellings) {
    bool b = !expected;
    EXPECT_TRUE(parse_bool(text, &b)) << "'" << text << "'";
    EXPECT_EQ(b, expected) << "'" << text << "'";
  }
}

TEST(Parse, NonBooleansAreRejected) {
  for (const char *text : {"", " ", "2", "-1", "01", "y", "n", "yess", "o", "enable",
                           "true1", "of f", "10"}) {
    bool b = true;
    EXPECT_FALSE(parse_bool(text, &b)) << "'" << text << "'";
    EXPECT_TRUE(b) << "'" << text << "' changed the output";
  }
}

TEST(Parse, SizesWithSuffixes) {
  const std::map<std::string, int64_t> sizes = {
      {"0", 0},          {"512", 512},     {"8K", 8 * K},     {"8k", 8 * K},
      {"4M", 4 * M},     {"4m", 4 * M},    {"3G", 3 * G},     {"2T", 2 * T},
      {"8KiB", 8 * K},   {"8kib", 8 * K},  {"4MiB", 4 * M},   {" 16 ", 16},
      {"0K", 0},         {"1048576", M},   {"9223372036854775807", INT64_MAX},
      {"8388607T", 8388607 * T}};
  for (const auto &[text, expected] : sizes) {
    int64_t n = -1;
    EXPECT_TRUE(parse_size(text, 1, &n)) << "'" << text << "'";
    EXPECT_EQ(n, expected) << "'" << text << "'";
  }
}

TEST(Parse, PlainNumbersCountTheUnit) {
  int64_t n = 0;
  EXPECT_TRUE(parse_size("4", M, &n));
  EXPECT_EQ(n, 4 * M);
  EXPECT_TRUE(parse_size("4K", M, &n));  // a suffix says bytes itself
  EXPECT_EQ(n, 4 * K);
  EXPECT_FALSE(parse_size("8796093022208", M, &n));  // 2^43 MiB overflows
}

TEST(Parse, NonSizesAreRejected) {
  for (const char *text : {"", " ", "-1", "+1", "1.5", "1e6", "8KB", "8 K", "K", "1P",
                           "1Ki", "1iB", "0x10", "12abc", "9223372036854775808",
                           "99999999999999999999", "8388608T"}) {
    int64_t n = 7;
    EXPECT_FALSE(parse_size(text, 1, &n)) << "'" << text << "'";
  }
}

TEST(Parse, FormatReadsBack) {
  EXPECT_EQ(format(Type::boolean, 1), "on");
  EXPECT_EQ(format(Type::boolean, 0), "off");
  const std::map<int64_t, std::string> sizes = {
      {0, "0"}, {512, "512"}, {1000, "1000"}, {8 * K, "8K"}, {4 * M, "4M"},
      {3 * M + 1, "3145729"}, {1536 * K, "1536K"}, {G, "1G"}, {T, "1T"}, {2048 * T, "2048T"}};
  for (const auto &[value, text] : sizes) {
    EXPECT_EQ(format(Type::size, value), text);
    int64_t n = -1;
    EXPECT_TRUE(parse_size(text, 1, &n));
    EXPECT_EQ(n, value);
  }
}

TEST(Registry, WellFormed) {
  std::set<std::string> names;
  size_t index = 0;
  for (const Spec &s : registry()) {
    EXPECT_EQ((size_t)s.id, index++) << s.name;
    EXPECT_EQ(&spec(s.id), &s);
    EXPECT_EQ(std::string(s.name).rfind("LOOM_", 0), 0u) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate " << s.name;
    if (s.legacy_name) {
      EXPECT_TRUE(names.insert(s.legacy_name).second) << s.legacy_name;
    }
    EXPECT_LE(s.min, s.max) << s.name;
    for (Flavor f : {Flavor::mpich, Flavor::openmpi}) {
      EXPECT_GE(s.default_for(f), s.min) << s.name;
      EXPECT_LE(s.default_for(f), s.max) << s.name;
    }
    if (s.type == Type::boolean) {
      EXPECT_TRUE(s.min == 0 && s.max == 1) << s.name;
    }
    const std::string d = s.description;
    EXPECT_FALSE(d.empty()) << s.name;
    EXPECT_EQ(d.find_first_of("\n|"), std::string::npos) << s.name << ": one table cell";
  }
}

TEST(Snapshot, DefaultsPerFlavor) {
  for (Flavor f : {Flavor::mpich, Flavor::openmpi}) {
    Snapshot s = snapshot({}, f);
    EXPECT_TRUE(s.warnings().empty());
    for (const Spec &sp : registry()) {
      EXPECT_EQ(s.value(sp.id).value, sp.default_for(f)) << sp.name;
      EXPECT_EQ(s.value(sp.id).source, Source::default_value) << sp.name;
    }
  }
  EXPECT_EQ(snapshot({}, Flavor::mpich).bytes(Id::system_min), 8 * K + 1);
  EXPECT_EQ(snapshot({}, Flavor::openmpi).bytes(Id::system_min), 32 * K + 1);
  EXPECT_TRUE(snapshot({}).on(Id::p2p));
  EXPECT_FALSE(snapshot({}).on(Id::verbose));
}

TEST(Snapshot, ValidValuesApply) {
  Snapshot s = snapshot({{"LOOM_VERBOSE", "Yes"},
                         {"LOOM_P2P", "off"},
                         {"LOOM_SYSTEM_MIN", "16K"},
                         {"LOOM_SYSTEM_MAX", "2M"},
                         {"LOOM_STAGING_MAX", "0"}});
  EXPECT_TRUE(s.warnings().empty()) << all_warnings(s);
  EXPECT_TRUE(s.on(Id::verbose));
  EXPECT_FALSE(s.on(Id::p2p));
  EXPECT_EQ(s.bytes(Id::system_min), 16 * K);
  EXPECT_EQ(s.bytes(Id::system_max), 2 * M);
  EXPECT_EQ(s.bytes(Id::staging_max), 0);
  EXPECT_EQ(s.value(Id::p2p).source, Source::environment);
  EXPECT_EQ(s.value(Id::p2p).text, "off");
  EXPECT_EQ(s.value(Id::system_run).source, Source::default_value);
  EXPECT_TRUE(s.set(Id::p2p));
  EXPECT_FALSE(s.set(Id::system_run));
}

TEST(Snapshot, EmptyIsUnset) {
  Snapshot s = snapshot({{"LOOM_P2P", ""}, {"LOOM_SYSTEM_RUN", ""}});
  EXPECT_TRUE(s.warnings().empty()) << all_warnings(s);
  EXPECT_TRUE(s.on(Id::p2p));
  EXPECT_EQ(s.value(Id::system_run).source, Source::default_value);
}

TEST(Snapshot, InvalidValuesWarnAndKeepTheDefault) {
  Snapshot s = snapshot({{"LOOM_VERBOSE", "maybe"},
                         {"LOOM_P2P", "2"},
                         {"LOOM_SYSTEM_RUN", "1.5K"},
                         {"LOOM_SYSTEM_MAX", "-1"}});
  ASSERT_EQ(s.warnings().size(), 4u) << all_warnings(s);
  EXPECT_EQ(s.warnings()[0],
            "LOOM_VERBOSE='maybe' is not a boolean (1/0, yes/no, on/off, true/false); "
            "using the default off");
  EXPECT_EQ(s.warnings()[1],
            "LOOM_P2P='2' is not a boolean (1/0, yes/no, on/off, true/false); "
            "using the default on");
  EXPECT_EQ(s.warnings()[2],
            "LOOM_SYSTEM_RUN='1.5K' is not a size (bytes, optionally with a K, M, G or T "
            "suffix); using the default 512");
  EXPECT_EQ(s.warnings()[3],
            "LOOM_SYSTEM_MAX='-1' is not a size (bytes, optionally with a K, M, G or T "
            "suffix); using the default 1T");
  EXPECT_FALSE(s.on(Id::verbose));
  EXPECT_TRUE(s.on(Id::p2p));
  EXPECT_EQ(s.bytes(Id::system_run), 512);
  EXPECT_EQ(s.bytes(Id::system_max), T);
  EXPECT_EQ(s.value(Id::p2p).source, Source::rejected);
  EXPECT_EQ(s.value(Id::p2p).text, "2");
}

TEST(Snapshot, OutOfRangeWarnsAndKeepsTheDefault) {
  Snapshot s = snapshot({{"LOOM_STAGING_MAX", "2G"}, {"LOOM_SYSTEM_MIN", "2T"}},
                        Flavor::mpich);
  ASSERT_EQ(s.warnings().size(), 2u) << all_warnings(s);
  EXPECT_EQ(s.warnings()[0], "LOOM_SYSTEM_MIN='2T' is out of range [0, 1T]; using the default 8193");
  EXPECT_EQ(s.warnings()[1], "LOOM_STAGING_MAX='2G' is out of range [0, 1G]; using the default 32M");
  EXPECT_EQ(s.bytes(Id::staging_max), 32 * M);
  EXPECT_EQ(s.bytes(Id::system_min), 8 * K + 1);
  // The bounds themselves are in range.
  Snapshot edge = snapshot({{"LOOM_STAGING_MAX", "1G"}, {"LOOM_SYSTEM_MIN", "1T"}});
  EXPECT_TRUE(edge.warnings().empty()) << all_warnings(edge);
  EXPECT_EQ(edge.bytes(Id::staging_max), G);
}

TEST(Snapshot, WarningsStayOneLine) {
  Snapshot s = snapshot({{"LOOM_P2P", "of\nf"}});
  ASSERT_EQ(s.warnings().size(), 1u);
  EXPECT_EQ(s.warnings()[0].find('\n'), std::string::npos) << s.warnings()[0];
  EXPECT_NE(s.warnings()[0].find("LOOM_P2P='of?f'"), std::string::npos) << s.warnings()[0];
}

TEST(Snapshot, LegacyNamesCountMiB) {
  Snapshot s = snapshot({{"LOOM_STAGING_MAX_MB", "1"}, {"LOOM_STAGING_CACHE_MB", "2"}});
  EXPECT_TRUE(s.warnings().empty()) << all_warnings(s);
  EXPECT_EQ(s.bytes(Id::staging_max), M);
  EXPECT_EQ(s.bytes(Id::staging_cache), 2 * M);
  EXPECT_EQ(s.value(Id::staging_max).variable, "LOOM_STAGING_MAX_MB");
  EXPECT_EQ(s.value(Id::staging_max).source, Source::environment);

  Snapshot bad = snapshot({{"LOOM_STAGING_MAX_MB", "2048"}});
  ASSERT_EQ(bad.warnings().size(), 1u);
  EXPECT_EQ(bad.warnings()[0],
            "LOOM_STAGING_MAX_MB='2048' is out of range [0, 1G]; using the default 32M");
}

TEST(Snapshot, TheNewNameWinsOverTheLegacyOne) {
  Snapshot s = snapshot({{"LOOM_STAGING_MAX", "4M"}, {"LOOM_STAGING_MAX_MB", "1"}});
  ASSERT_EQ(s.warnings().size(), 1u);
  EXPECT_EQ(s.warnings()[0], "LOOM_STAGING_MAX_MB=1 is ignored: LOOM_STAGING_MAX is set");
  EXPECT_EQ(s.bytes(Id::staging_max), 4 * M);
  EXPECT_EQ(s.value(Id::staging_max).variable, "LOOM_STAGING_MAX");
}

TEST(Snapshot, SchemeNamesInAnyCase) {
  const Spec &sp = spec(Id::scheme);
  ASSERT_GE(sp.choices.size(), 3u);
  EXPECT_EQ(sp.choices[0], "auto");
  EXPECT_EQ(snapshot({}).choice(Id::scheme), 0);
  for (size_t i = 0; i < sp.choices.size(); ++i) {
    std::string upper = sp.choices[i];
    for (char &c : upper) c = (char)std::toupper((unsigned char)c);
    Snapshot s = snapshot({{"LOOM_SCHEME", " " + upper + " "}});
    EXPECT_TRUE(s.warnings().empty()) << all_warnings(s);
    EXPECT_EQ(s.choice(Id::scheme), (int64_t)i) << upper;
    EXPECT_EQ(format(sp, s.choice(Id::scheme)), sp.choices[i]);
  }
}

TEST(Snapshot, UnknownSchemeWarnsAndKeepsAuto) {
  Snapshot s = snapshot({{"LOOM_SCHEME", "fastest"}});
  ASSERT_EQ(s.warnings().size(), 1u) << all_warnings(s);
  EXPECT_EQ(s.warnings()[0],
            "LOOM_SCHEME='fastest' is not one of auto, system, staged, single_copy, per_block, "
            "pipelined; using the default auto");
  EXPECT_EQ(s.choice(Id::scheme), 0);
  EXPECT_EQ(s.value(Id::scheme).source, Source::rejected);
}

TEST(Snapshot, ProfilePathIsTakenAsItIs) {
  EXPECT_EQ(snapshot({}).path(Id::profile), "");
  Snapshot s = snapshot({{"LOOM_PROFILE", "/tmp/my profile.json"}});
  EXPECT_TRUE(s.warnings().empty()) << all_warnings(s);
  EXPECT_EQ(s.path(Id::profile), "/tmp/my profile.json");
  EXPECT_EQ(s.value(Id::profile).source, Source::environment);
}
