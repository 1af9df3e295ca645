/* vmath_all.c - every f32 input (all 2^32 bit patterns, or every stride-th) through the
   transcendental array kernels of each SIMD path this machine runs (avx2, avx512), against
   the reference kernels (GENIE_CPU_REFERENCE), through the public API in blocks of 2^22.
   Prints, per op and path, the largest ulp distance from the reference and how many inputs
   sit at each distance, and fails when an op exceeds its stated bound (vmath_bounds.h; gelu
   and gelu_tanh below x = -5 may instead be within 1e-14 of the reference, which cancels
   there). For gelu and gelu_tanh it also prints the distance from an oracle without the
   reference's cancellation (0.5 x erfc(-x/sqrt2), x / (1 + exp(-2u)) in double), held to
   the same bound everywhere. A NaN must meet a NaN.
   Run: make test-vmath-all (several minutes per path), or build/vmath_all [stride [name...]]
   (names: only the ops whose names begin with one of them). */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include "vmath_bounds.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef genie_tensor *(*unary_fn)(genie_ctx *, genie_tensor *);
typedef struct { const char *name; unary_fn fn; int ulp; } op_t;
#define OP_ROW(name, fn, ulp) {#name, fn, ulp},
static const op_t ops[] = {VM_TRANSCENDENTALS(OP_ROW)};
#undef OP_ROW
#define NOPS ((int)(sizeof ops / sizeof ops[0]))
#define BLOCK ((int64_t)1 << 22)

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static int64_t ulp_dist(float a, float b) { /* on the ordered integer line, +0 and -0 one point */
    int64_t ia = (int32_t)bits(a), ib = (int32_t)bits(b), d;
    if (ia < 0) ia = (int64_t)INT32_MIN - ia;
    if (ib < 0) ib = (int64_t)INT32_MIN - ib;
    d = ia - ib;
    return d < 0 ? -d : d;
}
/* gelu / gelu_tanh in double without the reference's cancellation for x < 0 */
static double oracle(int gelu_tanh, double x) {
    double w, e;
    if (!gelu_tanh) return x < 0 ? 0.5 * x * erfc(-x * 0.70710678118654752440) : 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    if (x != x) return x;
    w = 2.0 * sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x);
    if (w >= 0) return x / (1.0 + exp(-w));
    if (isinf(x)) return NAN; /* -inf / (1 + inf), as the reference */
    e = exp(w);
    return x * e / (1.0 + e);
}
/* distance of got from want; 1 << 40 for a NaN against a number or the reverse */
static int64_t dist(float got, float want) {
    if (got != got || want != want) return (got != got) == (want != want) ? 0 : (int64_t)1 << 40;
    return ulp_dist(got, want);
}

int main(int argc, char **argv) {
    static const genie_cpu paths[] = {GENIE_CPU_AVX2, GENIE_CPU_AVX512};
    uint64_t stride = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    float *x = (float *)malloc((size_t)BLOCK * 4), *y = (float *)malloc((size_t)BLOCK * 4), *r = (float *)malloc((size_t)BLOCK * 4);
    genie_ctx_desc rd;
    genie_ctx *ref;
    int p, k, failed = 0, ran = 0;
    if (stride < 1) stride = 1;
    memset(&rd, 0, sizeof rd);
    rd.cpu = GENIE_CPU_REFERENCE;
    ref = genie_ctx_create(&rd);
    if (!x || !y || !r || !ref) { printf("FAIL vmath_all: setup\n"); return 1; }
    printf("vmath_all: every %llu-th f32 input, array kernels against the reference\n", (unsigned long long)stride);
    for (p = 0; p < 2; p++) {
        genie_ctx_desc fd;
        genie_ctx *fast;
        if (!genie_cpu_supported(paths[p])) { printf("  skip: %s path: this CPU does not run it\n", genie_cpu_name(paths[p])); continue; }
        memset(&fd, 0, sizeof fd);
        fd.cpu = paths[p];
        fast = genie_ctx_create(&fd);
        for (k = 0; k < NOPS; k++) {
            int64_t hist[6] = {0, 0, 0, 0, 0, 0}, worst = 0, worst_o = 0, bad = 0, n;
            int a, picked = argc <= 2;
            int is_gelu = strncmp(ops[k].name, "gelu", 4) == 0, is_tanh = strcmp(ops[k].name, "gelu_tanh") == 0;
            float wx = 0, wxo = 0;
            uint64_t u = 0, i;
            for (a = 2; a < argc; a++) picked |= strncmp(ops[k].name, argv[a], strlen(argv[a])) == 0;
            if (!picked) continue;
            while (u < ((uint64_t)1 << 32)) {
                genie_tensor *tf, *tr;
                for (n = 0; n < BLOCK && u < ((uint64_t)1 << 32); u += stride) x[n++] = from_bits((uint32_t)u);
                genie_pool_push(fast);
                genie_pool_push(ref);
                tf = ops[k].fn(fast, genie_from_data(fast, GENIE_F32, 1, &n, x));
                tr = ops[k].fn(ref, genie_from_data(ref, GENIE_F32, 1, &n, x));
                if (genie_read(fast, tf, GENIE_F32, y, (size_t)n * 4) != GENIE_OK || genie_read(ref, tr, GENIE_F32, r, (size_t)n * 4) != GENIE_OK) {
                    printf("FAIL vmath_all: %s %s: %s %s\n", genie_cpu_name(paths[p]), ops[k].name, genie_last_error(fast), genie_last_error(ref));
                    return 1;
                }
                genie_pool_pop(fast);
                genie_pool_pop(ref);
                for (i = 0; i < (uint64_t)n; i++) {
                    int64_t d = dist(y[i], r[i]);
                    if (d > ops[k].ulp && is_gelu && x[i] < -5.0f && fabs((double)y[i] - (double)r[i]) <= 1e-14) d = 0;
                    hist[d < 5 ? d : 5]++;
                    if (d > worst) { worst = d; wx = x[i]; }
                    if (d > ops[k].ulp && bad++ < 3)
                        printf("  %s %s: x = %.9g (%a): got %.9g (%a), reference %.9g (%a)\n", genie_cpu_name(paths[p]), ops[k].name,
                               x[i], x[i], y[i], y[i], r[i], r[i]);
                    if (is_gelu) {
                        int64_t o = dist(y[i], (float)oracle(is_tanh, x[i]));
                        if (o > worst_o) { worst_o = o; wxo = x[i]; }
                        if (o > ops[k].ulp && bad++ < 3)
                            printf("  %s %s: x = %.9g (%a): got %.9g, oracle %.9g\n", genie_cpu_name(paths[p]), ops[k].name, x[i], x[i], y[i],
                                   oracle(is_tanh, x[i]));
                    }
                }
            }
            printf("  %-7s %-9s max %lld ulp (bound %d) at %a; at 0/1/2/3/4/more ulp: %lld %lld %lld %lld %lld %lld", genie_cpu_name(paths[p]),
                   ops[k].name, (long long)worst, ops[k].ulp, wx, (long long)hist[0], (long long)hist[1], (long long)hist[2],
                   (long long)hist[3], (long long)hist[4], (long long)hist[5]);
            if (is_gelu) printf("; from the oracle: max %lld at %a", (long long)worst_o, wxo);
            printf("%s\n", bad ? "  FAIL" : "");
            fflush(stdout);
            failed += bad != 0;
            ran++;
        }
        genie_ctx_destroy(fast);
    }
    genie_ctx_destroy(ref);
    free(x); free(y); free(r);
    printf("vmath_all: %d of %d op/path sweeps within their bounds\n", ran - failed, ran);
    return failed != 0;
}
