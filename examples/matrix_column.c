/* Pack one column of a row-major matrix with a vector type, then unpack it
 * into a column of another matrix.
 *
 *   cc -std=c11 matrix_column.c -lloom -o matrix_column
 */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 1000, COLS = 300 };

#define CHECK(call)                                                        \
  do {                                                                     \
    loom_status s_ = (call);                                               \
    if (s_ != LOOM_OK) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
              loom_status_string(s_));                                     \
      return 1;                                                            \
    }                                                                      \
  } while (0)

int main(void) {
  static double a[ROWS][COLS], b[ROWS][COLS];
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j) a[i][j] = i * 1000.0 + j;

  /* One column: ROWS blocks of 1 double, COLS doubles apart. */
  loom_type dbl, column;
  CHECK(loom_type_primitive(LOOM_DOUBLE, &dbl));
  CHECK(loom_type_vector(ROWS, 1, COLS, dbl, &column));
  loom_type_free(dbl); /* the column keeps what it needs */
  CHECK(loom_type_commit(column));

  char plan[128];
  loom_type_plan_string(column, 1, plan, sizeof plan);
  printf("column of a %dx%d matrix: %lld bytes, plan %s\n", ROWS, COLS,
         (long long)loom_type_size(column), plan);

  /* Pack column 7 of a. */
  double packed[ROWS];
  size_t pos = 0;
  CHECK(loom_pack(&a[0][7], 1, column, packed, sizeof packed, &pos));
  if (pos != sizeof packed) {
    fprintf(stderr, "packed %zu bytes, expected %zu\n", pos, sizeof packed);
    return 1;
  }
  for (int i = 0; i < ROWS; ++i)
    if (packed[i] != a[i][7]) {
      fprintf(stderr, "packed[%d] = %g, expected %g\n", i, packed[i], a[i][7]);
      return 1;
    }

  /* Unpack it into column 2 of b; nothing else of b may change. */
  pos = 0;
  CHECK(loom_unpack(packed, sizeof packed, &pos, &b[0][2], 1, column));
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j) {
      double want = j == 2 ? a[i][7] : 0.0;
      if (b[i][j] != want) {
        fprintf(stderr, "b[%d][%d] = %g, expected %g\n", i, j, b[i][j], want);
        return 1;
      }
    }

  /* A too-small buffer is refused and left untouched. */
  double small[10] = {0};
  pos = 0;
  if (loom_pack(&a[0][7], 1, column, small, sizeof small, &pos) !=
          LOOM_ERR_TRUNCATE ||
      pos != 0 || small[0] != 0.0) {
    fprintf(stderr, "short buffer not refused\n");
    return 1;
  }

  loom_type_free(column);
  printf("ok\n");
  return 0;
}
