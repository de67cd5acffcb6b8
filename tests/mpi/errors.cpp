// (b) Error classes of the drop-in's MPI_Pack family under
// MPI_ERRORS_RETURN, raised through the communicator's error handler, with
// canary bytes proving nothing was written anywhere on an error.
#include <cstdint>
#include <vector>

#include "guarded.hpp"
#include "mpi_test.hpp"

using namespace loomtest;

namespace {

// An error handler that records what it was called with, then returns.
int g_handled = 0, g_last_class = 0;
void record(MPI_Comm *, int *code, ...) {
  ++g_handled;
  g_last_class = err_class(*code);
}

MPI_Comm g_comm;

// Runs f (which returns an MPI error code); expects class `cls`, exactly
// one call of the handler, and the guarded buffers untouched.
template <class F>
void expect_error(const char *what, int cls, F f, std::vector<Guarded *> bufs) {
  std::vector<std::vector<unsigned char>> before;
  for (auto *b : bufs) before.push_back(b->contents());
  int handled = g_handled;
  int rc = f();
  EXPECT_MSG(err_class(rc) == cls, "%s: class %d, expected %d", what, err_class(rc), cls);
  EXPECT_MSG(g_handled == handled + 1 && g_last_class == cls,
             "%s: handler calls %d, last class %d", what, g_handled - handled, g_last_class);
  for (size_t i = 0; i < bufs.size(); ++i) {
    EXPECT_MSG(bufs[i]->contents() == before[i], "%s: buffer %zu modified", what, i);
    EXPECT_MSG(bufs[i]->guard_error().empty(), "%s: %s", what, bufs[i]->guard_error().c_str());
  }
}

void pack_errors() {
  std::vector<int> data(64);
  for (int i = 0; i < 64; ++i) data[i] = i * 3;
  MPI_Datatype vec, uncommitted, freed;
  MPI_Type_vector(8, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Type_vector(8, 1, 2, MPI_INT, &uncommitted);
  MPI_Type_contiguous(3, MPI_DOUBLE, &freed);
  MPI_Type_commit(&freed);
  MPI_Datatype freed_copy = freed;
  MPI_Type_free(&freed);

  Guarded out(64);
  out.fill(1);
  int pos = 0;
  const int need = 32;
  auto pack = [&](const void *in, int count, MPI_Datatype t, void *o, int size, int start) {
    pos = start;
    int rc = MPI_Pack(in, count, t, o, size, &pos, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS || pos == start, "position moved on error (%d)", pos);
    return rc;
  };
  expect_error("short output buffer", MPI_ERR_TRUNCATE,
               [&] { return pack(data.data(), 1, vec, out.data(), need - 1, 0); }, {&out});
  expect_error("short output at a running position", MPI_ERR_TRUNCATE,
               [&] { return pack(data.data(), 1, vec, out.data(), need + 4, 5); }, {&out});
  expect_error("two instances, room for one", MPI_ERR_TRUNCATE,
               [&] { return pack(data.data(), 2, vec, out.data(), 48, 0); }, {&out});
  expect_error("uncommitted type", MPI_ERR_TYPE,
               [&] { return pack(data.data(), 1, uncommitted, out.data(), 64, 0); }, {&out});
  expect_error("freed type", MPI_ERR_TYPE,
               [&] { return pack(data.data(), 1, freed_copy, out.data(), 64, 0); }, {&out});
  expect_error("MPI_DATATYPE_NULL", MPI_ERR_TYPE,
               [&] { return pack(data.data(), 1, MPI_DATATYPE_NULL, out.data(), 64, 0); }, {&out});
  expect_error("negative count", MPI_ERR_COUNT,
               [&] { return pack(data.data(), -1, vec, out.data(), 64, 0); }, {&out});
  expect_error("negative outsize", MPI_ERR_ARG,
               [&] { return pack(data.data(), 1, vec, out.data(), -1, 0); }, {&out});
  expect_error("position beyond the buffer", MPI_ERR_ARG,
               [&] { return pack(data.data(), 1, vec, out.data(), 64, 65); }, {&out});
  expect_error("negative position", MPI_ERR_ARG,
               [&] { return pack(data.data(), 1, vec, out.data(), 64, -1); }, {&out});
  expect_error("null input buffer", MPI_ERR_BUFFER,
               [&] { return pack(nullptr, 1, MPI_INT, out.data(), 64, 0); }, {&out});
  expect_error("null input, derived type at 0", MPI_ERR_BUFFER,
               [&] { return pack(nullptr, 1, vec, out.data(), 64, 0); }, {&out});
  expect_error("null output buffer", MPI_ERR_BUFFER,
               [&] { return pack(data.data(), 1, vec, nullptr, 64, 0); }, {&out});
  {
    int h = g_handled;
    pos = 3;
    int rc = MPI_Pack(data.data(), 0, vec, out.data(), 3, &pos, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS && pos == 3 && g_handled == h, "count 0 at the end of the buffer");
    pos = 0;
    rc = MPI_Pack(nullptr, 0, vec, nullptr, 0, &pos, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS && pos == 0, "count 0 with null buffers");
  }
  {
    // MPI_COMM_NULL: the system's MPI_ERR_COMM (raised where it raises it).
    pos = 0;
    int rc = MPI_Pack(data.data(), 1, vec, out.data(), 64, &pos, MPI_COMM_NULL);
    EXPECT_MSG(err_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", err_class(rc));
  }

  // Unpack.
  std::vector<unsigned char> packed(64);
  pos = 0;
  EXPECT(MPI_Pack(data.data(), 1, vec, packed.data(), 64, &pos, g_comm) == MPI_SUCCESS);
  Guarded dst(256);
  dst.fill(2);
  auto unpack = [&](const void *in, int insize, int start, void *o, int count, MPI_Datatype t) {
    pos = start;
    int rc = MPI_Unpack(in, insize, &pos, o, count, t, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS || pos == start, "position moved on error (%d)", pos);
    return rc;
  };
  expect_error("unpack: short input", MPI_ERR_TRUNCATE,
               [&] { return unpack(packed.data(), need - 1, 0, dst.data(), 1, vec); }, {&dst});
  expect_error("unpack: short input at a running position", MPI_ERR_TRUNCATE,
               [&] { return unpack(packed.data(), need, 1, dst.data(), 1, vec); }, {&dst});
  expect_error("unpack: uncommitted", MPI_ERR_TYPE,
               [&] { return unpack(packed.data(), 64, 0, dst.data(), 1, uncommitted); }, {&dst});
  expect_error("unpack: freed", MPI_ERR_TYPE,
               [&] { return unpack(packed.data(), 64, 0, dst.data(), 1, freed_copy); }, {&dst});
  expect_error("unpack: negative count", MPI_ERR_COUNT,
               [&] { return unpack(packed.data(), 64, 0, dst.data(), -2, vec); }, {&dst});
  expect_error("unpack: negative insize", MPI_ERR_ARG,
               [&] { return unpack(packed.data(), -1, 0, dst.data(), 1, vec); }, {&dst});
  expect_error("unpack: position beyond input", MPI_ERR_ARG,
               [&] { return unpack(packed.data(), 64, 65, dst.data(), 1, vec); }, {&dst});
  expect_error("unpack: null output", MPI_ERR_BUFFER,
               [&] { return unpack(packed.data(), 64, 0, nullptr, 1, MPI_INT); }, {&dst});
  expect_error("unpack: null input", MPI_ERR_BUFFER,
               [&] { return unpack(nullptr, 64, 0, dst.data(), 1, vec); }, {&dst});

  // Success still works after all that, byte for byte.
  pos = 0;
  EXPECT(MPI_Unpack(packed.data(), 64, &pos, dst.data(), 1, vec, g_comm) == MPI_SUCCESS && pos == need);
  const int *got = reinterpret_cast<const int *>(dst.data());
  for (int i = 0; i < 8; ++i) EXPECT_MSG(got[2 * i] == data[2 * i], "unpacked element %d", i);

  // Freeing a named type is refused by the system; it must stay usable.
  {
    int v = 5, out4 = 0, p = 0;
    MPI_Pack(&v, 1, MPI_INT, &out4, 4, &p, g_comm);  // mirror it first
    MPI_Datatype named = MPI_INT;
    int rc = MPI_Type_free(&named);
    EXPECT_MSG(rc != MPI_SUCCESS, "MPI_Type_free(MPI_INT) succeeded");
    p = 0;
    rc = MPI_Pack(&v, 1, MPI_INT, &out4, 4, &p, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS && out4 == 5, "MPI_INT after a refused free: rc %d", rc);
  }

  MPI_Type_free(&vec);
  MPI_Type_free(&uncommitted);
}

// The external32 calls have no communicator: errors go to MPI_COMM_WORLD.
void external_errors() {
  double data[4] = {1, 2, 3, 4};
  Guarded out(64);
  out.fill(3);
  MPI_Aint pos = 0;
  auto pack = [&](int count, MPI_Datatype t, MPI_Aint size) {
    pos = 0;
    return MPI_Pack_external("external32", data, count, t, out.data(), size, &pos);
  };
  expect_error("external32: short buffer", MPI_ERR_TRUNCATE, [&] { return pack(4, MPI_DOUBLE, 31); }, {&out});
  expect_error("external32: negative count", MPI_ERR_COUNT, [&] { return pack(-1, MPI_DOUBLE, 64); }, {&out});
  expect_error("external32: null type", MPI_ERR_TYPE, [&] { return pack(1, MPI_DATATYPE_NULL, 64); }, {&out});
  MPI_Datatype u;
  MPI_Type_contiguous(2, MPI_DOUBLE, &u);
  expect_error("external32: uncommitted", MPI_ERR_TYPE, [&] { return pack(1, u, 64); }, {&out});
  MPI_Type_free(&u);
  Guarded dst(64);
  dst.fill(4);
  expect_error("unpack_external: short input", MPI_ERR_TRUNCATE, [&] {
    MPI_Aint p = 0;
    return MPI_Unpack_external("external32", out.data(), 7, &p, dst.data(), 1, MPI_DOUBLE);
  }, {&dst});
  MPI_Aint sz = 0;
  EXPECT(MPI_Pack_external_size("external32", 3, MPI_LONG, &sz) == MPI_SUCCESS && sz == 12);
}

// A handle value reused after MPI_Type_free must never find the old plan.
void handle_reuse() {
  int data[32];
  for (int i = 0; i < 32; ++i) data[i] = 100 + i;
  for (int round = 0; round < 50; ++round) {
    MPI_Datatype a;
    MPI_Type_vector(4, 1, 1 + round % 5, MPI_INT, &a);
    MPI_Type_commit(&a);
    MPI_Datatype keep = a;
    MPI_Type_free(&a);
    MPI_Datatype b, base;
    // Alternate: a fresh type committed normally, or a dup of a committed
    // type (committed without MPI_Type_commit).
    MPI_Type_vector(3, 1, 2 + round % 3, MPI_INT, &base);
    MPI_Type_commit(&base);
    if (round % 2)
      MPI_Type_dup(base, &b);
    else {
      MPI_Type_vector(3, 1, 2 + round % 3, MPI_INT, &b);
      MPI_Type_commit(&b);
    }
    int out[3] = {0, 0, 0}, pos = 0;
    int rc = MPI_Pack(data, 1, b, out, sizeof out, &pos, g_comm);
    int s = 2 + round % 3;
    EXPECT_MSG(rc == MPI_SUCCESS && pos == 12 && out[0] == 100 && out[1] == 100 + s &&
                   out[2] == 100 + 2 * s,
               "round %d (reused handle: %d): rc %d pos %d", round, b == keep, rc, pos);
    MPI_Type_free(&b);
    MPI_Type_free(&base);
  }
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!dropin_active()) {
    failf("MPI_Pack resolves to %s, not the drop-in", provider("MPI_Pack").c_str());
    return finish("errors");
  }
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(record, &eh);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_set_errhandler(g_comm, eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  pack_errors();
  external_errors();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  handle_reuse();
  MPI_Comm_free(&g_comm);
  MPI_Errhandler_free(&eh);
  return finish("errors");
}
