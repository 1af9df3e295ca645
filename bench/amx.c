/* amx.c - bf16 matrix products on AMX tiles beside PyTorch's oneDNN in the same run: bf16
   [N,N] @ [N,N] for N = 512 and 2048 at 1 and 2 threads, genie on its amx path (TDPBF16PS
   tiles), on avx512 (the tiles forbidden: vdpbf16ps pairs where the CPU has AVX512_BF16) and
   its f32 product of the same shape, beside torch.matmul of bf16 tensors (the peer's numbers
   come as name=value arguments, printed by bench/amx_torch.py; without them the peer's
   columns are '-' and a skip line says why). genie's B, a constant of every call, is read
   from its pack cache (tile panels kept from the second call on, as a weight is); the peer
   packs it every call. Then f32 x bf16 (f32 activations, bf16 weights, result f32)
   [128,2048] by [2048,2048], as matmul and as linear: the amx path (activations rounded to
   bf16 while packing, tiles) with the pack cache and without it, beside the avx512 path's
   exact f32 kernel in the same run, as medians of the calls made in ~0.5 s (at least 5)
   after a warm-up.
   Timing: operands materialized first; every call captures and realizes the product anew
   inside genie_pool_push/pop; one warm-up call, then the fastest of the calls made in ~0.5 s
   (at least 3), as the peer does: on a machine shared with other jobs the fastest call is the
   one least disturbed, where a median measures the neighbours.
     make bench-amx   (or cc -std=c99 -O2 -I. bench/amx.c -lm -pthread &&
                       ./a.out $(.venv/bin/python bench/amx_torch.py)) */
#define _POSIX_C_SOURCE 200112L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "tests/unit/testctx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

static int one_call(genie_ctx *ctx, genie_tensor *a, genie_tensor *b) {
    genie_tensor *y;
    genie_result r;
    genie_pool_push(ctx);
    y = genie_matmul(ctx, a, b);
    r = genie_realize(ctx, 1, &y);
    genie_pool_pop(ctx);
    return r == GENIE_OK;
}
/* GFLOP/s of genie's [n,n] @ [n,n] in dt on path cpu at t threads (0: failed) */
static double genie_gflops(genie_cpu cpu, int t, genie_dtype dt, int64_t n) {
    genie_ctx *ctx = test_ctx(cpu, t);
    const int64_t sh[2] = {n, n};
    float *v = (float *)malloc((size_t)(n * n) * 4);
    double secs[200], t0, spent = 0;
    genie_tensor *a, *b;
    int64_t i;
    int reps = 0, ok;
    for (i = 0; i < n * n; i++) v[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    a = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F32, 2, sh, v), dt);
    for (i = 0; i < n * n; i++) v[i] = 0.25f - v[i];
    b = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F32, 2, sh, v), dt);
    ok = genie_realize(ctx, 1, &a) == GENIE_OK && genie_realize(ctx, 1, &b) == GENIE_OK && one_call(ctx, a, b);
    while (ok && reps < 200 && (reps < 3 || spent < 0.5)) {
        t0 = bench_now();
        ok = one_call(ctx, a, b);
        secs[reps] = bench_now() - t0;
        spent += secs[reps++];
    }
    if (!ok) printf("  genie failed: %s\n", genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    free(v);
    if (!ok) return 0;
    return 2.0 * (double)n * (double)n * (double)n / bench_min(secs, reps) * 1e-9;
}
/* Median ms of y = x @ B (lin 0: B bf16 [K, N]) or linear(x, W) (lin 1: W bf16 [N, K]) for
   x f32 [m, K], N = K = n, on path cpu at t threads (0: failed). On amx, m > 16: x rounded to
   bf16 while packing, TDPBF16PS tiles; on avx512: the f32 kernel, B widened exactly. */
static double mixed_ms(genie_cpu cpu, int t, int lin, int64_t m, int64_t n, int nocache) {
    genie_ctx *ctx = test_ctx(cpu, t);
    const int64_t sx[2] = {m, n}, sw[2] = {n, n};
    float *v = (float *)malloc((size_t)(n * n) * 4);
    double secs[200], t0, spent = 0;
    genie_tensor *x, *w, *y;
    int64_t i;
    int reps = 0, ok = 1;
    for (i = 0; i < n * n; i++) v[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    if (nocache) genie_set_pack_cache(ctx, 0);
    x = genie_from_data(ctx, GENIE_F32, 2, sx, v);
    w = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F32, 2, sw, v), GENIE_BF16);
    ok = genie_realize(ctx, 1, &x) == GENIE_OK && genie_realize(ctx, 1, &w) == GENIE_OK;
    for (i = -1; ok && reps < 200 && (reps < 5 || spent < 0.5); i++) { /* i = -1: a warm-up call */
        t0 = bench_now();
        genie_pool_push(ctx);
        y = lin ? genie_linear(ctx, x, w, NULL) : genie_matmul(ctx, x, w);
        ok = genie_realize(ctx, 1, &y) == GENIE_OK;
        genie_pool_pop(ctx);
        if (i < 0) continue;
        secs[reps] = bench_now() - t0;
        spent += secs[reps++];
    }
    if (!ok) printf("  genie failed: %s\n", genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    free(v);
    if (!ok || reps == 0) return 0;
    return bench_median_mean(secs, reps) * 1e3;
}
static void fmt(char *buf, size_t n, double v) {
    if (v > 0) snprintf(buf, n, "%.1f", v);
    else snprintf(buf, n, "-");
}

int main(int argc, char **argv) {
    static const int64_t sizes[2] = {512, 2048};
    const char *tv = bench_arg(argc, argv, "torch_version");
    genie_ctx *probe = test_ctx(GENIE_CPU_AUTO, 1);
    int s, t;
    printf("genie amx bench: genie CPU path \"%s\" (AMX %s)\n", genie_cpu_name(genie_cpu_path(probe)),
           genie_cpu_supported(GENIE_CPU_AMX) ? "granted" : "not available: amx rows run avx512");
    genie_ctx_destroy(probe);
    if (tv) printf("PyTorch %s: torch.matmul of bf16 tensors (oneDNN), torch.set_num_threads(thr)\n", tv);
    else printf("skip: PyTorch peer (no torch_version=... argument: run bench/amx_torch.py with torch installed)\n");
    printf("each value: the fastest call after a warm-up (~0.5 s of calls); genie captures and realizes each call in a pool\n\n");
    printf("GFLOP/s (higher is better); ratio = genie amx speed / peer speed (target >= 0.8)\n");
    printf("%-10s %-22s %3s %9s %9s %9s %9s %6s\n", "case", "shape", "thr", "amx", "avx512", "f32", "PyTorch", "ratio");
    for (s = 0; s < 2; s++)
        for (t = 1; t <= 2; t++) {
            const int64_t n = sizes[s];
            char key[64], shape[64], c0[32], c1[32], c2[32], c3[32], rt[32];
            const char *pv;
            double amx, avx, f32, pt;
            snprintf(key, sizeof key, "torch_bf16_%lld_%d", (long long)n, t);
            pv = bench_arg(argc, argv, key);
            pt = pv ? atof(pv) : 0;
            amx = genie_gflops(GENIE_CPU_AMX, t, GENIE_BF16, n);
            avx = genie_gflops(GENIE_CPU_AVX512, t, GENIE_BF16, n);
            f32 = genie_gflops(GENIE_CPU_AMX, t, GENIE_F32, n);
            snprintf(shape, sizeof shape, "[%lld,%lld]@[%lld,%lld]", (long long)n, (long long)n, (long long)n, (long long)n);
            fmt(c0, sizeof c0, amx), fmt(c1, sizeof c1, avx), fmt(c2, sizeof c2, f32), fmt(c3, sizeof c3, pt);
            if (amx > 0 && pt > 0) snprintf(rt, sizeof rt, "%.2f", amx / pt);
            else snprintf(rt, sizeof rt, "-");
            printf("bf16_%-5lld %-22s %3d %9s %9s %9s %9s %6s\n", (long long)n, shape, t, c0, c1, c2, c3, rt);
            fflush(stdout);
        }
    printf("\nf32 x bf16 (f32 activations, bf16 weights; result f32), [128,2048] x [2048,2048]: median ms (lower is better)\n");
    printf("amx: x rounded to bf16 while packing, TDPBF16PS, the weight's tile panels read from the pack cache (from the\n"
           "third call); amx, no cache: the same with genie_set_pack_cache(ctx, 0) (the weight packed every call);\n"
           "f32: the avx512 path's f32 kernel (weights widened exactly while packing: bf16 weights are not cached there)\n");
    printf("%-26s %3s %9s %9s %9s %7s %9s\n", "case", "thr", "amx", "no cache", "f32", "f32/amx", "nc/amx");
    for (t = 1; t <= 2; t++) {
        int lin;
        for (lin = 0; lin < 2; lin++) {
            const int has = genie_cpu_supported(GENIE_CPU_AMX);
            const double a = has ? mixed_ms(GENIE_CPU_AMX, t, lin, 128, 2048, 0) : 0;
            const double nc = has ? mixed_ms(GENIE_CPU_AMX, t, lin, 128, 2048, 1) : 0;
            const double f = mixed_ms(GENIE_CPU_AVX512, t, lin, 128, 2048, 0);
            char c0[32], c1[32], c2[32], rt[32], rn[32];
            snprintf(c0, sizeof c0, a > 0 ? "%.2f" : "-", a), snprintf(c1, sizeof c1, f > 0 ? "%.2f" : "-", f);
            snprintf(c2, sizeof c2, nc > 0 ? "%.2f" : "-", nc);
            snprintf(rt, sizeof rt, a > 0 && f > 0 ? "%.2f" : "-", f / (a > 0 ? a : 1));
            snprintf(rn, sizeof rn, a > 0 && nc > 0 ? "%.2f" : "-", nc / (a > 0 ? a : 1));
            printf("%-26s %3d %9s %9s %9s %7s %9s\n", lin ? "linear(x, W[2048,2048])" : "x @ B[2048,2048]", t, c0, c2, c1, rt, rn);
            fflush(stdout);
        }
    }
    return 0;
}
