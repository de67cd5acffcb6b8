/* Packing and unpacking one large message on several threads.
 *
 * A 3D array of doubles, 256 x 256 x 256, and its y-z face at x = 0: one
 * double every 2 KiB of memory, 512 KiB of data that a single thread moves
 * at the speed of cache misses.  loom_pack_parallel() cuts the packed stream
 * at checkpoints (made once per type and count, cached) and lets a pool of
 * threads take the pieces; threads = 0 lets Loom choose from the message
 * size, which keeps small messages on one thread.  The bytes are those of
 * loom_pack(), checked here.
 *
 *   cc parallel_pack.c -lloom && ./a.out
 */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

int main(void) {
  double *grid = malloc(sizeof(double) * N * N * N);
  double *copy = calloc((size_t)N * N * N, sizeof(double));
  if (!grid || !copy) return 1;
  for (size_t i = 0; i < (size_t)N * N * N; ++i) grid[i] = (double)i;

  /* The face x = 0 of grid[z][y][x]: N * N doubles, N apart. */
  loom_type d, face;
  loom_type_primitive(LOOM_DOUBLE, &d);
  if (loom_type_vector(N * N, 1, N, d, &face) != LOOM_OK || loom_type_commit(face) != LOOM_OK)
    return 1;
  const size_t bytes = (size_t)loom_type_size(face);

  char *one = malloc(bytes), *many = malloc(bytes);
  size_t p1 = 0, p2 = 0;
  if (loom_pack(grid, 1, face, one, bytes, &p1) != LOOM_OK) return 1;
  /* 2 threads at most; Loom may use fewer for a small message. */
  loom_status s = loom_pack_parallel(grid, 1, face, many, bytes, &p2, 2);
  if (s != LOOM_OK || p2 != bytes || memcmp(one, many, bytes) != 0) {
    fprintf(stderr, "parallel pack differs: %s\n", loom_status_string(s));
    return 1;
  }

  /* Unpack into another array, threads chosen by Loom. */
  size_t pos = 0;
  s = loom_unpack_parallel(many, bytes, &pos, copy, 1, face, 0);
  for (size_t z = 0; s == LOOM_OK && z < N; ++z)
    for (size_t y = 0; y < N; ++y)
      if (copy[(z * N + y) * N] != grid[(z * N + y) * N]) s = LOOM_ERR_ARG;
  if (s != LOOM_OK) {
    fprintf(stderr, "parallel unpack differs\n");
    return 1;
  }
  printf("face of %zu KiB packed and unpacked; %d thread(s) chosen for it; "
         "checkpoint cache holds %zu bytes\n",
         bytes >> 10, loom_parallel_threads(bytes), loom_checkpoint_cache_bytes());

  loom_type_free(face);
  loom_type_free(d);
  free(one);
  free(many);
  free(grid);
  free(copy);
  return 0;
}
