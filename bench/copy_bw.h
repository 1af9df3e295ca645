/* copy_bw.h - the bandwidths a decode bound is measured against, shared by the LLM benches:
   STREAM's copy (bytes read + written per second) of memcpy over 512 MiB on nth threads (at most
   8), best of 4; and read_bw, the read-only rate. bw_copy_on / bw_read_on measure the same on
   buffers kept between calls (bw_bufs_new), so that a bench can measure them beside each of its
   rounds. Needs _POSIX_C_SOURCE >= 199309L (clock_gettime) and -pthread. */
#ifndef BENCH_COPY_BW_H
#define BENCH_COPY_BW_H
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

/* One thread's part of a pass: d and s its slices of n bytes (d NULL when it only reads), x what
   a read folds its bytes into (so the loads are not dropped). */
typedef struct bw_part { char *d; const char *s; size_t n; uint64_t x; } bw_part;
/* The best of 4 passes of fn over n bytes split among nth threads (1..8): moved bytes (n per
   buffer a pass touches) per second, 0 when nth is out of range. */
static double bw_best(void *(*fn)(void *), char *d, const char *s, size_t n, int nth) {
    size_t part = n / (size_t)nth;
    double best = 0, moved = (double)n * (d ? 2.0 : 1.0);
    int r, i;
    if (nth < 1 || nth > 8) return 0;
    for (r = 0; r < 4; r++) {
        pthread_t th[8];
        bw_part ps[8];
        double t = bench_now();
        for (i = 0; i < nth; i++) {
            ps[i].d = d ? d + part * (size_t)i : NULL, ps[i].s = s + part * (size_t)i, ps[i].n = part, ps[i].x = 0;
            pthread_create(&th[i], NULL, fn, &ps[i]);
        }
        for (i = 0; i < nth; i++) pthread_join(th[i], NULL);
        t = bench_now() - t;
        if (moved / t > best) best = moved / t;
    }
    return best;
}
static void *cpy_run(void *p) { bw_part *c = (bw_part *)p; memcpy(c->d, c->s, c->n); return NULL; }
/* Two 512 MiB buffers, written once, for measuring the bandwidths again and again (a bench's
   rounds, each beside its own measure): a holds bytes that are not zero (zero pages are read from
   no memory), b is touched. Both NULL when memory is short. */
#define BW_BYTES ((size_t)512 << 20)
typedef struct bw_bufs { char *a, *b; } bw_bufs;
static inline bw_bufs bw_bufs_new(void) { /* inline: a bench may not call it */
    bw_bufs m;
    size_t i;
    m.a = (char *)malloc(BW_BYTES), m.b = (char *)malloc(BW_BYTES);
    if (!m.a || !m.b) { free(m.a), free(m.b), m.a = m.b = NULL; return m; }
    for (i = 0; i < BW_BYTES; i++) m.a[i] = (char)(i * 131 + (i >> 12));
    memset(m.b, 2, BW_BYTES);
    return m;
}
static inline void bw_bufs_free(bw_bufs *m) { free(m->a), free(m->b), m->a = m->b = NULL; }
static inline double bw_copy_on(const bw_bufs *m, int nth) { return m->a ? bw_best(cpy_run, m->b, m->a, BW_BYTES, nth) : 0; }
static inline double copy_bw(int nth) { /* inline: a bench may not call it */
    bw_bufs m = bw_bufs_new();
    double best = bw_copy_on(&m, nth);
    bw_bufs_free(&m);
    return best;
}
/* The read-only rate of nth threads summing 512 MiB (bytes read per second): the most a
   step that only streams its weights can reach. AVX-512 loads, a line each, with a software
   prefetch 4 KiB ahead (the fastest read loop found here; scalar C loops reach half of it). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx512f"))) static void *rd_run512(void *p) {
    bw_part *r = (bw_part *)p;
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
/* The same on AVX2 (a CPU without AVX-512, e.g. Zen 3): 256-bit loads, no software prefetch (on
   one Zen 3 core 19 GB/s without, 16-17 with it 4 KiB ahead; the scalar loop below 14). */
__attribute__((target("avx2"))) static void *rd_run256(void *p) {
    bw_part *r = (bw_part *)p;
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    uint64_t x[4];
    size_t i;
    for (i = 0; i + 128 <= r->n; i += 128) {
        a = _mm256_add_epi64(a, _mm256_loadu_si256((const __m256i *)(r->s + i)));
        b = _mm256_add_epi64(b, _mm256_loadu_si256((const __m256i *)(r->s + i + 32)));
        c = _mm256_add_epi64(c, _mm256_loadu_si256((const __m256i *)(r->s + i + 64)));
        d = _mm256_add_epi64(d, _mm256_loadu_si256((const __m256i *)(r->s + i + 96)));
    }
    _mm256_storeu_si256((__m256i *)x, _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
    r->x = x[0] + x[1] + x[2] + x[3];
    return NULL;
}
#endif
static void *rd_run(void *p) {
    bw_part *r = (bw_part *)p;
    uint64_t a[8] = {0}, w;
    size_t i;
    int j;
    for (i = 0; i + 64 <= r->n; i += 64)
        for (j = 0; j < 8; j++) memcpy(&w, r->s + i + 8 * j, 8), a[j] += w;
    for (j = 0; j < 8; j++) r->x += a[j];
    return NULL;
}
static inline double bw_read_on(const bw_bufs *m, int nth) { /* inline: a bench may not call it */
    void *(*fn)(void *) = rd_run;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx512f")) fn = rd_run512;
    else if (__builtin_cpu_supports("avx2")) fn = rd_run256;
#endif
    return m->a ? bw_best(fn, NULL, m->a, BW_BYTES, nth) : 0;
}
static inline double read_bw(int nth) {
    bw_bufs m = bw_bufs_new();
    double best = bw_read_on(&m, nth);
    bw_bufs_free(&m);
    return best;
}
#endif
