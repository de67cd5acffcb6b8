// Choosing the instruction set: see isa.hpp.  Highway detects what the CPU
// (and the operating system's saved state) supports; LOOM_ISA or
// loom_set_isa() may narrow the choice, never widen it past the CPU.
#include "isa.hpp"

#include <hwy/targets.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#include "isa_names.hpp"
#include "loom.h"
#include "setting_text.hpp"

namespace loom {
namespace {

bool runs_here(const KernelSet &k, size_t i, size_t n) {
  return i + 1 == n || (hwy::SupportedTargets() & k.hwy_target) != 0;
}

// The set called `name` that this CPU runs (nullptr, empty or "auto": the
// widest); nullptr when there is none by that name here.  Names are read as
// the settings layer reads them (trimmed, any case).
const KernelSet *find(const char *name) {
  size_t n;
  const KernelSet *sets = kernel_sets(&n);
  const std::string want = name ? setting_text(name) : "";
  const bool any = want.empty() || want == "auto";
  for (size_t i = 0; i < n; ++i)
    if ((any || want == sets[i].name) && runs_here(sets[i], i, n)) return &sets[i];
  return nullptr;
}

std::atomic<const KernelSet *> g_current{nullptr};

}  // namespace

const KernelSet &current_kernel_set() {
  const KernelSet *k = g_current.load(std::memory_order_acquire);
  if (k) return *k;
  // First use: the environment's choice, else the widest (an unknown or
  // unsupported name falls back to it; `loom info` says so).
  const KernelSet *want = find(std::getenv("LOOM_ISA"));
  if (!want) want = find(nullptr);
  const KernelSet *expected = nullptr;
  g_current.compare_exchange_strong(expected, want, std::memory_order_acq_rel);
  return *g_current.load(std::memory_order_acquire);
}

namespace {
// The 32-bit copies of an index list (Node::disp32, lens32), for the nodes
// whose kernels read them: run lists (k_idxv) and index lists of blocks
// (k_idx_blk).  Other index nodes' kernels read `disp` only.
void compact_lists(Node &n) {
  if (n.kind != Kind::IdxV && !(n.kind == Kind::Idx && n.child->kind == Kind::Block)) return;
  auto fits = [](int64_t x) { return x >= INT32_MIN && x <= INT32_MAX; };
  if (!std::all_of(n.disp.begin(), n.disp.end(), fits) ||
      !std::all_of(n.lens.begin(), n.lens.end(), fits))
    return;
  n.disp32.assign(n.disp.begin(), n.disp.end());
  n.lens32.assign(n.lens.begin(), n.lens.end());
}
}  // namespace

void select_kernels(Node &n) {
  compact_lists(n);
  current_kernel_set().select(n);
  if (n.pack_alt || n.unpack_alt)
    n.choice = std::shared_ptr<TimedChoice[]>(
        new TimedChoice[2]{{TimedChoice::Tie::kKeep, TimedChoice::Cache::kSameCore},
                           {TimedChoice::Tie::kKeep, TimedChoice::Cache::kSameCore}});
}

}  // namespace loom

extern "C" {

const char *loom_isa(void) { return loom::current_kernel_set().name; }

void loom_copy(void *dst, const void *src, size_t n) {
  loom::current_kernel_set().copy(static_cast<char *>(dst), static_cast<const char *>(src), n);
}

loom_status loom_set_isa(const char *name) {
  const loom::KernelSet *k = loom::find(name);
  if (!k) return LOOM_ERR_ARG;
  loom::g_current.store(k, std::memory_order_release);
  return LOOM_OK;
}

const char *loom_isa_measured(void) {
  static thread_local std::string text;
  const loom::KernelSet &k = loom::current_kernel_set();
  static const char *const kWays[] = {"memcpy", "32-byte loop", "64-byte loop"};
  const loom::CopyWays w = k.copy_ways();
  text = std::string("long copies: regions by ") + kWays[(int)w.region] + ", near by " +
         kWays[(int)w.near];
  const std::string set = k.name;
  if (set.rfind("avx512", 0) == 0)
    text += loom::cold_masked_stores_slow()
                ? "; masked stores into uncached lines: slow (unpacks of 1 MiB or more prefetch)"
                : "; masked stores into uncached lines: not slow";
  else if (set == "avx2")
    text += loom::masked_stores_slow() ? "; masked stores: slow (small patterns by plain moves)"
                                       : "; masked stores: fast";
  return text.c_str();
}

const char *loom_isa_list(void) {
  static const std::string list = [] {
    size_t n;
    const loom::KernelSet *sets = loom::kernel_sets(&n);
    std::string s;
    for (size_t i = 0; i < n; ++i)
      if (loom::runs_here(sets[i], i, n)) s += (s.empty() ? "" : ",") + std::string(sets[i].name);
    return s;
  }();
  return list.c_str();
}

}  // extern "C"
