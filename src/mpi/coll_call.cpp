// Staging, system hand-off and completion of a staged collective.
#include "coll_call.hpp"

#include "errors.hpp"

#include <vector>

namespace loom_mpi {
namespace coll {

bool Intra::open(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || !comm_enabled()) return false;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return false;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
         PMPI_Comm_size(comm, &size) == MPI_SUCCESS;
}

Call::~Call() {
  if (op_) op_discard(op_);
  if (sides_) give_sides(std::move(sides_));
}

namespace {
// A thread's spare sides: as many as it has collectives of different
// shapes in flight, within reason.  `t_gone` (trivially destructible, so
// readable while the thread exits) says the list is destroyed: an op
// released after that frees its sides.
constexpr size_t kSpareSides = 4;
thread_local bool t_gone = false;
template <class S>
struct Spare {
  std::vector<std::unique_ptr<S>> list;
  ~Spare() { t_gone = true; }
};
template <class S>
std::vector<std::unique_ptr<S>> *spare_sides() {
  if (t_gone) return nullptr;
  thread_local Spare<S> spare;
  return &spare.list;
}
}  // namespace

std::unique_ptr<Call::Sides> Call::take_sides() {
  auto *spare = spare_sides<Sides>();
  if (!spare || spare->empty()) return std::make_unique<Sides>();
  std::unique_ptr<Sides> s = std::move(spare->back());
  spare->pop_back();
  return s;
}

void Call::give_sides(std::unique_ptr<Sides> s) {
  auto *spare = spare_sides<Sides>();
  if (spare && spare->size() < kSpareSides) spare->push_back(std::move(s));
}

int Call::plan(const SideSpec &send, const SideSpec &recv) {
  int rc = plan_side(send, false, &sides_->send);
  if (rc == MPI_SUCCESS) rc = plan_side(recv, true, &sides_->recv);
  return rc;
}

bool Call::start() {
  Staged &s = sides_->send, &r = sides_->recv;
  const bool rstaged = r.on && !r.direct;
  // The receive stream starts on a cache line of its own.
  const size_t roff = s.on ? (s.total + 63) & ~size_t(63) : 0;
  op_ = op_new(PendingOp::kColl, comm_);
  if (op_stage(op_, roff + (rstaged ? r.total : 0)) != MPI_SUCCESS) return false;
  char *base = op_->staging.data;
  if (s.on) s.data = base;
  if (rstaged) r.data = base + roff;
  return !s.on || pack_blocks(s) == MPI_SUCCESS;
}

bool Call::prepack_recv(int only) {
  return pack_blocks(sides_->recv, only) == MPI_SUCCESS;
}

void Call::free_sides(PendingOp &op, MPI_Status *) {
  give_sides(std::unique_ptr<Sides>(static_cast<Sides *>(op.ctx)));
  op.ctx = nullptr;
}

int Call::finish(int rc) {
  if (rc != MPI_SUCCESS) return rc;  // the system raised it; ~Call frees
  const Staged &r = sides_->recv;
  if (!req_) {
    int u = r.on ? unpack_blocks(r) : MPI_SUCCESS;
    if (u != MPI_SUCCESS) {
      note("collective: unpacking the received blocks failed");
      return raise(comm_, u);
    }
    return MPI_SUCCESS;
  }
  // Nonblocking: the steps refer into staging by offset; the wire arrays
  // the system may still read move with the op (a vector's move keeps its
  // storage, so the pointers the system holds stay valid).
  if (r.on && !r.direct) {
    const size_t roff = (size_t)(r.data - op_->staging.data);
    for (const Block &b : r.blocks)
      if (!b.skip && b.side.type) op_add_unpack(op_, roff + b.off, b.side);
  }
  op_->ctx = sides_.release();
  op_->on_release = free_sides;
  op_register(op_, *req_, true);
  op_ = nullptr;
  return MPI_SUCCESS;
}

}  // namespace coll
}  // namespace loom_mpi
