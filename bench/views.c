/* bench/views.c - what a view costs in genie.
   1. capture: ns per view operation over a chain of 1,000,000 views (and, for
      scale, per elementwise operation), and bytes per handle;
   2. folding: reading through a chain of 100 views costs what reading through
      one view costs, because the chain is one ViewSpec over the storage. */
#define _POSIX_C_SOURCE 199309L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <stdlib.h>
#include "bench_util.h"

/* ns per op for n captures of op on a [64,64] tensor (views alternate transposes
   with slices/unsqueezes so every step changes the ViewSpec) */
static double capture_ns(int kind, int n, int warm) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t s[2] = {64, 64};
    genie_tensor *t0t = genie_zeros(ctx, GENIE_F32, 2, s), *t = t0t;
    double t0, dt;
    int i, round;
    for (round = 0; round < warm; round++) { /* fill the slabs once: later captures reuse them */
        genie_pool_push(ctx);
        for (i = 0; i < n; i++) t = kind == 0 ? genie_transpose(ctx, t, 0, 1) : genie_add_scalar(ctx, t, 1.0);
        genie_pool_pop(ctx);
        t = t0t;
    }
    genie_pool_push(ctx);
    t0 = bench_now();
    for (i = 0; i < n; i++) {
        if (kind == 0) {
            switch (i & 3) {
            case 0: t = genie_transpose(ctx, t, 0, 1); break;
            case 1: t = genie_unsqueeze(ctx, t, 0); break;
            case 2: t = genie_squeeze(ctx, t, 0); break;
            default: t = genie_slice(ctx, t, 1, 0, 64, 1); break;
            }
        } else {
            t = genie_add_scalar(ctx, t, 1.0);
        }
    }
    dt = bench_now() - t0;
    if (!t || genie_status(ctx) != GENIE_OK) printf("error: %s\n", genie_last_error(ctx));
    genie_pool_pop(ctx);
    genie_ctx_destroy(ctx);
    return dt * 1e9 / n;
}

static double read_ms(genie_ctx *ctx, genie_tensor *v) {
    double best = 1e30;
    int r;
    for (r = 0; r < 7; r++) {
        double t0, dt, x;
        genie_tensor *s;
        genie_pool_push(ctx);
        t0 = bench_now();
        s = genie_sum(ctx, v, 0, NULL, 0);
        genie_item(ctx, s, &x);
        dt = bench_now() - t0;
        genie_pool_pop(ctx);
        if (dt < best) best = dt;
    }
    return best * 1e3;
}

/* Copies through views, best of 7 realizations of one node; the output buffer is
   reused from the context's cache. The views: a transposed [4096, 4096], a
   transposed [3072, 768] (a weight's transpose), and a [128, 12, 64] attention
   output permuted to heads first (runs of 64). */
static double copy_ms(int form) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    int64_t big[2] = {4096, 4096}, w[2] = {3072, 768}, a[3] = {128, 12, 64}, perm[3] = {1, 0, 2};
    genie_tensor *x;
    double best = 1e30;
    int r;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    ctx = genie_ctx_create(&d);
    x = genie_randn(ctx, GENIE_F32, form == 2 ? 3 : 2, form == 0 ? big : form == 1 ? w : a, 1);
    genie_realize(ctx, 1, &x);
    for (r = 0; r < 7; r++) {
        double t0, dt;
        genie_tensor *y;
        genie_pool_push(ctx);
        y = genie_contiguous(ctx, form == 2 ? genie_permute(ctx, x, 3, perm) : genie_t(ctx, x));
        t0 = bench_now();
        genie_realize(ctx, 1, &y);
        dt = bench_now() - t0;
        genie_pool_pop(ctx);
        if (dt < best) best = dt;
    }
    genie_ctx_destroy(ctx);
    return best * 1e3;
}

/* argv (optional, from bench/views_aten.cpp): PyTorch eager's view ns/op, its eager add
   ns/op (not comparable: eager computes), its read ms through 1 view and through 102
   views, its ms for the three copies of copy_ms */
int main(int argc, char **argv) {
    int n = 1000000, i, peer = argc >= 5;
    double p_view = peer ? atof(argv[1]) : 0, p_r1 = peer ? atof(argv[3]) : 0, p_r100 = peer ? atof(argv[4]) : 0;
    double view_cold = capture_ns(0, n, 0), add_cold = capture_ns(1, n, 0);
    double view_warm = capture_ns(0, n, 1), add_warm = capture_ns(1, n, 1);
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t s[2] = {1024, 1024};
    genie_tensor *x = genie_randn(ctx, GENIE_F32, 2, s, 1), *one, *chain;
    double r1, r100;
    genie_realize(ctx, 1, &x);
    one = genie_transpose(ctx, x, 0, 1);
    chain = x;
    for (i = 0; i < 99; i++) chain = (i & 1) ? genie_slice(ctx, chain, 0, 0, 1024, 1) : genie_transpose(ctx, chain, 0, 1);
    chain = genie_squeeze(ctx, genie_unsqueeze(ctx, chain, 0), 0);
    chain = genie_transpose(ctx, chain, 0, 1); /* 102 views: the same layout as `one` */
    r1 = read_ms(ctx, one);
    r100 = read_ms(ctx, chain);
    printf("capture cost: a chain of %d operations on a [64,64] f32 tensor, every handle kept\n", n);
    printf("  %-32s %11s %11s %14s %10s\n", "operation", "genie cold", "genie warm", "PyTorch eager", "eager/cold");
    if (peer)
        printf("  %-32s %8.1f ns %8.1f ns %11.1f ns %9.1fx\n", "view (transpose/unsqueeze/...)", view_cold, view_warm,
               p_view, p_view / view_cold);
    else
        printf("  %-32s %8.1f ns %8.1f ns %14s %10s\n", "view (transpose/unsqueeze/...)", view_cold, view_warm, "-", "-");
    printf("  %-32s %8.1f ns %8.1f ns %14s %10s\n", "elementwise add_scalar (capture)", add_cold, add_warm, "computes", "-");
    printf("  (cold: fresh memory, page faults included; warm: the context's slabs reused after a pool pop;\n"
           "   a genie view allocates a %zu-byte handle and a %zu-byte view spec, nothing else)\n\n",
           sizeof(struct genie_tensor), sizeof(genie__vspec));
    printf("reading through views: sum of a [1024,1024] f32 tensor, best of 7, one thread\n");
    printf("  %-34s %10s %8s %12s %8s\n", "views between tensor and storage", "genie ms", "ratio", "eager ms", "ratio");
    printf("  %-34s %10.2f %8.2f %12.3f %8.2f\n", "1 (transpose)", r1, 1.0, p_r1, 1.0);
    printf("  %-34s %10.2f %8.2f %12.3f %8.2f\n", "102 (transposes, slices, ...)", r100, r100 / r1, p_r100,
           peer && p_r1 > 0 ? p_r100 / p_r1 : 0.0);
    printf("  genie's 102-view chain is one ViewSpec: strides (%lld,%lld), offset %lld. A sum over every\n"
           "  dim of a dense view runs on the row kernels in memory order, as a contiguous one would.\n",
           (long long)genie_strides(chain)[0], (long long)genie_strides(chain)[1], (long long)genie_storage_offset(chain));
    {
        static const char *const names[3] = {"[4096,4096] transposed", "[3072,768] transposed", "[128,12,64] to [12,128,64]"};
        const int64_t elems[3] = {4096 * 4096, 3072 * 768, 128 * 12 * 64};
        printf("\ncopies through views: contiguous(), f32, best of 7, one thread (bound: memcpy of the bytes)\n");
        printf("  %-30s %10s %8s %12s %8s\n", "view copied", "genie ms", "GB/s", "eager ms", "ratio");
        for (i = 0; i < 3; i++) {
            double ms = copy_ms(i), p = argc >= 8 ? atof(argv[5 + i]) : 0;
            printf("  %-30s %10.3f %8.1f %12.3f %7.2fx\n", names[i], ms, 8.0 * (double)elems[i] / ms / 1e6, p, p > 0 ? p / ms : 0.0);
        }
        printf("  (GB/s: bytes read + written; ratio: eager time / genie time)\n");
    }
    if (!peer) printf("skip: PyTorch eager peer (libtorch-dev not installed)\n");
    genie_ctx_destroy(ctx);
    return 0;
}
