// Cursor snapshots every `interval` bytes: a worker handed any offset starts
// from the nearest snapshot at or before it and catches up by skipping, so
// disjoint ranges of one message can be processed in parallel, in any order.
#include <algorithm>
#include <memory>
#include <vector>

#include "api_call.hpp"
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
  s = loom::api_call([&] {
    std::unique_ptr<loom_checkpoints_s> cp(new loom_checkpoints_s{interval, nullptr, {}});
    // One pass that progresses the cursor, snapshotting as it goes.
    const int64_t total = c->cur.total();
    cp->snaps.reserve(total / interval + 1);
    for (int64_t off = 0;; off += interval) {
      cp->snaps.push_back(c->cur);
      if ((uint64_t)(total - off) <= interval) break;  // any size_t interval
      c->cur.skip(interval);
    }
    cp->type = loom_type_ref(t);  // only once nothing can fail
    *out = cp.release();
    return LOOM_OK;
  });
  loom_cursor_free(c);
  return s;
}

void loom_checkpoints_free(loom_checkpoints cp) { delete cp; }
size_t loom_checkpoints_count(loom_checkpoints cp) { return cp ? cp->snaps.size() : 0; }

loom_status loom_checkpoints_restore(loom_checkpoints cp, size_t offset, loom_cursor c) {
  if (!cp || !c) return LOOM_ERR_ARG;
  if (offset > (size_t)cp->snaps[0].total()) return LOOM_ERR_RANGE;
  const loom::Cursor &snap = cp->snaps[std::min(offset / cp->interval, cp->snaps.size() - 1)];
  return loom::api_call([&] {
    // The cursor now walks cp's plans: it holds cp's type from here on.
    c->assign(cp->type, snap);
    c->cur.skip(offset - snap.offset());
    return LOOM_OK;
  });
}

}  // extern "C"
