/* Partial packing with a cursor: send the interior of a 3D grid through a
 * small staging buffer, chunk by chunk, as a message layer would; then unpack
 * the chunks in reverse order (a cursor can seek anywhere in the stream).
 *
 *   cc -std=c11 partial_pack.c -lloom -o partial_pack
 */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    loom_status s_ = (call);                                               \
    if (s_ != LOOM_OK) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
              loom_status_string(s_));                                     \
      return 1;                                                            \
    }                                                                      \
  } while (0)

enum { N = 40, HALO = 2, CHUNK = 4000 }; /* CHUNK: not a multiple of 8 */

int main(void) {
  const size_t cells = (size_t)N * N * N;
  double *grid = malloc(cells * sizeof *grid);
  double *copy = malloc(cells * sizeof *copy);
  if (!grid || !copy) return 1;
  for (size_t i = 0; i < cells; ++i) grid[i] = (double)i;

  /* The interior: a subarray without a halo of 2 cells on every side. */
  loom_type dbl, interior;
  int64_t sizes[3] = {N, N, N}, sub[3] = {N - 2 * HALO, N - 2 * HALO, N - 2 * HALO},
          starts[3] = {HALO, HALO, HALO};
  CHECK(loom_type_primitive(LOOM_DOUBLE, &dbl));
  CHECK(loom_type_subarray(3, sizes, sub, starts, LOOM_ORDER_C, dbl, &interior));
  loom_type_free(dbl);
  CHECK(loom_type_commit(interior));

  /* The reference: the whole stream in one call. */
  const size_t total = (size_t)loom_type_size(interior);
  char *whole = malloc(total), *stream = malloc(total);
  if (!whole || !stream) return 1;
  size_t pos = 0;
  CHECK(loom_pack(grid, 1, interior, whole, total, &pos));

  /* Sender: pack CHUNK bytes at a time; each call resumes where the last
   * one stopped. */
  loom_cursor cur;
  CHECK(loom_cursor_create(interior, 1, grid, &cur));
  if (loom_cursor_total(cur) != total) return 1;
  char staging[CHUNK];
  size_t sent = 0, chunks = 0;
  while (loom_cursor_offset(cur) < total) {
    size_t done = 0;
    CHECK(loom_cursor_pack(cur, staging, sizeof staging, &done));
    memcpy(stream + sent, staging, done); /* "send" the chunk */
    sent += done;
    ++chunks;
  }
  loom_cursor_free(cur);
  if (sent != total || memcmp(stream, whole, total) != 0) {
    fprintf(stderr, "chunked stream differs from the whole pack\n");
    return 1;
  }
  printf("packed %zu bytes in %zu chunks of at most %d bytes\n", total, chunks,
         CHUNK);

  /* Receiver: chunks arrive last first; seek to each one's offset. */
  for (size_t i = 0; i < cells; ++i) copy[i] = -1.0;
  loom_cursor rcur;
  CHECK(loom_cursor_create(interior, 1, copy, &rcur));
  for (size_t c = chunks; c-- > 0;) {
    size_t off = c * CHUNK, len = total - off < CHUNK ? total - off : CHUNK;
    size_t done = 0;
    CHECK(loom_cursor_seek(rcur, off));
    CHECK(loom_cursor_unpack(rcur, stream + off, len, &done));
    if (done != len) return 1;
  }
  loom_cursor_free(rcur);

  /* The interior arrived, the halo was not touched. */
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) {
        size_t i = ((size_t)z * N + y) * N + x;
        int inside = z >= HALO && z < N - HALO && y >= HALO && y < N - HALO &&
                     x >= HALO && x < N - HALO;
        double want = inside ? grid[i] : -1.0;
        if (copy[i] != want) {
          fprintf(stderr, "cell (%d,%d,%d) = %g, expected %g\n", z, y, x,
                  copy[i], want);
          return 1;
        }
      }

  /* One-call form of the same thing: any byte range of the stream. */
  char piece[123];
  CHECK(loom_pack_range(grid, 1, interior, 5001, sizeof piece, piece));
  if (memcmp(piece, whole + 5001, sizeof piece) != 0) return 1;

  loom_type_free(interior);
  free(grid), free(copy), free(whole), free(stream);
  printf("ok\n");
  return 0;
}
