// Receive layouts and Loom's cursor over them (sim_layout.h).
#include "sim_layout.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace loom_sim {
namespace {

// Entries per loom_cursor_iov call: a handler's small on-stack array.
constexpr size_t kIovBatch = 64;

void check(loom_status s, const char *what) {
  if (s != LOOM_OK) throw std::runtime_error(std::string(what) + ": " + loom_status_string(s));
}

}  // namespace

std::unique_ptr<Layout> Layout::vector(size_t bytes, size_t block, size_t stride) {
  if (block == 0 || stride < block || bytes < block)
    throw std::invalid_argument("vector layout wants 0 < block <= stride and block <= bytes");
  std::unique_ptr<Layout> l(new Layout);
  const int64_t n = (int64_t)((bytes + block - 1) / block);
  loom_type byte = nullptr;
  check(loom_type_primitive(LOOM_BYTE, &byte), "loom_type_primitive");
  loom_status s = loom_type_vector(n, (int64_t)block, (int64_t)stride, byte, &l->type_);
  loom_type_free(byte);
  check(s, "loom_type_vector");
  check(loom_type_commit(l->type_), "loom_type_commit");
  l->name_ = "vector " + std::to_string(block) + " B / " + std::to_string(stride) + " B";
  l->span_ = (size_t)(n - 1) * stride + block;
  l->packed_ = (size_t)n * block;
  l->vec_block_ = block;
  l->vec_stride_ = stride;
  l->finish();
  return l;
}

std::unique_ptr<Layout> Layout::from_case(const loom_bench::CaseDef &def) {
  std::unique_ptr<Layout> l(new Layout);
  loom_bench::CaseParams params;
  l->keep_ = def.make(params);
  l->name_ = def.name;
  l->type_ = loom_type_ref(l->keep_->type.loom());
  l->count_ = l->keep_->count;
  l->span_ = l->keep_->user_bytes;
  l->origin_ = l->keep_->origin;
  l->packed_ = l->keep_->packed_bytes;
  l->finish();
  return l;
}

Layout::~Layout() { loom_type_free(type_); }

void Layout::finish() {
  base_ = loom_bench::make_buf(alloc_bytes());
  // A null buffer asks for the length only (LOOM_ERR_TRUNCATE says so).
  const loom_status enc = loom_layout_encode(type_, nullptr, 0, &plan_bytes_);
  if (enc != LOOM_ERR_TRUNCATE) check(enc, "loom_layout_encode");
  loom_cursor c = new_cursor();
  state_bytes_ = loom_cursor_state_bytes(c);
  // Lines of the receive buffer the unpack touches (the host's cache
  // traffic model of Figure 17): one pass over every block.
  std::vector<bool> line((alloc_bytes() + 63) / 64);
  std::vector<DmaWrite> w;
  for (size_t done = 0; done < packed_;) {
    w.clear();
    const size_t step = std::min<size_t>(packed_ - done, 1 << 20);
    emit_writes(*this, c, step, w);
    for (const DmaWrite &d : w)
      for (int64_t a = d.dest / 64; a <= (d.dest + (int64_t)d.len - 1) / 64; ++a) line[a] = true;
    done += step;
  }
  loom_cursor_free(c);
  dest_lines_ = (size_t)std::count(line.begin(), line.end(), true);
}

loom_cursor Layout::new_cursor() const {
  loom_cursor c = nullptr;
  check(loom_cursor_create(type_, count_, base_.get() + origin(), &c), "loom_cursor_create");
  return c;
}

size_t Layout::blocks(size_t payload, size_t bytes) const {
  loom_cursor c = new_cursor();
  size_t n = 0;
  const size_t end = std::min(bytes, packed_);
  for (size_t off = 0; off < end; off += payload)
    n += walk_blocks(c, std::min(payload, end - off));
  loom_cursor_free(c);
  return n;
}

size_t emit_writes(const Layout &l, loom_cursor c, size_t len, std::vector<DmaWrite> &out) {
  loom_iov v[kIovBatch];
  const size_t before = out.size();
  int64_t src = (int64_t)loom_cursor_offset(c);
  while (len > 0) {
    size_t n = 0, bytes = 0;
    loom_cursor_iov(c, v, kIovBatch, len, &n, &bytes);
    if (bytes == 0) break;  // end of the stream
    for (size_t i = 0; i < n; ++i) {
      out.push_back({static_cast<char *>(v[i].base) - l.base(), src, (uint32_t)v[i].len});
      src += (int64_t)v[i].len;
    }
    len -= bytes;
  }
  return out.size() - before;
}

size_t walk_blocks(loom_cursor c, size_t len) {
  loom_iov v[kIovBatch];
  size_t blocks = 0;
  while (len > 0) {
    size_t n = 0, bytes = 0;
    loom_cursor_iov(c, v, kIovBatch, len, &n, &bytes);
    if (bytes == 0) break;
    blocks += n;
    len -= bytes;
  }
  return blocks;
}

}  // namespace loom_sim
