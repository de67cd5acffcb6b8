/* Checkpoints: several threads pack disjoint parts of one message in
 * parallel, in any order, each starting from the nearest checkpoint instead
 * of walking the type from the beginning.
 *
 *   cc -std=c11 -pthread checkpoints.c -lloom -o checkpoints
 */
#include <loom.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NTHREADS = 4, PIECE = 10000, INTERVAL = 65536 };

static loom_type g_type;
static loom_checkpoints g_cp;
static const float *g_src;
static char *g_out;
static size_t g_total, g_npieces;
static int g_failed;

/* Worker t packs pieces t, t + NTHREADS, ... (a round-robin schedule, like
 * packet handlers taking packets as they come). */
static void *worker(void *arg) {
  const size_t t = (size_t)arg;
  loom_cursor cur;
  if (loom_cursor_create(g_type, 1, g_src, &cur) != LOOM_OK) {
    g_failed = 1;
    return NULL;
  }
  for (size_t k = t; k < g_npieces; k += NTHREADS) {
    const size_t off = k * PIECE;
    const size_t len = g_total - off < PIECE ? g_total - off : PIECE;
    size_t done = 0;
    if (loom_checkpoints_restore(g_cp, off, cur) != LOOM_OK ||
        loom_cursor_pack(cur, g_out + off, len, &done) != LOOM_OK || done != len)
      g_failed = 1;
  }
  loom_cursor_free(cur);
  return NULL;
}

int main(void) {
  /* Every third float of 3 million: the x components of an array of xyz. */
  const int64_t n = 1000000;
  float *src = malloc(3 * n * sizeof *src);
  if (!src) return 1;
  for (int64_t i = 0; i < 3 * n; ++i) src[i] = (float)i;

  loom_type flt;
  if (loom_type_primitive(LOOM_FLOAT, &flt) != LOOM_OK ||
      loom_type_vector(n, 1, 3, flt, &g_type) != LOOM_OK ||
      loom_type_commit(g_type) != LOOM_OK)
    return 1;
  loom_type_free(flt);

  g_src = src;
  g_total = (size_t)loom_type_size(g_type);
  g_npieces = (g_total + PIECE - 1) / PIECE;
  g_out = malloc(g_total);
  char *whole = malloc(g_total);
  if (!g_out || !whole) return 1;
  size_t pos = 0;
  if (loom_pack(src, 1, g_type, whole, g_total, &pos) != LOOM_OK) return 1;

  /* Snapshots every INTERVAL bytes: built once, shared read-only by all the
   * workers. */
  if (loom_checkpoints_create(g_type, 1, src, INTERVAL, &g_cp) != LOOM_OK) return 1;
  printf("%zu bytes, %zu checkpoints, %zu pieces over %d threads\n", g_total,
         loom_checkpoints_count(g_cp), g_npieces, NTHREADS);

  pthread_t th[NTHREADS];
  for (size_t t = 0; t < NTHREADS; ++t)
    if (pthread_create(&th[t], NULL, worker, (void *)t) != 0) return 1;
  for (size_t t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);

  if (g_failed || memcmp(g_out, whole, g_total) != 0) {
    fprintf(stderr, "parallel pack differs from the whole pack\n");
    return 1;
  }
  for (int64_t i = 0; i < n; ++i) {
    float v;
    memcpy(&v, g_out + 4 * i, 4);
    if (v != src[3 * i]) {
      fprintf(stderr, "element %lld = %g, expected %g\n", (long long)i, v, src[3 * i]);
      return 1;
    }
  }

  loom_checkpoints_free(g_cp);
  loom_type_free(g_type);
  free(src), free(g_out), free(whole);
  printf("ok\n");
  return 0;
}
