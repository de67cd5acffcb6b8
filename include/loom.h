/**
 * @file loom.h
 * @brief Loom's native C API: MPI-exact derived datatypes, compiled pack
 *        plans, and resumable partial processing, without MPI.
 *
 * A loom_type is an immutable, reference-counted description built by
 * constructors that mirror MPI's (same arguments, same size/extent/lb
 * semantics, displacements in bytes for the h-forms and in extents of the
 * old type otherwise).  loom_type_commit() compiles it into a plan; every
 * pack, unpack and iov operation needs a committed type.  The packed stream
 * is always in MPI typemap order, byte-identical to MPI_Pack.
 *
 * All functions return LOOM_OK (0) or a loom_status error code and never
 * write outside the buffers and sizes they are given.  Types are safe to
 * share between threads once committed; a cursor belongs to one thread.
 *
 * Failure leaves everything as it was: a call that fails (running out of
 * memory included: LOOM_ERR_NOMEM) has created, changed and leaked nothing,
 * and every handle it was given stays valid.  No C++ exception leaves a
 * loom_* function.
 *
 * Null buffers: a call that has bytes to move rejects a null buffer with
 * LOOM_ERR_ARG; a call with nothing to move (count 0, an empty type, an
 * empty range) accepts one.  A null user buffer is never MPI_BOTTOM: to
 * address absolute memory, take a real address as the base and build the
 * type's displacements relative to it.
 */
#ifndef LOOM_H
#define LOOM_H

#include <stddef.h>
#include <stdint.h>

/** @name Version
 *  The release these declarations belong to.  CMakeLists.txt reads its
 *  project version from these lines, so the CMake package, loom.pc and the
 *  shared library's SONAME all follow them.
 *  @{ */
#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
/** "MAJOR.MINOR.PATCH" of the three numbers above. */
#define LOOM_VERSION "0.1.0"
/** @} */

/** Marks the functions libloom.so exports.  The library is compiled with
 *  hidden visibility, so only what carries this macro (the loom_* C API)
 *  leaves it. */
#if defined(__GNUC__) || defined(__clang__)
#define LOOM_API __attribute__((visibility("default")))
#else
#define LOOM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by every call. */
typedef enum loom_status {
  LOOM_OK = 0,
  LOOM_ERR_ARG,      /**< invalid argument (null pointer, bad enum, bad dims) */
  LOOM_ERR_COUNT,    /**< negative count or block length */
  LOOM_ERR_TYPE,     /**< null or uncommitted type where a committed one is needed */
  LOOM_ERR_TRUNCATE, /**< output buffer too small; nothing past it was written */
  LOOM_ERR_RANGE,    /**< offset/length outside the packed stream */
  LOOM_ERR_NOMEM,    /**< allocation failed; nothing was changed */
  LOOM_ERR_OVERFLOW  /**< a size, an extent, or the span of memory a message
                          covers does not fit in 64 bits */
} loom_status;

/** Opaque, immutable, reference-counted type handle. */
typedef struct loom_type_s *loom_type;

/** Primitive element kinds (the MPI predefined types, by C/Fortran meaning). */
typedef enum loom_prim {
  LOOM_CHAR, LOOM_SIGNED_CHAR, LOOM_UNSIGNED_CHAR, LOOM_BYTE, LOOM_PACKED,
  LOOM_SHORT, LOOM_UNSIGNED_SHORT, LOOM_INT, LOOM_UNSIGNED, LOOM_LONG,
  LOOM_UNSIGNED_LONG, LOOM_LONG_LONG, LOOM_UNSIGNED_LONG_LONG, LOOM_FLOAT,
  LOOM_DOUBLE, LOOM_LONG_DOUBLE, LOOM_WCHAR, LOOM_C_BOOL, LOOM_INT8_T,
  LOOM_INT16_T, LOOM_INT32_T, LOOM_INT64_T, LOOM_UINT8_T, LOOM_UINT16_T,
  LOOM_UINT32_T, LOOM_UINT64_T, LOOM_AINT, LOOM_OFFSET, LOOM_COUNT,
  LOOM_C_FLOAT_COMPLEX, LOOM_C_DOUBLE_COMPLEX, LOOM_C_LONG_DOUBLE_COMPLEX,
  LOOM_CXX_BOOL,
  /* Fortran kinds as gfortran lays them out */
  LOOM_F_CHARACTER, LOOM_F_INTEGER, LOOM_F_REAL, LOOM_F_DOUBLE_PRECISION,
  LOOM_F_COMPLEX, LOOM_F_DOUBLE_COMPLEX, LOOM_F_LOGICAL,
  LOOM_F_INTEGER1, LOOM_F_INTEGER2, LOOM_F_INTEGER4, LOOM_F_INTEGER8,
  LOOM_F_REAL4, LOOM_F_REAL8, LOOM_F_REAL16,
  /* pair types used by MINLOC/MAXLOC: they have gaps */
  LOOM_FLOAT_INT, LOOM_DOUBLE_INT, LOOM_LONG_INT, LOOM_2INT, LOOM_SHORT_INT,
  LOOM_LONG_DOUBLE_INT, LOOM_2REAL, LOOM_2DOUBLE_PRECISION, LOOM_2INTEGER,
  LOOM_PRIM_COUNT
} loom_prim;

/** How a type was made (the MPI combiner). */
typedef enum loom_combiner {
  LOOM_COMBINER_NAMED, LOOM_COMBINER_DUP, LOOM_COMBINER_CONTIGUOUS,
  LOOM_COMBINER_VECTOR, LOOM_COMBINER_HVECTOR, LOOM_COMBINER_INDEXED,
  LOOM_COMBINER_HINDEXED, LOOM_COMBINER_INDEXED_BLOCK,
  LOOM_COMBINER_HINDEXED_BLOCK, LOOM_COMBINER_STRUCT,
  LOOM_COMBINER_SUBARRAY, LOOM_COMBINER_DARRAY, LOOM_COMBINER_RESIZED
} loom_combiner;

enum { LOOM_ORDER_C = 0, LOOM_ORDER_FORTRAN = 1 };
enum { LOOM_DISTRIBUTE_NONE = 0, LOOM_DISTRIBUTE_BLOCK = 1,
       LOOM_DISTRIBUTE_CYCLIC = 2 };
/** darray argument meaning "the default distribution argument". */
#define LOOM_DISTRIBUTE_DFLT_DARG (-1)

/** How struct bounds are computed where MPI implementations differ. */
typedef enum loom_bounds_rule {
  /** The MPI standard: explicit lb/ub markers (from resized) are sticky. */
  LOOM_BOUNDS_STANDARD = 0,
  /** MPICH 4: markers are not sticky; the struct is always padded. */
  LOOM_BOUNDS_MPICH = 1
} loom_bounds_rule;

/** @name Constructors
 *  Each returns a new reference in *out; release it with loom_type_free().
 *  Arguments follow the MPI constructor of the same name, with 64-bit counts.
 *  @{ */
LOOM_API loom_status loom_type_primitive(loom_prim p, loom_type *out);
/** A primitive of arbitrary size and alignment with no external32 meaning
 *  (external32 moves its bytes unchanged).  @p align must be a power of two
 *  (else LOOM_ERR_ARG). */
LOOM_API loom_status loom_type_bytes(int64_t size, int64_t align, loom_type *out);
LOOM_API loom_status loom_type_contiguous(int64_t count, loom_type old, loom_type *out);
LOOM_API loom_status loom_type_vector(int64_t count, int64_t blocklen, int64_t stride,
                             loom_type old, loom_type *out);
LOOM_API loom_status loom_type_hvector(int64_t count, int64_t blocklen,
                              int64_t stride_bytes, loom_type old,
                              loom_type *out);
LOOM_API loom_status loom_type_indexed(int64_t count, const int64_t *blocklens,
                              const int64_t *displs, loom_type old,
                              loom_type *out);
LOOM_API loom_status loom_type_hindexed(int64_t count, const int64_t *blocklens,
                               const int64_t *displs_bytes, loom_type old,
                               loom_type *out);
LOOM_API loom_status loom_type_indexed_block(int64_t count, int64_t blocklen,
                                    const int64_t *displs, loom_type old,
                                    loom_type *out);
LOOM_API loom_status loom_type_hindexed_block(int64_t count, int64_t blocklen,
                                     const int64_t *displs_bytes,
                                     loom_type old, loom_type *out);
/** MPI_Type_create_struct; @p rule picks the bounds semantics. */
LOOM_API loom_status loom_type_struct(int64_t count, const int64_t *blocklens,
                                      const int64_t *displs_bytes,
                                      const loom_type *types, loom_bounds_rule rule,
                                      loom_type *out);
LOOM_API loom_status loom_type_subarray(int ndims, const int64_t *sizes,
                                        const int64_t *subsizes, const int64_t *starts,
                                        int order, loom_type old, loom_type *out);
LOOM_API loom_status loom_type_darray(int size, int rank, int ndims,
                                      const int64_t *gsizes, const int *distribs,
                                      const int *dargs, const int *psizes, int order,
                                      loom_type old, loom_type *out);
LOOM_API loom_status loom_type_resized(loom_type old, int64_t lb, int64_t extent,
                                       loom_type *out);
LOOM_API loom_status loom_type_dup(loom_type old, loom_type *out);
/** @} */

/** Takes one more reference. */
LOOM_API loom_type loom_type_ref(loom_type t);
/** Drops a reference; a type lives while any reference (or parent) holds it. */
LOOM_API void loom_type_free(loom_type t);

/** Compiles the plan (idempotent, thread-safe).  Cost depends on the size of
 *  the type description, never on the number of elements. */
LOOM_API loom_status loom_type_commit(loom_type t);
LOOM_API int loom_type_is_committed(loom_type t);

/** @name Queries (MPI_Type_size, get_extent, get_true_extent)
 *  @{ */
LOOM_API int64_t loom_type_size(loom_type t);
LOOM_API void loom_type_extent(loom_type t, int64_t *lb, int64_t *extent);
LOOM_API void loom_type_true_extent(loom_type t, int64_t *true_lb,
                                    int64_t *true_extent);
/** Number of primitive elements in one instance (MPI_Get_elements basis). */
LOOM_API int64_t loom_type_num_elements(loom_type t);
/** Nonzero when @p t is committed and, for every count, count instances
 *  occupy exactly one run of count * size bytes that starts at the first
 *  byte of data (buf + true lb; not necessarily buf + lb): one instance is
 *  a single run with no gaps and the extent equals the size, so instances
 *  abut.  Then count instances move with one memcpy from buf + true lb.
 *  A committed type of size 0 is contiguous (there is nothing to move); an
 *  uncommitted type or NULL gives 0. */
LOOM_API int loom_type_is_contiguous(loom_type t);
LOOM_API loom_combiner loom_type_combiner(loom_type t);
/** Contiguous byte runs one instance of the committed type moves (gaps
 *  between them; runs of consecutive instances may merge further), 0 for an
 *  empty type; saturates at INT64_MAX.  size / runs is the mean run length
 *  that decides how cheap a layout is to move element-wise. */
LOOM_API int64_t loom_type_num_runs(loom_type t);
/** The primitive every element of the type is, or -1 when it mixes
 *  primitives (or has none). */
LOOM_API int loom_type_element(loom_type t);
/** Writes the committed plan for @p count instances as one line
 *  (e.g. "vec(1048576,+8,blk8)"), truncated to @p bufsize; returns the
 *  length it needs including the terminating NUL, or 0 (nothing written)
 *  for a null type, a negative count, a message whose size or span
 *  overflows, or when memory runs out. */
LOOM_API size_t loom_type_plan_string(loom_type t, int64_t count, char *buf,
                             size_t bufsize);
/** @} */

/** @name Whole-message pack and unpack (MPI_Pack semantics)
 *  *position is advanced; on any error nothing is written.  Checks, in this
 *  order: the type (LOOM_ERR_TYPE), the count (LOOM_ERR_COUNT), the size
 *  and span of the message (LOOM_ERR_OVERFLOW), position (LOOM_ERR_ARG when
 *  null or past the buffer), null buffers (LOOM_ERR_ARG, only when there
 *  are bytes to move), room (LOOM_ERR_TRUNCATE).
 *  @{ */
LOOM_API loom_status loom_pack(const void *inbuf, int64_t count, loom_type t,
                               void *outbuf, size_t outsize, size_t *position);
LOOM_API loom_status loom_unpack(const void *inbuf, size_t insize, size_t *position,
                                 void *outbuf, int64_t count, loom_type t);
/** @} */

/** An (address, length) pair as produced by the iov generator. */
typedef struct loom_iov {
  void *base;
  size_t len;
} loom_iov;

/** Opaque partial-processing state: a position in the packed stream. */
typedef struct loom_cursor_s *loom_cursor;

/** @name Partial processing
 *  A cursor walks the packed stream of @p count instances of @p t laid out at
 *  @p buf (which may be null only when the stream is empty).  Seeks cost
 *  O(depth log n); consecutive calls resume in O(1).  Only creating and
 *  copying a cursor allocate: seek, pack, unpack and iov never fail for
 *  want of memory.
 *  @{ */
LOOM_API loom_status loom_cursor_create(loom_type t, int64_t count, const void *buf,
                               loom_cursor *out);
LOOM_API void loom_cursor_free(loom_cursor c);
/** Copies cursor state (a checkpoint restore): @p dst then walks the
 *  message of @p src and holds a reference to its type. */
LOOM_API loom_status loom_cursor_copy(loom_cursor dst, loom_cursor src);
/** Total packed bytes and current offset. */
LOOM_API size_t loom_cursor_total(loom_cursor c);
LOOM_API size_t loom_cursor_offset(loom_cursor c);
/** Bytes of walk state a snapshot of @p c holds (its position, buffer and
 *  plan references and one frame per plan level): what a checkpoint costs
 *  in the memory of whoever keeps it, e.g. a NIC that stores checkpoints
 *  next to the packets it unpacks.  The plan itself is not counted (see
 *  loom_layout_encode for its size).  0 for a null cursor. */
LOOM_API size_t loom_cursor_state_bytes(loom_cursor c);
LOOM_API loom_status loom_cursor_seek(loom_cursor c, size_t offset);
/** Packs the next @p len bytes (fewer at the end) into @p out. */
LOOM_API loom_status loom_cursor_pack(loom_cursor c, void *out, size_t len,
                                      size_t *done);
/** Unpacks the next @p len bytes of @p in into the user buffer. */
LOOM_API loom_status loom_cursor_unpack(loom_cursor c, const void *in, size_t len,
                                        size_t *done);
/** Emits at most @p max_entries (address, length) pairs covering at most
 *  @p max_bytes of the stream; adjacent pieces are merged.  *bytes is the
 *  stream length covered; call again to continue. */
LOOM_API loom_status loom_cursor_iov(loom_cursor c, loom_iov *iov, size_t max_entries,
                                     size_t max_bytes, size_t *n_entries,
                                     size_t *bytes);

/** Packs stream bytes [offset, offset+len) in one call (seek + pack). */
LOOM_API loom_status loom_pack_range(const void *inbuf, int64_t count, loom_type t,
                                     size_t offset, size_t len, void *out);
LOOM_API loom_status loom_unpack_range(const void *in, size_t offset, size_t len,
                                       void *outbuf, int64_t count, loom_type t);
/** @} */

/** @name Checkpoints
 *  Cursor snapshots every @p interval bytes, for workers that handle
 *  disjoint ranges of one message in parallel and in any order.
 *  @{ */
typedef struct loom_checkpoints_s *loom_checkpoints;
LOOM_API loom_status loom_checkpoints_create(loom_type t, int64_t count,
                                             const void *buf, size_t interval,
                                             loom_checkpoints *out);
LOOM_API void loom_checkpoints_free(loom_checkpoints cp);
LOOM_API size_t loom_checkpoints_count(loom_checkpoints cp);
/** Sets @p c to the nearest checkpoint at or before @p offset, then seeks
 *  forward to @p offset.  @p c then walks the checkpointed message (its
 *  type, count and buffer) and holds a reference to that type, so it
 *  outlives @p cp. */
LOOM_API loom_status loom_checkpoints_restore(loom_checkpoints cp, size_t offset,
                                     loom_cursor c);
/** @} */

/** @name Checkpoint-parallel pack and unpack
 *  One message processed by several threads at once: its packed stream is
 *  cut at checkpoints (cursor snapshots every few dozen KiB, made once per
 *  (type, count) and cached, see below) into chunks that the threads take
 *  in any order; each starts from the checkpoint at its chunk and goes on
 *  through the chunks that follow it.  The bytes are identical to the
 *  single-threaded calls, which these mirror argument for argument (the
 *  same checks in the same order), plus @p threads: n > 0 uses at most n
 *  threads (never more than the message has chunks), a negative value is
 *  LOOM_ERR_ARG, and 0 lets Loom choose: one thread below the size that
 *  loom_parallel_threads() gives two, and from there as many as it gives
 *  only where they were measured faster than one.  Every call of a (type,
 *  count) and direction that the size would give several threads is
 *  timed: the first twelve alternate pairs of several and one, then each
 *  call takes the side whose median over its last seven timed calls is
 *  faster (several only when at least 5% faster), and the other side is
 *  tried again now and then (after 16 calls, backing off to 1024, and
 *  rarer still when it lost much), so the choice follows a machine whose
 *  speed changes (a host that takes a core away) and stays within a few
 *  percent of the faster side on the program's own buffers and machine.
 *  The record lives with the checkpoints and starts again if they are
 *  evicted.  A
 *  message that gets one thread takes the single-threaded path, so small
 *  messages cost nothing extra.  Threads
 *  come from a pool started on first use; a call that finds the pool busy
 *  with another thread's message runs alone.  Unpacking in parallel
 *  relies on the MPI rule that a receive type does not overlap itself.
 *  @{ */
LOOM_API loom_status loom_pack_parallel(const void *inbuf, int64_t count, loom_type t,
                                        void *outbuf, size_t outsize, size_t *position,
                                        int threads);
LOOM_API loom_status loom_unpack_parallel(const void *inbuf, size_t insize,
                                          size_t *position, void *outbuf, int64_t count,
                                          loom_type t, int threads);
/** loom_pack_range() and loom_unpack_range() on several threads. */
LOOM_API loom_status loom_pack_range_parallel(const void *inbuf, int64_t count, loom_type t,
                                              size_t offset, size_t len, void *out,
                                              int threads);
LOOM_API loom_status loom_unpack_range_parallel(const void *in, size_t offset, size_t len,
                                                void *outbuf, int64_t count, loom_type t,
                                                int threads);
/** The most threads the automatic choice uses for @p bytes packed bytes:
 *  one per MiB, at most the machine's hardware threads, at least 1 (it
 *  uses one where several were not measured faster, see above). */
LOOM_API int loom_parallel_threads(size_t bytes);
/** Memory the checkpoint cache holds now (bytes).  The cache keeps the
 *  checkpoints of the 64 most recently used (type, count) pairs within a
 *  bound (16 MiB unless set); each entry holds a reference to its type. */
LOOM_API size_t loom_checkpoint_cache_bytes(void);
LOOM_API size_t loom_checkpoint_cache_limit(void);
/** Sets the cache's bound in bytes (0: keep nothing), evicting down to it. */
LOOM_API void loom_set_checkpoint_cache_limit(size_t bytes);
/** @} */

/** @name external32 (big-endian, the standard's external32 sizes)
 *  Pack and unpack check their arguments like loom_pack and loom_unpack.
 *  @{ */
/** external32 bytes of @p count instances (the type need not be committed);
 *  LOOM_ERR_OVERFLOW when that does not fit in 64 bits. */
LOOM_API loom_status loom_external32_size(int64_t count, loom_type t, size_t *size);
LOOM_API loom_status loom_pack_external32(const void *inbuf, int64_t count,
                                 loom_type t, void *outbuf, size_t outsize,
                                 size_t *position);
LOOM_API loom_status loom_unpack_external32(const void *inbuf, size_t insize,
                                   size_t *position, void *outbuf,
                                   int64_t count, loom_type t);
/** @} */

/** @name Layout serialization
 *  A committed type's memory layout as a compact byte string, for a process
 *  that must walk another process's buffer (single-copy transfers with
 *  process_vm_readv): the encoding is as large as the type's compiled plan,
 *  never as large as the data it describes (a vector of 10^8 blocks encodes
 *  in a few dozen bytes; indexed levels carry their displacement and length
 *  arrays), and holds what a cursor over any count of instances needs (the
 *  plan, lb, extent, true bounds, size).  The format is private to Loom and
 *  versioned; both sides must run the same Loom release.
 *  @{ */
/** Deepest plan (levels of nested loops) an encoding may hold; deeper types
 *  do not encode (LOOM_ERR_OVERFLOW) and deeper encodings do not decode. */
#define LOOM_LAYOUT_MAX_DEPTH 64
/** Encodes committed @p t into @p buf (@p cap bytes); *len gets the length
 *  of the encoding in every case that gets that far.  LOOM_ERR_TYPE for a
 *  null or uncommitted type, LOOM_ERR_TRUNCATE (nothing written) when the
 *  encoding needs more than @p cap bytes: call with a null @p buf and
 *  @p cap 0 to learn the length.  Deterministic: equal layouts built the
 *  same way encode to equal bytes. */
LOOM_API loom_status loom_layout_encode(loom_type t, void *buf, size_t cap, size_t *len);
/** Rebuilds a committed type from @p len bytes at @p buf.  Its cursors
 *  (loom_cursor_*, loom_pack, loom_unpack and the range calls, for any
 *  count) walk exactly the byte runs of the encoded type's, in the same
 *  order; it has the encoded type's size, lb, extent and true bounds.  It
 *  describes bytes, not elements: its combiner is LOOM_COMBINER_NAMED, its
 *  element kind LOOM_BYTE, one element per byte (external32 moves it
 *  unchanged).  Every encoding is validated before use: malformed, truncated
 *  or inconsistent input (trailing bytes included) gives LOOM_ERR_ARG with
 *  *out untouched, in time and memory linear in @p len.  Release the type
 *  with loom_type_free(). */
LOOM_API loom_status loom_layout_decode(const void *buf, size_t len, loom_type *out);
/** A 64-bit hash (XXH3) of an encoding, to key caches of decoded types:
 *  equal encodings have equal ids, different ones collide with probability
 *  about 2^-64.  0 for a null @p buf with a nonzero @p len. */
LOOM_API uint64_t loom_layout_id(const void *buf, size_t len);
/** @} */

/** @name Instruction sets
 *  The kernels are compiled for several instruction sets ("baseline",
 *  "avx2", "avx512", "avx512vbmi" on x86-64; "baseline" elsewhere) and the
 *  widest the CPU supports is used, unless the environment variable
 *  LOOM_ISA names a narrower one (read once, at the first commit; "auto"
 *  or unset: the widest; an unknown or unsupported name: the widest).
 *  The results are byte-identical on every set.  A type's kernels are
 *  chosen when its plan is built, so a change applies to types committed
 *  (and counts first used) after it.
 *  @{ */
/** The instruction set new plans' kernels use. */
LOOM_API const char *loom_isa(void);
/** Uses @p name's kernels for plans built from now on ("auto" or NULL: the
 *  widest this CPU supports).  LOOM_ERR_ARG when this library has no set
 *  of that name or the CPU cannot run it; nothing changes then. */
LOOM_API loom_status loom_set_isa(const char *name);
/** The sets this library has and this CPU runs, widest first,
 *  comma-separated (e.g. "avx512vbmi,avx512,avx2,baseline"). */
LOOM_API const char *loom_isa_list(void);
/** What the current set measured on this CPU (once, on first use: a
 *  fraction of a millisecond, run now if not yet) and moves by, as one
 *  line of text: how long contiguous copies go (glibc's memcpy or a loop
 *  of the set's own), and whether masked stores are slow (AVX2's, or
 *  AVX-512's into lines in no cache).  Valid until the calling thread's
 *  next call. */
LOOM_API const char *loom_isa_measured(void);
/** @} */

/** @name The machine's caches
 *  @{ */
/** Bytes of the CPU's last-level cache: the largest unified cache that
 *  Linux reports for cpu0 (sysfs), else the C library's level 3 or level 2
 *  size, else 32 MiB; read once.  Messages of a quarter of it or more (at
 *  least 1 MiB) may pack by non-temporal stores, past the caches. */
LOOM_API size_t loom_last_level_cache_bytes(void);

/** Copies `n` bytes from `src` to `dst` (the two must not overlap), as
 *  Loom's kernels copy contiguous data with the instruction set in use:
 *  where the C library's `memcpy` is slow on this CPU (on AMD cores its
 *  `rep movsb` runs 2-30x slower for copies of 2 KiB or more whose
 *  destination lies a few bytes past the source modulo 4 KiB) and, with
 *  the 256-bit vectors of AVX2 or AVX-512, for copies of 256 bytes to 128
 *  KiB, by a loop of vector moves; otherwise by `memcpy`. */
LOOM_API void loom_copy(void *dst, const void *src, size_t n);
/** @} */

/** A short English message for a status code. */
LOOM_API const char *loom_status_string(loom_status s);

#ifdef __cplusplus
}
#endif
#endif /* LOOM_H */
