/* test_llmops.c - the transformer operations of API v1: rms_norm, rope,
   scaled_dot_product_attention, cumsum, scatter, scatter_add, index_copy_.
   1. tests/data/llmops.txt (tests/programs/gen_llmops.py: PyTorch 1.13 where it has the
      operation, else the operation's definition in float64 torch ops): every case
      on the reference kernels and on every CPU path this machine runs, on 1 and 2
      threads; values within the case's atol + rtol |expected|, the dtype and
      shape exact; errors with their genie_result, at the call or at the read.
   2. The fast kernels against the reference on larger random inputs (multi-tile
      attention with GQA, masks, causal, decode, keys split over threads when
      there are fewer tasks than threads; rope; rms_norm).
   3. index_copy_ as a KV cache: versions and aliasing, the write done in the old
      buffer, a data-dependent error that stays, a decode loop equal to the
      causal prefill. */
#include "../../genie.h"
#include "testctx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static int *t_pass, *t_fail, t_shown;
#define CHECK(cond) check_((cond) != 0, #cond, __LINE__)
static void check_(int ok, const char *what, int line) {
    if (ok) { (*t_pass)++; return; }
    (*t_fail)++;
    if (t_shown++ < 30) printf("FAIL tests/unit/test_llmops.c:%d: %s\n", line, what);
}

/* ---- 1. the data file ---- */
typedef struct tin {
    int dt, nd;
    char layout;
    int64_t shape[GENIE_MAX_DIMS], n;
    double *vals;
} tin;
typedef struct tcase {
    char name[80], op[32];
    double p[3], atol, rtol;
    int nin, expect, code; /* expect: 0 values, 1 error at the call, 2 error at the read */
    tin in[4], out;
} tcase;

static int dtype_of(const char *s) {
    int d;
    for (d = 0; d < GENIE_DTYPE_COUNT; d++)
        if (strcmp(genie_dtype_name((genie_dtype)d), s) == 0) return d;
    return -1;
}
static int read_tensor(FILE *f, tin *t, int with_layout) {
    char tok[64];
    int i;
    int64_t k;
    if (fscanf(f, "%63s", tok) != 1 || (t->dt = dtype_of(tok)) < 0) return 0;
    t->layout = 'c';
    if (with_layout && fscanf(f, " %c", &t->layout) != 1) return 0;
    if (fscanf(f, "%d", &t->nd) != 1 || t->nd < 0 || t->nd > GENIE_MAX_DIMS) return 0;
    t->n = 1;
    for (i = 0; i < t->nd; i++) {
        long long s;
        if (fscanf(f, "%lld", &s) != 1) return 0;
        t->shape[i] = s;
        t->n *= s;
    }
    t->vals = (double *)malloc((size_t)(t->n ? t->n : 1) * sizeof(double));
    for (k = 0; k < t->n; k++) {
        if (fscanf(f, "%63s", tok) != 1) return 0;
        t->vals[k] = strtod(tok, NULL);
    }
    return 1;
}
static void free_case(tcase *c) {
    int i;
    for (i = 0; i < c->nin; i++) free(c->in[i].vals);
    if (c->expect == 0) free(c->out.vals);
}
/* Reads the next case; 0 at the end (or on a malformed file: then *bad is set). */
static int read_case(FILE *f, tcase *c, int *bad) {
    char tok[64];
    memset(c, 0, sizeof *c);
    if (fscanf(f, "%63s", tok) != 1) return 0;
    if (strcmp(tok, "case") != 0 || fscanf(f, "%79s %31s %lf %lf %lf %lf %lf", c->name, c->op, &c->p[0], &c->p[1], &c->p[2], &c->atol, &c->rtol) != 7)
        goto malformed;
    for (;;) {
        if (fscanf(f, "%63s", tok) != 1) goto malformed;
        if (strcmp(tok, "in") == 0) {
            if (c->nin == 4 || !read_tensor(f, &c->in[c->nin++], 1)) goto malformed;
        } else if (strcmp(tok, "out") == 0) {
            if (!read_tensor(f, &c->out, 0)) goto malformed;
            c->expect = 0;
        } else if (strcmp(tok, "err") == 0 || strcmp(tok, "rerr") == 0) {
            c->expect = tok[0] == 'e' ? 1 : 2;
            if (fscanf(f, "%d", &c->code) != 1) goto malformed;
        } else if (strcmp(tok, "end") == 0) {
            return 1;
        } else goto malformed;
    }
malformed:
    *bad = 1;
    return 0;
}

/* An input in its layout: contiguous, the last two dims transposed in memory,
   or every other element of a twice-as-wide last dim. */
static genie_tensor *make_in(genie_ctx *ctx, const tin *t) {
    genie_tensor *x = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F64, t->nd, t->shape, t->vals), (genie_dtype)t->dt);
    if (t->layout == 't' && t->nd >= 2)
        x = genie_transpose(ctx, genie_contiguous(ctx, genie_transpose(ctx, x, -1, -2)), -1, -2);
    if (t->layout == 's' && t->nd >= 1) {
        genie_tensor *pair[2];
        pair[0] = x;
        pair[1] = genie_neg(ctx, x);
        x = genie_select(ctx, genie_stack(ctx, 2, pair, -1), -1, 0);
    }
    return x;
}
static genie_tensor *run_op(genie_ctx *ctx, const tcase *c, genie_tensor **x) {
    const char *op = c->op;
    int64_t ns[GENIE_MAX_DIMS] = {1, 1, 1, 1, 1, 1, 1, 1};
    int i, nnorm = (int)c->p[0], nd = c->nin ? genie_ndim(x[0]) : 0;
    if (strcmp(op, "rms_norm") == 0) {
        for (i = 0; i < nnorm && nnorm <= nd; i++) ns[i] = genie_shape(x[0])[nd - nnorm + i];
        return genie_rms_norm(ctx, x[0], nnorm, ns, c->p[2] != 0 ? x[1] : NULL, c->p[1]);
    }
    if (strcmp(op, "rope") == 0) return genie_rope(ctx, x[0], x[1], (int64_t)c->p[0], c->p[1], (int)c->p[2]);
    if (strcmp(op, "sdpa") == 0)
        return genie_scaled_dot_product_attention(ctx, x[0], x[1], x[2], c->p[2] != 0 ? x[3] : NULL, (int)c->p[0], c->p[1]);
    if (strcmp(op, "cumsum") == 0) return genie_cumsum(ctx, x[0], (int64_t)c->p[0]);
    if (strcmp(op, "scatter") == 0) return genie_scatter(ctx, x[0], (int64_t)c->p[0], x[1], x[2]);
    if (strcmp(op, "scatter_add") == 0) return genie_scatter_add(ctx, x[0], (int64_t)c->p[0], x[1], x[2]);
    if (strcmp(op, "index_copy") == 0) return genie_index_copy_(ctx, x[0], (int64_t)c->p[0], x[1], x[2]);
    return NULL;
}
static int close_to(double got, double want, double atol, double rtol) {
    if (want != want) return got != got;
    if (isinf(want)) return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}
/* One case on one context: 1 if it passes (a message otherwise). */
static int run_case(const tcase *c, genie_cpu cpu, int nth) {
    genie_ctx_desc desc;
    genie_ctx *ctx;
    genie_tensor *x[4] = {NULL, NULL, NULL, NULL}, *r;
    genie_result rr;
    double *got = NULL;
    int ok = 1, i;
    int64_t k;
    char why[300] = "";
    memset(&desc, 0, sizeof desc);
    desc.cpu = cpu;
    desc.n_threads = nth;
    ctx = genie_ctx_create(&desc);
    for (i = 0; i < c->nin; i++) x[i] = make_in(ctx, &c->in[i]);
    if (genie_status(ctx) != GENIE_OK) { snprintf(why, sizeof why, "making inputs: %s", genie_last_error(ctx)); ok = 0; goto done; }
    r = run_op(ctx, c, x);
    if (c->expect == 1) {
        if (r || genie_status(ctx) != (genie_result)c->code) {
            snprintf(why, sizeof why, "expected error %d at the call, got %p status %d (%s)", c->code, (void *)r, genie_status(ctx),
                     genie_last_error(ctx));
            ok = 0;
        } else if (strncmp(genie_last_error(ctx), "genie_", 6) != 0) {
            snprintf(why, sizeof why, "the message does not name the operation: %s", genie_last_error(ctx));
            ok = 0;
        }
        goto done;
    }
    if (!r) { snprintf(why, sizeof why, "failed at the call: %s", genie_last_error(ctx)); ok = 0; goto done; }
    got = (double *)malloc((size_t)(genie_numel(r) ? genie_numel(r) : 1) * sizeof(double));
    rr = genie_read(ctx, r, GENIE_F64, got, (size_t)genie_numel(r) * sizeof(double));
    if (c->expect == 2) {
        if (rr != (genie_result)c->code || !strstr(genie_last_error(ctx), "out of bounds")) {
            snprintf(why, sizeof why, "expected error %d at the read, got %d (%s)", c->code, rr, genie_last_error(ctx));
            ok = 0;
        }
        goto done;
    }
    if (rr != GENIE_OK) { snprintf(why, sizeof why, "read failed: %s", genie_last_error(ctx)); ok = 0; goto done; }
    if ((int)genie_dtype_of(r) != c->out.dt || genie_ndim(r) != c->out.nd ||
        memcmp(genie_shape(r), c->out.shape, (size_t)c->out.nd * sizeof(int64_t)) != 0 ||
        (strcmp(c->op, "index_copy") != 0 && !genie_is_contiguous(r))) { /* index_copy_ returns its destination */
        snprintf(why, sizeof why, "dtype/shape/layout: got %s ndim %d", genie_dtype_name(genie_dtype_of(r)), genie_ndim(r));
        ok = 0;
        goto done;
    }
    for (k = 0; k < c->out.n && ok; k++)
        if (!close_to(got[k], c->out.vals[k], c->atol, c->rtol)) {
            snprintf(why, sizeof why, "element %lld: got %.9g, expected %.9g", (long long)k, got[k], c->out.vals[k]);
            ok = 0;
        }
done:
    if (!ok && t_shown++ < 30) printf("FAIL llmops case %s on %s, %d thread(s): %s\n", c->name, genie_cpu_name(cpu), nth, why);
    free(got);
    genie_ctx_destroy(ctx);
    return ok;
}
static void run_file(const char *path) {
    FILE *f = fopen(path, "r");
    tcase c;
    int bad = 0, ncases = 0, p0 = *t_pass, f0 = *t_fail;
    if (!f) { printf("FAIL cannot open %s\n", path); (*t_fail)++; return; }
    while (read_case(f, &c, &bad)) {
        int cpu;
        ncases++;
        for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++) {
            int nth;
            if (!genie_cpu_supported((genie_cpu)cpu)) continue;
            for (nth = 1; nth <= 2; nth++) {
                if (run_case(&c, (genie_cpu)cpu, nth)) (*t_pass)++;
                else (*t_fail)++;
            }
        }
        free_case(&c);
    }
    fclose(f);
    if (bad || ncases == 0) { printf("FAIL %s is malformed after %d cases\n", path, ncases); (*t_fail)++; }
    printf("  %-30s %d cases: %d passed, %d failed\n", path, ncases, *t_pass - p0, *t_fail - f0);
}

/* ---- 2. fast kernels against the reference on larger inputs ---- */
static double *read_all(genie_ctx *ctx, genie_tensor *t) {
    double *v = (double *)malloc((size_t)(genie_numel(t) ? genie_numel(t) : 1) * sizeof(double));
    if (genie_read(ctx, t, GENIE_F64, v, (size_t)genie_numel(t) * sizeof(double)) != GENIE_OK) {
        printf("  read failed: %s\n", genie_last_error(ctx));
        free(v);
        return NULL;
    }
    return v;
}
/* scatter / scatter_add where the fast path takes them (self, index and src contiguous; index
   and src of self's shape but at dim d) against the reference: bit for bit (one thread, the
   same order, duplicates included); a bad index: the reference's error and message. */
typedef struct scatter_shape { int nd, d; int64_t self[3], idx[3]; genie_dtype dt; } scatter_shape;
static genie_tensor *scatter_build(genie_ctx *ctx, const scatter_shape *s, int add, int bad) {
    genie_tensor *self = genie_randn(ctx, GENIE_F32, s->nd, s->self, 11), *src = genie_randn(ctx, GENIE_F32, s->nd, s->idx, 12);
    genie_tensor *ix = genie_floor(ctx, genie_mul_scalar(ctx, genie_rand(ctx, GENIE_F32, s->nd, s->idx, 13), (double)s->self[s->d]));
    if (bad) ix = genie_add_scalar(ctx, ix, (double)s->self[s->d]); /* every index one size too far */
    if (s->dt == GENIE_I64 || s->dt == GENIE_I32) { /* integers of up to 2^28: wrapping sums in i32 */
        self = genie_mul_scalar(ctx, self, 1 << 28), src = genie_mul_scalar(ctx, src, 1 << 28);
    }
    self = genie_to_dtype(ctx, self, s->dt), src = genie_to_dtype(ctx, src, s->dt), ix = genie_to_dtype(ctx, ix, GENIE_I64);
    return add ? genie_scatter_add(ctx, self, s->d, ix, src) : genie_scatter(ctx, self, s->d, ix, src);
}
static void fast_vs_reference_scatter(void) {
    static const scatter_shape shapes[] = {
        {2, 0, {64, 33, 0}, {200, 33, 0}, GENIE_F32}, /* about 3 writes a slot */
        {3, 1, {7, 50, 9}, {7, 120, 9}, GENIE_F64},
        {2, 1, {40, 31, 0}, {40, 100, 0}, GENIE_I64},
        {3, 2, {5, 6, 70}, {5, 6, 300}, GENIE_I32},
        {1, 0, {300, 0, 0}, {1000, 0, 0}, GENIE_F32},
        {2, 0, {16, 9, 0}, {30, 9, 0}, GENIE_BF16}, /* scatter: the bits; scatter_add of bf16 stays on the reference */
    };
    size_t si;
    int add, bad, cpu;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (add = 0; add <= 1; add++)
            for (bad = 0; bad <= 1; bad++) {
                const scatter_shape *s = &shapes[si];
                genie_ctx *rc = test_ctx(GENIE_CPU_REFERENCE, 1);
                genie_tensor *rt = scatter_build(rc, s, add, bad);
                double *ref = bad ? NULL : read_all(rc, rt);
                char rmsg[600];
                if (bad) {
                    CHECK(genie_realize(rc, 1, &rt) == GENIE_ERR_INDEX);
                    snprintf(rmsg, sizeof rmsg, "%s", genie_last_error(rc));
                }
                CHECK(bad || ref != NULL);
                for (cpu = GENIE_CPU_GENERIC; cpu < GENIE_CPU_COUNT; cpu++) {
                    genie_ctx *fc;
                    genie_tensor *t;
                    if (!genie_cpu_supported((genie_cpu)cpu)) continue;
                    fc = test_ctx((genie_cpu)cpu, 2);
                    t = scatter_build(fc, s, add, bad);
                    if (bad) {
                        CHECK(genie_realize(fc, 1, &t) == GENIE_ERR_INDEX && strcmp(genie_last_error(fc), rmsg) == 0);
                    } else {
                        double *got = read_all(fc, t);
                        int64_t i, n = genie_numel(t), diff = 0;
                        for (i = 0; got && ref && i < n; i++) diff += got[i] != ref[i];
                        if (!got || diff)
                            printf("FAIL scatter%s fast vs reference, case %d on %s: %lld elements differ\n", add ? "_add" : "",
                                   (int)si, genie_cpu_name((genie_cpu)cpu), (long long)diff);
                        CHECK(got && ref && diff == 0);
                        free(got);
                    }
                    genie_ctx_destroy(fc);
                }
                free(ref);
                genie_ctx_destroy(rc);
            }
}
typedef struct sdpa_shape {
    const char *name;
    int nd;
    int64_t q[4], k[4], v[4];
    int causal, mask; /* mask: 0 none, 1 float [L, S] with -inf, 2 bool [B, 1, L, S] */
    genie_dtype dt;
} sdpa_shape;
static genie_tensor *sdpa_build(genie_ctx *ctx, const sdpa_shape *s) {
    genie_tensor *q = genie_randn(ctx, s->dt, 4, s->q, 1), *k = genie_randn(ctx, s->dt, 4, s->k, 2), *v = genie_randn(ctx, s->dt, 4, s->v, 3);
    genie_tensor *m = NULL;
    if (s->mask == 1) { /* randn, with about 10% of the entries -inf */
        int64_t ls[2] = {s->q[2], s->k[2]};
        genie_tensor *u = genie_rand(ctx, GENIE_F32, 2, ls, 4);
        m = genie_masked_fill(ctx, genie_randn(ctx, GENIE_F32, 2, ls, 5), genie_lt(ctx, u, genie_full(ctx, GENIE_F32, 0, NULL, 0.1)), -INFINITY);
    } else if (s->mask == 2) {
        int64_t ms[4] = {s->q[0], 1, s->q[2], s->k[2]};
        m = genie_gt(ctx, genie_rand(ctx, GENIE_F32, 4, ms, 6), genie_full(ctx, GENIE_F32, 0, NULL, 0.3));
    }
    return genie_scaled_dot_product_attention(ctx, q, k, v, m, s->causal, NAN);
}
static void fast_vs_reference_sdpa(void) {
    static const sdpa_shape shapes[] = {
        {"prefill 4x257x64", 4, {1, 4, 257, 64}, {1, 4, 257, 64}, {1, 4, 257, 64}, 0, 0, GENIE_F32},
        {"prefill causal 4x257x64", 4, {1, 4, 257, 64}, {1, 4, 257, 64}, {1, 4, 257, 64}, 1, 0, GENIE_F32},
        {"gqa 8/2 float mask", 4, {1, 8, 100, 32}, {1, 2, 333, 32}, {1, 2, 333, 32}, 0, 1, GENIE_F32},
        {"gqa 8/2 causal L<S", 4, {2, 8, 37, 32}, {2, 2, 300, 32}, {2, 2, 300, 48}, 1, 0, GENIE_F32},
        {"bool mask E=128 Ev=40", 4, {2, 2, 50, 128}, {2, 2, 300, 128}, {2, 2, 300, 40}, 0, 2, GENIE_F32},
        {"decode gqa 8/2 S=1000", 4, {1, 8, 1, 64}, {1, 2, 1000, 64}, {1, 2, 1000, 64}, 0, 0, GENIE_F32},
        {"decode mha 2x4 S=777", 4, {2, 4, 1, 64}, {2, 4, 777, 64}, {2, 4, 777, 64}, 0, 0, GENIE_F32},
        {"decode mqa 16/1 S=500", 4, {1, 16, 1, 64}, {1, 1, 500, 64}, {1, 1, 500, 64}, 0, 0, GENIE_F32},
        {"mqa causal, keys split", 4, {1, 8, 2, 64}, {1, 1, 600, 64}, {1, 1, 600, 64}, 1, 0, GENIE_F32},
        {"mqa float mask, keys split", 4, {1, 4, 3, 64}, {1, 1, 700, 64}, {1, 1, 700, 64}, 0, 1, GENIE_F32},
        {"f16 gqa", 4, {1, 4, 64, 64}, {1, 2, 200, 64}, {1, 2, 200, 64}, 1, 0, GENIE_F16},
        {"bf16 decode", 4, {1, 4, 1, 64}, {1, 2, 300, 64}, {1, 2, 300, 64}, 0, 0, GENIE_BF16},
        {"bf16 float mask Ev=48", 4, {1, 2, 70, 32}, {1, 2, 90, 32}, {1, 2, 90, 48}, 0, 1, GENIE_BF16},
        /* packed bf16 rows (AVX512_BF16: Q K^T on bf16 pairs, an odd E ending in a half pair) */
        {"bf16 gqa causal E=33", 4, {1, 4, 100, 33}, {1, 2, 150, 33}, {1, 2, 150, 40}, 1, 0, GENIE_BF16},
        {"bf16 bool mask E=128", 4, {2, 2, 50, 128}, {2, 2, 300, 128}, {2, 2, 300, 64}, 0, 2, GENIE_BF16},
    };
    size_t si;
    for (si = getenv("GENIE_GEMM_QUICK") ? 2 : 0; si < sizeof shapes / sizeof shapes[0]; si++) { /* quick (valgrind): no prefill */
        const sdpa_shape *s = &shapes[si];
        genie_ctx *rc = test_ctx(GENIE_CPU_REFERENCE, 1);
        double *ref = read_all(rc, sdpa_build(rc, s));
        int cpu, nth;
        double tol = s->dt == GENIE_F32 ? 4e-6 : s->dt == GENIE_F16 ? 2e-3 : 1.6e-2; /* measured: 8e-7, 1e-4, 8e-4 (an ulp) */
        CHECK(ref != NULL);
        for (cpu = GENIE_CPU_GENERIC; cpu < GENIE_CPU_COUNT && ref; cpu++)
            for (nth = 1; nth <= 2 && genie_cpu_supported((genie_cpu)cpu); nth++) {
                genie_ctx *fc = test_ctx((genie_cpu)cpu, nth);
                genie_tensor *r = sdpa_build(fc, s);
                double *got = read_all(fc, r), worst = 0;
                int64_t i, n = genie_numel(r), bad = -1;
                for (i = 0; got && i < n; i++) {
                    double d = fabs(got[i] - ref[i]) / (1 + fabs(ref[i]));
                    if (!(d <= worst)) worst = d, bad = i;
                }
                if (!got || !(worst <= tol))
                    printf("FAIL sdpa fast vs reference, %s on %s, %d thread(s): worst %.3g at %lld (got %.9g, ref %.9g)\n", s->name,
                           genie_cpu_name((genie_cpu)cpu), nth, worst, (long long)bad, got && bad >= 0 ? got[bad] : 0.0, bad >= 0 ? ref[bad] : 0.0);
                CHECK(got && worst <= tol);
                free(got);
                genie_ctx_destroy(fc);
            }
        free(ref);
        genie_ctx_destroy(rc);
    }
}
/* rope of f32 (which 0, 1, 2: halves, interleaved, partial), bf16 (3), then of q as
   attention reads it, [B, T, H, D] transposed to [B, H, T, D] (not contiguous): f16 (4),
   f32 partial and interleaved (5) */
static genie_tensor *rope_build(genie_ctx *ctx, int which) {
    int64_t xs[4] = {2, 8, 300, 64}, ts = 300, qs[4] = {2, 300, 8, 64};
    genie_tensor *x = genie_randn(ctx, GENIE_F32, 4, which >= 4 ? qs : xs, 7);
    genie_tensor *pos = genie_to_dtype(ctx, genie_mul_scalar(ctx, genie_rand(ctx, GENIE_F32, 1, &ts, 8), 4096.0), GENIE_I64);
    if (which == 3 || which == 4) x = genie_to_dtype(ctx, x, which == 3 ? GENIE_BF16 : GENIE_F16);
    if (which >= 4) {
        genie_realize(ctx, 1, &x);
        x = genie_transpose(ctx, x, 1, 2);
    }
    return genie_rope(ctx, x, pos, which == 2 || which == 5 ? 32 : 0, 10000.0, which == 1 || which == 5);
}
/* rms_norm of f32 (which 0, 1, 2: no weight, weight, rows of 4098), f16 (3) and bf16 (4), weighted */
static genie_tensor *rms_build(genie_ctx *ctx, int which) {
    int64_t xs[2] = {64, 4096 + (which > 2 ? 1 : which)};
    genie_dtype dt = which == 3 ? GENIE_F16 : which == 4 ? GENIE_BF16 : GENIE_F32;
    genie_tensor *x = genie_randn(ctx, GENIE_F32, 2, xs, 9), *w = genie_randn(ctx, GENIE_F32, 1, xs + 1, 10);
    return genie_rms_norm(ctx, genie_to_dtype(ctx, x, dt), 1, xs + 1, which ? genie_to_dtype(ctx, w, dt) : NULL, 1e-6);
}
static void fast_vs_reference_rows(void) {
    int which, cpu, nth, op;
    for (op = 0; op < 2; op++)
        for (which = 0; which < (getenv("GENIE_GEMM_QUICK") ? 1 : op ? 5 : 6); which++) {
            genie_ctx *rc = test_ctx(GENIE_CPU_REFERENCE, 1);
            double *ref = read_all(rc, op ? rms_build(rc, which) : rope_build(rc, which));
            /* f16/bf16 rows: computed in f32 and rounded twice (x rstd, then * w): two ulp of the
               dtype; rope rounds once: one ulp */
            const int half = op ? which >= 3 : which == 3 || which == 4;
            const double tol = op && which == 3 ? 1.0 / 512 : op && which == 4 ? 1.0 / 64 : !op && which == 3 ? 1.0 / 128
                             : !op && which == 4 ? 1.0 / 1024 : 2e-6;
            for (cpu = GENIE_CPU_GENERIC; cpu < GENIE_CPU_COUNT && ref; cpu++)
                for (nth = 1; nth <= 2 && genie_cpu_supported((genie_cpu)cpu); nth++) {
                    genie_ctx *fc = test_ctx((genie_cpu)cpu, nth);
                    genie_tensor *r = op ? rms_build(fc, which) : rope_build(fc, which);
                    double *got = read_all(fc, r), worst = 0;
                    int64_t i, n = genie_numel(r), differ = 0;
                    for (i = 0; got && i < n; i++) {
                        double d = fabs(got[i] - ref[i]) / (1 + fabs(ref[i]));
                        if (!(d <= worst)) worst = d;
                        differ += got[i] != ref[i];
                    }
                    if (!got || !(worst <= tol))
                        printf("FAIL %s fast vs reference (case %d) on %s, %d thread(s): worst %.3g\n", op ? "rms_norm" : "rope", which,
                               genie_cpu_name((genie_cpu)cpu), nth, worst);
                    CHECK(got && worst <= tol);
                    /* f16/bf16: the same roundings as the reference, so a rare near-tie at most
                       differs (rms_norm: none measured; without the rounding of x rstd, 26%) */
                    if (half && differ > n / 1000)
                        printf("FAIL %s (case %d) fast vs reference on %s: %lld of %lld elements differ\n", op ? "rms_norm" : "rope",
                               which, genie_cpu_name((genie_cpu)cpu), (long long)differ, (long long)n);
                    CHECK(!half || differ <= n / 1000);
                    free(got);
                    genie_ctx_destroy(fc);
                }
            free(ref);
            genie_ctx_destroy(rc);
        }
}

/* ---- 3. index_copy_ as a KV cache ---- */
static void kv_cache(genie_cpu cpu) {
    genie_ctx *ctx = test_ctx(cpu, 2);
    int64_t cs[4] = {1, 2, 8, 4}, ss[4] = {1, 2, 1, 4}, one = 1, i;
    genie_tensor *cache = genie_zeros(ctx, GENIE_F32, 4, cs), *row3 = genie_select(ctx, cache, 2, 3);
    genie_tensor *before = genie_sum(ctx, cache, 0, NULL, 0), *src, *idx, *after;
    genie_stats st;
    double v = -1, buf[8];
    genie_realize(ctx, 1, &cache);
    src = genie_ones(ctx, GENIE_F32, 4, ss);
    idx = genie_full(ctx, GENIE_I64, 1, &one, 3);
    CHECK(genie_index_copy_(ctx, cache, 2, idx, src) == cache);
    CHECK(!genie_is_materialized(cache) && !genie_is_materialized(row3));
    CHECK(strcmp(genie_op_name(cache), "aten::index_copy_") == 0);
    CHECK(genie_item(ctx, before, &v) == GENIE_OK && v == 0); /* captured before the write */
    after = genie_sum(ctx, cache, 0, NULL, 0);
    CHECK(genie_item(ctx, after, &v) == GENIE_OK && v == 8);
    CHECK(genie_read(ctx, row3, GENIE_F64, buf, sizeof buf) == GENIE_OK && buf[0] == 1 && buf[7] == 1); /* the view sees it */
    st = genie_get_stats(ctx);
    for (i = 0; i < 5; i++) { /* steady state: written in the old version's buffer */
        idx = genie_full(ctx, GENIE_I64, 1, &one, (double)i);
        genie_index_copy_(ctx, cache, 2, idx, genie_full(ctx, GENIE_F32, 4, ss, (double)i));
        genie_realize(ctx, 1, &cache);
    }
    CHECK(genie_get_stats(ctx).inplace_reused - st.inplace_reused == 5);
    CHECK(genie_read(ctx, row3, GENIE_F64, buf, sizeof buf) == GENIE_OK && buf[0] == 3);
    /* an index out of range: found at realize, and the storage's version stays failed */
    genie_index_copy_(ctx, cache, 2, genie_full(ctx, GENIE_I64, 1, &one, 8), src);
    CHECK(genie_status(ctx) == GENIE_OK);
    CHECK(genie_realize(ctx, 1, &cache) == GENIE_ERR_INDEX);
    CHECK(strstr(genie_last_error(ctx), "genie_index_copy_: index 8 is out of bounds for dimension 2 with size 8") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_read(ctx, row3, GENIE_F64, buf, sizeof buf) == GENIE_ERR_INDEX);
    genie_clear_error(ctx);
    /* overlap rules: an expanded destination, a source that is the destination */
    {
        int64_t s3 = 3, s1 = 1;
        genie_tensor *e = genie_expand(ctx, genie_zeros(ctx, GENIE_F32, 1, &s1), 1, &s3), *z = genie_zeros(ctx, GENIE_F32, 1, &s3);
        genie_tensor *i3 = genie_arange(ctx, GENIE_I64, 0, 3, 1);
        CHECK(genie_index_copy_(ctx, e, 0, i3, z) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
        genie_clear_error(ctx);
        CHECK(genie_index_copy_(ctx, z, 0, i3, z) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
        genie_clear_error(ctx);
    }
    genie_ctx_destroy(ctx);
}
/* Decode with a KV cache written by index_copy_ equals the causal prefill. */
static void decode_equals_prefill(genie_cpu cpu) {
    enum { T = 20 };
    genie_ctx *ctx = test_ctx(cpu, 2);
    int64_t qs[4] = {1, 4, T, 16}, ks[4] = {1, 2, T, 16}, one = 1, t;
    genie_tensor *q = genie_randn(ctx, GENIE_F32, 4, qs, 11), *k = genie_randn(ctx, GENIE_F32, 4, ks, 12), *v = genie_randn(ctx, GENIE_F32, 4, ks, 13);
    genie_tensor *full = genie_scaled_dot_product_attention(ctx, q, k, v, NULL, 1, NAN);
    genie_tensor *kc = genie_zeros(ctx, GENIE_F32, 4, ks), *vc = genie_zeros(ctx, GENIE_F32, 4, ks);
    double *want = read_all(ctx, full), worst = 0, got[4 * 16];
    for (t = 0; t < T && want; t++) {
        genie_tensor *pos = genie_full(ctx, GENIE_I64, 1, &one, (double)t), *o;
        int h, e;
        genie_pool_push(ctx);
        genie_index_copy_(ctx, kc, 2, pos, genie_narrow(ctx, k, 2, t, 1));
        genie_index_copy_(ctx, vc, 2, pos, genie_narrow(ctx, v, 2, t, 1));
        o = genie_scaled_dot_product_attention(ctx, genie_narrow(ctx, q, 2, t, 1), genie_narrow(ctx, kc, 2, 0, t + 1),
                                               genie_narrow(ctx, vc, 2, 0, t + 1), NULL, 0, NAN);
        CHECK(genie_read(ctx, o, GENIE_F64, got, sizeof got) == GENIE_OK);
        for (h = 0; h < 4; h++)
            for (e = 0; e < 16; e++) {
                double d = fabs(got[h * 16 + e] - want[(h * T + t) * 16 + e]);
                if (!(d <= worst)) worst = d;
            }
        genie_pool_pop(ctx);
    }
    CHECK(want && worst <= 1e-5);
    free(want);
    genie_ctx_destroy(ctx);
}

void test_llmops_run(int *passed, int *failed, int *skipped);
void test_llmops_run(int *passed, int *failed, int *skipped) {
    int cpu;
    t_pass = passed;
    t_fail = failed;
    (void)skipped;
    run_file("tests/data/llmops.txt");
    fast_vs_reference_sdpa();
    fast_vs_reference_scatter();
    fast_vs_reference_rows();
    for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++)
        if (genie_cpu_supported((genie_cpu)cpu)) {
            kv_cache((genie_cpu)cpu);
            decode_equals_prefill((genie_cpu)cpu);
        }
}

#ifdef TEST_LLMOPS_MAIN
int main(void) {
    int p = 0, f = 0, s = 0;
    test_llmops_run(&p, &f, &s);
    printf("%d passed, %d failed\n", p, f);
    return f != 0;
}
#endif
