/* copy_bw.h - the bandwidths a decode bound is measured against, shared by the LLM benches:
   STREAM's copy (bytes read + written per second) of memcpy over 512 MiB on nth threads (at most
   8), best of 4; and read_bw, the read-only rate. Needs _POSIX_C_SOURCE >= 199309L
   (clock_gettime) and -pthread. */
#ifndef BENCH_COPY_BW_H
#define BENCH_COPY_BW_H
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct cpy { char *d; const char *s; size_t n; } cpy;
static void *cpy_run(void *p) { cpy *c = (cpy *)p; memcpy(c->d, c->s, c->n); return NULL; }
static double copy_bw(int nth) {
    size_t n = (size_t)512 << 20, part = n / (size_t)nth;
    char *a = (char *)malloc(n), *b = (char *)malloc(n);
    double best = 0;
    int r, i;
    if (!a || !b || nth < 1 || nth > 8) { free(a), free(b); return 0; }
    memset(a, 1, n);
    memset(b, 2, n);
    for (r = 0; r < 4; r++) {
        pthread_t th[8];
        cpy cs[8];
        struct timespec t0, t1;
        double t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (i = 0; i < nth; i++) {
            cs[i].d = b + part * (size_t)i, cs[i].s = a + part * (size_t)i, cs[i].n = part;
            pthread_create(&th[i], NULL, cpy_run, &cs[i]);
        }
        for (i = 0; i < nth; i++) pthread_join(th[i], NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        t = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (2.0 * (double)n / t > best) best = 2.0 * (double)n / t;
    }
    free(a);
    free(b);
    return best;
}
/* The read-only rate of nth threads summing 512 MiB (bytes read per second): the most a
   step that only streams its weights can reach. AVX-512 loads, a line each, with a software
   prefetch 4 KiB ahead (the fastest read loop found here; scalar C loops reach half of it). */
typedef struct rdr { const char *s; size_t n; uint64_t x; } rdr;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx512f"))) static void *rd_run512(void *p) {
    rdr *r = (rdr *)p;
    __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
    size_t i;
    for (i = 0; i + 256 <= r->n; i += 256) {
        _mm_prefetch(r->s + i + 4096, _MM_HINT_T0);
        _mm_prefetch(r->s + i + 4160, _MM_HINT_T0);
        _mm_prefetch(r->s + i + 4224, _MM_HINT_T0);
        _mm_prefetch(r->s + i + 4288, _MM_HINT_T0);
        a = _mm512_add_epi64(a, _mm512_loadu_si512(r->s + i));
        b = _mm512_add_epi64(b, _mm512_loadu_si512(r->s + i + 64));
        c = _mm512_add_epi64(c, _mm512_loadu_si512(r->s + i + 128));
        d = _mm512_add_epi64(d, _mm512_loadu_si512(r->s + i + 192));
    }
    r->x = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d)));
    return NULL;
}
#endif
static void *rd_run(void *p) {
    rdr *r = (rdr *)p;
    uint64_t a[8] = {0}, w;
    size_t i;
    int j;
    for (i = 0; i + 64 <= r->n; i += 64)
        for (j = 0; j < 8; j++) memcpy(&w, r->s + i + 8 * j, 8), a[j] += w;
    for (j = 0; j < 8; j++) r->x += a[j];
    return NULL;
}
static inline double read_bw(int nth) { /* inline: a bench may not call it */
    size_t n = (size_t)512 << 20, part = n / (size_t)nth, i;
    char *a = (char *)malloc(n);
    void *(*fn)(void *) = rd_run;
    double best = 0;
    int r, k;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx512f")) fn = rd_run512;
#endif
    for (i = 0; i < n; i++) a[i] = (char)(i * 131 + (i >> 12)); /* not zero: zero pages read from no memory */
    for (r = 0; r < 4; r++) {
        pthread_t th[8];
        rdr rs[8];
        struct timespec t0, t1;
        double t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (k = 0; k < nth; k++) {
            rs[k].s = a + part * (size_t)k, rs[k].n = part, rs[k].x = 0;
            pthread_create(&th[k], NULL, fn, &rs[k]);
        }
        for (k = 0; k < nth; k++) pthread_join(th[k], NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        t = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if ((double)n / t > best) best = (double)n / t;
    }
    free(a);
    return best;
}
#endif
