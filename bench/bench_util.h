/* bench/bench_util.h - what every bench times with: the monotonic clock, the median and the
   least of an array of times, and the key=value arguments that carry a peer's numbers (an
   ATen or PyTorch peer's output passed on the command line). C99 and C++. clock_gettime is
   POSIX: a C includer defines _POSIX_C_SOURCE >= 199309L before any header or builds with
   -pthread (as the Makefile's bench rules do; glibc then declares it under -std=c99). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* seconds on CLOCK_MONOTONIC (an arbitrary origin: only differences mean anything) */
static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* qsort's order of doubles, ascending */
static inline int bench_cmp_d(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* t[0..n) sorted ascending in place, n >= 1; returns t[n / 2]: the median, the upper of the
   middle two when n is even */
static inline double bench_median(double *t, int n) {
    qsort(t, (size_t)n, sizeof t[0], bench_cmp_d);
    return t[n / 2];
}
/* t[0..n) sorted ascending in place, n >= 1; returns the median, the mean of the middle two
   when n is even */
static inline double bench_median_mean(double *t, int n) {
    qsort(t, (size_t)n, sizeof t[0], bench_cmp_d);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}
/* the least of t[0..n), n >= 1 (t left as it is) */
static inline double bench_min(const double *t, int n) {
    double m = t[0];
    int i;
    for (i = 1; i < n; i++)
        if (t[i] < m) m = t[i];
    return m;
}
/* the text after "key=" in the first of argv[1..argc) that starts with it; NULL if none */
static inline const char *bench_arg(int argc, char **argv, const char *key) {
    const size_t k = strlen(key);
    int i;
    for (i = 1; i < argc; i++)
        if (strncmp(argv[i], key, k) == 0 && argv[i][k] == '=') return argv[i] + k + 1;
    return NULL;
}
/* the seconds an ATen peer printed as `name@threads=seconds` among the arguments; 0 if none */
static inline double bench_peer_time(int argc, char **argv, const char *name, int threads) {
    char key[96];
    const char *v;
    snprintf(key, sizeof key, "%s@%d", name, threads);
    v = bench_arg(argc, argv, key);
    return v ? atof(v) : 0;
}
#endif
