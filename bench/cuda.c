/* bench/cuda.c - genie's CUDA backend beside cuBLAS direct and PyTorch on the same GPU, in
   the same run (make bench-cuda; needs an NVIDIA GPU).

   1. sgemm N = 2048, 4096, 8192 (f32, no TF32): genie_matmul on the backend (inputs already
      on the device, result left there), cublasSgemm called directly, torch.mm. Target: genie
      >= 0.95x cuBLAS direct.
   2. chain8 on 256M f32 (t = x + y; t *= y; relu; gelu; t - x; * 0.5; square; silu; the
      chain of bench/tape.c): one fused kernel; bound: the bytes it must move (x, y read, the
      result written: 3 GiB) at the device-to-device copy bandwidth measured here
      (cudaMemcpy of 1 GiB moves 2 GiB). Target: genie <= 1.2x the bound.
   3. block: a transformer encoder layer forward (post-norm, GELU, no dropout, seq 128,
      d_model 512, 8 heads, MLP 2048, f32) at batch 1 and 32, built from genie's ops each
      iteration (capture included), vs nn.TransformerEncoderLayer in eval under no_grad
      (PyTorch's fast path). Target: genie faster.
   Each run captures the graph inside genie_pool_push/pop, keeps only the result and then
   realizes it (intermediates are dead, so fused groups write only their roots), as PyTorch
   code that keeps no intermediates. Timing: wall clock around each run with cudaDeviceSynchronize, warm-up first (which
   compiles genie's kernels), median of R runs. PyTorch's numbers come as key=value
   arguments from bench/cuda_torch.py (run by `make bench-cuda` with TORCH_PY). */
#define _POSIX_C_SOURCE 200809L
#include "genie.h"
#include "genie_cuda.h"
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

static int g_argc;
static char **g_argv;
static double peer(const char *key) { /* a PyTorch time in ms, or -1 */
    const char *v = bench_arg(g_argc, g_argv, key);
    return v ? atof(v) : -1;
}
static const char *peer_s(const char *key) {
    const char *v = bench_arg(g_argc, g_argv, key);
    return v ? v : "-";
}
static void check(genie_ctx *ctx, const char *what) {
    if (genie_status(ctx) != GENIE_OK) {
        printf("error in %s: %s\n", what, genie_last_error(ctx));
        exit(1);
    }
}
/* median of reps runs of fn (after warm runs), each synchronized */
static double time_ms(void (*fn)(void *), void *arg, int warm, int reps) {
    double t[64];
    int i;
    for (i = 0; i < warm; i++) { fn(arg); cudaDeviceSynchronize(); }
    for (i = 0; i < reps && i < 64; i++) {
        double t0 = bench_now();
        fn(arg);
        cudaDeviceSynchronize();
        t[i] = (bench_now() - t0) * 1e3;
    }
    return bench_median(t, i);
}
static void ratio(char *buf, size_t n, double a, double b) {
    if (a > 0 && b > 0) snprintf(buf, n, "%.2fx", a / b);
    else snprintf(buf, n, "-");
}

/* ---- 1. sgemm ---- */
typedef struct { genie_ctx *ctx; genie_tensor *a, *b; cublasHandle_t h; float *da, *db, *dc; int n; } mm_arg;
static void mm_genie(void *p) {
    mm_arg *m = (mm_arg *)p;
    genie_tensor *c;
    genie_pool_push(m->ctx);
    c = genie_matmul(m->ctx, m->a, m->b);
    genie_realize(m->ctx, 1, &c);
    genie_pool_pop(m->ctx);
}
static void mm_cublas(void *p) {
    mm_arg *m = (mm_arg *)p;
    const float one = 1, zero = 0;
    cublasSgemm(m->h, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one, m->db, m->n, m->da, m->n, &zero, m->dc, m->n);
}

/* ---- 2. chain8 ---- */
typedef struct { genie_ctx *ctx; genie_tensor *x, *y; void *d0, *d1; size_t bytes; } chain_arg;
static void chain_genie(void *p) {
    chain_arg *c = (chain_arg *)p;
    genie_ctx *ctx = c->ctx;
    genie_tensor *t;
    genie_pool_push(ctx);
    t = genie_add(ctx, c->x, c->y);
    t = genie_mul(ctx, t, c->y);
    t = genie_relu(ctx, t);
    t = genie_gelu(ctx, t);
    t = genie_sub(ctx, t, c->x);
    t = genie_mul_scalar(ctx, t, 0.5);
    t = genie_square(ctx, t);
    t = genie_silu(ctx, t);
    genie_retain(t);
    genie_pool_pop(ctx); /* the intermediates are dead: the fused kernel writes only t */
    genie_realize(ctx, 1, &t);
    genie_release(t);
}
static void chain_copy(void *p) {
    chain_arg *c = (chain_arg *)p;
    cudaMemcpy(c->d1, c->d0, c->bytes, cudaMemcpyDeviceToDevice);
}

/* ---- 3. the encoder block, batch B ---- */
enum { S = 128, D = 512, NH = 8, HD = 64, FF = 2048 };
typedef struct {
    genie_ctx *ctx;
    int64_t B;
    genie_tensor *x, *wqkv, *bqkv, *wo, *bo, *ln1w, *ln1b, *w1, *b1, *w2, *b2, *ln2w, *ln2b;
} block_arg;
static genie_tensor *block(genie_ctx *ctx, const block_arg *w) {
    int64_t hs[4] = {w->B, S, NH, HD}, sd[3] = {w->B, S, D}, nd = D;
    genie_tensor *qkv = genie_linear(ctx, w->x, w->wqkv, w->bqkv);
    genie_tensor *q = genie_transpose(ctx, genie_view(ctx, genie_slice(ctx, qkv, 2, 0, D, 1), 4, hs), 1, 2);
    genie_tensor *k = genie_transpose(ctx, genie_view(ctx, genie_slice(ctx, qkv, 2, D, 2 * D, 1), 4, hs), 1, 2);
    genie_tensor *v = genie_transpose(ctx, genie_view(ctx, genie_slice(ctx, qkv, 2, 2 * D, 3 * D, 1), 4, hs), 1, 2);
    genie_tensor *sc = genie_mul_scalar(ctx, genie_matmul(ctx, q, genie_transpose(ctx, k, 2, 3)), 1.0 / sqrt((double)HD));
    genie_tensor *o = genie_matmul(ctx, genie_softmax(ctx, sc, -1), v);
    genie_tensor *a = genie_linear(ctx, genie_reshape(ctx, genie_transpose(ctx, o, 1, 2), 3, sd), w->wo, w->bo);
    genie_tensor *x1 = genie_layer_norm(ctx, genie_add(ctx, w->x, a), 1, &nd, w->ln1w, w->ln1b, 1e-5);
    genie_tensor *h = genie_gelu(ctx, genie_linear(ctx, x1, w->w1, w->b1));
    genie_tensor *f = genie_linear(ctx, h, w->w2, w->b2);
    return genie_layer_norm(ctx, genie_add(ctx, x1, f), 1, &nd, w->ln2w, w->ln2b, 1e-5);
}
static void block_run(void *p) {
    block_arg *a = (block_arg *)p;
    genie_tensor *y;
    genie_pool_push(a->ctx);
    y = block(a->ctx, a);
    genie_retain(y);
    genie_pool_pop(a->ctx); /* only the result is readable: the planner recycles the rest */
    genie_realize(a->ctx, 1, &y);
    genie_release(y);
}
static void block_load(block_arg *w) {
    int64_t shp[13][3] = {{w->B, S, D}, {3 * D, D}, {3 * D}, {D, D}, {D}, {D}, {D}, {FF, D}, {FF}, {D, FF}, {D}, {D}, {D}};
    static const int nds[13] = {3, 2, 1, 2, 1, 1, 1, 2, 1, 2, 1, 1, 1};
    genie_tensor **slot[13], *all[13];
    int i;
    slot[0] = &w->x, slot[1] = &w->wqkv, slot[2] = &w->bqkv, slot[3] = &w->wo, slot[4] = &w->bo;
    slot[5] = &w->ln1w, slot[6] = &w->ln1b, slot[7] = &w->w1, slot[8] = &w->b1, slot[9] = &w->w2;
    slot[10] = &w->b2, slot[11] = &w->ln2w, slot[12] = &w->ln2b;
    for (i = 0; i < 13; i++) {
        *slot[i] = genie_mul_scalar(w->ctx, genie_randn(w->ctx, GENIE_F32, nds[i], shp[i], (uint64_t)i + 1), 0.04);
        genie_retain(*slot[i]);
        all[i] = *slot[i];
    }
    genie_realize(w->ctx, 13, all);
    check(w->ctx, "block weights");
}

int main(int argc, char **argv) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    genie_stats s;
    char r1[32], r2[32];
    int quick = getenv("BENCH_QUICK") != NULL, i;
    g_argc = argc;
    g_argv = argv;
    memset(&d, 0, sizeof d);
    d.backend = "cuda";
    ctx = genie_ctx_create(&d);
    if (!ctx || genie_status(ctx) != GENIE_OK) {
        printf("skip: bench-cuda needs a GPU: %s\n", ctx ? genie_last_error(ctx) : "no context");
        genie_ctx_destroy(ctx);
        return 0;
    }
    {
        struct cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, 0);
        printf("GPU: %s; PyTorch %s on %s\n\n", prop.name, peer_s("torch_version"), peer_s("torch_gpu"));
    }

    /* 1. sgemm */
    printf("sgemm (f32, no TF32), ms (TFLOP/s)\n");
    printf("%6s %18s %18s %18s %14s %14s\n", "N", "genie", "cuBLAS direct", "PyTorch", "genie/cuBLAS", "genie/PyTorch");
    for (i = 0; i < 3; i++) {
        static const int ns[3] = {2048, 4096, 8192};
        mm_arg m;
        int64_t sh[2];
        double tg, tc, tp;
        char key[64];
        m.n = ns[i];
        if (quick && m.n > 2048) break;
        sh[0] = sh[1] = m.n;
        m.ctx = ctx;
        m.a = genie_randn(ctx, GENIE_F32, 2, sh, 1);
        m.b = genie_randn(ctx, GENIE_F32, 2, sh, 2);
        genie_retain(m.a);
        genie_retain(m.b);
        cublasCreate(&m.h);
        cudaMalloc((void **)&m.da, (size_t)m.n * m.n * 4);
        cudaMalloc((void **)&m.db, (size_t)m.n * m.n * 4);
        cudaMalloc((void **)&m.dc, (size_t)m.n * m.n * 4);
        cudaMemset(m.da, 0, (size_t)m.n * m.n * 4);
        cudaMemset(m.db, 0, (size_t)m.n * m.n * 4);
        tg = time_ms(mm_genie, &m, 2, quick ? 5 : 15);
        check(ctx, "sgemm");
        tc = time_ms(mm_cublas, &m, 2, quick ? 5 : 15);
        snprintf(key, sizeof key, "sgemm_%d", m.n);
        tp = peer(key);
        ratio(r1, sizeof r1, tc, tg);
        ratio(r2, sizeof r2, tp, tg);
        printf("%6d %9.3f (%5.1f) %9.3f (%5.1f) %9.3f (%5.1f) %14s %14s\n", m.n, tg, 2e-9 * m.n * m.n * (double)m.n / tg, tc,
               2e-9 * m.n * m.n * (double)m.n / tc, tp, tp > 0 ? 2e-9 * m.n * m.n * (double)m.n / tp : 0.0, r1, r2);
        cudaFree(m.da);
        cudaFree(m.db);
        cudaFree(m.dc);
        cublasDestroy(m.h);
        genie_release(m.a);
        genie_release(m.b);
    }
    printf("(ratios: the other's time / genie's: > 1 means genie is faster)\n\n");

    /* 2. chain8 */
    {
        chain_arg c;
        int64_t n = quick ? ((int64_t)1 << 24) : ((int64_t)1 << 28);
        double tg, tcopy, bound, tp;
        c.ctx = ctx;
        c.x = genie_randn(ctx, GENIE_F32, 1, &n, 3);
        c.y = genie_randn(ctx, GENIE_F32, 1, &n, 4);
        genie_retain(c.x);
        genie_retain(c.y);
        c.bytes = (size_t)n * 4;
        cudaMalloc(&c.d0, c.bytes);
        cudaMalloc(&c.d1, c.bytes);
        tg = time_ms(chain_genie, &c, 2, quick ? 5 : 11);
        check(ctx, "chain8");
        tcopy = time_ms(chain_copy, &c, 2, quick ? 5 : 11);
        bound = tcopy * 1.5; /* 3 passes over n floats; the copy makes 2 */
        tp = peer(quick ? "chain8_16M" : "chain8_256M");
        printf("chain8 on %lldM f32, ms\n%12s %12s %14s %12s %14s %14s\n", (long long)(n >> 20), "genie", "bound", "copy GB/s", "PyTorch",
               "genie/bound", "genie/PyTorch");
        ratio(r1, sizeof r1, tg, bound);
        ratio(r2, sizeof r2, tp, tg);
        printf("%12.3f %12.3f %14.0f %12.3f %14s %14s\n", tg, bound, 2e-6 * (double)c.bytes / tcopy, tp, r1, r2);
        printf("(genie/bound: genie's time / the bound, target <= 1.2x; genie/PyTorch: > 1 means genie is faster)\n\n");
        cudaFree(c.d0);
        cudaFree(c.d1);
        genie_release(c.x);
        genie_release(c.y);
    }

    /* 3. the encoder block */
    printf("encoder block forward (seq 128, d_model 512, 8 heads, MLP 2048, f32), ms\n");
    printf("%6s %12s %16s %14s   %s\n", "batch", "genie", "PyTorch eager", "PyTorch/genie", "genie per block: backend nodes, CPU fallbacks, copies to device/host");
    for (i = 0; i < 2; i++) {
        block_arg a;
        double tg, tp;
        genie_stats s0;
        memset(&a, 0, sizeof a);
        a.ctx = ctx;
        a.B = i == 0 ? 1 : 32;
        block_load(&a);
        tg = time_ms(block_run, &a, 3, quick ? 5 : 21);
        check(ctx, "block");
        s0 = genie_get_stats(ctx);
        block_run(&a);
        s = genie_get_stats(ctx);
        tp = peer(i == 0 ? "block_1" : "block_32");
        ratio(r1, sizeof r1, tp, tg);
        printf("%6lld %12.3f %16.3f %14s   %llu, %llu, %llu/%llu\n", (long long)a.B, tg, tp, r1,
               (unsigned long long)(s.backend_nodes - s0.backend_nodes), (unsigned long long)(s.backend_fallbacks - s0.backend_fallbacks),
               (unsigned long long)(s.copies_to_device - s0.copies_to_device), (unsigned long long)(s.copies_to_host - s0.copies_to_host));
        genie_release(a.x); genie_release(a.wqkv); genie_release(a.bqkv); genie_release(a.wo); genie_release(a.bo);
        genie_release(a.ln1w); genie_release(a.ln1b); genie_release(a.w1); genie_release(a.b1); genie_release(a.w2);
        genie_release(a.b2); genie_release(a.ln2w); genie_release(a.ln2b);
    }
    printf("(PyTorch/genie > 1 means genie is faster; genie's time includes capturing the graph each run)\n");
    genie_ctx_destroy(ctx);
    return 0;
}
