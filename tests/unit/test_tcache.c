/* test_tcache.c - the tape cache (genie.h, >>tape): a realize of a structure
   planned before takes the kept plan (a hit) and must compute exactly what a
   fresh plan computes, with this step's scalars and data; anything that can
   change the plan is a miss: a stride, a dtype, a constant where a lazy input
   was, an intermediate now held by a handle, the same constant read twice
   where two were read. With every hash forced equal (GENIE_TAPE_HASH_BITS=0),
   the full key comparison alone must keep structures apart. A 10,000-step
   loop of hits holds no more memory than its first steps. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "../../genie.h"
#include "testctx.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tcache_tests(int *passed, int *failed);

static int *P, *F;
/* set (v non-NULL) or remove an environment variable */
static void set_env(const char *k, const char *v) {
#ifdef _WIN32
    _putenv_s(k, v ? v : "");
#else
    if (v) setenv(k, v, 1);
    else unsetenv(k);
#endif
}
#define TCHECK(cond, ...) do { if (cond) (*P)++; else { (*F)++; printf("FAIL test_tcache: " __VA_ARGS__); printf("\n"); } } while (0)

static genie_tensor *inp(genie_ctx *c, genie_dtype dt, int64_t r, int64_t k, uint64_t seed, int lazy) {
    int64_t s[2];
    genie_tensor *t;
    s[0] = r, s[1] = k;
    t = genie_randn(c, dt, 2, s, seed);
    if (!lazy) genie_realize(c, 1, &t);
    return t;
}
/* max |a - b| over two realized [n] reads (as double) */
static double diff(genie_ctx *a, genie_tensor *ta, genie_ctx *b, genie_tensor *tb, int64_t n) {
    double *va = (double *)malloc((size_t)n * 8), *vb = (double *)malloc((size_t)n * 8), m = 0;
    int64_t i;
    if (genie_read(a, ta, GENIE_F64, va, (size_t)n * 8) != GENIE_OK || genie_read(b, tb, GENIE_F64, vb, (size_t)n * 8) != GENIE_OK)
        m = INFINITY;
    for (i = 0; i < n && m != INFINITY; i++) {
        double d = fabs(va[i] - vb[i]);
        if (d != d) d = INFINITY;
        if (d > m) m = d;
    }
    free(va);
    free(vb);
    return m;
}

/* A decode-like step: an elementwise chain with this step's scalar, a product
   with bias, GELU and a residual (a product epilogue), a softmax. */
static genie_tensor *step(genie_ctx *c, genie_tensor *x, genie_tensor *w, genie_tensor *b, double s) {
    genie_tensor *t = genie_mul_scalar(c, genie_add_scalar(c, x, s), 0.5 + s);
    t = genie_tanh(c, genie_add(c, t, x));
    t = genie_add(c, genie_gelu(c, genie_linear(c, t, w, b)), x);
    return genie_softmax(c, genie_mul_scalar(c, t, s), -1);
}
static void test_steps(genie_cpu cpu, int threads) {
    genie_ctx *c = test_ctx(cpu, threads), *r = test_ctx(GENIE_CPU_REFERENCE, 1);
    genie_tensor *x = inp(c, GENIE_F32, 7, 33, 1, 0), *w = inp(c, GENIE_F32, 33, 33, 2, 0), *b = inp(c, GENIE_F32, 1, 33, 3, 0);
    genie_tensor *xr = inp(r, GENIE_F32, 7, 33, 1, 0), *wr = inp(r, GENIE_F32, 33, 33, 2, 0), *br = inp(r, GENIE_F32, 1, 33, 3, 0);
    genie_stats s0, s1;
    int i;
    b = genie_view(c, b, 1, &(int64_t){33});
    br = genie_view(r, br, 1, &(int64_t){33});
    s0 = genie_get_stats(c);
    for (i = 0; i < 6; i++) {
        double sc = 0.25 * (i + 1);
        genie_tensor *y, *yr;
        genie_pool_push(c);
        genie_pool_push(r);
        y = step(c, x, w, b, sc);
        yr = step(r, xr, wr, br, sc);
        TCHECK(diff(c, y, r, yr, 7 * 33) < 1e-5, "step %d (cpu %s, %d threads): values differ from the reference", i,
               genie_cpu_name(cpu), threads);
        genie_pool_pop(c);
        genie_pool_pop(r);
    }
    s1 = genie_get_stats(c);
    TCHECK(s1.tape_cache_misses - s0.tape_cache_misses == 1 && s1.tape_cache_hits - s0.tape_cache_hits == 5,
           "6 equal steps: 1 miss and 5 hits expected, got %llu misses, %llu hits",
           (unsigned long long)(s1.tape_cache_misses - s0.tape_cache_misses),
           (unsigned long long)(s1.tape_cache_hits - s0.tape_cache_hits));
    if (cpu != GENIE_CPU_REFERENCE)
        TCHECK(s1.fused_groups - s0.fused_groups >= 12, "hits still run fused groups (%llu groups in 6 steps)",
               (unsigned long long)(s1.fused_groups - s0.fused_groups));
    genie_ctx_destroy(c);
    genie_ctx_destroy(r);
}

/* Structures that differ only where the plan can differ: each must miss, and
   compute what the reference computes. The key writes a view once: V_TREAD reads
   the sum through its transpose where the others read it through its producer's own
   view (a flag bit, no view words); V_INPLACE and V_INPLACE_T write it in place
   through its own view and through its transpose (the output view is the first
   input's: a flag bit), so each pair differs only in the views the bits stand for.
   V_DIM0 and V_DIM1 take a softmax over dim 0 and over dim 1 of the same [6, 6]: they
   differ only in an integer argument, which the key must hold. */
enum { V_BASE, V_STRIDE, V_DTYPE, V_CONST, V_HELD, V_SAME_CONST, V_SHAPE, V_TREAD, V_INPLACE, V_INPLACE_T, V_DIM0, V_DIM1, V_N };
static genie_tensor *variant(genie_ctx *c, int v, genie_tensor **held, genie_stats *before) {
    genie_tensor *x = inp(c, v == V_DTYPE ? GENIE_F64 : GENIE_F32, 6, v == V_SHAPE ? 10 : 6, 5, 0);
    genie_tensor *y = inp(c, v == V_DTYPE ? GENIE_F64 : GENIE_F32, 6, v == V_SHAPE ? 10 : 6, 6, v != V_CONST);
    genie_tensor *t, *u;
    if (v == V_STRIDE) x = genie_t(c, x);
    if (v == V_SAME_CONST) y = x;
    genie_pool_push(c); /* the intermediates die at the pop unless held */
    t = genie_add(c, x, y);
    if (v == V_INPLACE) genie_add_(c, t, x);
    if (v == V_INPLACE_T) genie_add_(c, genie_t(c, t), x);
    u = genie_mul_scalar(c, v == V_TREAD ? genie_t(c, t) : t, 3.0);
    if (v == V_DIM0 || v == V_DIM1) u = genie_softmax(c, u, v == V_DIM0 ? 0 : 1);
    *held = NULL;
    if (v == V_HELD) { *held = u; genie_retain(u); }
    t = genie_sigmoid(c, genie_sub(c, u, x));
    genie_retain(t);
    genie_pool_pop(c);
    *before = genie_get_stats(c);
    genie_realize(c, 1, &t); /* the chain's tape alone (the constants were realized before) */
    return t;
}
static void test_misses(const char *hashbits) {
    genie_ctx *c, *r;
    int v, round;
    genie_stats s0, s1, s2;
    if (hashbits) set_env("GENIE_TAPE_HASH_BITS", hashbits);
    c = test_ctx(GENIE_CPU_AUTO, 1);
    if (hashbits) set_env("GENIE_TAPE_HASH_BITS", NULL);
    r = test_ctx(GENIE_CPU_REFERENCE, 1);
    for (round = 0; round < 2; round++)
        for (v = 0; v < V_N; v++) {
            genie_tensor *y, *yr, *h, *hr;
            int64_t n = v == V_SHAPE ? 60 : 36;
            genie_pool_push(c);
            genie_pool_push(r);
            y = variant(c, v, &h, &s0);
            s1 = genie_get_stats(c);
            yr = variant(r, v, &hr, &s2);
            TCHECK(diff(c, y, r, yr, n) < 1e-6, "variant %d round %d (hash bits %s): values differ", v, round,
                   hashbits ? hashbits : "64");
            genie_release(y);
            genie_release(yr);
            if (h) {
                TCHECK(diff(c, h, r, hr, n) < 1e-6, "variant %d round %d: the held intermediate differs", v, round);
                genie_release(h);
                genie_release(hr);
            }
            TCHECK(round == 0 ? s1.tape_cache_hits == s0.tape_cache_hits : s1.tape_cache_hits == s0.tape_cache_hits + 1,
                   "variant %d round %d (hash bits %s): %s expected (hits %llu -> %llu)", v, round,
                   hashbits ? hashbits : "64", round ? "a hit" : "a miss", (unsigned long long)s0.tape_cache_hits,
                   (unsigned long long)s1.tape_cache_hits);
            genie_pool_pop(c);
            genie_pool_pop(r);
        }
    genie_ctx_destroy(c);
    genie_ctx_destroy(r);
}

/* 10,000 steps of one structure: all hits after the first, no fresh memory and
   no more live bytes after the first steps. */
static void test_steady(void) {
    genie_ctx *c = test_ctx(GENIE_CPU_AUTO, 1);
    genie_tensor *x = inp(c, GENIE_F32, 16, 64, 9, 0), *w = inp(c, GENIE_F32, 64, 64, 10, 0);
    genie_stats s0 = genie_get_stats(c), s1, s2;
    int i;
    for (i = 0; i < 10000; i++) {
        genie_tensor *y;
        genie_pool_push(c);
        y = genie_softmax(c, genie_add(c, genie_relu(c, genie_matmul(c, x, w)), genie_mul_scalar(c, x, 1e-4 * i)), -1);
        genie_realize(c, 1, &y);
        genie_pool_pop(c);
        if (i == 9) s0 = genie_get_stats(c);
    }
    s1 = genie_get_stats(c);
    TCHECK(s1.tape_cache_hits - s0.tape_cache_hits == 9990, "steady loop: %llu hits in the last 9990 steps",
           (unsigned long long)(s1.tape_cache_hits - s0.tape_cache_hits));
    TCHECK(s1.bytes_fresh == s0.bytes_fresh, "steady loop: %llu fresh bytes after step 10",
           (unsigned long long)(s1.bytes_fresh - s0.bytes_fresh));
    TCHECK(s1.bytes_live == s0.bytes_live && s1.nodes_live == s0.nodes_live,
           "steady loop: live bytes %llu -> %llu, nodes %llu -> %llu", (unsigned long long)s0.bytes_live,
           (unsigned long long)s1.bytes_live, (unsigned long long)s0.nodes_live, (unsigned long long)s1.nodes_live);
    s2 = genie_get_stats(c);
    TCHECK(s2.tape_plan_ns == 0 || s2.tape_plan_ns < 1000000000ull, "plan time is a duration (%llu ns)",
           (unsigned long long)s2.tape_plan_ns);
    genie_ctx_destroy(c);
}

/* genie_ctx_desc's cache budgets on a [48, 64] x [64, 64] product (sized for the packed kernel):
   1 byte keeps nothing in any of the three caches (no tape hit, no freed block, no packed
   weight), the defaults keep all three; the values are equal either way */
static void test_budgets(void) {
    genie_ctx_desc d[2];
    genie_stats s[2];
    float out[2][48 * 64];
    int k, i;
    memset(d, 0, sizeof d);
    d[0].n_threads = d[1].n_threads = 1;
    d[1].block_cache_bytes = d[1].tape_cache_bytes = d[1].pack_cache_bytes = 1;
    for (k = 0; k < 2; k++) {
        genie_ctx *c = genie_ctx_create(&d[k]);
        genie_tensor *x = inp(c, GENIE_F32, 48, 64, 9, 0), *w = inp(c, GENIE_F32, 64, 64, 10, 0);
        for (i = 0; i < 4; i++) {
            genie_tensor *y;
            genie_pool_push(c);
            y = genie_relu(c, genie_matmul(c, x, w));
            genie_read(c, y, GENIE_F32, out[k], sizeof out[k]);
            genie_pool_pop(c);
        }
        s[k] = genie_get_stats(c);
        genie_ctx_destroy(c);
    }
    TCHECK(s[0].tape_cache_hits == 3 && s[0].cache_bytes > 0 && s[0].pack_cache_bytes > 0,
           "default budgets: %llu hits, %llu cached block bytes, %llu packed bytes (3, > 0, > 0 expected)",
           (unsigned long long)s[0].tape_cache_hits, (unsigned long long)s[0].cache_bytes,
           (unsigned long long)s[0].pack_cache_bytes);
    TCHECK(s[1].tape_cache_hits == 0 && s[1].cache_bytes == 0 && s[1].pack_cache_bytes == 0,
           "1-byte budgets: %llu hits, %llu cached block bytes, %llu packed bytes (all 0 expected)",
           (unsigned long long)s[1].tape_cache_hits, (unsigned long long)s[1].cache_bytes,
           (unsigned long long)s[1].pack_cache_bytes);
    TCHECK(memcmp(out[0], out[1], sizeof out[0]) == 0, "the cache budgets changed the values");
}

void tcache_tests(int *passed, int *failed) {
    P = passed, F = failed;
    test_steps(GENIE_CPU_AUTO, 1);
    test_steps(GENIE_CPU_AUTO, 2);
    test_steps(GENIE_CPU_REFERENCE, 1);
    test_misses(NULL);
    test_misses("0"); /* every hash equal: the key comparison alone keeps structures apart */
    test_steady();
    test_budgets();
}
