/* bf16_decode.c - a decode step's f32 x bf16 linear (x f32 [1, K], W bf16 [N, K]: a BF16
   model's weight) beside a read of the same bytes (copy_bw.h's read_bw), on each CPU path at
   1 and 2 threads, and the same linear of an f32 weight (twice the bytes) as a peer. The weights rotate over copies of at least 512 MiB in all, so that each
   call streams its weight from memory as a model's decode does. Prints ms a call (median)
   and the fraction of the read bound (weight bytes / time over read_bw). */
#define _POSIX_C_SOURCE 199309L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "tests/unit/testctx.h"
#include "bench/copy_bw.h"
#include <stdio.h>
#include "bench_util.h"

/* Median seconds of linear(x, W_c) over the copies c in turn; 0 on failure. */
static double decode_s(genie_cpu cpu, int t, int64_t m, int64_t n, int64_t k, genie_dtype wdt) {
    genie_ctx *ctx = test_ctx(cpu, t);
    const int64_t sx[2] = {m, k}, sw[2] = {n, k};
    const int64_t copies = GENIE__MAX(2, ((int64_t)512 << 20) / (n * k * (int64_t)genie_dtype_size(wdt)));
    float *v = (float *)malloc((size_t)(n * k) * 4);
    genie_tensor **w = (genie_tensor **)calloc((size_t)copies, sizeof *w), *x, *y;
    double secs[400], t0;
    int64_t i, c;
    int reps = 0, ok = v && w && ctx;
    for (i = 0; ok && i < n * k; i++) v[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    x = ok ? genie_from_data(ctx, GENIE_F32, 2, sx, v) : NULL;
    ok = ok && genie_realize(ctx, 1, &x) == GENIE_OK;
    for (c = 0; ok && c < copies; c++) {
        w[c] = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F32, 2, sw, v), wdt);
        ok = genie_realize(ctx, 1, &w[c]) == GENIE_OK;
    }
    for (i = -copies; ok && reps < 400 && (i < 3 * copies || reps < 20); i++) { /* the first round warms up */
        genie_pool_push(ctx);
        t0 = bench_now();
        y = genie_linear(ctx, x, w[(i + copies) % copies], NULL);
        ok = genie_realize(ctx, 1, &y) == GENIE_OK;
        if (i >= 0) secs[reps++] = bench_now() - t0;
        genie_pool_pop(ctx);
    }
    if (!ok && ctx) printf("  genie failed: %s\n", genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    free(v);
    free(w);
    if (!ok || reps == 0) return 0;
    return bench_median(secs, reps);
}

int main(void) {
    static const int64_t shapes[3][2] = {{2048, 2048}, {2048, 5632}, {5632, 2048}}; /* N, K */
    static const genie_cpu paths[4] = {GENIE_CPU_AUTO, GENIE_CPU_AVX512, GENIE_CPU_AVX2, GENIE_CPU_AUTO};
    static const char *names[4] = {"auto", "avx512", "avx2", "f32 W"}; /* f32 W: the f32 weight's decode, a peer */
    int t, s, p;
    printf("f32 x bf16 decode: linear(x f32 [1,K], W bf16 [N,K]), W streamed from memory; ms median; frac = W bytes/ms over read_bw\n");
    for (t = 1; t <= 2; t++) {
        const double rb = read_bw(t);
        printf("threads %d: read_bw %.1f GB/s (copy_bw %.1f GB/s)\n", t, rb * 1e-9, copy_bw(t) * 1e-9);
        printf("  %-7s %-12s %9s %7s\n", "path", "N x K", "ms", "frac");
        for (p = 0; p < 4; p++) {
            if (paths[p] != GENIE_CPU_AUTO && !genie_cpu_supported(paths[p])) continue;
            for (s = 0; s < 3; s++) {
                const int64_t n = shapes[s][0], k = shapes[s][1];
                const genie_dtype wdt = p == 3 ? GENIE_F32 : GENIE_BF16;
                const double sec = decode_s(paths[p], t, 1, n, k, wdt);
                char shape[32];
                snprintf(shape, sizeof shape, "%lldx%lld", (long long)n, (long long)k);
                if (sec > 0) printf("  %-7s %-12s %9.3f %7.2f\n", names[p], shape, sec * 1e3, (double)(n * k * (int64_t)genie_dtype_size(wdt)) / sec / rb);
            }
        }
    }
    return 0;
}
