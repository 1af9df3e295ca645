/* test_fuse.c - the planned tape against the reference kernels: random trees
   of elementwise operations over odd shapes and views (transposed, broadcast,
   sliced inputs; some intermediates still held, some released; in-place writes
   between realizes), and products (matmul, linear, conv2d) with epilogues, each built twice: in a
   context that fuses and in one on GENIE_CPU_REFERENCE (every node on its own
   reference kernel). Fused f32 elementwise groups compute exactly what the
   reference does (f32 operands, each op in double rounded to f32), so they
   must match bit for bit; products with an epilogue accumulate in f32, so they
   match within the GEMM's bound. */
#include "../../genie.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *P, *F;
#define FCHECK(cond, ...) do { if (cond) (*P)++; else { (*F)++; printf("FAIL test_fuse: " __VA_ARGS__); printf("\n"); } } while (0)

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

/* One random program, replayed identically in each context from the same seed:
   leaves x [R, C] and y [C] (broadcast), then depth ops, each on the previous
   value and a random operand; some intermediates are kept (retained), the rest
   released before the realize. Returns the handles to read. */
#define NKEEP 4
static int build(genie_ctx *c, uint64_t seed, genie_dtype dt, int64_t R, int64_t C, genie_tensor **out) {
    int64_t s2[2] = {R, C}, s2t[2] = {C, R}, s1 = C;
    genie_tensor *x, *xt, *y, *t;
    int depth, i, nout = 0;
    rng_state = seed;
    depth = 2 + (int)rnd(12);
    x = genie_randn(c, dt, 2, s2, seed);
    xt = genie_t(c, genie_randn(c, dt, 2, s2t, seed + 1)); /* a transposed [R, C] view */
    y = genie_randn(c, dt, 1, &s1, seed + 2);
    genie_realize(c, 1, &x);
    genie_realize(c, 1, &xt);
    genie_realize(c, 1, &y);
    genie_pool_push(c);
    t = rnd(2) ? x : xt;
    for (i = 0; i < depth; i++) {
        genie_tensor *o = rnd(3) == 0 ? y : rnd(2) ? x : xt;
        switch (rnd(14)) {
        case 0: t = genie_add(c, t, o); break;
        case 1: t = genie_mul(c, t, o); break;
        case 2: t = genie_sub(c, o, t); break;
        case 3: t = genie_maximum(c, t, o); break;
        case 4: t = genie_add_scalar(c, t, 0.1 * (double)rnd(20) - 1.0); break;
        case 5: t = genie_mul_scalar(c, t, 0.37); break;
        case 6: t = genie_relu(c, t); break;
        case 7: t = genie_gelu(c, t); break;
        case 8: t = genie_silu(c, t); break;
        case 9: t = genie_tanh(c, t); break;
        case 10: t = genie_sigmoid(c, t); break;
        case 11: t = genie_clamp(c, t, -0.5, NAN); break;
        case 12: t = genie_square(c, t); break;
        default: t = genie_div(c, t, genie_add_scalar(c, genie_abs(c, o), 1.0)); break;
        }
        if (nout < NKEEP - 1 && rnd(4) == 0) { genie_retain(t); out[nout++] = t; } /* a value read later */
    }
    genie_retain(t);
    out[nout++] = t;
    genie_pool_pop(c); /* the other intermediates are released: nothing can read them */
    return nout;
}

static void compare(genie_ctx *c, genie_tensor *a, genie_ctx *r, genie_tensor *b, const char *what, uint64_t seed, double tol) {
    int64_t n = genie_numel(a), i, bad = 0;
    float *x = (float *)malloc((size_t)n * 4 + 4), *y = (float *)malloc((size_t)n * 4 + 4);
    genie_result e1 = genie_read(c, a, GENIE_F32, x, (size_t)n * 4), e2 = genie_read(r, b, GENIE_F32, y, (size_t)n * 4);
    FCHECK(e1 == GENIE_OK && e2 == GENIE_OK, "%s seed %llu: read failed: %s / %s", what, (unsigned long long)seed,
           genie_last_error(c), genie_last_error(r));
    double big = 1;
    for (i = 0; i < n && e1 == GENIE_OK && e2 == GENIE_OK; i++)
        if (isfinite(y[i]) && fabs((double)y[i]) > big) big = fabs((double)y[i]);
    for (i = 0; i < n && e1 == GENIE_OK && e2 == GENIE_OK; i++) {
        int same = memcmp(&x[i], &y[i], 4) == 0 || (x[i] != x[i] && y[i] != y[i]) ||
                   (tol > 0 && fabs((double)x[i] - y[i]) <= tol * (fabs((double)y[i]) + 0.1 * big));
        if (!same && bad++ == 0)
            printf("  %s seed %llu: element %lld: fused %.9g, reference %.9g\n", what, (unsigned long long)seed, (long long)i,
                   (double)x[i], (double)y[i]);
    }
    FCHECK(bad == 0, "%s seed %llu: %lld of %lld elements differ", what, (unsigned long long)seed, (long long)bad, (long long)n);
    free(x);
    free(y);
}

/* In-place writes between realizes: a fused chain over a value written through a view. */
static void inplace_case(genie_ctx *c, genie_ctx *r, int th) {
    genie_ctx *cs[2];
    genie_tensor *res[2];
    int k;
    cs[0] = c;
    cs[1] = r;
    for (k = 0; k < 2; k++) {
        int64_t s[2] = {37, 70};
        genie_tensor *x = genie_randn(cs[k], GENIE_F32, 2, s, 9), *col;
        genie_realize(cs[k], 1, &x);
        genie_pool_push(cs[k]);
        col = genie_narrow(cs[k], genie_t(cs[k], x), 0, 3, 20); /* [20, 37] columns of x */
        genie_mul_(cs[k], col, genie_full(cs[k], GENIE_F32, 0, NULL, 2.0));
        res[k] = genie_silu(cs[k], genie_add(cs[k], genie_gelu(cs[k], x), genie_relu(cs[k], x)));
        genie_retain(res[k]);
        genie_pool_pop(cs[k]);
    }
    compare(c, res[0], r, res[1], th == 1 ? "in-place then fused (1 thread)" : "in-place then fused (2 threads)", 9, 1.0 / 16384);
    genie_release(res[0]);
    genie_release(res[1]);
}

/* Groups read in 2-D blocks (an f32 input transposed in the last two dims): a batch of
   [3, 41, 70] with the transposed input, a broadcast bf16 operand converted in the
   group, a mask, an intermediate still held (written), edges of partial blocks in both
   dims; and a [2048, 2048] x.t() + y split over the threads ([200, 200] when quick). */
static void blocked_cases(genie_ctx *c, genie_ctx *r, int th) {
    genie_ctx *cs[2];
    genie_tensor *res[2][3];
    int k, j;
    cs[0] = c;
    cs[1] = r;
    for (k = 0; k < 2; k++) {
        int64_t sa[3] = {3, 70, 41}, sb[3] = {3, 41, 70}, sh[2] = {41, 70}, sq[2] = {2048, 2048};
        if (getenv("GENIE_GEMM_QUICK")) sq[0] = sq[1] = 200; /* quick (valgrind) */
        genie_ctx *x = cs[k];
        genie_tensor *a = genie_randn(x, GENIE_F32, 3, sa, 21), *b = genie_randn(x, GENIE_F32, 3, sb, 22);
        genie_tensor *h = genie_randn(x, GENIE_BF16, 2, sh, 23), *q = genie_randn(x, GENIE_F32, 2, sq, 24);
        genie_tensor *at, *p;
        genie_realize(x, 1, &a);
        genie_realize(x, 1, &b);
        genie_realize(x, 1, &h);
        genie_realize(x, 1, &q);
        genie_pool_push(x);
        at = genie_transpose(x, a, 1, 2); /* [3, 41, 70], stride 1 along dim 1 */
        p = genie_add(x, genie_mul(x, at, b), genie_to_dtype(x, h, GENIE_F32));
        res[k][0] = p; /* held: written by the group */
        res[k][1] = genie_where(x, genie_gt(x, b, at), genie_gelu(x, p), genie_sigmoid(x, at));
        res[k][2] = genie_silu(x, genie_add(x, genie_t(x, q), q));
        for (j = 0; j < 3; j++) genie_retain(res[k][j]);
        genie_pool_pop(x);
        genie_release(a);
        genie_release(b);
        genie_release(h);
        genie_release(q);
    }
    for (j = 0; j < 3; j++) {
        compare(c, res[0][j], r, res[1][j], th == 1 ? "2-D blocks (1 thread)" : "2-D blocks (2 threads)", (uint64_t)j, 1.0 / 16384);
        genie_release(res[0][j]);
        genie_release(res[1][j]);
    }
}

/* Unary ops of f64, i64, i32, i16, i8 and u8 on the typed kernel (the reference's scalar functions:
   bit for bit), over values with NaN, infinities, -0, halves (round) and the integer
   extremes; the float functions of integers give f32 (the reference in both contexts). */
static genie_tensor *clamp_ab(genie_ctx *c, genie_tensor *t) { return genie_clamp(c, t, -300.5, 1000.0); }
static void typed_unary_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[6] = {GENIE_F64, GENIE_I64, GENIE_I32, GENIE_I16, GENIE_I8, GENIE_U8};
    genie_tensor *(*const ops[])(genie_ctx *, genie_tensor *) = {
        genie_neg, genie_abs, genie_relu, genie_square, genie_sign, genie_logical_not, genie_floor, genie_ceil,
        genie_round, clamp_ab, genie_exp, genie_log, genie_sqrt, genie_tanh, genie_sigmoid, genie_gelu, genie_sin,
        genie_erf, genie_reciprocal, genie_silu, genie_expm1, genie_log1p};
    const int nops = (int)(sizeof ops / sizeof ops[0]);
    int d, k, i, e, bad = 0, ran = 0, unsupported = 0;
    for (d = 0; d < 6; d++)
        for (k = 0; k < nops; k++) {
            genie_ctx *cs[2];
            unsigned char buf[2][301 * 8];
            size_t bytes = 0;
            int none = 0;
            memset(buf, 0, sizeof buf);
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                genie_ctx *x = cs[i];
                int64_t n = 301;
                double v[301];
                genie_tensor *t, *res;
                genie_pool_push(x);
                for (e = 0; e < 301; e++) v[e] = (e - 150) * (e % 2 ? 0.5 : 7.25);
                v[0] = NAN, v[1] = INFINITY, v[2] = -INFINITY, v[3] = -0.0, v[4] = 4.9e-324, v[5] = 2.5, v[6] = -2.5;
                if (dts[d] != GENIE_F64) v[0] = 2147483647.0, v[1] = -2147483648.0, v[2] = 0, v[3] = -1, v[4] = 9e18;
                if (dts[d] == GENIE_I16) v[0] = 32767, v[1] = -32768; /* the narrower extremes */
                if (dts[d] == GENIE_I8) v[0] = 127, v[1] = -128;
                if (dts[d] == GENIE_U8) v[0] = 255, v[1] = 128, v[3] = 1;
                t = genie_to_dtype(x, genie_from_data(x, GENIE_F64, 1, &n, v), dts[d]);
                genie_realize(x, 1, &t);
                res = ops[k](x, t);
                if (!res) { /* gelu, silu of integers: an error, as PyTorch's */
                    genie_clear_error(x);
                    genie_pool_pop(x);
                    none++;
                    continue;
                }
                bytes = (size_t)genie_numel(res) * genie_dtype_size(genie_dtype_of(res));
                if (genie_read(x, res, genie_dtype_of(res), buf[i], bytes) != GENIE_OK) bad++;
                genie_pool_pop(x);
            }
            if (none) {
                unsupported += none == 2;
                bad += none != 2;
                continue;
            }
            ran++;
            if (memcmp(buf[0], buf[1], bytes) != 0 && bad++ < 3)
                printf("  typed unary %s op %d (%d threads): differs from the reference\n", genie_dtype_name(dts[d]), k, th);
        }
    FCHECK(bad == 0 && ran + unsupported == 6 * 22 && ran >= 22 + 5 * 10, "typed unary ops: %d of %d cases differ (%d unsupported)",
           bad, ran, unsupported);
}

/* f64, i64, i32, i16, i8 and u8 binary ops on their typed kernel against the reference, bit for
   bit: every arithmetic, comparison and logical op over [37, 29] operands holding
   NaN, infinities, -0, denormals and the integer extremes (wrapping), with both
   operands dense, the second a single value (a 0-dim tensor; f64 add, sub and mul: the
   scalar argument), and in place (add_, sub_, mul_; the other ops with their operands
   swapped). */
static void typed_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[6] = {GENIE_F64, GENIE_I64, GENIE_I32, GENIE_I16, GENIE_I8, GENIE_U8};
    genie_tensor *(*const ops[])(genie_ctx *, genie_tensor *, genie_tensor *) = {
        genie_add, genie_sub, genie_mul, genie_maximum, genie_minimum, genie_eq, genie_ne, genie_lt,
        genie_le, genie_gt, genie_ge, genie_logical_and, genie_logical_or, genie_div};
    const int nops = (int)(sizeof ops / sizeof ops[0]);
    int d, k, form, bad = 0, ran = 0;
    for (d = 0; d < 6; d++)
        for (k = 0; k < nops; k++)
            for (form = 0; form < 3; form++) {
                genie_ctx *cs[2];
                genie_tensor *res[2];
                unsigned char buf[2][37 * 29 * 8];
                size_t bytes = 0;
                int i, e;
                memset(buf, 0, sizeof buf);
                if (k == nops - 1 && dts[d] != GENIE_F64) continue; /* integer div is true division: f32 */
                cs[0] = c;
                cs[1] = r;
                for (i = 0; i < 2; i++) {
                    genie_ctx *x = cs[i];
                    int64_t s2[2] = {37, 29};
                    double va[37 * 29], vb[37 * 29];
                    genie_tensor *a, *b;
                    genie_pool_push(x);
                    for (e = 0; e < 37 * 29; e++) {
                        uint64_t h = (uint64_t)(e + 1) * 0x9e3779b97f4a7c15ull;
                        va[e] = (double)((int64_t)(h >> 40) - (1 << 23)) / (e % 3 ? 1.0 : 4096.0);
                        vb[e] = (double)((int64_t)(h >> 20 & 0xffff) - 32768) / (e % 5 ? 1.0 : 256.0);
                        if (e % 7 == 0) vb[e] = va[e];
                    }
                    a = genie_to_dtype(x, genie_from_data(x, GENIE_F64, 2, s2, va), dts[d]);
                    b = genie_to_dtype(x, genie_from_data(x, GENIE_F64, 2, s2, vb), dts[d]);
                    if (dts[d] == GENIE_F64) { /* specials in the first elements */
                        const double sp[8] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 4.9e-324, 1e308, -1e308};
                        genie_tensor *sa = genie_from_data(x, GENIE_F64, 1, (int64_t[]){8}, sp);
                        genie_copy_(x, genie_narrow(x, genie_view(x, a, 1, (int64_t[]){37 * 29}), 0, 0, 8), sa);
                        genie_copy_(x, genie_narrow(x, genie_view(x, b, 1, (int64_t[]){37 * 29}), 0, 3, 8), sa);
                    } else { /* the extremes: wrapping sums, products and differences */
                        const int64_t ext[4] = {dts[d] == GENIE_I64 ? INT64_MAX : dts[d] == GENIE_I32 ? INT32_MAX : dts[d] == GENIE_I16 ? INT16_MAX
                                                : dts[d] == GENIE_I8 ? INT8_MAX : UINT8_MAX,
                                                dts[d] == GENIE_I64 ? INT64_MIN : dts[d] == GENIE_I32 ? INT32_MIN : dts[d] == GENIE_I16 ? INT16_MIN
                                                : dts[d] == GENIE_I8 ? INT8_MIN : 128, -1, 0};
                        genie_tensor *se = genie_to_dtype(x, genie_from_data(x, GENIE_I64, 1, (int64_t[]){4}, ext), dts[d]);
                        genie_copy_(x, genie_narrow(x, genie_view(x, a, 1, (int64_t[]){37 * 29}), 0, 0, 4), se);
                        genie_copy_(x, genie_narrow(x, genie_view(x, b, 1, (int64_t[]){37 * 29}), 0, 2, 4), se);
                    }
                    if (form == 1) b = genie_select(x, genie_select(x, b, 0, 5), 0, 3); /* one value */
                    genie_realize(x, 1, &a);
                    genie_realize(x, 1, &b);
                    if (form == 2 && k < 3) /* in place: a op= b */
                        res[i] = (k == 0 ? genie_add_ : k == 1 ? genie_sub_ : genie_mul_)(x, a, b);
                    else if (form == 1 && dts[d] == GENIE_F64 && k < 3) /* the scalar argument */
                        res[i] = (k == 0 ? genie_add_scalar : k == 1 ? genie_sub_scalar : genie_mul_scalar)(x, a, -2.75);
                    else
                        res[i] = form == 2 ? ops[k](x, b, a) : ops[k](x, a, b);
                    bytes = (size_t)genie_numel(res[i]) * genie_dtype_size(genie_dtype_of(res[i]));
                    if (genie_read(x, res[i], genie_dtype_of(res[i]), buf[i], bytes) != GENIE_OK) bad++;
                    genie_pool_pop(x);
                }
                ran++;
                if (memcmp(buf[0], buf[1], bytes) != 0 && bad++ < 3)
                    printf("  typed %s op %d form %d (%d threads): differs from the reference\n", genie_dtype_name(dts[d]), k, form, th);
            }
    FCHECK(bad == 0 && ran == 6 * 3 * 13 + 3, "typed binary ops: %d of %d cases differ", bad, ran);
    typed_unary_cases(c, r, th);
}

/* A context on the best path this CPU runs (whatever GENIE_CPU says) with th threads, and
   one on GENIE_CPU_REFERENCE: every node alone on its reference kernel. */
static void ctx_pair(int th, genie_ctx **c, genie_ctx **r) {
    genie_ctx_desc dc, dr;
    memset(&dc, 0, sizeof dc);
    memset(&dr, 0, sizeof dr);
    dc.n_threads = th;
    dc.cpu = (genie_cpu)(GENIE_CPU_COUNT - 1);
    dr.cpu = GENIE_CPU_REFERENCE;
    *c = genie_ctx_create(&dc);
    *r = genie_ctx_create(&dr);
}
/* Products with an epilogue: act(linear), linear + residual, act(linear) + residual,
   act(matmul) (+ a broadcast residual) over batches, act(residual + linear); f32 and f64. */
static genie_tensor *epi_build(genie_ctx *c, int form, genie_dtype dt, const int64_t *s) {
    int64_t xs[3] = {s[0], s[1], s[2]}, ws[2] = {s[3], s[2]}, bs[1] = {s[3]}, rs[3] = {s[0], s[1], s[3]}, w2s[2] = {s[2], s[3]};
    genie_tensor *x = genie_randn(c, dt, 3, xs, 1), *w = genie_randn(c, dt, 2, ws, 2), *b = genie_randn(c, dt, 1, bs, 3);
    genie_tensor *r = genie_randn(c, dt, 3, rs, 4), *w2 = genie_randn(c, dt, 2, w2s, 5), *y;
    genie_tensor *all[5];
    all[0] = x; all[1] = w; all[2] = b; all[3] = r; all[4] = w2;
    genie_realize(c, 5, all);
    genie_pool_push(c);
    switch (form) {
    case 0: y = genie_gelu(c, genie_linear(c, x, w, b)); break;
    case 1: y = genie_add(c, genie_linear(c, x, w, b), r); break;
    case 2: y = genie_add(c, r, genie_silu(c, genie_linear(c, x, w, NULL))); break;
    case 3: y = genie_relu(c, genie_matmul(c, x, w2)); break;
    case 4: y = genie_add(c, genie_tanh(c, genie_matmul(c, x, w2)), genie_expand(c, b, 3, rs)); break;
    case 5: y = genie_add(c, genie_linear(c, x, w, b), genie_transpose(c, genie_contiguous(c, genie_transpose(c, r, 1, 2)), 1, 2)); break;
    default: y = genie_relu(c, genie_add(c, r, genie_linear(c, x, w, b))); break;
    }
    genie_retain(y);
    genie_pool_pop(c); /* the product is read by nothing else: it takes the epilogue */
    return y;
}
/* conv2d with an epilogue: act(conv2d), conv2d + residual (contiguous, channels-last,
   a per-channel broadcast), residual + act(conv2d), act(conv2d + residual) (a residual
   block's); groups, strides, paddings; f32 and f64; each realized twice in its context,
   the second time from the tape cache. A residual whose (Ho, Wo) do not run as one dim
   (a slice of a wider tensor) takes no epilogue: the conv2d runs alone (f32: the add is
   a group of one). */
static genie_tensor *conv_epi_build(genie_ctx *c, int form, genie_dtype dt, const int64_t *s, int64_t groups, int64_t st,
                                    int64_t pad) {
    const int64_t Ho = (s[2] + 2 * pad - s[5]) / st + 1, Wo = (s[3] + 2 * pad - s[5]) / st + 1;
    int64_t xs[4] = {s[0], s[1], s[2], s[3]}, ws[4] = {s[4], s[1] / groups, s[5], s[5]}, bs[1] = {s[4]};
    int64_t stride[2] = {st, st}, padding[2] = {pad, pad}, dil[2] = {1, 1}, cs[3] = {s[4], 1, 1}, perm[4] = {0, 3, 1, 2};
    int64_t rs[4] = {s[0], s[4], Ho, Wo}, rcl[4] = {s[0], Ho, Wo, s[4]}, rw[4] = {s[0], s[4], Ho, Wo + 3};
    genie_tensor *x = genie_randn(c, dt, 4, xs, 1), *w = genie_randn(c, dt, 4, ws, 2), *b = genie_randn(c, dt, 1, bs, 3);
    genie_tensor *r = genie_randn(c, dt, 4, rs, 4), *rc = genie_randn(c, dt, 4, rcl, 5), *rwide = genie_randn(c, dt, 4, rw, 6);
    genie_tensor *ch = genie_randn(c, dt, 3, cs, 7), *y, *all[7];
    all[0] = x; all[1] = w; all[2] = b; all[3] = r; all[4] = rc; all[5] = rwide; all[6] = ch;
    genie_realize(c, 7, all);
    genie_pool_push(c);
    switch (form) {
    case 0: y = genie_relu(c, genie_conv2d(c, x, w, b, stride, padding, dil, groups)); break;
    case 1: y = genie_add(c, genie_conv2d(c, x, w, b, stride, padding, dil, groups), r); break;
    case 2: y = genie_add(c, r, genie_gelu(c, genie_conv2d(c, x, w, NULL, stride, padding, dil, groups))); break;
    case 3: y = genie_add(c, genie_silu(c, genie_conv2d(c, x, w, b, stride, padding, dil, groups)), ch); break;
    case 4: y = genie_add(c, genie_conv2d(c, x, w, b, stride, padding, dil, groups), genie_permute(c, rc, 4, perm)); break;
    case 5: y = genie_add(c, genie_conv2d(c, x, w, b, stride, padding, dil, groups), genie_slice(c, rwide, 3, 1, Wo + 1, 1)); break;
    case 6: y = genie_relu(c, genie_add(c, genie_conv2d(c, x, w, b, stride, padding, dil, groups), r)); break;
    default: y = genie_gelu(c, genie_add(c, genie_conv2d(c, x, w, NULL, stride, padding, dil, groups), genie_permute(c, rc, 4, perm))); break;
    }
    genie_retain(y);
    genie_pool_pop(c); /* the conv2d is read by nothing else: it takes the epilogue */
    return y;
}
static void conv_epilogue_cases(int th) {
    static const int64_t shapes[][6] = {{1, 3, 8, 8, 4, 3}, {2, 4, 17, 13, 6, 3}, {1, 8, 30, 30, 16, 1}, {3, 6, 9, 9, 12, 5}}; /* N C H W O k */
    int form, dt, si, gi;
    { /* products computed by an earlier realize (their inputs dropped): relu of each, relu of each + r,
         take no epilogue (a differential run crashed here, reading a done conv2d's dropped weight view) */
        genie_ctx_desc d;
        genie_ctx *c;
        int64_t xs[4] = {1, 2, 5, 5}, ws[4] = {3, 2, 3, 3}, rs[4] = {1, 3, 3, 3}, ms[2] = {4, 4}, one[2] = {1, 1}, zero[2] = {0, 0};
        genie_tensor *x, *w, *r, *m, *cv, *mm, *y[4];
        float got[27];
        memset(&d, 0, sizeof d);
        d.n_threads = th;
        d.cpu = (genie_cpu)(GENIE_CPU_COUNT - 1);
        c = genie_ctx_create(&d);
        x = genie_full(c, GENIE_F32, 4, xs, 1.0), w = genie_full(c, GENIE_F32, 4, ws, -1.0), r = genie_full(c, GENIE_F32, 4, rs, 20.0);
        m = genie_full(c, GENIE_F32, 2, ms, 1.0);
        cv = genie_conv2d(c, x, w, NULL, one, zero, one, 1); /* each output -18 */
        mm = genie_matmul(c, m, m);                          /* each 4 */
        genie_realize(c, 1, &cv);
        genie_realize(c, 1, &mm);
        y[0] = genie_relu(c, cv);
        y[1] = genie_relu(c, genie_add(c, cv, r));
        y[2] = genie_relu(c, mm);
        y[3] = genie_relu(c, genie_add(c, mm, mm));
        FCHECK(genie_read(c, y[0], GENIE_F32, got, 27 * 4) == GENIE_OK && got[0] == 0.0f && got[26] == 0.0f &&
                   genie_read(c, y[1], GENIE_F32, got, 27 * 4) == GENIE_OK && got[0] == 2.0f && got[26] == 2.0f &&
                   genie_read(c, y[2], GENIE_F32, got, 16 * 4) == GENIE_OK && got[15] == 4.0f &&
                   genie_read(c, y[3], GENIE_F32, got, 16 * 4) == GENIE_OK && got[15] == 8.0f,
               "activations of products an earlier realize computed: %s", genie_last_error(c));
        genie_ctx_destroy(c);
    }
    for (dt = 0; dt < 2; dt++)
        for (form = 0; form < 8; form++)
            for (si = 0; si < 4; si++)
                for (gi = 0; gi < 2; gi++) {
                    const int64_t *s = shapes[si], groups = gi && s[1] % 2 == 0 && s[4] % 2 == 0 ? 2 : 1;
                    const int64_t st = si % 2 + 1, pad = si == 3 ? 2 : 1, K = s[1] / groups * s[5] * s[5];
                    const int want = form == 5 ? !dt : form == 2 || form == 3 || form >= 6 ? 3 : 2; /* fused nodes */
                    genie_ctx *c, *r;
                    genie_tensor *y, *yr;
                    int64_t n, i, bad = 0, again;
                    uint64_t hits;
                    double *a, *b, tol = dt ? 1e-12 : 3e-5;
                    ctx_pair(th, &c, &r);
                    y = conv_epi_build(c, form, dt ? GENIE_F64 : GENIE_F32, s, groups, st, pad);
                    yr = conv_epi_build(r, form, dt ? GENIE_F64 : GENIE_F32, s, groups, st, pad);
                    n = genie_numel(y);
                    a = (double *)malloc((size_t)n * 8), b = (double *)malloc((size_t)n * 8);
                    FCHECK(genie_read(c, y, GENIE_F64, a, (size_t)n * 8) == GENIE_OK && genie_read(r, yr, GENIE_F64, b, (size_t)n * 8) == GENIE_OK,
                           "conv2d epilogue form %d: read failed", form);
                    for (i = 0; i < n; i++)
                        if (!(fabs(a[i] - b[i]) <= tol * (1 + fabs(b[i])) * sqrt((double)K))) bad++;
                    FCHECK(bad == 0, "conv2d epilogue form %d %s shape %d groups %lld, %d threads: %lld elements differ", form,
                           dt ? "f64" : "f32", si, (long long)groups, th, (long long)bad);
                    FCHECK(genie_get_stats(c).fused_nodes == (uint64_t)want || genie_cpu_path(c) == GENIE_CPU_REFERENCE,
                           "conv2d epilogue form %d %s shape %d: %llu nodes fused, expected %d", form, dt ? "f64" : "f32", si,
                           (unsigned long long)genie_get_stats(c).fused_nodes, want);
                    genie_release(y); /* the same structure again: the tape cache's plan, the same values */
                    hits = genie_get_stats(c).tape_cache_hits;
                    y = conv_epi_build(c, form, dt ? GENIE_F64 : GENIE_F32, s, groups, st, pad);
                    FCHECK(genie_read(c, y, GENIE_F64, a, (size_t)n * 8) == GENIE_OK, "conv2d epilogue form %d: read failed", form);
                    for (i = 0, again = 0; i < n; i++)
                        if (!(fabs(a[i] - b[i]) <= tol * (1 + fabs(b[i])) * sqrt((double)K))) again++;
                    FCHECK(again == 0 && genie_get_stats(c).tape_cache_hits >= hits + 2,
                           "conv2d epilogue form %d %s shape %d, again: %lld elements differ, %llu tape cache hits", form,
                           dt ? "f64" : "f32", si, (long long)again, (unsigned long long)(genie_get_stats(c).tape_cache_hits - hits));
                    genie_release(y);
                    genie_release(yr);
                    free(a);
                    free(b);
                    genie_ctx_destroy(c);
                    genie_ctx_destroy(r);
                }
}
static void epilogue_cases(int th) {
    static const int64_t shapes[][4] = {{1, 7, 13, 5}, {2, 33, 70, 40}, {3, 1, 64, 300}, {1, 128, 64, 128}, {4, 5, 3, 2}};
    int form, dt, si;
    for (dt = 0; dt < 2; dt++)
        for (form = 0; form < 7; form++)
            for (si = 0; si < 5; si++) {
                genie_ctx *c, *r;
                genie_tensor *y, *yr;
                const int64_t *s = shapes[si];
                int64_t n = s[0] * s[1] * s[3], i, bad = 0;
                double *a = (double *)malloc((size_t)n * 8), *b = (double *)malloc((size_t)n * 8);
                /* |err| <= K 2^-22 sum|a||b| with unit-normal data, |sum| ~ sqrt(K): a relative 2^-15 covers it */
                double tol = dt ? 1e-12 : 3e-5;
                ctx_pair(th, &c, &r);
                y = epi_build(c, form, dt ? GENIE_F64 : GENIE_F32, s);
                yr = epi_build(r, form, dt ? GENIE_F64 : GENIE_F32, s);
                FCHECK(genie_read(c, y, GENIE_F64, a, (size_t)n * 8) == GENIE_OK && genie_read(r, yr, GENIE_F64, b, (size_t)n * 8) == GENIE_OK,
                       "epilogue form %d: read failed", form);
                for (i = 0; i < n; i++)
                    if (!(fabs(a[i] - b[i]) <= tol * (1 + fabs(b[i])) * sqrt((double)s[2]))) bad++;
                FCHECK(bad == 0, "epilogue form %d %s shape %d, %d threads: %lld elements differ", form, dt ? "f64" : "f32", si, th, (long long)bad);
                FCHECK(genie_get_stats(c).fused_groups == 1 || genie_cpu_path(c) == GENIE_CPU_REFERENCE,
                       "epilogue form %d did not fuse", form);
                free(a);
                free(b);
                genie_ctx_destroy(c);
                genie_ctx_destroy(r);
            }
}

/* Copies and fills that run alone (the strided copy kernel): contiguous() of
   permuted, flipped (a middle dim, and the last: reversed runs), expanded and strided views, clones, reshapes that copy,
   copy_ into a transposed slice and into a transposed matrix, copy_ onto
   itself as is and flipped, full, zeros and fill_ of a transposed slice. For
   every element size, so the transposing path runs its f32 SIMD strips and its
   tiles; compared byte for byte with the reference. The 3-D shape is over the threads' threshold, and
   so is the strided 1-D one (one run, split over the threads). */
#define NCOPY 15
static genie_tensor *copy_build(genie_ctx *c, int form, genie_dtype dt) {
    int64_t s[3] = {5, 129, 131}, p[3] = {2, 0, 1}, f = 1, flat[2] = {645, 131}, n1 = 200003, i;
    double *v = (double *)malloc((size_t)n1 * sizeof(double));
    genie_tensor *x, *z, *y;
    for (i = 0; i < n1; i++) v[i] = 0.5 * (double)((i * 37) % 201 - 100); /* exact in every float dtype */
    x = genie_to_dtype(c, genie_from_data(c, GENIE_F64, 3, s, v), dt);
    z = genie_to_dtype(c, genie_from_data(c, GENIE_F64, 1, &n1, v), dt);
    free(v);
    genie_realize(c, 1, &x);
    genie_realize(c, 1, &z);
    genie_pool_push(c);
    switch (form) {
    case 0: y = genie_contiguous(c, genie_permute(c, x, 3, p)); break;    /* runs of one element */
    case 1: y = genie_contiguous(c, genie_flip(c, x, 1, &f)); break;      /* a negative stride */
    case 2: y = genie_clone(c, x); break;                                  /* one run, memmove'd */
    case 3: y = genie_contiguous(c, genie_expand(c, genie_narrow(c, genie_narrow(c, x, 0, 1, 1), 2, 4, 1), 3, s)); break;
    case 4: y = genie_reshape(c, genie_transpose(c, x, 0, 1), 2, flat); break; /* rows of 131 */
    case 5: y = genie_contiguous(c, genie_slice(c, z, 0, 1, n1, 2)); break;  /* one strided run */
    case 6:
        y = genie_zeros(c, dt, 3, s);
        genie_copy_(c, genie_narrow(c, genie_transpose(c, y, 1, 2), 1, 3, 100),
                    genie_narrow(c, genie_transpose(c, x, 1, 2), 1, 10, 100));
        break;
    case 7:
        y = genie_clone(c, x);
        genie_realize(c, 1, &y);
        genie_copy_(c, y, y); /* onto itself: the same view */
        break;
    case 8:
        y = genie_clone(c, x);
        genie_realize(c, 1, &y);
        genie_copy_(c, y, genie_flip(c, y, 1, &f)); /* onto itself, flipped: PyTorch reads the old values */
        break;
    case 9: y = genie_full(c, dt, 3, s, -3.0); break; /* fills */
    case 10: y = genie_zeros(c, dt, 3, s); break;
    case 11:
        y = genie_clone(c, x);
        genie_realize(c, 1, &y);
        genie_fill_(c, genie_narrow(c, genie_transpose(c, y, 0, 2), 0, 7, 50), 7.0); /* a strided fill */
        break;
    case 12: y = genie_contiguous(c, genie_transpose(c, x, 1, 2)); break; /* 5 transposed planes */
    case 13: { /* runs reversed: a flip of the last dim (rows of 131: a tail) */
        const int64_t last = 2;
        y = genie_contiguous(c, genie_flip(c, x, 1, &last));
        break;
    }
    default: { /* into a transposed destination from a contiguous source */
        int64_t ts[2] = {131, 645};
        y = genie_zeros(c, dt, 2, ts);
        genie_copy_(c, genie_t(c, y), genie_reshape(c, x, 2, flat));
        break;
    }
    }
    genie_retain(y);
    genie_pool_pop(c);
    genie_release(x);
    genie_release(z);
    return y;
}
static void copy_cases(genie_ctx *c, genie_ctx *r, int th) {
    /* quick (valgrind): the first four, one of each element size */
    static const genie_dtype dts[] = {GENIE_F32, GENIE_F16, GENIE_I64, GENIE_I8, GENIE_F64, GENIE_BF16, GENIE_I32, GENIE_I16, GENIE_BOOL};
    const int ndt = getenv("GENIE_GEMM_QUICK") ? 4 : (int)(sizeof dts / sizeof dts[0]);
    int form, d;
    for (d = 0; d < ndt; d++)
        for (form = 0; form < NCOPY; form++) {
            genie_tensor *a = copy_build(c, form, dts[d]), *b = copy_build(r, form, dts[d]);
            size_t bytes = (size_t)genie_numel(a) * genie_dtype_size(dts[d]);
            char *x = (char *)malloc(bytes + 1), *y = (char *)malloc(bytes + 1);
            FCHECK(genie_numel(a) == genie_numel(b) && genie_numel(a) > 0 && genie_read(c, a, dts[d], x, bytes) == GENIE_OK &&
                       genie_read(r, b, dts[d], y, bytes) == GENIE_OK && memcmp(x, y, bytes) == 0,
                   "lone copy form %d, dtype %d, %d thread(s): differs from the reference (%s)", form, (int)dts[d], th,
                   genie_last_error(c));
            free(x);
            free(y);
            genie_release(a);
            genie_release(b);
        }
}

/* Lone elementwise ops that no array kernel takes, each a group of one: f16/bf16
   (converted in registers on the path's array kernels), and f32 with a layout other
   than a dense output read in order; and a three-op chain. On each way a group loads
   an input: contiguous, rows of a narrowed view, a transposed view, and for binary ops
   a broadcast row and column; f32 ops reading f16/bf16 values (converted exactly); over
   values with inf, NaN, signed zeros, subnormals and the dtype's largest. Exact
   operations must match the reference bit for bit (NaN as NaN); the transcendental
   ones within one ulp of f16/bf16 (the f32 SIMD kernels are a few f32 ulp from the
   reference, which can flip the rounding to f16/bf16), 2^-14 relative in f32. */
#define HALF_R 33
#define HALF_C 70
static genie_tensor *half_data(genie_ctx *c, genie_dtype dt, int64_t r, int64_t cols, uint64_t seed) {
    int64_t s[2] = {r, cols}, n = r * cols, i;
    float *v = (float *)malloc((size_t)n * 4);
    const float sub = dt == GENIE_F16 ? 3.0e-6f : 1.0e-39f, top = dt == GENIE_F16 ? 60000.0f : 3.0e38f;
    genie_tensor *t;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (float)((double)(x >> 40) / (double)(1ull << 24) * 8.0 - 4.0);
        switch ((x >> 33) % 29) {
        case 0: v[i] = NAN; break;
        case 1: v[i] = INFINITY; break;
        case 2: v[i] = -INFINITY; break;
        case 3: v[i] = -0.0f; break;
        case 4: v[i] = sub * v[i]; break;
        case 5: v[i] = v[i] < 0 ? -top : top; break;
        case 6: v[i] = 0.5f; break; /* ties of round, exact halves */
        default: break;
        }
    }
    t = genie_to_dtype(c, genie_from_data(c, GENIE_F32, 2, s, v), dt);
    genie_realize(c, 1, &t);
    free(v);
    return t;
}
/* op k of the list below on x (and y); *exact: 1 where the reference is matched bit for bit */
static genie_tensor *half_op(genie_ctx *c, int k, genie_tensor *x, genie_tensor *y, int *exact) {
    static genie_tensor *(*const un[])(genie_ctx *, genie_tensor *) = {
        genie_neg, genie_abs, genie_relu, genie_square, genie_floor, genie_ceil, genie_round, genie_sign, genie_sqrt,
        genie_reciprocal, /* exact */
        genie_exp, genie_log, genie_tanh, genie_sigmoid, genie_gelu, genie_gelu_tanh, genie_silu, genie_erf, genie_log1p,
        genie_expm1, genie_sin, genie_cos, genie_rsqrt};
    static genie_tensor *(*const bin[])(genie_ctx *, genie_tensor *, genie_tensor *) = {
        genie_add, genie_sub, genie_mul, genie_div, genie_maximum, genie_minimum, genie_pow};
    const int nun = (int)(sizeof un / sizeof un[0]), nbin = (int)(sizeof bin / sizeof bin[0]);
    if (k < nun) { *exact = k < 10; return un[k](c, x); }
    k -= nun;
    if (k < nbin) { *exact = k < 6; return bin[k](c, x, y); }
    k -= nbin;
    *exact = k < 3;
    switch (k) {
    case 0: return genie_add_scalar(c, x, 0.3);
    case 1: return genie_mul_scalar(c, x, -1.7);
    case 2: return genie_clamp(c, x, -0.5, 2.0);
    case 3: return genie_silu(c, genie_mul(c, genie_add_scalar(c, x, 1.0), y)); /* a chain of three */
    case 4: *exact = 1; return genie_mul(c, x, genie_to_dtype(c, y, GENIE_F32)); /* f16/bf16 x f32: an f32 op */
    default: *exact = 1; return genie_sub(c, genie_to_dtype(c, y, GENIE_F32), x);
    }
}
#define HALF_NOPS 36
static void half_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[3] = {GENIE_F16, GENIE_BF16, GENIE_F32};
    genie_ctx *cs[2];
    int d, k, lx, ly, i;
    cs[0] = c;
    cs[1] = r;
    for (d = 0; d < 3; d++)
        for (k = 0; k < HALF_NOPS; k++)
            for (lx = 0; lx < 3; lx++)
                for (ly = 0; ly < 3; ly++) {
                    genie_tensor *res[2];
                    int exact = 0;
                    uint64_t g0 = genie_get_stats(c).fused_groups;
                    for (i = 0; i < 2; i++) {
                        genie_tensor *x, *y;
                        genie_pool_push(cs[i]);
                        /* x: [R, C] contiguous, narrowed from [R, C + 9], or transposed from [C, R] */
                        x = lx == 0 ? half_data(cs[i], dts[d], HALF_R, HALF_C, 7 + (uint64_t)k)
                          : lx == 1 ? genie_narrow(cs[i], half_data(cs[i], dts[d], HALF_R, HALF_C + 9, 7 + (uint64_t)k), 1, 4, HALF_C)
                                    : genie_t(cs[i], half_data(cs[i], dts[d], HALF_C, HALF_R, 7 + (uint64_t)k));
                        /* y: [R, C] contiguous, a row [C] or a column [R, 1] (broadcast) */
                        y = ly == 0 ? half_data(cs[i], dts[d], HALF_R, HALF_C, 99)
                          : ly == 1 ? genie_reshape(cs[i], half_data(cs[i], dts[d], 1, HALF_C, 98), 1, (int64_t[]){HALF_C})
                                    : half_data(cs[i], dts[d], HALF_R, 1, 97);
                        res[i] = half_op(cs[i], k, x, y, &exact);
                        genie_retain(res[i]);
                        genie_pool_pop(cs[i]);
                    }
                    {
                        char what[96];
                        snprintf(what, sizeof what, "lone %s op %d (x layout %d, y layout %d, %d thread(s))",
                                 genie_dtype_name(dts[d]), k, lx, ly, th);
                        compare(c, res[0], r, res[1], what, (uint64_t)k,
                                exact ? 0.0 : dts[d] == GENIE_F16 ? 1.0 / 512 : dts[d] == GENIE_BF16 ? 1.0 / 64 : 1.0 / 16384);
                        /* f16/bf16, or a broadcast row or column operand: no array kernel, a group */
                        if (dts[d] != GENIE_F32 || (k >= 23 && k < 30 && ly > 0))
                            FCHECK(genie_get_stats(c).fused_groups > g0, "%s: ran outside a group", what);
                    }
                    genie_release(res[0]);
                    genie_release(res[1]);
                    if (k < 23 || (k >= 30 && k < 33)) break; /* unary and scalar forms: y unused */
                }
}

/* A value of an f16/bf16 group both written (held) and read by a later op of the group,
   as y and as x: the later ops read it rounded, as the reference does. Exact ops: bit
   for bit. */
static void half_held_operands(genie_ctx *c, genie_ctx *r) {
    static const genie_dtype dts[2] = {GENIE_F16, GENIE_BF16};
    genie_ctx *cs[2];
    genie_tensor *a[2], *e[2], *d2[2];
    int d, i;
    cs[0] = c;
    cs[1] = r;
    for (d = 0; d < 2; d++) {
        uint64_t g0 = genie_get_stats(c).fused_nodes;
        for (i = 0; i < 2; i++) {
            genie_tensor *x = half_data(cs[i], dts[d], HALF_R, HALF_C, 5), *y = half_data(cs[i], dts[d], HALF_R, HALF_C, 6);
            genie_pool_push(cs[i]);
            a[i] = genie_mul_scalar(cs[i], x, 1.7);                               /* held; read once, as y */
            e[i] = genie_add_scalar(cs[i], genie_sub(cs[i], y, a[i]), 0.3);       /* held; read once, as x */
            d2[i] = genie_mul(cs[i], e[i], y);
            genie_retain(a[i]);
            genie_retain(e[i]);
            genie_retain(d2[i]);
            genie_pool_pop(cs[i]);
        }
        compare(c, d2[0], r, d2[1], dts[d] == GENIE_F16 ? "f16 group reading its held values" : "bf16 group reading its held values", 0, 0.0);
        FCHECK(genie_get_stats(c).fused_nodes - g0 >= 4, "the held values ran outside one group (%llu nodes fused)",
               (unsigned long long)(genie_get_stats(c).fused_nodes - g0));
        compare(c, a[0], r, a[1], dts[d] == GENIE_F16 ? "f16 held value" : "bf16 held value", 0, 0.0);
        compare(c, e[0], r, e[1], dts[d] == GENIE_F16 ? "f16 held value" : "bf16 held value", 0, 0.0);
        for (i = 0; i < 2; i++) {
            genie_release(a[i]);
            genie_release(e[i]);
            genie_release(d2[i]);
        }
    }
}

/* Conversions, clones and contiguous copies inside groups: a widening conversion
   (f16/bf16 to f32) is an op of its group, its input loaded converted or its producer's
   register; a narrowing one (f32 to f16/bf16, f16 <-> bf16) is computed in its input's
   dtype and rounded to its own, by the store where only stored, in its register where
   a later op reads it, so that ops of several dtypes are one group, each rounding as
   the reference rounds its node; a lone conversion the array kernels cannot take (of a
   non-dense or broadcast view, or f16 <-> bf16) is a group of one. Each chain is checked
   against the reference (exact ones bit for bit) and for the groups and fused nodes
   it ran as. */
#define NCONV 17
static genie_tensor *conv_build(genie_ctx *c, int k, genie_tensor **held, int *exact, int *groups, int *nodes) {
    genie_tensor *x16 = half_data(c, GENIE_F16, HALF_R, HALF_C, 21), *xb = half_data(c, GENIE_BF16, HALF_R, HALF_C, 22);
    genie_tensor *x32 = half_data(c, GENIE_F32, HALF_R, HALF_C, 23), *y32 = half_data(c, GENIE_F32, HALF_R, HALF_C, 24);
    genie_tensor *t32 = half_data(c, GENIE_F32, HALF_C, HALF_R, 25), *t16 = half_data(c, GENIE_F16, HALF_C, HALF_R, 26);
    int64_t s[2] = {HALF_R, HALF_C};
    *held = NULL, *exact = 1, *groups = 1;
    switch (k) {
    case 0: /* f16 -> f32, two f32 ops, -> f16: one group of four */
        *exact = 0, *nodes = 4;
        return genie_to_dtype(c, genie_gelu(c, genie_mul(c, genie_to_dtype(c, x16, GENIE_F32), y32)), GENIE_F16);
    case 1: *exact = 0, *nodes = 2; return genie_to_dtype(c, genie_exp(c, x32), GENIE_BF16); /* f32 op -> bf16 */
    case 2: /* bf16 -> f32 as a softmax's prologue, -> bf16 as its epilogue: one row group of three */
        *exact = 0, *nodes = 3;
        return genie_to_dtype(c, genie_softmax(c, genie_to_dtype(c, xb, GENIE_F32), -1), GENIE_BF16);
    case 3: *nodes = 2; return genie_add(c, genie_contiguous(c, genie_t(c, t32)), y32); /* a transposed copy, read in */
    case 4: *nodes = 3; return genie_to_dtype(c, genie_neg(c, genie_clone(c, x16)), GENIE_BF16); /* an f16 group -> bf16 */
    case 5: *nodes = 1; return genie_to_dtype(c, genie_t(c, t16), GENIE_BF16);                  /* lone, strided */
    case 6: *nodes = 1; return genie_to_dtype(c, genie_narrow(c, t32, 1, 4, 20), GENIE_F16);    /* lone, rows of a narrowed view */
    case 7: *nodes = 1; return genie_to_dtype(c, genie_expand(c, genie_narrow(c, x16, 0, 3, 1), 2, s), GENIE_F32); /* a broadcast row */
    case 8: /* the widened value is also held: written once, and read by the group */
        *nodes = 2;
        *held = genie_to_dtype(c, xb, GENIE_F32);
        return genie_relu(c, *held);
    case 9: /* f32 ops -> f16 -> f16 op -> f32: one group (the f32 ops not rounded to f16, the f16 one after them) */
        *nodes = 5;
        return genie_to_dtype(c, genie_add_scalar(c, genie_to_dtype(c, genie_add_scalar(c, genie_mul(c, x32, y32), 0.3), GENIE_F16), 0.5),
                              GENIE_F32);
    case 10: /* f32 -> bf16 op -> f16 op -> f32 op: three dtypes, each narrowing rounded in its register */
        *exact = 0, *nodes = 7;
        return genie_mul(c, genie_to_dtype(c, genie_add(c, genie_to_dtype(c, genie_mul(c, genie_to_dtype(c, genie_gelu(c, x32), GENIE_BF16), xb),
                                                                          GENIE_F16), x16), GENIE_F32), y32);
    case 11: /* a narrowing conversion still held: written once, read rounded by the f16 op after it */
        *nodes = 3;
        *held = genie_to_dtype(c, genie_mul(c, x32, y32), GENIE_F16);
        return genie_mul(c, *held, x16);
    case 12: /* f16 ops into a widening conversion (its producers' register), then f32 */
        *nodes = 4;
        return genie_add(c, genie_to_dtype(c, genie_add_scalar(c, genie_mul(c, x16, x16), 0.5), GENIE_F32), y32);
    case 13: /* a softmax's epilogue narrowing to f16, an f16 op after it: one row group */
        *exact = 0, *nodes = 3;
        return genie_mul(c, genie_to_dtype(c, genie_softmax(c, x32, -1), GENIE_F16), x16);
    case 14: /* f16 ops widened as a softmax's prologue: one row group */
        *exact = 0, *nodes = 3;
        return genie_softmax(c, genie_to_dtype(c, genie_mul(c, x16, x16), GENIE_F32), -1);
    case 16: { /* the same over a space of one element, where the 0-dim operand's view counts as contiguous:
                  0.5 + 1/3 is 0.83300781 rounded as the reference (1/3 to f16 first), 0.83349609 if not */
        int64_t one[2] = {1, 1};
        *nodes = 2;
        return genie_add(c, genie_to_dtype(c, genie_full(c, GENIE_F32, 2, one, 0.5), GENIE_F16), genie_full(c, GENIE_F32, 0, NULL, 1.0 / 3));
    }
    default: { /* a 0-dim f32 tensor read by an f32 op and by an f16 one (which loads it rounded to f16) */
        genie_tensor *s0 = genie_full(c, GENIE_F32, 0, NULL, 1.0 / 3);
        *nodes = 3;
        return genie_add(c, genie_to_dtype(c, genie_mul(c, x32, s0), GENIE_F16), s0);
    }
    }
}
/* Elements of a and b (read as f32) that are not the same bits (NaNs alike): -1 when unread. */
static int64_t bit_diffs(genie_ctx *c, genie_tensor *a, genie_ctx *r, genie_tensor *b) {
    int64_t n = genie_numel(a), i, d = 0;
    float *x = (float *)malloc((size_t)n * 4 + 4), *y = (float *)malloc((size_t)n * 4 + 4);
    if (genie_read(c, a, GENIE_F32, x, (size_t)n * 4) != GENIE_OK || genie_read(r, b, GENIE_F32, y, (size_t)n * 4) != GENIE_OK) d = -1;
    for (i = 0; i < n && d >= 0; i++) d += memcmp(&x[i], &y[i], 4) != 0 && !(x[i] != x[i] && y[i] != y[i]);
    free(x);
    free(y);
    return d;
}
static void convert_cases(genie_ctx *c, genie_ctx *r, int th) {
    int k, i;
    for (k = 0; k < NCONV; k++) {
        genie_ctx *cs[2];
        genie_tensor *res[2], *held[2];
        int exact = 1, groups = 0, nodes = 0;
        genie_stats s0 = genie_get_stats(c), s1;
        char what[80];
        cs[0] = c, cs[1] = r;
        for (i = 0; i < 2; i++) {
            genie_pool_push(cs[i]);
            res[i] = conv_build(cs[i], k, &held[i], &exact, &groups, &nodes);
            genie_retain(res[i]);
            if (held[i]) genie_retain(held[i]);
            genie_pool_pop(cs[i]);
            genie_realize(cs[i], 1, &res[i]);
        }
        s1 = genie_get_stats(c);
        snprintf(what, sizeof what, "conversion chain %d (%d thread(s))", k, th);
        compare(c, res[0], r, res[1], what, (uint64_t)k, exact ? 0.0 : 1.0 / 64);
        if (!exact) { /* within a few f32 ulps, a rounding to f16/bf16 rarely lands apart: a missed one often does */
            int64_t d = bit_diffs(c, res[0], r, res[1]);
            FCHECK(d >= 0 && d <= genie_numel(res[0]) / 50, "%s: %lld of %lld elements are not the reference's bits",
                   what, (long long)d, (long long)genie_numel(res[0]));
        }
        if (held[0]) compare(c, held[0], r, held[1], what, (uint64_t)k, 0.0);
        FCHECK(s1.fused_groups - s0.fused_groups == (uint64_t)groups && s1.fused_nodes - s0.fused_nodes >= (uint64_t)nodes,
               "%s: ran as %llu groups of %llu nodes, not %d of %d", what, (unsigned long long)(s1.fused_groups - s0.fused_groups),
               (unsigned long long)(s1.fused_nodes - s0.fused_nodes), groups, nodes);
        for (i = 0; i < 2; i++) {
            genie_release(res[i]);
            if (held[i]) genie_release(held[i]);
        }
    }
}

/* to_dtype between every pair of the ten dtypes (the conversion kernel; f32, f16 and bf16
   among themselves in groups) against the reference, bit for bit: NaN, infinities, signed
   zeros, subnormals, halfway cases, values out of every integer range, integers past 2^53.
   600 elements: whole chunks of the kernel and a tail, shared by the threads. */
static void dtype_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const double fv[] = {0.0, -0.0, 1.5, -1.5, 2.5, -2.7, 0.49999997, 127.5, 128.0, -129.0, 255.9, 256.0, -1.0,
                                32767.5, -32769.0, 65504.0, 65520.0, 1e5, -1e5, 2147483520.0, 2147483648.0, -2147483648.0,
                                -2147483904.0, 3e9, -3e9, 9.2e18, 9.3e18, -9.3e18, 1e19, 1e-40, 6e-8, 1e-300, 1e300,
                                INFINITY, -INFINITY, NAN, 3.0e38, 0.1, 1.0 / 3};
    static const int64_t iv[] = {0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, -32769, 65535, 2147483647, 2147483648LL,
                                 -2147483649LL, 9007199254740993LL, -9007199254740993LL, 4611686018427387905LL, INT64_MAX,
                                 INT64_MIN, 16777217, -16777217, 3, 1152921573326323713LL /* 2^60 + 2^36 + 1: f32 through f64 */};
    static const genie_dtype dts[10] = {GENIE_F32, GENIE_F64, GENIE_F16, GENIE_BF16, GENIE_I64,
                                        GENIE_I32, GENIE_I16, GENIE_I8, GENIE_U8, GENIE_BOOL};
    const int64_t n = 600;
    double *f = (double *)malloc((size_t)n * sizeof(double));
    int64_t *ints = (int64_t *)malloc((size_t)n * sizeof(int64_t)), k;
    unsigned char *bufs[2];
    int a, b, i, bad = 0, ran = 0;
    bufs[0] = (unsigned char *)malloc((size_t)n * 8), bufs[1] = (unsigned char *)malloc((size_t)n * 8);
    for (k = 0; k < n; k++) {
        f[k] = fv[k % (int64_t)(sizeof fv / sizeof fv[0])] * (k / 40 % 3 == 1 ? 1e-3 : 1.0);
        ints[k] = (int64_t)((uint64_t)iv[k % (int64_t)(sizeof iv / sizeof iv[0])] + (uint64_t)(k / 40)); /* wrapping */
    }
    for (a = 0; a < 10; a++)
        for (b = 0; b < 10; b++) {
            genie_ctx *cs[2];
            genie_tensor *t[2];
            size_t bytes = (size_t)n * genie_dtype_size(dts[b]);
            cs[0] = c, cs[1] = r;
            if (a == b) continue;
            for (i = 0; i < 2; i++) {
                genie_tensor *src = a < 4 ? genie_from_data(cs[i], GENIE_F64, 1, &n, f) : genie_from_data(cs[i], GENIE_I64, 1, &n, ints);
                genie_pool_push(cs[i]);
                t[i] = genie_to_dtype(cs[i], genie_to_dtype(cs[i], src, dts[a]), dts[b]);
                genie_retain(t[i]);
                genie_pool_pop(cs[i]);
                memset(bufs[i], i, (size_t)n * 8);
                if (genie_read(cs[i], t[i], dts[b], bufs[i], bytes) != GENIE_OK) bufs[i][0] ^= 1;
                genie_release(t[i]);
                genie_release(src);
            }
            ran++;
            if (memcmp(bufs[0], bufs[1], bytes) != 0) {
                for (k = 0; k < n && memcmp(bufs[0] + k * (int64_t)genie_dtype_size(dts[b]), bufs[1] + k * (int64_t)genie_dtype_size(dts[b]),
                                            genie_dtype_size(dts[b])) == 0; k++) {}
                printf("  to_dtype %s -> %s (%d threads): element %lld differs from the reference\n", genie_dtype_name(dts[a]),
                       genie_dtype_name(dts[b]), th, (long long)k);
                bad++;
            }
        }
    FCHECK(bad == 0 && ran == 90, "to_dtype: %d of %d dtype pairs differ from the reference", bad, ran);
    free(f);
    free(ints);
    free(bufs[0]);
    free(bufs[1]);
}

/* sum, prod, amax and amin of integers and bool over trailing dims (the typed row kernel)
   against the reference, exactly: i64 values over the whole range (sums and products
   wrap), converted (wrapping) to the narrower dtypes; rows of 515 (two chunks and a tail),
   of 2100 over two dims, and of 1. */
static void int_reduce_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[6] = {GENIE_I64, GENIE_I32, GENIE_I16, GENIE_I8, GENIE_U8, GENIE_BOOL};
    static const int64_t shapes[3][3] = {{37, 515, 1}, {3, 7, 300}, {40, 1, 1}};
    const int64_t n = 3 * 7 * 300 > 37 * 515 ? 3 * 7 * 300 : 37 * 515;
    int64_t *v = (int64_t *)malloc((size_t)n * sizeof(int64_t)), k;
    int d, sh, op, i, bad = 0, ran = 0;
    uint64_t z = 88172645463325252ull;
    for (k = 0; k < n; k++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        v[k] = k % 5 == 0 ? (int64_t)z : (int64_t)(z % 7) - 3; /* big values, and small ones (products stay nonzero longer) */
    }
    for (d = 0; d < 6; d++)
        for (sh = 0; sh < 3; sh++)
            for (op = 0; op < 4; op++) {
                genie_ctx *cs[2];
                genie_tensor *t[2];
                int64_t got[2][1000];
                int64_t dims2[2] = {1, 2}, dim1[1] = {1}, nel = shapes[sh][0] * shapes[sh][1] * shapes[sh][2];
                cs[0] = c, cs[1] = r;
                for (i = 0; i < 2; i++) {
                    genie_tensor *x = genie_reshape(cs[i], genie_to_dtype(cs[i], genie_from_data(cs[i], GENIE_I64, 1, &nel, v), dts[d]), 3,
                                                    shapes[sh]);
                    const int nd = sh == 1 ? 2 : 1;
                    const int64_t *dims = sh == 1 ? dims2 : dim1;
                    t[i] = op == 0 ? genie_sum(cs[i], x, nd, dims, 0) : op == 1 ? genie_prod(cs[i], x, nd, dims, 1)
                         : op == 2 ? genie_amax(cs[i], x, nd, dims, 0) : genie_amin(cs[i], x, nd, dims, 0);
                    memset(got[i], 0, sizeof got[i]);
                    if (genie_read(cs[i], t[i], GENIE_I64, got[i], (size_t)genie_numel(t[i]) * sizeof(int64_t)) != GENIE_OK) got[i][0] ^= 1;
                }
                ran++;
                if (memcmp(got[0], got[1], sizeof got[0]) != 0) {
                    printf("  integer reduction %d of %s, shape %d (%d threads): differs from the reference\n", op,
                           genie_dtype_name(dts[d]), sh, th);
                    bad++;
                }
            }
    FCHECK(bad == 0 && ran == 72, "integer reductions: %d of %d cases differ from the reference", bad, ran);
    free(v);
}

/* where and masked_fill in groups: the bool operand loaded as 0 or 1 (contiguous, a
   broadcast row or column, or computed in the same tape by a comparison), the values
   f32, f16 or bf16 (NaN, inf and signed zeros among them), alone, inside chains and as a
   softmax's prologue; where selecting a product's value. The
   selections and the exact ops around them must match the reference bit for bit. */
#define NSEL 9
static genie_tensor *sel_build(genie_ctx *c, int k, genie_dtype dt, int *exact, int *nodes) {
    genie_tensor *x = half_data(c, dt, HALF_R, HALF_C, 31), *y = half_data(c, dt, HALF_R, HALF_C, 32);
    genie_tensor *p = half_data(c, GENIE_F32, HALF_R, HALF_C, 33), *q = half_data(c, GENIE_F32, HALF_C, HALF_C, 34);
    genie_tensor *m = genie_gt(c, half_data(c, GENIE_F32, HALF_R, HALF_C, 35), genie_zeros(c, GENIE_F32, 0, NULL));
    genie_tensor *row = genie_gt(c, half_data(c, GENIE_F32, 1, HALF_C, 36), genie_zeros(c, GENIE_F32, 0, NULL));
    genie_tensor *col = genie_lt(c, half_data(c, GENIE_F32, HALF_R, 1, 37), genie_zeros(c, GENIE_F32, 0, NULL));
    genie_tensor *ms[3];
    ms[0] = m, ms[1] = row, ms[2] = col;
    if (k != 8) genie_realize(c, 3, ms); /* inputs; case 8 computes its mask in the tape */
    *exact = 1, *nodes = 1;
    switch (k) {
    case 0: return genie_where(c, m, x, y);
    case 1: return genie_where(c, row, x, genie_t(c, half_data(c, dt, HALF_C, HALF_R, 38))); /* a transposed b */
    case 2: return genie_masked_fill(c, x, col, -INFINITY);
    case 3: return genie_masked_fill(c, genie_narrow(c, half_data(c, dt, HALF_R, HALF_C + 5, 39), 1, 2, HALF_C), m, 2.5);
    case 4: *nodes = 3; return genie_mul_scalar(c, genie_where(c, m, genie_add(c, x, y), y), 0.5); /* inside a chain */
    case 5: *nodes = 3; return genie_add(c, genie_masked_fill(c, genie_mul(c, x, y), row, 0.0), x);
    case 6: /* a softmax's prologue: one row group of three */
        *exact = 0, *nodes = 3;
        return genie_softmax(c, genie_masked_fill(c, genie_mul_scalar(c, genie_to_dtype(c, x, GENIE_F32), 0.125), col, -INFINITY), -1);
    case 7: return genie_where(c, m, genie_matmul(c, p, q), genie_to_dtype(c, y, GENIE_F32)); /* a product's value */
    default: *nodes = 2; return genie_where(c, genie_gt(c, x, y), genie_neg(c, x), y); /* the mask computed here */
    }
}
static void select_run(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_F16, GENIE_BF16};
    int k, i, d;
    for (d = 0; d < 3; d++)
        for (k = 0; k < NSEL; k++) {
            genie_ctx *cs[2];
            genie_tensor *res[2];
            int exact = 1, nodes = 0;
            genie_stats s0 = genie_get_stats(c), s1 = s0;
            char what[80];
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                genie_pool_push(cs[i]);
                res[i] = sel_build(cs[i], k, dts[d], &exact, &nodes);
                genie_retain(res[i]);
                genie_pool_pop(cs[i]);
                if (i == 0) s0 = genie_get_stats(c);
                genie_realize(cs[i], 1, &res[i]);
                if (i == 0) s1 = genie_get_stats(c);
            }
            snprintf(what, sizeof what, "where/masked_fill case %d, %s, %s (%d thread(s))", k, genie_dtype_name(dts[d]),
                     genie_cpu_name(genie_cpu_path(c)), th);
            compare(c, res[0], r, res[1], what, (uint64_t)k, exact ? 0.0 : 1.0 / 64);
            FCHECK(s1.fused_groups - s0.fused_groups >= 1 && s1.fused_nodes - s0.fused_nodes >= (uint64_t)nodes,
                   "%s: ran as %llu groups of %llu nodes, not one of %d", what, (unsigned long long)(s1.fused_groups - s0.fused_groups),
                   (unsigned long long)(s1.fused_nodes - s0.fused_nodes), nodes);
            genie_release(res[0]);
            genie_release(res[1]);
        }
}
/* on every path this CPU runs: each has its own select and mask-load kernels */
static void select_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_cpu paths[2] = {GENIE_CPU_GENERIC, GENIE_CPU_AVX2};
    int pi;
    select_run(c, r, th);
    for (pi = 0; pi < 2; pi++)
        if (genie_cpu_supported(paths[pi]) && paths[pi] != genie_cpu_path(c)) {
            genie_ctx_desc dc;
            genie_ctx *cp;
            memset(&dc, 0, sizeof dc);
            dc.n_threads = th;
            dc.cpu = paths[pi];
            cp = genie_ctx_create(&dc);
            select_run(cp, r, th);
            genie_ctx_destroy(cp);
        }
}

/* tril and triu against the reference: contiguous inputs take the row kernel (rows
   copied and zeroed), a transposed or column-sliced one the strided copy then the
   zeroing; diagonals below, on and above, past either edge; f32, f16, i64, bool, f64;
   batched; and over a dying input's buffer (taken in place). Bit for bit (NaN as NaN). */
static void tri_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[5] = {GENIE_F32, GENIE_F16, GENIE_I64, GENIE_BOOL, GENIE_F64};
    static const int64_t ks[6] = {-40, -3, 0, 2, 9, 40};
    int d, ki, form, i;
    for (d = 0; d < 5; d++)
        for (ki = 0; ki < 6; ki++)
            for (form = 0; form < 5; form++) {
                genie_ctx *cs[2];
                genie_tensor *res[2];
                cs[0] = c, cs[1] = r;
                for (i = 0; i < 2; i++) {
                    genie_tensor *x;
                    genie_pool_push(cs[i]);
                    x = genie_to_dtype(cs[i], half_data(cs[i], GENIE_F32, form == 1 ? HALF_C : HALF_R, form == 1 ? HALF_R : HALF_C, 41 + (uint64_t)ki), dts[d]);
                    if (form == 1) x = genie_t(cs[i], x);                                          /* transposed */
                    if (form == 2) x = genie_reshape(cs[i], x, 3, (int64_t[]){3, 11, HALF_C});     /* batched */
                    if (form == 3) x = genie_add(cs[i], x, x);                                     /* dies at tri */
                    if (form == 4) x = genie_narrow(cs[i], x, 1, 5, HALF_C - 11);                  /* rows apart */
                    res[i] = ki % 2 ? genie_triu(cs[i], x, ks[ki]) : genie_tril(cs[i], x, ks[ki]);
                    genie_retain(res[i]);
                    genie_pool_pop(cs[i]);
                }
                {
                    char what[96];
                    snprintf(what, sizeof what, "%s, diagonal %lld, %s, form %d (%d thread(s))", ki % 2 ? "triu" : "tril",
                             (long long)ks[ki], genie_dtype_name(dts[d]), form, th);
                    compare(c, res[0], r, res[1], what, (uint64_t)ki, 0.0);
                }
                genie_release(res[0]);
                genie_release(res[1]);
            }
}

/* cat and stack against the reference: inputs of the output's dtype copied as strided
   runs (contiguous, transposed, narrowed, broadcast, a zero-size slice, a legacy empty
   1-D input), another dtype converted; along the first, a middle and the last dim; f32
   (with NaN, inf, signed zeros), f16, i64, bool. Bit for bit (NaN as NaN). */
static genie_tensor *cat_data(genie_ctx *c, genie_dtype dt, int64_t a, int64_t b, int64_t cc, uint64_t seed) {
    int64_t s[3] = {a, b, cc};
    genie_tensor *t = dt == GENIE_F32 ? genie_reshape(c, half_data(c, GENIE_F32, a * b, cc, seed), 3, s)
                                      : genie_to_dtype(c, genie_reshape(c, genie_arange(c, GENIE_F32, (double)seed, (double)seed + (double)(a * b * cc), 1.0), 3, s), dt);
    genie_realize(c, 1, &t);
    return t;
}
static void cat_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[4] = {GENIE_F32, GENIE_F16, GENIE_I64, GENIE_BOOL};
    int d, dim, form, i;
    for (d = 0; d < 4; d++)
        for (dim = 0; dim < 3; dim++)
            for (form = 0; form < 7; form++) {
                genie_ctx *cs[2];
                genie_tensor *res[2];
                cs[0] = c, cs[1] = r;
                for (i = 0; i < 2; i++) {
                    genie_tensor *t[4];
                    int64_t sz[3] = {3, 5, 7}, e[3], zero = 0;
                    int n = 3, k;
                    genie_pool_push(cs[i]);
                    for (k = 0; k < 3; k++) e[k] = sz[k];
                    t[0] = cat_data(cs[i], dts[d], 3, 5, 7, 1);
                    e[dim] = 2;
                    t[1] = cat_data(cs[i], dts[d], e[0], e[1], e[2], 50);
                    e[dim] = 4;
                    switch (form) {
                    case 0: t[2] = cat_data(cs[i], dts[d], e[0], e[1], e[2], 90); break;                   /* contiguous */
                    case 1: { /* transposed: [e2, e1, e0] permuted back */
                        int64_t pr[3] = {2, 1, 0};
                        t[2] = genie_permute(cs[i], cat_data(cs[i], dts[d], e[2], e[1], e[0], 90), 3, pr);
                        break;
                    }
                    case 2: t[2] = genie_narrow(cs[i], cat_data(cs[i], dts[d], e[0] + 2 * (dim == 0), e[1] + 2 * (dim != 0), e[2], 90), dim == 0 ? 0 : 1, 1, dim == 0 ? e[0] : e[1]); break;
                    case 3: { /* broadcast: a size-1 dim expanded */
                        int64_t one[3] = {e[0], e[1], 1};
                        t[2] = genie_expand(cs[i], cat_data(cs[i], dts[d], one[0], one[1], one[2], 90), 3, e);
                        break;
                    }
                    case 4: /* a zero-size slice and a legacy empty 1-D input */
                        e[dim] = 0;
                        t[2] = cat_data(cs[i], dts[d], e[0], e[1], e[2], 90);
                        t[3] = genie_zeros(cs[i], dts[d], 1, &zero);
                        n = 4;
                        break;
                    case 5: t[2] = cat_data(cs[i], dts[(d + 1) % 4], e[0], e[1], e[2], 90); break;        /* another dtype */
                    default: break;
                    }
                    if (form == 6) { /* stack: one computed in the same tape */
                        t[1] = genie_add(cs[i], t[0], t[0]);
                        t[2] = t[0];
                        res[i] = genie_stack(cs[i], 3, t, dim);
                    } else {
                        res[i] = genie_cat(cs[i], n, t, dim);
                    }
                    genie_retain(res[i]);
                    genie_pool_pop(cs[i]);
                }
                {
                    char what[96];
                    snprintf(what, sizeof what, "%s form %d along dim %d, %s (%d thread(s))", form == 6 ? "stack" : "cat", form, dim,
                             genie_dtype_name(dts[d]), th);
                    FCHECK(res[0] && res[1], "%s: %s", what, genie_last_error(c));
                    if (res[0] && res[1]) compare(c, res[0], r, res[1], what, (uint64_t)form, 0.0);
                }
                genie_release(res[0]);
                genie_release(res[1]);
            }
}

/* index_select and embedding against the reference: whole rows copied from a
   contiguous source (along dims 0, 1 and 2; i64 and i32 indices, contiguous or strided,
   0-dim; a transposed source takes the reference's loop), f32 with NaN and inf, f16,
   i64, bool; an out-of-range index (negative, or the size) is the reference's error,
   message and all. */
/* Realize an index op's result, keeping the status and the message (the error cleared). */
static genie_result realize_msg(genie_ctx *x, genie_tensor **t, char *msg, size_t n) {
    genie_result st = genie_realize(x, 1, t);
    snprintf(msg, n, "%s", genie_last_error(x));
    genie_clear_error(x);
    return st;
}
/* The fast context's outcome against the reference's: the same GENIE_ERR_INDEX and
   message where an index is bad, else the same values bit for bit; both released. */
static void index_outcome(genie_ctx *c, genie_ctx *r, genie_tensor *const res[2], const genie_result st[2],
                          char msg[2][512], const char *what, int bad_index, uint64_t seed) {
    if (bad_index)
        FCHECK(st[0] == GENIE_ERR_INDEX && st[1] == GENIE_ERR_INDEX && strcmp(msg[0], msg[1]) == 0,
               "%s: error %d '%s', the reference's %d '%s'", what, (int)st[0], msg[0], (int)st[1], msg[1]);
    else
        compare(c, res[0], r, res[1], what, seed, 0.0);
    genie_release(res[0]);
    genie_release(res[1]);
}
static void index_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[4] = {GENIE_F32, GENIE_F16, GENIE_I64, GENIE_BOOL};
    int d, form, i;
    for (d = 0; d < 4; d++)
        for (form = 0; form < 9; form++) {
            genie_ctx *cs[2];
            genie_tensor *res[2];
            genie_result st[2];
            char msg[2][512];
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                int64_t ix[12] = {4, 0, 2, 2, 1, 4, 3, 0, 1, 1, 2, 3}, n12 = 12, s34[2] = {3, 4}, s2[2] = {6, 2};
                genie_tensor *src = cat_data(cs[i], dts[d], 5, 6, 7, 3), *x;
                genie_pool_push(cs[i]);
                if (form == 7) ix[5] = -1;
                if (form == 8) ix[9] = 5;
                x = genie_from_data(cs[i], GENIE_I64, 1, &n12, ix);
                switch (form) {
                case 0: res[i] = genie_index_select(cs[i], src, 0, x); break;
                case 1: res[i] = genie_index_select(cs[i], src, 1, genie_to_dtype(cs[i], x, GENIE_I32)); break;
                case 2: res[i] = genie_index_select(cs[i], src, 2, genie_slice(cs[i], x, 0, 1, 12, 2)); break; /* strided */
                case 3: res[i] = genie_index_select(cs[i], src, 1, genie_reshape(cs[i], genie_narrow(cs[i], x, 0, 2, 1), 0, NULL)); break;
                case 4: res[i] = genie_index_select(cs[i], genie_t(cs[i], genie_reshape(cs[i], src, 2, (int64_t[]){30, 7})), 0, x); break;
                case 5: res[i] = genie_embedding(cs[i], genie_reshape(cs[i], src, 2, (int64_t[]){5, 42}), genie_reshape(cs[i], x, 2, s34)); break;
                case 6: res[i] = genie_embedding(cs[i], genie_reshape(cs[i], src, 2, (int64_t[]){5, 42}), genie_t(cs[i], genie_reshape(cs[i], x, 2, s2))); break;
                case 7: res[i] = genie_index_select(cs[i], src, 0, x); break;           /* -1 */
                default: res[i] = genie_embedding(cs[i], genie_reshape(cs[i], src, 2, (int64_t[]){5, 42}), x); break; /* 5 */
                }
                genie_retain(res[i]);
                genie_pool_pop(cs[i]);
                st[i] = realize_msg(cs[i], &res[i], msg[i], sizeof msg[i]);
                genie_release(src);
            }
            {
                char what[96];
                snprintf(what, sizeof what, "index form %d, %s (%d thread(s))", form, genie_dtype_name(dts[d]), th);
                index_outcome(c, r, res, st, msg, what, form >= 7, (uint64_t)form);
            }
        }
}

/* gather over each dim of a [5, 6, 7] source of four dtypes (the fast path: contiguous
   source and index, the index's shape the source's but at dim), an index read through
   a transpose (the reference in both contexts), a negative and a too-large index (the
   same error and message), and a [300, 2000] x [300, 1500] gather over the threads. */
static void gather_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[4] = {GENIE_F32, GENIE_F16, GENIE_I64, GENIE_BOOL};
    int d, dim, form, i;
    for (d = 0; d < 4; d++)
        for (dim = 0; dim < 3; dim++)
            for (form = 0; form < 5; form++) {
                genie_ctx *cs[2];
                genie_tensor *res[2];
                genie_result st[2];
                char msg[2][512], what[96];
                if (form == 4 && (d || dim)) continue; /* the large case once */
                cs[0] = c, cs[1] = r;
                for (i = 0; i < 2; i++) {
                    int64_t ss[3] = {5, 6, 7}, xs[3] = {5, 6, 7}, e, ne, *ix;
                    genie_tensor *src, *x;
                    if (form == 4) ss[0] = xs[0] = 300, ss[1] = 2000, xs[1] = 1500;
                    else xs[dim] = 4;
                    src = form == 4 ? genie_randn(cs[i], GENIE_F32, 2, ss, 5) : cat_data(cs[i], dts[d], 5, 6, 7, 3);
                    ne = xs[0] * xs[1] * (form == 4 ? 1 : xs[2]);
                    ix = (int64_t *)malloc((size_t)ne * 8);
                    for (e = 0; e < ne; e++) ix[e] = (int64_t)(((uint64_t)e * 0x9e3779b97f4a7c15ull) >> 40) % ss[form == 4 ? 1 : dim];
                    if (form == 2) ix[ne / 3] = -1;
                    if (form == 3) ix[ne / 2] = ss[dim];
                    genie_pool_push(cs[i]);
                    x = genie_from_data(cs[i], GENIE_I64, form == 4 ? 2 : 3, xs, ix);
                    free(ix);
                    if (form == 1) x = genie_transpose(cs[i], genie_contiguous(cs[i], genie_transpose(cs[i], x, 1, 2)), 1, 2);
                    res[i] = genie_gather(cs[i], src, form == 4 ? 1 : dim, x);
                    genie_retain(res[i]);
                    genie_pool_pop(cs[i]);
                    st[i] = realize_msg(cs[i], &res[i], msg[i], sizeof msg[i]);
                    genie_release(src);
                }
                snprintf(what, sizeof what, "gather dim %d form %d, %s (%d thread(s))", dim, form, genie_dtype_name(dts[d]), th);
                index_outcome(c, r, res, st, msg, what, form == 2 || form == 3, (uint64_t)form);
            }
}

/* sum, mean, amax and amin of f32, f16 and bf16 over leading dims (a column sum's
   layout: a column group of one, or the column kernel where fewer than 16 columns are
   kept (forms 10, 11), in double in the reference's order) and over other layouts (the
   reference), with NaN, inf and signed zeros: bit for bit. */
static void cols_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_F16, GENIE_BF16};
    int op, form, i, d;
    for (d = 0; d < 3; d++)
    for (op = 0; op < 4; op++)
        for (form = 0; form < 12; form++) { /* forms 5-9, 11: finite values (NaN and inf would hide a sum's error) */
            genie_ctx *cs[2];
            genie_tensor *res[2];
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                int64_t d0 = 0, d01[2] = {0, 1}, d02[2] = {0, 2}, s3[3] = {11, 3, HALF_C}, s2[2] = {HALF_R, HALF_C}, *dims = &d0;
                int64_t s7[2] = {HALF_R * HALF_C / 7, 7};
                int nd = 1, keep = form % 5 == 1;
                genie_tensor *x0 = form < 5 || form == 10 ? half_data(cs[i], dts[d], HALF_R, HALF_C, 51 + (uint64_t)op)
                                            : genie_to_dtype(cs[i], genie_randn(cs[i], GENIE_F32, 2, s2, 51 + (uint64_t)op), dts[d]),
                             *x = x0;
                genie_realize(cs[i], 1, &x0);
                genie_pool_push(cs[i]);
                if (form >= 10) x = genie_reshape(cs[i], x, 2, s7); /* 7 columns kept */
                else if (form % 5 >= 2) x = genie_reshape(cs[i], x, 3, s3);
                if (form % 5 == 2) dims = d01, nd = 2;             /* [11, 3] reduced, the rows kept */
                if (form % 5 == 3) dims = d02, nd = 2;             /* not a leading run: the reference */
                if (form % 5 == 4) x = genie_t(cs[i], genie_reshape(cs[i], x, 2, s2)); /* transposed */
                res[i] = op == 0 ? genie_sum(cs[i], x, nd, dims, keep) : op == 1 ? genie_mean(cs[i], x, nd, dims, keep)
                       : op == 2 ? genie_amax(cs[i], x, nd, dims, keep) : genie_amin(cs[i], x, nd, dims, keep);
                genie_retain(res[i]);
                genie_pool_pop(cs[i]);
                genie_release(x0);
            }
            {
                char what[96];
                snprintf(what, sizeof what, "reduction %d of %s over leading dims, form %d (%d thread(s))", op,
                         genie_dtype_name(dts[d]), form, th);
                compare(c, res[0], r, res[1], what, (uint64_t)form, 0.0);
            }
            genie_release(res[0]);
            genie_release(res[1]);
        }
    for (op = 0; op < 2; op++) { /* ties of signed zeros: the first zero's bits, in every lane */
        static const float z[6] = {-1.0f, -0.0f, 0.0f, -0.0f, -2.0f, 0.0f};
        float v[6 * 20], got[2][20];
        int64_t s2[2] = {6, 20}, d0 = 0;
        genie_ctx *cs[2];
        int j, q;
        cs[0] = c, cs[1] = r;
        for (q = 0; q < 6; q++)
            for (j = 0; j < 20; j++) v[q * 20 + j] = op == 0 ? z[(q + j) % 6] : -z[(q + j) % 6];
        for (i = 0; i < 2; i++) {
            genie_tensor *x = genie_from_data(cs[i], GENIE_F32, 2, s2, v), *t;
            t = op == 0 ? genie_amax(cs[i], x, 1, &d0, 0) : genie_amin(cs[i], x, 1, &d0, 0);
            if (genie_read(cs[i], t, GENIE_F32, got[i], sizeof got[i]) != GENIE_OK) got[i][0] = NAN;
            genie_release(t);
            genie_release(x);
        }
        FCHECK(memcmp(got[0], got[1], sizeof got[0]) == 0, "%s over dim 0 with signed zeros (%d thread(s)): differs from the reference",
               op == 0 ? "amax" : "amin", th);
    }
}

/* x ** e with a scalar exponent: 2 and -1 run as square and reciprocal (the same values
   as the reference's libm pow), 0.5 as sqrt, 3, -2, 4, -0.5 and 1.5 in f64 (POWK), others
   through pow; lone (an array kernel in f32, a group in f16/bf16) and inside a chain, over
   inf, NaN, signed zeros, subnormals: bit for bit. */
static void pow_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_F16, GENIE_BF16};
    static const double es[9] = {2.0, -1.0, 3.0, 0.5, -2.0, 4.0, -0.5, 1.5, 2.5}; /* 2.5: pow itself */
    int d, k, chain, i;
    for (d = 0; d < 3; d++)
        for (k = 0; k < 9; k++)
            for (chain = 0; chain < 2; chain++) {
                genie_ctx *cs[2];
                genie_tensor *res[2];
                cs[0] = c, cs[1] = r;
                for (i = 0; i < 2; i++) {
                    genie_tensor *x = half_data(cs[i], dts[d], HALF_R, HALF_C, 61 + (uint64_t)k);
                    genie_pool_push(cs[i]);
                    res[i] = chain ? genie_add_scalar(cs[i], genie_pow_scalar(cs[i], genie_mul_scalar(cs[i], x, 0.75), es[k]), 1.0)
                                   : genie_pow_scalar(cs[i], x, es[k]);
                    genie_retain(res[i]);
                    genie_pool_pop(cs[i]);
                    genie_release(x);
                }
                {
                    char what[96];
                    snprintf(what, sizeof what, "pow(x, %g)%s, %s (%d thread(s))", es[k], chain ? " in a chain" : "", genie_dtype_name(dts[d]), th);
                    compare(c, res[0], r, res[1], what, (uint64_t)k, 0.0);
                }
                genie_release(res[0]);
                genie_release(res[1]);
            }
}

/* sort and topk of f32, f16 and bf16 rows (the radix sort) against the reference's
   qsort: ascending and descending, largest and smallest, along the last, a middle and
   the first dim (strided rows), over NaN, inf, signed zeros and many ties (f16/bf16
   values, and a row of one repeated value); values and indices bit for bit. */
static void sort_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_F16, GENIE_BF16};
    int d, form, i, out;
    for (d = 0; d < 3; d++)
        for (form = 0; form < 11; form++) { /* 9, 10: topk of 4 of the rows of 70 (few of many: a heap), ties in 10 */
            genie_ctx *cs[2];
            genie_tensor *res[2][2];
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                int64_t s3[3] = {3, 11, HALF_C}, dim = form % 3 == 0 || form >= 9 ? -1 : form % 3 == 1 ? 1 : 0;
                genie_tensor *x0 = half_data(cs[i], dts[d], HALF_R, HALF_C, 71 + (uint64_t)form), *x;
                genie_tuple *tp;
                genie_pool_push(cs[i]);
                x = genie_reshape(cs[i], x0, 3, s3);
                if (form == 7 || form == 10) x = genie_mul_scalar(cs[i], genie_abs(cs[i], genie_sign(cs[i], x)), 2.0); /* ties: 0 and 2, NaN */
                if (form == 8) x = genie_mul_scalar(cs[i], x, 0.0); /* -0 and +0 tie (and NaN) */
                tp = form < 4 || form == 8 ? genie_sort(cs[i], x, dim, form % 2)
                                           : genie_topk(cs[i], x, form == 6 ? 1 : form >= 9 ? 4 : 3, dim, form % 2, 1);
                for (out = 0; out < 2; out++) {
                    res[i][out] = genie_tuple_get(tp, out);
                    genie_retain(res[i][out]);
                }
                genie_pool_pop(cs[i]);
                genie_release(x0);
            }
            for (out = 0; out < 2; out++) {
                char what[96];
                snprintf(what, sizeof what, "%s form %d, %s, %s (%d thread(s))", form < 4 || form == 8 ? "sort" : "topk", form, genie_dtype_name(dts[d]),
                         out ? "indices" : "values", th);
                FCHECK(res[0][out] && res[1][out], "%s: %s", what, genie_last_error(c));
                if (res[0][out] && res[1][out]) compare(c, res[0][out], r, res[1][out], what, (uint64_t)form, 0.0);
                genie_release(res[0][out]);
                genie_release(res[1][out]);
            }
        }
}

/* softmax and log_softmax of f64 along the last dim (the typed row kernel: the
   reference's arithmetic with each exp once) over finite values and (form 4) NaN, inf and
   signed zeros, of a row slice with an offset, and of a transpose and along dim 0 (the
   reference): bit for bit. */
static void f64_softmax_cases(genie_ctx *c, genie_ctx *r, int th) {
    int op, form, i;
    for (op = 0; op < 2; op++)
        for (form = 0; form < 5; form++) {
            genie_ctx *cs[2];
            genie_tensor *res[2];
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                genie_tensor *x;
                int64_t dim = form == 3 ? 0 : -1;
                genie_pool_push(cs[i]);
                int64_t s2[2] = {HALF_R, HALF_C};
                x = form == 4 ? genie_to_dtype(cs[i], half_data(cs[i], GENIE_F32, HALF_R, HALF_C, 91), GENIE_F64)
                              : genie_mul_scalar(cs[i], genie_randn(cs[i], GENIE_F64, 2, s2, 91 + (uint64_t)form), 4.0);
                if (form == 1) x = genie_narrow(cs[i], x, 0, 3, HALF_R - 5); /* rows at an offset */
                if (form == 2) x = genie_t(cs[i], x);                       /* the reference */
                res[i] = op ? genie_log_softmax(cs[i], x, dim) : genie_softmax(cs[i], x, dim);
                genie_retain(res[i]);
                genie_pool_pop(cs[i]);
            }
            { /* read as f64: compare's f32 reads would hide a last-bit difference */
                static double got[2][HALF_R * HALF_C];
                const int64_t n = genie_numel(res[1]);
                int64_t k, bad = 0;
                int ok = n <= HALF_R * HALF_C && genie_read(c, res[0], GENIE_F64, got[0], (size_t)n * 8) == GENIE_OK &&
                         genie_read(r, res[1], GENIE_F64, got[1], (size_t)n * 8) == GENIE_OK;
                for (k = 0; ok && k < n; k++)
                    bad += memcmp(&got[0][k], &got[1][k], 8) != 0 && !(got[0][k] != got[0][k] && got[1][k] != got[1][k]);
                FCHECK(ok && bad == 0, "%s of f64, form %d (%d thread(s)): %lld of %lld elements differ from the reference",
                       op ? "log_softmax" : "softmax", form, th, (long long)bad, (long long)n);
            }
            genie_release(res[0]);
            genie_release(res[1]);
        }
}

/* The kernels of int_sort_cases, f64_softmax_cases, tri_cases (strided inputs), cols_cases
   (f16) and sort_cases (f32 rows longer than 256: keys built in chunks) on [301, 299], over
   the threads' threshold (the small cases run on one thread whatever the context has): each
   result read as f64 or i64 and compared exactly. */
static void big_cases(genie_ctx *c, genie_ctx *r, int th) {
    int form, i;
    for (form = 0; form < 9; form++) {
        static int64_t got[2][301 * 299];
        genie_ctx *cs[2];
        int64_t n = 0, k, bad = 0;
        int ok = 1;
        cs[0] = c, cs[1] = r;
        for (i = 0; i < 2; i++) {
            int64_t s2[2] = {301, 299}, d0 = 0;
            genie_tensor *x, *y;
            genie_pool_push(cs[i]);
            x = genie_mul_scalar(cs[i], genie_randn(cs[i], GENIE_F64, 2, s2, 97 + (uint64_t)form), 50.0);
            switch (form) {
            case 0: y = genie_tril(cs[i], genie_to_dtype(cs[i], genie_t(cs[i], x), GENIE_F32), 3); break; /* t() of the f32 copy */
            case 1: y = genie_triu(cs[i], genie_narrow(cs[i], genie_to_dtype(cs[i], x, GENIE_F32), 1, 7, 250), -2); break;
            case 2: y = genie_tuple_get(genie_sort(cs[i], genie_to_dtype(cs[i], x, GENIE_I64), -1, 1), 1); break;
            case 3: y = genie_tuple_get(genie_sort(cs[i], genie_to_dtype(cs[i], x, GENIE_I32), 0, 0), 0); break;
            case 4: y = genie_softmax(cs[i], genie_mul_scalar(cs[i], x, 0.1), -1); break;
            case 5: y = genie_log_softmax(cs[i], genie_mul_scalar(cs[i], x, 0.1), -1); break;
            case 6: y = genie_sum(cs[i], genie_to_dtype(cs[i], x, GENIE_F16), 1, &d0, 0); break;
            default: { /* f32 rows of 299 (a chunk of 256 keys and a tail): ties, -0, +0 and NaN (sqrt of negatives) */
                genie_tensor *h = genie_to_dtype(cs[i], genie_sqrt(cs[i], genie_round(cs[i], genie_mul_scalar(cs[i], x, 0.05))), GENIE_F32);
                y = form == 7 ? genie_tuple_get(genie_topk(cs[i], h, 5, -1, 1, 1), 1) : genie_tuple_get(genie_sort(cs[i], h, -1, 1), 1);
                break;
            }
            }
            n = y ? genie_numel(y) : 0;
            if (!y || n > 301 * 299 ||
                genie_read(cs[i], y, form == 2 || form == 3 || form >= 7 ? GENIE_I64 : GENIE_F64, got[i], (size_t)n * 8) != GENIE_OK)
                ok = 0;
            genie_pool_pop(cs[i]);
        }
        for (k = 0; ok && k < n; k++) bad += got[0][k] != got[1][k];
        FCHECK(ok && bad == 0, "big case %d (%d thread(s)): %lld of %lld elements differ from the reference (%s)", form, th,
               (long long)bad, (long long)n, ok ? "read" : genie_last_error(c));
    }
}

/* sort and topk of integer and bool rows (the radix sort over 64-bit keys) against the
   reference's qsort: ascending and descending, along the last, a middle and the first dim,
   over i64 values of the whole range and small ones with many ties (converted, wrapping, to
   the narrower dtypes); values and indices exactly. */
static void int_sort_cases(genie_ctx *c, genie_ctx *r, int th) {
    static const genie_dtype dts[6] = {GENIE_I64, GENIE_I32, GENIE_I16, GENIE_I8, GENIE_U8, GENIE_BOOL};
    const int64_t n = 3 * 11 * 70;
    int64_t *v = (int64_t *)malloc((size_t)n * sizeof(int64_t)), k, s3[3] = {3, 11, 70};
    int d, form, i, out, bad = 0, ran = 0;
    uint64_t z = 0x2545F4914F6CDD1Dull;
    for (k = 0; k < n; k++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        v[k] = k % 3 == 0 ? (int64_t)z : k % 3 == 1 ? (int64_t)(z % 9) - 4 : (int64_t)(z % 70000); /* big, tied, two bytes */
    }
    for (d = 0; d < 6; d++)
        for (form = 0; form < 8; form++) { /* 0-3 sort, 4-7 topk; odd: descending; dims -1, 1, 0 in turn */
            static int64_t got[2][2][3 * 11 * 70];
            const int64_t dim = form % 3 == 0 ? -1 : form % 3 == 1 ? 1 : 0;
            genie_ctx *cs[2];
            cs[0] = c, cs[1] = r;
            memset(got, 0, sizeof got);
            for (i = 0; i < 2; i++) {
                genie_tensor *x;
                genie_tuple *tp;
                genie_pool_push(cs[i]);
                x = genie_reshape(cs[i], genie_to_dtype(cs[i], genie_from_data(cs[i], GENIE_I64, 1, &n, v), dts[d]), 3, s3);
                tp = form < 4 ? genie_sort(cs[i], x, dim, form % 2) : genie_topk(cs[i], x, 3, dim, form % 2, 1);
                for (out = 0; out < 2; out++) {
                    genie_tensor *t = tp ? genie_tuple_get(tp, out) : NULL;
                    if (!t || genie_read(cs[i], t, GENIE_I64, got[i][out], (size_t)genie_numel(t) * sizeof(int64_t)) != GENIE_OK)
                        got[i][out][0] ^= 1 + i;
                }
                genie_pool_pop(cs[i]);
            }
            ran++;
            if (memcmp(got[0], got[1], sizeof got[0]) != 0) {
                printf("  %s form %d of %s (%d threads): differs from the reference\n", form < 4 ? "sort" : "topk", form,
                       genie_dtype_name(dts[d]), th);
                bad++;
            }
        }
    FCHECK(bad == 0 && ran == 48, "integer sort and topk: %d of %d cases differ from the reference", bad, ran);
    free(v);
}

/* cumsum of f32, f16 and bf16 along each dim of [3, 11, 70] (the column-block kernel, in
   double in the reference's order, f16/bf16 rounded through f32 as it stores), finite and
   special values, and of a transposed view (the reference): bit for bit. Then f16 and bf16
   rows of 1100 (the half rows' kernel: chunks of 512 and a tail; 7 rows, four at once and
   three alone), finite values and all of them. */
static void cumsum_cases(genie_ctx *c, genie_ctx *r, int th) {
    int dim, form, i;
    for (form = 0; form < 4; form++) {
        genie_ctx *cs[2];
        genie_tensor *res[2];
        const genie_dtype dt = form % 2 ? GENIE_BF16 : GENIE_F16;
        char what[96];
        cs[0] = c, cs[1] = r;
        for (i = 0; i < 2; i++) {
            genie_tensor *x0 = half_data(cs[i], dt, 7, 1100, 83 + (uint64_t)form), *x;
            genie_realize(cs[i], 1, &x0);
            genie_pool_push(cs[i]);
            /* form 0, 1: NaN, infinities and the largest values replaced by 0.25 (long finite sums) */
            x = form < 2 ? genie_where(cs[i], genie_lt(cs[i], genie_abs(cs[i], x0), genie_full(cs[i], dt, 0, NULL, 1e4)), x0,
                                       genie_full(cs[i], dt, 0, NULL, 0.25))
                         : x0;
            res[i] = genie_cumsum(cs[i], x, 1);
            genie_retain(res[i]);
            genie_pool_pop(cs[i]);
            genie_release(x0);
        }
        snprintf(what, sizeof what, "cumsum of %s rows of 1100, form %d (%d thread(s))", dt == GENIE_F16 ? "f16" : "bf16", form, th);
        compare(c, res[0], r, res[1], what, (uint64_t)form, 0.0);
        genie_release(res[0]);
        genie_release(res[1]);
    }
    for (dim = 0; dim < 3; dim++)
        for (form = 0; form < 5; form++) {
            genie_ctx *cs[2];
            genie_tensor *res[2];
            cs[0] = c, cs[1] = r;
            for (i = 0; i < 2; i++) {
                int64_t s3[3] = {3, 11, HALF_C}, s2[2] = {HALF_R, HALF_C};
                genie_tensor *x0 = form == 1 ? genie_randn(cs[i], GENIE_F32, 2, s2, 81)
                                             : half_data(cs[i], form == 3 ? GENIE_F16 : form == 4 ? GENIE_BF16 : GENIE_F32, HALF_R, HALF_C, 81);
                genie_tensor *x;
                genie_realize(cs[i], 1, &x0);
                genie_pool_push(cs[i]);
                x = form == 2 ? genie_permute(cs[i], genie_reshape(cs[i], x0, 3, (int64_t[]){HALF_C, 11, 3}), 3, (int64_t[]){2, 1, 0})
                              : genie_reshape(cs[i], x0, 3, s3);
                res[i] = genie_cumsum(cs[i], x, dim);
                genie_retain(res[i]);
                genie_pool_pop(cs[i]);
                genie_release(x0);
            }
            {
                char what[96];
                snprintf(what, sizeof what, "cumsum along dim %d, form %d (%d thread(s))", dim, form, th);
                compare(c, res[0], r, res[1], what, (uint64_t)form, 0.0);
            }
            genie_release(res[0]);
            genie_release(res[1]);
        }
}

void fuse_tests(int *passed, int *failed) {
    int th, i, p0 = *passed, f0 = *failed;
    const int nprog = getenv("GENIE_GEMM_QUICK") ? 60 : 62; /* quick (valgrind): not the two large ones */
    uint64_t groups = 0;
    P = passed;
    F = failed;
    for (th = 1; th <= 2; th++) {
        genie_ctx *c, *r;
        ctx_pair(th, &c, &r);
        for (i = 0; i < nprog; i++) { /* the last two: 8 MiB and more (2.1M elements, split over the threads) */
            uint64_t seed = 1000u * (uint64_t)th + (uint64_t)i;
            int64_t R = i >= 60 ? 3001 : i % 3 == 0 ? 1 + (int64_t)(seed % 7) : i % 3 == 1 ? 33 : 300;
            int64_t C = i >= 60 ? 701 : i % 2 ? 17 : 700;
            genie_dtype dt = i >= 60 ? GENIE_F32 : i % 5 == 3 ? GENIE_F16 : i % 5 == 4 ? GENIE_BF16 : GENIE_F32; /* f16/bf16 rounded after every op */
            genie_tensor *a[NKEEP], *b[NKEEP];
            int na = build(c, seed, dt, R, C, a), nb = build(r, seed, dt, R, C, b), k;
            FCHECK(na == nb, "seed %llu: programs differ", (unsigned long long)seed);
            for (k = 0; k < na && k < nb; k++) {
                /* f16/bf16: the SIMD paths' transcendental kernels are a few f32 ulp from the
                   reference, which flips the rounding to f16/bf16 after an op now and then (one
                   ulp of the dtype, carried by the later ops) */
                compare(c, a[k], r, b[k], "random elementwise tree", seed,
                        dt == GENIE_F32 ? 1.0 / 16384 : dt == GENIE_F16 ? 1.0 / 256 : 1.0 / 32);
                genie_release(a[k]);
                genie_release(b[k]);
            }
        }
        inplace_case(c, r, th);
        blocked_cases(c, r, th);
        typed_cases(c, r, th);
        if (th == 2 || !getenv("GENIE_GEMM_QUICK")) half_cases(c, r, th); /* quick (valgrind): 2 threads only */
        half_held_operands(c, r);
        convert_cases(c, r, th);
        dtype_cases(c, r, th);
        int_reduce_cases(c, r, th);
        int_sort_cases(c, r, th);
        f64_softmax_cases(c, r, th);
        big_cases(c, r, th);
        select_cases(c, r, th);
        tri_cases(c, r, th);
        cat_cases(c, r, th);
        index_cases(c, r, th);
        gather_cases(c, r, th);
        cols_cases(c, r, th);
        pow_cases(c, r, th);
        sort_cases(c, r, th);
        cumsum_cases(c, r, th);
        if (th == 2 || !getenv("GENIE_GEMM_QUICK")) copy_cases(c, r, th); /* quick (valgrind): 2 threads only */
        epilogue_cases(th);
        conv_epilogue_cases(th);
        groups += genie_get_stats(c).fused_groups;
        FCHECK(genie_get_stats(r).fused_groups == 0, "the reference path fused");
        genie_ctx_destroy(c);
        genie_ctx_destroy(r);
    }
    FCHECK(groups > 60, "fusion ran on too few programs (%llu groups)", (unsigned long long)groups);
    printf("  fused tape vs reference kernels: %d passed, %d failed (%llu fused groups)\n", *passed - p0, *failed - f0,
           (unsigned long long)groups);
}
