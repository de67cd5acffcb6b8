// The discrete-event core of `loom sim` (sim_engine.h).
#include "sim_engine.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <queue>
#include <random>

namespace loom_sim {
namespace {

// The host interface: one FIFO link.  A write holds it for its wire bytes
// (TLPs included) and lands `dma_latency_ns` after its last byte leaves.
class HostLink {
 public:
  explicit HostLink(const Params &p)
      : p_(p), bytes_per_ns_(p.pcie_bytes_per_ns()), latency_(p.get("dma_latency_ns")) {}
  // Returns when the write issued at t lands in host memory.
  double write(double t, size_t len) {
    const double wire = p_.pcie_wire_bytes(len);
    wire_bytes += wire;
    free_ = std::max(free_, t) + wire / bytes_per_ns_;
    return free_ + latency_;
  }
  double latency() const { return latency_; }
  // The least time `writes` writes need when `issuers` issuers keep at most
  // `slots` each in flight until they land.
  double slots_bound_ns(size_t writes, size_t issuers, size_t slots) const {
    return (double)writes * latency_ / (double)(issuers * std::max<size_t>(1, slots));
  }
  double bound_ns() const { return wire_bytes / bytes_per_ns_ + latency_; }
  double wire_bytes = 0;

 private:
  const Params &p_;
  double bytes_per_ns_, latency_;
  double free_ = 0;
};

// One issuer's writes in flight, oldest first (the link is FIFO, so they
// land in issue order).
class DmaSlots {
 public:
  explicit DmaSlots(size_t limit) : limit_(std::max<size_t>(1, limit)) {}
  // The earliest time at or after t when another write may issue.
  double ready(double t) {
    while (!lands_.empty() && lands_.front() <= t) lands_.pop_front();
    return lands_.size() < limit_ ? t : lands_.front();
  }
  void issued(double land) { lands_.push_back(land); }

 private:
  size_t limit_;
  std::deque<double> lands_;
};

size_t packet_len(const Params &p, const Layout &l, size_t pkt) {
  return std::min(p.payload(), l.packed() - pkt * p.payload());
}

size_t packet_count(const Params &p, const Layout &l) {
  return (l.packed() + p.payload() - 1) / p.payload();
}

double link_time_ns(const Params &p, const Layout &l) {
  double t = 0;
  for (size_t i = 0; i < packet_count(p, l); ++i) t += p.packet_wire_ns(packet_len(p, l, i));
  return t;
}

// Bounded reordering: the header and completion packets stay first and
// last (§2.1.2); the others are shuffled within consecutive windows.
std::vector<size_t> arrival_order(size_t n, const EngineOptions &o) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (o.reorder > 1 && n > 3) {
    std::mt19937_64 rng(o.seed);
    for (size_t lo = 1; lo < n - 1; lo += o.reorder) {
      const size_t hi = std::min(lo + o.reorder, n - 1);
      std::shuffle(order.begin() + (int64_t)lo, order.begin() + (int64_t)hi, rng);
    }
  }
  return order;
}

class OffloadSim {
 public:
  OffloadSim(const Params &p, const Layout &l, Handlers &h, const HpuCosts &k,
             const EngineOptions &o, std::vector<DmaWrite> &w)
      : p_(p), l_(l), h_(h), k_(k), w_(w), link_(p), n_(packet_count(p, l)),
        order_(arrival_order(n_, o)), pending_(h.vhpus()), queued_(h.vhpus(), false),
        first_write_(w.size()) {
    const size_t hpus = (size_t)p.hpus();
    for (size_t i = 0; i < hpus; ++i) {
      hpu_.push_back(Hpu{DmaSlots((size_t)p.get("dma_outstanding"))});
      free_.push_back(hpus - 1 - i);
    }
  }

  Timeline run() {
    t_.packets = n_;
    arrive_next(0);
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      switch (e.kind) {
        case kArrive: arrive(e.t, e.a); break;
        case kStep: step(e.t, e.a); break;
        case kFree: release(e.t, e.a); break;
        case kHeaderDone:
          header_done_ = true;
          free_.push_back(e.a);
          dispatch(e.t);
          break;
      }
    }
    t_.pcie_wire_bytes = link_.wire_bytes;
    t_.link_bound_ns = link_time_ns(p_, l_);
    t_.handler_bound_ns = t_.busy_ns / p_.hpus();
    t_.pcie_bound_ns = link_.bound_ns();
    t_.dma_slots_bound_ns = link_.slots_bound_ns(w_.size() - first_write_, (size_t)p_.hpus(),
                                                 (size_t)p_.get("dma_outstanding"));
    return t_;
  }

 private:
  enum Kind { kArrive, kStep, kFree, kHeaderDone };
  struct Event {
    double t;
    uint64_t seq;  // FIFO among equal times: the simulation is deterministic
    Kind kind;
    size_t a;
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct Hpu {
    DmaSlots slots;
    size_t vhpu = 0, pkt = 0, next = 0, end = 0;
    double per_block = 0, sent = 0;  // sent: the packet's last byte left for the host
  };

  void post(double t, Kind kind, size_t a) { events_.push({t, seq_++, kind, a}); }

  void arrive_next(double t) {
    if (next_ < n_) post(t + p_.packet_wire_ns(packet_len(p_, l_, order_[next_])), kArrive,
                         order_[next_]);
  }

  void arrive(double t, size_t pkt) {
    const size_t len = packet_len(p_, l_, pkt);
    if (used_ > 0 && (double)(used_ + len) > p_.get("pkt_buffer_bytes")) {
      held_ = pkt, held_since_ = t, holding_ = true;  // the link stalls (flow control)
      return;
    }
    accept(t, pkt);
  }

  void accept(double t, size_t pkt) {
    used_ += packet_len(p_, l_, pkt);
    t_.max_buffer_bytes = std::max(t_.max_buffer_bytes, used_);
    ++next_;
    arrive_next(t);
    if (pkt == 0) {  // the header handler runs before any payload handler
      const size_t h = free_.back();
      free_.pop_back();
      t_.busy_ns += k_.init;
      post(t + k_.init, kHeaderDone, h);
    }
    const size_t v = h_.vhpu_of(pkt);
    pending_[v].push_back(pkt);
    if (!queued_[v]) {
      queued_[v] = true;
      ready_.push_back(v);
    }
    dispatch(t);
  }

  void release(double t, size_t bytes) {
    used_ -= bytes;
    if (holding_ && (double)(used_ + packet_len(p_, l_, held_)) <= p_.get("pkt_buffer_bytes")) {
      holding_ = false;
      t_.link_stall_ns += t - held_since_;
      accept(t, held_);
    }
  }

  void dispatch(double t) {
    while (header_done_ && !free_.empty() && !ready_.empty()) {
      const size_t h = free_.back();
      free_.pop_back();
      const size_t v = ready_.front();
      ready_.pop_front();
      start(t, h, v);
    }
  }

  // The vHPU's next packet on HPU h: the handler runs Loom's code now and
  // its writes issue one block time apart after init and setup.
  void start(double t, size_t h, size_t v) {
    Hpu &u = hpu_[h];
    u.vhpu = v;
    u.pkt = pending_[v].front();
    pending_[v].pop_front();
    const int64_t off = (int64_t)(u.pkt * p_.payload());
    u.next = w_.size();
    const HandlerCost c = h_.run(v, off, packet_len(p_, l_, u.pkt), w_);
    u.end = w_.size();
    t_.handler_sum.init += c.init;
    t_.handler_sum.setup += c.setup;
    t_.handler_sum.blocks += c.blocks;
    t_.busy_ns += c.total();
    u.per_block = u.end > u.next ? c.blocks / (double)(u.end - u.next) : 0;
    u.sent = t;
    post(t + c.init + c.setup + u.per_block, kStep, h);
  }

  void step(double t, size_t h) {
    Hpu &u = hpu_[h];
    if (u.next < u.end) {
      const double r = u.slots.ready(t);
      if (r > t) {  // D writes in flight: the handler waits for the oldest
        post(r, kStep, h);
        return;
      }
      const double land = link_.write(t, w_[u.next].len);
      u.slots.issued(land);
      u.sent = std::max(u.sent, land - link_.latency());
      all_land_ = std::max(all_land_, land);
      if (++u.next < u.end) {
        post(t + u.per_block, kStep, h);
        return;
      }
    }
    finish(t, h);
  }

  void finish(double t, size_t h) {
    Hpu &u = hpu_[h];
    post(std::max(t, u.sent), kFree, packet_len(p_, l_, u.pkt));
    const size_t v = u.vhpu;
    if (!pending_[v].empty()) {
      start(t, h, v);  // a vHPU keeps its HPU while it has packets
    } else {
      queued_[v] = false;
      free_.push_back(h);
      dispatch(t);
    }
    if (++done_ == n_) {
      // Completion handler: after every payload handler and every write;
      // its zero-byte write (with an event) ends the message.
      const double begin = std::max(t, all_land_);
      t_.busy_ns += k_.init;
      t_.time_ns = link_.write(begin + k_.init, 0);
    }
  }

  const Params &p_;
  const Layout &l_;
  Handlers &h_;
  const HpuCosts &k_;
  std::vector<DmaWrite> &w_;
  HostLink link_;
  size_t n_;
  std::vector<size_t> order_;
  std::vector<std::deque<size_t>> pending_;
  std::vector<bool> queued_;
  size_t first_write_;
  std::deque<size_t> ready_;
  std::vector<Hpu> hpu_;
  std::vector<size_t> free_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;
  size_t next_ = 0, used_ = 0, done_ = 0;
  size_t held_ = 0;
  bool holding_ = false, header_done_ = false;
  double held_since_ = 0, all_land_ = 0;
  Timeline t_;
};

}  // namespace

Timeline simulate_offload(const Params &p, const Layout &l, Handlers &h, const HpuCosts &k,
                          const EngineOptions &o, std::vector<DmaWrite> &writes) {
  return OffloadSim(p, l, h, k, o, writes).run();
}

Timeline simulate_iovec(const Params &p, const Layout &l, std::vector<DmaWrite> &writes) {
  Timeline tl;
  HostLink link(p);
  // The NIC's whole DMA engine: as many writes in flight as all HPUs
  // together may keep (the same engine, without handlers in front of it).
  const size_t slot_count = (size_t)(p.hpus() * p.get("dma_outstanding"));
  DmaSlots slots(slot_count);
  const size_t entries = (size_t)p.get("iovec_entries");
  loom_cursor c = l.new_cursor();
  double arrived = 0, t = 0, last = 0;
  size_t block = 0;
  tl.packets = packet_count(p, l);
  for (size_t pkt = 0; pkt < tl.packets; ++pkt) {
    const size_t len = packet_len(p, l, pkt);
    arrived += p.packet_wire_ns(len);
    const size_t first = writes.size();
    emit_writes(l, c, len, writes);  // the entries the host prepared, in order
    t = std::max(t, arrived);
    for (size_t i = first; i < writes.size(); ++i, ++block) {
      if (block > 0 && block % entries == 0) {  // entries used up: read the next ones
        t += p.get("pcie_read_ns");
        ++tl.iovec_refills;
      }
      t = slots.ready(t);
      const double land = link.write(t, writes[i].len);
      slots.issued(land);
      last = std::max(last, land);
    }
  }
  loom_cursor_free(c);
  tl.time_ns = link.write(std::max(t, last), 0);
  tl.pcie_wire_bytes = link.wire_bytes;
  tl.link_bound_ns = link_time_ns(p, l);
  tl.handler_bound_ns = (double)tl.iovec_refills * p.get("pcie_read_ns");  // refills are serial
  tl.pcie_bound_ns = link.bound_ns();
  tl.dma_slots_bound_ns = link.slots_bound_ns(writes.size(), 1, slot_count);
  return tl;
}

Timeline simulate_host(const Params &p, const Layout &l, double unpack_ns) {
  Timeline tl;
  HostLink link(p);
  double arrived = 0, last = 0;
  tl.packets = packet_count(p, l);
  for (size_t pkt = 0; pkt < tl.packets; ++pkt) {
    const size_t len = packet_len(p, l, pkt);
    arrived += p.packet_wire_ns(len);
    last = link.write(arrived, len);
  }
  tl.time_ns = last + unpack_ns;
  tl.busy_ns = unpack_ns;
  tl.pcie_wire_bytes = link.wire_bytes;
  tl.link_bound_ns = link_time_ns(p, l);
  tl.handler_bound_ns = tl.link_bound_ns + unpack_ns;  // the unpack starts after the last byte
  tl.pcie_bound_ns = link.bound_ns();
  return tl;
}

}  // namespace loom_sim
