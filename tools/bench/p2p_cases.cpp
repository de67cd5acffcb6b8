// The vector sweep of `loom bench p2p`: vector(msg/block, block/8, 2*block/8,
// MPI_DOUBLE): blocks of `block` bytes at a stride of 2*block bytes (half the
// span is data), `msg` packed bytes.  The hand loops move 8-byte blocks as
// 64-bit words and larger blocks with memcpy.
#include <cstring>

#include <fmt/format.h>

#include "p2p_bench.h"
#include "report.h"

namespace loom_bench {

CaseDef vector_case(size_t block, size_t msg) {
  CaseDef d;
  d.name = "vec " + size_name(block) + " " + size_name(msg);
  d.group = "Vector sweep";
  d.make = [block, msg](const CaseParams &) {
    auto c = std::make_unique<CaseInstance>();
    const int64_t nblocks = static_cast<int64_t>(msg / block);
    const int64_t bl = static_cast<int64_t>(block / 8);
    c->sizes = fmt::format("vector({}, {}, {}, double): {}-byte blocks, stride {} B",
                           nblocks, bl, 2 * bl, block, 2 * block);
    c->type = DualType::vector(nblocks, bl, 2 * bl, DualType::double_());
    c->type.commit();
    c->user_bytes = (2 * nblocks - 1) * block;
    c->packed_bytes = static_cast<size_t>(loom_type_size(c->type.loom()));
    if (block == 8) {
      c->hand_pack = [nblocks](const char *u, char *pk) {
        const uint64_t *in = reinterpret_cast<const uint64_t *>(u);
        uint64_t *out = reinterpret_cast<uint64_t *>(pk);
        for (int64_t i = 0; i < nblocks; ++i) out[i] = in[2 * i];
      };
      c->hand_unpack = [nblocks](const char *pk, char *u) {
        const uint64_t *in = reinterpret_cast<const uint64_t *>(pk);
        uint64_t *out = reinterpret_cast<uint64_t *>(u);
        for (int64_t i = 0; i < nblocks; ++i) out[2 * i] = in[i];
      };
    } else {
      c->hand_pack = [nblocks, block](const char *u, char *pk) {
        for (int64_t i = 0; i < nblocks; ++i, pk += block)
          std::memcpy(pk, u + 2 * i * block, block);
      };
      c->hand_unpack = [nblocks, block](const char *pk, char *u) {
        for (int64_t i = 0; i < nblocks; ++i, pk += block)
          std::memcpy(u + 2 * i * block, pk, block);
      };
    }
    return c;
  };
  return d;
}

CaseDef contiguous_case(size_t msg) {
  CaseDef d;
  d.name = "contig " + size_name(msg);
  d.group = "Contiguous";
  d.contiguous = true;
  d.make = [msg](const CaseParams &) {
    auto c = std::make_unique<CaseInstance>();
    c->sizes = fmt::format("contiguous({}, double)", msg / 8);
    c->type = DualType::contiguous(static_cast<int64_t>(msg / 8), DualType::double_());
    c->type.commit();
    c->user_bytes = msg;
    c->packed_bytes = msg;
    c->hand_pack = [msg](const char *u, char *pk) { std::memcpy(pk, u, msg); };
    c->hand_unpack = [msg](const char *pk, char *u) { std::memcpy(u, pk, msg); };
    return c;
  };
  return d;
}

void add_vector_sweep_cases(std::vector<CaseDef> &out, bool quick) {
  const std::vector<size_t> blocks =
      quick ? std::vector<size_t>{8, 512}
            : std::vector<size_t>{8, 64, 512, 4096, 65536};
  const std::vector<size_t> msgs =
      quick ? std::vector<size_t>{1024, 65536}
            : std::vector<size_t>{1024, 32768, 1 << 20, 16 << 20};
  for (size_t b : blocks)
    for (size_t m : msgs)
      // 16 MiB messages (tens of milliseconds per round trip through the
      // system MPIs' datatype paths) only for the smallest, a middle and the
      // largest block: the whole suite stays within its time budget.
      if (b <= m && (m < (16u << 20) || b == 8 || b == 512 || b == 65536))
        out.push_back(vector_case(b, m));
}

CaseDef sgrs_case(int64_t rows, int64_t cols) {
  CaseDef d;
  d.name = fmt::format("sgrs M={} {} cols", rows, cols);
  d.group = fmt::format("SGRS M={}", rows);
  d.make = [rows, cols](const CaseParams &) {
    auto c = std::make_unique<CaseInstance>();
    const size_t block = static_cast<size_t>(cols) * 4, stride = 4096 * 4;
    c->sizes = fmt::format("vector({}, {}, 4096, int): the first {} columns of a {} x 4096 int "
                           "array, {}-byte blocks",
                           rows, cols, cols, rows, block);
    c->type = DualType::vector(rows, cols, 4096, DualType::int_());
    c->type.commit();
    c->user_bytes = static_cast<size_t>(rows - 1) * stride + block;
    c->packed_bytes = static_cast<size_t>(loom_type_size(c->type.loom()));
    c->hand_pack = [rows, block, stride](const char *u, char *pk) {
      for (int64_t i = 0; i < rows; ++i, pk += block) std::memcpy(pk, u + i * stride, block);
    };
    c->hand_unpack = [rows, block, stride](const char *pk, char *u) {
      for (int64_t i = 0; i < rows; ++i, pk += block) std::memcpy(u + i * stride, pk, block);
    };
    return c;
  };
  return d;
}

std::vector<CaseDef> sgrs_cases(bool quick) {
  std::vector<CaseDef> v;
  if (quick) {
    v.push_back(sgrs_case(64, 8));
    v.push_back(sgrs_case(64, 256));
    return v;
  }
  // The paper's two series (2 KiB to 512 KiB), and 2048 rows for messages
  // of 32 KiB to 16 MiB.
  for (int64_t rows : {64, 128, 2048})
    for (int64_t cols = 4; cols <= 2048; cols *= 2) {
      const int64_t bytes = rows * cols * 4;
      if (bytes >= 2048 && (rows > 128 || bytes <= (512 << 10))) v.push_back(sgrs_case(rows, cols));
    }
  return v;
}

std::vector<CaseDef> p2p_cases(bool quick) {
  std::vector<CaseDef> v;
  add_ddtbench_cases(v);
  add_vector_sweep_cases(v, quick);
  return v;
}

}  // namespace loom_bench
