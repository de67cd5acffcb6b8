// Out of memory in the calls that move data: pack and unpack (plans of a
// new count, with the per-type plan slots free and taken), cursors,
// ranges, checkpoints and external32.
#include <cstring>

#include "oom_harness.hpp"
#include "oom_message.hpp"

namespace loomtest {
namespace {

constexpr int64_t kCount = 11;

// Takes every per-type slot for plans of other counts, so a new count
// needs a plan the call itself owns.
void take_plan_slots(Message &m) {
  Bytes out(m.lay.size * kCount);
  for (int64_t c = 2; c < 10; ++c) {
    size_t pos = 0;
    ASSERT_EQ(loom_pack(m.origin(), c, m.t.get(), out.data(), out.size(), &pos), LOOM_OK);
  }
}

class Pack : public Scenario {
 public:
  explicit Pack(bool slots_taken) : m_(mixed_spec(), kCount), out_(m_.lay.size * kCount) {
    if (slots_taken) take_plan_slots(m_);
  }
  loom_status act() override {
    pos_ = 0;
    return loom_pack(m_.origin(), kCount, m_.t.get(), out_.data(), out_.size(), &pos_);
  }
  void verify() override {
    EXPECT_EQ(pos_, out_.size());
    EXPECT_EQ(out_, m_.packed());
  }

 private:
  Message m_;
  Bytes out_;
  size_t pos_ = 0;
};

class Unpack : public Scenario {
 public:
  explicit Unpack(bool slots_taken) : m_(mixed_spec(), kCount), in_(m_.packed()) {
    std::reverse(in_.begin(), in_.end());  // different bytes from the buffer's
    if (slots_taken) take_plan_slots(m_);
  }
  loom_status act() override {
    pos_ = 0;
    return loom_unpack(in_.data(), in_.size(), &pos_, m_.origin(), kCount, m_.t.get());
  }
  void verify() override {
    Message want(mixed_spec(), kCount);
    reference_unpack(want.lay, kCount, in_.data(), want.origin());
    EXPECT_EQ(pos_, in_.size());
    EXPECT_EQ(m_.mem, want.mem);
  }

 private:
  Message m_;
  Bytes in_;
  size_t pos_ = 0;
};

TEST(OutOfMemory, PackAndUnpack) {
  for (bool taken : {false, true}) {
    const char *slots = taken ? " (plan slots taken)" : "";
    EXPECT_GT(exhaust(std::string("pack") + slots,
                      [=] { return std::make_unique<Pack>(taken); }), 0);
    EXPECT_GT(exhaust(std::string("unpack") + slots,
                      [=] { return std::make_unique<Unpack>(taken); }), 0);
  }
}

class Range : public Scenario {
 public:
  explicit Range(bool pack) : pack_(pack), m_(mixed_spec(), kCount), stream_(m_.packed()) {
    if (!pack_) std::reverse(stream_.begin(), stream_.end());
    out_.assign(kLen, 0);
  }
  loom_status act() override {
    if (pack_) return loom_pack_range(m_.origin(), kCount, m_.t.get(), kOff, kLen, out_.data());
    return loom_unpack_range(stream_.data() + kOff, kOff, kLen, m_.origin(), kCount, m_.t.get());
  }
  void verify() override {
    if (pack_) {
      EXPECT_EQ(out_, Bytes(stream_.begin() + kOff, stream_.begin() + kOff + kLen));
      return;
    }
    Message want(mixed_spec(), kCount);
    reference_unpack_range(want.lay, kCount, stream_.data(), kOff, kOff + kLen, want.origin());
    EXPECT_EQ(m_.mem, want.mem);
  }

 private:
  static constexpr int64_t kOff = 130, kLen = 500;
  bool pack_;
  Message m_;
  Bytes stream_, out_;
};

TEST(OutOfMemory, Ranges) {
  EXPECT_GT(exhaust("pack_range", [] { return std::make_unique<Range>(true); }), 0);
  EXPECT_GT(exhaust("unpack_range", [] { return std::make_unique<Range>(false); }), 0);
}

// Packs what is left of cursor c and compares with the reference stream.
void expect_rest(loom_cursor c, Message &m, size_t from) {
  const Bytes all = m.packed();
  Bytes got(all.size() - from);
  size_t done = 0;
  ASSERT_EQ(loom_cursor_offset(c), from);
  ASSERT_EQ(loom_cursor_pack(c, got.data(), got.size(), &done), LOOM_OK);
  EXPECT_EQ(done, got.size());
  EXPECT_EQ(got, Bytes(all.begin() + from, all.end()));
}

class CursorCreate : public Scenario {
 public:
  CursorCreate() : m_(mixed_spec(), kCount) {}
  ~CursorCreate() override { loom_cursor_free(c_); }
  loom_status act() override { return loom_cursor_create(m_.t.get(), kCount, m_.origin(), &c_); }
  void verify() override { expect_rest(c_, m_, 0); }

 private:
  Message m_;
  loom_cursor c_ = nullptr;
};

// A cursor over a single int: a plan one level deep, the smallest stack.
struct ShallowCursor {
  Type one = committed(prim(LOOM_INT));
  int x = 0;
  loom_cursor c = nullptr;
  ShallowCursor() { EXPECT_EQ(loom_cursor_create(one.get(), 1, &x, &c), LOOM_OK); }
  ~ShallowCursor() { loom_cursor_free(c); }
};

// A shallow cursor becomes a copy of a deep one; the copy must outlive the
// source cursor and keep its type alive.
class CursorCopy : public Scenario {
 public:
  CursorCopy() : m_(mixed_spec(), kCount) {
    EXPECT_EQ(loom_cursor_create(m_.t.get(), kCount, m_.origin(), &src_), LOOM_OK);
    EXPECT_EQ(loom_cursor_seek(src_, kAt), LOOM_OK);
  }
  ~CursorCopy() override { loom_cursor_free(src_); }
  loom_status act() override { return loom_cursor_copy(dst_.c, src_); }
  void verify() override {
    loom_cursor_free(src_);
    src_ = nullptr;
    expect_rest(dst_.c, m_, kAt);
  }

 private:
  static constexpr size_t kAt = 77;
  Message m_;
  ShallowCursor dst_;
  loom_cursor src_ = nullptr;
};

// Seek, pack, unpack and iov on an existing cursor never allocate.
class CursorMoves : public Scenario {
 public:
  CursorMoves() : m_(mixed_spec(), kCount) {
    EXPECT_EQ(loom_cursor_create(m_.t.get(), kCount, m_.origin(), &c_), LOOM_OK);
  }
  ~CursorMoves() override { loom_cursor_free(c_); }
  loom_status act() override {
    size_t done, n, bytes;
    unsigned char tmp[64];
    loom_iov iov[16];
    loom_status s;
    if ((s = loom_cursor_seek(c_, 300)) != LOOM_OK ||
        (s = loom_cursor_pack(c_, tmp, sizeof tmp, &done)) != LOOM_OK ||
        (s = loom_cursor_seek(c_, 300)) != LOOM_OK ||
        (s = loom_cursor_unpack(c_, tmp, sizeof tmp, &done)) != LOOM_OK ||
        (s = loom_cursor_iov(c_, iov, 16, 1000, &n, &bytes)) != LOOM_OK)
      return s;
    return loom_cursor_seek(c_, 5);
  }
  void verify() override { expect_rest(c_, m_, 5); }

 private:
  Message m_;
  loom_cursor c_ = nullptr;
};

TEST(OutOfMemory, Cursors) {
  EXPECT_GT(exhaust("cursor_create", [] { return std::make_unique<CursorCreate>(); }), 0);
  EXPECT_GT(exhaust("cursor_copy", [] { return std::make_unique<CursorCopy>(); }), 0);
  EXPECT_EQ(exhaust("cursor moves", [] { return std::make_unique<CursorMoves>(); }), 0);
}

class CheckpointsCreate : public Scenario {
 public:
  CheckpointsCreate() : m_(mixed_spec(), kCount) {}
  ~CheckpointsCreate() override { loom_checkpoints_free(cp_); }
  loom_status act() override {
    return loom_checkpoints_create(m_.t.get(), kCount, m_.origin(), 100, &cp_);
  }
  void verify() override {
    const size_t total = m_.lay.size * kCount;
    EXPECT_EQ(loom_checkpoints_count(cp_), (total + 99) / 100);
    loom_cursor c = nullptr;
    ASSERT_EQ(loom_cursor_create(m_.t.get(), 1, m_.origin(), &c), LOOM_OK);
    ASSERT_EQ(loom_checkpoints_restore(cp_, 555, c), LOOM_OK);
    expect_rest(c, m_, 555);
    loom_cursor_free(c);
  }

 private:
  Message m_;
  loom_checkpoints cp_ = nullptr;
};

// Restoring into a cursor of another (shallow) type: the cursor then holds
// the checkpointed type and outlives the checkpoints.
class CheckpointsRestore : public Scenario {
 public:
  CheckpointsRestore() : m_(mixed_spec(), kCount) {
    EXPECT_EQ(loom_checkpoints_create(m_.t.get(), kCount, m_.origin(), 64, &cp_), LOOM_OK);
  }
  ~CheckpointsRestore() override { loom_checkpoints_free(cp_); }
  loom_status act() override { return loom_checkpoints_restore(cp_, kAt, c_.c); }
  void verify() override {
    loom_checkpoints_free(cp_);
    cp_ = nullptr;
    expect_rest(c_.c, m_, kAt);
  }

 private:
  static constexpr size_t kAt = 700;
  Message m_;
  ShallowCursor c_;
  loom_checkpoints cp_ = nullptr;
};

TEST(OutOfMemory, Checkpoints) {
  EXPECT_GT(exhaust("checkpoints_create", [] { return std::make_unique<CheckpointsCreate>(); }),
            0);
  EXPECT_GT(exhaust("checkpoints_restore", [] { return std::make_unique<CheckpointsRestore>(); }),
            0);
}

// external32 results are compared with a twin type built without failures.
class External32 : public Scenario {
 public:
  explicit External32(bool pack) : pack_(pack), m_(mixed_spec(), kCount), twin_(mixed_spec(), kCount) {
    size_t size = 0, pos = 0;
    EXPECT_EQ(loom_external32_size(kCount, m_.t.get(), &size), LOOM_OK);
    ext_.resize(size);
    EXPECT_EQ(loom_pack_external32(twin_.origin(), kCount, twin_.t.get(), ext_.data(),
                                   size, &pos), LOOM_OK);
    out_.assign(size, 0);
  }
  loom_status act() override {
    pos_ = 0;
    if (pack_)
      return loom_pack_external32(m_.origin(), kCount, m_.t.get(), out_.data(), out_.size(),
                                  &pos_);
    return loom_unpack_external32(ext_.data(), ext_.size(), &pos_, m_.origin(), kCount,
                                  m_.t.get());
  }
  void verify() override {
    EXPECT_EQ(pos_, ext_.size());
    if (pack_) {
      EXPECT_EQ(out_, ext_);
    } else {
      EXPECT_EQ(m_.mem, twin_.mem);  // the round trip leaves the data as it was
    }
  }

 private:
  bool pack_;
  Message m_, twin_;
  Bytes ext_, out_;
  size_t pos_ = 0;
};

TEST(OutOfMemory, External32) {
  EXPECT_GT(exhaust("pack_external32", [] { return std::make_unique<External32>(true); }), 0);
  EXPECT_GT(exhaust("unpack_external32", [] { return std::make_unique<External32>(false); }), 0);
}

}  // namespace
}  // namespace loomtest
