// Handler cost models around Loom's cursor (sim_strategies.h).
#include "sim_strategies.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace loom_sim {
namespace {

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

struct CursorDeleter {
  void operator()(loom_cursor_s *c) const { loom_cursor_free(c); }
};
using Cursor = std::unique_ptr<loom_cursor_s, CursorDeleter>;

Cursor cursor_at(const Layout &l, size_t offset) {
  Cursor c(l.new_cursor());
  loom_cursor_seek(c.get(), offset);
  return c;
}

// What every general (cursor-based) handler shares: the catch-up from the
// cursor's position to the packet, and the iov over the packet.
class CursorHandlers : public Handlers {
 public:
  CursorHandlers(const Layout &l, const HpuCosts &k, CatchUp mode)
      : l_(l), k_(k), mode_(mode) {}

 protected:
  // Moves c forward to `offset`, charged as a walk or as one seek.
  double catch_up(loom_cursor c, int64_t offset) {
    const int64_t d = offset - (int64_t)loom_cursor_offset(c);
    if (d == 0) return 0;
    if (mode_ == CatchUp::kSeek) {
      loom_cursor_seek(c, (size_t)offset);
      return k_.seek;
    }
    const size_t b = walk_blocks(c, (size_t)d);
    catchup_blocks += b;
    return (double)b * k_.walk_block;
  }
  double emit(loom_cursor c, size_t len, std::vector<DmaWrite> &w) {
    return (double)emit_writes(l_, c, len, w) * k_.block;
  }

  const Layout &l_;
  const HpuCosts &k_;
  CatchUp mode_;
};

// Listing 1: no cursor, no state beyond the vector's three parameters.
class Specialized : public Handlers {
 public:
  Specialized(const Layout &l, const Params &p, const HpuCosts &k)
      : l_(l), k_(k), packets_(ceil_div(l.packed(), p.payload())) {
    if (!l.is_vector()) throw std::invalid_argument("the specialized handler is for vectors");
  }
  size_t vhpu_of(size_t packet) const override { return packet; }
  size_t vhpus() const override { return packets_; }
  HandlerCost run(size_t, int64_t offset, size_t len, std::vector<DmaWrite> &w) override {
    size_t n = 0;
    vector_blocks(l_.vec_block(), l_.vec_stride(), (int64_t)l_.origin(), offset, len,
                  [&](int64_t dest, int64_t src, size_t k) {
                    w.push_back({dest, src, (uint32_t)k});
                    ++n;
                  });
    return {k_.init, 0, (double)n * k_.specialized_block};
  }
  size_t nic_memory() const override { return kDescriptor; }
  size_t to_nic() const override { return kDescriptor; }

 private:
  static constexpr size_t kDescriptor = 3 * sizeof(int64_t);  // block, stride, base
  const Layout &l_;
  const HpuCosts &k_;
  size_t packets_;
};

// One cursor per vHPU, one vHPU per HPU, packets dealt round robin (Δp = 1).
class HpuLocal : public CursorHandlers {
 public:
  HpuLocal(const Layout &l, const Params &p, const HpuCosts &k, CatchUp mode)
      : CursorHandlers(l, k, mode), hpus_((size_t)p.hpus()) {
    for (size_t i = 0; i < hpus_; ++i) cur_.push_back(cursor_at(l, 0));
  }
  size_t vhpu_of(size_t packet) const override { return packet % hpus_; }
  size_t vhpus() const override { return hpus_; }
  HandlerCost run(size_t v, int64_t offset, size_t len, std::vector<DmaWrite> &w) override {
    loom_cursor c = cur_[v].get();
    HandlerCost h{k_.init, 0, 0};
    if (offset < (int64_t)loom_cursor_offset(c)) {  // behind the segment: reset it
      loom_cursor_seek(c, 0);
      ++resets;
    }
    h.setup = catch_up(c, offset);
    h.blocks = emit(c, len, w);
    return h;
  }
  size_t nic_memory() const override { return l_.plan_bytes() + hpus_ * l_.state_bytes(); }
  size_t to_nic() const override { return l_.plan_bytes() + l_.state_bytes(); }

 private:
  size_t hpus_;
  std::vector<Cursor> cur_;
};

// Checkpoints every Δr bytes, made on the host: the masters RO-CP copies
// from and RW-CP restores from.
class Checkpointed : public CursorHandlers {
 public:
  Checkpointed(const Layout &l, const HpuCosts &k, const Interval &iv, CatchUp mode)
      : CursorHandlers(l, k, mode), iv_(iv) {
    for (size_t j = 0; j < iv.checkpoints; ++j) master_.push_back(cursor_at(l, j * iv.bytes));
  }
  size_t to_nic() const override { return l_.plan_bytes() + iv_.checkpoints * l_.state_bytes(); }

 protected:
  const Interval &iv_;
  std::vector<Cursor> master_;
};

// Read-only checkpoints: every handler copies the nearest one and catches up.
class RoCp : public Checkpointed {
 public:
  RoCp(const Layout &l, const Params &p, const HpuCosts &k, const Interval &iv, CatchUp mode)
      : Checkpointed(l, k, iv, mode), hpus_((size_t)p.hpus()),
        packets_(ceil_div(l.packed(), p.payload())), local_(l.new_cursor()) {}
  size_t vhpu_of(size_t packet) const override { return packet; }
  size_t vhpus() const override { return packets_; }
  HandlerCost run(size_t, int64_t offset, size_t len, std::vector<DmaWrite> &w) override {
    loom_cursor_copy(local_.get(), master_[(size_t)offset / iv_.bytes].get());
    HandlerCost h{k_.init + k_.copy, 0, 0};
    h.setup = catch_up(local_.get(), offset);
    h.blocks = emit(local_.get(), len, w);
    return h;
  }
  size_t nic_memory() const override {
    return l_.plan_bytes() + (iv_.checkpoints + hpus_) * l_.state_bytes();
  }

 private:
  size_t hpus_, packets_;
  Cursor local_;  // the HPU's copy (handlers run one at a time here)
};

// Progressing checkpoints: vHPU j owns checkpoint j and gets the Δp packets
// after it; it restores from the master only when a packet comes early.
class RwCp : public Checkpointed {
 public:
  RwCp(const Layout &l, const Params &p, const HpuCosts &k, const Interval &iv, CatchUp mode)
      : Checkpointed(l, k, iv, mode), vhpus_(ceil_div(ceil_div(l.packed(), p.payload()),
                                                      iv.packets)) {
    for (const Cursor &m : master_) {
      work_.push_back(Cursor(l.new_cursor()));
      loom_cursor_copy(work_.back().get(), m.get());  // placed by the host with the master
    }
  }
  size_t vhpu_of(size_t packet) const override { return packet / iv_.packets; }
  size_t vhpus() const override { return vhpus_; }
  HandlerCost run(size_t v, int64_t offset, size_t len, std::vector<DmaWrite> &w) override {
    loom_cursor c = work_[v].get();
    HandlerCost h{k_.init, 0, 0};
    if (offset < (int64_t)loom_cursor_offset(c)) {
      loom_cursor_copy(c, master_[v].get());
      h.init += k_.copy;
      ++resets;
    }
    h.setup = catch_up(c, offset);
    h.blocks = emit(c, len, w);
    return h;
  }
  // A master and a working copy of every checkpoint (§3.2.4).
  size_t nic_memory() const override {
    return l_.plan_bytes() + 2 * iv_.checkpoints * l_.state_bytes();
  }

 private:
  size_t vhpus_;
  std::vector<Cursor> work_;
};

}  // namespace

const char *strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kSpecialized: return "specialized";
    case Strategy::kHpuLocal: return "hpu-local";
    case Strategy::kRoCp: return "ro-cp";
    case Strategy::kRwCp: return "rw-cp";
    case Strategy::kIovec: return "iovec";
    case Strategy::kHost: return "host";
  }
  return "?";
}

bool parse_strategy(const std::string &name, Strategy &out) {
  for (Strategy s : kAllStrategies)
    if (name == strategy_name(s)) {
      out = s;
      return true;
    }
  return false;
}

HpuCosts::HpuCosts(const Costs &host, const Params &p)
    : ratio(p.get("host_ghz") / p.hpu_ghz()),
      init(host.init_ns * ratio),
      block(host.block_ns * ratio + p.get("dma_issue_cycles") / p.hpu_ghz()),
      walk_block(host.walk_block_ns * ratio),
      seek(host.seek_ns * ratio),
      copy(host.copy_ns * ratio),
      specialized_block(host.specialized_block_ns * ratio + p.get("dma_issue_cycles") / p.hpu_ghz()) {}

Interval choose_interval(const Params &p, const Layout &l, const HpuCosts &k, double gamma) {
  Interval iv;
  const size_t P = p.payload(), n = ceil_div(l.packed(), P);
  const size_t N = (size_t)p.hpus();
  const double t_pkt = p.packet_wire_ns(P);
  iv.t_ph_ns = k.init + gamma * k.block;  // in order: no setup
  // ε: T_pkt + Δp (N-1) T_pkt <= ε ceil(n/N) T_PH.
  const double room = p.get("epsilon") * (double)ceil_div(n, N) * iv.t_ph_ns - t_pkt;
  // Enough sequences that every HPU gets one.
  const size_t most = std::max<size_t>(1, ceil_div(n, N));
  size_t dp;
  if (N == 1) {
    dp = most, iv.bound = "HPUs";
  } else if (room < (double)(N - 1) * t_pkt) {
    dp = 1, iv.bound = "ε unattainable";
  } else {
    const double eps_dp = std::floor(room / ((double)(N - 1) * t_pkt));
    dp = eps_dp >= (double)most ? most : (size_t)eps_dp;
    iv.bound = eps_dp >= (double)most ? "HPUs" : "ε";
  }
  // NIC memory: a master and a working copy per checkpoint, and the plan.
  const double mem = p.get("nic_mem_bytes");
  const double per_ckpt = 2.0 * (double)l.state_bytes();
  size_t mem_dp = 0;  // smallest Δp that fits
  if ((double)l.plan_bytes() + per_ckpt <= mem) {
    const double most_ckpts = std::floor((mem - (double)l.plan_bytes()) / per_ckpt);
    mem_dp = ceil_div(n, (size_t)std::min<double>(most_ckpts, (double)n));
  }
  // Packet buffer: min(T_PH P / T_pkt, Δr) <= B_pkt.
  const double buf = p.get("pkt_buffer_bytes");
  const size_t buf_dp = iv.t_ph_ns * (double)P / t_pkt <= buf
                            ? n
                            : std::max<size_t>(1, (size_t)std::floor(buf / (double)P));
  if (mem_dp == 0 || mem_dp > buf_dp) {
    iv.fits = false;
    iv.bound = "nothing fits";
  } else if (mem_dp > dp) {
    dp = mem_dp, iv.bound = "memory";
  } else if (dp > buf_dp) {
    dp = buf_dp, iv.bound = "packet buffer";
  }
  iv.packets = dp;
  iv.bytes = dp * P;
  iv.checkpoints = ceil_div(n, dp);
  return iv;
}

std::unique_ptr<Handlers> make_handlers(Strategy s, const Layout &l, const Params &p,
                                        const HpuCosts &k, const Interval &iv, CatchUp mode) {
  switch (s) {
    case Strategy::kSpecialized: return std::make_unique<Specialized>(l, p, k);
    case Strategy::kHpuLocal: return std::make_unique<HpuLocal>(l, p, k, mode);
    case Strategy::kRoCp: return std::make_unique<RoCp>(l, p, k, iv, mode);
    case Strategy::kRwCp: return std::make_unique<RwCp>(l, p, k, iv, mode);
    case Strategy::kIovec:
    case Strategy::kHost: break;
  }
  throw std::logic_error(std::string(strategy_name(s)) + " has no payload handlers");
}

}  // namespace loom_sim
