// The C API over types, plans and cursors.
#include <algorithm>
#include <cstring>

#include "api_call.hpp"
#include "bounds.hpp"
#include "cursor.hpp"
#include "type.hpp"

using loom::at;

namespace {
bool usable(loom_type t) { return t && t->committed.load(std::memory_order_acquire); }

// The checks every call that moves `count` instances of `t` starts with;
// *bytes is then the length of the packed stream.
loom_status check_message(loom_type t, int64_t count, int64_t *bytes) {
  if (!usable(t)) return LOOM_ERR_TYPE;
  if (count < 0) return LOOM_ERR_COUNT;
  return loom::message_bytes(t, count, bytes);
}

// A whole message of at least Node::timed_from bytes whose plan root has
// an alternative kernel chooses between the two by timing (Node::choice):
// two clock reads and two lock round trips, ~100 ns, are then about 1% of
// the call at most (64 KiB at FFT2D's 7 GB/s takes 9 us).

// The timed choice between a root's two kernels (out of line: most roots
// have one kernel, and small messages are never timed).
__attribute__((noinline)) void run_timed(bool pack, const loom::Node &p, char *user,
                                         char *stream, int64_t n) {
  const loom::Kernel base = pack ? p.pack : p.unpack, alt = pack ? p.pack_alt : p.unpack_alt;
  loom::TimedChoice &choice = p.choice[pack];
  const loom::TimedChoice::Call call = choice.plan();
  loom::timed(choice, call, (size_t)n, [&] {
    (call.alt ? alt : base)(p, user, stream, 0, p.count);
    return LOOM_OK;
  });
}

// Whether a whole message of n bytes runs the root's one kernel, untimed.
inline bool untimed(bool pack, const loom::Node &p, int64_t n) {
  return n < p.timed_from || !(pack ? p.pack_alt : p.unpack_alt);
}

// Runs the root kernel of `p` over the whole message of n bytes.
inline void run_root(bool pack, const loom::Node &p, char *user, char *stream, int64_t n) {
  if (__builtin_expect(untimed(pack, p, n), 1))
    (pack ? p.pack : p.unpack)(p, user, stream, 0, p.count);
  else
    run_timed(pack, p, user, stream, n);
}

__attribute__((noinline)) loom_status run_message(bool pack, char *user, int64_t count,
                                                  loom_type t, char *stream, int64_t n) {
  return loom::api_call([&] {
    const loom::PlanRef r = loom::plan_for(t, count);
    const loom::Node *p = r.node;
    run_root(pack, *p, at(user, p->off), stream, n);
    return LOOM_OK;
  });
}

// loom_pack (Pack) and loom_unpack: `count` instances of `t` at `user`,
// the packed bytes at `stream` + *position (`size` bytes in all): every
// check, then the plan.
template <bool Pack>
__attribute__((noinline)) loom_status checked_message(const void *user, int64_t count,
                                                      loom_type t, const void *stream,
                                                      size_t size, size_t *position) {
  int64_t n;
  loom_status s = check_message(t, count, &n);
  if (s != LOOM_OK) return s;
  if (!position || *position > size) return LOOM_ERR_ARG;
  if (n == 0) return LOOM_OK;
  if (!user || !stream) return LOOM_ERR_ARG;
  if ((uint64_t)n > size - *position) return LOOM_ERR_TRUNCATE;
  char *u = const_cast<char *>(static_cast<const char *>(user));
  char *at_stream = const_cast<char *>(static_cast<const char *>(stream)) + *position;
  s = run_message(Pack, u, count, t, at_stream, n);
  if (s == LOOM_OK) *position += n;
  return s;
}

// The root that a whole message of `count` instances of committed `t`
// runs untimed, where finding it costs a load or two, and *n its bytes:
// one instance (loom_type_s::one_instance), or the count first folded
// (a fold can be made before the commit: loom_type_plan_string); else
// null.
template <bool Pack>
inline const loom::Node *quick_plan(loom_type t, int64_t count, uint64_t *n) {
  if (count == 1) {
    *n = (uint64_t)t->size;
    return t->one_instance[Pack].load(std::memory_order_acquire);
  }
  const loom_type_s::Fold &f = t->folds[0];
  int64_t bytes;
  if (count < 2 || f.count.load(std::memory_order_acquire) != count ||
      !t->committed.load(std::memory_order_acquire) ||
      __builtin_mul_overflow(count, t->size, &bytes))
    return nullptr;
  const loom::Node *p = f.plan.load(std::memory_order_relaxed);
  *n = (uint64_t)bytes;
  return bytes > 0 && untimed(Pack, *p, bytes) ? p : nullptr;
}

// The same, a message of the count a program moves again and again
// first: the checks above that such a call can fail in one test, then
// the kernel, in a function that saves no register (the rest is a call
// of its own): 32 instructions of loom_pack's own against 59, and strided
// blocks of 64 bytes in all packed 1.2-1.4x faster, of 512 bytes
// 1.15-1.3x, of 2 KiB 1.01-1.08x (in-process A/B, Intel Xeon VM, one
// instance; unpacking alike); a folded count 1.17-1.33x at 64-384 bytes,
// 1.02-1.06x at 2 KiB.
template <bool Pack>
inline loom_status whole_message(const void *user, int64_t count, loom_type t,
                                 const void *stream, size_t size, size_t *position) {
  if (t && position && user && stream) {
    uint64_t n;
    if (const loom::Node *p = quick_plan<Pack>(t, count, &n)) {
      if (*position <= size && n <= size - *position) {
        char *at_stream = const_cast<char *>(static_cast<const char *>(stream)) + *position;
        *position += n;  // kernels do not throw
        (Pack ? p->pack : p->unpack)(*p, at(user, p->off), at_stream, 0, p->count);
        return LOOM_OK;
      }
    }
  }
  return checked_message<Pack>(user, count, t, stream, size, position);
}

}  // namespace

extern "C" {

loom_status loom_type_commit(loom_type t) {
  if (!t) return LOOM_ERR_TYPE;
  return loom::api_call([&] {
    const loom::Node *p = loom::type_plan(t).get();  // a failed build leaves none, to retry
    if (p && t->size > 0)
      for (bool pack : {false, true})
        if (untimed(pack, *p, t->size)) t->one_instance[pack].store(p, std::memory_order_release);
    t->committed.store(true, std::memory_order_release);
    return LOOM_OK;
  });
}

int loom_type_is_committed(loom_type t) { return usable(t); }
int64_t loom_type_size(loom_type t) { return t ? t->size : 0; }
int64_t loom_type_num_elements(loom_type t) { return t ? t->nelems : 0; }
loom_combiner loom_type_combiner(loom_type t) { return t ? t->combiner : LOOM_COMBINER_NAMED; }
int loom_type_element(loom_type t) { return t ? t->homogeneous : -1; }

int64_t loom_type_num_runs(loom_type t) {
  return usable(t) ? loom::plan_runs(loom::type_plan(t).get()) : 0;
}

void loom_type_extent(loom_type t, int64_t *lb, int64_t *extent) {
  if (lb) *lb = t ? t->lb : 0;
  if (extent) *extent = t ? t->extent() : 0;
}

void loom_type_true_extent(loom_type t, int64_t *true_lb, int64_t *true_extent) {
  if (true_lb) *true_lb = t ? t->true_lb : 0;
  if (true_extent) *true_extent = t ? t->true_ub - t->true_lb : 0;
}

int loom_type_is_contiguous(loom_type t) {
  if (!usable(t)) return 0;
  if (t->size == 0) return 1;
  // One run per instance, covering the true extent, and instances that
  // abut: then count instances are one run from the first true byte.
  const loom::NodeP &p = loom::type_plan(t);
  return p && p->kind == loom::Kind::Block && t->true_ub - t->true_lb == t->size &&
         t->extent() == t->size;
}

size_t loom_type_plan_string(loom_type t, int64_t count, char *buf, size_t bufsize) {
  int64_t bytes;
  if (!t || count < 0 || loom::message_bytes(t, count, &bytes) != LOOM_OK) return 0;
  return loom::api_value<size_t>(0, [&] {
    loom::PlanRef p = loom::plan_for(t, count);
    std::string s = loom::plan_string(p.node);
    if (buf && bufsize) {
      size_t n = std::min(bufsize - 1, s.size());
      std::memcpy(buf, s.data(), n);
      buf[n] = 0;
    }
    return s.size() + 1;
  });
}

loom_status loom_pack(const void *inbuf, int64_t count, loom_type t, void *outbuf,
                      size_t outsize, size_t *position) {
  return whole_message<true>(inbuf, count, t, outbuf, outsize, position);
}

loom_status loom_unpack(const void *inbuf, size_t insize, size_t *position,
                        void *outbuf, int64_t count, loom_type t) {
  return whole_message<false>(outbuf, count, t, inbuf, insize, position);
}

loom_status loom_cursor_create(loom_type t, int64_t count, const void *buf,
                               loom_cursor *out) {
  if (!out) return LOOM_ERR_ARG;
  int64_t n;
  loom_status s = check_message(t, count, &n);
  if (s != LOOM_OK) return s;
  if (n > 0 && !buf) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    loom::Cursor cur(loom::plan_for(t, count), buf);
    *out = new loom_cursor_s{t, std::move(cur)};
    loom_type_ref(t);  // only once nothing can fail
    return LOOM_OK;
  });
}

void loom_cursor_free(loom_cursor c) {
  if (!c) return;
  loom_type_free(c->type);
  delete c;
}

loom_status loom_cursor_copy(loom_cursor dst, loom_cursor src) {
  if (!dst || !src) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    dst->assign(src->type, src->cur);
    return LOOM_OK;
  });
}

size_t loom_cursor_total(loom_cursor c) { return c ? c->cur.total() : 0; }
size_t loom_cursor_offset(loom_cursor c) { return c ? c->cur.offset() : 0; }
size_t loom_cursor_state_bytes(loom_cursor c) { return c ? c->cur.state_bytes() : 0; }

loom_status loom_cursor_seek(loom_cursor c, size_t offset) {
  if (!c) return LOOM_ERR_ARG;
  if (offset > (size_t)c->cur.total()) return LOOM_ERR_RANGE;
  c->cur.seek(offset);
  return LOOM_OK;
}

loom_status loom_cursor_pack(loom_cursor c, void *out, size_t len, size_t *done) {
  if (!c || (!out && len) || !done) return LOOM_ERR_ARG;
  *done = c->cur.pack(static_cast<char *>(out), std::min<size_t>(len, INT64_MAX));
  return LOOM_OK;
}

loom_status loom_cursor_unpack(loom_cursor c, const void *in, size_t len, size_t *done) {
  if (!c || (!in && len) || !done) return LOOM_ERR_ARG;
  *done = c->cur.unpack(static_cast<const char *>(in), std::min<size_t>(len, INT64_MAX));
  return LOOM_OK;
}

loom_status loom_cursor_iov(loom_cursor c, loom_iov *iov, size_t max_entries,
                            size_t max_bytes, size_t *n_entries, size_t *bytes) {
  if (!c || (!iov && max_entries) || !n_entries || !bytes) return LOOM_ERR_ARG;
  *bytes = c->cur.iov(iov, max_entries, std::min<size_t>(max_bytes, INT64_MAX), n_entries);
  return LOOM_OK;
}

static loom_status range_op(bool pack, const void *userbuf, int64_t count, loom_type t,
                            size_t offset, size_t len, void *stream) {
  int64_t n;
  loom_status s = check_message(t, count, &n);
  if (s != LOOM_OK) return s;
  if (offset > (uint64_t)n || len > (uint64_t)n - offset) return LOOM_ERR_RANGE;
  if (len == 0) return LOOM_OK;
  if (!userbuf || !stream) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    loom::Cursor cur(loom::plan_for(t, count), userbuf);
    cur.seek(offset);
    if (pack) cur.pack(static_cast<char *>(stream), len);
    else cur.unpack(static_cast<const char *>(stream), len);
    return LOOM_OK;
  });
}

loom_status loom_pack_range(const void *inbuf, int64_t count, loom_type t, size_t offset,
                            size_t len, void *out) {
  return range_op(true, inbuf, count, t, offset, len, out);
}

loom_status loom_unpack_range(const void *in, size_t offset, size_t len, void *outbuf,
                              int64_t count, loom_type t) {
  return range_op(false, outbuf, count, t, offset, len, const_cast<void *>(in));
}

const char *loom_status_string(loom_status s) {
  switch (s) {
    case LOOM_OK: return "success";
    case LOOM_ERR_ARG: return "invalid argument";
    case LOOM_ERR_COUNT: return "invalid count or block length";
    case LOOM_ERR_TYPE: return "invalid or uncommitted type";
    case LOOM_ERR_TRUNCATE: return "output buffer too small";
    case LOOM_ERR_RANGE: return "offset or length outside the packed stream";
    case LOOM_ERR_NOMEM: return "out of memory";
    case LOOM_ERR_OVERFLOW: return "size or extent overflows 64 bits";
  }
  return "unknown status";
}

}  // extern "C"
