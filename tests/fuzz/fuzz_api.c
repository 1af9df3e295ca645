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
   over a huge stride-0 window would be correct, only slow). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
} fz_slot;
typedef struct { genie_tuple *tp; int depth, alive, dead; } fz_tuple; /* dead: freed, kept only under quarantine */
static struct {
    genie_ctx *ctx;
    int no_pool, depth;
    fz_slot s[FZ_SLOTS];
    fz_tuple tu[FZ_TUPLES];
    unsigned char blob[4096];
    FILE *devnull;
} fz;

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
    return s->t;
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
    } else if (how == 1) {
        static unsigned char buf[8192 + 16];
        genie_dtype as = (genie_dtype)(u8(in) % GENIE_Q8_0); /* an element dtype */
        int64_t n = dead ? 1 : genie_numel(s->t);
        size_t bytes = (size_t)n * genie_dtype_size(as);
        if (bytes > 8192) return;
        memset(buf, 0xA5, sizeof buf);
        r = genie_read(fz.ctx, s->t, as, buf, bytes);
        FZ_CHECK(buf[bytes] == 0xA5, "genie_read wrote past the bytes it was given");
    } else if (how == 2) {
        double x;
        int64_t xi;
        r = u8(in) & 1 ? genie_item(fz.ctx, s->t, &x) : genie_item_i64(fz.ctx, s->t, &xi);
    } else {
        const void *p = NULL;
        r = genie_data(fz.ctx, s->t, &p);
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
static void fz_keep_tuple(fz_in *in, genie_tuple *tp, double work, int was_ok, int dead, const char *what) {
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
    OP_MISC, OP_COUNT
};

static void fz_step(fz_in *in) {
    unsigned op = u8(in) % OP_COUNT;
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
            r = genie_from_data(ctx, dt, nd, shape, n == 0 && (u8(in) & 1) ? NULL : fz.blob);
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
        r = genie_from_blob(ctx, dt, nd, shape, strided ? st : NULL, null_data ? NULL : fz.blob, NULL, NULL);
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
        unsigned k = u8(in) % (sizeof un / sizeof un[0]);
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
        a = fz_arg(in, &work, &dead);
        r = sc[k](ctx, a, fz_double(in));
        fz_put(out, r, work, -1, "scalar");
        break;
    }
    case OP_WHERE:
        a = fz_arg(in, &work, &dead);
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
        fz_put(out, r, work, -1, "conv2d");
        break;
    }
    case OP_TO:
        a = fz_arg(in, &work, &dead);
        r = genie_to_dtype(ctx, a, fz_dtype(in));
        fz_put(out, r, work, -1, "to");
        break;
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
        b = fz_arg(in, &work, &dead);
        r = k == 0 ? genie_index_select(ctx, a, d, b) : k == 1 ? genie_gather(ctx, a, d, b) : genie_embedding(ctx, a, b);
        fz_put(out, r, work, -1, "index");
        break;
    }
    case OP_MASKED_FILL:
        a = fz_arg(in, &work, &dead);
        b = fz_arg(in, &work, &dead);
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
        fz_keep_tuple(in, tp, work, was_ok, dead, "split");
        break;
    }
    case OP_SORT: {
        unsigned k = u8(in) % 4;
        int64_t d = fz_dim(in), kk = fz_int(in);
        genie_tuple *tp;
        a = fz_arg(in, &work, &dead);
        tp = k == 0 ? genie_topk(ctx, a, kk, d, u8(in) & 1, u8(in) & 1) : k == 1 ? genie_sort(ctx, a, d, u8(in) & 1)
           : k == 2 ? genie_max_dim(ctx, a, d, u8(in) & 1) : genie_min_dim(ctx, a, d, u8(in) & 1);
        fz_keep_tuple(in, tp, work * 20, was_ok, dead, "sort");
        break;
    }
    case OP_INPLACE: {
        unsigned k = u8(in) % 9;
        fz_slot *ds = fz_slot_of(in);
        int j;
        a = ds->t;
#if !GENIE__QUARANTINE
        if (a && fz_dead(ds)) break;
#endif
        if (a && fz_dead(ds)) dead = 1;
        work = ds->work;
        b = k == 4 || k == 5 || k == 7 ? NULL : fz_arg(in, &work, &dead);
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
            for (j = 0; j < FZ_SLOTS; j++) /* every alias now depends on the write */
                if (fz.s[j].t && !fz_dead(&fz.s[j]) && genie_shares_storage(fz.s[j].t, a) && fz.s[j].work < work + fz_numel_d(a))
                    fz.s[j].work = work + fz_numel_d(a);
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
    default: { /* OP_MISC */
        unsigned k = u8(in) % 4;
        if (k == 0) {
            genie_tensor *ts[3];
            for (i = 0; i < 3; i++) ts[i] = fz_arg(in, &work, &dead);
            if (fz.devnull) genie_dump_dot(ctx, 3, ts, fz.devnull);
        } else if (k == 1) {
            genie_stats stt = genie_get_stats(ctx);
            FZ_CHECK(stt.bytes_live <= stt.bytes_peak, "stats");
        } else if (k == 2) {
            genie_set_num_threads(ctx, (int)(u8(in) % 4) - 1);
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
    if (u8(in) == 0xEE) genie_clear_error(ctx); /* errors are mostly left sticky */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in;
    genie_ctx_desc desc;
    unsigned cfg;
    int k;
    in.p = data;
    in.n = size;
    in.i = 0;
    if (!fz.devnull) fz.devnull = fopen("/dev/null", "w");
    cfg = u8(&in);
    memset(&desc, 0, sizeof desc);
    desc.n_threads = cfg & 1 ? 2 : 1;
    desc.no_pool = (cfg >> 1) & 1;
    desc.cpu = (cfg >> 2) & 1 ? GENIE_CPU_REFERENCE : GENIE_CPU_AUTO;
    fz_calls = 0;
    fz_fail_at = (cfg >> 3) == 31 ? (long)u8(&in) * 4 + (long)u8(&in) + 1 : -1; /* one allocation fails */
    fz.ctx = genie_ctx_create(&desc);
    if (!fz.ctx) return 0;
    fz.no_pool = desc.no_pool;
    fz.depth = 0;
    for (k = 0; k < FZ_SLOTS; k++) { memset(&fz.s[k], 0, sizeof fz.s[k]); fz.s[k].tup = -1; }
    memset(fz.tu, 0, sizeof fz.tu);
    for (k = 0; k < (int)sizeof fz.blob; k++) fz.blob[k] = (unsigned char)(k * 37 + 11);
    for (k = 0; k < 64 && fz_more(&in); k++) fz_step(&in);
    /* the context works on after clearing the error (unless allocations are failing) */
    genie_clear_error(fz.ctx);
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
    return 0;
}
