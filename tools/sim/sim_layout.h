// The receive layout of a simulated message, and what Loom's real cursor
// says about it: the blocks (destination, length) each packet's bytes go to,
// how many blocks a catch-up walks, and how large a checkpoint is.  Every
// handler of the simulator gets its blocks from these calls, so the DMA
// writes it issues are the ones Loom would compute on the NIC.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "bench/cases.h"
#include "bench/harness.h"
#include "loom.h"

namespace loom_sim {

// One DMA write a handler issues: `len` packed bytes from stream offset
// `src` to byte `dest` of the receive allocation (guards included).
struct DmaWrite {
  int64_t dest;
  int64_t src;
  uint32_t len;
};

class Layout {
 public:
  // A vector of `bytes` packed bytes: blocks of `block` bytes every `stride`.
  static std::unique_ptr<Layout> vector(size_t bytes, size_t block, size_t stride);
  // A case of the benchmark catalogue (tools/bench/cases.h), its full size.
  static std::unique_ptr<Layout> from_case(const loom_bench::CaseDef &def);
  ~Layout();
  Layout(const Layout &) = delete;
  Layout &operator=(const Layout &) = delete;

  const std::string &name() const { return name_; }
  loom_type type() const { return type_; }
  int64_t count() const { return count_; }
  size_t packed() const { return packed_; }
  // The receive allocation: guards, then the layout's span, then guards.
  size_t alloc_bytes() const { return span_ + 2 * kGuard; }
  size_t origin() const { return kGuard + origin_; }  // the type's buffer pointer
  char *base() const { return base_.get(); }
  // Set for vector layouts: what the specialized handler is written for.
  bool is_vector() const { return vec_block_ > 0; }
  size_t vec_block() const { return vec_block_; }
  size_t vec_stride() const { return vec_stride_; }
  // loom_layout_encode: what a NIC holds to walk the layout (the dataloops).
  size_t plan_bytes() const { return plan_bytes_; }
  // loom_cursor_state_bytes: one checkpoint (C in the paper).
  size_t state_bytes() const { return state_bytes_; }
  // Blocks in the first `bytes` of the stream (all of it by default) when
  // it is cut into packets of `payload` bytes, and the distinct 64-byte
  // lines of the receive buffer the whole message touches.
  size_t blocks(size_t payload, size_t bytes = SIZE_MAX) const;
  size_t dest_lines() const { return dest_lines_; }

  // A cursor at stream offset 0 over the receive allocation.
  loom_cursor new_cursor() const;

  static constexpr size_t kGuard = 256;

 private:
  Layout() = default;
  void finish();  // plan, state and line figures

  std::string name_;
  loom_type type_ = nullptr;  // our reference
  int64_t count_ = 1;
  size_t span_ = 0, origin_ = 0, packed_ = 0;
  size_t vec_block_ = 0, vec_stride_ = 0;
  size_t plan_bytes_ = 0, state_bytes_ = 0, dest_lines_ = 0;
  loom_bench::Buf base_;
  std::unique_ptr<loom_bench::CaseInstance> keep_;  // owns the catalogue's types
};

// Appends the writes for stream bytes [c's offset, +len) and leaves c after
// them: loom_cursor_iov in batches, as the handler on the NIC would call it.
// Returns the number of writes.
size_t emit_writes(const Layout &l, loom_cursor c, size_t len, std::vector<DmaWrite> &out);
// The catch-up walk: advances c by len bytes block by block (loom_cursor_iov
// into a scratch array, nothing written) and returns the blocks it passed.
size_t walk_blocks(loom_cursor c, size_t len);

// The vector-specialized handler's address arithmetic (Listing 1 of the
// paper, with the partial first and last blocks it leaves out): calls
// emit(dest, src, len) for stream bytes [off, off+len) of a vector of
// `block`-byte blocks every `stride` bytes whose first block is at `origin`.
template <class Emit>
void vector_blocks(size_t block, size_t stride, int64_t origin, int64_t off, size_t len,
                   Emit &&emit) {
  const int64_t b = off / (int64_t)block;
  int64_t in = off % (int64_t)block;
  int64_t dest = origin + b * (int64_t)stride + in;
  while (len > 0) {
    const size_t k = std::min<size_t>(block - (size_t)in, len);
    emit(dest, off, k);
    off += (int64_t)k, len -= k;
    dest += (int64_t)stride - in;
    in = 0;
  }
}

}  // namespace loom_sim
