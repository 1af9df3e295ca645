/* bench/gemm_cases.h - the cases of bench/gemm.c and bench/gemm_aten.cpp, shared so both
   programs run the same shapes, pick them the same way and time them the same way.
   C99 and C++17. */
#ifndef GEMM_CASES_H
#define GEMM_CASES_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

typedef enum { GB_MATMUL, GB_LINEAR, GB_CONV } gb_kind;
typedef enum { GB_F32, GB_F64, GB_BF16 } gb_dtype;
typedef enum { GB_GFLOPS, GB_GBS, GB_MS } gb_unit; /* what a row reports */

typedef struct gb_case {
    const char *name;
    gb_kind kind;
    gb_dtype dt;
    gb_unit unit;
    int quick;         /* also runs under BENCH_QUICK=1 */
    int64_t m, k, n;   /* matmul: [m,k] @ [k,n]; linear: x [m,k], w [n,k] (stored [out, in]) */
    int64_t b, c, h, w, o, r, stride, pad; /* conv: x [b,c,h,w], w [o,c,r,r] */
} gb_case;

#define GB_MM(name, kind, dt, unit, quick, m, k, n) {name, kind, dt, unit, quick, m, k, n, 0, 0, 0, 0, 0, 0, 0, 0}
#define GB_CV(name, quick, b, c, h, w, o, r, s, p) {name, GB_CONV, GB_F32, GB_MS, quick, 0, 0, 0, b, c, h, w, o, r, s, p}

static const gb_case gb_cases[] = {
    GB_MM("sq256", GB_MATMUL, GB_F32, GB_GFLOPS, 1, 256, 256, 256),
    GB_MM("sq512", GB_MATMUL, GB_F32, GB_GFLOPS, 0, 512, 512, 512),
    GB_MM("sq1024", GB_MATMUL, GB_F32, GB_GFLOPS, 1, 1024, 1024, 1024),
    GB_MM("sq2048", GB_MATMUL, GB_F32, GB_GFLOPS, 0, 2048, 2048, 2048),
    GB_MM("sq4096", GB_MATMUL, GB_F32, GB_GFLOPS, 0, 4096, 4096, 4096),
    GB_MM("ffn_up", GB_LINEAR, GB_F32, GB_GFLOPS, 1, 512, 768, 3072),   /* [512,768] x w[3072,768] */
    GB_MM("ffn_down", GB_LINEAR, GB_F32, GB_GFLOPS, 0, 512, 3072, 768), /* [512,3072] x w[768,3072] */
    GB_MM("prefill_qkv", GB_LINEAR, GB_F32, GB_GFLOPS, 0, 128, 768, 2304), /* GPT-2 prefill: [128,768] x w[2304,768] */
    GB_MM("prefill_down", GB_LINEAR, GB_F32, GB_GFLOPS, 0, 128, 3072, 768), /* [128,3072] x w[768,3072] */
    GB_MM("decode", GB_LINEAR, GB_F32, GB_GBS, 1, 1, 4096, 4096),       /* [1,4096] x w[4096,4096] */
    GB_CV("conv56", 1, 1, 64, 56, 56, 64, 3, 1, 1),                     /* 3x3 pad 1 -> [1,64,56,56] */
    GB_CV("conv224", 0, 8, 3, 224, 224, 64, 7, 2, 3),                   /* 7x7 s2 p3 -> [8,64,112,112] */
    GB_MM("f64_1024", GB_MATMUL, GB_F64, GB_GFLOPS, 1, 1024, 1024, 1024),
    GB_MM("bf16_2048", GB_MATMUL, GB_BF16, GB_GFLOPS, 0, 2048, 2048, 2048),
    GB_MM("decode_bf16", GB_LINEAR, GB_BF16, GB_GBS, 0, 1, 4096, 4096), /* decode with a bf16 weight */
    /* GPT-2 small's decode products: Conv1D weights stored [in, out] (the axpy form) and the LM head */
    GB_MM("decode_gpt2_qkv", GB_MATMUL, GB_F32, GB_GBS, 0, 1, 768, 2304), /* [1,768] @ [768,2304] */
    GB_MM("decode_gpt2_down", GB_MATMUL, GB_F32, GB_GBS, 0, 1, 3072, 768), /* [1,3072] @ [3072,768] */
    GB_MM("decode_gpt2_head", GB_LINEAR, GB_F32, GB_GBS, 0, 1, 768, 50257), /* [1,768] x w[50257,768]^T */
};
#define GB_NCASES ((int)(sizeof gb_cases / sizeof gb_cases[0]))
static const int gb_threads[] = {1, 2};
#define GB_NTHREADS 2

static inline int64_t gb_conv_out(const gb_case *c, int64_t in) { return (in + 2 * c->pad - c->r) / c->stride + 1; }

/* floating-point operations of one call (a multiply-add counts 2) */
static inline double gb_flops(const gb_case *c) {
    if (c->kind == GB_CONV)
        return 2.0 * (double)(c->b * c->o * gb_conv_out(c, c->h) * gb_conv_out(c, c->w)) * (double)(c->c * c->r * c->r);
    return 2.0 * (double)c->m * (double)c->k * (double)c->n;
}
/* bytes of the second operand (the weight), what a decode product streams */
static inline double gb_weight_bytes(const gb_case *c) {
    return (double)c->k * (double)c->n * (c->dt == GB_F64 ? 8.0 : c->dt == GB_BF16 ? 2.0 : 4.0);
}

/* bytes of the largest CPU cache (sysfs; 256 MiB when unknown) */
static inline double gb_llc_bytes(void) {
    double best = 0;
    int i;
    for (i = 0; i < 5; i++) {
        char path[80], unit = 0;
        double v = 0;
        FILE *f;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f) continue;
        if (fscanf(f, "%lf%c", &v, &unit) >= 1) v *= unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : 1.0;
        fclose(f);
        best = v > best ? v : best;
    }
    return best > 0 ? best : 256.0 * 1048576.0;
}
/* bytes a bandwidth measurement streams through: a multiple of 64 MiB, at least twice the
   largest cache, so every byte comes from memory (at most 1 GiB) */
static inline double gb_stream_bytes(void) {
    double unit = 64.0 * 1048576.0, n = ceil(2.0 * gb_llc_bytes() / unit);
    return unit * (n < 1 ? 1 : n > 16 ? 16 : n);
}
/* copies of the weight a call cycles through: one, or for a bandwidth case as many as fill
   gb_stream_bytes (each call then reads its weight from memory, as a decode step does; GPT-2's
   7 MiB weights need ~80) */
#define GB_MAXW 128
static inline int gb_copies(const gb_case *c) {
    double n = c->unit == GB_GBS ? floor(gb_stream_bytes() / gb_weight_bytes(c)) : 1;
    return n < 1 ? 1 : n > GB_MAXW ? GB_MAXW : (int)n;
}

static inline int gb_quick(void) {
    const char *q = getenv("BENCH_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}
/* a filter is an argument without '=' (those are peer results); a case runs when no filter is
   given (then BENCH_QUICK=1 keeps the quick cases only) or when a filter is part of its name */
static inline int gb_selected(const gb_case *c, int argc, char **argv, int quick) {
    int i, filters = 0;
    for (i = 1; i < argc; i++) {
        if (strchr(argv[i], '=')) continue;
        filters++;
        if (strstr(c->name, argv[i])) return 1;
    }
    return filters ? 0 : (!quick || c->quick);
}

#define GB_MAXREPS 2000
/* repetitions after a warm-up call of `warm` seconds: enough for ~target seconds, at least
   3, at most GB_MAXREPS; 0 when the warm-up alone took >= 5 s (it is then the only sample) */
static inline int gb_reps(double warm, double target) {
    double r = ceil(target / (warm > 1e-9 ? warm : 1e-9));
    if (warm >= 5.0) return 0;
    return r < 3 ? 3 : r > GB_MAXREPS ? GB_MAXREPS : (int)r;
}
/* median seconds of `once` (which times one call and returns its seconds) after the warm-up
   call already made, which took `warm` seconds */
static inline double gb_median(double (*once)(void *), void *arg, double warm, double target) {
    double t[GB_MAXREPS];
    int i, n = gb_reps(warm, target);
    if (n == 0) return warm;
    for (i = 0; i < n; i++) t[i] = once(arg);
    return bench_median_mean(t, n);
}
#endif
