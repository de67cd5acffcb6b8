// Out of memory in type construction (every constructor), commit and the
// plan string.
#include <cstring>

#include "oom_harness.hpp"
#include "oom_message.hpp"

namespace loomtest {
namespace {

// The type packs like the reference for three instances.
void expect_packs_like_reference(loom_type t, const TypeSpecPtr &spec) {
  Message m(spec, 3);
  ASSERT_EQ(loom_type_is_committed(t), 1);
  Bytes out(m.lay.size * 3);
  size_t pos = 0;
  ASSERT_EQ(loom_pack(m.origin(), 3, t, out.data(), out.size(), &pos), LOOM_OK);
  EXPECT_EQ(out, m.packed());
}

// One constructor call, its children built beforehand.
class Construct : public Scenario {
 public:
  explicit Construct(TypeSpecPtr spec) : spec_(std::move(spec)) {
    if (spec_->kind == Kind::Struct)
      for (auto &m : spec_->types) kids_.push_back(to_loom(*m));
    else if (spec_->child)
      kids_.push_back(to_loom(*spec_->child));
  }
  ~Construct() override {
    for (loom_type k : kids_) loom_type_free(k);
    loom_type_free(out_);
  }
  loom_status act() override {
    EXPECT_EQ(out_, nullptr);
    loom_status s = construct(*spec_, kids_.empty() ? nullptr : kids_.data(), &out_);
    if (s != LOOM_OK) {
      EXPECT_EQ(out_, nullptr) << "*out written on failure";
    }
    return s;
  }
  void verify() override {
    ASSERT_NE(out_, nullptr);
    const Layout l = reference_layout(*spec_);
    int64_t lb, ext, tlb, text;
    loom_type_extent(out_, &lb, &ext);
    loom_type_true_extent(out_, &tlb, &text);
    EXPECT_EQ(loom_type_size(out_), l.size);
    EXPECT_EQ(lb, l.lb);
    EXPECT_EQ(ext, l.extent());
    EXPECT_EQ(tlb, l.true_lb);
    EXPECT_EQ(text, l.true_extent());
    EXPECT_EQ(loom_type_num_elements(out_), l.nelems);
    ASSERT_EQ(loom_type_commit(out_), LOOM_OK);
    expect_packs_like_reference(out_, spec_);
  }

 private:
  TypeSpecPtr spec_;
  std::vector<loom_type> kids_;
  loom_type out_ = nullptr;
};

void exhaust_construct(const char *what, TypeSpecPtr spec) {
  int64_t points = exhaust(what, [&] { return std::make_unique<Construct>(spec); });
  EXPECT_GT(points, 0) << what << " met no allocation";
}

TEST(OutOfMemory, EveryConstructor) {
  const auto i = prim(LOOM_INT), d = prim(LOOM_DOUBLE);
  exhaust_construct("primitive", prim(LOOM_DOUBLE_INT));
  exhaust_construct("contiguous", contig(3, vector(2, 1, 3, i)));
  exhaust_construct("vector", vector(3, 2, 5, structure({1, 1}, {0, 8}, {i, d})));
  exhaust_construct("hvector", hvector(4, 1, 40, indexed({1, 2}, {0, 3}, i)));
  exhaust_construct("indexed", indexed({2, 1, 3, 1, 2}, {0, 5, 9, 14, 20}, d));
  exhaust_construct("hindexed", hindexed({1, 2}, {0, 24}, vector(2, 1, 2, prim(LOOM_FLOAT))));
  exhaust_construct("indexed_block", indexed_block(2, {0, 3, 6, 10, 13, 16}, i));
  exhaust_construct("hindexed_block", hindexed_block(1, {8, 0, 40}, contig(2, prim(LOOM_SHORT))));
  exhaust_construct("struct", mixed_spec());
  exhaust_construct("subarray", subarray({4, 5, 6}, {2, 3, 2}, {1, 1, 3}, LOOM_ORDER_C, i));
  exhaust_construct("darray block",
                    darray(4, 1, {8, 6}, {LOOM_DISTRIBUTE_BLOCK, LOOM_DISTRIBUTE_BLOCK},
                           {LOOM_DISTRIBUTE_DFLT_DARG, LOOM_DISTRIBUTE_DFLT_DARG}, {2, 2},
                           LOOM_ORDER_C, d));
  exhaust_construct("darray cyclic, short last block",
                    darray(2, 1, {7, 5}, {LOOM_DISTRIBUTE_CYCLIC, LOOM_DISTRIBUTE_NONE},
                           {2, LOOM_DISTRIBUTE_DFLT_DARG}, {2, 1}, LOOM_ORDER_FORTRAN, i));
  exhaust_construct("resized", resized(vector(2, 1, 3, i), -4, 40));
  exhaust_construct("dup", dup(mixed_spec()));
}

class Bytes12 : public Scenario {
 public:
  ~Bytes12() override { loom_type_free(out_); }
  loom_status act() override { return loom_type_bytes(12, 4, &out_); }
  void verify() override { EXPECT_EQ(loom_type_size(out_), 12); }

 private:
  loom_type out_ = nullptr;
};

TEST(OutOfMemory, BytesType) {
  EXPECT_GT(exhaust("bytes", [] { return std::make_unique<Bytes12>(); }), 0);
}

class Commit : public Scenario {
 public:
  explicit Commit(TypeSpecPtr spec) : spec_(std::move(spec)), t_(to_loom(*spec_)) {}
  loom_status act() override { return loom_type_commit(t_.get()); }
  void verify() override { expect_packs_like_reference(t_.get(), spec_); }

 private:
  TypeSpecPtr spec_;
  Type t_;
};

TEST(OutOfMemory, Commit) {
  // Plans of every node kind: blocks, vectors, index lists with a period,
  // irregular runs, structs.
  const TypeSpecPtr spec = structure(
      {1, 1, 2}, {0, 400, 800},
      {mixed_spec(), indexed({1, 3, 1, 3, 1, 3, 2}, {0, 4, 10, 14, 20, 24, 31}, prim(LOOM_INT)),
       hvector(3, 2, 24, prim(LOOM_SHORT))});
  EXPECT_GT(exhaust("commit", [&] { return std::make_unique<Commit>(spec); }), 0);
}

class PlanString : public Scenario {
 public:
  PlanString() : m_(mixed_spec(), 7), twin_(committed(mixed_spec())) {}
  loom_status act() override {
    n_ = loom_type_plan_string(m_.t.get(), 7, buf_, sizeof buf_);
    return n_ ? LOOM_OK : LOOM_ERR_NOMEM;
  }
  void verify() override {
    char want[256];
    EXPECT_EQ(n_, loom_type_plan_string(twin_.get(), 7, want, sizeof want));
    EXPECT_STREQ(buf_, want);
  }

 private:
  Message m_;
  Type twin_;
  size_t n_ = 0;
  char buf_[256] = {};
};

TEST(OutOfMemory, PlanString) {
  EXPECT_GT(exhaust("plan string", [] { return std::make_unique<PlanString>(); }), 0);
}

}  // namespace
}  // namespace loomtest
