/* fuzz_api.c - a libFuzzer harness for genie's public API (`make fuzz`).

   Build: clang -fsanitize=fuzzer,address,undefined (no recovery). The input is a
   program: its first byte configures the context (threads, pool or no pool, the
   reference kernels, an allocation that fails), then each op byte picks an API
   call whose arguments come from the following bytes: creation with odd shapes
   (0, 1, huge, negative), every operation with random arguments, dims and
   dtypes, view chains, in-place writes through aliases, tuples, realize / read /
   item / data at random points, pools, retain / release, dead handles, and
   errors in the middle (cleared or left sticky).

   Contract checks (a failure aborts, so libFuzzer reports it):
     - an operation returning NULL leaves an error with a message;
     - a returned handle has ndim in [0, 8], sizes >= 0, numel = their product,
       a storage offset >= 0 and a valid dtype;
     - a dead handle (ASan builds quarantine them) is refused with
       GENIE_ERR_INVALID_ARG;
     - realize / read / item / data return GENIE_OK or an error code with a
       message, and read fills exactly the bytes it was given;
     - after genie_ctx_destroy every allocation is freed.
   Allocations go through GENIE_MALLOC hooks that refuse blocks over 64 MiB and
   more than 256 MiB live (so huge shapes fail as GENIE_ERR_OOM rather than
   exhausting the machine), and optionally fail the k-th allocation.
   Realization is skipped for values whose estimated work is large (a lazy value
   over a huge stride-0 window would be correct, only slow).

   Differential mode (fz_diff: the fuzz_diff build, `make fuzz-diff`, and the
   replay of tests/fuzz/corpus_diff and tests/fuzz/regressions_diff): the input's
   first byte picks no_pool and GENIE_TAPE_HASH_BITS (unset, 0, 1 or 4: colliding
   tape-cache hashes), the program may also reach the transformer operations
   (rms_norm, rope, scaled_dot_product_attention, cumsum), scatter, scatter_add,
   index_copy_, safetensors save/reopen round trips, repeated tape structures and
   the inspection calls, and it runs on GENIE_CPU_REFERENCE with 1 thread (full
   hashes), then on every fast path this CPU runs (generic, avx2, avx512) with 1 and
   with 2 threads. Each run records every materializing call's status and the
   values it read; every fast run must match the reference run:
     - statuses equal, except where a run ran out of the harness's memory caps
       (GENIE_ERR_OOM: paths allocate differently) or where the value is "chaotic"
       (below): there the comparison stops, as the two programs may now differ;
     - exact values (every op on the way is exact: creation, movement, views,
       copies, casts, comparisons, integer ops, + - * / sqrt reciprocal square,
       where, masked_fill, clamp, relu, max/min, index and scatter ops, in-place
       writes) equal element by element: NaN equals NaN, -0 equals +0, nothing else
       differs;
     - bounded values (one transcendental, reduction, norm, softmax, product,
       convolution, attention or rope op on exact inputs, then only 1-Lipschitz
       movement: views, copies, neg, abs, relu, clamp, max/min, where, cat, sort
       values, float casts) within tests/programs/prog.c's tolerance of the value's dtypes
       (|fast - ref| <= r |ref| + r/2, r = 1e-9 f64, 2e-5 f32, 2e-3 f16, 1.6e-2 bf16;
       inf only equal to inf, to a finite value over half the dtype's range, or to
       NaN: an f32 accumulator that overflows may meet +inf and -inf on the way);
     - chaotic values (a discrete function of a bounded value: a comparison,
       an integer cast, argmax, sort indices, an index or mask computed from one,
       or a bounded op of a bounded value) are not compared.
   A mismatch aborts with the path, the threads, the step and the op sequence. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FZ_AVOID_KNOWN
#define FZ_AVOID_KNOWN 0 /* 1: long runs step around defects already reported (see the Makefile) */
#endif
#define FZ_MAX_ALLOC ((size_t)64 << 20)
#define FZ_MAX_LIVE ((size_t)256 << 20)
static size_t fz_live_bytes;
static long fz_live_blocks, fz_calls, fz_fail_at = -1;
static void *fz_malloc(size_t n) {
    size_t *p;
    if (++fz_calls == fz_fail_at || n > FZ_MAX_ALLOC || fz_live_bytes + n > FZ_MAX_LIVE) return NULL;
    p = (size_t *)malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    fz_live_bytes += n;
    fz_live_blocks++;
    return (char *)p + 16;
}
static void fz_free(void *q) {
    size_t *p;
    if (!q) return;
    p = (size_t *)((char *)q - 16);
    fz_live_bytes -= p[0];
    fz_live_blocks--;
    free(p);
}
static void *fz_realloc(void *q, size_t n) {
    void *r;
    size_t old;
    if (!q) return fz_malloc(n);
    old = ((size_t *)((char *)q - 16))[0];
    r = fz_malloc(n);
    if (!r) return NULL;
    memcpy(r, q, old < n ? old : n);
    fz_free(q);
    return r;
}
#ifdef __GNUC__
__extension__ typedef __int128 fz_i128; /* exact extents of the windows handed to from_blob */
#endif
#define GENIE_MALLOC(n) fz_malloc(n)
#define GENIE_REALLOC(p, n) fz_realloc(p, n)
#define GENIE_FREE(p) fz_free(p)
#define GENIE_STATIC
#define GENIE_TEST_HOOKS /* GENIE_TAPE_HASH_BITS */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"

#define FZ_CHECK(cond, what)                                                                   \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_api: contract broken at line %d: %s (%s): status %s: %s\n", \
                    __LINE__, what, #cond, genie_result_string(genie_status(fz.ctx)),           \
                    genie_last_error(fz.ctx));                                                 \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* ---- the input stream ---- */
typedef struct { const uint8_t *p; size_t n, i; } fz_in;
static unsigned u8(fz_in *in) { return in->i < in->n ? in->p[in->i++] : 0; }
static int fz_more(const fz_in *in) { return in->i < in->n; }
static const int64_t fz_special[] = {
    0, 1, 2, 3, -1, -2, 4, 5, 7, 8, 16, 31, 64, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
    (int64_t)1 << 31, (int64_t)1 << 32, ((int64_t)1 << 32) - 1, (int64_t)1 << 40, (int64_t)1 << 62,
    ((int64_t)1 << 62) + 1, (int64_t)1 << 61, -((int64_t)1 << 62), INT32_MAX, INT32_MIN, 1000, 100000,
};
#define FZ_NSPECIAL (sizeof fz_special / sizeof fz_special[0])
/* An integer argument: mostly small, sometimes extreme. */
static int64_t fz_int(fz_in *in) {
    unsigned b = u8(in);
    if (b < 160) return (int64_t)(b % 12) - 3;
    if (b < 224) return fz_special[(b - 160) % FZ_NSPECIAL];
    return (int64_t)((uint64_t)u8(in) << 56 | (uint64_t)u8(in) << 48 | (uint64_t)u8(in) << 40 | (uint64_t)u8(in) << 32 |
                     (uint64_t)u8(in) << 24 | (uint64_t)u8(in) << 16 | (uint64_t)u8(in) << 8 | u8(in));
}
/* A size: mostly 0..4, sometimes huge or negative. */
static int64_t fz_size(fz_in *in) {
    unsigned b = u8(in);
    if (b < 220) return b % 5;
    if (b < 236) return (int64_t)(b % 9) + 4;
    return fz_special[(b - 236) % FZ_NSPECIAL];
}
static int fz_ndim(fz_in *in) {
    unsigned b = u8(in);
    if (b < 240) return (int)(b % 5);
    return b < 250 ? (int)(b % 4) + 5 : (b & 1 ? -1 : 9);
}
static int64_t fz_dim(fz_in *in) {
    unsigned b = u8(in);
    if (b < 240) return (int64_t)(b % 11) - 5;
    return fz_special[b % FZ_NSPECIAL];
}
static double fz_double(fz_in *in) {
    static const double sp[] = {0, 1, -1, 0.5, 2, -3.5, 1e-5, 1e30, -1e30, 1e300, 65504, 127, 255, 300,
                                9.3e18, -9.3e18, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 4294967296.0};
    unsigned b = u8(in);
    if (b < 200) return (double)((int)(b % 17) - 8) * 0.5;
    return sp[b % (sizeof sp / sizeof sp[0])];
}
static genie_dtype fz_dtype(fz_in *in) {
    unsigned b = u8(in);
    if (b < 250) return (genie_dtype)(b % GENIE_Q8_0); /* the element dtypes (the block dtypes follow) */
    return (genie_dtype)(b & 1 ? -1 : 77);
}

/* ---- the state: tensor slots and tuples ---- */
#define FZ_SLOTS 16
#define FZ_TUPLES 4
#define FZ_WORK_MAX ((double)(1 << 22))
typedef struct {
    genie_tensor *t;
    int own;       /* references the harness holds (retain, or no_pool results) */
    int held;      /* a pool or tuple still holds a reference */
    int depth;     /* pool depth at creation (pooled handles) */
    int tup;       /* the tuple holding it, or -1 */
    double work;   /* estimated elements computed to realize it */
    int approx;    /* differential mode: FZ_EXACT, FZ_BOUNDED or FZ_CHAOTIC (see the top) */
} fz_slot;
typedef struct { genie_tuple *tp; int depth, alive, dead; } fz_tuple; /* dead: freed, kept only under quarantine */

/* ---- differential mode: what a run observed ---- */
enum { FZ_EXACT, FZ_BOUNDED, FZ_CHAOTIC };            /* a value's comparability (see the top) */
enum { FZ_K_EXACT, FZ_K_MOVE, FZ_K_BOUNDED };         /* an op's kind: how it combines its inputs' */
#define FZ_EV_MAX 1024
#define FZ_EV_BYTES 8192                              /* values kept per event, at most */
#define FZ_TR_BYTES ((size_t)1 << 20)
/* One materializing call: its status, and the values read (as dtype `as`, of a value of dtype tdt). */
typedef struct {
    int step, status, approx, as, tdt;
    size_t off, len;
    char what[40];
} fz_ev;
typedef struct {
    fz_ev ev[FZ_EV_MAX];
    int nev;
    unsigned char bytes[FZ_TR_BYTES];
    size_t nbytes;
    char log[16384]; /* the op sequence, "step: op -> slot (aten name)" */
    size_t nlog;
} fz_trace;

static struct {
    genie_ctx *ctx;
    int no_pool, depth;
    fz_slot s[FZ_SLOTS];
    fz_tuple tu[FZ_TUPLES];
    unsigned char blob[4096], blob01[4096]; /* the memory from_data and from_blob read; blob01: bytes 0 and 1 */
    FILE *devnull;
    /* differential mode */
    int diff, v2;        /* diff: record a trace; v2: the extended op set and configuration byte */
    int threads;         /* this run's threads (genie_set_num_threads steps keep it) */
    int step, kind, in_approx;
    fz_trace *tr;        /* NULL: nothing recorded */
    genie_tensor *tmp[16]; /* no_pool: the step's own intermediates, released at its end */
    int ntmp;
    char path[64];       /* the safetensors round trip's file */
} fz;
static fz_trace fz_tr_ref, fz_tr_run;

static int fz_is_float(genie_dtype dt) { return dt == GENIE_F32 || dt == GENIE_F64 || dt == GENIE_F16 || dt == GENIE_BF16; }
/* The comparability of an op's result from its kind and its inputs' (fz.in_approx). */
static int fz_result_approx(genie_tensor *t) {
    int in = fz.in_approx;
    if (fz.kind == FZ_K_MOVE) return in;
    if (fz.kind == FZ_K_EXACT) return in ? FZ_CHAOTIC : FZ_EXACT;
    if (in) return FZ_CHAOTIC;
    return t && fz_is_float(genie_dtype_of(t)) ? FZ_BOUNDED : FZ_EXACT; /* integer sums, products: exact */
}
static void fz_log(const char *fmt, const char *a, int k, const char *b) {
    fz_trace *tr = fz.tr;
    int n;
    if (!tr || tr->nlog + 200 > sizeof tr->log) return;
    n = snprintf(tr->log + tr->nlog, 200, fmt, fz.step, a, k, b);
    if (n > 0) tr->nlog += (size_t)n;
}
/* Record a materializing call: status, and len bytes of values read as `as` (vals may be NULL). */
static void fz_record(const char *what, int status, int approx, int as, int tdt, const void *vals, size_t len) {
    fz_trace *tr = fz.tr;
    fz_ev *e;
    if (!tr || tr->nev >= FZ_EV_MAX) return;
    e = &tr->ev[tr->nev++];
    e->step = fz.step;
    e->status = status;
    e->approx = approx;
    e->as = as;
    e->tdt = tdt;
    snprintf(e->what, sizeof e->what, "%s", what);
    if (len > FZ_EV_BYTES || tr->nbytes + len > FZ_TR_BYTES || status != GENIE_OK) vals = NULL;
    e->off = tr->nbytes;
    e->len = vals ? len : 0;
    if (vals) { memcpy(tr->bytes + tr->nbytes, vals, len); tr->nbytes += len; }
}
/* no_pool: an intermediate the harness made for this step only */
static genie_tensor *fz_tmp(genie_tensor *t) {
    if (t && fz.no_pool && fz.ntmp < 16) fz.tmp[fz.ntmp++] = t;
    return t;
}

/* The bytes a new tensor of dt is made from: bools of bytes other than 0 and 1 (11, 48, ...) too,
   except where long runs step around the paths' different copies of them (FZ_AVOID_KNOWN). */
static unsigned char *fz_blob_for(genie_dtype dt) { return FZ_AVOID_KNOWN && dt == GENIE_BOOL ? fz.blob01 : fz.blob; }
static int fz_dead(const fz_slot *s) { return s->t && s->own == 0 && !s->held; }
static double fz_numel_d(const genie_tensor *t) {
    double n = 1;
    int i;
    for (i = 0; i < genie_ndim(t); i++) n *= (double)genie_shape(t)[i];
    return n;
}
/* A handle the API returned: sane. */
static void fz_check_handle(genie_tensor *t, const char *what) {
    int nd = genie_ndim(t), i;
    int64_t n = 1;
    FZ_CHECK(genie_status(fz.ctx) == GENIE_OK, what);
    FZ_CHECK(nd >= 0 && nd <= GENIE_MAX_DIMS, what);
    FZ_CHECK(nd == 0 || genie_shape(t) != NULL, what);
    for (i = 0; i < nd; i++) {
        FZ_CHECK(genie_shape(t)[i] >= 0, what);
        if (n >= 0 && genie_shape(t)[i] != 0 && n > INT64_MAX / genie_shape(t)[i]) n = -1;
        else if (n >= 0) n *= genie_shape(t)[i];
    }
    FZ_CHECK(n >= 0 && genie_numel(t) == n, what);
    FZ_CHECK(genie_storage_offset(t) >= 0, what);
    FZ_CHECK((int)genie_dtype_of(t) >= 0 && genie_dtype_of(t) < GENIE_DTYPE_COUNT, what);
    FZ_CHECK(genie_op_name(t) != NULL && genie_module_path(t) != NULL && genie_phase(t) != NULL, what);
}
/* After a call: NULL means an error with a message. */
static void fz_check_null(const void *r, const char *what) {
    if (!r) {
        FZ_CHECK(genie_status(fz.ctx) != GENIE_OK, what);
        FZ_CHECK(genie_last_error(fz.ctx)[0] != 0, what);
    }
}
static void fz_drop_slot(int k) {
    fz_slot *s = &fz.s[k];
    while (s->own > 0) { genie_release(s->t); s->own--; }
    memset(s, 0, sizeof *s);
    s->tup = -1;
}
/* Store a result in slot k (its previous handle dropped). */
static void fz_put(int k, genie_tensor *t, double work, int tup, const char *what) {
    fz_check_null(t, what);
    if (!t) return;
    fz_check_handle(t, what);
    fz_drop_slot(k);
    fz.s[k].t = t;
    fz.s[k].tup = tup;
    fz.s[k].work = work + fz_numel_d(t);
    fz.s[k].approx = fz_result_approx(t);
    fz_log("%d: %s -> s%d (%s)\n", what, k, genie_op_name(t));
    if (tup >= 0) fz.s[k].held = 1;
    else if (fz.no_pool) fz.s[k].own = 1;
    else { fz.s[k].held = 1; fz.s[k].depth = fz.depth; }
}
/* An input slot (its handle may be NULL or dead). */
static fz_slot *fz_slot_of(fz_in *in) { return &fz.s[u8(in) % FZ_SLOTS]; }
static genie_tensor *fz_arg(fz_in *in, double *work, int *dead) {
    fz_slot *s = fz_slot_of(in);
#if !GENIE__QUARANTINE /* a dead handle's slot may serve another tensor: never use one */
    if (s->t && fz_dead(s)) return NULL;
#endif
    if (s->t && fz_dead(s)) *dead = 1;
    if (s->work > *work) *work = s->work;
    if (s->t && s->approx > fz.in_approx) fz.in_approx = s->approx;
    return s->t;
}
/* An input whose values pick elements or decide (an index, a mask, a condition): any error
   in them makes the result chaotic. */
static genie_tensor *fz_argd(fz_in *in, double *work, int *dead) {
    fz_slot *s = &fz.s[in->i < in->n ? in->p[in->i] % FZ_SLOTS : 0];
    genie_tensor *t = fz_arg(in, work, dead);
    if (t && s->t == t && s->approx) fz.in_approx = FZ_CHAOTIC;
    return t;
}
/* The result of an op whose inputs included a dead handle: refused. */
static void fz_expect_dead(const void *r, int was_ok, const char *what) {
    if (!was_ok) return;
    FZ_CHECK(r == NULL && genie_status(fz.ctx) == GENIE_ERR_INVALID_ARG, what);
}
static void fz_shape(fz_in *in, int *nd, int64_t *shape) {
    int i;
    *nd = fz_ndim(in);
    for (i = 0; i < GENIE_MAX_DIMS; i++) shape[i] = i < *nd ? fz_size(in) : 1;
}
/* The element count of a shape, or -1 when it overflows (or is invalid). */
static int64_t fz_count(int nd, const int64_t *shape) {
    int64_t n = 1;
    int i;
    if (nd < 0 || nd > GENIE_MAX_DIMS) return -1;
    for (i = 0; i < nd; i++) {
        if (shape[i] < 0) return -1;
        if (shape[i] != 0 && n > INT64_MAX / shape[i]) return -1;
        n *= shape[i];
    }
    return n;
}

/* Materialize slot k in one of four ways, when it is cheap enough. */
static void fz_materialize(fz_in *in) {
    fz_slot *s = fz_slot_of(in);
    unsigned how = u8(in) % 4;
    int was_ok = genie_status(fz.ctx) == GENIE_OK, dead;
    genie_result r = GENIE_OK;
    if (!s->t || s->work > FZ_WORK_MAX) return;
    dead = fz_dead(s);
#if !GENIE__QUARANTINE
    if (dead) return;
#endif
    if (how == 0) {
        r = genie_realize(fz.ctx, 1, &s->t);
        fz_record("realize", r, s->approx, 0, 0, NULL, 0);
    } else if (how == 1) {
        static unsigned char buf[8192 + 16];
        genie_dtype as = (genie_dtype)(u8(in) % GENIE_Q8_0); /* an element dtype */
        int64_t n = dead ? 1 : genie_numel(s->t);
        size_t bytes = (size_t)n * genie_dtype_size(as);
        if (bytes > 8192) return;
        memset(buf, 0xA5, sizeof buf);
        r = genie_read(fz.ctx, s->t, as, buf, bytes);
        FZ_CHECK(buf[bytes] == 0xA5, "genie_read wrote past the bytes it was given");
        fz_record("read", r, s->approx, as, dead ? as : genie_dtype_of(s->t), buf, bytes);
    } else if (how == 2) {
        double x = 0;
        int64_t xi = 0;
        if (u8(in) & 1) {
            r = genie_item(fz.ctx, s->t, &x);
            fz_record("item", r, s->approx, GENIE_F64, dead ? GENIE_F64 : genie_dtype_of(s->t), &x, sizeof x);
        } else {
            r = genie_item_i64(fz.ctx, s->t, &xi);
            fz_record("item_i64", r, s->approx, GENIE_I64, dead ? GENIE_I64 : genie_dtype_of(s->t), &xi, sizeof xi);
        }
    } else {
        const void *p = NULL;
        r = genie_data(fz.ctx, s->t, &p);
        fz_record("data", r, s->approx, 0, 0, NULL, 0);
        if (r == GENIE_OK) {
            FZ_CHECK(p != NULL, "genie_data: OK with a NULL pointer");
            if (genie_numel(s->t) > 0 && genie_is_contiguous(s->t)) { /* read its last element */
                volatile unsigned char c = ((const unsigned char *)p)[genie_numel(s->t) * (int64_t)genie_dtype_size(genie_dtype_of(s->t)) - 1];
                (void)c;
            }
        }
    }
    if (r != GENIE_OK) {
        FZ_CHECK(genie_status(fz.ctx) != GENIE_OK && genie_last_error(fz.ctx)[0], "materialize failed without a message");
    }
    if (dead && was_ok) FZ_CHECK(r == GENIE_ERR_INVALID_ARG, "a dead handle was materialized");
    if (r == GENIE_OK && !dead) FZ_CHECK(genie_is_materialized(s->t), "OK but not materialized");
}

/* Tuple k was freed: forgotten, or kept to be tried where its shell is never handed out again. */
static void fz_tuple_dies(int k) {
#if GENIE__QUARANTINE
    fz.tu[k].dead = 1;
    fz.tu[k].alive = 0;
#else
    memset(&fz.tu[k], 0, sizeof fz.tu[k]);
#endif
}
static void fz_pool_pop(void) {
    int k;
    if (fz.depth == 0) return;
    genie_pool_pop(fz.ctx);
    fz.depth--;
    for (k = 0; k < FZ_SLOTS; k++)
        if (fz.s[k].t && fz.s[k].tup < 0 && fz.s[k].held && fz.s[k].depth > fz.depth) fz.s[k].held = 0;
    for (k = 0; k < FZ_TUPLES && !fz.no_pool; k++) /* no_pool: the caller owns its tuples, pools nothing */
        if (fz.tu[k].tp && !fz.tu[k].dead && fz.tu[k].depth > fz.depth) {
            int j;
            for (j = 0; j < FZ_SLOTS; j++)
                if (fz.s[j].tup == k) { fz.s[j].held = 0; fz.s[j].tup = -1; }
            fz_tuple_dies(k); /* freed by the pool */
        }
}
/* A tuple result: stored, and some of its items put in slots. */
static void fz_keep_tuple(fz_in *in, genie_tuple *tp, double work, int was_ok, int dead, const char *what, int indices) {
    int k = (int)(u8(in) % FZ_TUPLES), n, i, j;
    fz_check_null(tp, what);
    if (dead) fz_expect_dead(tp, was_ok, what);
    if (!tp) return;
    FZ_CHECK(genie_status(fz.ctx) == GENIE_OK, what);
    n = genie_tuple_size(tp);
    FZ_CHECK(n >= 0, what);
    if (fz.tu[k].tp && !fz.tu[k].dead) { /* the slot's old tuple: released (no_pool: freed at once) */
        for (j = 0; j < FZ_SLOTS; j++)
            if (fz.s[j].tup == k) { fz.s[j].held = 0; fz.s[j].tup = -1; }
        genie_tuple_release(fz.tu[k].tp);
    }
    fz.tu[k].tp = tp;
    fz.tu[k].depth = fz.depth;
    fz.tu[k].alive = 1;
    fz.tu[k].dead = 0;
    for (i = 0; i < n && i < 3; i++) {
        genie_tensor *t = genie_tuple_get(tp, i);
        FZ_CHECK(t != NULL, what);
        fz.kind = indices && i == 1 ? FZ_K_EXACT : FZ_K_MOVE; /* sort, topk, max/min: (values, indices) */
        fz_put((int)(u8(in) % FZ_SLOTS), t, work, k, what);
    }
    FZ_CHECK(genie_tuple_get(tp, n) == NULL && genie_tuple_get(tp, -1) == NULL, what);
}

enum {
    OP_CREATE, OP_FROM_DATA, OP_FROM_BLOB, OP_ARANGE, OP_UNARY, OP_BINARY, OP_SCALAR, OP_WHERE, OP_CLAMP,
    OP_REDUCE, OP_ARGRED, OP_SOFTMAX, OP_LAYER_NORM, OP_MATMUL, OP_LINEAR, OP_CONV2D, OP_TO, OP_COPYLIKE,
    OP_VIEW, OP_PERMUTE, OP_TRANSPOSE, OP_EXPAND, OP_SQUEEZE, OP_SLICE, OP_SELECT, OP_NARROW, OP_DIAGONAL,
    OP_AS_STRIDED, OP_FLIP, OP_CAT, OP_INDEX, OP_MASKED_FILL, OP_TRI, OP_SPLIT, OP_SORT, OP_INPLACE,
    OP_MATERIALIZE, OP_MATERIALIZE2, OP_POOL, OP_RETAIN, OP_RELEASE, OP_TUPLE_RELEASE, OP_SCOPE, OP_CLEAR,
    OP_MISC, OP_COUNT_V1,
    /* the differential mode's further ops (the first mode keeps its decoding: its inputs stay as they were) */
    OP_LLM = OP_COUNT_V1, OP_SCATTER, OP_SAFE, OP_INSPECT, OP_TAPE, OP_COUNT
};
static const char *const fz_op_names[OP_COUNT] = {
    "create", "from_data", "from_blob", "arange", "unary", "binary", "scalar", "where", "clamp", "reduce", "argred",
    "softmax", "layer_norm", "matmul", "linear", "conv2d", "to", "copylike", "view", "permute", "transpose", "expand",
    "squeeze", "slice", "select", "narrow", "diagonal", "as_strided", "flip", "cat", "index", "masked_fill", "tri",
    "split", "sort", "inplace", "materialize", "materialize2", "pool", "retain", "release", "tuple_release", "scope",
    "clear", "misc", "llm", "scatter", "safetensors", "inspect", "tape"};
/* An op's kind for the differential mode (ops with several functions refine it). */
static int fz_op_kind(unsigned op) {
    switch (op) {
    case OP_CREATE: case OP_FROM_DATA: case OP_FROM_BLOB: case OP_ARANGE: case OP_ARGRED: case OP_BINARY: case OP_SCALAR:
        return FZ_K_EXACT;
    case OP_SOFTMAX: case OP_LAYER_NORM: case OP_MATMUL: case OP_LINEAR: case OP_CONV2D: case OP_REDUCE: case OP_LLM:
    case OP_UNARY:
        return FZ_K_BOUNDED;
    default:
        return FZ_K_MOVE;
    }
}
/* After an in-place write to a: every alias depends on it, and is as comparable as its least. */
static void fz_after_inplace(genie_tensor *a, double work, int approx) {
    int j;
    for (j = 0; j < FZ_SLOTS; j++)
        if (fz.s[j].t && !fz_dead(&fz.s[j]) && genie_shares_storage(fz.s[j].t, a)) {
            if (fz.s[j].work < work + fz_numel_d(a)) fz.s[j].work = work + fz_numel_d(a);
            if (fz.s[j].approx < approx) fz.s[j].approx = approx;
        }
}

static void fz_step_ops(fz_in *in, unsigned op);
static double fz_tol(int dt);
static void fz_step(fz_in *in) {
    unsigned op = u8(in) % (fz.v2 ? OP_COUNT : OP_COUNT_V1);
    int k;
    fz.kind = fz_op_kind(op);
    fz.in_approx = FZ_EXACT;
    fz.ntmp = 0;
    fz_log("%d: %s%.0d%s\n", fz_op_names[op], 0, "");
    fz_step_ops(in, op);
    for (k = 0; k < fz.ntmp; k++) genie_release(fz.tmp[k]);
    fz.ntmp = 0;
    /* errors are mostly left sticky (the differential mode clears most, so programs go on computing) */
    if (fz.v2 ? (u8(in) & 3) != 0 : u8(in) == 0xEE) genie_clear_error(fz.ctx);
    fz_record("status after the step", genie_status(fz.ctx), FZ_EXACT, 0, 0, NULL, 0);
    fz.step++;
}
static void fz_step_ops(fz_in *in, unsigned op) {
    int out = (int)(u8(in) % FZ_SLOTS), was_ok = genie_status(fz.ctx) == GENIE_OK, dead = 0;
    double work = 0;
    genie_tensor *r = NULL, *a, *b, *c;
    int64_t shape[GENIE_MAX_DIMS], st[GENIE_MAX_DIMS];
    int nd, i;
    genie_ctx *ctx = fz.ctx;
    switch (op) {
    case OP_CREATE: {
        genie_dtype dt = fz_dtype(in);
        unsigned which = u8(in) % 7;
        fz_shape(in, &nd, shape);
        switch (which) {
        case 0: r = genie_zeros(ctx, dt, nd, shape); break;
        case 1: r = genie_ones(ctx, dt, nd, shape); break;
        case 2: r = genie_empty(ctx, dt, nd, shape); break;
        case 3: r = genie_full(ctx, dt, nd, shape, fz_double(in)); break;
        case 4: r = genie_rand(ctx, dt, nd, shape, u8(in)); break;
        case 5: r = genie_randn(ctx, dt, nd, shape, u8(in)); break;
        default: r = genie_full(ctx, dt, nd, u8(in) & 1 ? NULL : shape, 1.0); break;
        }
        fz_put(out, r, 0, -1, "create");
        break;
    }
    case OP_FROM_DATA: {
        genie_dtype dt = fz_dtype(in);
        int64_t n;
        fz_shape(in, &nd, shape);
        n = fz_count(nd, shape);
        if (n < 0 || (int)dt < 0 || dt >= GENIE_DTYPE_COUNT || (uint64_t)n * genie_dtype_size(dt) > sizeof fz.blob) {
            r = genie_from_data(ctx, dt, nd, shape, NULL); /* rejected, unless it has no elements */
            if (r) FZ_CHECK(n == 0, "from_data accepted a NULL pointer");
        } else {
            r = genie_from_data(ctx, dt, nd, shape, n == 0 && (u8(in) & 1) ? NULL : fz_blob_for(dt));
        }
        fz_put(out, r, 0, -1, "from_data");
        break;
    }
    case OP_FROM_BLOB: {
        genie_dtype dt = (genie_dtype)(u8(in) % GENIE_Q8_0); /* an element dtype */
        int strided = u8(in) & 1;
        fz_i128 ext = 0, lo = 0, term, big = (fz_i128)1 << 80;
        int empty = 0, null_data = u8(in) % 4 == 0;
        fz_shape(in, &nd, shape);
        if (nd < 0 || nd > GENIE_MAX_DIMS) break;
        for (i = 0; i < nd; i++) st[i] = fz_int(in);
        if (!strided) {
            int64_t s = 1;
            for (i = nd - 1; i >= 0; i--) { st[i] = s; s = (int64_t)((uint64_t)s * (uint64_t)(shape[i] > 1 ? shape[i] : 1)); }
        }
        for (i = 0; i < nd; i++) {
            if (shape[i] == 0) empty = 1;
            if (shape[i] < 0) empty = 2;
            if (st[i] < 0) lo = -1;
            term = (fz_i128)(shape[i] > 0 ? shape[i] - 1 : 0) * st[i];
            ext += term > big ? big : term < -big ? -big : term; /* clamped: 8 terms never overflow */
        }
        /* only windows inside the blob (or ones genie must refuse: overflowing or negative) */
        if (empty == 0 && lo == 0 && (ext + 1) * (fz_i128)genie_dtype_size(dt) > (fz_i128)sizeof fz.blob &&
            (ext + 1) * (fz_i128)genie_dtype_size(dt) <= (fz_i128)INT64_MAX)
            break;
        r = genie_from_blob(ctx, dt, nd, shape, strided ? st : NULL, null_data ? NULL : fz_blob_for(dt), NULL, NULL);
        if (r) FZ_CHECK(empty == 1 || (empty == 0 && lo == 0 && (ext + 1) * (fz_i128)genie_dtype_size(dt) <= (fz_i128)sizeof fz.blob),
                        "from_blob accepted a window outside its memory");
        fz_put(out, r, 0, -1, "from_blob");
        break;
    }
    case OP_ARANGE: {
        genie_dtype dt = fz_dtype(in);
        double s0 = fz_double(in), s1 = fz_double(in) * (u8(in) & 1 ? 8 : 1), step = fz_double(in);
        r = genie_arange(ctx, dt, s0, s1, step);
        fz_put(out, r, 0, -1, "arange");
        break;
    }
    case OP_UNARY: {
        static genie_tensor *(*const un[])(genie_ctx *, genie_tensor *) = {
            genie_neg, genie_abs, genie_exp, genie_log, genie_sqrt, genie_rsqrt, genie_sin, genie_cos, genie_tanh,
            genie_sigmoid, genie_relu, genie_gelu, genie_gelu_tanh, genie_silu, genie_reciprocal, genie_square,
            genie_floor, genie_ceil, genie_round, genie_sign, genie_erf, genie_log1p, genie_expm1, genie_logical_not,
            genie_contiguous, genie_clone, genie_t};
        static const unsigned char kind[] = {1, 1, 2, 2, 0, 2, 2, 2, 2, 2, 1, 2, 2, 2, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 1, 1, 1};
        unsigned k = u8(in) % (sizeof un / sizeof un[0]);
        fz.kind = kind[k];
        a = fz_arg(in, &work, &dead);
        r = un[k](ctx, a);
        if (dead) fz_expect_dead(r, was_ok, "unary on a dead handle");
        fz_put(out, r, work, -1, "unary");
        break;
    }
    case OP_BINARY: {
        static genie_tensor *(*const bin[])(genie_ctx *, genie_tensor *, genie_tensor *) = {
            genie_add, genie_sub, genie_mul, genie_div, genie_pow, genie_maximum, genie_minimum, genie_eq, genie_ne,
            genie_lt, genie_le, genie_gt, genie_ge, genie_logical_and, genie_logical_or};
        unsigned k = u8(in) % (sizeof bin / sizeof bin[0]);
        fz.kind = k == 4 ? FZ_K_BOUNDED : k == 5 || k == 6 ? FZ_K_MOVE : FZ_K_EXACT;
        a = fz_arg(in, &work, &dead);
        b = fz_arg(in, &work, &dead);
        r = bin[k](ctx, a, b);
        if (dead) fz_expect_dead(r, was_ok, "binary on a dead handle");
        fz_put(out, r, work, -1, "binary");
        break;
    }
    case OP_SCALAR: {
        static genie_tensor *(*const sc[])(genie_ctx *, genie_tensor *, double) = {
            genie_add_scalar, genie_sub_scalar, genie_mul_scalar, genie_div_scalar, genie_pow_scalar};
        unsigned k = u8(in) % 5;
        fz.kind = k == 4 ? FZ_K_BOUNDED : FZ_K_EXACT;
        a = fz_arg(in, &work, &dead);
        r = sc[k](ctx, a, fz_double(in));
        fz_put(out, r, work, -1, "scalar");
        break;
    }
    case OP_WHERE:
        a = fz_argd(in, &work, &dead);
        b = fz_arg(in, &work, &dead);
        c = fz_arg(in, &work, &dead);
        r = genie_where(ctx, a, b, c);
        fz_put(out, r, work, -1, "where");
        break;
    case OP_CLAMP:
        a = fz_arg(in, &work, &dead);
        r = genie_clamp(ctx, a, fz_double(in), fz_double(in));
        fz_put(out, r, work, -1, "clamp");
        break;
    case OP_REDUCE: {
        static genie_tensor *(*const red[])(genie_ctx *, genie_tensor *, int, const int64_t *, int) = {
            genie_sum, genie_mean, genie_amax, genie_amin, genie_prod, genie_logsumexp};
        unsigned k = u8(in) % 8;
        int nds = (int)(u8(in) % 4) - (u8(in) == 255 ? 2 : 0), keep = u8(in) & 1;
        int64_t dims[4];
        for (i = 0; i < 4; i++) dims[i] = fz_dim(in);
        a = fz_arg(in, &work, &dead);
        if (k == 2 || k == 3) fz.kind = FZ_K_MOVE; /* amax, amin */
        if (k < 6) r = red[k](ctx, a, nds, u8(in) == 0 ? NULL : dims, keep);
        else if (k == 6) r = genie_var(ctx, a, nds, dims, fz_int(in), keep);
        else r = genie_std(ctx, a, nds, dims, fz_int(in), keep);
        fz_put(out, r, work, -1, "reduce");
        break;
    }
    case OP_ARGRED: {
        int64_t d = u8(in) % 5 == 0 ? GENIE_DIM_NONE : fz_dim(in);
        a = fz_arg(in, &work, &dead);
        r = u8(in) & 1 ? genie_argmax(ctx, a, d, u8(in) & 1) : genie_argmin(ctx, a, d, u8(in) & 1);
        fz_put(out, r, work, -1, "argmax");
        break;
    }
    case OP_SOFTMAX:
        a = fz_arg(in, &work, &dead);
        r = u8(in) & 1 ? genie_softmax(ctx, a, fz_dim(in)) : genie_log_softmax(ctx, a, fz_dim(in));
        fz_put(out, r, work, -1, "softmax");
        break;
    case OP_LAYER_NORM: {
        int nn = (int)(u8(in) % 4) - (u8(in) == 255 ? 2 : 0);
        int64_t ns[4];
        genie_tensor *w, *bb;
        a = fz_arg(in, &work, &dead);
        for (i = 0; i < 4; i++) ns[i] = (u8(in) & 3) == 0 ? fz_size(in) : -1;
        for (i = 0; i < 4 && a && !dead && genie_ndim(a) > 0; i++) /* mostly the input's trailing sizes */
            if (ns[i] == -1) ns[i] = genie_shape(a)[(genie_ndim(a) - nn + i + 16 * GENIE_MAX_DIMS) % genie_ndim(a)];
        w = u8(in) & 1 ? fz_arg(in, &work, &dead) : NULL;
        bb = u8(in) & 1 ? fz_arg(in, &work, &dead) : NULL;
        r = genie_layer_norm(ctx, a, nn, u8(in) == 7 ? NULL : ns, w, bb, fz_double(in));
        fz_put(out, r, work, -1, "layer_norm");
        break;
    }
    case OP_MATMUL:
        a = fz_arg(in, &work, &dead);
        b = fz_arg(in, &work, &dead);
        r = genie_matmul(ctx, a, b);
        if (r && a && b && genie_ndim(a) > 0) work += fz_numel_d(r) * (double)genie_shape(a)[genie_ndim(a) - 1];
        fz_put(out, r, work, -1, "matmul");
        break;
    case OP_LINEAR:
        a = fz_arg(in, &work, &dead);
        b = fz_arg(in, &work, &dead);
        c = u8(in) & 1 ? fz_arg(in, &work, &dead) : NULL;
        r = genie_linear(ctx, a, b, c);
        if (r && a && genie_ndim(a) > 0) work += fz_numel_d(r) * (double)genie_shape(a)[genie_ndim(a) - 1];
        fz_put(out, r, work, -1, "linear");
        break;
    case OP_CONV2D: {
        int64_t stv[2], pad[2], dil[2], groups;
        for (i = 0; i < 2; i++) { stv[i] = fz_int(in); pad[i] = fz_int(in); dil[i] = fz_int(in); }
        groups = fz_int(in);
        a = fz_arg(in, &work, &dead);
        b = fz_arg(in, &work, &dead);
        c = u8(in) & 1 ? fz_arg(in, &work, &dead) : NULL;
        r = genie_conv2d(ctx, a, b, c, stv, pad, dil, groups);
        if (r && b && genie_ndim(b) == 4)
            work += fz_numel_d(r) * (double)genie_shape(b)[1] * (double)genie_shape(b)[2] * (double)genie_shape(b)[3];
#if FZ_AVOID_KNOWN /* an empty kernel over 2^32 channels loops over them all */
        if (r && b && genie_ndim(b) == 4 && genie_numel(b) == 0) work = 2 * FZ_WORK_MAX;
#endif
        fz_put(out, r, work, -1, "conv2d");
        break;
    }
    case OP_TO: {
        genie_dtype to;
        a = fz_arg(in, &work, &dead);
        to = fz_dtype(in);
        /* a float cast keeps a bounded value's bound only if the target's tolerance is no finer
           (f32 -> f64 would hold an f32 op's error to f64's tolerance: chaotic instead) */
        fz.kind = fz_is_float(to) && (!a || dead || fz_tol(to) >= fz_tol(genie_dtype_of(a))) ? FZ_K_MOVE : FZ_K_EXACT;
        r = genie_to_dtype(ctx, a, to);
        fz_put(out, r, work, -1, "to");
        break;
    }
    case OP_COPYLIKE:
        a = fz_arg(in, &work, &dead);
        r = u8(in) & 1 ? genie_contiguous(ctx, a) : genie_clone(ctx, a);
        fz_put(out, r, work, -1, "contiguous");
        break;
    case OP_VIEW:
        a = fz_arg(in, &work, &dead);
        fz_shape(in, &nd, shape);
        if (nd > 0 && nd <= GENIE_MAX_DIMS && u8(in) & 1) shape[u8(in) % nd] = -1;
        r = u8(in) & 1 ? genie_view(ctx, a, nd, shape) : genie_reshape(ctx, a, nd, shape);
        fz_put(out, r, work, -1, "view");
        break;
    case OP_PERMUTE:
        a = fz_arg(in, &work, &dead);
        nd = fz_ndim(in);
        for (i = 0; i < GENIE_MAX_DIMS; i++) st[i] = (u8(in) & 7) ? (nd - 1 - i) : fz_dim(in);
        r = genie_permute(ctx, a, nd, st);
        fz_put(out, r, work, -1, "permute");
        break;
    case OP_TRANSPOSE:
        a = fz_arg(in, &work, &dead);
        r = genie_transpose(ctx, a, fz_dim(in), fz_dim(in));
        fz_put(out, r, work, -1, "transpose");
        break;
    case OP_EXPAND:
        a = fz_arg(in, &work, &dead);
        fz_shape(in, &nd, shape);
        for (i = 0; i < nd && i < GENIE_MAX_DIMS && a && !dead; i++) { /* mostly the input's sizes, right aligned */
            int src = i - (nd - genie_ndim(a));
            if (src >= 0 && (u8(in) & 3)) shape[i] = genie_shape(a)[src] == 1 ? shape[i] : genie_shape(a)[src];
        }
        r = genie_expand(ctx, a, nd, shape);
        fz_put(out, r, work, -1, "expand");
        break;
    case OP_SQUEEZE:
        a = fz_arg(in, &work, &dead);
        r = u8(in) & 1 ? genie_squeeze(ctx, a, fz_dim(in)) : genie_unsqueeze(ctx, a, fz_dim(in));
        fz_put(out, r, work, -1, "squeeze");
        break;
    case OP_SLICE: {
        int64_t d = fz_dim(in), s0 = fz_int(in), s1 = fz_int(in), step = fz_int(in);
        a = fz_arg(in, &work, &dead);
        r = genie_slice(ctx, a, d, s0, s1, step);
        fz_put(out, r, work, -1, "slice");
        break;
    }
    case OP_SELECT:
        a = fz_arg(in, &work, &dead);
        r = genie_select(ctx, a, fz_dim(in), fz_int(in));
        fz_put(out, r, work, -1, "select");
        break;
    case OP_NARROW: {
        int64_t d = fz_dim(in), s0 = fz_int(in), len = fz_int(in);
        a = fz_arg(in, &work, &dead);
        r = genie_narrow(ctx, a, d, s0, len);
        fz_put(out, r, work, -1, "narrow");
        break;
    }
    case OP_DIAGONAL: {
        int64_t off = fz_int(in), d0 = fz_dim(in), d1 = fz_dim(in);
        a = fz_arg(in, &work, &dead);
        r = genie_diagonal(ctx, a, off, d0, d1);
        fz_put(out, r, work, -1, "diagonal");
        break;
    }
    case OP_AS_STRIDED: {
        int64_t off = fz_int(in);
        a = fz_arg(in, &work, &dead);
        fz_shape(in, &nd, shape);
        for (i = 0; i < GENIE_MAX_DIMS; i++) st[i] = fz_int(in);
        r = genie_as_strided(ctx, a, nd, shape, u8(in) == 3 ? NULL : st, off);
        fz_put(out, r, work, -1, "as_strided");
        break;
    }
    case OP_FLIP: {
        int nds = (int)(u8(in) % 4) - 1;
        int64_t dims[3];
        for (i = 0; i < 3; i++) dims[i] = fz_dim(in);
        a = fz_arg(in, &work, &dead);
        r = genie_flip(ctx, a, nds, dims);
        fz_put(out, r, work, -1, "flip");
        break;
    }
    case OP_CAT: {
        genie_tensor *ts[5];
        int n = (int)(u8(in) % 6) - (u8(in) == 255 ? 1 : 0);
        for (i = 0; i < 5; i++) ts[i] = fz_arg(in, &work, &dead);
        r = u8(in) & 1 ? genie_cat(ctx, n, n == 0 && (u8(in) & 1) ? NULL : ts, fz_dim(in)) : genie_stack(ctx, n, ts, fz_dim(in));
        fz_put(out, r, work, -1, "cat");
        break;
    }
    case OP_INDEX: {
        unsigned k = u8(in) % 3;
        int64_t d = fz_dim(in);
        a = fz_arg(in, &work, &dead);
        b = fz_argd(in, &work, &dead);
        r = k == 0 ? genie_index_select(ctx, a, d, b) : k == 1 ? genie_gather(ctx, a, d, b) : genie_embedding(ctx, a, b);
        fz_put(out, r, work, -1, "index");
        break;
    }
    case OP_MASKED_FILL:
        a = fz_arg(in, &work, &dead);
        b = fz_argd(in, &work, &dead);
        r = genie_masked_fill(ctx, a, b, fz_double(in));
        fz_put(out, r, work, -1, "masked_fill");
        break;
    case OP_TRI:
        a = fz_arg(in, &work, &dead);
        r = u8(in) & 1 ? genie_tril(ctx, a, fz_int(in)) : genie_triu(ctx, a, fz_int(in));
        fz_put(out, r, work, -1, "tril");
        break;
    case OP_SPLIT: {
        unsigned k = u8(in) % 3;
        int64_t x = fz_int(in), d = fz_dim(in);
        genie_tuple *tp;
        a = fz_arg(in, &work, &dead);
        if (k == 2 && a && !dead && genie_numel(a) > 0 && x > 0 && x < 100000 && genie_ndim(a) > 0 &&
            genie_shape(a)[0] / x > 4096)
            break; /* thousands of pieces: correct, only slow */
        tp = k == 0 ? genie_chunk(ctx, a, x, d) : k == 1 ? genie_unbind(ctx, a, d) : genie_split(ctx, a, x, d);
        fz_keep_tuple(in, tp, work, was_ok, dead, "split", 0);
        break;
    }
    case OP_SORT: {
        unsigned k = u8(in) % 4;
        int64_t d = fz_dim(in), kk = fz_int(in);
        genie_tuple *tp;
        a = fz_arg(in, &work, &dead);
        tp = k == 0 ? genie_topk(ctx, a, kk, d, u8(in) & 1, u8(in) & 1) : k == 1 ? genie_sort(ctx, a, d, u8(in) & 1)
           : k == 2 ? genie_max_dim(ctx, a, d, u8(in) & 1) : genie_min_dim(ctx, a, d, u8(in) & 1);
        fz_keep_tuple(in, tp, work * 20, was_ok, dead, "sort", 1);
        break;
    }
    case OP_INPLACE: {
        unsigned k = u8(in) % 9;
        fz_slot *ds = fz_slot_of(in);
        a = ds->t;
#if !GENIE__QUARANTINE
        if (a && fz_dead(ds)) break;
#endif
        if (a && fz_dead(ds)) dead = 1;
        work = ds->work;
        if (a) fz.in_approx = ds->approx;
        fz.kind = k == 6 || k == 7 || k == 8 ? FZ_K_MOVE : FZ_K_EXACT;
        b = k == 4 || k == 5 || k == 7 ? NULL : k == 8 ? fz_argd(in, &work, &dead) : fz_arg(in, &work, &dead);
        switch (k) {
        case 0: r = genie_add_(ctx, a, b); break;
        case 1: r = genie_sub_(ctx, a, b); break;
        case 2: r = genie_mul_(ctx, a, b); break;
        case 3: r = genie_div_(ctx, a, b); break;
        case 4: r = genie_fill_(ctx, a, fz_double(in)); break;
        case 5: r = genie_zero_(ctx, a); break;
        case 6: r = genie_copy_(ctx, a, b); break;
        case 7: r = genie_relu_(ctx, a); break;
        default: r = genie_masked_fill_(ctx, a, b, fz_double(in)); break;
        }
        fz_check_null(r, "in-place");
        if (dead) fz_expect_dead(r, was_ok, "in-place on a dead handle");
        if (r) {
            FZ_CHECK(r == a, "in-place returns dst");
            fz_check_handle(r, "in-place");
            fz_log("%d: %s%.0d (%s)\n", "in-place", 0, genie_op_name(r));
            fz_after_inplace(a, work, fz_result_approx(r));
        }
        break;
    }
    case OP_MATERIALIZE:
        fz_materialize(in);
        break;
    case OP_MATERIALIZE2: {
        genie_tensor *ts[4];
        int n = (int)(u8(in) % 5);
        for (i = 0; i < 4; i++) ts[i] = fz_arg(in, &work, &dead);
        for (i = 0; i < n; i++)
            if (!ts[i]) return;
        if (work > FZ_WORK_MAX) return;
        {
            genie_result rr = genie_realize(ctx, n, ts);
            fz_record("realize n", rr, fz.in_approx, 0, 0, NULL, 0);
            if (rr != GENIE_OK) FZ_CHECK(genie_status(ctx) != GENIE_OK, "realize failed without an error");
            if (dead && was_ok && n == 4) FZ_CHECK(rr == GENIE_ERR_INVALID_ARG, "realize of a dead handle");
        }
        break;
    }
    case OP_POOL:
        if (u8(in) & 1) {
            /* only from a clean state: a push that fails (out of memory) leaves an error, and
               a sticky one from before would hide that failure, and fz.depth would lose step */
            if (fz.depth < 6 && genie_status(ctx) == GENIE_OK) { genie_pool_push(ctx); if (genie_status(ctx) == GENIE_OK) fz.depth++; }
        } else {
            fz_pool_pop();
        }
        break;
    case OP_RETAIN: {
        fz_slot *s = fz_slot_of(in);
        if (s->t && !fz_dead(s) && s->own < 100) { genie_retain(s->t); s->own++; }
#if GENIE__QUARANTINE /* elsewhere a dead handle's slot may serve another tensor: never use one */
        else if (s->t) genie_retain(s->t); /* dead: nothing happens */
#endif
        break;
    }
    case OP_RELEASE: {
        fz_slot *s = fz_slot_of(in);
        if (s->t && s->own > 0) { genie_release(s->t); s->own--; }
#if GENIE__QUARANTINE
        else if (s->t && fz_dead(s)) genie_release(s->t); /* dead: nothing happens */
#endif
        break;
    }
    case OP_TUPLE_RELEASE: {
        int k = (int)(u8(in) % FZ_TUPLES), j;
        if (!fz.tu[k].tp) break;
        if (fz.tu[k].dead) { /* its pool was popped, or it was released in a no_pool context */
            int was_ok = genie_status(fz.ctx) == GENIE_OK;
            genie_tuple_release(fz.tu[k].tp); /* nothing */
            FZ_CHECK(genie_tuple_size(fz.tu[k].tp) == 0, "size of a dead tuple");
            FZ_CHECK(genie_tuple_get(fz.tu[k].tp, 0) == NULL, "get of a dead tuple");
            FZ_CHECK(!was_ok || genie_status(fz.ctx) == GENIE_ERR_INVALID_ARG, "get of a dead tuple: its error");
            break;
        }
        for (j = 0; j < FZ_SLOTS; j++)
            if (fz.s[j].tup == k) { fz.s[j].held = 0; fz.s[j].tup = -1; }
        genie_tuple_release(fz.tu[k].tp);
        if (fz.no_pool) fz_tuple_dies(k);
        else {
            FZ_CHECK(genie_tuple_size(fz.tu[k].tp) == 0 && genie_tuple_get(fz.tu[k].tp, 0) == NULL, "released tuple");
            fz.tu[k].alive = 0;
        }
        break;
    }
    case OP_SCOPE: {
        static const char *names[] = {"block", "attn", "", "mlp.fc1", "a.b.c"};
        unsigned k = u8(in) % 4;
        if (k == 0) genie_scope_push(ctx, names[u8(in) % 5]);
        else if (k == 1) genie_scope_pop(ctx);
        else if (k == 2) genie_set_phase(ctx, u8(in) & 1 ? names[u8(in) % 5] : NULL);
        else genie_scope_push(ctx, NULL);
        break;
    }
    case OP_CLEAR:
        genie_clear_error(ctx);
        FZ_CHECK(genie_status(ctx) == GENIE_OK, "clear_error");
        break;
    case OP_LLM: {
        unsigned k = u8(in) % 5;
        if (k == 0) { /* rms_norm over the last nn dims, mostly of x's own sizes */
            int nn = (int)(u8(in) % 4) - (u8(in) == 255 ? 2 : 0);
            int64_t ns[4];
            genie_tensor *w;
            a = fz_arg(in, &work, &dead);
            for (i = 0; i < 4; i++) ns[i] = (u8(in) & 3) == 0 ? fz_size(in) : -1;
            for (i = 0; i < 4 && a && !dead && genie_ndim(a) > 0; i++)
                if (ns[i] == -1) ns[i] = genie_shape(a)[(genie_ndim(a) - nn + i + 16 * GENIE_MAX_DIMS) % genie_ndim(a)];
            w = u8(in) & 1 ? fz_arg(in, &work, &dead) : NULL;
            r = genie_rms_norm(ctx, a, nn, u8(in) == 7 ? NULL : ns, w, u8(in) & 1 ? NAN : fz_double(in));
            fz_put(out, r, work, -1, "rms_norm");
        } else if (k == 1) { /* rope of x [..., T, D] at positions [T] */
            int64_t T, D, sh[3], rd;
            genie_dtype dt = (genie_dtype)(u8(in) % 4); /* f32, f64, f16, bf16 */
            if (u8(in) & 3) {
                sh[0] = 1 + u8(in) % 2; sh[1] = T = u8(in) % 6; sh[2] = D = 2 * (u8(in) % 9);
                a = fz_tmp(genie_randn(ctx, dt, 3, sh, u8(in)));
            } else {
                a = fz_arg(in, &work, &dead);
                T = a && !dead && genie_ndim(a) >= 2 ? genie_shape(a)[genie_ndim(a) - 2] : 1;
                D = a && !dead && genie_ndim(a) >= 1 ? genie_shape(a)[genie_ndim(a) - 1] : 2;
            }
            if (u8(in) & 3) { /* positions 0.., or shifted (each byte read in its own statement: a fixed order) */
                genie_dtype pdt = u8(in) & 1 ? GENIE_I64 : GENIE_I32;
                double p0 = (double)(u8(in) % 4);
                b = fz_tmp(genie_arange(ctx, pdt, p0, p0 + (double)T, 1));
            } else {
                b = fz_argd(in, &work, &dead);
            }
            rd = u8(in) % 3 == 0 ? fz_int(in) : u8(in) & 1 ? 0 : D / 2 * 2 - 2 * (int64_t)(u8(in) % 2);
            {
                double theta = u8(in) & 1 ? 10000.0 : fz_double(in);
                int inter = u8(in) % 5 == 4 ? 2 : (int)(u8(in) & 1);
                r = genie_rope(ctx, a, b, rd, theta, inter);
            }
            fz_put(out, r, work, -1, "rope");
        } else if (k == 2 || k == 3) { /* attention: q [B?, Hkv g, L, E], k [B?, Hkv, S, E], v [B?, Hkv, S, Ev] */
            static const int64_t es[] = {1, 2, 3, 4, 7, 8, 16, 17, 32, 64};
            int64_t B = u8(in) % 3, H = 1 + u8(in) % 2, g = 1 + u8(in) % 2, L = u8(in) % 6, S = u8(in) % 6;
            int64_t E = es[u8(in) % 10], Ev = u8(in) & 1 ? E : es[u8(in) % 10], sq[4], sk[4], sv[4], sm[2];
            genie_dtype dt = (genie_dtype)(u8(in) % 4);
            genie_tensor *q, *kk, *v, *mask = NULL;
            int off = B ? 1 : 0, causal;
            sq[0] = sk[0] = sv[0] = B;
            sq[off] = H * g; sk[off] = sv[off] = H;
            sq[off + 1] = L; sk[off + 1] = sv[off + 1] = S;
            sq[off + 2] = sk[off + 2] = E; sv[off + 2] = Ev;
            if (k == 2) {
                q = fz_tmp(genie_randn(ctx, dt, 3 + off, sq, u8(in)));
                kk = fz_tmp(genie_randn(ctx, dt, 3 + off, sk, u8(in)));
                v = fz_tmp(genie_randn(ctx, dt, 3 + off, sv, u8(in)));
            } else { /* any slots: mostly shape errors, sometimes views and odd dtypes */
                q = fz_arg(in, &work, &dead);
                kk = fz_arg(in, &work, &dead);
                v = fz_arg(in, &work, &dead);
            }
            sm[0] = L;
            sm[1] = S;
            switch (u8(in) % 5) {
            case 1: mask = fz_tmp(genie_gt(ctx, fz_tmp(genie_rand(ctx, GENIE_F32, 2, sm, u8(in))), fz_tmp(genie_full(ctx, GENIE_F32, 0, NULL, 0.3)))); break;
            case 2: mask = fz_tmp(genie_randn(ctx, dt, 2, sm, u8(in))); break;
            case 3: mask = fz_argd(in, &work, &dead); break;
            default: break;
            }
            causal = u8(in) % 3 == 0;
            r = genie_scaled_dot_product_attention(ctx, q, kk, v, mask, causal, u8(in) & 1 ? NAN : fz_double(in));
            if (r && q && genie_ndim(q) > 0) work += fz_numel_d(r) * (double)(S + 1) * (double)E;
            fz_put(out, r, work, -1, "sdpa");
        } else {
            a = fz_arg(in, &work, &dead);
            r = genie_cumsum(ctx, a, fz_dim(in));
            if (r && a && genie_ndim(a) > 0) work += fz_numel_d(r) * 8;
            fz_put(out, r, work, -1, "cumsum");
        }
        break;
    }
    case OP_SCATTER: { /* scatter, scatter_add, index_copy_ into a slot, with a built index (some out of range) */
        unsigned k = u8(in) % 3;
        int64_t d = (int64_t)(u8(in) % 3) - (u8(in) == 9 ? 1 : 0), ish[GENIE_MAX_DIMS], idx[64], m = 1;
        fz_slot *ds = fz_slot_of(in);
        int built = (u8(in) & 3) != 0, tn;
        a = ds->t;
#if !GENIE__QUARANTINE
        if (a && fz_dead(ds)) break;
#endif
        if (a && fz_dead(ds)) dead = 1;
        if (a) { work = ds->work; fz.in_approx = ds->approx; }
        if (!a || dead || !built) { /* any slots */
            b = fz_argd(in, &work, &dead);
            c = fz_arg(in, &work, &dead);
        } else {
            int64_t dn; /* d as an index into the shapes (d itself, negative now and then, goes to the call) */
            tn = genie_ndim(a);
            if (d >= tn) d = tn > 0 ? tn - 1 : 0;
            dn = d < 0 ? d + tn : d;
            for (i = 0; i < tn; i++) { /* scatter: at most t's sizes; index_copy_: t's, dim d its own */
                ish[i] = genie_shape(a)[i] < 3 ? genie_shape(a)[i] : (int64_t)(u8(in) % 4);
                if (k == 2) ish[i] = i == dn ? (int64_t)(u8(in) % 4) : genie_shape(a)[i];
            }
            m = k == 2 ? (tn > 0 ? ish[dn] : 1) : fz_count(tn, ish);
            if (m < 0 || m > 64 || fz_count(tn, ish) > 4096) break;
            for (i = 0; i < m; i++) { /* in range, but now and then one past the end */
                int64_t lim = tn > 0 ? genie_shape(a)[dn] : 1;
                unsigned bb = u8(in);
                idx[i] = bb == 251 ? lim : bb == 252 ? -1 : lim > 0 ? (int64_t)bb % lim : 0;
            }
            b = fz_tmp(k == 2 ? genie_from_data(ctx, GENIE_I64, tn > 0 ? 1 : 0, &m, idx)
                              : genie_from_data(ctx, GENIE_I64, tn, ish, idx));
            c = fz_tmp(genie_to_dtype(ctx, fz_tmp(genie_mul_scalar(ctx, fz_tmp(genie_randn(ctx, GENIE_F32, tn, ish, u8(in))), 4.0)),
                                      genie_dtype_of(a)));
        }
        if (k == 0 || k == 1) {
            r = k == 0 ? genie_scatter(ctx, a, d, b, c) : genie_scatter_add(ctx, a, d, b, c);
            fz.kind = k == 0 ? FZ_K_MOVE : FZ_K_EXACT;
            if (dead) fz_expect_dead(r, was_ok, "scatter of a dead handle");
            fz_put(out, r, work, -1, k == 0 ? "scatter" : "scatter_add");
        } else {
            r = genie_index_copy_(ctx, a, d, b, c);
            fz_check_null(r, "index_copy_");
            if (dead) fz_expect_dead(r, was_ok, "index_copy_ of a dead handle");
            if (r) {
                FZ_CHECK(r == a, "index_copy_ returns t");
                fz_log("%d: %s%.0d (%s)\n", "index_copy_", 0, genie_op_name(r));
                fz_after_inplace(a, work, fz_result_approx(r));
            }
        }
        break;
    }
    case OP_SAFE: { /* save up to 3 slots, reopen, each read back bit for bit */
        static const char *const nm[] = {"a", "b.weight", "c"}, *const nm_dup[] = {"a", "a", "c"};
        genie_tensor *ts[3], *got[3];
        genie_safetensors *sf = NULL;
        int n = 1 + (int)(u8(in) % 3), dup = u8(in) == 5;
        genie_result rr;
        for (i = 0; i < 3; i++) { /* only the first n are saved: only their deaths count */
            int d = 0;
            ts[i] = fz_arg(in, &work, &d);
            if (i < n) dead |= d;
        }
        if (work > FZ_WORK_MAX) break;
        for (i = 0; i < n; i++)
            if (!ts[i]) return;
#if FZ_AVOID_KNOWN /* the save reads a dead handle's context */
        if (dead) break;
#endif
        rr = genie_safetensors_save(ctx, fz.path, n, dup ? nm_dup : nm, ts);
        fz_record("safetensors_save", rr, fz.in_approx, 0, 0, NULL, 0);
        if (rr != GENIE_OK) FZ_CHECK(genie_status(ctx) != GENIE_OK && genie_last_error(ctx)[0], "save failed without a message");
        if (dead && was_ok) FZ_CHECK(rr == GENIE_ERR_INVALID_ARG, "safetensors_save of a dead handle");
        if (rr != GENIE_OK) break;
        FZ_CHECK(!dup || n < 2, "safetensors_save accepted a name twice");
        rr = genie_safetensors_open(ctx, fz.path, &sf);
        if (rr == GENIE_ERR_OOM) break; /* the harness's memory caps */
        FZ_CHECK(rr == GENIE_OK && sf && genie_safetensors_count(sf) == n, "safetensors_open of what save wrote");
        for (i = 0; i < n; i++) { /* all read back before any slot changes: a slot's old handle may be one saved */
            static unsigned char b0[8192], b1[8192];
            genie_tensor *t = genie_safetensors_get(sf, nm[i]);
            got[i] = t;
            size_t bytes = (size_t)genie_numel(ts[i]) * genie_dtype_size(genie_dtype_of(ts[i]));
            FZ_CHECK(t && genie_dtype_of(t) == genie_dtype_of(ts[i]) && genie_ndim(t) == genie_ndim(ts[i]) &&
                     genie_numel(t) == genie_numel(ts[i]), "safetensors_get of what save wrote");
            if (bytes <= sizeof b0) {
                genie_result r0 = genie_read(ctx, ts[i], genie_dtype_of(t), b0, bytes), r1 = genie_read(ctx, t, genie_dtype_of(t), b1, bytes);
                FZ_CHECK((r0 == GENIE_OK && r1 == GENIE_OK && memcmp(b0, b1, bytes) == 0) || r0 == GENIE_ERR_OOM || r1 == GENIE_ERR_OOM,
                         "a tensor read back from safetensors differs from the one saved");
            }
        }
        for (i = 0; i < n; i++) fz_put((int)(u8(in) % FZ_SLOTS), got[i], 0, -1, "safetensors_get");
        genie_safetensors_close(sf);
        break;
    }
    case OP_INSPECT: { /* the calls that never materialize, on any handle (a dead one under quarantine) */
        fz_slot *s = fz_slot_of(in);
        const char *role, *path, *phase, *name;
        if (!s->t) break;
#if !GENIE__QUARANTINE
        if (fz_dead(s)) break;
#endif
#if FZ_AVOID_KNOWN /* genie_role reads a dead handle */
        if (fz_dead(s)) break;
#endif
        role = genie_role(s->t);
        path = genie_module_path(s->t);
        phase = genie_phase(s->t);
        name = genie_op_name(s->t);
        FZ_CHECK(role && path && phase && name, "inspection returned NULL");
        if (fz_dead(s)) FZ_CHECK(!role[0] && !path[0], "inspection of a dead handle returned a string");
        (void)genie_work_of(ctx, u8(in) & 1 ? NULL : "", u8(in) & 1 ? NULL : role);
        break;
    }
    case OP_TAPE: { /* one structure twice on fresh data: the second realize is a tape-cache hit */
        unsigned k = u8(in) % 3, rep;
        st[0] = -1;
        a = fz_arg(in, &work, &dead);
        if (!a || dead || !fz_is_float(genie_dtype_of(a)) || genie_numel(a) > 1024 || work > FZ_WORK_MAX) break;
        fz.kind = k == 0 ? FZ_K_EXACT : FZ_K_BOUNDED;
        for (rep = 0; rep < 2; rep++) {
            static double vals[1024];
            genie_tensor *x = fz_tmp(genie_rand(ctx, genie_dtype_of(a), genie_ndim(a), genie_shape(a), u8(in)));
            genie_tensor *y = k == 0 ? genie_add(ctx, fz_tmp(genie_mul(ctx, a, x)), a)
                            : k == 1 ? genie_sum(ctx, fz_tmp(genie_mul(ctx, fz_tmp(genie_exp(ctx, x)), a)), 1, &st[0], 0)
                                     : genie_softmax(ctx, fz_tmp(genie_add(ctx, a, x)), -1);
            genie_result rr;
            if (!y) break;
            fz_tmp(y);
            rr = genie_read(ctx, y, GENIE_F64, vals, (size_t)genie_numel(y) * sizeof(double));
            fz_record("tape repeat", rr, fz_result_approx(y), GENIE_F64, genie_dtype_of(y), vals, (size_t)genie_numel(y) * sizeof(double));
        }
        break;
    }
    case OP_MISC: {
        unsigned k = u8(in) % 4;
        if (k == 0) {
            genie_tensor *ts[3];
            for (i = 0; i < 3; i++) ts[i] = fz_arg(in, &work, &dead);
            if (fz.devnull) genie_dump_dot(ctx, 3, ts, fz.devnull);
        } else if (k == 1) {
            genie_stats stt = genie_get_stats(ctx);
            FZ_CHECK(stt.bytes_live <= stt.bytes_peak, "stats");
        } else if (k == 2) {
            int nt = (int)(u8(in) % 4) - 1;
            genie_set_num_threads(ctx, fz.diff && nt >= 0 ? fz.threads : nt); /* a run keeps its threads */
        } else {
            a = fz_arg(in, &work, &dead);
            b = fz_arg(in, &work, &dead);
            (void)genie_shares_storage(a, b);
            (void)genie_is_contiguous(a);
            (void)genie_strides(a);
        }
        break;
    }
    }
}

/* One run of the program in data[skip..] on a context made from desc; hashbits < 0: unset. */
static void fz_run(const uint8_t *data, size_t size, size_t skip, const genie_ctx_desc *desc, int hashbits) {
    fz_in in;
    int k;
    in.p = data;
    in.n = size;
    in.i = skip;
    if (!fz.devnull) fz.devnull = fopen("/dev/null", "w");
    fz_calls = 0;
    if (hashbits >= 0) {
        char hb[16];
        snprintf(hb, sizeof hb, "%d", hashbits);
        setenv("GENIE_TAPE_HASH_BITS", hb, 1);
    } else {
        unsetenv("GENIE_TAPE_HASH_BITS");
    }
    fz.ctx = genie_ctx_create(desc);
    if (!fz.ctx) return;
    fz.no_pool = desc->no_pool;
    fz.threads = desc->n_threads;
    fz.depth = 0;
    fz.step = 0;
    for (k = 0; k < FZ_SLOTS; k++) { memset(&fz.s[k], 0, sizeof fz.s[k]); fz.s[k].tup = -1; }
    memset(fz.tu, 0, sizeof fz.tu);
    for (k = 0; k < (int)sizeof fz.blob; k++) fz.blob[k] = (unsigned char)(k * 37 + 11);
    for (k = 0; k < (int)sizeof fz.blob01; k++) fz.blob01[k] = (unsigned char)(fz.blob[k] & 1);
    for (k = 0; k < 64 && fz_more(&in); k++) fz_step(&in);
    /* the context works on after clearing the error (unless allocations are failing) */
    genie_clear_error(fz.ctx);
    for (k = 0; k < FZ_SLOTS && fz.diff; k++) { /* the differential mode reads every live slot at the end */
        static unsigned char buf[FZ_EV_BYTES];
        fz_slot *s = &fz.s[k];
        size_t bytes;
        genie_result r;
        if (!s->t || fz_dead(s) || s->work > FZ_WORK_MAX) continue;
        bytes = (size_t)genie_numel(s->t) * genie_dtype_size(genie_dtype_of(s->t));
        if (bytes > sizeof buf) continue;
        r = genie_read(fz.ctx, s->t, genie_dtype_of(s->t), buf, bytes);
        fz_record("final read", r, s->approx, genie_dtype_of(s->t), genie_dtype_of(s->t), buf, bytes);
        genie_clear_error(fz.ctx);
    }
    if (fz_fail_at < 0) {
        int64_t two = 2;
        float v[2];
        genie_tensor *t = genie_add_scalar(fz.ctx, genie_ones(fz.ctx, GENIE_F32, 1, &two), 1.0);
        FZ_CHECK(t && genie_read(fz.ctx, t, GENIE_F32, v, sizeof v) == GENIE_OK && v[0] == 2.0f && v[1] == 2.0f,
                 "the context works on after genie_clear_error");
        if (fz.no_pool) genie_release(t);
    }
    for (k = 0; k < FZ_SLOTS; k++) fz_drop_slot(k);
    for (k = 0; k < FZ_TUPLES; k++)
        if (fz.no_pool && fz.tu[k].tp && !fz.tu[k].dead) genie_tuple_release(fz.tu[k].tp);
    while (fz.depth > 0) fz_pool_pop();
    genie_ctx_destroy(fz.ctx);
    fz.ctx = NULL;
    if (fz_live_blocks != 0) {
        fprintf(stderr, "fuzz_api: %ld blocks (%zu bytes) leaked after genie_ctx_destroy\n", fz_live_blocks, fz_live_bytes);
        abort();
    }
}

/* ---- the differential comparison ---- */
static double fz_f16(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h >> 15 ? -v : v;
}
static double fz_elem(const unsigned char *p, int dt) {
    float f;
    double d;
    uint16_t h;
    uint32_t u;
    switch (dt) {
    case GENIE_F32: memcpy(&f, p, 4); return f;
    case GENIE_F64: memcpy(&d, p, 8); return d;
    case GENIE_F16: memcpy(&h, p, 2); return fz_f16(h);
    default: memcpy(&h, p, 2); u = (uint32_t)h << 16; memcpy(&f, &u, 4); return f; /* bf16 */
    }
}
static double fz_tol(int dt) { /* tests/programs/prog.c's relative tolerance of a dtype */
    return dt == GENIE_F64 ? 1e-9 : dt == GENIE_F32 ? 2e-5 : dt == GENIE_F16 ? 2e-3 : dt == GENIE_BF16 ? 1.6e-2 : 0;
}
static double fz_max_finite(int dt) {
    return dt == GENIE_F64 ? 1.79e308 : dt == GENIE_F32 ? 3.4e38 : dt == GENIE_F16 ? 65504 : 3.38e38;
}
/* Element i of two reads agrees: -1 if it does, else i. */
static long fz_cmp_vals(const fz_ev *e, const unsigned char *x, const unsigned char *y) {
    size_t sz = genie_dtype_size((genie_dtype)e->as), i;
    int fl = fz_is_float((genie_dtype)e->as);
    double r = fz_tol(e->as) > fz_tol(e->tdt) ? fz_tol(e->as) : fz_tol(e->tdt);
    if (e->approx == FZ_CHAOTIC || (e->approx == FZ_BOUNDED && !fl) || sz == 0) return -1;
    for (i = 0; i + sz <= e->len; i += sz) {
        if (!fl) {
            if (memcmp(x + i, y + i, sz) != 0) return (long)(i / sz);
            continue;
        }
        {
            double a = fz_elem(x + i, e->as), b = fz_elem(y + i, e->as);
            if (isnan(a) || isnan(b)) { /* a: the reference's */
                if (isnan(a) && isnan(b)) continue;
                /* a bounded value the reference's double sum overflows: an f32 accumulator
                   overflows on the way and may meet +inf and -inf (NaN) */
                if (e->approx == FZ_BOUNDED && isinf(a)) continue;
                return (long)(i / sz);
            }
            if (a == b) continue; /* -0 == +0 */
            if (e->approx == FZ_EXACT) return (long)(i / sz);
            if (isinf(a) || isinf(b)) {
                double fin = isinf(a) ? b : a, lim = fz_max_finite(e->as) < fz_max_finite(e->tdt) ? fz_max_finite(e->as) : fz_max_finite(e->tdt);
                if (!isinf(fin) && (fin > 0) == ((isinf(a) ? a : b) > 0) && fabs(fin) > 0.5 * lim) continue;
                return (long)(i / sz);
            }
            if (fabs(a - b) <= r * fabs(a) + r * 0.5) continue;
            return (long)(i / sz);
        }
    }
    return -1;
}
static void fz_mismatch(const fz_trace *ref, const fz_trace *run, int e, const char *path, int threads, int hashbits, long elem) {
    const fz_ev *a = &ref->ev[e], *b = &run->ev[e];
    fprintf(stderr, "fuzz_api diff: %s with %d thread(s) (GENIE_TAPE_HASH_BITS %d) differs from the reference at step %d, "
                    "event %d (%s, values %s):\n",
            path, threads, hashbits, a->step, e, a->what, a->approx == FZ_EXACT ? "exact" : a->approx == FZ_BOUNDED ? "bounded" : "chaotic");
    fprintf(stderr, "  status: reference %s, %s %s\n", genie_result_string((genie_result)a->status), path,
            genie_result_string((genie_result)b->status));
    if (elem >= 0) {
        size_t sz = genie_dtype_size((genie_dtype)a->as);
        const unsigned char *x = ref->bytes + a->off + (size_t)elem * sz, *y = run->bytes + b->off + (size_t)elem * sz;
        if (fz_is_float((genie_dtype)a->as))
            fprintf(stderr, "  element %ld (as %s, of a %s value): reference %.17g, %s %.17g\n", elem, genie_dtype_name((genie_dtype)a->as),
                    genie_dtype_name((genie_dtype)a->tdt), fz_elem(x, a->as), path, fz_elem(y, a->as));
        else {
            int64_t vx = 0, vy = 0;
            memcpy(&vx, x, sz);
            memcpy(&vy, y, sz);
            fprintf(stderr, "  element %ld (as %s): reference %lld, %s %lld\n", elem, genie_dtype_name((genie_dtype)a->as), (long long)vx, path, (long long)vy);
        }
    }
    fprintf(stderr, "  the reference run's op sequence:\n%.*s", (int)ref->nlog, ref->log);
    abort();
}
/* Compare a run's trace with the reference's: abort on a difference the rules do not allow. */
static void fz_compare(const fz_trace *ref, const fz_trace *run, const char *path, int threads, int hashbits) {
    int e;
    for (e = 0; e < ref->nev && e < run->nev; e++) {
        const fz_ev *a = &ref->ev[e], *b = &run->ev[e];
        long bad = -1;
        if (a->status != b->status) {
            if (a->status == GENIE_ERR_OOM || b->status == GENIE_ERR_OOM || a->approx == FZ_CHAOTIC) return; /* may diverge from here */
            fz_mismatch(ref, run, e, path, threads, hashbits, -1);
        }
        if (a->len != b->len) fz_mismatch(ref, run, e, path, threads, hashbits, -1);
        if (a->len) bad = fz_cmp_vals(a, ref->bytes + a->off, run->bytes + b->off);
        if (bad >= 0) fz_mismatch(ref, run, e, path, threads, hashbits, bad);
    }
    if (ref->nev != run->nev && ref->nev < FZ_EV_MAX && run->nev < FZ_EV_MAX) fz_mismatch(ref, run, e < ref->nev ? e : ref->nev - 1, path, threads, hashbits, -1);
}
static void fz_diff_input(const uint8_t *data, size_t size) {
    static const int hb_of[4] = {-1, 0, 1, 4};
    genie_ctx_desc desc;
    unsigned cfg = size ? data[0] : 0;
    int hashbits = hb_of[(cfg >> 1) & 3], p, th;
    memset(&desc, 0, sizeof desc);
    desc.no_pool = cfg & 1;
    fz_fail_at = -1;
    fz.v2 = 1;
    fz.diff = 1;
    if (!fz.path[0]) snprintf(fz.path, sizeof fz.path, "/tmp/genie_fuzz_%ld.safetensors", (long)getpid());
    desc.cpu = GENIE_CPU_REFERENCE;
    desc.n_threads = 1;
    fz_tr_ref.nev = 0; fz_tr_ref.nbytes = 0; fz_tr_ref.nlog = 0;
    fz.tr = &fz_tr_ref;
    fz_run(data, size, 1, &desc, -1);
    if (getenv("FZ_VERBOSE")) { /* the reference run's ops and events */
        int e, nv[3] = {0, 0, 0}, nf = 0;
        for (e = 0; e < fz_tr_ref.nev; e++) {
            if (fz_tr_ref.ev[e].len) nv[fz_tr_ref.ev[e].approx]++;
            if (fz_tr_ref.ev[e].status != GENIE_OK) nf++;
        }
        if (getenv("FZ_VERBOSE")[0] == '2') fprintf(stderr, "%.*s", (int)fz_tr_ref.nlog, fz_tr_ref.log);
        fprintf(stderr, "fz: %d events (%d not OK), values read: %d exact, %d bounded, %d chaotic\n", fz_tr_ref.nev, nf, nv[0], nv[1], nv[2]);
    }
    for (p = GENIE_CPU_GENERIC; p < GENIE_CPU_COUNT; p++) {
        if (!genie_cpu_supported((genie_cpu)p)) continue;
        for (th = 1; th <= 2; th++) {
            desc.cpu = (genie_cpu)p;
            desc.n_threads = th;
            fz_tr_run.nev = 0; fz_tr_run.nbytes = 0; fz_tr_run.nlog = 0;
            fz.tr = &fz_tr_run;
            fz_run(data, size, 1, &desc, hashbits);
            fz_compare(&fz_tr_ref, &fz_tr_run, genie_cpu_name((genie_cpu)p), th, hashbits);
        }
    }
    fz.tr = NULL;
    remove(fz.path);
}

#ifndef FZ_DIFF_DEFAULT
#define FZ_DIFF_DEFAULT 0 /* the fuzz_diff build defines it 1 */
#endif
static int fz_mode_diff = FZ_DIFF_DEFAULT;
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    genie_ctx_desc desc;
    unsigned cfg;
    if (fz_mode_diff) {
        fz_diff_input(data, size);
        return 0;
    }
    fz.v2 = 0;
    fz.diff = 0;
    fz.tr = NULL;
    cfg = size ? data[0] : 0;
    memset(&desc, 0, sizeof desc);
    desc.n_threads = cfg & 1 ? 2 : 1;
    desc.no_pool = (cfg >> 1) & 1;
    desc.cpu = (cfg >> 2) & 1 ? GENIE_CPU_REFERENCE : GENIE_CPU_AUTO;
    {
        fz_in in;
        in.p = data; in.n = size; in.i = 1;
        fz_fail_at = (cfg >> 3) == 31 ? (long)u8(&in) * 4 + (long)u8(&in) + 1 : -1; /* one allocation fails */
        fz_run(data, size, in.i, &desc, -1);
    }
    return 0;
}
