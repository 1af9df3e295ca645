/* copy_bw.h - the copy bandwidth a decode bound is measured against, shared by the LLM benches:
   STREAM's copy (bytes read + written per second) of memcpy over 512 MiB on nth threads (at most
   8), best of 4. Needs _POSIX_C_SOURCE >= 199309L (clock_gettime) and -pthread. */
#ifndef BENCH_COPY_BW_H
#define BENCH_COPY_BW_H
#include <pthread.h>
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
#endif
