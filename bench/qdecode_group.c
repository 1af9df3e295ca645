/* bench/qdecode_group.c - what the pool's dispatch and join cost the Q4_0 decode products of
   bench-gguf-llm's model (dim 1024, kv 256, ffn 2816), and what one job over the products that
   read the same x saves (genie__qjob_run): per layer q, k, v ([1024|256|256, 1024]) and gate, up
   ([2816|2816, 1024]) realized in one tape
     apart:  each product of its own copy of x (equal values, another node: one pool job each),
     joined: every product of one x (one pool job, x quantized once: what a decode step runs),
     cat:    one product over their concatenated rows (the same weight bytes: the separate
             weights are views of rows of the concatenated one),
   on 1 and 2 threads. Rounds alternate the cases; the median round is printed, per case and as
   differences:
     apart - joined (1 thread):  x quantized again per product, a job's start and end;
     apart - joined (2 threads): that plus the extra dispatches and joins (and uneven ends);
     joined - cat:               what the separate nodes still cost (capture, plan, the pieces).
   The single products' rows print t2 - t1 / 2: what a 2-thread product costs beyond half of
   its 1-thread time. On a machine whose other processes hold the second core the 2-thread
   rows measure the scheduler: read them beside the load printed.
     make bench-qdecode-group  (or cc -std=c99 -O2 -I. bench/qdecode_group.c -lm -pthread) */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define KK 1024
#define ROUNDS 15
#define REPS 200

static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 32); }

/* Q4_0 rows of KK: random nibbles, scale 2^-8 (f16 0x1c00) */
static unsigned char *q4_rows(int64_t n) {
    const size_t nb = (size_t)n * KK / 32;
    unsigned char *q = (unsigned char *)malloc(nb * 18);
    size_t i;
    int j;
    for (i = 0; q && i < nb; i++) {
        q[i * 18] = 0x00, q[i * 18 + 1] = 0x1c;
        for (j = 2; j < 18; j++) q[i * 18 + j] = (unsigned char)rnd();
    }
    return q;
}
static genie_tensor *wview(genie_ctx *ctx, const unsigned char *q, int64_t row0, int64_t n) {
    const int64_t s[2] = {n, KK};
    return genie_from_blocks(ctx, GENIE_Q4_0, 2, s, q + (size_t)row0 * KK / 32 * 18, NULL, NULL);
}
/* microseconds a realize of the products of xs[i] with ws[i], i < nw (one tape), mean of REPS */
static double run(genie_ctx *ctx, genie_tensor **xs, genie_tensor **ws, int nw) {
    double t = bench_now();
    int r, i;
    for (r = 0; r < REPS; r++) {
        genie_tensor *y[4];
        genie_pool_push(ctx);
        for (i = 0; i < nw; i++) y[i] = genie_linear(ctx, xs[i], ws[i], NULL);
        if (genie_realize(ctx, nw, y) != GENIE_OK) {
            printf("error: %s\n", genie_last_error(ctx));
            exit(1);
        }
        genie_pool_pop(ctx);
    }
    return (bench_now() - t) / REPS * 1e6;
}

enum { QKV_APART, QKV_JOINED, QKV_CAT, GU_APART, GU_JOINED, GU_CAT, Q1, KV1, UP1, NCASE };
static const char *names[NCASE] = {"q, k, v: 3 jobs (3 x)", "q, k, v: joined", "q|k|v: 1 product [1536]",
                                   "gate, up: 2 jobs (2 x)", "gate, up: joined", "gate|up: 1 product [5632]",
                                   "q alone [1024]", "k alone [256]", "up alone [2816]"};

int main(void) {
    unsigned char *qkv = q4_rows(1536), *gu = q4_rows(5632);
    static double t[2][NCASE][ROUNDS];
    double med[2][NCASE], la[3] = {0, 0, 0};
    int th, c, r;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3) la[0] = -1;
        fclose(f);
    }
    if (!qkv || !gu) return 1;
    for (r = 0; r < ROUNDS; r++)
        for (th = 0; th < 2; th++) {
            genie_ctx_desc d;
            genie_ctx *ctx;
            const int64_t xs[2] = {1, KK};
            genie_tensor *x[3], *xa[3], *w[NCASE][3];
            int i;
            memset(&d, 0, sizeof d);
            d.n_threads = th + 1;
            ctx = genie_ctx_create(&d);
            x[0] = genie_randn(ctx, GENIE_F32, 2, xs, 1);
            for (i = 1; i < 3; i++) x[i] = genie_clone(ctx, x[0]); /* equal values, another node */
            genie_realize(ctx, 3, x);
            xa[0] = xa[1] = xa[2] = x[0];
            w[QKV_JOINED][0] = wview(ctx, qkv, 0, 1024), w[QKV_JOINED][1] = wview(ctx, qkv, 1024, 256), w[QKV_JOINED][2] = wview(ctx, qkv, 1280, 256);
            w[QKV_CAT][0] = wview(ctx, qkv, 0, 1536);
            w[GU_JOINED][0] = wview(ctx, gu, 0, 2816), w[GU_JOINED][1] = wview(ctx, gu, 2816, 2816);
            memcpy(w[QKV_APART], w[QKV_JOINED], sizeof w[QKV_JOINED]), memcpy(w[GU_APART], w[GU_JOINED], sizeof w[GU_JOINED]);
            w[GU_CAT][0] = wview(ctx, gu, 0, 5632);
            w[Q1][0] = w[QKV_JOINED][0], w[KV1][0] = w[QKV_JOINED][1], w[UP1][0] = w[GU_JOINED][1];
            for (c = 0; c < NCASE; c++) {
                const int nw = c == QKV_JOINED || c == QKV_APART ? 3 : c == GU_JOINED || c == GU_APART ? 2 : 1;
                genie_tensor **xc = c == QKV_APART || c == GU_APART ? x : xa;
                run(ctx, xc, w[c], nw); /* warm: the pool started, the tape cached */
                t[th][c][r] = run(ctx, xc, w[c], nw);
            }
            genie_ctx_destroy(ctx);
        }
    for (th = 0; th < 2; th++)
        for (c = 0; c < NCASE; c++) med[th][c] = bench_median(t[th][c], ROUNDS);
    printf("bench-qdecode-group: Q4_0 decode products x [1, %d] w^T, median of %d alternated rounds (us a realize); load %.2f %.2f %.2f\n",
           KK, ROUNDS, la[0], la[1], la[2]);
    printf("%-28s %10s %10s %10s\n", "case", "1 thread", "2 threads", "t2 - t1/2");
    for (c = 0; c < NCASE; c++) printf("%-28s %10.2f %10.2f %10.2f\n", names[c], med[0][c], med[1][c], med[1][c] - med[0][c] / 2);
    printf("%-28s %10.2f %10.2f\n", "q,k,v: apart - joined", med[0][QKV_APART] - med[0][QKV_JOINED], med[1][QKV_APART] - med[1][QKV_JOINED]);
    printf("%-28s %10.2f %10.2f\n", "q,k,v: joined - cat", med[0][QKV_JOINED] - med[0][QKV_CAT], med[1][QKV_JOINED] - med[1][QKV_CAT]);
    printf("%-28s %10.2f %10.2f\n", "gate,up: apart - joined", med[0][GU_APART] - med[0][GU_JOINED], med[1][GU_APART] - med[1][GU_JOINED]);
    printf("%-28s %10.2f %10.2f\n", "gate,up: joined - cat", med[0][GU_JOINED] - med[0][GU_CAT], med[1][GU_JOINED] - med[1][GU_CAT]);
    free(qkv), free(gu);
    return 0;
}
