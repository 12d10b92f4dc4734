/* SPDX-License-Identifier: GPL-3.0-or-later */
/* core.h — errors, allocation, checked arithmetic, bitsets, the RNG and the JSON writer.
 *
 * Everything above core/ reports failure through gsp_err_t and a per-thread detail message;
 * the library never prints and never exits. */
#ifndef GOSSIP_CORE_H
#define GOSSIP_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "gossip/export.h"
#include "gossip/version.h"

/* One list generates the enum, the names and the messages. Values are never renumbered:
 * scripts and bindings may store them. */
#define GSP_ERRNO_MAP(X)                                              \
    X(OK, 0, "success")                                               \
    X(NOMEM, 1, "out of memory")                                      \
    X(INVAL, 2, "invalid argument")                                   \
    X(PARSE, 3, "malformed input")                                    \
    X(RANGE, 4, "value out of range")                                 \
    X(OVERFLOW, 5, "size overflows")                                  \
    X(TOOBIG, 6, "too large")                                         \
    X(IO, 7, "input/output error")                                    \
    X(NOTAPPLIC, 8, "method does not apply")                          \
    X(UNSUPPORTED, 9, "not supported")                                \
    X(NUMERIC, 10, "numerically unreliable")                          \
    X(INTERNAL, 11, "internal error")                                 \
    X(LIMIT, 12, "search limit reached")

typedef enum {
#define GSP__ERR_ENUM(name, val, msg) GSP_ERR_##name = val,
    GSP_ERRNO_MAP(GSP__ERR_ENUM)
#undef GSP__ERR_ENUM
} gsp_err_t;

#define GSP_OK GSP_ERR_OK

/** Short symbolic name of an error code ("GSP_ERR_PARSE"). Never NULL. */
GSP_API const char *gsp_strerror_name(gsp_err_t err);
/** Generic message of an error code ("malformed input"). Never NULL. */
GSP_API const char *gsp_strerror(gsp_err_t err);
/** Detail of the last error set on this thread: what failed and where. Never NULL. */
GSP_API const char *gsp_errmsg(void);
/** Sets the detail message and returns err, for `return gsp_error(GSP_ERR_PARSE, "...")`.
 * The arguments may include gsp_errmsg() itself: `gsp_error(err, "spectral: %s", gsp_errmsg())`
 * prefixes the last error (the message is formatted before it replaces the old one). */
GSP_API gsp_err_t gsp_error(gsp_err_t err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** Clears the detail message. */
GSP_API void gsp_error_clear(void);

/* Allocation. Everything in the library allocates through these, so a test can make the
 * k-th allocation fail (SQLite-style fault simulation). */
GSP_API void *gsp_malloc(size_t size);
/** Zeroed array of count elements of size bytes, or NULL (overflow or no memory). */
GSP_API void *gsp_calloc(size_t count, size_t size);
/** Resizes ptr (NULL: allocates); NULL on failure, ptr left valid. */
GSP_API void *gsp_realloc(void *ptr, size_t size);
/** Frees what the gsp_ allocators returned; NULL is a no-op. */
GSP_API void gsp_free(void *ptr);
/** Copy of s through gsp_malloc, or NULL. */
GSP_API char *gsp_strdup(const char *s);
/** The name among names[0..n-1] nearest to word[0..len-1] (edit distance with transpositions,
 * at most 1 + len/4 and less than len), or NULL: the "did you mean" of error messages. */
GSP_API const char *gsp_nearest(const char *word, size_t len, const char *const *names, size_t n);
/** The memory a topology may plan for: before building a graph the library estimates what it
 * and the work on it (distances, schedules' per-node arrays) need, and refuses with
 * GSP_ERR_TOOBIG above this. Default: half the machine's physical memory, or the environment's
 * GOSSIP_MEMORY_LIMIT (a size, gsp_parse_size: 2G, 512MiB). */
GSP_API int64_t gsp_memory_limit(void);
/** Sets the limit in bytes for this process (0: back to the default). */
GSP_API void gsp_set_memory_limit(int64_t bytes);
/** Parses "1.5G", "512M", "4096" as gsp_parse_size does: bytes, or -1 when malformed, not
 * positive or above INT64_MAX. Sets no error detail (the memory limit's environment reader). */
GSP_API int64_t gsp_parse_bytes(const char *s);
/** Parses a size or count, the one syntax of every option and environment variable that takes
 * one: a whole number, optionally with a unit K, M, G or T (any case) — powers of 1024, so
 * 1K = 1KB = 1KiB = 1024 and 1MB = 1MiB = 1048576 (there are no decimal units: 1e6 is a
 * million) — followed by an optional B; "iB" after the unit letter. A decimal fraction or an
 * exponent is accepted when the value is a whole number: "1.5K" = 1536, "1e6", "2.5e1" = 25;
 * "0.5", "1e-3" and "1.3K" are not. Computed exactly in integers (no rounding).
 * name [in]: the option or variable the message names ("--bytes", "GOSSIP_SEGMENT").
 * text [in]: the text; min, max [in]: the range allowed; *out [out]: the value, set only on
 * success. GSP_ERR_PARSE (empty, malformed, not whole, too many digits) or GSP_ERR_RANGE
 * (negative, above max, below min), with one line naming name and text. O(length). */
GSP_API gsp_err_t gsp_parse_size(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out);
/** Allocates count*size bytes with an overflow check; sets GSP_ERR_NOMEM or _OVERFLOW. */
GSP_API gsp_err_t gsp_alloc_array(void **out, int64_t count, size_t size, bool zero);

/* Checked arithmetic on int64_t: return false on overflow. */
static inline bool gsp_mul_ok(int64_t a, int64_t b, int64_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}
/** a + b into *out; false on overflow. */
static inline bool gsp_add_ok(int64_t a, int64_t b, int64_t *out) {
    return !__builtin_add_overflow(a, b, out);
}
/** ceil(a / b) for a >= 0, b > 0. */
static inline int64_t gsp_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Bitsets: plain words, sized by the caller. */
typedef uint64_t gsp_word_t;
#define GSP_WORDS(n) (((size_t)(n) + 63) / 64)
/** Bit i of bitset b. */
static inline bool gsp_bit_get(const gsp_word_t *b, int64_t i) {
    return (b[i >> 6] >> (i & 63)) & 1u;
}
/** Sets bit i of bitset b. */
static inline void gsp_bit_set(gsp_word_t *b, int64_t i) { b[i >> 6] |= (gsp_word_t)1 << (i & 63); }
/** Clears bit i of bitset b. */
static inline void gsp_bit_clear(gsp_word_t *b, int64_t i) {
    b[i >> 6] &= ~((gsp_word_t)1 << (i & 63));
}
/** Number of set bits among the first n. */
GSP_API int64_t gsp_bits_count(const gsp_word_t *b, int64_t n);

/* xoshiro256** PRNG (Blackman and Vigna). The caller owns the state. */
typedef struct {
    uint64_t s[4];
} gsp_rng_t;
/** Seeds the generator with splitmix64 so that every seed gives a good state. */
GSP_API void gsp_rng_seed(gsp_rng_t *rng, uint64_t seed);
/** Next 64 random bits (xoshiro256**). */
GSP_API uint64_t gsp_rng_next(gsp_rng_t *rng);
/** Uniform integer in [0, n), n >= 1, without modulo bias (Lemire's method). */
GSP_API uint64_t gsp_rng_below(gsp_rng_t *rng, uint64_t n);
/** Uniform double in [0, 1). */
GSP_API double gsp_rng_double(gsp_rng_t *rng);

/* Growable vector of int64_t. A zeroed vector is empty and valid. */
typedef struct {
    int64_t *v;
    int64_t len, cap;
} gsp_vec_t;
/** Appends x, growing the vector; GSP_ERR_NOMEM on failure (the vector unchanged). */
GSP_API gsp_err_t gsp_vec_push(gsp_vec_t *vec, int64_t x);
/** Makes room for cap elements; GSP_ERR_NOMEM on failure. */
GSP_API gsp_err_t gsp_vec_reserve(gsp_vec_t *vec, int64_t cap);
/** Frees the elements and zeroes the vector. */
GSP_API void gsp_vec_destroy(gsp_vec_t *vec);

/** Progress callback for long work: fraction in [0,1]; what names the phase. May be NULL. */
typedef void (*gsp_progress_fn)(void *ctx, const char *what, double fraction);

#ifdef __cplusplus
}
#endif
#endif
