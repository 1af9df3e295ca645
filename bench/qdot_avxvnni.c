/* qdot_avxvnni.c - the avx2 path's Q8_0 and Q4_0 decode dots alone, in the int8 dot's two forms
   on one CPU with AVX-VNNI: VEX vpdpbusd (genie__qdot4_avxvnni) beside vpmaddubsw + vpmaddwd
   (genie__qdot4_avx2), 4 weight rows a call as the decode product runs them, one thread, x one
   quantized row. Two weights per type: [1024, 1024] (in L2, the same weight again and again) and
   from memory (a ring of 4096 x 4096 weights over 640 MiB, more than the 300 MiB last-level
   cache, each product on the next: its bytes come from memory, as a model's layers do). The two
   forms run alternately, rounds apart; the load average is printed before and after. Prints a
   skip line where the CPU has no AVX-VNNI (or no AVX2).
     make bench-qdot-avxvnni   (or cc -std=c99 -O2 -I. bench/qdot_avxvnni.c -lm -pthread && ./a.out [rounds]) */
#define _POSIX_C_SOURCE 200809L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 32); }
static void load(const char *when) {
    char b[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) { if (!fgets(b, sizeof b, f)) b[0] = 0; fclose(f); }
    printf("load average %s: %s", when, b);
}

/* n weight bytes of blocks of type dt (Q8_0 34, Q4_0 18 bytes), random quants, scale 2^-10 */
static unsigned char *blocks(int dt, size_t n) {
    const size_t bb = dt == GENIE_Q8_0 ? 34 : 18;
    unsigned char *w = (unsigned char *)malloc(n);
    size_t i;
    if (!w) return NULL;
    for (i = 0; i < n; i++) w[i] = (unsigned char)(i % bb < 2 ? (i % bb ? 0x14 : 0) : rnd() >> 24);
    return w;
}
typedef void (*dot4_fn)(int dt, const unsigned char *w, ptrdiff_t rowb, int64_t nb, const int8_t *q, const float *d, const int32_t *s,
                        float *y);
/* y = the N dots of the weight at w (N rows of K) with x (q, d, s), 4 rows a call; the seconds */
static double product(dot4_fn f, int dt, const unsigned char *w, int64_t N, int64_t K, const int8_t *q, const float *d, const int32_t *s,
                      float *y) {
    const ptrdiff_t rowb = (ptrdiff_t)(K / 32 * (dt == GENIE_Q8_0 ? 34 : 18));
    const double t = bench_now();
    int64_t c;
    for (c = 0; c < N; c += 4) f(dt, w + c * rowb, rowb, K / 32, q, d, s, y + c);
    return bench_now() - t;
}

int main(int argc, char **argv) {
    static const int dts[2] = {GENIE_Q8_0, GENIE_Q4_0};
    static const char *names[2] = {"Q8_0", "Q4_0"};
    const int rounds = argc > 1 ? atoi(argv[1]) : 9;
    const int64_t KM = 4096, KL = 1024;
    const size_t ring = (size_t)640 << 20;
    float *x = (float *)malloc((size_t)KM * 4), *d = (float *)malloc((size_t)KM / 32 * 4), *y = (float *)malloc((size_t)KM * 4);
    int8_t *q = (int8_t *)malloc((size_t)KM);
    int32_t *s = (int32_t *)malloc((size_t)KM / 32 * 4);
    int t, m, r, f;
    if (!genie__cpu_runs(GENIE_CPU_AVX2) || !genie__avxvnni_runs()) {
        printf("skip: bench-qdot-avxvnni (this CPU has no %s)\n", genie__cpu_runs(GENIE_CPU_AVX2) ? "AVX-VNNI" : "AVX2");
        free(x), free(d), free(y), free(q), free(s);
        return 0;
    }
    for (t = 0; t < KM; t++) x[t] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
    genie__q8_row(x, KM, 32, q, d, s);
    printf("the avx2 path's 4-row decode dot, 1 thread: VEX vpdpbusd (AVX-VNNI) beside vpmaddubsw, alternate rounds, "
           "median of %d (min-max)\n", rounds);
    load("before");
    printf("%-5s %-34s %22s %22s %8s\n", "type", "weight", "vpdpbusd us (GB/s)", "vpmaddubsw us (GB/s)", "ratio");
    for (t = 0; t < 2; t++)
        for (m = 0; m < 2; m++) {
            const int dt = dts[t];
            const int64_t N = m ? KM : KL, K = m ? KM : KL;
            const size_t wb = (size_t)N * (size_t)(K / 32) * (dt == GENIE_Q8_0 ? 34 : 18), nw = m ? ring / wb : 1;
            unsigned char *w = blocks(dt, wb * nw);
            double tm[2][64], med[2];
            size_t next = 0;
            if (!w) { printf("skip: %s weights (out of memory)\n", names[t]); continue; }
            for (f = 0; f < 2; f++) product(f ? genie__qdot4_avx2 : genie__qdot4_avxvnni, dt, w, N, K, q, d, s, y); /* warm-up */
            for (r = 0; r < rounds && r < 64; r++)
                for (f = 0; f < 2; f++) {
                    /* in L2: the best of 200 products; from memory: the next weight of the ring, one product */
                    int i, reps = m ? 1 : 200;
                    double best = 1e9;
                    for (i = 0; i < reps; i++) {
                        const double e = product(f ? genie__qdot4_avx2 : genie__qdot4_avxvnni, dt, w + wb * (next++ % nw), N, K, q, d, s, y);
                        best = e < best ? e : best;
                    }
                    tm[f][r] = best;
                }
            for (f = 0; f < 2; f++) med[f] = bench_median(tm[f], r); /* tm[f] sorted: its least and most below */
            printf("%-5s %-34s %9.1f (%5.1f) %4.0f-%-4.0f %9.1f (%5.1f) %4.0f-%-4.0f %7.2fx\n", names[t],
                   m ? "[4096,4096] from memory (ring)" : "[1024,1024] in L2", 1e6 * med[0], wb / med[0] / 1e9, 1e6 * tm[0][0],
                   1e6 * tm[0][r - 1], 1e6 * med[1], wb / med[1] / 1e9, 1e6 * tm[1][0], 1e6 * tm[1][r - 1], med[1] / med[0]);
            free(w);
        }
    printf("ratio: vpmaddubsw's time over vpdpbusd's (above 1: VEX vpdpbusd faster)\n");
    load("after");
    free(x), free(d), free(y), free(q), free(s);
    return 0;
}
