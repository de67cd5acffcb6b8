// loom_cursor_state_bytes (loom.h): what one checkpoint of a cursor costs
// whoever stores it (the NIC model of `loom sim` sizes its checkpoint
// memory with it).  It grows with the plan's depth, not with the message,
// and a copy or a move along the stream does not change it.  Registered
// with the Parallel suite: checkpoints are what it is about.
#include <gtest/gtest.h>

#include "loom.h"

namespace {

loom_type vector_of(loom_type old, int64_t count) {
  loom_type v = nullptr;
  EXPECT_EQ(loom_type_vector(count, 1, 2, old, &v), LOOM_OK);
  return v;
}

// Cursors only seek and copy here, so the buffer is never touched.
char g_unused_buffer;

size_t state_bytes(loom_type t, int64_t count) {
  EXPECT_EQ(loom_type_commit(t), LOOM_OK);
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(t, count, &g_unused_buffer, &c), LOOM_OK);
  const size_t at_start = loom_cursor_state_bytes(c);
  EXPECT_EQ(loom_cursor_seek(c, loom_cursor_total(c) / 2 + 3), LOOM_OK);
  EXPECT_EQ(loom_cursor_state_bytes(c), at_start) << "moving must not change a snapshot's size";
  loom_cursor copy = nullptr;
  EXPECT_EQ(loom_cursor_create(t, 1, &g_unused_buffer, &copy), LOOM_OK);
  EXPECT_EQ(loom_cursor_copy(copy, c), LOOM_OK);
  EXPECT_EQ(loom_cursor_state_bytes(copy), at_start);
  loom_cursor_free(copy);
  loom_cursor_free(c);
  return at_start;
}

TEST(Parallel, CursorStateBytesFollowsDepthNotSize) {
  loom_type d = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &d), LOOM_OK);
  loom_type small = vector_of(d, 16), large = vector_of(d, 1 << 20);
  // A vector of vectors with a gap at each level cannot fold into one level.
  loom_type inner = vector_of(d, 5), nested = vector_of(inner, 7);
  const size_t s_small = state_bytes(small, 1), s_large = state_bytes(large, 1);
  const size_t s_nested = state_bytes(nested, 2);
  EXPECT_GT(s_small, 0u);
  EXPECT_EQ(s_small, s_large);
  EXPECT_GT(s_nested, s_small);
  EXPECT_EQ(loom_cursor_state_bytes(nullptr), 0u);
  for (loom_type t : {d, small, large, inner, nested}) loom_type_free(t);
}

}  // namespace
