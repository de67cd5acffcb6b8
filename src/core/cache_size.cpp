#include "cache_size.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "loom.h"

namespace loom {
namespace {

// sysfs's size of cpu0's cache `index` ("32768K"), 0 when none or not of
// type `kind` ("Unified", "Data") and, where `level` is not 0, that level.
int64_t sysfs_cache_bytes(int index, const char *kind, int level = 0) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
  std::ifstream type(dir + "type"), size(dir + "size");
  std::string t, s;
  if (!(type >> t) || t != kind || !(size >> s) || s.empty()) return 0;
  if (level) {
    std::ifstream lvl(dir + "level");
    int l = 0;
    if (!(lvl >> l) || l != level) return 0;
  }
  int64_t v = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + (s[i] - '0');
  const char unit = i < s.size() ? s[i] : 0;
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
}

int64_t measure() {
  int64_t best = 0;
  for (int i = 0; i < 8; ++i) best = std::max(best, sysfs_cache_bytes(i, "Unified"));
  if (best > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (const long v = sysconf(name); v > 0) return v;
#endif
  return int64_t(32) << 20;
}

}  // namespace

int64_t measure_l1_data_cache_bytes() {
  for (int i = 0; i < 8; ++i)
    if (const int64_t v = sysfs_cache_bytes(i, "Data", 1)) return v;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (const long v = sysconf(_SC_LEVEL1_DCACHE_SIZE); v > 0) return v;
#endif
  return int64_t(32) << 10;
}

int64_t last_level_cache_bytes() {
  static const int64_t bytes = measure();
  return bytes;
}

int64_t streaming_from() { return std::max(kFromMemory, last_level_cache_bytes() / 4); }

}  // namespace loom

size_t loom_last_level_cache_bytes(void) { return (size_t)loom::last_level_cache_bytes(); }
