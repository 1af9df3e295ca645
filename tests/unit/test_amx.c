/* test_amx.c - bf16 x bf16 products on Intel AMX tiles (genie__uk_amx, GENIE_CPU_AMX) and the
   paths that must stay as they were: every product is held to an f64 reference over the same
   bf16 inputs (exact in f64), on odd shapes (M, N, K not multiples of 16 or 32, K tails below one
   tile step), transposed, strided and batched operands, with a bias. On a CPU or kernel without
   AMX the tile part prints one skip line and the other paths still run. Run with
   GENIE_NO_AMX_PERM=1 it checks the refusal: the AMX request falls back to AVX512 (or below).

   Bound, per element of C (bf16 result): |got - ref| <= 2^-8 |ref| + (K + 8) 2^-24 S, with
   S = sum_k |A[i, k] B[k, j]|: the products of bf16 pairs are exact in f32, their f32 sums
   err by at most K 2^-24 S (any order), and the result's rounding to bf16 by half an ulp of
   it (2^-9 |ref| plus that sum's share; doubled for the f32 value on the other side of a
   rounding boundary). The f32 x bf16 products (t_mixed) state their own bound below. */
#define _POSIX_C_SOURCE 200112L
#define GENIE_TEST_HOOKS /* GENIE_NO_AMX_PERM */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include "testctx.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails, checks;
#define CHECK(c) do { checks++; if (!(c)) { fails++; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)

static uint32_t rng = 12345u;
static double urand(void) { /* [-1, 1) */
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / (double)(1u << 23) - 1.0;
}
static uint16_t f2bf(double x) { /* bf16 of x, truncated (the values only need to be bf16) */
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static double bf2d(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* n bf16 values: normal numbers of either sign over [2^-4, 1), with some exact zeros */
static uint16_t *bf_rand(int64_t n) {
    uint16_t *v = (uint16_t *)malloc((size_t)(n ? n : 1) * 2);
    int64_t i;
    for (i = 0; i < n; i++) {
        double x = urand();
        v[i] = i % 13 == 5 ? 0 : f2bf(x < 0 ? x - 0.0625 : x + 0.0625);
    }
    return v;
}
static genie_tensor *bf_tensor(genie_ctx *ctx, int nd, const int64_t *shape, const uint16_t *v) {
    return genie_from_data(ctx, GENIE_BF16, nd, shape, v);
}

/* C[b, i, j] = sum_k A[b, i, k] B[b, k, j] (+ bias[j]) within the bound; element (i, k) of A at
   a[b as + i ra + k ca], of B at bm[b bs + k rb + j cb]. */
static int check_c(const char *what, int64_t nb, int64_t M, int64_t N, int64_t K, const uint16_t *a, int64_t as, int64_t ra,
                   int64_t ca, const uint16_t *bm, int64_t bs, int64_t rb, int64_t cb, const uint16_t *bias, const float *got) {
    int64_t b, i, j, k, bad = 0;
    double worst = 0;
    for (b = 0; b < nb; b++)
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                double s = bias ? bf2d(bias[j]) : 0, sa = bias ? fabs(bf2d(bias[j])) : 0, err, tol;
                for (k = 0; k < K; k++) {
                    const double p = bf2d(a[b * as + i * ra + k * ca]) * bf2d(bm[b * bs + k * rb + j * cb]);
                    s += p;
                    sa += fabs(p);
                }
                err = fabs((double)got[(b * M + i) * N + j] - s);
                tol = ldexp(fabs(s), -8) + (double)(K + 8) * ldexp(sa, -24);
                if (err > tol) {
                    if (bad++ < 3)
                        printf("  %s [%lld, %lld, %lld] batch %lld (%lld, %lld): got %.9g, ref %.9g, bound %.3g\n", what, (long long)M,
                               (long long)N, (long long)K, (long long)b, (long long)i, (long long)j, got[(b * M + i) * N + j], s, tol);
                }
                if (tol > 0 && err / tol > worst) worst = err / tol;
            }
    (void)worst;
    return bad == 0;
}
static float *read_all(genie_ctx *ctx, genie_tensor *t, int64_t n) {
    float *v = (float *)calloc((size_t)(n ? n : 1), 4);
    if (!t || genie_read(ctx, t, GENIE_F32, v, (size_t)n * 4) != GENIE_OK) {
        printf("  read failed: %s\n", genie_last_error(ctx));
        v[0] = NAN;
    }
    return v;
}

/* One shape on ctx: the layouts of A and B that reach the packed product. */
static void t_shape(genie_ctx *ctx, const char *path, int64_t M, int64_t N, int64_t K) {
    char what[96];
    int64_t sa[2] = {M, K}, sat[2] = {K, M}, sb[2] = {K, N}, sbt[2] = {N, K}, sa2[2] = {M, 2 * K}, sbias[1] = {N};
    int64_t s3a[3] = {3, M, K};
    uint16_t *a = bf_rand(M * K), *at = bf_rand(K * M), *b = bf_rand(K * N), *bt = bf_rand(N * K), *a2 = bf_rand(M * 2 * K);
    uint16_t *bias = bf_rand(N), *a3 = bf_rand(3 * M * K);
    genie_tensor *A = bf_tensor(ctx, 2, sa, a), *At = bf_tensor(ctx, 2, sat, at), *B = bf_tensor(ctx, 2, sb, b);
    genie_tensor *Bt = bf_tensor(ctx, 2, sbt, bt), *A2 = bf_tensor(ctx, 2, sa2, a2), *Bias = bf_tensor(ctx, 1, sbias, bias);
    genie_tensor *A3 = bf_tensor(ctx, 3, s3a, a3);
    float *c;
    /* rows of B along j (csb 1) */
    c = read_all(ctx, genie_matmul(ctx, A, B), M * N);
    snprintf(what, sizeof what, "%s A B", path);
    CHECK(check_c(what, 1, M, N, K, a, 0, K, 1, b, 0, N, 1, NULL, c));
    free(c);
    /* linear: B = W^T, columns of B contiguous in k (rsb 1), with a bias */
    c = read_all(ctx, genie_linear(ctx, A, Bt, Bias), M * N);
    snprintf(what, sizeof what, "%s linear", path);
    CHECK(check_c(what, 1, M, N, K, a, 0, K, 1, bt, 0, 1, K, bias, c));
    free(c);
    /* A transposed (k runs down A's storage columns: csa = M) times W^T */
    c = read_all(ctx, genie_matmul(ctx, genie_t(ctx, At), genie_t(ctx, Bt)), M * N);
    snprintf(what, sizeof what, "%s A^T W^T", path);
    CHECK(check_c(what, 1, M, N, K, at, 0, 1, M, bt, 0, 1, K, NULL, c));
    free(c);
    /* A strided along k: every second column of [M, 2K] (csa 2) */
    c = read_all(ctx, genie_matmul(ctx, genie_slice(ctx, A2, 1, 0, 2 * K, 2), B), M * N);
    snprintf(what, sizeof what, "%s A[:, ::2] B", path);
    CHECK(check_c(what, 1, M, N, K, a2, 0, 2 * K, 2, b, 0, N, 1, NULL, c));
    free(c);
    /* batched A, B broadcast: the batches fold into M */
    c = read_all(ctx, genie_matmul(ctx, A3, B), 3 * M * N);
    snprintf(what, sizeof what, "%s A[3] B", path);
    CHECK(check_c(what, 3, M, N, K, a3, M * K, K, 1, b, 0, N, 1, NULL, c));
    free(c);
    free(a), free(at), free(b), free(bt), free(a2), free(bias), free(a3);
}
static const int64_t shapes[][3] = {
    {17, 1, 1}, {17, 33, 31}, {32, 32, 32}, {33, 17, 2}, {40, 48, 33}, {64, 31, 64}, {95, 70, 97}, {100, 129, 15},
    {18, 64, 513}, {257, 40, 77}, {130, 300, 1030}, {61, 33, 600},
    /* more rows than a block of A (B packed whole, C kept per block over all of K): a short
       last panel of rows, a K tail, three k-blocks */
    {545, 47, 290}, {600, 100, 520},
};
static void t_path(genie_cpu cpu, int threads, const char *name) {
    genie_ctx *ctx = test_ctx(cpu, threads);
    size_t s;
    char path[64];
    if (!ctx) { fails++; puts("FAIL context"); return; }
    snprintf(path, sizeof path, "%s %dT", name, threads);
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) t_shape(ctx, path, shapes[s][0], shapes[s][1], shapes[s][2]);
    CHECK(genie_status(ctx) == GENIE_OK);
    genie_ctx_destroy(ctx);
}

/* A B whose tile panels pass GENIE__AMX_L_MAX_B (32 MiB): the kernel that packs B a block at a
   time (K over several k-blocks of 1024, N not a multiple of 32), at 1 and 2 threads */
static void t_big_b(void) {
    const int64_t M = 20, N = 4111, K = 4100, sa[2] = {M, K}, sb[2] = {K, N};
    uint16_t *a = bf_rand(M * K), *b = bf_rand(K * N);
    int t;
    for (t = 1; t <= 2; t++) {
        genie_ctx *ctx = test_ctx(GENIE_CPU_AMX, t);
        float *c;
        CHECK(ctx != NULL);
        if (!ctx) continue;
        c = read_all(ctx, genie_matmul(ctx, bf_tensor(ctx, 2, sa, a), bf_tensor(ctx, 2, sb, b)), M * N);
        CHECK(check_c(t == 1 ? "amx 1T A B (B past 32 MiB of panels)" : "amx 2T A B (B past 32 MiB of panels)", 1, M, N, K, a,
                      0, K, 1, b, 0, N, 1, NULL, c));
        free(c);
        genie_ctx_destroy(ctx);
    }
    free(a), free(b);
}
/* ---- f32 activations with bf16 weights (either order): a result of f32 ----
   The SIMD paths, and the AMX path on products of at most 16 rows of the f32 operand
   (decode), convert the half operand to f32 while packing, so each product is as exact as
   f32 FMA makes it. Bound, per element of C (f32 result): |got - ref| <= (K + 4) 2^-24 S, with
   S = sum_k |A[i, k] B[k, j]| (+ |bias[j]|): f32 sums in any order, the products rounded to
   f32 or not, the result rounded once. ref sums in f64 over the same inputs.
   The AMX path on more rows (prefill) rounds the f32 operand to bf16 (to nearest even) while
   packing: each product then errs by at most 2^-8 of its size, so |got - ref| <= 2^-8 S +
   (K + 4) 2^-24 (1 + 2^-8) S; and against an f64 reference over the rounded activations
   (rref, S' its sum of sizes) the f32 bound holds, which checks that the rounding is RNE. */
static float *f32_rand(int64_t n) {
    float *v = (float *)malloc((size_t)(n ? n : 1) * 4);
    int64_t i;
    for (i = 0; i < n; i++) v[i] = (float)(urand() * 3.0);
    return v;
}
static double rne_bf(float f) { /* f rounded to bf16, to nearest even (finite f) */
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}
/* C[i, j] = sum_k a(i, k) w(k, j) (+ bias[j]) for f32 a[i ra + k ca], bf16 w[k rw + j cw];
   rounded: the AMX prefill bound (a rounded to bf16), else the f32 one. */
static int check_mixed(const char *what, int64_t M, int64_t N, int64_t K, const float *a, int64_t ra, int64_t ca, const uint16_t *w,
                       int64_t rw, int64_t cw, const float *bias, const float *got, int rounded) {
    int64_t i, j, k, bad = 0;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            double s = bias ? bias[j] : 0, sa = bias ? fabs(bias[j]) : 0, err, tol, rs = s, rsa = sa;
            for (k = 0; k < K; k++) {
                const double p = (double)a[i * ra + k * ca] * bf2d(w[k * rw + j * cw]);
                const double rp = rne_bf(a[i * ra + k * ca]) * bf2d(w[k * rw + j * cw]);
                s += p, sa += fabs(p);
                rs += rp, rsa += fabs(rp);
            }
            err = fabs((double)got[i * N + j] - s);
            tol = rounded ? ldexp(sa, -8) + (double)(K + 4) * ldexp(sa, -24) * (1 + ldexp(1, -8)) : (double)(K + 4) * ldexp(sa, -24);
            if (rounded && !(fabs((double)got[i * N + j] - rs) <= (double)(K + 4) * ldexp(rsa, -24))) err = INFINITY;
            if (!(err <= tol) && bad++ < 3)
                printf("  %s [%lld, %lld, %lld] (%lld, %lld): got %.9g, ref %.9g, rounded ref %.9g, bound %.3g\n", what, (long long)M,
                       (long long)N, (long long)K, (long long)i, (long long)j, got[i * N + j], s, rs, tol);
        }
    return bad == 0;
}
/* rounded: the path rounds the f32 operand of these products to bf16 (AMX, M > 16) */
static void t_mixed_shape(genie_ctx *ctx, const char *path, int64_t M, int64_t N, int64_t K, int rounded) {
    char what[96];
    int64_t sa[2] = {M, K}, sb[2] = {K, N}, sw[2] = {N, K}, sbias[1] = {N}, sa2[2] = {M, 2 * K}, i;
    float *a = f32_rand(M * K), *a2 = f32_rand(M * 2 * K), *bias = f32_rand(N), *c;
    uint16_t *b = bf_rand(K * N), *w = bf_rand(N * K), *biasb = bf_rand(N);
    float *biasbf = (float *)malloc((size_t)N * 4);
    genie_tensor *A, *A2, *B, *W, *Bias, *BiasB, *T;
    for (i = 0; i < N; i++) biasbf[i] = (float)bf2d(biasb[i]);
    A = genie_from_data(ctx, GENIE_F32, 2, sa, a);
    A2 = genie_from_data(ctx, GENIE_F32, 2, sa2, a2);
    B = bf_tensor(ctx, 2, sb, b);
    W = bf_tensor(ctx, 2, sw, w);
    Bias = genie_from_data(ctx, GENIE_F32, 1, sbias, bias);
    BiasB = bf_tensor(ctx, 1, sbias, biasb);
    /* f32 @ bf16, rows of B along j */
    T = genie_matmul(ctx, A, B);
    CHECK(T && genie_dtype_of(T) == GENIE_F32);
    c = read_all(ctx, T, M * N);
    snprintf(what, sizeof what, "%s f32 @ bf16", path);
    CHECK(check_mixed(what, M, N, K, a, K, 1, b, N, 1, NULL, c, rounded));
    free(c);
    /* linear(f32, bf16 W, f32 bias): B = W^T */
    c = read_all(ctx, genie_linear(ctx, A, W, Bias), M * N);
    snprintf(what, sizeof what, "%s linear f32 x bf16 + f32", path);
    CHECK(check_mixed(what, M, N, K, a, K, 1, w, 1, K, bias, c, rounded));
    free(c);
    /* linear with the bias in the weight's dtype */
    c = read_all(ctx, genie_linear(ctx, A, W, BiasB), M * N);
    snprintf(what, sizeof what, "%s linear f32 x bf16 + bf16", path);
    CHECK(check_mixed(what, M, N, K, a, K, 1, w, 1, K, biasbf, c, rounded));
    free(c);
    /* linear of a strided x: every second column of [M, 2K] (csa 2) */
    c = read_all(ctx, genie_linear(ctx, genie_slice(ctx, A2, 1, 0, 2 * K, 2), W, Bias), M * N);
    snprintf(what, sizeof what, "%s linear f32[:, ::2] x bf16 + f32", path);
    CHECK(check_mixed(what, M, N, K, a2, 2 * K, 2, w, 1, K, bias, c, rounded));
    free(c);
    /* bf16 @ f32: W [N, K] as the left operand, A^T [K, M] as the right: C^T */
    T = genie_matmul(ctx, W, genie_t(ctx, A));
    CHECK(T && genie_dtype_of(T) == GENIE_F32);
    {
        float *ct = read_all(ctx, T, N * M), *cc = (float *)malloc((size_t)(M * N + 1) * 4);
        int64_t j;
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) cc[i * N + j] = ct[j * M + i];
        snprintf(what, sizeof what, "%s bf16 @ f32", path);
        CHECK(check_mixed(what, M, N, K, a, K, 1, w, 1, K, NULL, cc, rounded));
        free(ct), free(cc);
    }
    free(a), free(a2), free(bias), free(b), free(w), free(biasb), free(biasbf);
}
static void t_mixed(genie_cpu cpu, int threads, const char *name) {
    static const int64_t ms[] = {1, 7, 16, 17, 37}, ns[] = {19, 64};
    /* several blocks of rows, a K tail, two blocks of K, N past one panel of 32 */
    static const int64_t big[][3] = {{130, 70, 97}, {40, 33, 1030}, {95, 129, 15}, {531, 45, 300}};
    static const int64_t dec[][3] = {{1, 129, 1030}, {4, 67, 31}, {5, 33, 17}, {13, 131, 2049}, {3, 5, 1}, {12, 300, 47}};
    genie_ctx *ctx;
    char path[64];
    size_t i, j;
    if (!genie_cpu_supported(cpu)) {
        printf("skip: f32 x bf16 products on %s (this CPU or kernel cannot run the path)\n", name);
        return;
    }
    ctx = test_ctx(cpu, threads);
    if (!ctx) { fails++; puts("FAIL context"); return; }
    CHECK(genie_cpu_path(ctx) == cpu);
    snprintf(path, sizeof path, "%s %dT", name, threads);
    for (i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (j = 0; j < 2; j++) t_mixed_shape(ctx, path, ms[i], ns[j], 33, cpu == GENIE_CPU_AMX && ms[i] > 16);
    for (i = 0; i < sizeof big / sizeof big[0]; i++) t_mixed_shape(ctx, path, big[i][0], big[i][1], big[i][2], cpu == GENIE_CPU_AMX);
    /* decode (M <= 16: the weight streamed by the f32 dot, exact on every path): groups of four rows
       and leftover rows, N past one strip of columns and not a multiple of 4 or 16, K tails */
    for (i = 0; i < sizeof dec / sizeof dec[0]; i++) t_mixed_shape(ctx, path, dec[i][0], dec[i][1], dec[i][2], 0);
    CHECK(genie_status(ctx) == GENIE_OK);
    genie_ctx_destroy(ctx);
}
/* 2 threads give the 1-thread result bit for bit on the tiles: the threads take panels as they
   come free (one block of A, B and C) or in static shares, and each rounds the f32 blocks it
   computed into the bf16 result; bf16 x bf16 (bf16 result) and f32 x bf16 (f32 result), as
   matmul and linear, on one block and on two k-blocks, two blocks of A, and a batch. Two
   shapes are one block whose panels the worker does claim (M <= MC, one k-block, N of
   many panels and a part), then more rows than MC (the threads split the rows, B packed
   whole, three k-blocks), and 9 blocks of 256 rows (claimed as threads come free: the second
   thread takes 0-9 of them); there linear adds a bias and a GELU (the epilogue, once per
   element), three times over, as which thread takes a panel varies from run to run. */
static void t_threads_same(void) {
    static const int64_t shapes[][3] = {{17, 33, 33}, {512, 512, 512}, {40, 300, 1030}, {600, 70, 64}, {100, 2100, 40},
                                        {500, 2040, 1000}, {300, 1999, 999}, {700, 300, 530}, {2100, 40, 70}};
    genie_ctx *c[2];
    size_t si;
    int xdt, lin, i;
    c[0] = test_ctx(GENIE_CPU_AMX, 1), c[1] = test_ctx(GENIE_CPU_AMX, 2);
    CHECK(c[0] && c[1]);
    for (si = 0; c[0] && c[1] && si < sizeof shapes / sizeof shapes[0]; si++)
        for (xdt = 0; xdt < 2; xdt++)
            for (lin = 0; lin < 2; lin++) {
                const int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
                const int64_t xs[3] = {2, M, K}, ws[2] = {lin ? N : K, lin ? K : N};
                float *xv = f32_rand(2 * M * K), *y[2];
                uint16_t *wv = bf_rand(N * K);
                const int claims = si >= 5, reps = claims ? 3 : 1;
                float *bv = f32_rand(N);
                int r;
                for (r = 0; r < reps; r++) {
                    for (i = 0; i < 2; i++) {
                        genie_tensor *x, *w, *b = NULL, *p;
                        genie_pool_push(c[i]);
                        x = genie_from_data(c[i], GENIE_F32, si == 0 ? 3 : 2, si == 0 ? xs : xs + 1, xv);
                        if (!xdt) x = genie_to_dtype(c[i], x, GENIE_BF16);
                        w = bf_tensor(c[i], 2, ws, wv);
                        if (claims) b = genie_from_data(c[i], GENIE_F32, 1, &N, bv);
                        if (b && !xdt) b = genie_to_dtype(c[i], b, GENIE_BF16);
                        p = lin ? genie_linear(c[i], x, w, b) : genie_matmul(c[i], x, w);
                        if (claims && lin) p = genie_gelu(c[i], p);
                        y[i] = read_all(c[i], p, (si == 0 ? 2 : 1) * M * N);
                        genie_pool_pop(c[i]);
                    }
                    CHECK(y[0][0] == y[0][0] && memcmp(y[0], y[1], (size_t)((si == 0 ? 2 : 1) * M * N) * 4) == 0);
                    free(y[0]), free(y[1]);
                }
                free(xv), free(wv), free(bv);
            }
    genie_ctx_destroy(c[0]), genie_ctx_destroy(c[1]);
}
/* A batch of products with a B of their own each (not broadcast: the batches do not fold into
   M), more rows than one block of A a thread: every batch packs its B whole into the same
   workspace, so a thread must not pack the next batch's B while another still reads this one's.
   2 threads give the 1-thread result bit for bit, bf16 x bf16 and f32 x bf16. */
static void t_batched_b(void) {
    static const int64_t shapes[][4] = {{3, 600, 256, 512}, {4, 1100, 300, 600}, {3, 700, 200, 300}};
    genie_ctx *c[2];
    size_t si;
    int xdt, i;
    c[0] = test_ctx(GENIE_CPU_AMX, 1), c[1] = test_ctx(GENIE_CPU_AMX, 2);
    CHECK(c[0] && c[1]);
    for (si = 0; c[0] && c[1] && si < sizeof shapes / sizeof shapes[0]; si++)
        for (xdt = 0; xdt < 2; xdt++) {
            const int64_t nb = shapes[si][0], M = shapes[si][1], N = shapes[si][2], K = shapes[si][3];
            const int64_t xs[3] = {nb, M, K}, ws[3] = {nb, K, N};
            float *xv = f32_rand(nb * M * K), *y[2];
            uint16_t *wv = bf_rand(nb * K * N);
            for (i = 0; i < 2; i++) {
                genie_tensor *x, *w;
                genie_pool_push(c[i]);
                x = genie_from_data(c[i], GENIE_F32, 3, xs, xv);
                if (!xdt) x = genie_to_dtype(c[i], x, GENIE_BF16);
                w = bf_tensor(c[i], 3, ws, wv);
                y[i] = read_all(c[i], genie_matmul(c[i], x, w), nb * M * N);
                genie_pool_pop(c[i]);
            }
            CHECK(y[0][0] == y[0][0] && memcmp(y[0], y[1], (size_t)(nb * M * N) * 4) == 0);
            free(y[0]), free(y[1]), free(xv), free(wv);
        }
    genie_ctx_destroy(c[0]), genie_ctx_destroy(c[1]);
}
/* ---- the pack cache for tile panels ----
   A bf16 weight read as B on the tiles (bf16 x bf16, or f32 x bf16 with the weight the bf16
   side) is marked by the first tape, packed into tile panels by the second and read from the
   cache after. Each product runs in a context with the cache and in one without, on the same
   host data: the panels are the same, so the results must be bitwise equal, before and after
   the weight is written in place (its entry dropped, packed anew) and after it is freed and
   its memory handed to a new weight. */
static float *pk_prod(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, int lin, int64_t n) {
    genie_tensor *y;
    float *v;
    genie_pool_push(ctx);
    y = lin ? genie_linear(ctx, x, w, NULL) : genie_matmul(ctx, x, w);
    v = read_all(ctx, y, n);
    genie_pool_pop(ctx);
    return v;
}
/* k products of x and w in both contexts; 1 when each pair was bitwise equal (and not NaN) */
static int pk_same(genie_ctx *const *c, genie_tensor *const *x, genie_tensor *const *w, int lin, int64_t n, int k) {
    int ok = 1;
    while (k-- > 0) {
        float *a = pk_prod(c[0], x[0], w[0], lin, n), *b = pk_prod(c[1], x[1], w[1], lin, n);
        ok &= a[0] == a[0] && memcmp(a, b, (size_t)n * 4) == 0;
        free(a), free(b);
    }
    return ok;
}
/* one more weight packed and one more product read it since *s (then *s: now) */
static int pk_hit(genie_ctx *ctx, genie_stats *s) {
    const genie_stats n = genie_get_stats(ctx);
    const int ok = n.pack_cache_packs == s->pack_cache_packs + 1 && n.pack_cache_hits == s->pack_cache_hits + 1;
    *s = n;
    return ok;
}
/* a weight [N, K] (lin) or [K, N] of bf16 values in both contexts, held by the handles alone */
static void pk_weight(genie_ctx *const *c, genie_tensor **w, const int64_t *ws) {
    uint16_t *v = bf_rand(ws[0] * ws[1]);
    int i;
    for (i = 0; i < 2; i++) {
        genie_pool_push(c[i]);
        w[i] = bf_tensor(c[i], 2, ws, v);
        genie_retain(w[i]);
        genie_pool_pop(c[i]);
    }
    free(v);
}
static void t_pack_cache(int threads) {
    /* one k-block and two (K 1030), N a panel and a part, M one block of A and two (600 > MC), one
       block of many panels (2 threads claim them), and three k-blocks of more rows than MC */
    static const int64_t shapes[][3] = {{17, 33, 33}, {40, 70, 1030}, {600, 40, 64}, {300, 1999, 999}, {530, 70, 600}};
    size_t si;
    int xdt, lin, i, ok;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (xdt = 0; xdt < 2; xdt++) /* x bf16, x f32 */
            for (lin = 0; lin < 2; lin++) {
                const int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
                const int64_t xs[2] = {M, K}, ws[2] = {lin ? N : K, lin ? K : N};
                float *xv = f32_rand(M * K);
                genie_ctx *c[2];
                genie_tensor *x[2], *w[2];
                genie_stats s0, s1;
                c[0] = test_ctx(GENIE_CPU_AMX, threads), c[1] = test_ctx(GENIE_CPU_AMX, threads);
                CHECK(c[0] && c[1] && genie_set_pack_cache(c[1], 0) == GENIE_OK);
                if (!c[0] || !c[1]) { genie_ctx_destroy(c[0]), genie_ctx_destroy(c[1]), free(xv); continue; }
                for (i = 0; i < 2; i++) {
                    genie_pool_push(c[i]);
                    x[i] = genie_from_data(c[i], GENIE_F32, 2, xs, xv);
                    if (!xdt) x[i] = genie_to_dtype(c[i], x[i], GENIE_BF16);
                    genie_retain(x[i]);
                    genie_realize(c[i], 1, &x[i]);
                    genie_pool_pop(c[i]);
                }
                pk_weight(c, w, ws);
                s0 = genie_get_stats(c[0]);
                ok = pk_same(c, x, w, lin, M * N, 3); /* marked, packed, read from the cache */
                s1 = genie_get_stats(c[0]);
                ok &= pk_hit(c[0], &s0) && s1.pack_cache_bytes >= (uint64_t)(N * K * 2) && genie_get_stats(c[1]).pack_cache_packs == 0;
                for (i = 0; i < 2; i++) { /* written in place: the entry must go */
                    genie_pool_push(c[i]);
                    genie_add_(c[i], w[i], genie_full(c[i], GENIE_BF16, 2, ws, 0.5));
                    genie_realize(c[i], 1, &w[i]);
                    genie_pool_pop(c[i]);
                }
                ok &= pk_same(c, x, w, lin, M * N, 3) && pk_hit(c[0], &s1);
                for (i = 0; i < 2; i++) genie_release(w[i]); /* freed: a new weight takes its memory */
                pk_weight(c, w, ws);
                ok &= pk_same(c, x, w, lin, M * N, 3) && pk_hit(c[0], &s1);
                ok &= genie_status(c[0]) == GENIE_OK && genie_status(c[1]) == GENIE_OK;
                CHECK(ok);
                if (!ok)
                    printf("  pack cache %dT: x %s [%lld,%lld] %s [%lld,%lld]: %s\n", threads, xdt ? "f32" : "bf16", (long long)M,
                           (long long)K, lin ? "linear by weight" : "matmul by B", (long long)ws[0], (long long)ws[1], genie_last_error(c[0]));
                for (i = 0; i < 2; i++) genie_release(x[i]), genie_release(w[i]), genie_ctx_destroy(c[i]);
                free(xv);
            }
}
/* the mixes that stay refused name the op and both dtypes */
static void t_mixed_errors(void) {
    genie_ctx *ctx = test_ctx(GENIE_CPU_GENERIC, 1);
    int64_t s[2] = {4, 4}, sb[1] = {4};
    genie_tensor *f = genie_zeros(ctx, GENIE_F32, 2, s), *i32 = genie_zeros(ctx, GENIE_I32, 2, s);
    genie_tensor *f64 = genie_zeros(ctx, GENIE_F64, 2, s), *bf = genie_zeros(ctx, GENIE_BF16, 2, s), *h = genie_zeros(ctx, GENIE_F16, 2, s);
    genie_tensor *hb = genie_zeros(ctx, GENIE_F16, 1, sb);
    CHECK(genie_matmul(ctx, f, i32) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    CHECK(strstr(genie_last_error(ctx), "genie_matmul") && strstr(genie_last_error(ctx), genie_dtype_name(GENIE_F32)) &&
          strstr(genie_last_error(ctx), genie_dtype_name(GENIE_I32)));
    genie_clear_error(ctx);
    CHECK(genie_linear(ctx, f, f64, NULL) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    CHECK(strstr(genie_last_error(ctx), "genie_linear") && strstr(genie_last_error(ctx), genie_dtype_name(GENIE_F64)));
    genie_clear_error(ctx);
    CHECK(genie_matmul(ctx, bf, h) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE); /* two half dtypes */
    genie_clear_error(ctx);
    CHECK(genie_linear(ctx, f, h, NULL) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE); /* f16 with f32: as PyTorch */
    CHECK(strstr(genie_last_error(ctx), "genie_linear") && strstr(genie_last_error(ctx), genie_dtype_name(GENIE_F16)));
    genie_clear_error(ctx);
    CHECK(genie_linear(ctx, f, bf, hb) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE); /* a bias of neither dtype */
    CHECK(strstr(genie_last_error(ctx), "genie_linear") && strstr(genie_last_error(ctx), genie_dtype_name(GENIE_F16)));
    genie_clear_error(ctx);
    genie_ctx_destroy(ctx);
}

int main(void) {
    const int refused = getenv("GENIE_NO_AMX_PERM") != NULL;
    const int amx = genie_cpu_supported(GENIE_CPU_AMX);
    genie_ctx *c;
    CHECK(strcmp(genie_cpu_name(GENIE_CPU_AMX), "amx") == 0);
    if (refused) CHECK(!amx); /* the refusal is final: no AMX path, and requests fall back */
    c = test_ctx(GENIE_CPU_AMX, 1);
    CHECK(c && genie_cpu_path(c) == (amx ? GENIE_CPU_AMX : genie_cpu_supported(GENIE_CPU_AVX512) ? GENIE_CPU_AVX512
                                          : genie_cpu_supported(GENIE_CPU_AVX2) ? GENIE_CPU_AVX2 : GENIE_CPU_GENERIC));
    genie_ctx_destroy(c);
    /* GENIE_CPU=avx512 forbids the tiles; GENIE_CPU=amx asks for them */
    setenv("GENIE_CPU", "avx512", 1);
    c = test_ctx(GENIE_CPU_AUTO, 1);
    CHECK(c && genie_cpu_path(c) != GENIE_CPU_AMX);
    genie_ctx_destroy(c);
    setenv("GENIE_CPU", "amx", 1);
    c = test_ctx(GENIE_CPU_AUTO, 1);
    CHECK(c && (genie_cpu_path(c) == GENIE_CPU_AMX) == amx);
    genie_ctx_destroy(c);
    unsetenv("GENIE_CPU");
    if (amx) {
        t_path(GENIE_CPU_AMX, 1, "amx");
        t_path(GENIE_CPU_AMX, 2, "amx");
        t_big_b();
    } else {
        printf("skip: AMX bf16 products (%s)\n", refused ? "GENIE_NO_AMX_PERM: the tile state refused"
                                                     : "this CPU or kernel has no AMX-BF16 tile state");
    }
    /* the paths without tiles, on the same shapes and bound */
    if (genie_cpu_supported(GENIE_CPU_AVX512)) t_path(GENIE_CPU_AVX512, 2, "avx512");
    t_path(GENIE_CPU_GENERIC, 1, "generic");
    t_mixed(GENIE_CPU_REFERENCE, 1, "reference");
    t_mixed(GENIE_CPU_GENERIC, 1, "generic");
    t_mixed(GENIE_CPU_AVX2, 1, "avx2");
    t_mixed(GENIE_CPU_AVX512, 2, "avx512");
    t_mixed(GENIE_CPU_AMX, 1, "amx");
    t_mixed(GENIE_CPU_AMX, 2, "amx");
    if (amx) t_threads_same(), t_batched_b(), t_pack_cache(1), t_pack_cache(2);
    else printf("skip: the pack cache of tile panels (no AMX path)\n");
    t_mixed_errors();
    printf("test_amx: %d checks, %d failed (AMX %s)\n", checks, fails, amx ? "used" : "not available");
    return fails ? 1 : 0;
}
