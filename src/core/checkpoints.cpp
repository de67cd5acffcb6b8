// Cursor snapshots every `interval` bytes: a worker handed any offset starts
// from the nearest snapshot at or before it and catches up by skipping, so
// disjoint ranges of one message can be processed in parallel, in any order.
#include <new>
#include <vector>

#include "cursor.hpp"
#include "type.hpp"

struct loom_checkpoints_s {
  size_t interval;
  loom_type type;  // keeps the plans the snapshots point into alive
  std::vector<loom::Cursor> snaps;
  ~loom_checkpoints_s() { loom_type_free(type); }
};

extern "C" {

loom_status loom_checkpoints_create(loom_type t, int64_t count, const void *buf,
                                    size_t interval, loom_checkpoints *out) {
  if (!out || interval == 0) return LOOM_ERR_ARG;
  loom_cursor c;
  loom_status s = loom_cursor_create(t, count, buf, &c);
  if (s != LOOM_OK) return s;
  auto *cp = new (std::nothrow) loom_checkpoints_s{interval, loom_type_ref(t), {}};
  if (!cp) {
    loom_type_free(t);
    loom_cursor_free(c);
    return LOOM_ERR_NOMEM;
  }
  try {
    // One pass that progresses the cursor, snapshotting as it goes.
    const int64_t total = c->cur.total();
    cp->snaps.reserve(total / interval + 1);
    for (int64_t off = 0;; off += interval) {
      cp->snaps.push_back(c->cur);
      if (total - off <= (int64_t)interval) break;
      c->cur.skip(interval);
    }
  } catch (const std::bad_alloc &) {
    delete cp;
    loom_cursor_free(c);
    return LOOM_ERR_NOMEM;
  }
  loom_cursor_free(c);
  *out = cp;
  return LOOM_OK;
}

void loom_checkpoints_free(loom_checkpoints cp) { delete cp; }
size_t loom_checkpoints_count(loom_checkpoints cp) { return cp ? cp->snaps.size() : 0; }

loom_status loom_checkpoints_restore(loom_checkpoints cp, size_t offset, loom_cursor c) {
  if (!cp || !c) return LOOM_ERR_ARG;
  if (offset > (size_t)cp->snaps[0].total()) return LOOM_ERR_RANGE;
  const loom::Cursor &snap = cp->snaps[std::min(offset / cp->interval, cp->snaps.size() - 1)];
  c->cur = snap;
  c->cur.skip(offset - snap.offset());
  return LOOM_OK;
}

}  // extern "C"
