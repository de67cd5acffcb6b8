// The random differential trial.  Each check throws Mismatch with a precise
// message; run_trial() turns the first one into TrialResult::error, so one
// broken tree reports one line (plus its seed and type) instead of a flood.
#include "differential.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "checkpoint_cache.hpp"
#include "guarded.hpp"
#include "loom.h"
#include "test_env.hpp"
#include "type_spec.hpp"

namespace loomtest {

namespace {

struct Mismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#define REQUIRE(cond, what)                                       \
  do {                                                            \
    if (!(cond)) {                                                \
      std::ostringstream o_;                                      \
      o_ << what;                                                 \
      throw Mismatch(o_.str());                                   \
    }                                                             \
  } while (0)

using Bytes = std::vector<unsigned char>;
using Chunk = std::pair<size_t, size_t>;  // (stream offset, length)

struct CursorDel { void operator()(loom_cursor c) const { loom_cursor_free(c); } };
using CursorPtr = std::unique_ptr<loom_cursor_s, CursorDel>;
struct TypeDel { void operator()(loom_type t) const { loom_type_free(t); } };
using TypePtr = std::unique_ptr<loom_type_s, TypeDel>;

// First differing byte, or -1.
long first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<long>(i);
  return -1;
}

class Trial {
 public:
  explicit Trial(uint64_t seed) : rng_(seed) {}

  void run(TrialResult &r, TypeSpecPtr spec, int64_t count) {
    spec_ = spec ? spec : random_spec(rng_, static_cast<int>(env_u64("LOOM_TEST_DEPTH", 4)));
    r.type = describe(*spec_);
    lay_ = reference_layout(*spec_);
    count_ = count >= 0 ? count : uni(0, 4);
    r.count = count_;
    total_ = static_cast<size_t>(lay_.size * count_);
    r.packed = static_cast<int64_t>(total_);
    reference_span(lay_, count_, &lo_, &hi_);
    overlap_ = reference_overlaps(lay_, count_);

    loom_status st;
    type_.reset(to_loom(*spec_, &st));
    REQUIRE(type_, "construction failed: " << loom_status_string(st));
    REQUIRE(loom_type_commit(type_.get()) == LOOM_OK, "commit failed");
    REQUIRE(loom_type_size(type_.get()) == lay_.size,
            "size " << loom_type_size(type_.get()) << " != ref " << lay_.size);
    int64_t lb, ext;
    loom_type_extent(type_.get(), &lb, &ext);
    REQUIRE(lb == lay_.lb && ext == lay_.extent(),
            "lb/extent " << lb << "/" << ext << " != ref " << lay_.lb << "/" << lay_.extent());

    // Origins aligned to 16 mostly; sometimes odd, to catch typed loads.
    size_t mis = chance(0.15) ? static_cast<size_t>(uni(1, 15)) : 0;
    src_ = std::make_unique<Guarded>(span(), phase(mis));
    src_->fill(rng_());
    src_before_ = src_->contents();
    sentinel_seed_ = rng_();
    packed_ = reference_pack(lay_, count_, origin(*src_));
    {
      Guarded d = fresh_dst(mis);
      reference_unpack(lay_, count_, packed_.data(), origin(d));
      expect_unpacked_ = d.contents();
    }
    dst_mis_ = mis;

    whole_pack();
    whole_unpack();
    cursor_pack(schedule(false), "forward", false);
    cursor_pack(reversed(schedule(false)), "reverse", true);
    cursor_pack(shuffled(schedule(false)), "random-order", true);
    cursor_pack(overlapping(), "overlapping", true);
    cursor_unpack(schedule(false), "forward", false);
    cursor_unpack(reversed(schedule(false)), "reverse", true);
    cursor_unpack(shuffled(schedule(false)), "random-order", true);
    cursor_unpack(with_repeats(shuffled(schedule(false))), "overlapping", true);
    cursor_copy();
    mixed();
    ranges();
    iov();
    checkpoints();
    parallel();
    REQUIRE(src_->guard_error().empty(), "source guard: " << src_->guard_error());
    REQUIRE(src_->contents() == src_before_, "pack/iov modified the source buffer");
  }

 private:
  int64_t uni(int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  size_t span() const { return static_cast<size_t>(hi_ - lo_); }
  // data() % 64 such that the origin (data - lo) % 64 == mis.
  size_t phase(size_t mis) const {
    return static_cast<size_t>(((lo_ + static_cast<int64_t>(mis)) % 64 + 64) % 64);
  }
  unsigned char *origin(Guarded &g) const { return g.data() - lo_; }

  Guarded fresh_dst(size_t mis) {
    Guarded d(span(), phase(mis));
    d.fill(sentinel_seed_);
    return d;
  }

  // A split of [0, total) into consecutive chunks: single bytes, small
  // random sizes, or large random sizes, capped at ~1500 chunks.
  std::vector<Chunk> schedule(bool) {
    std::vector<Chunk> v;
    int mode = static_cast<int>(uni(0, 3));
    size_t minc = std::max<size_t>(1, total_ / 1500);
    for (size_t off = 0; off < total_;) {
      size_t len;
      switch (mode) {
        case 0: len = 1; break;
        case 1: len = static_cast<size_t>(uni(1, 17)); break;
        case 2: len = static_cast<size_t>(uni(1, static_cast<int64_t>(total_))); break;
        default: len = chance(0.3) ? 1 : static_cast<size_t>(uni(1, 300)); break;
      }
      len = std::min(std::max(len, minc), total_ - off);
      v.push_back({off, len});
      off += len;
    }
    return v;
  }
  std::vector<Chunk> reversed(std::vector<Chunk> v) {
    std::reverse(v.begin(), v.end());
    return v;
  }
  std::vector<Chunk> shuffled(std::vector<Chunk> v) {
    std::shuffle(v.begin(), v.end(), rng_);
    return v;
  }
  // Arbitrary ranges, overlapping each other, some running past the end
  // (the cursor must stop at the end), plus a full cover.
  std::vector<Chunk> overlapping() {
    std::vector<Chunk> v = shuffled(schedule(false));
    int extra = static_cast<int>(uni(1, 8));
    for (int i = 0; i < extra && total_ > 0; ++i) {
      size_t a = static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
      size_t len = static_cast<size_t>(uni(0, static_cast<int64_t>(total_ - a) + 4));
      v.insert(v.begin() + uni(0, static_cast<int64_t>(v.size())), Chunk{a, len});
    }
    return v;
  }
  std::vector<Chunk> with_repeats(std::vector<Chunk> v) {
    size_t n = v.size();
    for (size_t i = 0; i < std::min<size_t>(n, 6); ++i)
      v.push_back(v[static_cast<size_t>(uni(0, static_cast<int64_t>(n) - 1))]);
    return v;
  }

  CursorPtr make_cursor(const void *buf) {
    loom_cursor c = nullptr;
    loom_status s = loom_cursor_create(type_.get(), count_, buf, &c);
    REQUIRE(s == LOOM_OK && c, "loom_cursor_create: " << loom_status_string(s));
    REQUIRE(loom_cursor_total(c) == total_,
            "cursor total " << loom_cursor_total(c) << " != " << total_);
    REQUIRE(loom_cursor_offset(c) == 0, "new cursor offset " << loom_cursor_offset(c));
    return CursorPtr(c);
  }

  void seek(loom_cursor c, size_t off, const char *what) {
    loom_status s = loom_cursor_seek(c, off);
    REQUIRE(s == LOOM_OK, what << ": seek(" << off << "): " << loom_status_string(s));
    REQUIRE(loom_cursor_offset(c) == off,
            what << ": offset after seek(" << off << ") is " << loom_cursor_offset(c));
  }

  // Packs `len` bytes at the cursor into a fresh guarded buffer and checks
  // them against the reference stream at `off`.
  void pack_chunk(loom_cursor c, size_t off, size_t len, const std::string &what) {
    Guarded out(len, static_cast<size_t>(uni(0, 63)));
    size_t done = 12345;
    loom_status s = loom_cursor_pack(c, out.data(), len, &done);
    size_t want = off >= total_ ? 0 : std::min(len, total_ - off);
    REQUIRE(s == LOOM_OK, what << ": cursor_pack [" << off << "+" << len << "): "
                                << loom_status_string(s));
    REQUIRE(done == want, what << ": cursor_pack [" << off << "+" << len << ") done="
                                << done << " want " << want);
    REQUIRE(out.guard_error().empty(),
            what << ": cursor_pack [" << off << "+" << len << "): " << out.guard_error());
    long d = first_diff(out.data(), packed_.data() + off, want);
    REQUIRE(d < 0, what << ": cursor_pack [" << off << "+" << len
                        << ") differs at stream byte " << off + static_cast<size_t>(d));
    REQUIRE(loom_cursor_offset(c) == off + want,
            what << ": offset after pack is " << loom_cursor_offset(c) << " want " << off + want);
  }

  void whole_pack() {
    size_t pre = static_cast<size_t>(uni(0, 9));
    Guarded out(pre + total_, static_cast<size_t>(uni(0, 63)));
    std::memset(out.data(), 0x5A, pre);
    size_t pos = pre;
    loom_status s = loom_pack(origin(*src_), count_, type_.get(), out.data(), pre + total_, &pos);
    REQUIRE(s == LOOM_OK, "loom_pack: " << loom_status_string(s));
    REQUIRE(pos == pre + total_, "loom_pack position " << pos << " want " << pre + total_);
    REQUIRE(out.guard_error().empty(), "loom_pack: " << out.guard_error());
    for (size_t i = 0; i < pre; ++i)
      REQUIRE(out.data()[i] == 0x5A, "loom_pack wrote before position");
    long d = first_diff(out.data() + pre, packed_.data(), total_);
    REQUIRE(d < 0, "loom_pack differs from reference at stream byte " << d);
  }

  void compare_unpacked(Guarded &d, const Bytes &expect, const std::string &what) {
    REQUIRE(d.guard_error().empty(), what << ": " << d.guard_error());
    if (overlap_) {
      // MPI leaves unpack into an overlapping typemap undefined; only bytes
      // outside every piece must be untouched.
      Bytes sentinel = fresh_dst(dst_mis_).contents();
      std::vector<char> covered(span(), 0);
      for (const Piece &p : reference_pieces(lay_, count_, false))
        for (int64_t b = 0; b < p.len; ++b) covered[static_cast<size_t>(p.disp + b - lo_)] = 1;
      for (size_t i = 0; i < span(); ++i)
        REQUIRE(covered[i] || d.data()[i] == sentinel[i],
                what << ": wrote a gap byte at disp " << static_cast<int64_t>(i) + lo_);
      return;
    }
    long k = first_diff(d.data(), expect.data(), span());
    REQUIRE(k < 0, what << ": differs from reference unpack at disp "
                        << static_cast<int64_t>(k) + lo_);
  }

  void whole_unpack() {
    size_t pre = static_cast<size_t>(uni(0, 9));
    Bytes in(pre, 0x77);
    in.insert(in.end(), packed_.begin(), packed_.end());
    Guarded d = fresh_dst(dst_mis_);
    size_t pos = pre;
    loom_status s = loom_unpack(in.data(), in.size(), &pos, origin(d), count_, type_.get());
    REQUIRE(s == LOOM_OK, "loom_unpack: " << loom_status_string(s));
    REQUIRE(pos == pre + total_, "loom_unpack position " << pos);
    compare_unpacked(d, expect_unpacked_, "loom_unpack");
  }

  void cursor_pack(const std::vector<Chunk> &chunks, const char *name, bool seeks) {
    std::string what = std::string("cursor pack ") + name;
    CursorPtr c = make_cursor(origin(*src_));
    for (const Chunk &ch : chunks) {
      if (seeks) seek(c.get(), std::min(ch.first, total_), what.c_str());
      else REQUIRE(loom_cursor_offset(c.get()) == ch.first,
                   what << ": offset " << loom_cursor_offset(c.get()) << " want " << ch.first);
      pack_chunk(c.get(), ch.first, ch.second, what);
    }
    if (!seeks) pack_chunk(c.get(), total_, 7, what + " (at end)");
  }

  void cursor_unpack(const std::vector<Chunk> &chunks, const char *name, bool seeks) {
    std::string what = std::string("cursor unpack ") + name;
    Guarded d = fresh_dst(dst_mis_);
    CursorPtr c = make_cursor(origin(d));
    for (const Chunk &ch : chunks) {
      if (seeks) seek(c.get(), ch.first, what.c_str());
      // The input chunk sits in its own buffer so reads past it are caught
      // by ASan rather than silently reading the next chunk.
      Bytes in(packed_.begin() + static_cast<long>(ch.first),
               packed_.begin() + static_cast<long>(ch.first + ch.second));
      size_t done = 12345;
      loom_status s = loom_cursor_unpack(c.get(), in.data(), in.size(), &done);
      REQUIRE(s == LOOM_OK && done == ch.second,
              what << ": cursor_unpack [" << ch.first << "+" << ch.second << ") status "
                   << loom_status_string(s) << " done " << done);
      REQUIRE(loom_cursor_offset(c.get()) == ch.first + ch.second,
              what << ": offset after unpack " << loom_cursor_offset(c.get()));
    }
    compare_unpacked(d, expect_unpacked_, what);
  }

  // A copied cursor continues exactly where the original was.
  void cursor_copy() {
    if (total_ == 0) return;
    CursorPtr a = make_cursor(origin(*src_));
    CursorPtr b = make_cursor(origin(*src_));
    size_t off = static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
    seek(a.get(), off, "cursor copy");
    REQUIRE(loom_cursor_copy(b.get(), a.get()) == LOOM_OK, "loom_cursor_copy failed");
    REQUIRE(loom_cursor_offset(b.get()) == off, "copied cursor offset " << loom_cursor_offset(b.get()));
    size_t len = static_cast<size_t>(uni(1, 64));
    pack_chunk(a.get(), off, len, "cursor copy (original)");
    pack_chunk(b.get(), off, len, "cursor copy (copy)");
  }

  // One cursor driven by a random mix of pack chunks, iov batches and
  // seeks: the cursor state each operation leaves must suit the others.
  void mixed() {
    CursorPtr c = make_cursor(origin(*src_));
    size_t off = 0;
    for (int step = 0; step < 24 && total_ > 0; ++step) {
      switch (uni(0, 3)) {
        case 0:
        case 1:
          pack_chunk(c.get(), off, static_cast<size_t>(chance(0.3) ? 1 : uni(1, 80)), "mixed ops");
          off = loom_cursor_offset(c.get());  // pack_chunk checked it advanced right
          break;
        case 2: {
          size_t max_e = static_cast<size_t>(uni(1, 3)), max_b = static_cast<size_t>(uni(1, 100));
          std::vector<loom_iov> v(max_e);
          size_t n = 0, bytes = 0;
          REQUIRE(loom_cursor_iov(c.get(), v.data(), max_e, max_b, &n, &bytes) == LOOM_OK,
                  "mixed ops: iov failed at " << off);
          std::vector<Piece> got;
          for (size_t k = 0; k < n; ++k)
            got.push_back({static_cast<int64_t>(reinterpret_cast<uintptr_t>(v[k].base) -
                                                reinterpret_cast<uintptr_t>(origin(*src_))),
                           static_cast<int64_t>(v[k].len)});
          std::vector<Piece> want = reference_stream_pieces(
              lay_, count_, static_cast<int64_t>(off), static_cast<int64_t>(off + bytes));
          REQUIRE(got == want && (bytes > 0 || off == total_),
                  "mixed ops: iov at " << off << " (" << n << " entries, " << bytes
                                       << " bytes) differs from reference");
          off += bytes;
          REQUIRE(loom_cursor_offset(c.get()) == off, "mixed ops: offset after iov");
          break;
        }
        default:
          off = static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
          seek(c.get(), off, "mixed ops");
          break;
      }
    }
  }

  void ranges() {
    for (int i = 0; i < 6; ++i) {
      size_t off = static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
      size_t len = static_cast<size_t>(uni(0, static_cast<int64_t>(total_ - off)));
      Guarded out(len, static_cast<size_t>(uni(0, 63)));
      loom_status s = loom_pack_range(origin(*src_), count_, type_.get(), off, len, out.data());
      REQUIRE(s == LOOM_OK, "pack_range [" << off << "+" << len << "): " << loom_status_string(s));
      REQUIRE(out.guard_error().empty(), "pack_range [" << off << "+" << len << "): " << out.guard_error());
      long d = first_diff(out.data(), packed_.data() + off, len);
      REQUIRE(d < 0, "pack_range [" << off << "+" << len << ") differs at " << off + static_cast<size_t>(d));

      Guarded dst = fresh_dst(dst_mis_);
      Guarded ref = fresh_dst(dst_mis_);
      reference_unpack_range(lay_, count_, packed_.data(), static_cast<int64_t>(off),
                             static_cast<int64_t>(off + len), origin(ref));
      Bytes in(packed_.begin() + static_cast<long>(off), packed_.begin() + static_cast<long>(off + len));
      s = loom_unpack_range(in.data(), off, len, origin(dst), count_, type_.get());
      REQUIRE(s == LOOM_OK, "unpack_range [" << off << "+" << len << "): " << loom_status_string(s));
      compare_unpacked(dst, overlap_ ? Bytes() : ref.contents(),
                       "unpack_range [" + std::to_string(off) + "+" + std::to_string(len) + ")");
    }
  }

  // Checkpoint-parallel pack and unpack (src/core/parallel.cpp) with 2-5
  // threads and checkpoints every 1-256 bytes at least, so that even small
  // messages are cut into many chunks taken in any order: whole messages
  // and random ranges, byte-identical to the reference.
  void parallel() {
    loom::set_checkpoint_min_interval(uni(1, 256));
    const int threads = static_cast<int>(uni(2, 5));
    {
      Guarded out(total_, static_cast<size_t>(uni(0, 63)));
      size_t pos = 0;
      loom_status s = loom_pack_parallel(origin(*src_), count_, type_.get(), out.data(), total_,
                                         &pos, threads);
      REQUIRE(s == LOOM_OK && pos == total_, "pack_parallel(" << threads << " threads): "
                                                  << loom_status_string(s));
      REQUIRE(out.guard_error().empty(), "pack_parallel: " << out.guard_error());
      long d = first_diff(out.data(), packed_.data(), total_);
      REQUIRE(d < 0, "pack_parallel(" << threads << " threads) differs at " << d);
    }
    if (!overlap_) {  // overlapping receive types are erroneous in MPI
      Guarded d = fresh_dst(dst_mis_);
      size_t pos = 0;
      loom_status s = loom_unpack_parallel(packed_.data(), total_, &pos, origin(d), count_,
                                           type_.get(), threads);
      REQUIRE(s == LOOM_OK && pos == total_, "unpack_parallel(" << threads << " threads): "
                                                    << loom_status_string(s));
      compare_unpacked(d, expect_unpacked_, "unpack_parallel");
    }
    for (int i = 0; i < 3; ++i) {
      size_t off = static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
      size_t len = static_cast<size_t>(uni(0, static_cast<int64_t>(total_ - off)));
      Guarded out(len, static_cast<size_t>(uni(0, 63)));
      loom_status s = loom_pack_range_parallel(origin(*src_), count_, type_.get(), off, len,
                                               out.data(), threads);
      REQUIRE(s == LOOM_OK, "pack_range_parallel [" << off << "+" << len << "): "
                                                    << loom_status_string(s));
      REQUIRE(out.guard_error().empty(), "pack_range_parallel: " << out.guard_error());
      long d = first_diff(out.data(), packed_.data() + off, len);
      REQUIRE(d < 0, "pack_range_parallel [" << off << "+" << len << ") differs at " << d);
      if (overlap_) continue;
      Guarded dst = fresh_dst(dst_mis_);
      Guarded ref = fresh_dst(dst_mis_);
      reference_unpack_range(lay_, count_, packed_.data(), static_cast<int64_t>(off),
                             static_cast<int64_t>(off + len), origin(ref));
      s = loom_unpack_range_parallel(packed_.data() + off, off, len, origin(dst), count_,
                                     type_.get(), threads);
      REQUIRE(s == LOOM_OK, "unpack_range_parallel: " << loom_status_string(s));
      compare_unpacked(dst, ref.contents(), "unpack_range_parallel [" + std::to_string(off) +
                                                "+" + std::to_string(len) + ")");
    }
  }

  // Walks the stream with small iov batches from a random start; the
  // entries, merged across batches, must be the reference pieces.
  void iov() {
    for (int rep = 0; rep < 2; ++rep) {
      size_t start = rep == 0 ? 0 : static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
      CursorPtr c = make_cursor(origin(*src_));
      seek(c.get(), start, "iov");
      std::vector<Piece> got;
      size_t off = start;
      for (int guard = 0; off < total_; ++guard) {
        REQUIRE(guard < 1000000, "iov makes no progress");
        size_t max_e = static_cast<size_t>(uni(1, 4));
        size_t max_b;
        switch (uni(0, 2)) {
          case 0: max_b = static_cast<size_t>(uni(1, 64)); break;
          case 1: max_b = static_cast<size_t>(uni(1, static_cast<int64_t>(total_))); break;
          default: max_b = SIZE_MAX; break;
        }
        std::vector<loom_iov> v(max_e + 2, loom_iov{reinterpret_cast<void *>(0x1234), 0xdead});
        size_t n = 999, bytes = 999;
        loom_status s = loom_cursor_iov(c.get(), v.data(), max_e, max_b, &n, &bytes);
        std::string at = "iov at " + std::to_string(off) + " (max_entries " + std::to_string(max_e) +
                         ", max_bytes " + std::to_string(max_b) + ")";
        REQUIRE(s == LOOM_OK, at << ": " << loom_status_string(s));
        REQUIRE(n <= max_e && bytes <= max_b, at << ": n=" << n << " bytes=" << bytes);
        REQUIRE(bytes > 0 && n > 0, at << ": no progress (n=" << n << ", bytes=" << bytes << ")");
        for (size_t k = max_e; k < v.size(); ++k)
          REQUIRE(v[k].base == reinterpret_cast<void *>(0x1234) && v[k].len == 0xdead,
                  at << ": wrote iov entry " << k);
        size_t sum = 0;
        for (size_t k = 0; k < n; ++k) {
          REQUIRE(v[k].len > 0, at << ": empty entry " << k);
          // Within one batch, adjacent pieces must already be merged.
          REQUIRE(k == 0 || static_cast<char *>(v[k - 1].base) + v[k - 1].len !=
                                static_cast<char *>(v[k].base),
                  at << ": entries " << k - 1 << " and " << k << " are adjacent, not merged");
          sum += v[k].len;
          int64_t disp = static_cast<int64_t>(reinterpret_cast<uintptr_t>(v[k].base) -
                                              reinterpret_cast<uintptr_t>(origin(*src_)));
          if (!got.empty() && got.back().disp + got.back().len == disp)
            got.back().len += static_cast<int64_t>(v[k].len);
          else
            got.push_back({disp, static_cast<int64_t>(v[k].len)});
        }
        REQUIRE(sum == bytes, at << ": entry lengths sum " << sum << " != bytes " << bytes);
        off += bytes;
        REQUIRE(loom_cursor_offset(c.get()) == off,
                at << ": offset " << loom_cursor_offset(c.get()) << " want " << off);
      }
      size_t n = 999, bytes = 999;
      loom_iov one;
      REQUIRE(loom_cursor_iov(c.get(), &one, 1, SIZE_MAX, &n, &bytes) == LOOM_OK && n == 0 &&
                  bytes == 0,
              "iov at end: n=" << n << " bytes=" << bytes);
      std::vector<Piece> want = reference_stream_pieces(lay_, count_, static_cast<int64_t>(start),
                                                        static_cast<int64_t>(total_));
      if (got != want) {
        size_t k = 0;
        while (k < got.size() && k < want.size() && got[k] == want[k]) ++k;
        std::ostringstream o;
        o << "iov from " << start << ": " << got.size() << " merged entries, reference "
          << want.size() << "; first difference at entry " << k;
        if (k < got.size()) o << " got (" << got[k].disp << "," << got[k].len << ")";
        if (k < want.size()) o << " want (" << want[k].disp << "," << want[k].len << ")";
        throw Mismatch(o.str());
      }
    }
  }

  void checkpoints() {
    size_t interval = static_cast<size_t>(
        chance(0.5) ? uni(1, 16) : uni(1, std::max<int64_t>(1, static_cast<int64_t>(total_))));
    loom_checkpoints cp = nullptr;
    loom_status s = loom_checkpoints_create(type_.get(), count_, origin(*src_), interval, &cp);
    REQUIRE(s == LOOM_OK && cp, "checkpoints_create(interval " << interval << "): " << loom_status_string(s));
    std::unique_ptr<loom_checkpoints_s, void (*)(loom_checkpoints)> hold(cp, loom_checkpoints_free);
    size_t n = loom_checkpoints_count(cp);
    REQUIRE(n <= total_ / interval + 2, "checkpoints_count " << n << " for total " << total_
                                                             << " interval " << interval);
    CursorPtr c = make_cursor(origin(*src_));
    for (int i = 0; i < 8; ++i) {
      size_t off = static_cast<size_t>(uni(0, static_cast<int64_t>(total_)));
      s = loom_checkpoints_restore(cp, off, c.get());
      REQUIRE(s == LOOM_OK, "checkpoints_restore(" << off << "): " << loom_status_string(s));
      REQUIRE(loom_cursor_offset(c.get()) == off,
              "offset after restore(" << off << ") = " << loom_cursor_offset(c.get()));
      pack_chunk(c.get(), off, static_cast<size_t>(uni(1, 200)),
                 "checkpoint restore(" + std::to_string(off) + ", interval " + std::to_string(interval) + ")");
    }
    // Workers unpacking disjoint ranges in random order, each from a restore
    // (checkpoints belong to one buffer, so these are made over the target).
    Guarded d = fresh_dst(dst_mis_);
    loom_checkpoints cpd = nullptr;
    s = loom_checkpoints_create(type_.get(), count_, origin(d), interval, &cpd);
    REQUIRE(s == LOOM_OK && cpd, "checkpoints_create over target: " << loom_status_string(s));
    std::unique_ptr<loom_checkpoints_s, void (*)(loom_checkpoints)> hold_d(cpd, loom_checkpoints_free);
    CursorPtr w = make_cursor(origin(d));
    for (const Chunk &ch : shuffled(schedule(false))) {
      REQUIRE(loom_checkpoints_restore(cpd, ch.first, w.get()) == LOOM_OK &&
                  loom_cursor_offset(w.get()) == ch.first,
              "checkpoint restore for unpack at " << ch.first);
      size_t done = 0;
      s = loom_cursor_unpack(w.get(), packed_.data() + ch.first, ch.second, &done);
      REQUIRE(s == LOOM_OK && done == ch.second, "checkpoint unpack [" << ch.first << "+" << ch.second << ")");
    }
    compare_unpacked(d, expect_unpacked_, "checkpoint workers unpack");
  }

  std::mt19937_64 rng_;
  TypeSpecPtr spec_;
  Layout lay_;
  int64_t count_ = 0, lo_ = 0, hi_ = 0;
  size_t total_ = 0, dst_mis_ = 0;
  bool overlap_ = false;
  TypePtr type_;
  std::unique_ptr<Guarded> src_;
  Bytes src_before_, packed_, expect_unpacked_;
  uint64_t sentinel_seed_ = 0;
};

}  // namespace

TrialResult run_trial(uint64_t seed, TypeSpecPtr spec, int64_t count) {
  TrialResult r;
  Trial t(seed);
  try {
    t.run(r, std::move(spec), count);
  } catch (const Mismatch &m) {
    r.error = m.what();
  } catch (const std::exception &e) {
    r.error = std::string("exception: ") + e.what();
  }
  return r;
}

}  // namespace loomtest
