#include "jit_moves.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(__x86_64__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "permute_table.hpp"  // kPage
#include "run_moves.hpp"
#include "setting_text.hpp"
#include "step_table.hpp"

namespace loom {

JitCode::~JitCode() {
#if defined(__x86_64__)
  if (memory) munmap(memory, bytes);
#endif
}

// Off as the settings layer reads a boolean (setting_text.hpp), which
// `loom info` and the drop-in check this variable with; on when unset or
// unreadable (the drop-in reports the latter).
bool jit_enabled() {
  static const bool on = [] {
    const char *v = std::getenv("LOOM_JIT");
    bool b = true;
    if (v) setting_bool(v, &b);
    return b;
  }();
  return on;
}

#if defined(__x86_64__)
namespace {

// x86-64 encodings, System V arguments: rdi the user's instance, rsi the
// stream, rdx the count.  Every move goes through rax/eax or xmm0/ymm0
// (renamed per move, so independent); loads of 1 and 2 bytes zero-extend
// (movzx), never merging into an older rax.
constexpr uint8_t kRdi = 7, kRsi = 6;

class Emitter {
 public:
  explicit Emitter(bool avx) : avx_(avx) {}
  std::vector<uint8_t> code;
  int64_t ops = 0;  // zmm loads, stores, permutes and shifts emitted (uops)

  void bytes(std::initializer_list<uint8_t> b) { code.insert(code.end(), b); }
  void imm32(int32_t v) {
    uint8_t b[4];
    std::memcpy(b, &v, 4);
    code.insert(code.end(), b, b + 4);
  }
  // ModRM for [base + disp] with register field r: disp8 where it fits.
  void mem(uint8_t r, uint8_t base, int32_t disp) {
    if (disp >= -128 && disp <= 127) {
      bytes({(uint8_t)(0x40 | (r << 3) | base), (uint8_t)(int8_t)disp});
    } else {
      bytes({(uint8_t)(0x80 | (r << 3) | base)});
      imm32(disp);
    }
  }
  // One move of `width` bytes from [from + a] to [to + b].
  void move(int width, uint8_t from, int32_t a, uint8_t to, int32_t b) {
    switch (width) {
      case 1:
        bytes({0x0F, 0xB6}), mem(0, from, a);  // movzx eax, byte
        bytes({0x88}), mem(0, to, b);           // mov byte, al
        break;
      case 2:
        bytes({0x0F, 0xB7}), mem(0, from, a);  // movzx eax, word
        bytes({0x66, 0x89}), mem(0, to, b);     // mov word, ax
        break;
      case 4:
        bytes({0x8B}), mem(0, from, a);  // mov eax, dword
        bytes({0x89}), mem(0, to, b);
        break;
      case 8:
        bytes({0x48, 0x8B}), mem(0, from, a);  // mov rax, qword
        bytes({0x48, 0x89}), mem(0, to, b);
        break;
      case 16:
        if (avx_) bytes({0xC5, 0xFA, 0x6F}), mem(0, from, a);  // vmovdqu xmm0
        else bytes({0xF3, 0x0F, 0x6F}), mem(0, from, a);       // movdqu xmm0
        if (avx_) bytes({0xC5, 0xFA, 0x7F}), mem(0, to, b);
        else bytes({0xF3, 0x0F, 0x7F}), mem(0, to, b);
        break;
      case 64:  // AVX-512 (loop_code's wide moves)
        zmm(0x6F, 0, from, a);
        zmm(0x7F, 0, to, b);
        break;
      default:  // 32
        if (avx_) {
          load(from, a);
          store(to, b);
        } else {
          move(16, from, a, to, b);
          move(16, from, a + 16, to, b + 16);
        }
    }
  }
  // Packing, k moves of `width` bytes from [from + a[i]] whose stream bytes
  // follow each other from [to + b] (8: k = 2; with AVX, 4: k = 2 or 4,
  // 16: k = 2): loaded into one register and stored at once.
  void gather(int width, int k, const int32_t *a, uint8_t from, uint8_t to, int32_t b) {
    if (width == 16) {
      bytes({0xC5, 0xFA, 0x6F}), mem(0, from, a[0]);        // vmovdqu xmm0, [a0]
      bytes({0xC4, 0xE3, 0x7D, 0x38}), mem(0, from, a[1]);  // vinserti128 ymm0, ymm0, [a1], 1
      bytes({0x01});
      bytes({0xC5, 0xFE, 0x7F}), mem(0, to, b);  // vmovdqu [b], ymm0
      ymm_ = true;
      return;
    }
    if (width == 8) {
      if (avx_) {
        bytes({0xC5, 0xFA, 0x7E}), mem(0, from, a[0]);  // vmovq xmm0, [a0]
        bytes({0xC5, 0xF8, 0x16}), mem(0, from, a[1]);  // vmovhps xmm0, xmm0, [a1]
      } else {
        bytes({0xF3, 0x0F, 0x7E}), mem(0, from, a[0]);  // movq xmm0, [a0]
        bytes({0x0F, 0x16}), mem(0, from, a[1]);        // movhps xmm0, [a1]
      }
    } else {
      bytes({0xC5, 0xF9, 0x6E}), mem(0, from, a[0]);  // vmovd xmm0, [a0]
      for (int i = 1; i < k; i++) {
        bytes({0xC4, 0xE3, 0x79, 0x22}), mem(0, from, a[i]);  // vpinsrd xmm0, xmm0, [ai], i
        bytes({(uint8_t)i});
      }
      if (k == 2) return bytes({0xC5, 0xF9, 0xD6}), mem(0, to, b);  // vmovq [b], xmm0
    }
    if (avx_) bytes({0xC5, 0xFA, 0x7F}), mem(0, to, b);  // vmovdqu [b], xmm0
    else bytes({0xF3, 0x0F, 0x7F}), mem(0, to, b);
  }
  // AVX2: ymm0 from [base + disp]; lanes of `imm` (32-bit lanes) of ymm0
  // from [base + disp] instead; ymm0 to [base + disp].
  void load(uint8_t base, int32_t disp) { bytes({0xC5, 0xFE, 0x6F}), mem(0, base, disp); }
  void blend(uint8_t base, int32_t disp, uint8_t imm) {
    bytes({0xC4, 0xE3, 0x7D, 0x02}), mem(0, base, disp);  // vpblendd ymm0, ymm0, [m], imm
    bytes({imm});
  }
  // ymm`r` from the constant at `pool` (a 32-byte index vector placed
  // after the code: its displacement patched by place_pool).
  void load_const(uint8_t r, size_t pool) {
    // vmovdqu ymm_r, [rip + disp32] (VEX.R = ~r's bit 3)
    bytes({0xC5, (uint8_t)(0x7E | ((~r & 8) << 4)), 0x6F, (uint8_t)(0x05 | ((r & 7) << 3))});
    patches_.push_back({code.size(), pool});
    imm32(0);
  }
  // ymm`r` = the dwords of [base + disp] in the order of ymm`index`'s.
  void permute(uint8_t r, uint8_t index, uint8_t base, int32_t disp) {
    // vpermd ymm_r, ymm_index, [m] (VEX.256.66.0F38.W0 36; vvvv = ~index)
    bytes({0xC4, 0xE2, (uint8_t)(0x05 | ((~index & 15) << 3)), 0x36}), mem(r, base, disp);
  }
  void blend_ymm2(uint8_t imm) { bytes({0xC4, 0xE3, 0x7D, 0x02, 0xC2, imm}); }  // vpblendd ymm0, ymm0, ymm2
  // Appends the constants (vectors of N dwords, each at a multiple of its
  // size) after the code and points the loads at them.
  template <size_t N>
  void place_pool(const std::vector<std::array<int32_t, N>> &pool) {
    constexpr size_t kBytes = 4 * N;
    while (code.size() % kBytes) code.push_back(0xCC);  // int3: never run
    const size_t at = code.size();
    for (const auto &v : pool) {
      const uint8_t *b = reinterpret_cast<const uint8_t *>(v.data());
      code.insert(code.end(), b, b + kBytes);
    }
    for (const auto &[where, i] : patches_) {
      const int32_t disp = (int32_t)(at + kBytes * i - (where + 4));
      std::memcpy(code.data() + where, &disp, 4);
    }
  }
  // AVX-512, zmm`r` (r < 32) from (op 6F) or to (7F) [base + disp]
  // (vmovdqu64, EVEX.512.F3.0F.W1; base below 8, disp8 scaled by 64).
  void zmm(uint8_t op, uint8_t r, uint8_t base, int32_t disp) {
    ops++;
    bytes({0x62, evex_p0(r, 0, 0x01), 0xFE, 0x48, op});
    evex_mem(r, base, disp);
    ymm_ = true;
  }
  // zmm`r` from the constant at `pool` (64 bytes, place_pool<16>).
  void zmm_const(uint8_t r, size_t pool) {
    bytes({0x62, evex_p0(r, 0, 0x01), 0xFE, 0x48, 0x6F, (uint8_t)(0x05 | ((r & 7) << 3))});
    patches_.push_back({code.size(), pool});
    imm32(0);
  }
  // zmm`r` = lanes of `lane` bytes of zmm`r` and of a second table
  // (zmm`b`, or [base + disp] where b < 0) picked by zmm`index`'s
  // (EVEX.512.66.0F38: vpermt2d W0 7E, vpermt2w W1 7D, vpermt2b W0 7D;
  // r, index, b < 32).
  void permute2_zmm(uint8_t r, uint8_t index, int b, uint8_t base, int32_t disp, int lane) {
    ops += b >= 0 ? 1 : 2;
    const uint8_t rm = b >= 0 ? (uint8_t)b : 0;
    bytes({0x62, evex_p0(r, rm, 0x02),
           (uint8_t)((lane == 2 ? 0x80 : 0) | ((~index & 15) << 3) | 0x05),
           (uint8_t)(0x40 | ((~index & 16) >> 1)), (uint8_t)(lane == 4 ? 0x7E : 0x7D)});
    if (b >= 0) return bytes({(uint8_t)(0xC0 | ((r & 7) << 3) | (rm & 7))});
    evex_mem(r, base, disp);
  }
  // AVX-512: zmm0 = the dwords of [base + disp] from dword `shift` on,
  // then zmm`b`'s first ones (valignd zmm0, zmm_b, m512, shift:
  // EVEX.512.66.0F3A.W0 03; b < 16).
  void align_zmm(uint8_t b, uint8_t base, int32_t disp, uint8_t shift) {
    ops += 2;
    bytes({0x62, evex_p0(0, 0, 0x03), (uint8_t)(((~b & 15) << 3) | 0x05), 0x48, 0x03});
    evex_mem(0, base, disp);
    bytes({shift});
  }
  void store(uint8_t base, int32_t disp) {
    bytes({0xC5, 0xFE, 0x7F}), mem(0, base, disp);
    ymm_ = true;
  }
  // ymm`r` (r < 8) from or to [base + disp].
  void load_to(uint8_t r, uint8_t base, int32_t disp) { bytes({0xC5, 0xFE, 0x6F}), mem(r, base, disp); }
  void store_from(uint8_t r, uint8_t base, int32_t disp) {
    bytes({0xC5, 0xFE, 0x7F}), mem(r, base, disp);
    ymm_ = true;
  }
  // AVX-512VL: ymm`r` = lanes of ymm`r` and a second table (ymm`b`, or
  // [base + disp] where b < 0) picked by ymm`index`'s (r, b < 8; index <
  // 16): vpermt2d (dword lanes) or vpermt2b (VBMI, byte lanes), EVEX.256.
  // 66.0F38.W0 7E / 7D.  EVEX scales a disp8 by the operand's 32 bytes:
  // memory operands take disp32.
  void permute2(bool bytes_lanes, uint8_t r, uint8_t index, int b, uint8_t base, int32_t disp) {
    bytes({0x62, 0xF2, (uint8_t)(((~index & 15) << 3) | 0x05), 0x28,
           (uint8_t)(bytes_lanes ? 0x7D : 0x7E)});
    if (b >= 0) return bytes({(uint8_t)(0xC0 | (r << 3) | b)});
    bytes({(uint8_t)(0x80 | (r << 3) | base)});
    imm32(disp);
  }
  bool used_ymm() const { return ymm_; }
  // EVEX's first payload byte: the inverted R, X, B and R' bits of the
  // ModRM reg (`r`) and rm register (`rm`, 0 for memory below r8), and
  // the opcode map `map`.
  static uint8_t evex_p0(uint8_t r, uint8_t rm, uint8_t map) {
    return (uint8_t)((~r & 8) << 4 | (~rm & 16) << 2 | (~rm & 8) << 2 | (~r & 16) | map);
  }
  // ModRM for a 64-byte operand at [base + disp] (base below 8, not rsp):
  // EVEX scales a disp8 by the 64 bytes.
  void evex_mem(uint8_t r, uint8_t base, int32_t disp) {
    if (disp % 64 == 0 && disp / 64 >= -128 && disp / 64 <= 127)
      return bytes({(uint8_t)(0x40 | ((r & 7) << 3) | base), (uint8_t)(int8_t)(disp / 64)});
    bytes({(uint8_t)(0x80 | ((r & 7) << 3) | base)});
    imm32(disp);
  }
  // A groups loop's start (endbr64 first): of the rdx instances, the
  // whole steps of g (a power of two) in rdx, the rest in r8 (for the
  // moves loop its end jumps to, end_groups); the jump past the steps'
  // loop where there are none.
  void whole_steps(int64_t g) {
    bytes({0xF3, 0x0F, 0x1E, 0xFA});                         // endbr64
    bytes({0x49, 0x89, 0xD0});                               // mov r8, rdx
    bytes({0x49, 0x83, 0xE0, (uint8_t)(g - 1)});             // and r8, g - 1
    bytes({0x48, 0xC1, 0xEA, (uint8_t)__builtin_ctzll(g)});  // shr rdx, log2 g
    skip_if_no_steps();
  }
  // A loop over rdx steps, first the jump past it where rdx <= 0 (its
  // target set by end_loop).
  void skip_if_no_steps() {
    bytes({0x48, 0x85, 0xD2});  // test rdx, rdx
    bytes({0x0F, 0x8E});        // jle done
    skip_ = code.size();
    imm32(0);
  }
  // A step's end: rdi advanced by `user` bytes (0: not at all), rsi by
  // `stream`, and back to `top` while steps remain; skip_if_no_steps'
  // jump lands after it.
  void end_loop(size_t top, int32_t user, int32_t stream) {
    loop_back(top, user, stream);
    land(skip_);
  }
  // end_loop's parts: the step's end and the jump back; a jump's rel32
  // at `at` pointed here.
  void loop_back(size_t top, int32_t user, int32_t stream) {
    if (user) bytes({0x48, 0x81, 0xC7}), imm32(user);  // add rdi, user
    bytes({0x48, 0x81, 0xC6}), imm32(stream);           // add rsi, stream
    bytes({0x48, 0xFF, 0xCA});                          // dec rdx
    bytes({0x0F, 0x85});                                // jnz top
    imm32((int32_t)top - (int32_t)(code.size() + 4));
  }
  void land(size_t at) {
    const int32_t rel = (int32_t)(code.size() - (at + 4));
    std::memcpy(code.data() + at, &rel, 4);
  }
  size_t skip() const { return skip_; }

 private:
  bool avx_, ymm_ = false;
  size_t skip_ = 0;  // skip_if_no_steps' jump displacement
  std::vector<std::pair<size_t, size_t>> patches_;  // (disp32's offset, pool index)
};

// One move of a leaf's instance: `width` bytes at `user` from the
// instance's origin, at `stream` from its first packed byte.
struct Move {
  int width;
  int32_t user, stream;
};
// A store of a packing loop's instance: `bytes` at `stream` from its first.
struct Store {
  int32_t stream, bytes;
};

// A run's moves, in a list in stream order: neighbours, at one user less
// stream offset, each starting at or before the end of the one before
// (two runs so would be one: neighbours in memory, make_run_moves).
struct RunSpan {
  int32_t user, end;    // the run's user bytes, [user, end)
  size_t first, last;   // its moves, [first, last)
};
std::vector<RunSpan> run_spans(const std::vector<Move> &moves) {
  std::vector<RunSpan> runs;
  for (size_t k = 0, j; k < moves.size(); k = j) {
    const int32_t delta = moves[k].user - moves[k].stream;
    int32_t end = moves[k].stream + moves[k].width;
    for (j = k + 1; j < moves.size() && moves[j].user - moves[j].stream == delta &&
                    moves[j].stream <= end;
         j++)
      end = std::max(end, moves[j].stream + moves[j].width);
    runs.push_back({moves[k].user, end + delta, k, j});
  }
  return runs;
}

// With AVX-512, the moves of a run of 64 bytes or more as 64-byte moves, then
// one of the smallest power of two that ends the run (over bytes the one
// before moved, the run's own, where the rest is no power of two): half
// the loads and stores, as the vectoriser copies a hand loop's long
// block (zmm moves).  Shorter runs keep their moves.  MPI_Type_vector's
// blocks of 128-256 bytes (2 KiB) packed 1.1-1.45x and unpacked 1.1-1.5x
// faster than by 32-byte moves, random wide blocks 1.08x / 1.09x at 2 KiB,
// 1.07x / 1.08x at 16 KiB, other random shapes 1.00x (in-process A/B,
// Intel Xeon VM); at some placements 0.8-0.9x (256-byte blocks 656 apart
// unpacked from a stream at a page's start).  The last move as narrow as
// the rest allows (run_moves.cpp), not 32 bytes over the zmm move's last:
// 20 floats of every 22 1.10x / 1.29x at 64 KiB.
std::vector<Move> by_zmm(const std::vector<Move> &moves) {
  std::vector<Move> out;
  for (const RunSpan &r : run_spans(moves)) {
    const int32_t n = r.end - r.user, q = moves[r.first].stream;
    if (n < 64) {
      out.insert(out.end(), moves.begin() + r.first, moves.begin() + r.last);
      continue;
    }
    int32_t o = 0;
    for (; o + 64 <= n; o += 64) out.push_back({64, r.user + o, q + o});
    if (o < n) {
      const int32_t width = move_width(n - o);
      out.push_back({width, r.end - width, q + n - width});
    }
  }
  return out;
}

// Packing a strided loop, a run that takes two moves (of 3-63 bytes
// below the widest register: 12 bytes as 8 and 8 from 4, 56 as 32 and 32
// from 24) as one move of the next power of two, W bytes from its start,
// as the vectoriser moves a hand loop's 3 floats or 7 doubles: it reads
// up to W - 1 bytes past the run and writes them to the stream, where
// the moves after it in stream order (the instance's next runs, the next
// instance's) write their own bytes over them.  So not in the range's
// last instance (the loop's last, moved exactly): every byte written lies
// in the range's stream.  Every byte read lies between the run's start
// and a byte of the typemap less than a page past it (of this instance
// or the next): on pages the typemap touches, no fault; a run without
// one keeps its moves.  Runs of 33-48 bytes keep theirs too: by one
// 64-byte move 9 floats of every 14 or 16 and 5 doubles of every 16
// packed 0.59-0.72x as fast at 16 KiB.  7 doubles of every 11 or 15 and
// 14 floats of every 18 packed 1.15-1.18x faster at 2 KiB, 15 floats of
// every 17 1.29x at 16 KiB, random shapes 0.99-1.01x (in-process A/B,
// Intel Xeon VM).  Empty where no run widens.
std::vector<Move> by_wide_moves(const std::vector<Move> &moves, int32_t stride, int widest) {
  const std::vector<RunSpan> runs = run_spans(moves);
  // The typemap bytes at or after `at`, before `limit`: any, of this
  // instance's runs or the next instance's.
  auto byte_in = [&](int64_t at, int64_t limit) {
    for (int64_t shift : {int64_t(0), int64_t(stride)})
      for (const RunSpan &r : runs)
        if (std::max<int64_t>(at, r.user + shift) < std::min<int64_t>(limit, r.end + shift))
          return true;
    return false;
  };
  std::vector<Move> out;
  bool widened = false;
  for (const RunSpan &r : runs) {
    const int32_t n = r.end - r.user, w = move_width(n);
    if (r.last - r.first == 2 && w != n && w <= widest && (w < 64 || n > 48) &&
        byte_in((int64_t)r.user + w - 1, (int64_t)r.user + kPage)) {
      out.push_back({w, r.user, moves[r.first].stream});
      widened = true;
    } else {
      out.insert(out.end(), moves.begin() + r.first, moves.begin() + r.last);
    }
  }
  return widened ? out : std::vector<Move>();
}

// An instance's moves in stream order, not RunMoves' width by width: each
// store then starts at or past the one before (and, unpacking, each
// load), as a hand loop's do.  Shorts in 5 runs of every 21 packed 1.5x
// faster so, unpacked 1.15x (2 KiB, a C loop of the same moves in either
// order, AMD EPYC VM).
std::vector<Move> stream_order(const RunMoves &t) {
  std::vector<Move> moves;
  for (int w = 0, k = 0; w < RunMoves::kWidths; w++)
    for (int32_t j = 0; j < t.count[w]; j++, k++) moves.push_back({32 >> w, t.at[k][0], t.at[k][1]});
  std::stable_sort(moves.begin(), moves.end(),
                   [](const Move &a, const Move &b) { return a.stream < b.stream; });
  return moves;
}

// Strided: instance i at rdi + i * stride.  Indexed: at the origin plus
// disp[i], the list in rcx (kept in r9, each instance's start in rdi).
std::vector<uint8_t> loop_code(const RunMoves &t, int32_t stride, int32_t packed, bool pack,
                               int vector_bytes, bool indexed, std::vector<Store> *stores = nullptr) {
  const bool avx = vector_bytes >= 32;
  Emitter e(avx);
  e.bytes({0xF3, 0x0F, 0x1E, 0xFA});  // endbr64 (a no-op where CET is off)
  e.skip_if_no_steps();
  if (indexed) e.bytes({0x49, 0x89, 0xF9});  // mov r9, rdi
  const size_t top = e.code.size();
  if (indexed) {
    e.bytes({0x48, 0x8B, 0x39});        // mov rdi, [rcx]
    e.bytes({0x4C, 0x01, 0xCF});        // add rdi, r9
    e.bytes({0x48, 0x83, 0xC1, 0x08});  // add rcx, 8
  }
  std::vector<Move> moves = stream_order(t);
  if (vector_bytes == 64) moves = by_zmm(moves);
  // Packing, moves whose stream bytes follow each other go through one
  // register to one store (gather): two of 8 bytes, four (or two) of 4
  // and, with AVX, two of 16, as the vectoriser packs a hand loop's
  // doubles and floats (movhps, pinsrd).  Stores, not loads, bound these
  // loops; random tiles packed 1.12x faster at 2 KiB (up to 1.35x),
  // 1.06x at 64 KiB, random runs 1.04x / 1.03x, the baseline's
  // (pairs of 8 only) 1.05x / 1.02x (in-process A/B, AMD EPYC VM).
  // Unpacking gains nothing so: it stays a load and a store a move.
  auto emit = [&](const std::vector<Move> &list, std::vector<Store> *stores) {
    for (size_t k = 0; k < list.size();) {
      const int width = list[k].width;
      const int32_t q = list[k].stream;
      const int most = !pack ? 1 : width == 8 ? 2 : !avx ? 1 : width == 4 ? 4 : width == 16 ? 2 : 1;
      int g = 1;
      while (g < most && k + g < list.size() && list[k + g].width == width &&
             list[k + g].stream == q + g * width)
        g++;
      if (g == 3) g = 2;  // three floats: a pair and one
      if (g > 1) {
        int32_t a[4];
        for (int i = 0; i < g; i++) a[i] = list[k + i].user;
        e.gather(width, g, a, kRdi, kRsi, q);
      } else if (pack) {
        e.move(width, kRdi, list[k].user, kRsi, q);
      } else {
        e.move(width, kRsi, q, kRdi, list[k].user);
      }
      k += g;
      if (stores) stores->push_back({q, g * width});
    }
  };
  const std::vector<Move> wide =
      pack && !indexed ? by_wide_moves(moves, stride, vector_bytes) : std::vector<Move>();
  if (wide.empty()) {
    emit(moves, stores);
    e.end_loop(top, indexed ? 0 : stride, packed);
  } else {
    // All but the last instance by the wide moves, the last by the moves.
    e.bytes({0x48, 0xFF, 0xCA});  // dec rdx
    e.bytes({0x0F, 0x84});        // jz last
    const size_t to_last = e.code.size();
    e.imm32(0);
    const size_t loop = e.code.size();
    emit(wide, stores);
    e.loop_back(loop, stride, packed);
    e.land(to_last);
    emit(moves, nullptr);
    e.bytes({0x48, 0x81, 0xC6}), e.imm32(packed);  // add rsi, packed
    e.land(e.skip());
  }
  if (e.used_ymm()) e.bytes({0xC5, 0xF8, 0x77});  // vzeroupper
  e.bytes({0x48, 0x89, 0xF0});                     // mov rax, rsi
  e.bytes({0xC3});                                 // ret
  return e.code;
}

// Packing a strided loop whole registers of the stream at a time, as the
// vectoriser packs a hand loop of doubles or floats: g instances a step
// (g * packed bytes, a multiple of 32), each 32-byte register of them
// loaded from the user's bytes at the offset of its first lane's, the
// lanes of each later run blended in from a load at that run's offset
// (vpblendd), or of several runs within 32 bytes of the user's from one
// load whose dwords a permute (vpermd) puts in order, and stored once.
// Random runs of floats and doubles (the other compiled leaves, whose
// loop's gathers this replaces) packed 1.09-1.19x faster at 2 KiB, 1.08x
// at 64 KiB, tiles 1.02x (in-process A/B, AMD EPYC VM; a few 0.91-0.95x
// at 64 KiB).  A run's or a window's load names the bytes around it
// too; where every byte's user offset less its stream offset never falls
// from one byte to the next, over the instance and into the next (runs
// rise, instances do not overlap), those lie between the step's first
// and last byte, and where no two neighbouring bytes are a page apart,
// on pages the step's bytes are on: no fault, and the blends drop them
// (a window that would pass the step's last byte starts earlier).  Runs
// must start and end at 4-byte lanes of the stream (blocks of words).
// The step's stores fill its stream bytes exactly.
struct RegisterGroups {
  int64_t group = 0;  // instances a step; 0: the layout has no such loop
  int64_t loads = 0;  // a step's loads (and blends: loads less registers)
  int64_t permutes = 0;  // of those, permuted windows
  int64_t ops = 0;  // a step's zmm uops (line groups, joined lines)
  size_t jump = 0;       // the rel32 of the jump to the moves loop
  std::vector<uint8_t> code;
};

// A groups loop's end: its steps' loop closed at `top`, then the jump to
// the moves loop for the instances left in r8 (its rel32 patched by
// compile()), the index vectors placed after the code.
template <size_t N>
void end_groups(Emitter &e, size_t top, int64_t g, int32_t stride, int32_t packed,
                const std::vector<std::array<int32_t, N>> &pool, RegisterGroups &r) {
  e.end_loop(top, (int32_t)(g * stride), (int32_t)(g * packed));
  e.bytes({0xC5, 0xF8, 0x77});  // vzeroupper
  e.bytes({0x4C, 0x89, 0xC2});  // mov rdx, r8
  e.bytes({0xE9});              // jmp to the moves loop
  r.jump = e.code.size();
  e.imm32(0);
  e.place_pool(pool);
  r.group = g, r.ops = e.ops, r.code = std::move(e.code);
}

RegisterGroups register_groups(const RunMoves &t, int32_t stride, int32_t packed,
                               int64_t move_stores) {
  RegisterGroups r;
  if (packed <= 0 || packed % 4 != 0 || stride <= 0) return r;
  // Each stream byte's user offset less its stream offset, an instance's.
  std::vector<int64_t> d(packed, INT64_MIN);
  size_t k = 0;
  for (int w = 0; w < RunMoves::kWidths; w++)
    for (int32_t j = 0; j < t.count[w]; j++, k++)
      for (int32_t y = 0; y < (32 >> w); y++) d[t.at[k][1] + y] = t.at[k][0] - t.at[k][1];
  for (int32_t y = 0; y < packed; y++) {
    const int64_t before = y ? d[y - 1] : d[packed - 1] - (stride - packed);
    if (d[y] == INT64_MIN || d[y] < before || d[y] - before >= kPage ||
        (y % 4 != 0 && d[y] != before))
      return r;
  }
  const int64_t g = 32 / std::gcd<int64_t>(packed, 32), regs = g * packed / 32;
  if ((int64_t)g * stride > INT32_MAX / 2) return r;
  // The step's first and last user byte (+1), from its origin.
  const int64_t span_start = d[0], span_end = (g - 1) * stride + packed + d[packed - 1];
  // A step's operations, register by register: a load (or, past lane 0,
  // a blend from memory) at `at`, or a permute of the window at `at` by
  // index vector `pool`, blended in; each register ends in a store.
  struct Op {
    int32_t at;
    uint8_t lanes;
    int pool;  // -1: no permute
  };
  std::vector<std::vector<Op>> ops(regs);
  // A permuted window where it places three runs or more: on two (an
  // index load and a permute against two loads, one blending) 3 floats
  // of every 4 packed 0.81x as fast (AMD EPYC VM).
  constexpr int kMinPermuted = 3;
  constexpr size_t kHeld = 13;  // index vectors a step may take (ymm3-ymm15)
  std::vector<std::array<int32_t, 8>> pool;
  for (int64_t o = 0; o < regs; o++) {
    int64_t delta[8], src[8];  // lane l's user offset less its stream offset; its user offset
    for (int l = 0; l < 8; l++) {
      const int64_t x = 32 * o + 4 * l;
      delta[l] = x / packed * (stride - packed) + d[x % packed];
      src[l] = x + delta[l];
    }
    for (int l = 0; l < 8;) {
      // The lanes that one load places (a run's), or that one load and a
      // permute of its dwords place: a window of 32 bytes from lane l's
      // source, moved back where it would pass the step's last byte.
      int seg = l + 1;
      while (seg < 8 && delta[seg] == delta[l]) seg++;
      const int64_t past = src[l] + 32 - span_end,
                    w = past > 0 ? src[l] - (past + 3) / 4 * 4 : src[l];
      int win = l;
      if (w >= span_start)
        while (win < 8 && src[win] + 4 <= w + 32 && (src[win] - w) % 4 == 0) win++;
      int covered = 0;  // segments the window covers
      for (int m = l; m < win; m++) covered += m == l || delta[m] != delta[m - 1];
      uint8_t lanes = 0;
      if (covered >= kMinPermuted) {
        std::array<int32_t, 8> idx{};
        for (int m = l; m < win; m++) idx[m] = (int32_t)((src[m] - w) / 4), lanes |= uint8_t(1 << m);
        ops[o].push_back({(int32_t)w, lanes, (int)pool.size()});
        pool.push_back(idx);
        r.permutes++;
        seg = win;
      } else {
        for (int m = l; m < seg; m++) lanes |= uint8_t(1 << m);
        ops[o].push_back({(int32_t)(32 * o + delta[l]), lanes, -1});
      }
      r.loads++;
      l = seg;
    }
  }
  // Only where the registers save a sixth of the moves' stores or more
  // (blocks of 56 or 112 bytes, 7 registers for 8 moves, ran 0.93-0.97x
  // as fast, 80 bytes, 5 for 6, 1.11x) and a load brings more than 8
  // bytes on average: a load and a blend of 32 bytes for each single
  // float or double lost to the moves' gathers (random tiles, 0.67-0.8x).
  // (In-process A/B, 2 KiB, AMD EPYC VM.)
  if (6 * regs > 5 * g * move_stores || 8 * r.loads >= g * packed || pool.size() > kHeld)
    return r;
  // rdx instances: whole steps here, the rest (in r8) by the moves loop,
  // jumped to at the end (one call for both: the kernel between them cost
  // 41 instructions a call).
  Emitter e(true);
  e.whole_steps(g);
  // The index vectors stay in ymm3 on, loaded once.
  for (size_t i = 0; i < pool.size(); i++) e.load_const((uint8_t)(3 + i), i);
  const size_t top = e.code.size();
  for (int64_t o = 0; o < regs; o++) {
    for (size_t i = 0; i < ops[o].size(); i++) {
      const Op &op = ops[o][i];
      if (op.pool >= 0) {
        e.permute(i == 0 ? 0 : 2, (uint8_t)(3 + op.pool), kRdi, op.at);
        if (i > 0) e.blend_ymm2(op.lanes);
      } else if (i == 0) {
        e.load(kRdi, op.at);
      } else {
        e.blend(kRdi, op.at, op.lanes);
      }
    }
    e.store(kRsi, (int32_t)(32 * o));
  }
  end_groups(e, top, g, stride, packed, pool, r);
  return r;
}

// An instance's runs in stream order (user and stream offsets, length),
// where they follow each other in the stream from its first byte to its
// `packed`th; else none.
struct StreamRun {
  int32_t user, stream, bytes;
};
std::vector<StreamRun> stream_runs(const RunMoves &t, int32_t packed) {
  const std::vector<Move> list = stream_order(t);
  std::vector<StreamRun> runs;
  int32_t next = 0;
  for (const RunSpan &x : run_spans(list)) {
    if (list[x.first].stream != next) return {};
    runs.push_back({x.user, next, x.end - x.user});
    next += x.end - x.user;
  }
  if (next != packed) return {};
  return runs;
}

// The cache lines the moves of g instances store to from a stream `phase`
// bytes past a multiple of 64: two for a store split across them.
int64_t store_lines(const std::vector<Store> &moves, int64_t g, int32_t packed,
                    int64_t phase = 0) {
  int64_t lines = 0;
  for (int64_t i = 0; i < g; i++)
    for (const Store &m : moves) lines += 1 + ((phase + i * packed + m.stream) % 64 + m.bytes > 64);
  return lines;
}

// AVX-512: packing a strided loop by whole 64-byte registers of the
// stream, as the vectoriser packs a hand loop of blocks of doubles with
// zmm registers: g instances a step (g * packed bytes, a multiple of 64),
// register r of the step's packed bytes from two 64-byte windows of the
// user's, at multiples of 64 bytes from the step's first byte, by one
// two-source dword permute (vpermt2d), or by one load where its bytes
// follow each other in the user's.  A window that is the register
// before's last is not loaded again.  Where a run takes two moves or
// more (blocks of 72-120 bytes: a 64-byte move and one or two more, most
// of them split across cache lines), the step stores packed / 64
// registers an instance in their stead (a register whose bytes span a
// third window by a second permute).  A block an instance, or short runs
// rising (an index leaf's; rows of longer blocks lost: 13 floats in 720
// bytes 0.77x, others 0.91-0.95x at 16 KiB).  Where the gaps are as long
// as the runs or longer (the windows then read as many bytes of gaps as
// of the typemap or more; 10 doubles of every 20, 40 floats of every 72
// packed 0.83-0.91x as fast by groups at 8-16 KiB), only where the moves
// cost far more (below), and not past twice as long.
//
// Exactness: the stores fill the step's stream bytes exactly.  The loads
// read the gaps too (the user's bytes, dropped by the permutes): every
// byte read lies between the step's first byte and a byte of the typemap
// at or past it, each typemap byte less than a page past the one before
// (runs rise, each gap shorter than twice the instance's bytes, at most
// 24 registers' worth: under 3 KiB), so on a page that holds
// one.  A step's last windows may reach
// past its own last byte: the loop takes a step only where the `extra`
// instances after it hold a typemap byte at or past its last read.
// Lanes are dwords (vpermt2d); where the stride or a run's offset or
// length is not whole dwords, words (vpermt2w, AVX-512BW) or bytes
// (vpermt2b, VBMI: `min_lane` 1), as the vectoriser packs 3 bytes of
// every 4 or 7 shorts of every 8.
//
// From 4 KiB the stream is first brought to a multiple of 64 bytes by the
// moves (JitCode::aligned_from); shorter ranges store split lines where
// the stream lies: there the head's moves cost more than the splits
// (blocks of 9-15 doubles at most 2 apart at 2 KiB 0.90-1.06x as fast as
// the moves with the head, 0.95-1.22x without; 3-9 floats of every 4-13
// at 1-3 KiB 1.3-1.6x faster without it), from 4 KiB less (9 doubles of
// every 10 1.16x faster with it at 4 KiB, 1.26x at 8, 1.29x at 16; short
// blocks 0.8-1.1x at 4-8 KiB, 1.1-1.4x at 16).  In-process, the stream 8
// bytes past a line, Intel Xeon VM.
constexpr int64_t kAlignedLinesFrom = 4 << 10;
RegisterGroups line_groups(const RunMoves &t, int32_t stride, int32_t packed,
                           const std::vector<Store> &moves, int min_lane) {
  RegisterGroups r;
  if (packed <= 0 || stride <= packed || stride >= 3 * packed) return r;
  // Runs rising in the user's order within the stride (a block, or an
  // index leaf's runs), the first `base` bytes from the instance's origin.
  const std::vector<StreamRun> runs = stream_runs(t, packed);
  if (runs.empty()) return r;
  // Several runs an instance only where they are short (the moves store
  // part of a line each), not all of 32 bytes (one move each, two a line):
  // rows of 12 blocks of 4 doubles 0.94-0.96x as fast by groups at 2-16
  // KiB, 17 of 6 doubles 0.98x; index leaves of 1-4 doubles or floats a
  // run 1.02-1.6x faster.
  if (runs.size() > 1) {
    bool all32 = true;
    for (const StreamRun &x : runs) {
      if (x.bytes > 32) return r;
      all32 &= x.bytes == 32;
    }
    if (all32) return r;
  }
  const int32_t base = runs[0].user;
  // The widest lane the stride and every run's offset and length are
  // whole lanes of; word[w]: lane w's user offset from the first.
  auto whole_lanes = [&](int32_t w) {
    if (stride % w != 0) return false;
    for (const StreamRun &x : runs)
      if ((x.user - base) % w != 0 || x.bytes % w != 0) return false;
    return true;
  };
  int32_t lane = 4;
  while (lane > min_lane && !whole_lanes(lane)) lane /= 2;
  if (!whole_lanes(lane)) return r;
  // Lanes of words or bytes only for runs of up to 32 bytes (several
  // runs are, above), not one of 16 an instance (one move each), and
  // (below) where the step's uops are at most 0.9 of the moves': blocks
  // of 40-48 bytes (shorts) packed 0.82-0.93x as fast by groups at 16 KiB,
  // 16 of every 17 or 22 bytes 0.75-0.93x at 2-16 KiB, 28 of every 47
  // (1.03 of the moves) 0.75-0.88x.
  if (lane < 4 && runs.size() == 1 && (runs[0].bytes > 32 || runs[0].bytes == 16)) return r;
  std::vector<int32_t> word;
  for (const StreamRun &x : runs) {
    const int32_t from = x.user - base;
    if (!word.empty() && from < word.back() + lane) return r;
    for (int32_t b = 0; b < x.bytes; b += lane) word.push_back(from + b);
  }
  if (word.back() + lane > stride) return r;
  const int64_t g = 64 / std::gcd<int64_t>(packed, 64), regs = g * packed / 64;
  if (g * stride > INT32_MAX / 2 || regs > 24) return r;
  // Stream byte y of a step from user byte at(y), from the step's first
  // (rising: a register whose bytes span 63 of the user's is one run).
  auto at = [&](int64_t y) { return y / packed * stride + word[y % packed / lane] + y % lane; };
  struct Register {
    int64_t window;  // its first window (or, `whole`, its bytes' first)
    bool whole = false;
    int first = -1, second = -1;  // its index vectors in the pool
  };
  std::vector<Register> reg(regs);
  std::vector<std::array<int32_t, 16>> pool;
  int64_t reach = 0;
  for (int64_t o = 0; o < regs; o++) {
    Register &x = reg[o];
    x.whole = at(64 * o + 63) - at(64 * o) == 63;
    x.window = x.whole ? at(64 * o) : at(64 * o) / 64 * 64;
    if (x.whole) {
      reach = std::max(reach, x.window + 64);
      continue;
    }
    // The first permute's lanes from the first two windows; a second's
    // keep those (lane l) or take the third window's.
    // Index vectors of 64 / lane lanes (a second table's from 64 / lane).
    std::array<int32_t, 16> one{}, two{};
    const int lanes = 64 / lane;
    auto set = [lane](std::array<int32_t, 16> &v, int l, int32_t index) {
      std::memcpy(reinterpret_cast<char *>(v.data()) + l * lane, &index, lane);  // little-endian
    };
    bool three = false;
    for (int l = 0; l < lanes; l++) {
      const int64_t off = at(64 * o + lane * l) - x.window;
      if (off >= 192) return r;
      three |= off >= 128;
      set(one, l, off >= 128 ? 0 : (int32_t)(off / lane));
      set(two, l, off >= 128 ? lanes + (int32_t)((off - 128) / lane) : l);
    }
    x.first = (int)pool.size(), pool.push_back(one);
    if (three) x.second = (int)pool.size(), pool.push_back(two);
    reach = std::max(reach, x.window + (three ? 192 : 128));
  }
  constexpr size_t kHeld = 29;  // index vectors in zmm3-zmm31
  // Where the registers store a sixth fewer cache lines than the moves of
  // the step's instances or better (the stream at a multiple of 64 bytes:
  // JitCode::align).
  if (6 * regs > 5 * store_lines(moves, g, packed) || pool.size() > kHeld) return r;
  // Instances past a step whose bytes reach its last read.
  const int64_t last = at(g * packed - 1), over = reach - 1 - last;
  const int64_t extra = over > 0 ? (over + stride - 1) / stride : 0;
  if (extra > 127) return r;
  Emitter e(true);
  const uint8_t shift = (uint8_t)__builtin_ctzll(g);
  e.bytes({0xF3, 0x0F, 0x1E, 0xFA});  // endbr64
  e.bytes({0x49, 0x89, 0xD0});        // mov r8, rdx
  if (extra) e.bytes({0x48, 0x83, 0xEA, (uint8_t)extra});  // sub rdx, extra
  e.bytes({0x48, 0xC1, 0xFA, shift});  // sar rdx, log2 g
  e.bytes({0x31, 0xC0});               // xor eax, eax
  e.bytes({0x48, 0x85, 0xD2});         // test rdx, rdx
  e.bytes({0x48, 0x0F, 0x48, 0xD0});   // cmovs rdx, rax
  e.bytes({0x48, 0x89, 0xD0});         // mov rax, rdx
  e.bytes({0x48, 0xC1, 0xE0, shift});  // shl rax, log2 g
  e.bytes({0x49, 0x29, 0xC0});         // sub r8, rax: the moves' instances
  e.skip_if_no_steps();
  for (size_t i = 0; i < pool.size(); i++) e.zmm_const((uint8_t)(3 + i), i);
  const size_t top = e.code.size();
  // Windows in zmm0-zmm2: `held` the register before's last (-1: none).
  int64_t held = -1;
  uint8_t cur = 0;
  for (int64_t o = 0; o < regs; o++) {
    const Register &x = reg[o];
    if (x.whole) {
      e.zmm(0x6F, cur, kRdi, (int32_t)(base + x.window));
      e.zmm(0x7F, cur, kRsi, (int32_t)(64 * o));
      held = -1;
      continue;
    }
    if (held != x.window) e.zmm(0x6F, cur, kRdi, (int32_t)(base + x.window));
    // Its second window kept for the next register where that one starts
    // there (and takes no third).
    const int64_t next = x.window + 64;
    const bool keep = x.second < 0 && o + 1 < regs && !reg[o + 1].whole && reg[o + 1].window == next;
    const uint8_t other = (uint8_t)((cur + 1) % 3);
    if (keep) {
      e.zmm(0x6F, other, kRdi, (int32_t)(base + next));
      e.permute2_zmm(cur, (uint8_t)(3 + x.first), other, 0, 0, lane);
    } else {
      e.permute2_zmm(cur, (uint8_t)(3 + x.first), -1, kRdi, (int32_t)(base + next), lane);
    }
    if (x.second >= 0)
      e.permute2_zmm(cur, (uint8_t)(3 + x.second), -1, kRdi, (int32_t)(base + next + 64), lane);
    e.zmm(0x7F, cur, kRsi, (int32_t)(64 * o));
    held = keep ? next : -1;
    cur = keep ? other : cur;
  }
  r.permutes = (int64_t)pool.size();
  end_groups(e, top, g, stride, packed, pool, r);
  // Instances 2 to 3 times their packed bytes apart take two or three
  // windows a register: only where the step's uops are at most 0.9 of
  // the moves' loads and stores.  Index leaves of several short runs
  // there (0.2-0.9 of the moves) packed 1.1-2.5x faster by groups at
  // 2-64 KiB; 3 doubles of every 6 (0.94) 0.91x at 1 KiB, 10 runs of 16
  // bytes every 344 (1.4) 0.93x at 16 KiB (in-process A/B, four
  // placements, Intel Xeon VM).
  if ((stride >= 2 * packed || lane < 4) && 10 * r.ops > 18 * g * (int64_t)moves.size())
    return {};
  return r;
}

// AVX-512: packing a strided loop whose instance is runs of 64 bytes or
// more, none a multiple of 64 (blocks of whole words: 9 doubles, 17
// floats, or rows of them), by whole 64-byte registers of the stream from
// any stride: g instances a step (g * packed bytes, a multiple of 64); a
// register within one run by one load, a register across two runs by the
// 64 bytes that end the first and the first 64 of the next (a load each,
// within its run), joined by one dword shift across the pair (valignd),
// and stored once.  The moves store such a run as one or more 64-byte
// moves and one more (64 + 8 bytes for 9 doubles), most of them split
// across cache lines: blocks of 68-144 bytes 100-400 bytes apart packed
// 1.24-1.54x faster so at 16 KiB, from a stream at a multiple of 64 bytes
// (JitCode::align; 0.95-1.18x from one 8 bytes past), a C++ loop of these
// instructions against one of the moves (Intel Xeon VM).  Blending each
// register from loads at the runs' offsets, as register_groups and the
// vectoriser do, reads up to 63 bytes of the gaps on either side of a
// run, lines the moves never touch: 0.49-2.07x as fast as the moves by
// stride.
//
// Exactness: every load lies within one run; the stores fill the step's
// stream bytes exactly.
RegisterGroups joined_lines(const RunMoves &t, int32_t stride, int32_t packed,
                            const std::vector<Store> &moves) {
  RegisterGroups r;
  if (packed <= 64 || packed % 4 != 0 || stride <= 0) return r;
  const std::vector<StreamRun> runs = stream_runs(t, packed);
  if (runs.empty()) return r;
  for (const StreamRun &x : runs)
    if (x.bytes < 64 || x.bytes % 64 == 0 || x.bytes % 4 != 0) return r;
  const int64_t g = 64 / std::gcd<int64_t>(packed, 64), regs = g * packed / 64;
  if (g * stride > INT32_MAX / 2 || regs > 64) return r;
  if (6 * regs > 5 * store_lines(moves, g, packed)) return r;
  // Run k of the step's instances (instance k / runs, from the step's origin).
  auto run = [&](int64_t k) {
    const StreamRun &x = runs[k % runs.size()];
    const int64_t i = k / (int64_t)runs.size();
    return StreamRun{(int32_t)(i * stride + x.user), (int32_t)(i * packed + x.stream), x.bytes};
  };
  Emitter e(true);
  e.whole_steps(g);
  const size_t top = e.code.size();
  int64_t k = 0;  // the run holding the register's first byte
  for (int64_t o = 0; o < regs; o++) {
    while (run(k).stream + run(k).bytes <= 64 * o) k++;
    const StreamRun x = run(k);
    const int32_t y = (int32_t)(64 * o - x.stream), first = x.bytes - y;
    if (first >= 64) {
      e.zmm(0x6F, 0, kRdi, x.user + y);
    } else {
      e.zmm(0x6F, 1, kRdi, run(k + 1).user);
      e.align_zmm(1, kRdi, x.user + x.bytes - 64, (uint8_t)((64 - first) / 4));
    }
    e.zmm(0x7F, 0, kRsi, (int32_t)(64 * o));
  }
  end_groups(e, top, g, stride, packed, std::vector<std::array<int32_t, 16>>(), r);
  return r;
}

// `image` in a mapping of its own, written, then executable, never both
// (W^X); null where the system refuses executable mappings (the table
// kernels stay).
std::shared_ptr<JitCode> executable(const std::vector<uint8_t> &image) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (image.size() + page - 1) / page * page;
  void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  auto code = std::make_shared<JitCode>();
  code->memory = m, code->bytes = bytes;
  std::memcpy(m, image.data(), image.size());
  if (mprotect(m, bytes, PROT_READ | PROT_EXEC) != 0) return nullptr;
  return code;
}

// The stream phases (addresses modulo 64) from which whole-line groups
// store a range shorter than JitCode::aligned_from faster than the moves.
// Blocks of up to 32 bytes, whose moves store part of a line each: from
// every phase (3-11 floats, 6 shorts of every 4-17 at 2 KiB 1.0-1.6x
// faster than the kernels the groups replaced, kernels.cpp pack_by_lines).
// Longer ones where a step's loads, permutes and shifts, stores, and
// stores split across lines count at most 0.7 of the moves' loads, stores
// and splits for the same instances: mostly from a stream at a multiple
// of 64 bytes, where no store splits.  Through the library at 2 KiB
// (in-process A/B against the moves, four placements, Intel Xeon VM), 5
// doubles of every 6 or 7 1.3-1.4x faster by groups (0.6 of the moves'
// count), 12 floats of every 13 and 17 1.08-1.12x (0.6-0.76), 12 of every
// 19 0.88x (0.71-0.88); blocks of 72-160 bytes 1.1-1.8x from a multiple
// of 64, 0.74-0.95x from elsewhere (each of the groups' stores split),
// joined lines 0.86-0.97x (two loads and a shift a register).  Lanes of
// bytes too, though at 32 or 64 instances a step 2-4 steps cover a 2
// KiB range and the moves the rest (index leaves of 4-11 bytes of every
// 9-23 0.81-0.90x as fast at 2 KiB, 1.3-2.0x faster at 16 KiB): their
// moves alone packed 0.17-0.72x as fast as the groups.
uint64_t unaligned_lines(const std::vector<Store> &moves, const RegisterGroups &groups,
                         int32_t packed) {
  if (packed <= 32) return ~uint64_t(0);
  const int64_t g = groups.group, regs = g * packed / 64;
  uint64_t at = 0;
  for (int64_t p = 0; p < 64; p++) {
    // A load and a store a move, and a line more a split store.
    const int64_t by_moves = g * (int64_t)moves.size() + store_lines(moves, g, packed, p);
    const int64_t by_lines = groups.ops + (p == 0 ? 0 : regs);
    if (10 * by_lines <= 7 * by_moves) at |= uint64_t(1) << p;
  }
  return at;
}

std::shared_ptr<const JitCode> compile(const RunMoves &moves, int32_t stride, int32_t packed,
                                       int vector_bytes, bool indexed, int min_lane) {
  std::vector<Store> stores;
  std::vector<uint8_t> image =
      loop_code(moves, stride, packed, true, vector_bytes, indexed, &stores);
  const std::vector<uint8_t> u = loop_code(moves, stride, packed, false, vector_bytes, indexed);
  RegisterGroups groups;
  // Against the loop's own stores: with 64-byte moves the groups lose
  // blocks of 80 bytes (a 64- and a 16-byte move against 2.5 registers),
  // which then packed 1.02-1.10x faster at 2 KiB (in-process A/B, four
  // placements, Intel Xeon VM), random wide and strided blocks 1.00x at 2
  // and 16 KiB.
  // AVX-512: whole lines where they pay, else 32-byte registers.
  if (vector_bytes == 64 && !indexed) {
    groups = line_groups(moves, stride, packed, stores, min_lane);
    if (!groups.group) groups = joined_lines(moves, stride, packed, stores);
  }
  const bool aligned = groups.group != 0;
  if (!aligned && vector_bytes >= 32 && !indexed)
    groups = register_groups(moves, stride, packed, (int64_t)stores.size());
  const size_t at = (image.size() + 63) / 64 * 64, at_groups = (at + u.size() + 63) / 64 * 64;
  image.resize(at, 0xCC);
  image.insert(image.end(), u.begin(), u.end());
  if (groups.group) {
    // The jump to the packing moves loop at the image's start.
    const int32_t rel = -(int32_t)(at_groups + groups.jump + 4);
    std::memcpy(groups.code.data() + groups.jump, &rel, 4);
    image.resize(at_groups, 0xCC);
    image.insert(image.end(), groups.code.begin(), groups.code.end());
  }
  auto code = executable(image);
  if (!code) return nullptr;
  char *m = static_cast<char *>(code->memory);
  code->stores = (int64_t)stores.size();
  code->pack = reinterpret_cast<JitLoop>(m);
  code->unpack = reinterpret_cast<JitLoop>(m + at);
  if (groups.group) {
    code->groups = reinterpret_cast<JitLoop>(m + at_groups);
    code->group_permutes = groups.permutes;
    code->group = groups.group, code->group_ops = groups.ops;
    if (aligned) {
      code->align = StreamAlign(packed, 64);
      code->aligned_from = (kAlignedLinesFrom + packed - 1) / packed;
      code->lines_at = unaligned_lines(stores, groups, packed);
    }
  }
  return code;
}

// A step table's loop (StepTable, kernels.cpp narrow_steps) with its
// windows' offsets as displacements and its index vectors in registers,
// as the vectoriser compiles a hand loop's: narrow_steps decides per
// register at run time whether it loads its first window or takes the
// register before's last (branches and the flags spilled, past three
// registers), where this code is straight.  The patterns narrow_steps
// took packed 1.03-1.08x faster so at 2 KiB, 1.02-1.03x at 8 KiB
// (in-process A/B), and the steps pay for more patterns (kernels.cpp
// pick_steps); a C++ loop of these instructions for 5 floats of every 7
// ran as fast as the vectorised hand loop (21.1 ns at 2 KiB), 7 of every
// 11 1.06x (AMD EPYC Zen 4 VM).  rdi the step's first user byte, rsi the
// stream, rdx the whole steps; returns the stream advanced.
std::vector<uint8_t> steps_code(const StepTable &t, int32_t step) {
  const bool byte_lanes = t.lane == 1;
  const int R = t.registers;
  // Index vectors in ymm3-ymm15: the registers' first, then the second of
  // those that take three windows.
  std::vector<std::array<int32_t, 8>> pool;
  std::vector<int> first(R), second(R, -1);
  auto pooled = [&](const void *idx) {
    std::array<int32_t, 8> v;
    std::memcpy(v.data(), idx, 32);
    pool.push_back(v);
    return (int)pool.size() - 1;
  };
  for (int r = 0; r < R; r++) {
    first[r] = pooled(byte_lanes ? (const void *)t.idx8[r][0] : t.idx32[r][0]);
    if (t.three >> r & 1) second[r] = pooled(byte_lanes ? (const void *)t.idx8[r][1] : t.idx32[r][1]);
  }
  if (pool.size() > 13) return {};
  Emitter e(true);
  e.bytes({0xF3, 0x0F, 0x1E, 0xFA});  // endbr64
  e.skip_if_no_steps();
  for (size_t i = 0; i < pool.size(); i++) e.load_const((uint8_t)(3 + i), i);
  const size_t top = e.code.size();
  // Register r's first window in ymm`cur`; its last, where the next
  // register's first (not fresh), kept in another of ymm0-ymm2.
  uint8_t cur = 0;
  for (int r = 0; r < R; r++) {
    const int32_t w = (int32_t)t.window[r];
    if (t.fresh >> r & 1) e.load_to(cur, kRdi, w);
    const bool keep = r + 1 < R && !(t.fresh >> (r + 1) & 1);
    const bool three = t.three >> r & 1;
    const uint8_t next = (uint8_t)((cur + 1) % 3);
    // The window after the first, then (three windows) the third.
    for (int k = 1; k <= (three ? 2 : 1); k++) {
      const uint8_t index = (uint8_t)(3 + (k == 1 ? first[r] : second[r]));
      const int32_t at = w + 32 * k;
      if (keep && k == (three ? 2 : 1)) {
        e.load_to(next, kRdi, at);
        e.permute2(byte_lanes, cur, index, next, 0, 0);
      } else {
        e.permute2(byte_lanes, cur, index, -1, kRdi, at);
      }
    }
    e.store_from(cur, kRsi, 32 * r);
    cur = keep ? next : 0;
  }
  e.end_loop(top, step, 32 * R);
  e.bytes({0xC5, 0xF8, 0x77});  // vzeroupper
  e.bytes({0x48, 0x89, 0xF0});  // mov rax, rsi
  e.bytes({0xC3});              // ret
  e.place_pool(pool);
  return e.code;
}

// Code is shared by every plan node of the same layout: a type sent with
// many different counts gets a node per count (plan_build.cpp fold_plan,
// a fresh one per call once its slots are taken), all running one loop,
// compiled once (a mapping and two system calls) while any of them lives.
// At most kMaxLayouts live layouts (a mapping each, of the process's
// vm.max_map_count); past that, the table kernels.
constexpr size_t kMaxLayouts = 4096;
// The last kRecentLayouts made stay compiled after their last node goes:
// a program that creates, commits and frees a type for every message
// (3 floats of every 4, 2 KiB: create, commit, pack, free) took 13-30 us
// a message compiling its loops again each time, 2.6-6.6 us so.
constexpr size_t kRecentLayouts = 32;

// The code for `key` (its layout), made by `make` unless a live node
// holds it already.
template <class Make>
std::shared_ptr<const JitCode> cached(const std::string &key, Make make) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::weak_ptr<const JitCode>> layouts;
  static std::shared_ptr<const JitCode> recent[kRecentLayouts];
  static size_t next_recent = 0;
  std::lock_guard<std::mutex> lock(mu);
  auto it = layouts.find(key);
  if (it != layouts.end())
    if (auto code = it->second.lock()) return code;
  if (layouts.size() >= kMaxLayouts) {
    for (auto i = layouts.begin(); i != layouts.end();)
      i = i->second.expired() ? layouts.erase(i) : std::next(i);
    if (layouts.size() >= kMaxLayouts) return nullptr;
  }
  std::shared_ptr<const JitCode> code = make();
  if (code) layouts[key] = code, recent[next_recent++ % kRecentLayouts] = code;
  return code;
}

void put(std::string &key, const void *p, size_t n) { key.append(static_cast<const char *>(p), n); }

}  // namespace

std::shared_ptr<const JitCode> jit_moves(const RunMoves &moves, int64_t stride, int64_t packed,
                                         int vector_bytes, int min_lane, bool indexed) {
  if (indexed) stride = 0;
  if (!jit_enabled() || stride < INT32_MIN || stride > INT32_MAX || packed > INT32_MAX)
    return nullptr;
  std::string key = "m";
  const int32_t head[5] = {(int32_t)stride, (int32_t)packed, vector_bytes, min_lane, indexed};
  put(key, head, sizeof head);
  put(key, moves.count, sizeof moves.count);
  put(key, moves.at.data(), moves.at.size() * sizeof moves.at[0]);
  return cached(key, [&] {
    return compile(moves, (int32_t)stride, (int32_t)packed, vector_bytes, indexed, min_lane);
  });
}

std::shared_ptr<const JitCode> jit_steps(const StepTable &t, int64_t step) {
  if (!jit_enabled() || step > INT32_MAX / 2) return nullptr;
  std::string key = "s";
  const int64_t head[5] = {step, t.lane, t.registers, t.three, t.fresh};
  put(key, head, sizeof head);
  put(key, t.window, sizeof t.window[0] * t.registers);
  if (t.lane == 1) put(key, t.idx8, sizeof t.idx8[0] * t.registers);
  else put(key, t.idx32, sizeof t.idx32[0] * t.registers);
  return cached(key, [&]() -> std::shared_ptr<const JitCode> {
    const std::vector<uint8_t> image = steps_code(t, (int32_t)step);
    auto code = image.empty() ? nullptr : executable(image);
    if (code) code->pack = reinterpret_cast<JitLoop>(code->memory);
    return code;
  });
}
#else
std::shared_ptr<const JitCode> jit_moves(const RunMoves &, int64_t, int64_t, int, int, bool) {
  return nullptr;
}
std::shared_ptr<const JitCode> jit_steps(const StepTable &, int64_t) { return nullptr; }
#endif

}  // namespace loom
