// Completion calls: MPI_Wait/Test (and -all, -any, -some) and
// MPI_Request_get_status.  With no Loom op in the process they are the
// system's calls behind one atomic load.  Otherwise the Loom ops among the
// requests are claimed first (requests.hpp: the handles are certainly live
// then), the system call runs (with internal statuses where the program
// passed MPI_STATUS(ES)_IGNORE and a receive needs its byte count), and the
// ops the system reports complete are finished here: unpacked, staging
// released, before the program sees the completion.
#include "l2l.hpp"
#include "p2p.hpp"

#include <vector>

using namespace loom_mpi;

namespace {

// Per-call arrays, on the stack for the common small counts.
template <class T, int N = 16>
struct Scratch {
  T inline_[N];
  std::vector<T> heap_;
  T *p;
  explicit Scratch(int n) : p(inline_) {
    if (n > N) {
      heap_.resize((size_t)n);
      p = heap_.data();
    }
  }
  T &operator[](int i) { return p[i]; }
};

// The outcome of request i after a multi-request call returned rc.
inline int outcome(int rc, const MPI_Status *st) {
  return rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc;
}

// Whether op's request finished although the call failed: the system sets a
// completed nonblocking request to MPI_REQUEST_NULL; a failing call that
// left the handle alone (a bad argument) did not complete it.
inline bool finished_despite(int rc, const PendingOp *op, MPI_Request now) {
  if (rc == MPI_SUCCESS) return true;
  if (rc == MPI_ERR_IN_STATUS) return true;
  return op->persistent || op->sys_persistent || now == MPI_REQUEST_NULL;
}

// After complete(): the first Loom failure becomes the call's error.
inline int merge(int rc, int lrc, MPI_Comm comm) {
  return rc == MPI_SUCCESS && lrc != MPI_SUCCESS ? raise(comm, lrc) : rc;
}

// The same for a call that completed `n` requests with statuses st (the
// -all and -some calls): a Loom failure (already in its status) makes it
// MPI_ERR_IN_STATUS, as the system reports a failed request among several,
// with MPI_SUCCESS in the statuses of the others.
int merge_in_status(int rc, int lrc, MPI_Comm comm, MPI_Status *st, int n,
                    const char *failed) {
  if (rc != MPI_SUCCESS || lrc == MPI_SUCCESS) return rc;
  for (int i = 0; i < n; ++i)
    if (!failed[i]) st[i].MPI_ERROR = MPI_SUCCESS;
  return raise(comm, MPI_ERR_IN_STATUS);
}

// Status array for n requests: the program's, or internal ones.
struct Statuses {
  Scratch<MPI_Status> own;
  MPI_Status *p;
  Statuses(int n, MPI_Status *user)
      : own(user == MPI_STATUSES_IGNORE ? n : 0),
        p(user == MPI_STATUSES_IGNORE ? own.p : user) {}
};

// Multi-request completion for the -all calls: finish every claimed op
// that the call completed, release the others' claims.
int finish_all(int n, PendingOp **ops, MPI_Request *reqs,
               MPI_Status *st, int rc, bool completed) {
  int lrc = MPI_SUCCESS;
  MPI_Comm comm = MPI_COMM_WORLD;
  Scratch<char> failed(n);
  for (int i = 0; i < n; ++i) {
    failed[i] = false;
    PendingOp *op = ops[i];
    if (!op) continue;
    int e = outcome(rc, &st[i]);
    if (!completed || e == MPI_ERR_PENDING || !finished_despite(rc, op, reqs[i])) {
      unclaim(op);
      continue;
    }
    MPI_Comm c = op->comm;
    int r = complete(op, &st[i], e, &reqs[i]);
    failed[i] = r != MPI_SUCCESS;
    if (r != MPI_SUCCESS && lrc == MPI_SUCCESS) {
      lrc = r;
      comm = c;
    }
  }
  return completed ? merge_in_status(rc, lrc, comm, st, n, failed.p) : merge(rc, lrc, comm);
}

// The -some calls: finish the ops at the reported indices.
// `some`: a -some call (statuses per completed request; a failure makes
// it MPI_ERR_IN_STATUS), else an -any call (one status, the error itself).
int finish_some(int n, PendingOp **ops, MPI_Request *reqs, int outcount,
                const int *idx, MPI_Status *st, int rc, bool some) {
  int lrc = MPI_SUCCESS;
  MPI_Comm comm = MPI_COMM_WORLD;
  int done = outcount == MPI_UNDEFINED ? 0 : outcount;
  Scratch<char> failed(done);
  for (int j = 0; j < done; ++j) {
    failed[j] = false;
    int i = idx[j];
    if (i < 0 || i >= n || !ops[i]) continue;
    PendingOp *op = ops[i];
    ops[i] = nullptr;
    MPI_Comm c = op->comm;
    int r = complete(op, &st[j], outcome(rc, &st[j]), &reqs[i]);
    failed[j] = r != MPI_SUCCESS;
    if (r != MPI_SUCCESS && lrc == MPI_SUCCESS) {
      lrc = r;
      comm = c;
    }
  }
  for (int i = 0; i < n; ++i)
    if (ops[i]) unclaim(ops[i]);
  return some ? merge_in_status(rc, lrc, comm, st, done, failed.p) : merge(rc, lrc, comm);
}

inline bool pulls(const PendingOp *op) { return op && pulls_blocks(*op); }

// Before a blocking system wait on reqs[0..n) (all of them, or any one)
// whose claimed ops include a Loom-to-Loom collective: waits by polling
// instead, until the system wait would return at once, moving each such
// op's blocks as soon as its own request completes, and those of this
// process's other pending collectives too.  A peer starting a later
// collective may be waiting for the slots those pulls free
// (l2l_coll.cpp); a system wait for every request would wait for that
// peer in turn: 1000 outstanding MPI_Ialltoallw among 3 ranks and one
// MPI_Waitall hung that way.  pull_ready() is one pass of that wait (true:
// the system call would return at once); the Test calls make one, since
// a program may spin on MPI_Testall while a peer waits for those pulls.
bool pull_ready(int n, PendingOp **ops, MPI_Request *reqs, bool all) {
  int active = 0, done = 0;
  for (int i = 0; i < n; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    ++active;
    int flag = 0;
    MPI_Status st;
    const int rc = PMPI_Request_get_status(reqs[i], &flag, &st);
    if (!flag) continue;
    ++done;
    if (pulls(ops[i])) finish_early(ops[i], &st, rc);
  }
  if (all ? done == active : done > 0 || active == 0) return true;
  progress();
  peek_collectives();
  return false;
}

bool any_pulls(int n, PendingOp **ops) {
  for (int i = 0; i < n; ++i)
    if (pulls(ops[i])) return true;
  return false;
}

void pull_while_waiting(int n, PendingOp **ops, MPI_Request *reqs, bool all) {
  if (!any_pulls(n, ops)) return;
  for (unsigned spins = 0; !pull_ready(n, ops, reqs, all);) l2l::wait_step(spins);
}

// The Test calls' one pass.
void pull_once(int n, PendingOp **ops, MPI_Request *reqs, bool all) {
  if (any_pulls(n, ops)) pull_ready(n, ops, reqs, all);
}

// Single request: Wait or Test (test != nullptr).
template <class Sys>
int one(MPI_Request *req, int *flag, MPI_Status *status, Sys sys) {
  PendingOp *op = claim_one(*req);
  if (!op) return sys(req, flag, status);
  MPI_Status tmp;
  MPI_Status *st = status_or(status, &tmp);
  int done = 1;
  if (flag) pull_once(1, &op, req, true);
  else pull_while_waiting(1, &op, req, true);
  int rc = sys(req, flag ? flag : &done, st);
  if ((flag && !*flag) || !finished_despite(rc, op, *req)) {
    unclaim(op);
    return rc;
  }
  MPI_Comm comm = op->comm;
  return merge(rc, complete(op, st, rc, req), comm);
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    l2l::WaitScope wait;  // sends may wait for their pulls
    if (!ops_live() || !req) return PMPI_Wait(req, status);
    return one(req, nullptr, status, [](MPI_Request *r, int *, MPI_Status *s) {
      return PMPI_Wait(r, s);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || !req || !flag) return PMPI_Test(req, flag, status);
    return one(req, flag, status, [](MPI_Request *r, int *f, MPI_Status *s) {
      return PMPI_Test(r, f, s);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Request_get_status(MPI_Request req, int *flag,
                                           MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || !flag) return PMPI_Request_get_status(req, flag, status);
    PendingOp *op = claim_one(req);
    if (!op) return PMPI_Request_get_status(req, flag, status);
    MPI_Status tmp;
    MPI_Status *st = status_or(status, &tmp);
    int rc = PMPI_Request_get_status(req, flag, st);
    if (!*flag) {
      unclaim(op);
      return rc;
    }
    // Complete: the program may read the buffer now, so unpack now (once);
    // the later Wait/Test/Request_free retires the op.
    MPI_Comm comm = op->comm;
    return merge(rc, complete_peek(op, st, rc), comm);
  });
}

LOOM_MPI_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    l2l::WaitScope wait;  // sends may wait for their pulls
    if (!ops_live() || n <= 0 || !reqs) return PMPI_Waitall(n, reqs, statuses);
    Scratch<PendingOp *> ops(n);
    if (!claim(reqs, n, ops.p)) return PMPI_Waitall(n, reqs, statuses);
    Statuses st(n, statuses);
    pull_while_waiting(n, ops.p, reqs, true);
    int rc = PMPI_Waitall(n, reqs, st.p);
    return finish_all(n, ops.p, reqs, st.p, rc, true);
  });
}

LOOM_MPI_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag,
                                MPI_Status statuses[]) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || n <= 0 || !reqs || !flag)
      return PMPI_Testall(n, reqs, flag, statuses);
    Scratch<PendingOp *> ops(n);
    if (!claim(reqs, n, ops.p)) return PMPI_Testall(n, reqs, flag, statuses);
    Statuses st(n, statuses);
    pull_once(n, ops.p, reqs, true);
    int rc = PMPI_Testall(n, reqs, flag, st.p);
    // A false flag leaves every request untouched (MPI: none is completed);
    // with an error in a status the completed ones are reported there.
    return finish_all(n, ops.p, reqs, st.p, rc, *flag || rc == MPI_ERR_IN_STATUS);
  });
}

LOOM_MPI_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *index,
                                MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    l2l::WaitScope wait;  // sends may wait for their pulls
    if (!ops_live() || n <= 0 || !reqs || !index)
      return PMPI_Waitany(n, reqs, index, status);
    Scratch<PendingOp *> ops(n);
    if (!claim(reqs, n, ops.p)) return PMPI_Waitany(n, reqs, index, status);
    MPI_Status tmp;
    MPI_Status *st = status_or(status, &tmp);
    pull_while_waiting(n, ops.p, reqs, false);
    int rc = PMPI_Waitany(n, reqs, index, st);
    int k = *index;
    if (k != MPI_UNDEFINED && k >= 0 && k < n && ops[k] &&
        finished_despite(rc, ops[k], reqs[k]))
      return finish_some(n, ops.p, reqs, 1, &k, st, rc, false);
    return finish_some(n, ops.p, reqs, 0, nullptr, st, rc, false);
  });
}

LOOM_MPI_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag,
                                MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || n <= 0 || !reqs || !index || !flag)
      return PMPI_Testany(n, reqs, index, flag, status);
    Scratch<PendingOp *> ops(n);
    if (!claim(reqs, n, ops.p)) return PMPI_Testany(n, reqs, index, flag, status);
    MPI_Status tmp;
    MPI_Status *st = status_or(status, &tmp);
    pull_once(n, ops.p, reqs, false);
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    int k = *index;
    if (*flag && k != MPI_UNDEFINED && k >= 0 && k < n && ops[k] &&
        finished_despite(rc, ops[k], reqs[k]))
      return finish_some(n, ops.p, reqs, 1, &k, st, rc, false);
    return finish_some(n, ops.p, reqs, 0, nullptr, st, rc, false);
  });
}

LOOM_MPI_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount,
                                 int indices[], MPI_Status statuses[]) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    l2l::WaitScope wait;  // sends may wait for their pulls
    if (!ops_live() || n <= 0 || !reqs || !outcount || !indices)
      return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    Scratch<PendingOp *> ops(n);
    if (!claim(reqs, n, ops.p))
      return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    Statuses st(n, statuses);
    pull_while_waiting(n, ops.p, reqs, false);
    int rc = PMPI_Waitsome(n, reqs, outcount, indices, st.p);
    return finish_some(n, ops.p, reqs, *outcount, indices, st.p, rc, true);
  });
}

LOOM_MPI_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int *outcount,
                                 int indices[], MPI_Status statuses[]) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || n <= 0 || !reqs || !outcount || !indices)
      return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    Scratch<PendingOp *> ops(n);
    if (!claim(reqs, n, ops.p))
      return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    Statuses st(n, statuses);
    pull_once(n, ops.p, reqs, false);
    int rc = PMPI_Testsome(n, reqs, outcount, indices, st.p);
    return finish_some(n, ops.p, reqs, *outcount, indices, st.p, rc, true);
  });
}
