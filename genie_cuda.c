/* genie_cuda.c - the CUDA backend of genie: plain C against the CUDA runtime,
 * cuBLAS and NVRTC C APIs.
 *
 * This file is genie's implementation translation unit: it defines
 * GENIE_IMPLEMENTATION and includes genie.h, so a program that uses CUDA links
 * genie_cuda.o instead of defining GENIE_IMPLEMENTATION itself:
 *
 *     cc -std=c99 -O2 -I/usr/local/cuda/include -c genie_cuda.c
 *     cc app.c genie_cuda.o -L/usr/local/cuda/lib64 -lcudart -lcublas -lnvrtc -lm -pthread
 *
 *     genie_ctx_desc d = {0};
 *     d.backend = "cuda";
 *     genie_ctx *ctx = genie_ctx_create(&d);
 *     if (genie_status(ctx) == GENIE_ERR_BACKEND) genie_clear_error(ctx); // no GPU: CPU
 *
 * Two backends are registered (at load time with GCC/Clang, else by calling
 * genie_cuda_register()):
 *   "cuda"          computes on GPU GENIE_CUDA_DEVICE (default 0); with no GPU or
 *                   driver, selecting it leaves GENIE_ERR_BACKEND and the CPU runs.
 *   "cuda-compile"  needs no GPU: every node and fused group the "cuda" backend
 *                   would run is generated and compiled with NVRTC to PTX for
 *                   GENIE_CUDA_CHECK_ARCHS (default "80,90"), then computed by the
 *                   CPU executor (the test of the code generator without a GPU).
 *
 * What runs on the GPU (anything else falls back to the CPU executor, counted in
 * genie_stats.backend_fallbacks; its inputs come back to the host first):
 *   - fused elementwise groups (>>fuse: genie__fgroup) and single float unary,
 *     binary and copy/convert nodes: CUDA C generated from the group's IR,
 *     compiled by NVRTC once per structure (ops, dtypes, rank, which operands
 *     are contiguous; shapes, strides, offsets and scalars are parameters),
 *     cached in memory and on disk (GENIE_CUDA_CACHE, default
 *     $XDG_CACHE_HOME/genie-cuda or ~/.cache/genie-cuda; "0" turns it off) keyed
 *     by a hash of the source and the target architecture;
 *   - reductions (sum, mean, amax, amin, prod, var, std, logsumexp), softmax,
 *     log_softmax and layer_norm over any strided layout: one generated row
 *     kernel per (kind, dtypes), accumulating in double as the CPU does;
 *   - matmul, linear and batched matmul in f32, f64, f16, bf16 through
 *     cublasGemmStridedBatchedEx: transposed operands are read in place (no
 *     copies), broadcast batches are stride 0, a bias is broadcast into the
 *     output and added with beta = 1. TF32 only with GENIE_CUDA_TF32=1.
 * Device memory comes from the context's buffer cache (see >>backend in
 * genie.h), blocks from cudaMallocAsync on the backend's stream (the driver's
 * stream-ordered pool). Every CUDA, cuBLAS and NVRTC failure becomes a
 * genie_result with a message naming the call (NVRTC's log included);
 * cudaErrorMemoryAllocation and CUBLAS_STATUS_ALLOC_FAILED are GENIE_ERR_OOM.
 * Not done: conv2d, argmax/argmin, indexing, cat, sort, where, comparisons and
 * integer arithmetic run on the CPU; CUDA graph replay; cuBLASLt epilogues. */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "genie_cuda.h"

#if GENIE_BACKEND_API_VERSION != 3
#error "genie_cuda.c fills version 3 of genie_backend: update it to this genie.h's backend table"
#endif

#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- small helpers ---- */
typedef struct gc_sb { /* a growing string */
    char *s;
    size_t n, cap;
    int oom;
} gc_sb;
static void gc_sb_printf(gc_sb *b, const char *fmt, ...) {
    va_list ap;
    int k;
    if (b->oom) return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) { b->oom = 1; return; }
        if (b->s && (size_t)k < room) { b->n += (size_t)k; return; }
        {
            size_t nc = b->cap ? b->cap * 2 : 4096;
            char *q;
            while (nc < b->n + (size_t)k + 1) nc *= 2;
            q = (char *)GENIE_REALLOC(b->s, nc);
            if (!q) { b->oom = 1; return; }
            b->s = q;
            b->cap = nc;
        }
    }
}
static uint64_t gc_hash(const char *s, size_t n, uint64_t h) { /* FNV-1a 64 */
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* ---- status -> genie_result, the message naming the call ---- */
static genie_result gc_cuda_err(char *msg, cudaError_t e, const char *call) {
    (void)cudaGetLastError(); /* clear a non-sticky error: the context stays usable */
    snprintf(msg, GENIE_BACKEND_MSG, "cuda: %s: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
    return e == cudaErrorMemoryAllocation ? GENIE_ERR_OOM : GENIE_ERR_BACKEND;
}
static genie_result gc_blas_err(char *msg, cublasStatus_t s, const char *call) {
    snprintf(msg, GENIE_BACKEND_MSG, "cuda: %s: %s (%s)", call, cublasGetStatusString(s), cublasGetStatusName(s));
    return s == CUBLAS_STATUS_ALLOC_FAILED ? GENIE_ERR_OOM : GENIE_ERR_BACKEND;
}
static genie_result gc_nvrtc_err(char *msg, nvrtcResult r, const char *call, const char *log) {
    snprintf(msg, GENIE_BACKEND_MSG, "cuda: %s: %s%s%s", call, nvrtcGetErrorString(r), log && log[0] ? "; log: " : "",
             log ? log : "");
    return r == NVRTC_ERROR_OUT_OF_MEMORY ? GENIE_ERR_OOM : GENIE_ERR_BACKEND;
}
#define GC_CU(call, what)                                            \
    do {                                                             \
        cudaError_t e_ = (call);                                     \
        if (e_ != cudaSuccess) return gc_cuda_err(msg, e_, what);    \
    } while (0)
#define GC_BLAS(call, what)                                          \
    do {                                                             \
        cublasStatus_t s_ = (call);                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) return gc_blas_err(msg, s_, what); \
    } while (0)

/* ---- the backend's state (one per context) ---- */
typedef struct gc_kernel {
    uint64_t hash;
    char *image;              /* the CUBIN, kept while its library is loaded */
    cudaLibrary_t lib;
    cudaKernel_t fn;
} gc_kernel;
typedef struct gc_state {
    int compile_only;         /* "cuda-compile": NVRTC only, nothing runs */
    int archs[8], narchs;     /* compile_only: the compute_XX targets */
    int dev, arch, sms, tf32; /* the device, its sm_XY, its multiprocessors */
    cudaStream_t stream;
    cublasHandle_t blas;
    gc_kernel *kern;
    int nkern, capkern;
    struct gc_memo *memo;     /* structural key -> kernel: no source is generated on a hit */
    int nmemo, capmemo;
    cudaMemPool_t pool;       /* the device's default pool (cudaMallocAsync) */
    char cache_dir[1024];     /* "" : no disk cache */
} gc_state;

/* A kernel found by the structure it was generated from (the key: ops, operands, dtypes,
   rank, contiguity; never shapes, strides or scalars), compared whole behind its hash. */
typedef struct gc_memo {
    uint64_t h, src_hash;
    int nkey;
    uint64_t *key;
    cudaKernel_t fn;
} gc_memo;
#define GC_MAXKEY 256

/* What the compile-only backend did, over the process (the tests read it). */
typedef struct gc_check_stats {
    uint64_t memo_hits;    /* kernels found by structural key (their source regenerated and compared) */
    uint64_t memo_mismatch; /* ... whose source differed from the first one's: a key that misses structure */
    uint64_t sources;      /* distinct kernel sources generated */
    uint64_t compiled;     /* successful NVRTC compilations (sources x archs) */
    uint64_t failed;       /* failed ones; the last log is kept */
    uint64_t groups, nodes, gemms; /* fused groups, single nodes, cuBLAS products seen */
    char last_failure[4096];
} gc_check_stats;
static gc_check_stats gc_check;

/* ---- generated CUDA C: the prelude shared by every kernel ----
   Loads by genie dtype (0 f32, 1 f64, 2 f16, 3 bf16, 4 i64, 5 i32, 6 i16, 7 i8,
   8 u8, 9 bool) give float for f32/f16/bf16 and double otherwise; stores take
   float or double and round as genie__stf does (f16/bf16 through f32; RNE, and
   bf16 exactly as genie__f2bf). No headers: NVRTC needs none of the toolkit. */
static const char gc_prelude[] =
    "typedef long long i64;\n"
    "#define NAN_D __longlong_as_double(0x7ff8000000000000ll)\n"
    "__device__ __forceinline__ float h2f(unsigned short h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
    "__device__ __forceinline__ unsigned short f2h(float f) { unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
    "__device__ __forceinline__ float bf2f(unsigned short b) { return __uint_as_float((unsigned)b << 16); }\n"
    "__device__ __forceinline__ unsigned short f2bf(float x) { unsigned u = __float_as_uint(x);\n"
    "  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);\n"
    "  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); }\n"
    "__device__ __forceinline__ float ld0(const void *p, i64 i) { return ((const float *)p)[i]; }\n"
    "__device__ __forceinline__ double ld1(const void *p, i64 i) { return ((const double *)p)[i]; }\n"
    "__device__ __forceinline__ float ld2(const void *p, i64 i) { return h2f(((const unsigned short *)p)[i]); }\n"
    "__device__ __forceinline__ float ld3(const void *p, i64 i) { return bf2f(((const unsigned short *)p)[i]); }\n"
    "__device__ __forceinline__ double ld4(const void *p, i64 i) { return (double)((const long long *)p)[i]; }\n"
    "__device__ __forceinline__ double ld5(const void *p, i64 i) { return (double)((const int *)p)[i]; }\n"
    "__device__ __forceinline__ double ld6(const void *p, i64 i) { return (double)((const short *)p)[i]; }\n"
    "__device__ __forceinline__ double ld7(const void *p, i64 i) { return (double)((const signed char *)p)[i]; }\n"
    "__device__ __forceinline__ double ld8(const void *p, i64 i) { return (double)((const unsigned char *)p)[i]; }\n"
    "__device__ __forceinline__ double ld9(const void *p, i64 i) { return ((const unsigned char *)p)[i] != 0; }\n"
    "__device__ __forceinline__ void st0(void *p, i64 i, float v) { ((float *)p)[i] = v; }\n"
    "__device__ __forceinline__ void st0(void *p, i64 i, double v) { ((float *)p)[i] = (float)v; }\n"
    "__device__ __forceinline__ void st1(void *p, i64 i, double v) { ((double *)p)[i] = v; }\n"
    "__device__ __forceinline__ void st2(void *p, i64 i, float v) { ((unsigned short *)p)[i] = f2h(v); }\n"
    "__device__ __forceinline__ void st2(void *p, i64 i, double v) { ((unsigned short *)p)[i] = f2h((float)v); }\n"
    "__device__ __forceinline__ void st3(void *p, i64 i, float v) { ((unsigned short *)p)[i] = f2bf(v); }\n"
    "__device__ __forceinline__ void st3(void *p, i64 i, double v) { ((unsigned short *)p)[i] = f2bf((float)v); }\n"
    "__device__ __forceinline__ float rc0(float x) { return x; }\n"
    "__device__ __forceinline__ double rc1(double x) { return x; }\n"
    "__device__ __forceinline__ float rc2(float x) { return h2f(f2h(x)); }\n"
    "__device__ __forceinline__ float rc3(float x) { return bf2f(f2bf(x)); }\n"
    /* a double rounded to the compute dtype, as genie__round_to */
    "__device__ __forceinline__ double rd0(double x) { return (double)(float)x; }\n"
    "__device__ __forceinline__ double rd1(double x) { return x; }\n"
    "__device__ __forceinline__ double rd2(double x) { return (double)h2f(f2h((float)x)); }\n"
    "__device__ __forceinline__ double rd3(double x) { return (double)bf2f(f2bf((float)x)); }\n";

/* ---- elementwise: which ops the generator knows ---- */
static int gc_elt_op(int op) {
    int k = genie__op_kinds[op];
    if (k == GENIE__K_COPY) return op != GENIE__OP_FLIP;
    if (k == GENIE__K_UNARY) return op != GENIE__OP_LOGICAL_NOT && op != GENIE__OP_BITWISE_NOT;
    if (k == GENIE__K_BINARY) return !GENIE__IS_COMPARE(op) && op != GENIE__OP_LOGICAL_AND && op != GENIE__OP_LOGICAL_OR &&
                                     op != GENIE__OP_BITWISE_AND && op != GENIE__OP_BITWISE_OR && op != GENIE__OP_BITWISE_XOR;
    return 0;
}
static int gc_float_dt(int dt) { return dt == GENIE_F32 || dt == GENIE_F64 || dt == GENIE_F16 || dt == GENIE_BF16; }

/* The CUDA expression of op j of a group over registers named by x and y (y:
   NULL when the operand is the scalar s[si], a double), in the register type
   (float, or double when dbl). CPU semantics: genie__unary_f, genie__binary_f. */
static void gc_op_expr(gc_sb *b, int op, const char *x, const char *y, int si, int dbl) {
    const char *f = dbl ? "" : "f", *R = dbl ? "double" : "float";
    char sc[32];
    snprintf(sc, sizeof sc, "p.s[%d]", si);
    switch (op) {
    case GENIE__OP_NEG: gc_sb_printf(b, "-%s", x); break;
    case GENIE__OP_ABS: gc_sb_printf(b, "fabs%s(%s)", f, x); break;
    case GENIE__OP_EXP: gc_sb_printf(b, "exp%s(%s)", f, x); break;
    case GENIE__OP_LOG: gc_sb_printf(b, "log%s(%s)", f, x); break;
    case GENIE__OP_SQRT: gc_sb_printf(b, "sqrt%s(%s)", f, x); break;
    case GENIE__OP_RSQRT: gc_sb_printf(b, "((%s)1 / sqrt%s(%s))", R, f, x); break;
    case GENIE__OP_SIN: gc_sb_printf(b, "sin%s(%s)", f, x); break;
    case GENIE__OP_COS: gc_sb_printf(b, "cos%s(%s)", f, x); break;
    case GENIE__OP_TANH: gc_sb_printf(b, "tanh%s(%s)", f, x); break;
    case GENIE__OP_SIGMOID: gc_sb_printf(b, "((%s)1 / ((%s)1 + exp%s(-%s)))", R, R, f, x); break;
    case GENIE__OP_RELU: gc_sb_printf(b, "(%s <= (%s)0 ? (%s)0 : %s)", x, R, R, x); break;
    case GENIE__OP_GELU: gc_sb_printf(b, "((%s)0.5 * %s * ((%s)1 + erf%s(%s * (%s)0.70710678118654752440)))", R, x, R, f, x, R); break;
    case GENIE__OP_GELU_TANH:
        gc_sb_printf(b, "((%s)0.5 * %s * ((%s)1 + tanh%s((%s)0.79788456080286535588 * (%s + (%s)0.044715 * %s * %s * %s))))", R, x,
                     R, f, R, x, R, x, x, x);
        break;
    case GENIE__OP_SILU: gc_sb_printf(b, "(%s / ((%s)1 + exp%s(-%s)))", x, R, f, x); break;
    case GENIE__OP_RECIPROCAL: gc_sb_printf(b, "((%s)1 / %s)", R, x); break;
    case GENIE__OP_SQUARE: gc_sb_printf(b, "(%s * %s)", x, x); break;
    case GENIE__OP_FLOOR: gc_sb_printf(b, "floor%s(%s)", f, x); break;
    case GENIE__OP_CEIL: gc_sb_printf(b, "ceil%s(%s)", f, x); break;
    case GENIE__OP_ROUND: gc_sb_printf(b, "rint%s(%s)", f, x); break;
    case GENIE__OP_SIGN: gc_sb_printf(b, "(%s)((%s > (%s)0) - (%s < (%s)0))", R, x, R, x, R); break;
    case GENIE__OP_ERF: gc_sb_printf(b, "erf%s(%s)", f, x); break;
    case GENIE__OP_LOG1P: gc_sb_printf(b, "log1p%s(%s)", f, x); break;
    case GENIE__OP_EXPM1: gc_sb_printf(b, "expm1%s(%s)", f, x); break;
    case GENIE__OP_CLAMP: /* bounds p.s[si], p.s[si + 1]; NaN: no bound */
        gc_sb_printf(b, "(%s != %s ? %s : (%s)(p.s[%d] == p.s[%d] && (double)%s < p.s[%d] ? p.s[%d] : "
                        "(p.s[%d] == p.s[%d] && (double)%s > p.s[%d] ? p.s[%d] : (double)%s)))",
                     x, x, x, R, si, si, x, si, si, si + 1, si + 1, x, si + 1, si + 1, x);
        break;
    case GENIE__OP_ADD: case GENIE__OP_SUB: case GENIE__OP_MUL: case GENIE__OP_DIV: {
        char c = op == GENIE__OP_ADD ? '+' : op == GENIE__OP_SUB ? '-' : op == GENIE__OP_MUL ? '*' : '/';
        if (y) gc_sb_printf(b, "(%s %c %s)", x, c, y);
        else gc_sb_printf(b, "(%s)((double)%s %c %s)", R, x, c, sc); /* in double, as the reference */
        break;
    }
    case GENIE__OP_POW:
        if (y) gc_sb_printf(b, "pow%s(%s, %s)", f, x, y);
        else gc_sb_printf(b, "(%s)pow((double)%s, %s)", R, x, sc);
        break;
    case GENIE__OP_MAXIMUM: case GENIE__OP_MINIMUM: {
        char c = op == GENIE__OP_MAXIMUM ? '>' : '<';
        if (y) gc_sb_printf(b, "((%s != %s || %s != %s) ? %s + %s : (%s %c %s ? %s : %s))", x, x, y, y, x, y, x, c, y, x, y);
        else gc_sb_printf(b, "(%s)((%s != %s || %s != %s) ? (double)%s + %s : ((double)%s %c %s ? (double)%s : %s))", R, x, x, sc, sc,
                          x, sc, x, c, sc, x, sc);
        break;
    }
    default: gc_sb_printf(b, "%s", x); break; /* copies and conversions */
    }
}

/* The elementwise kernel of group g: its source (b, may be NULL) and its
   parameters (v and s, may be NULL; pointers from ptrs: inputs, then the
   written outputs in op order). The structure (ops, dtypes, rank, contiguous
   operands) is in the source; shapes, strides, offsets and scalars are in
   p.v (i64) and p.s (double): one compilation serves every shape.
   p.v: [0] total, [1..nd] shape, then per operand: pointer, offset, and its
   nd strides when it is not contiguous. */
static void gc_group_kernel(const genie__fgroup *g, gc_sb *b, int64_t *v, double *s, void *const *ptrs, int *nv, int *ns) {
    const int dbl = g->cdt == GENIE_F64;
    const char *R = dbl ? "double" : "float";
    int pos = 1 + g->nd, spos = 0, k, j, d, nop = 0;
    int opos[GENIE__FMAX_IN + GENIE__FMAX_OPS];
    const genie__fin *fins[GENIE__FMAX_IN + GENIE__FMAX_OPS];
    int strided = 0;
    for (k = 0; k < g->nin; k++) fins[nop++] = &g->in[k];
    for (j = 0; j < g->nops; j++)
        if (g->written[j]) fins[nop++] = &g->out[j];
    if (v) {
        v[0] = g->total;
        for (d = 0; d < g->nd; d++) v[1 + d] = g->shape[d];
    }
    for (k = 0; k < nop; k++) {
        opos[k] = pos;
        if (v) {
            v[pos] = (int64_t)(intptr_t)ptrs[k];
            v[pos + 1] = fins[k]->off;
            if (!fins[k]->contig)
                for (d = 0; d < g->nd; d++) v[pos + 2 + d] = fins[k]->st[d];
        }
        pos += 2 + (fins[k]->contig ? 0 : g->nd);
        strided |= !fins[k]->contig;
    }
    for (j = 0; j < g->nops; j++) {
        const genie__fop *o = &g->ops[j];
        if (o->op == GENIE__OP_CLAMP) {
            if (s) { s[spos] = o->a.f[0]; s[spos + 1] = o->a.f[1]; }
            spos += 2;
        } else if (o->y == GENIE__FSCALAR) {
            if (s) s[spos] = o->a.f[0];
            spos++;
        }
    }
    *nv = pos;
    *ns = spos;
    if (!b) return;
    gc_sb_printf(b, "%s", gc_prelude);
    gc_sb_printf(b, "struct P { i64 v[%d]; double s[%d]; };\n", pos, spos ? spos : 1);
    gc_sb_printf(b, "extern \"C\" __global__ void __launch_bounds__(256) genie_k(const P p) {\n");
    gc_sb_printf(b, "  const i64 total = p.v[0];\n");
    gc_sb_printf(b, "  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (i64)gridDim.x * blockDim.x) {\n");
    for (k = 0; k < nop; k++)
        if (!fins[k]->contig) gc_sb_printf(b, "    i64 o%d = p.v[%d];\n", k, opos[k] + 1);
    if (strided) {
        gc_sb_printf(b, "    { i64 r = i, ix;\n");
        for (d = g->nd - 1; d >= 0; d--) {
            gc_sb_printf(b, "      ix = r %% p.v[%d]; r /= p.v[%d];", 1 + d, 1 + d);
            for (k = 0; k < nop; k++)
                if (!fins[k]->contig) gc_sb_printf(b, " o%d += ix * p.v[%d];", k, opos[k] + 2 + d);
            gc_sb_printf(b, "\n");
        }
        gc_sb_printf(b, "    }\n");
    }
    for (k = 0; k < g->nin; k++) {
        gc_sb_printf(b, "    %s a%d = (%s)ld%d((const void *)p.v[%d], ", R, k, R, fins[k]->dt, opos[k]);
        if (fins[k]->contig) gc_sb_printf(b, "p.v[%d] + i);\n", opos[k] + 1);
        else gc_sb_printf(b, "o%d);\n", k);
        if (fins[k]->dt != fins[k]->ldt) gc_sb_printf(b, "    a%d = rc%d(a%d);\n", k, fins[k]->ldt, k); /* loaded as the reference: rounded to its readers' dtype */
    }
    spos = 0;
    for (j = 0; j < g->nops; j++) {
        const genie__fop *o = &g->ops[j];
        char x[16], y[16];
        if (o->x >= 0) snprintf(x, sizeof x, "r%d", o->x);
        else snprintf(x, sizeof x, "a%d", -1 - o->x);
        if (o->y >= 0) snprintf(y, sizeof y, "r%d", o->y);
        else if (o->y != GENIE__FSCALAR) snprintf(y, sizeof y, "a%d", -1 - o->y);
        gc_sb_printf(b, "    %s r%d = ", R, j);
        gc_op_expr(b, o->op, x, genie__op_kinds[o->op] == GENIE__K_BINARY && o->y != GENIE__FSCALAR ? y : NULL, spos, dbl);
        gc_sb_printf(b, ";\n    r%d = rc%d(r%d);\n", j, o->dt, j); /* each op's value rounded to its dtype */
        if (o->op == GENIE__OP_CLAMP) spos += 2;
        else if (o->y == GENIE__FSCALAR) spos++;
    }
    k = g->nin;
    for (j = 0; j < g->nops; j++) {
        if (!g->written[j]) continue;
        gc_sb_printf(b, "    st%d((void *)p.v[%d], ", fins[k]->dt, opos[k]);
        if (fins[k]->contig) gc_sb_printf(b, "p.v[%d] + i, r%d);\n", opos[k] + 1, j);
        else gc_sb_printf(b, "o%d, r%d);\n", k, j);
        k++;
    }
    gc_sb_printf(b, "  }\n}\n");
}

/* A single elementwise node (float unary/binary, or a copy/conversion to a
   float dtype) as a group of one op, laid out as genie__fgroup_build does. */
static int gc_node_group(const genie__node *n, genie__fgroup *g) {
    int perm[GENIE__MAXD], d, i, kind = genie__op_kinds[n->op];
    const genie__vspec *ov = n->out;
    if (!gc_elt_op(n->op) || !gc_float_dt(n->dtype) || n->base || n->nin < 1 || n->nin > 2) return 0;
    if (kind != GENIE__K_COPY && (n->cdt != n->dtype)) return 0;
    memset(g, 0, sizeof *g);
    g->row = -1; /* an elementwise group (no row op) */
    g->root = (genie__node *)n;
    g->cdt = n->dtype;
    g->nd = ov->ndim;
    for (d = 0; d < g->nd; d++) perm[d] = d;
    for (d = 1; d < g->nd; d++) {
        int x = perm[d], e = d;
        for (; e > 0 && ov->strides[perm[e - 1]] < ov->strides[x]; e--) perm[e] = perm[e - 1];
        perm[e] = x;
    }
    for (d = 0; d < g->nd; d++) g->shape[d] = ov->shape[perm[d]];
    g->total = genie__numel(g->nd, g->shape);
    g->nops = 1;
    g->nodes[0] = (genie__node *)n;
    g->ops[0].op = n->op;
    g->ops[0].dt = (uint8_t)g->cdt;
    g->ops[0].a = n->a;
    for (i = 0; i < n->nin && (kind == GENIE__K_BINARY ? i < 2 : i < 1); i++) {
        g->src[i] = n->in[i].n;
        genie__fin_set(&g->in[i], g, 0, perm, NULL, n->in[i].n->dtype, n->in[i].v);
        g->in[i].ldt = g->cdt; /* a conversion's input too: rounded to the output dtype, then stored */
    }
    g->nin = i;
    g->ops[0].x = -1;
    g->ops[0].z = GENIE__FNONE;
    g->ops[0].y = kind == GENIE__K_BINARY ? (n->has_scalar ? GENIE__FSCALAR : (int16_t)(g->nin > 1 ? -2 : -1)) : -1;
    if (kind == GENIE__K_BINARY && !n->has_scalar && g->nin < 2) return 0;
    g->written[0] = 1;
    genie__fin_set(&g->out[0], g, 0, perm, NULL, n->dtype, ov);
    return 1;
}
/* May a fused group run here? Its ops known, registers f32 (cdt f32/f16/bf16). */
static int gc_group_ok(const genie__fgroup *g) {
    int j;
    if (g->row >= 0) return 0; /* row groups (prologue, row op, epilogue): the CPU runs them (counted) */
    for (j = 0; j < g->nops; j++)
        if (!gc_elt_op(g->ops[j].op)) return 0;
    return g->cdt == GENIE_F32 || g->cdt == GENIE_F16 || g->cdt == GENIE_BF16;
}

/* ---- row kernels: reductions, softmax, layer_norm ----
   One block per row (an output element of a reduction, a softmax slice, a
   normalized slice). Operand k (0 input, 1 output, 2 weight, 3 bias) has
   element (row o, j) at off[k] + sum over the row's dims (< nk) and over the
   reduced dims (>= nk) of index * st[k][d]. */
#define GC_ROWP_FIELDS(I) I ptr[4]; I nd, nk, inner, corr; I off[4]; I sh[8]; I st[4][8]; double eps;
#define GC_STR_(...) #__VA_ARGS__
#define GC_STR(...) GC_STR_(__VA_ARGS__)
typedef struct gc_rowp { GC_ROWP_FIELDS(int64_t) } gc_rowp;
static const char gc_row_src[] =
    "struct RP { " GC_STR(GC_ROWP_FIELDS(i64)) " };\n"
    "__device__ __forceinline__ double comb(double a, double b, int how) {\n"
    "  if (how == 0) return a + b;\n"
    "  if (how == 1) return a * b;\n"
    "  if (a != a) return a;\n"
    "  if (b != b) return b;\n"
    "  return how == 2 ? (a > b ? a : b) : (a < b ? a : b); }\n"
    "__device__ double bred(double v, int how, double *sh) {\n"
    "  const double id = how == 0 ? 0.0 : how == 1 ? 1.0 : how == 2 ? -__longlong_as_double(0x7ff0000000000000ll) : __longlong_as_double(0x7ff0000000000000ll);\n"
    "  int w = threadIdx.x >> 5, l = threadIdx.x & 31, nw = (blockDim.x + 31) >> 5;\n"
    "  for (int o = 16; o > 0; o >>= 1) v = comb(v, __shfl_down_sync(0xffffffffu, v, o), how);\n"
    "  __syncthreads();\n"
    "  if (l == 0) sh[w] = v;\n"
    "  __syncthreads();\n"
    "  if (w == 0) {\n"
    "    v = l < nw ? sh[l] : id;\n"
    "    for (int o = 16; o > 0; o >>= 1) v = comb(v, __shfl_down_sync(0xffffffffu, v, o), how);\n"
    "    if (l == 0) sh[0] = v;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  return sh[0]; }\n"
    "#define OFF(k, j, out) do { if (p.nd - p.nk == 1) out = base[k] + (j) * p.st[k][p.nd - 1]; else { i64 r_ = (j); out = base[k];\\\n"
    "  for (int d_ = (int)p.nd - 1; d_ >= (int)p.nk; d_--) { i64 ix_ = r_ % p.sh[d_]; r_ /= p.sh[d_]; out += ix_ * p.st[k][d_]; } } } while (0)\n"
    "#define X(j) xload(p, base, j)\n"
    "__device__ __forceinline__ double xload(const RP &p, const i64 *base, i64 j) { i64 q; OFF(0, j, q); return RD(LDX((const void *)p.ptr[0], q)); }\n"
    "extern \"C\" __global__ void __launch_bounds__(256) genie_k(const RP p) {\n"
    "  __shared__ double sh[32];\n"
    "  const i64 o = blockIdx.x, n = p.inner;\n"
    "  i64 base[4] = {p.off[0], p.off[1], p.off[2], p.off[3]};\n"
    "  { i64 r = o; for (int d = (int)p.nk - 1; d >= 0; d--) { i64 ix = r % p.sh[d]; r /= p.sh[d];\n"
    "      for (int k = 0; k < 4; k++) base[k] += ix * p.st[k][d]; } }\n"
    "#if KIND == 0\n" /* reductions: ROP 0 sum 1 mean 2 amax 3 amin 4 prod 5 var 6 std 7 logsumexp */
    "  double acc, mean = 0, mx = 0;\n"
    "  if (ROP == 5 || ROP == 6) { acc = 0; for (i64 j = threadIdx.x; j < n; j += blockDim.x) acc += X(j);\n"
    "    mean = bred(acc, 0, sh) / (double)n; }\n"
    "  if (ROP == 7) { acc = -__longlong_as_double(0x7ff0000000000000ll); for (i64 j = threadIdx.x; j < n; j += blockDim.x) acc = comb(acc, X(j), 2);\n"
    "    mx = bred(acc, 2, sh); if (mx - mx != 0 && mx == mx) mx = 0; }\n"
    "  const int how = ROP == 2 ? 2 : ROP == 3 ? 3 : ROP == 4 ? 1 : 0;\n"
    "  acc = how == 1 ? 1.0 : how == 2 ? -__longlong_as_double(0x7ff0000000000000ll) : how == 3 ? __longlong_as_double(0x7ff0000000000000ll) : 0.0;\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) { double x = X(j);\n"
    "    if (ROP == 5 || ROP == 6) x = (x - mean) * (x - mean); else if (ROP == 7) x = exp(x - mx);\n"
    "    acc = comb(acc, x, how); }\n"
    "  acc = bred(acc, how, sh);\n"
    "  if (threadIdx.x == 0) {\n"
    "    if (ROP == 1) acc /= (double)n;\n"
    "    if (ROP == 5 || ROP == 6) { double dof = (double)n - (double)p.corr; acc /= dof > 0 ? dof : 0.0; if (ROP == 6) acc = sqrt(acc); }\n"
    "    if (ROP == 7) acc = log(acc) + mx;\n"
    "    STO((void *)p.ptr[1], p.off[1] + o, acc); }\n"
    "#elif KIND == 1 || KIND == 2\n" /* softmax, log_softmax along the one reduced dim */
    "  double mx = -__longlong_as_double(0x7ff0000000000000ll), sum = 0;\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) { double x = X(j); if (x > mx || x != x) mx = (mx != mx) ? mx : x; }\n"
    "  mx = bred(mx, 2, sh);\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) sum += exp(X(j) - mx);\n"
    "  sum = bred(sum, 0, sh);\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) { double x = X(j) - mx; i64 q; OFF(1, j, q);\n"
    "    STO((void *)p.ptr[1], q, KIND == 1 ? exp(x) / sum : x - log(sum)); }\n"
    "#else\n" /* layer_norm over the reduced dims; weight and bias read through their own strides */
    "  double mean = 0, var = 0;\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) mean += X(j);\n"
    "  mean = bred(mean, 0, sh) / (double)n;\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) { double x = X(j) - mean; var += x * x; }\n"
    "  var = bred(var, 0, sh) / (double)n;\n"
    "  const double rstd = 1.0 / sqrt(var + p.eps);\n"
    "  for (i64 j = threadIdx.x; j < n; j += blockDim.x) { double y = (X(j) - mean) * rstd; i64 q;\n"
    "#if HAS_W\n"
    "    OFF(2, j, q); y *= (double)LDW((const void *)p.ptr[2], q);\n"
    "#endif\n"
    "#if HAS_B\n"
    "    OFF(3, j, q); y += (double)LDB((const void *)p.ptr[3], q);\n"
    "#endif\n"
    "    OFF(1, j, q); STO((void *)p.ptr[1], q, y); }\n"
    "#endif\n"
    "}\n";

static int gc_row_node(const genie__node *n) {
    int kind = genie__op_kinds[n->op];
    if (kind != GENIE__K_REDUCE && kind != GENIE__K_SOFTMAX && kind != GENIE__K_LAYER_NORM) return 0;
    if (n->op == GENIE__OP_RMS_NORM) return 0; /* layer_norm's kind, not its math: the CPU runs it (counted) */
    if (n->base || n->nin < 1 || !gc_float_dt(n->dtype) || n->in[0].n->dtype == GENIE_BOOL) return 0;
    if (kind == GENIE__K_REDUCE) return 1;
    if (kind == GENIE__K_SOFTMAX) return gc_float_dt(n->in[0].n->dtype);
    if (kind == GENIE__K_LAYER_NORM) {
        int i;
        for (i = 0; i < n->nin; i++)
            if (!gc_float_dt(n->in[i].n->dtype)) return 0;
        return 1;
    }
    return 0;
}
/* The row kernel of n: its source (b may be NULL), its parameters and rows. */
static int64_t gc_row_kernel(const genie__node *n, gc_sb *b, gc_rowp *p) {
    int kind = genie__op_kinds[n->op], k, d, K = 0, rop = 0, has_w = 0, has_b = 0;
    const genie__vspec *xv = n->in[0].v, *ov = n->out;
    int64_t rows;
    memset(p, 0, sizeof *p);
    p->ptr[0] = (int64_t)(intptr_t)(n->in[0].n->buf ? n->in[0].n->buf->dev : NULL);
    p->ptr[1] = (int64_t)(intptr_t)(n->buf ? n->buf->dev : NULL);
    p->nd = xv->ndim;
    p->off[0] = xv->off;
    p->off[1] = ov->off;
    if (kind == GENIE__K_SOFTMAX) { /* the softmax dim moved last: the one reduced dim */
        int dim = (int)n->a.i[0], e = 0;
        K = n->op == GENIE__OP_SOFTMAX ? 1 : 2;
        if (xv->ndim == 0) {
            p->nd = 1; p->nk = 0; p->sh[0] = 1;
        } else {
            for (d = 0; d < xv->ndim; d++)
                if (d != dim) { p->sh[e] = xv->shape[d]; p->st[0][e] = xv->strides[d]; p->st[1][e] = ov->strides[d]; e++; }
            p->sh[e] = xv->shape[dim]; p->st[0][e] = xv->strides[dim]; p->st[1][e] = ov->strides[dim];
            p->nk = xv->ndim - 1;
        }
    } else {
        for (d = 0; d < xv->ndim; d++) { p->sh[d] = xv->shape[d]; p->st[0][d] = xv->strides[d]; }
        p->nk = n->a.i[0];
        if (kind == GENIE__K_REDUCE) {
            int64_t run = 1;
            K = 0;
            rop = n->op == GENIE__OP_SUM ? 0 : n->op == GENIE__OP_MEAN ? 1 : n->op == GENIE__OP_AMAX ? 2 : n->op == GENIE__OP_AMIN ? 3
                : n->op == GENIE__OP_PROD ? 4 : n->op == GENIE__OP_VAR ? 5 : n->op == GENIE__OP_STD ? 6 : 7;
            p->corr = n->a.i[1];
            for (d = (int)p->nk - 1; d >= 0; d--) { p->st[1][d] = run; run *= p->sh[d]; } /* out: contiguous over kept */
        } else { /* layer_norm */
            K = 3;
            has_w = (int)n->a.i[1];
            has_b = (int)n->a.i[2];
            p->eps = n->a.f[0];
            for (d = 0; d < xv->ndim; d++) p->st[1][d] = ov->strides[d];
            for (k = 0; k < has_w + has_b; k++) {
                const genie__vspec *wv = n->in[1 + k].v;
                p->ptr[2 + (has_w ? k : 1)] = (int64_t)(intptr_t)(n->in[1 + k].n->buf ? n->in[1 + k].n->buf->dev : NULL);
                p->off[2 + (has_w ? k : 1)] = wv->off;
                for (d = 0; d < wv->ndim && p->nk + d < 8; d++) p->st[2 + (has_w ? k : 1)][p->nk + d] = wv->strides[d];
            }
        }
    }
    p->inner = genie__numel((int)(p->nd - p->nk), p->sh + p->nk);
    rows = genie__numel((int)p->nk, p->sh);
    if (b) {
        int xdt = n->in[0].n->dtype, cdt = kind == GENIE__K_SOFTMAX ? n->cdt : GENIE_F64;
        gc_sb_printf(b, "%s", gc_prelude);
        gc_sb_printf(b, "#define KIND %d\n#define ROP %d\n#define HAS_W %d\n#define HAS_B %d\n", K, rop, has_w, has_b);
        gc_sb_printf(b, "#define LDX ld%d\n#define RD(x) rd%d((double)(x))\n#define STO st%d\n", xdt, cdt, n->dtype);
        gc_sb_printf(b, "#define LDW ld%d\n#define LDB ld%d\n", has_w ? n->in[1].n->dtype : 0, has_b ? n->in[1 + has_w].n->dtype : 0);
        gc_sb_printf(b, "%s", gc_row_src);
    }
    return rows;
}

/* ---- products through cuBLAS ----
   A row-major R x C matrix with strides (rs, cs) read as a column-major operand:
   op N with ld rs when cs is 1 (its transpose, C x R), op T with ld cs when rs
   is 1. Size-1 dims take any stride. 0: neither (the CPU computes it). */
static int gc_mat_op(int64_t R, int64_t C, int64_t rs, int64_t cs, cublasOperation_t *op, int64_t *ld) {
    if (C == 1) cs = 1;
    if (R == 1) rs = C;
    if (cs == 1 && rs >= C && rs >= 1) { *op = CUBLAS_OP_N; *ld = rs; return 1; }
    if (rs == 1 && cs >= R && cs >= 1) { *op = CUBLAS_OP_T; *ld = cs; return 1; }
    return 0;
}
typedef struct gc_mm {
    int nb;                         /* batch dims after collapsing (the last one is cuBLAS's) */
    int64_t bsh[GENIE__MAXD], bst[3][GENIE__MAXD]; /* batch shape; strides of out, a, b */
    int64_t M, N, K, lda, ldb, ldc;
    cublasOperation_t opa, opb;
} gc_mm;
static int gc_mm_plan(const genie__node *n, gc_mm *m) {
    const genie__vspec *av = n->in[0].v, *bv = n->in[1].v, *ov = n->out;
    int nb = ov->ndim - 2, d, e = 0, dt = n->dtype;
    if (n->base || ov->ndim < 2 || (dt != GENIE_F32 && dt != GENIE_F64 && dt != GENIE_F16 && dt != GENIE_BF16)) return 0;
    if (n->in[0].n->dtype != dt || n->in[1].n->dtype != dt || (n->nin > 2 && n->in[2].n->dtype != dt)) return 0;
    if (av->ndim != ov->ndim || bv->ndim != ov->ndim) return 0;
    m->M = ov->shape[nb];
    m->N = ov->shape[nb + 1];
    m->K = av->shape[nb + 1];
    if (m->M > INT32_MAX || m->N > INT32_MAX || m->K > INT32_MAX) return 0;
    if (!gc_mat_op(m->M, m->K, av->strides[nb], av->strides[nb + 1], &m->opa, &m->lda)) return 0;
    if (!gc_mat_op(m->K, m->N, bv->strides[nb], bv->strides[nb + 1], &m->opb, &m->ldb)) return 0;
    if (m->N > 1 && ov->strides[nb + 1] != 1) return 0;
    m->ldc = m->M > 1 ? ov->strides[nb] : m->N;
    if (m->ldc < m->N || m->ldc < 1) return 0;
    for (d = 0; d < nb; d++) { /* batch dims: drop size 1, merge into the outer one where all three strides allow */
        if (av->shape[d] != ov->shape[d] || bv->shape[d] != ov->shape[d]) return 0;
        if (ov->shape[d] == 1) continue;
        if (e > 0 && m->bst[0][e - 1] == ov->strides[d] * ov->shape[d] && m->bst[1][e - 1] == av->strides[d] * ov->shape[d] &&
            m->bst[2][e - 1] == bv->strides[d] * ov->shape[d]) {
            m->bsh[e - 1] *= ov->shape[d];
            m->bst[0][e - 1] = ov->strides[d];
            m->bst[1][e - 1] = av->strides[d];
            m->bst[2][e - 1] = bv->strides[d];
            continue;
        }
        m->bsh[e] = ov->shape[d];
        m->bst[0][e] = ov->strides[d];
        m->bst[1][e] = av->strides[d];
        m->bst[2][e] = bv->strides[d];
        e++;
    }
    m->nb = e;
    return 1;
}

/* ---- structural keys ---- */
static int gc_key_group(const genie__fgroup *g, uint64_t *k) {
    int n = 0, i, j;
    k[n++] = 1; /* an elementwise group */
    k[n++] = (uint64_t)g->nd | (uint64_t)g->nin << 8 | (uint64_t)g->nops << 16 | (uint64_t)g->cdt << 24;
    for (i = 0; i < g->nin; i++) k[n++] = (uint64_t)g->in[i].dt | (uint64_t)g->in[i].contig << 8 | (uint64_t)g->in[i].ldt << 16;
    for (j = 0; j < g->nops; j++) {
        const genie__fop *o = &g->ops[j];
        k[n++] = (uint64_t)o->op | (uint64_t)(uint16_t)o->x << 16 | (uint64_t)(uint16_t)o->y << 32 | (uint64_t)g->written[j] << 48 |
                 (uint64_t)o->dt << 56;
        if (g->written[j]) k[n++] = (uint64_t)g->out[j].dt | (uint64_t)g->out[j].contig << 8;
    }
    return n;
}
static int gc_key_row(const genie__node *n, uint64_t *k) {
    int i, c = 0;
    k[c++] = 2; /* a row kernel: the op, its dtypes, its weight and bias */
    k[c++] = (uint64_t)n->op | (uint64_t)n->dtype << 16 | (uint64_t)n->cdt << 24 | (uint64_t)n->nin << 32 |
             (uint64_t)(genie__op_kinds[n->op] == GENIE__K_LAYER_NORM ? (n->a.i[1] | n->a.i[2] << 1) : 0) << 40;
    for (i = 0; i < n->nin && i < 3; i++) k[c++] = (uint64_t)n->in[i].n->dtype;
    return c;
}
static gc_memo *gc_memo_find(gc_state *st, const uint64_t *key, int nkey, uint64_t h) {
    int i;
    for (i = 0; i < st->nmemo; i++)
        if (st->memo[i].h == h && st->memo[i].nkey == nkey && memcmp(st->memo[i].key, key, (size_t)nkey * 8) == 0) return &st->memo[i];
    return NULL;
}
static gc_memo *gc_memo_add(gc_state *st, const uint64_t *key, int nkey, uint64_t h) {
    gc_memo *m;
    if (st->nmemo == st->capmemo) {
        int nc = st->capmemo ? st->capmemo * 2 : 64;
        gc_memo *q = (gc_memo *)GENIE_REALLOC(st->memo, (size_t)nc * sizeof *q);
        if (!q) return NULL;
        st->memo = q;
        st->capmemo = nc;
    }
    m = &st->memo[st->nmemo];
    if (!(m->key = (uint64_t *)GENIE_MALLOC((size_t)nkey * 8))) return NULL;
    memcpy(m->key, key, (size_t)nkey * 8);
    m->nkey = nkey;
    m->h = h;
    m->src_hash = 0;
    m->fn = NULL;
    st->nmemo++;
    return m;
}

/* ---- NVRTC: compile (once per structure), load, cache ---- */
/* Compile src for arch (sm_XY when real: a CUBIN; else compute_XY: PTX) into a
   fresh image (the caller frees it). */
static genie_result gc_compile(const char *src, int arch, int real, char **image, size_t *size, char *msg) {
    nvrtcProgram prog;
    nvrtcResult r;
    char opt[64];
    const char *opts[3];
    *image = NULL;
    snprintf(opt, sizeof opt, "--gpu-architecture=%s_%d", real ? "sm" : "compute", arch);
    opts[0] = opt;
    opts[1] = "-default-device";
    opts[2] = "--std=c++14";
    if ((r = nvrtcCreateProgram(&prog, src, "genie_kernel.cu", 0, NULL, NULL)) != NVRTC_SUCCESS)
        return gc_nvrtc_err(msg, r, "nvrtcCreateProgram", NULL);
    r = nvrtcCompileProgram(prog, 3, opts);
    if (r != NVRTC_SUCCESS) {
        size_t ln = 0;
        char *log = NULL;
        genie_result g;
        if (nvrtcGetProgramLogSize(prog, &ln) == NVRTC_SUCCESS && (log = (char *)GENIE_MALLOC(ln + 1)) != NULL) {
            if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = 0;
            log[ln] = 0;
        }
        g = gc_nvrtc_err(msg, r, opt, log);
        if (r == NVRTC_ERROR_COMPILATION && log) { /* the whole log, for the tests */
            snprintf(gc_check.last_failure, sizeof gc_check.last_failure, "%s\n--- source ---\n%.3000s", log, src);
        }
        GENIE_FREE(log);
        nvrtcDestroyProgram(&prog);
        return g;
    }
    r = real ? nvrtcGetCUBINSize(prog, size) : nvrtcGetPTXSize(prog, size);
    if (r == NVRTC_SUCCESS && !(*image = (char *)GENIE_MALLOC(*size + 1))) r = NVRTC_ERROR_OUT_OF_MEMORY;
    if (r == NVRTC_SUCCESS) r = real ? nvrtcGetCUBIN(prog, *image) : nvrtcGetPTX(prog, *image);
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS) {
        GENIE_FREE(*image);
        *image = NULL;
        return gc_nvrtc_err(msg, r, real ? "nvrtcGetCUBIN" : "nvrtcGetPTX", NULL);
    }
    return GENIE_OK;
}
static void gc_cache_path(const gc_state *st, uint64_t h, char *path, size_t n) {
    snprintf(path, n, "%s/%016llx-sm%d.cubin", st->cache_dir, (unsigned long long)h, st->arch);
}
/* The kernel "genie_k" of src, loaded: from memory, from the disk cache, or compiled. */
static genie_result gc_kernel_get(gc_state *st, const char *src, size_t len, cudaKernel_t *fn, char *msg) {
    uint64_t h = gc_hash(src, len, 0xcbf29ce484222325ull);
    char path[1200], *image = NULL;
    size_t size = 0;
    int i, from_disk = 0;
    cudaLibrary_t lib;
    cudaError_t e;
    genie_result r;
    h = gc_hash((const char *)&st->arch, sizeof st->arch, h);
    for (i = 0; i < st->nkern; i++)
        if (st->kern[i].hash == h) { *fn = st->kern[i].fn; return GENIE_OK; }
    if (st->cache_dir[0]) { /* a file is untrusted: one that does not load is compiled again */
        FILE *f;
        gc_cache_path(st, h, path, sizeof path);
        if ((f = fopen(path, "rb")) != NULL) {
            long sz;
            if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 && sz < (64l << 20) && fseek(f, 0, SEEK_SET) == 0 &&
                (image = (char *)GENIE_MALLOC((size_t)sz)) != NULL) {
                if (fread(image, 1, (size_t)sz, f) == (size_t)sz) { size = (size_t)sz; from_disk = 1; }
                else { GENIE_FREE(image); image = NULL; }
            }
            fclose(f);
        }
    }
    if (from_disk && cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        GENIE_FREE(image);
        image = NULL;
        from_disk = 0;
    }
    if (!from_disk) {
        if ((r = gc_compile(src, st->arch, 1, &image, &size, msg)) != GENIE_OK) return r;
        if ((e = cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0)) != cudaSuccess) {
            GENIE_FREE(image);
            return gc_cuda_err(msg, e, "cudaLibraryLoadData");
        }
        if (st->cache_dir[0]) { /* written whole under a temporary name, then renamed */
            char tmp[1300];
            FILE *f;
            snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)clock());
            if ((f = fopen(tmp, "wb")) != NULL) {
                int ok = fwrite(image, 1, size, f) == size;
                if (fclose(f) != 0) ok = 0;
                if (!ok || rename(tmp, path) != 0) remove(tmp);
            }
        }
    }
    if ((e = cudaLibraryGetKernel(fn, lib, "genie_k")) != cudaSuccess) {
        cudaLibraryUnload(lib);
        GENIE_FREE(image);
        return gc_cuda_err(msg, e, "cudaLibraryGetKernel(genie_k)");
    }
    if (st->nkern == st->capkern) {
        int nc = st->capkern ? st->capkern * 2 : 64;
        gc_kernel *q = (gc_kernel *)GENIE_REALLOC(st->kern, (size_t)nc * sizeof *q);
        if (!q) {
            cudaLibraryUnload(lib);
            GENIE_FREE(image);
            snprintf(msg, GENIE_BACKEND_MSG, "cuda: out of host memory for the kernel cache");
            return GENIE_ERR_OOM;
        }
        st->kern = q;
        st->capkern = nc;
    }
    st->kern[st->nkern].image = image;
    st->kern[st->nkern].hash = h;
    st->kern[st->nkern].lib = lib;
    st->kern[st->nkern].fn = *fn;
    st->nkern++;
    return GENIE_OK;
}
/* Compile-only: b (the source for key) for every check arch, once per structure; a
   structure seen before must give the same source (the key is complete). */
static void gc_check_source(gc_state *st, const uint64_t *key, int nkey, const gc_sb *b) {
    char msg[GENIE_BACKEND_MSG];
    uint64_t h = gc_hash((const char *)key, (size_t)nkey * 8, 0xcbf29ce484222325ull), sh;
    gc_memo *m;
    int a;
    if (b->oom) return;
    sh = gc_hash(b->s, b->n, 0xcbf29ce484222325ull);
    if ((m = gc_memo_find(st, key, nkey, h)) != NULL) {
        gc_check.memo_hits++;
        if (m->src_hash != sh) {
            gc_check.memo_mismatch++;
            snprintf(gc_check.last_failure, sizeof gc_check.last_failure, "one key, two sources; the second:\n%.3500s", b->s);
        }
        return;
    }
    if ((m = gc_memo_add(st, key, nkey, h)) != NULL) m->src_hash = sh;
    gc_check.sources++;
    for (a = 0; a < st->narchs; a++) {
        char *image = NULL;
        size_t size = 0;
        if (gc_compile(b->s, st->archs[a], 0, &image, &size, msg) == GENIE_OK && size > 0) gc_check.compiled++;
        else {
            gc_check.failed++;
            if (!strstr(gc_check.last_failure, "--- source ---")) snprintf(gc_check.last_failure, sizeof gc_check.last_failure, "%s", msg);
        }
        GENIE_FREE(image);
    }
}

/* ---- running ---- */
static genie_result gc_launch(gc_state *st, cudaKernel_t fn, int64_t blocks, int threads, void *params, char *msg) {
    void *args[1];
    dim3 grid, block;
    args[0] = params;
    grid.x = (unsigned)blocks; grid.y = 1; grid.z = 1;
    block.x = (unsigned)threads; block.y = 1; block.z = 1;
    GC_CU(cudaLaunchKernel((const void *)fn, grid, block, args, 0, st->stream), "cudaLaunchKernel(genie_k)");
    return GENIE_OK;
}
/* The kernel of a structure: by key; on a miss b (its source) is generated by gen, then
   loaded or compiled (gc_kernel_get) and remembered under the key. */
static genie_result gc_kernel_by_key(gc_state *st, const uint64_t *key, int nkey, gc_sb *b, cudaKernel_t *fn, char *msg) {
    uint64_t h = gc_hash((const char *)key, (size_t)nkey * 8, 0xcbf29ce484222325ull);
    gc_memo *m = gc_memo_find(st, key, nkey, h);
    genie_result r;
    if (m) { *fn = m->fn; return GENIE_OK; }
    if (b->oom || !b->s) { snprintf(msg, GENIE_BACKEND_MSG, "cuda: out of host memory generating a kernel"); return GENIE_ERR_OOM; }
    if ((r = gc_kernel_get(st, b->s, b->n, fn, msg)) != GENIE_OK) return r;
    if ((m = gc_memo_add(st, key, nkey, h)) != NULL) m->fn = *fn;
    return GENIE_OK;
}
/* An elementwise group (fused, or one node) whose buffers are on the device. */
static genie_result gc_run_group(gc_state *st, const genie__fgroup *g, char *msg) {
    void *ptrs[GENIE__FMAX_IN + GENIE__FMAX_OPS];
    struct { int64_t v[1 + GENIE__MAXD + (GENIE__FMAX_IN + GENIE__FMAX_OPS) * (2 + GENIE__MAXD)]; double s[2 * GENIE__FMAX_OPS]; } pv;
    char params[sizeof pv];
    uint64_t key[GC_MAXKEY];
    gc_sb b;
    int k, j, nv, ns, nop = 0, nkey;
    int64_t blocks;
    cudaKernel_t fn;
    genie_result r;
    for (k = 0; k < g->nin; k++) ptrs[nop++] = g->src[k]->buf->dev;
    for (j = 0; j < g->nops; j++) {
        genie__node *n = g->nodes[j];
        if (!g->written[j]) continue;
        if (!g->out[j].contig || g->total != n->numel) /* the elements outside the view read as zeros */
            GC_CU(cudaMemsetAsync(n->buf->dev, 0, n->buf->bytes, st->stream), "cudaMemsetAsync");
        ptrs[nop++] = n->buf->dev;
    }
    if (g->total == 0) return GENIE_OK;
    memset(&b, 0, sizeof b);
    nkey = gc_key_group(g, key);
    /* the parameters always; the source only when the structure is new */
    gc_group_kernel(g, gc_memo_find(st, key, nkey, gc_hash((const char *)key, (size_t)nkey * 8, 0xcbf29ce484222325ull)) ? NULL : &b,
                    pv.v, pv.s, ptrs, &nv, &ns);
    r = gc_kernel_by_key(st, key, nkey, &b, &fn, msg);
    GENIE_FREE(b.s);
    if (r != GENIE_OK) return r;
    memcpy(params, pv.v, (size_t)nv * 8); /* the kernel's P: v[nv] then s[max(ns, 1)] */
    memcpy(params + (size_t)nv * 8, pv.s, (size_t)(ns ? ns : 1) * 8);
    blocks = (g->total + 255) / 256;
    if (blocks > (int64_t)st->sms * 32) blocks = (int64_t)st->sms * 32;
    return gc_launch(st, fn, blocks, 256, params, msg);
}
static genie_result gc_run_row(gc_state *st, genie__node *n, char *msg) {
    gc_rowp p;
    gc_sb b;
    uint64_t key[8];
    int64_t rows;
    int threads = 32, nkey = gc_key_row(n, key);
    cudaKernel_t fn;
    genie_result r;
    if (!genie__rowwise_whole(n)) GC_CU(cudaMemsetAsync(n->buf->dev, 0, n->buf->bytes, st->stream), "cudaMemsetAsync");
    memset(&b, 0, sizeof b);
    rows = gc_row_kernel(n, gc_memo_find(st, key, nkey, gc_hash((const char *)key, (size_t)nkey * 8, 0xcbf29ce484222325ull)) ? NULL : &b, &p);
    if (rows == 0) { GENIE_FREE(b.s); return GENIE_OK; }
    r = gc_kernel_by_key(st, key, nkey, &b, &fn, msg);
    GENIE_FREE(b.s);
    if (r != GENIE_OK) return r;
    while (threads < 256 && threads < p.inner) threads *= 2;
    if (rows > INT32_MAX) { snprintf(msg, GENIE_BACKEND_MSG, "cuda: %lld rows exceed one grid", (long long)rows); return GENIE_ERR_UNSUPPORTED; }
    return gc_launch(st, fn, rows, threads, &p, msg);
}
static cudaDataType gc_cuda_dt(int dt) {
    return dt == GENIE_F64 ? CUDA_R_64F : dt == GENIE_F16 ? CUDA_R_16F : dt == GENIE_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}
static genie_result gc_run_mm(gc_state *st, genie__node *n, char *msg) {
    gc_mm m;
    const size_t esz = genie__dt_size[n->dtype];
    const char *A = (const char *)n->in[0].n->buf->dev + n->in[0].v->off * esz;
    const char *B = (const char *)n->in[1].n->buf->dev + n->in[1].v->off * esz;
    char *C = (char *)n->buf->dev + n->out->off * esz;
    int64_t outer = 1, bi, count, d;
    float a32 = 1, b32 = 0;
    double a64 = 1, b64 = 0;
    cudaDataType t = gc_cuda_dt(n->dtype);
    cublasComputeType_t ct = n->dtype == GENIE_F64 ? CUBLAS_COMPUTE_64F
                             : (st->tf32 && n->dtype == GENIE_F32) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    if (!gc_mm_plan(n, &m)) { snprintf(msg, GENIE_BACKEND_MSG, "cuda: matmul layout not supported"); return GENIE_ERR_UNSUPPORTED; }
    if (n->nin > 2 || m.K == 0) { /* the bias broadcast into the output (or zeros), then C += A B */
        if (n->nin > 2) {
            genie__fgroup g;
            genie__node bias = *n; /* a copy node: out = in[2] */
            genie_result r;
            bias.op = GENIE__OP_CLONE;
            bias.nin = 1;
            bias.in = &n->in[2];
            if (!gc_node_group(&bias, &g)) { snprintf(msg, GENIE_BACKEND_MSG, "cuda: bias layout"); return GENIE_ERR_UNSUPPORTED; }
            g.root = g.nodes[0] = n;
            if ((r = gc_run_group(st, &g, msg)) != GENIE_OK) return r;
        } else {
            GC_CU(cudaMemsetAsync(n->buf->dev, 0, n->buf->bytes, st->stream), "cudaMemsetAsync");
        }
        b32 = 1;
        b64 = 1;
    }
    if (m.M == 0 || m.N == 0 || m.K == 0) return GENIE_OK;
    for (d = 0; d + 1 < m.nb; d++) outer *= m.bsh[d];
    count = m.nb ? m.bsh[m.nb - 1] : 1;
    if (count > INT32_MAX) { snprintf(msg, GENIE_BACKEND_MSG, "cuda: batch too large"); return GENIE_ERR_UNSUPPORTED; }
    for (bi = 0; bi < outer; bi++) {
        int64_t r = bi, oc = 0, oa = 0, ob = 0;
        for (d = m.nb - 2; d >= 0; d--) {
            int64_t ix = r % m.bsh[d];
            r /= m.bsh[d];
            oc += ix * m.bst[0][d]; oa += ix * m.bst[1][d]; ob += ix * m.bst[2][d];
        }
        /* row-major C = A B is column-major C^T = B^T A^T */
        GC_BLAS(cublasGemmStridedBatchedEx(st->blas, m.opb, m.opa, (int)m.N, (int)m.M, (int)m.K,
                                           n->dtype == GENIE_F64 ? (const void *)&a64 : (const void *)&a32,
                                           B + ob * (int64_t)esz, t, (int)m.ldb, m.nb ? m.bst[2][m.nb - 1] : 0,
                                           A + oa * (int64_t)esz, t, (int)m.lda, m.nb ? m.bst[1][m.nb - 1] : 0,
                                           n->dtype == GENIE_F64 ? (const void *)&b64 : (const void *)&b32,
                                           C + oc * (int64_t)esz, t, (int)m.ldc, m.nb ? m.bst[0][m.nb - 1] : 0, (int)count, ct,
                                           CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx");
    }
    return GENIE_OK;
}

/* ---- the backend table ---- */
static int gc_supports_node(const genie__node *n) {
    genie__fgroup g;
    gc_mm m;
    int kind = genie__op_kinds[n->op];
    if (kind == GENIE__K_MATMUL) return n->op != GENIE__OP_CONV2D && gc_mm_plan(n, &m);
    if (gc_row_node(n)) return 1;
    return gc_node_group(n, &g);
}
static int gc_supports(void *state, const genie__node *n, const genie__fgroup *g) {
    gc_state *st = (gc_state *)state;
    if (!st->compile_only) return g ? gc_group_ok(g) : gc_supports_node(n);
    { /* compile-only: generate and compile what "cuda" would run, then let the CPU run it */
        gc_sb b;
        genie__fgroup one;
        gc_rowp p;
        gc_mm m;
        uint64_t key[GC_MAXKEY];
        int nv, ns, nkey = 0;
        memset(&b, 0, sizeof b);
        if (g) {
            if (!gc_group_ok(g)) return 0;
            gc_check.groups++;
            gc_group_kernel(g, &b, NULL, NULL, NULL, &nv, &ns);
            nkey = gc_key_group(g, key);
        } else if (genie__op_kinds[n->op] == GENIE__K_MATMUL) {
            if (gc_mm_plan(n, &m)) {
                gc_check.gemms++;
                if (n->nin > 2) { /* its bias copy */
                    genie__node bias = *n;
                    bias.op = GENIE__OP_CLONE;
                    bias.nin = 1;
                    bias.in = ((genie__node *)n)->in + 2;
                    if (gc_node_group(&bias, &one)) {
                        gc_group_kernel(&one, &b, NULL, NULL, NULL, &nv, &ns);
                        nkey = gc_key_group(&one, key);
                    }
                }
            }
        } else if (gc_row_node(n)) {
            gc_check.nodes++;
            gc_row_kernel(n, &b, &p);
            nkey = gc_key_row(n, key);
        } else if (gc_node_group(n, &one)) {
            gc_check.nodes++;
            gc_group_kernel(&one, &b, NULL, NULL, NULL, &nv, &ns);
            nkey = gc_key_group(&one, key);
        }
        if (b.n) gc_check_source(st, key, nkey, &b);
        GENIE_FREE(b.s);
        return 0;
    }
}
static genie_result gc_run(void *state, genie__node *n, const genie__fgroup *g, char *msg) {
    gc_state *st = (gc_state *)state;
    genie__fgroup one;
    int kind;
    if (st->compile_only) { snprintf(msg, GENIE_BACKEND_MSG, "cuda-compile runs nothing"); return GENIE_ERR_BACKEND; }
    if (g) return gc_run_group(st, g, msg);
    kind = genie__op_kinds[n->op];
    if (kind == GENIE__K_MATMUL) return gc_run_mm(st, n, msg);
    if (gc_row_node(n)) return gc_run_row(st, n, msg);
    if (gc_node_group(n, &one)) return gc_run_group(st, &one, msg);
    snprintf(msg, GENIE_BACKEND_MSG, "cuda: no kernel for %s", genie__op_names[n->op]);
    return GENIE_ERR_UNSUPPORTED;
}
static genie_result gc_alloc(void *state, genie__buf *b, char *msg) {
    gc_state *st = (gc_state *)state;
    size_t bytes = b->cap > b->bytes ? b->cap : b->bytes;
    char what[96];
    cudaError_t e;
    if (st->compile_only) { snprintf(msg, GENIE_BACKEND_MSG, "cuda-compile has no device"); return GENIE_ERR_BACKEND; }
    e = cudaMallocAsync(&b->dev, bytes ? bytes : 1, st->stream);
    if (e == cudaErrorMemoryAllocation && st->pool) { /* the pool's free blocks back to the device, once more */
        (void)cudaGetLastError();
        cudaStreamSynchronize(st->stream);
        cudaMemPoolTrimTo(st->pool, 0);
        e = cudaMallocAsync(&b->dev, bytes ? bytes : 1, st->stream);
    }
    if (e != cudaSuccess) {
        b->dev = NULL;
        snprintf(what, sizeof what, "cudaMallocAsync(%llu bytes)", (unsigned long long)bytes);
        return gc_cuda_err(msg, e, what);
    }
    return GENIE_OK;
}
static void gc_free(void *state, genie__buf *b) {
    gc_state *st = (gc_state *)state;
    if (b->dev && !st->compile_only) cudaFreeAsync(b->dev, st->stream);
    b->dev = NULL;
}
static genie_result gc_copy_in(void *state, genie__buf *b, char *msg) {
    gc_state *st = (gc_state *)state;
    if (st->compile_only) { snprintf(msg, GENIE_BACKEND_MSG, "cuda-compile has no device"); return GENIE_ERR_BACKEND; }
    if (b->bytes) GC_CU(cudaMemcpyAsync(b->dev, b->data, b->bytes, cudaMemcpyHostToDevice, st->stream), "cudaMemcpyAsync(host to device)");
    GC_CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize"); /* the host block may be reused at once */
    return GENIE_OK;
}
static genie_result gc_copy_out(void *state, genie__buf *b, size_t lo, size_t hi, char *msg) {
    gc_state *st = (gc_state *)state;
    if (st->compile_only) { snprintf(msg, GENIE_BACKEND_MSG, "cuda-compile has no device"); return GENIE_ERR_BACKEND; }
    GC_CU(cudaMemcpyAsync((char *)b->data + lo, (const char *)b->dev + lo, hi - lo, cudaMemcpyDeviceToHost, st->stream),
          "cudaMemcpyAsync(device to host)");
    GC_CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize (a kernel before this read failed)");
    return GENIE_OK;
}
static void gc_destroy(void *state) {
    gc_state *st = (gc_state *)state;
    int i;
    if (!st) return;
    if (!st->compile_only) {
        cudaStreamSynchronize(st->stream);
        for (i = 0; i < st->nkern; i++) cudaLibraryUnload(st->kern[i].lib);
        if (st->blas) cublasDestroy(st->blas);
        if (st->stream) cudaStreamDestroy(st->stream);
    }
    for (i = 0; i < st->nkern; i++) GENIE_FREE(st->kern[i].image);
    for (i = 0; i < st->nmemo; i++) GENIE_FREE(st->memo[i].key);
    GENIE_FREE(st->memo);
    GENIE_FREE(st->kern);
    GENIE_FREE(st);
}
static void gc_cache_dir(gc_state *st) {
    const char *env = getenv("GENIE_CUDA_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char parent[900];
    st->cache_dir[0] = 0;
    if (env && strcmp(env, "0") == 0) return;
    if (env && env[0]) {
        snprintf(st->cache_dir, sizeof st->cache_dir, "%s", env);
    } else if ((xdg && xdg[0]) || (home && home[0])) {
        if (xdg && xdg[0]) snprintf(parent, sizeof parent, "%s", xdg);
        else snprintf(parent, sizeof parent, "%s/.cache", home);
        mkdir(parent, 0755);
        snprintf(st->cache_dir, sizeof st->cache_dir, "%s/genie-cuda", parent);
    } else {
        return;
    }
    mkdir(st->cache_dir, 0755);
}
static genie_result gc_init_common(void **state, int compile_only, char *msg) {
    gc_state *st = (gc_state *)GENIE_MALLOC(sizeof(gc_state));
    if (!st) { snprintf(msg, GENIE_BACKEND_MSG, "out of host memory"); return GENIE_ERR_OOM; }
    memset(st, 0, sizeof *st);
    st->compile_only = compile_only;
    *state = st;
    return GENIE_OK;
}
static genie_result gc_init(void **state, char *msg) {
    gc_state *st;
    struct cudaDeviceProp prop;
    const char *env = getenv("GENIE_CUDA_DEVICE");
    int count = 0, maj = 0, mnr = 0, na = 0, i, best = 0, archs[64];
    cudaError_t e;
    cublasStatus_t s;
    genie_result r;
    *state = NULL;
    if ((e = cudaGetDeviceCount(&count)) != cudaSuccess) return gc_cuda_err(msg, e, "cudaGetDeviceCount"), GENIE_ERR_BACKEND;
    if (count == 0) { snprintf(msg, GENIE_BACKEND_MSG, "cuda: cudaGetDeviceCount: no CUDA device"); return GENIE_ERR_BACKEND; }
    if ((r = gc_init_common(state, 0, msg)) != GENIE_OK) return r;
    st = (gc_state *)*state;
    st->dev = env ? atoi(env) : 0;
    if (st->dev < 0 || st->dev >= count) {
        snprintf(msg, GENIE_BACKEND_MSG, "cuda: GENIE_CUDA_DEVICE=%d but %d device(s)", st->dev, count);
        gc_destroy(st); *state = NULL;
        return GENIE_ERR_BACKEND;
    }
    if ((e = cudaSetDevice(st->dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&prop, st->dev)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        r = gc_cuda_err(msg, e, "cudaSetDevice/cudaGetDeviceProperties/cudaStreamCreateWithFlags");
        gc_destroy(st); *state = NULL;
        return r == GENIE_ERR_OOM ? r : GENIE_ERR_BACKEND;
    }
    /* freed blocks stay in the pool (not back to the driver at every synchronization): a
       buffer too large for genie's cache is then still cheap to get again */
    if (cudaDeviceGetDefaultMemPool(&st->pool, st->dev) == cudaSuccess) {
        uint64_t keep = UINT64_MAX;
        if (cudaMemPoolSetAttribute(st->pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) (void)cudaGetLastError();
    } else {
        (void)cudaGetLastError();
        st->pool = NULL;
    }
    maj = prop.major;
    mnr = prop.minor;
    st->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    st->arch = maj * 10 + mnr;
    /* NVRTC that predates the device: its newest arch (the driver JITs nothing then: sm code only) */
    if (nvrtcGetNumSupportedArchs(&na) == NVRTC_SUCCESS && na > 0 && na <= 64 && nvrtcGetSupportedArchs(archs) == NVRTC_SUCCESS) {
        for (i = 0; i < na; i++)
            if (archs[i] <= st->arch && archs[i] > best) best = archs[i];
        if (best) st->arch = best;
    }
    if ((s = cublasCreate(&st->blas)) != CUBLAS_STATUS_SUCCESS || (s = cublasSetStream(st->blas, st->stream)) != CUBLAS_STATUS_SUCCESS) {
        r = gc_blas_err(msg, s, "cublasCreate/cublasSetStream");
        gc_destroy(st); *state = NULL;
        return r == GENIE_ERR_OOM ? r : GENIE_ERR_BACKEND;
    }
    env = getenv("GENIE_CUDA_TF32");
    st->tf32 = env && env[0] == '1';
    gc_cache_dir(st);
    return GENIE_OK;
}
static genie_result gc_init_compile(void **state, char *msg) {
    const char *env = getenv("GENIE_CUDA_CHECK_ARCHS");
    const char *p = env && env[0] ? env : "80,90";
    gc_state *st;
    int major = 0, minor = 0;
    genie_result r;
    nvrtcResult e = nvrtcVersion(&major, &minor);
    if (e != NVRTC_SUCCESS) return gc_nvrtc_err(msg, e, "nvrtcVersion", NULL), GENIE_ERR_BACKEND;
    if ((r = gc_init_common(state, 1, msg)) != GENIE_OK) return r;
    st = (gc_state *)*state;
    while (*p && st->narchs < 8) {
        int a = atoi(p);
        if (a > 0) st->archs[st->narchs++] = a;
        while (*p && *p != ',') p++;
        if (*p == ',') p++;
    }
    return GENIE_OK;
}

/* the two tables differ only in name and init (C99 designated initializers: by field, not position) */
#define GC_BACKEND_OPS                                                                               \
    .destroy = gc_destroy, .supports = gc_supports, .run = gc_run, .alloc = gc_alloc, .free = gc_free, \
    .copy_in = gc_copy_in, .copy_out = gc_copy_out
static const genie_backend gc_backend = {.name = "cuda", .init = gc_init, GC_BACKEND_OPS};
static const genie_backend gc_backend_compile = {.name = "cuda-compile", .init = gc_init_compile, GC_BACKEND_OPS};
#undef GC_BACKEND_OPS
/* Registers "cuda" and "cuda-compile" (done at load time with GCC and Clang); genie_cuda.h */
genie_result genie_cuda_register(void) {
    genie_result r = genie_backend_register(&gc_backend);
    return r != GENIE_OK ? r : genie_backend_register(&gc_backend_compile);
}
#if defined(__GNUC__)
__attribute__((constructor)) static void gc_autoregister(void) { (void)genie_cuda_register(); }
#endif
