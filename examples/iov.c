/* iovec generation: describe where the bytes of a message live, without
 * copying them, for a gather/scatter engine (writev, process_vm_readv, a NIC
 * work request).  Entries come in batches bounded by an entry count, as such
 * engines require (IOV_MAX, scatter-gather list limits).
 *
 *   cc -std=c11 iov.c -lloom -o iov
 */
#include <loom.h>
#include <stddef.h>
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

/* A particle record; only position and charge travel. */
struct particle {
  double pos[3];
  float charge;
  int id;        /* not sent */
  double vel[3]; /* not sent */
};

enum { NPART = 1000, BATCH = 16 };

int main(void) {
  static struct particle p[NPART];
  for (int i = 0; i < NPART; ++i) {
    for (int k = 0; k < 3; ++k) p[i].pos[k] = i + k / 10.0, p[i].vel[k] = -1;
    p[i].charge = (float)i / 7.0f;
    p[i].id = i;
  }

  /* struct {pos, charge}, resized to the record so that count = NPART walks
   * the array. */
  loom_type dbl, flt, rec, sent;
  CHECK(loom_type_primitive(LOOM_DOUBLE, &dbl));
  CHECK(loom_type_primitive(LOOM_FLOAT, &flt));
  int64_t bl[2] = {3, 1};
  int64_t dp[2] = {offsetof(struct particle, pos), offsetof(struct particle, charge)};
  loom_type ty[2] = {dbl, flt};
  CHECK(loom_type_struct(2, bl, dp, ty, LOOM_BOUNDS_STANDARD, &rec));
  CHECK(loom_type_resized(rec, 0, sizeof(struct particle), &sent));
  loom_type_free(dbl), loom_type_free(flt), loom_type_free(rec);
  CHECK(loom_type_commit(sent));

  const size_t total = (size_t)loom_type_size(sent) * NPART;
  char *whole = malloc(total), *gathered = malloc(total);
  if (!whole || !gathered) return 1;
  size_t pos = 0;
  CHECK(loom_pack(p, NPART, sent, whole, total, &pos));

  /* Walk the message in batches of at most BATCH entries and gather each
   * batch (a real engine would hand the batch to writev or the NIC). */
  loom_cursor cur;
  CHECK(loom_cursor_create(sent, NPART, p, &cur));
  loom_iov iov[BATCH];
  size_t off = 0, batches = 0, entries = 0;
  for (;;) {
    size_t n = 0, bytes = 0;
    CHECK(loom_cursor_iov(cur, iov, BATCH, (size_t)-1, &n, &bytes));
    if (n == 0) break;
    size_t covered = 0;
    for (size_t i = 0; i < n; ++i) {
      memcpy(gathered + off + covered, iov[i].base, iov[i].len);
      covered += iov[i].len;
    }
    if (covered != bytes) {
      fprintf(stderr, "batch covers %zu bytes, reported %zu\n", covered, bytes);
      return 1;
    }
    off += bytes;
    entries += n;
    ++batches;
  }
  loom_cursor_free(cur);
  if (off != total || memcmp(gathered, whole, total) != 0) {
    fprintf(stderr, "gathered bytes differ from the packed stream\n");
    return 1;
  }
  /* pos[3] and charge are adjacent in memory (24 + 4 bytes): their pieces
   * are merged into one entry per particle. */
  printf("%zu bytes in %zu entries, %zu batches of at most %d\n", total, entries,
         batches, BATCH);
  if (entries != NPART) {
    fprintf(stderr, "expected %d entries (adjacent pieces merged)\n", NPART);
    return 1;
  }

  /* A byte budget per batch also works (e.g. a maximum transfer size). */
  CHECK(loom_cursor_create(sent, NPART, p, &cur));
  CHECK(loom_cursor_seek(cur, 1000));
  size_t n = 0, bytes = 0;
  CHECK(loom_cursor_iov(cur, iov, BATCH, 100, &n, &bytes));
  size_t covered = 0;
  for (size_t i = 0; i < n; ++i) {
    if (memcmp(iov[i].base, whole + 1000 + covered, iov[i].len) != 0) return 1;
    covered += iov[i].len;
  }
  if (bytes != 100 || covered != 100) {
    fprintf(stderr, "byte-bounded batch covered %zu bytes\n", covered);
    return 1;
  }
  loom_cursor_free(cur);

  loom_type_free(sent);
  free(whole), free(gathered);
  printf("ok\n");
  return 0;
}
