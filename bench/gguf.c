/* gguf.c - quantized weights read from a GGUF file: the decode product y = x w^T, x [1, 4096],
   w [4096, 4096] in Q8_0, Q4_0, Q4_K and Q6_K (and f32 / bf16 as genie's float paths), beside
   the memory bound measured in the same run (the weight's bytes over the copy bandwidth of a
   memcpy of 256 MiB: a product that streams its weight from memory once cannot beat it), on
   1 and 2 threads, warm (the weight left in the last-level cache by the run before) and cold
   (512 MiB written first); and a prefill product x [128, 4096] beside the f32 GEMM.
   The file is written here (build/bench_gguf.gguf): Q8_0 and Q4_0 quantized from random
   weights as ggml does, the K types random blocks with sane scales.
     make bench-gguf   (or cc -std=c99 -O2 -I. bench/gguf.c -lm -pthread && ./a.out [reps]) */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define NN 4096
#define KK 4096

static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 32); }
static float frnd(void) { return (float)rnd() / 4294967296.0f * 2 - 1; }
static uint16_t f2h(float x) { /* normal range only: the scales here */
    uint32_t u;
    memcpy(&u, &x, 4);
    return (uint16_t)(((u >> 16) & 0x8000) | ((((u >> 23) & 0xff) - 112) << 10) | ((u >> 13) & 0x3ff));
}
static void put(FILE *f, uint64_t v, int n) {
    int i;
    for (i = 0; i < n; i++) fputc((int)(v >> (8 * i)) & 0xff, f);
}
static void put_str(FILE *f, const char *s) { put(f, strlen(s), 8); fwrite(s, 1, strlen(s), f); }

/* the quantized bytes of a [NN, KK] weight of ggml type ty (8 Q8_0, 2 Q4_0, 12 Q4_K, 14 Q6_K) */
static unsigned char *make(int ty, size_t *bytes) {
    const int blk = ty == 8 || ty == 2 ? 32 : 256, bb = ty == 8 ? 34 : ty == 2 ? 18 : ty == 12 ? 144 : 210;
    const size_t nb = (size_t)NN * KK / blk;
    unsigned char *q = (unsigned char *)malloc(nb * bb), *b;
    size_t i;
    int j;
    *bytes = nb * bb;
    for (i = 0; i < nb; i++) {
        float x[32], amax = 0, d;
        uint16_t h;
        b = q + i * bb;
        if (ty == 8 || ty == 2) {
            for (j = 0; j < 32; j++) { x[j] = frnd() * 0.05f; amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax; }
            d = ty == 8 ? amax / 127 : amax / 8;
            h = f2h(d);
            b[0] = (unsigned char)h, b[1] = (unsigned char)(h >> 8);
            for (j = 0; j < 32; j++) {
                int v = (int)lrintf(x[j] / d);
                if (ty == 8) b[2 + j] = (unsigned char)(int8_t)v;
                else {
                    v = v + 8 > 15 ? 15 : v + 8 < 0 ? 0 : v + 8;
                    if (j < 16) b[2 + j] = (unsigned char)v;
                    else b[2 + j - 16] |= (unsigned char)(v << 4);
                }
            }
        } else {
            for (j = 0; j < bb; j++) b[j] = (unsigned char)rnd();
            h = f2h(0.001f + 0.001f * (frnd() + 1));
            if (ty == 12) { b[0] = (unsigned char)h, b[1] = (unsigned char)(h >> 8), b[2] = (unsigned char)h, b[3] = (unsigned char)(h >> 8); }
            else { b[208] = (unsigned char)h, b[209] = (unsigned char)(h >> 8); }
        }
    }
    return q;
}
static const struct { const char *name; int ty; } W[4] = {{"q8_0", 8}, {"q4_0", 2}, {"q4_k", 12}, {"q6_k", 14}};
static void write_file(const char *path) {
    FILE *f = fopen(path, "wb");
    unsigned char *q[4];
    size_t bytes[4], off = 0, pos;
    int i;
    for (i = 0; i < 4; i++) q[i] = make(W[i].ty, &bytes[i]);
    fwrite("GGUF", 1, 4, f);
    put(f, 3, 4), put(f, 4, 8), put(f, 1, 8);
    put_str(f, "general.architecture"), put(f, 8, 4), put_str(f, "bench");
    for (i = 0; i < 4; i++) {
        put_str(f, W[i].name), put(f, 2, 4), put(f, KK, 8), put(f, NN, 8), put(f, (uint64_t)W[i].ty, 4), put(f, off, 8);
        off += (bytes[i] + 31) / 32 * 32;
    }
    pos = (size_t)ftell(f);
    while (pos % 32) fputc(0, f), pos++;
    for (i = 0; i < 4; i++) {
        fwrite(q[i], 1, bytes[i], f);
        for (pos = bytes[i]; pos % 32; pos++) fputc(0, f);
        free(q[i]);
    }
    fclose(f);
}
/* 512 MiB written before a cold product: more than the last-level cache (300 MiB on the
   Xeons here), so the weight comes from memory as a model's layers do */
static char *evict_buf;
static void evict(void) {
    const size_t n = (size_t)512 << 20;
    if (!evict_buf) evict_buf = (char *)malloc(n);
    memset(evict_buf, evict_buf[1] + 1, n);
}
static int cold;
/* best time of reps products y = linear(x, w) (each: a pool, the capture, the product; with
   cold, the caches emptied of w first) */
static double time_linear(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, int reps) {
    double t[64], best;
    int r;
    for (r = 0; r < reps + 2 && r < 64; r++) {
        double a;
        genie_tensor *y;
        if (cold) evict();
        a = bench_now();
        genie_pool_push(ctx);
        y = genie_linear(ctx, x, w, NULL);
        if (genie_realize(ctx, 1, &y) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); exit(1); }
        genie_pool_pop(ctx);
        t[r] = bench_now() - a;
    }
    qsort(t + 2, (size_t)(r - 2), sizeof(double), bench_cmp_d); /* two warm-up runs left out */
    best = t[2];
    return best;
}
static double copy_bw(void) {
    const size_t n = (size_t)256 << 20;
    char *a = (char *)malloc(n), *b = (char *)malloc(n);
    double best = 1e9;
    int r;
    memset(a, 1, n), memset(b, 2, n);
    for (r = 0; r < 5; r++) {
        double t = bench_now();
        memcpy(b, a, n);
        t = bench_now() - t;
        if (t < best) best = t;
        a[r] = b[n - 1 - r];
    }
    free(a), free(b);
    return (double)n / best;
}

int main(int argc, char **argv) {
    const char *path = "build/bench_gguf.gguf";
    int reps = argc > 1 ? atoi(argv[1]) : 20, th, i;
    double bw;
    write_file(path);
    bw = copy_bw();
    printf("bench-gguf: y = x w^T, w [%d, %d] read from a GGUF file; copy bandwidth (memcpy 256 MiB) %.1f GB/s\n", NN, KK, bw / 1e9);
    printf("bound = weight bytes / copy bandwidth; 'of bound' = bound / time (1.00: at the memory bound)\n\n");
    printf("warm: the same weight again (in the 300 MiB last-level cache); cold: 512 MiB written before each product\n\n");
    printf("%-7s %-5s %3s %10s %10s %10s %9s\n", "weight", "cache", "thr", "MB", "ms", "bound ms", "of bound");
    for (th = 1; th <= 4; th++) {
        genie_ctx_desc d;
        genie_ctx *ctx;
        genie_gguf *g = NULL;
        const int64_t xs[2] = {1, KK}, xp[2] = {128, KK}, ws[2] = {NN, KK};
        genie_tensor *x, *xpf, *wf, *wb;
        double t, tf;
        const char *cw = th > 2 ? "cold" : "warm";
        cold = th > 2;
        memset(&d, 0, sizeof d);
        d.n_threads = 2 - th % 2;
        ctx = genie_ctx_create(&d);
        if (genie_gguf_open(ctx, path, &g) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); return 1; }
        x = genie_randn(ctx, GENIE_F32, 2, xs, 1);
        xpf = genie_randn(ctx, GENIE_F32, 2, xp, 2);
        wf = genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 2, ws, 3), 0.02);
        wb = genie_to_dtype(ctx, wf, GENIE_BF16);
        genie_realize(ctx, 1, &x), genie_realize(ctx, 1, &xpf), genie_realize(ctx, 1, &wf), genie_realize(ctx, 1, &wb);
        for (i = 0; i < 4; i++) {
            genie_tensor *w = genie_gguf_get(g, W[i].name);
            int64_t e, b;
            double mb;
            genie_dtype_block(genie_dtype_of(w), &e, &b);
            mb = (double)NN * KK / (double)e * (double)b;
            t = time_linear(ctx, x, w, reps);
            printf("%-7s %-5s %3d %10.1f %10.3f %10.3f %9.2f\n", W[i].name, cw, d.n_threads, mb / 1e6, t * 1e3, mb / bw * 1e3, mb / bw / t);
        }
        t = time_linear(ctx, x, wf, reps);
        printf("%-7s %-5s %3d %10.1f %10.3f %10.3f %9.2f\n", "f32", cw, d.n_threads, (double)NN * KK * 4 / 1e6, t * 1e3,
               (double)NN * KK * 4 / bw * 1e3, (double)NN * KK * 4 / bw / t);
        t = time_linear(ctx, genie_to_dtype(ctx, x, GENIE_BF16), wb, reps);
        printf("%-7s %-5s %3d %10.1f %10.3f %10.3f %9.2f\n", "bf16", cw, d.n_threads, (double)NN * KK * 2 / 1e6, t * 1e3,
               (double)NN * KK * 2 / bw * 1e3, (double)NN * KK * 2 / bw / t);
        if (!cold) {
            tf = time_linear(ctx, xpf, wf, reps / 4 + 1);
            for (i = 0; i < 4; i++) {
                t = time_linear(ctx, xpf, genie_gguf_get(g, W[i].name), reps / 4 + 1);
                printf("prefill [128, %d] x [%d, %d]^T, %d thread(s): %-4s %.2f ms (%.0f GFLOP/s), f32 GEMM %.2f ms (%.0f GFLOP/s): %s/f32 time %.2fx\n",
                       KK, NN, KK, d.n_threads, W[i].name, t * 1e3, 2.0 * 128 * NN * KK / t / 1e9, tf * 1e3, 2.0 * 128 * NN * KK / tf / 1e9,
                       W[i].name, t / tf);
            }
        }
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
    remove(path);
    free(evict_buf);
    return 0;
}
