/* bench/attention.c - scaled_dot_product_attention, fused, beside the unfused composition in
   genie (matmul, scale, [mask,] softmax, matmul) and PyTorch eager's (ATen from C++, the same
   composition: Debian's torch 1.13 has no fused CPU attention), in one run.

   Cases, f32, B = 1, 8 heads, E = Ev = 64, each at 1 and 2 threads:
     prefill          L = S = 2048
     prefill_causal   L = S = 2048, top-left causal (unfused: masked_fill of the upper triangle)
     decode           L = 1, S = 2048 (a KV-cache step), 8 key/value heads
     decode_gqa       L = 1, S = 2048, 2 key/value heads (grouped-query, 4 query heads each;
                      unfused: the 4 query heads of a group viewed as 4 rows, so K and V are
                      neither copied nor repeated)
   Columns: milliseconds per call (inputs materialized first; each call captures and realizes
   anew inside genie_pool_push/pop; one warm-up, then the median of enough calls for ~0.5 s,
   at least 3); the median CPU time of the process per call (all threads, workers' spinning
   included: on a shared machine wall time also counts waiting for a core, CPU time does not);
   GFLOP/s of the wall time counting 2 L S (E + Ev) per head (causal: about half that many), and
   extra memory: the most bytes genie's heap held during one call beyond what it held before
   (every GENIE_MALLOC counted: data buffers, the kernel workspace, the graph), measured on a
   fresh context for each variant, and genie's own statistic tape_peak_bytes (data buffers of
   the tape at once, as planned). ATen's memory is not measured.

   Run: `make bench-attention` (also in `make bench`). By hand:
     build/bench_attention $(build/bench_attention_aten)
   arguments `name@threads=seconds` are the ATen peer's results (bench/attention_aten.cpp). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every allocation carries its size: the heap genie holds now and at most (resettable). */
static size_t heap_now, heap_peak;
static void *h_malloc(size_t n) {
    size_t *p = (size_t *)malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    heap_now += n;
    if (heap_now > heap_peak) heap_peak = heap_now;
    return (char *)p + 16;
}
static void h_free(void *q) {
    size_t *p;
    if (!q) return;
    p = (size_t *)(void *)((char *)q - 16);
    heap_now -= p[0];
    free(p);
}
static void *h_realloc(void *q, size_t n) {
    size_t *p, old;
    if (!q) return h_malloc(n);
    p = (size_t *)(void *)((char *)q - 16);
    old = p[0];
    p = (size_t *)realloc(p, n + 16);
    if (!p) return NULL;
    p[0] = n;
    heap_now = heap_now - old + n;
    if (heap_now > heap_peak) heap_peak = heap_now;
    return (char *)p + 16;
}
#define GENIE_MALLOC(n) h_malloc(n)
#define GENIE_REALLOC(p, n) h_realloc(p, n)
#define GENIE_FREE(p) h_free(p)
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "bench_util.h"

typedef struct acase {
    const char *name;
    int64_t H, Hkv, L, S, E;
    int causal;
} acase;
static const acase cases[] = {
    {"prefill", 8, 8, 2048, 2048, 64, 0},
    {"prefill_causal", 8, 8, 2048, 2048, 64, 1},
    {"decode", 8, 8, 1, 2048, 64, 0},
    {"decode_gqa", 8, 2, 1, 2048, 64, 0},
};

typedef struct inputs { genie_tensor *q, *k, *v, *mask; } inputs;
static inputs make_inputs(genie_ctx *ctx, const acase *c) {
    int64_t qs[4] = {1, c->H, c->L, c->E}, ks[4] = {1, c->Hkv, c->S, c->E}, ms[2] = {c->L, c->S};
    inputs in;
    genie_tensor *all[4];
    in.q = genie_randn(ctx, GENIE_F32, 4, qs, 1);
    in.k = genie_randn(ctx, GENIE_F32, 4, ks, 2);
    in.v = genie_randn(ctx, GENIE_F32, 4, ks, 3);
    in.mask = c->causal ? genie_triu(ctx, genie_ones(ctx, GENIE_BOOL, 2, ms), 1) : NULL; /* true: masked out */
    all[0] = in.q; all[1] = in.k; all[2] = in.v; all[3] = in.mask;
    genie_realize(ctx, c->causal ? 4 : 3, all);
    return in;
}
/* One call: fused (1) or the unfused composition (0). */
static genie_tensor *attention(genie_ctx *ctx, const acase *c, const inputs *in, int fused) {
    int64_t g4[4] = {1, c->Hkv, c->H / c->Hkv * c->L, c->E}, o4[4] = {1, c->H, c->L, c->E};
    genie_tensor *q = in->q, *s;
    if (fused) return genie_scaled_dot_product_attention(ctx, in->q, in->k, in->v, NULL, c->causal, NAN);
    if (c->Hkv != c->H) q = genie_view(ctx, q, 4, g4); /* the G query heads of a group as rows (no copy; not causal) */
    s = genie_mul_scalar(ctx, genie_matmul(ctx, q, genie_transpose(ctx, in->k, -1, -2)), 1.0 / sqrt((double)c->E));
    if (c->causal) s = genie_masked_fill(ctx, s, in->mask, -INFINITY);
    return genie_view(ctx, genie_matmul(ctx, genie_softmax(ctx, s, -1), in->v), 4, o4);
}
static double cpu_now(void) { /* the process's CPU time: all threads, spinning included */
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* Median seconds per call; *cpu: the median CPU seconds per call. */
static double time_calls(genie_ctx *ctx, const acase *c, const inputs *in, int fused, double *cpu) {
    double t[200], u[200], t0, c0, total = 0;
    int n = 0;
    genie_tensor *r;
    genie_pool_push(ctx); /* warm-up */
    r = attention(ctx, c, in, fused);
    genie_realize(ctx, 1, &r);
    genie_pool_pop(ctx);
    while (n < 200 && (n < 3 || total < 0.5)) {
        genie_pool_push(ctx);
        t0 = bench_now();
        c0 = cpu_now();
        r = attention(ctx, c, in, fused);
        genie_realize(ctx, 1, &r);
        u[n] = cpu_now() - c0;
        t[n] = bench_now() - t0;
        total += t[n++];
        genie_pool_pop(ctx);
    }
    *cpu = bench_median(u, n);
    return bench_median(t, n);
}
/* Extra heap bytes of one call on a fresh context, and tape_peak_bytes. */
static void memory_of(const acase *c, int fused, int threads, double *heap_mib, double *tape_mib) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    inputs in;
    genie_tensor *r;
    size_t before;
    memset(&d, 0, sizeof d);
    d.n_threads = threads;
    ctx = genie_ctx_create(&d);
    in = make_inputs(ctx, c);
    r = attention(ctx, c, &in, fused);
    before = heap_now;
    heap_peak = heap_now;
    genie_realize(ctx, 1, &r);
    *heap_mib = (double)(heap_peak - before) / 1048576.0;
    *tape_mib = (double)genie_get_stats(ctx).tape_peak_bytes / 1048576.0;
    genie_ctx_destroy(ctx);
}

int main(int argc, char **argv) {
    size_t ci;
    int t;
    genie_ctx *probe = genie_ctx_create(NULL);
    printf("scaled_dot_product_attention, f32, B=1, E=Ev=64 (genie path %s%s)\n", genie_cpu_name(genie_cpu_path(probe)),
           argc > 1 ? "; ATen: the same composition from C++" : "; no ATen peer given");
    genie_ctx_destroy(probe);
    printf("%-15s %3s | %9s %9s %7s %8s %8s | %9s %9s %7s %8s %8s | %9s %7s | %7s %7s\n", "case", "thr", "fused ms", "cpu ms", "GF/s",
           "heap MiB", "tape MiB", "unfused", "cpu ms", "GF/s", "heap MiB", "tape MiB", "ATen ms", "GF/s", "vs unf", "vs ATen");
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (t = 1; t <= 2; t++) {
            const acase *c = &cases[ci];
            genie_ctx_desc d;
            genie_ctx *ctx;
            inputs in;
            double flop = 2.0 * (double)c->H * (double)c->L * (double)c->S * (double)(2 * c->E), tf, tu, ta, hf, pf, hu, pu, cf, cu;
            if (c->causal) flop *= 0.5 * (1.0 + 1.0 / (double)c->S);
            memset(&d, 0, sizeof d);
            d.n_threads = t;
            ctx = genie_ctx_create(&d);
            in = make_inputs(ctx, c);
            tf = time_calls(ctx, c, &in, 1, &cf);
            tu = time_calls(ctx, c, &in, 0, &cu);
            genie_ctx_destroy(ctx);
            memory_of(c, 1, t, &hf, &pf);
            memory_of(c, 0, t, &hu, &pu);
            ta = bench_peer_time(argc, argv, c->name, t);
            printf("%-15s %3d | %9.3f %9.3f %7.1f %8.2f %8.2f | %9.3f %9.3f %7.1f %8.2f %8.2f | ", c->name, t, tf * 1e3, cf * 1e3,
                   flop / tf * 1e-9, hf, pf, tu * 1e3, cu * 1e3, flop / tu * 1e-9, hu, pu);
            if (ta > 0) printf("%9.3f %7.1f | %6.2fx %6.2fx\n", ta * 1e3, flop / ta * 1e-9, tu / tf, ta / tf);
            else printf("%9s %7s | %6.2fx %7s\n", "-", "-", tu / tf, "-");
            fflush(stdout);
        }
    printf("vs unf, vs ATen: the peer's time over the fused op's (higher: the fused op is faster)\n");
    return 0;
}
