/* test_main.c - genie's test runner: unit tests, then the PyTorch-generated
   program files in tests/data, then (when PyTorch is installed) fresh random
   programs. Ends with "N passed, N failed[, N skipped]".
   This file includes genie.h without the implementation (impl.c has it), so
   the build itself checks that two translation units link together; cxx_part.cpp
   is a third, compiled as C++. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime: the shards' unit times */
#include "../programs/prog.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <errno.h>

static int passed, failed, skipped;

/* GENIE_TEST_SHARD=I/N (make valgrind runs N processes side by side): this process runs the
   suites, program files and long suites' parts (test_reduce.c's) whose index k has k % N == I,
   so the N shards run each unit once. With GENIE_TEST_CLAIM=DIR as well (tests/shards.sh), a
   unit goes to the first shard that reaches it instead (it creates DIR/k), which balances the
   shards whatever the units' lengths. GENIE_TEST_TIMES=1 prints each unit's wall time. */
static int shard_i, shard_n = 1, shard_k, shard_times;
static const char *shard_claim;
int test_shard_take(void);
int test_shard_take(void) {
    const int k = shard_k++;
    if (shard_claim) {
        char path[512];
        FILE *f;
        snprintf(path, sizeof path, "%s/%d", shard_claim, k);
        if (!(f = fopen(path, "wx"))) return errno != EEXIST; /* C11's exclusive mode: another shard has
                                                                 it; any other failure: run it here too */
        fclose(f);
        return 1;
    }
    return k % shard_n == shard_i;
}
/* GENIE_TEST_QUICK=1: the quick tier of make test (every suite, shorter) */
static int test_quick(void) { return getenv("GENIE_TEST_QUICK") && atoi(getenv("GENIE_TEST_QUICK")) != 0; }
static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#define CHECK(cond) check_((cond) != 0, #cond, __FILE__, __LINE__)
static void check_(int ok, const char *what, const char *file, int line) {
    if (ok) passed++;
    else { failed++; printf("FAIL %s:%d: %s\n", file, line, what); }
}
int cxx_smoke(void); /* cxx_part.cpp */
void test_planner(int *passed, int *failed); /* test_planner.c */
void gemm_tests(int *passed, int *failed, int *skipped); /* test_gemm.c: every CPU kernel path against the reference */
void fuse_tests(int *passed, int *failed); /* test_fuse.c */
void rfuse_tests(int *passed, int *failed); /* test_rfuse.c: row groups */
void tcache_tests(int *passed, int *failed); /* test_tcache.c */
void threads_tests(int *passed, int *failed); /* test_threads.c: independent contexts on threads at once */
void test_vmath(int *passed, int *failed, int *skipped); /* test_vmath.c */
void test_reduce_run(int *passed, int *failed, int *skipped); /* test_reduce.c */
void test_roles(int *passed, int *failed); /* test_roles.c */
void test_llmops_run(int *passed, int *failed, int *skipped); /* test_llmops.c */
void test_safetensors_run(int *passed, int *failed); /* test_safetensors.c: files mapped */
void test_safetensors_nommap_run(int *passed, int *failed); /* ... and read with GENIE_NO_MMAP */

static genie_tensor *vec(genie_ctx *ctx, int n, const float *v) {
    int64_t s = n;
    return genie_from_data(ctx, GENIE_F32, 1, &s, v);
}

static void test_errors(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t s23[2] = {2, 3}, s45[2] = {4, 5};
    genie_tensor *a = genie_zeros(ctx, GENIE_F32, 2, s23), *b = genie_zeros(ctx, GENIE_F32, 2, s45), *r;
    float buf[6] = {9, 9, 9, 9, 9, 9};
    CHECK(genie_status(ctx) == GENIE_OK && strcmp(genie_last_error(ctx), "") == 0);
    r = genie_matmul(ctx, a, b);
    CHECK(r == NULL);
    CHECK(genie_status(ctx) == GENIE_ERR_SHAPE);
    CHECK(strcmp(genie_last_error(ctx), "genie_matmul: inner dimensions differ: [2,3] @ [4,5] (3 != 4)") == 0);
    /* sticky: NULL out until cleared, and the first error is kept */
    CHECK(genie_add(ctx, a, a) == NULL);
    CHECK(genie_view(ctx, a, 1, s45) == NULL);
    CHECK(strstr(genie_last_error(ctx), "genie_matmul") != NULL);
    CHECK(genie_realize(ctx, 1, &a) == GENIE_ERR_SHAPE);
    genie_clear_error(ctx);
    CHECK(genie_add(ctx, a, a) != NULL);
    /* codes */
    CHECK(genie_add(ctx, a, NULL) == NULL && genie_status(ctx) == GENIE_ERR_INVALID_ARG);
    CHECK(strstr(genie_last_error(ctx), "genie_add") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_matmul(ctx, a, genie_zeros(ctx, GENIE_F64, 2, s23)) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    CHECK(genie_view(ctx, genie_t(ctx, a), 1, (int64_t[]){6}) == NULL && genie_status(ctx) == GENIE_ERR_VIEW);
    genie_clear_error(ctx);
    CHECK(genie_select(ctx, a, 0, 2) == NULL && genie_status(ctx) == GENIE_ERR_INDEX);
    CHECK(strstr(genie_last_error(ctx), "[2,3]") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_sum(ctx, a, 1, (int64_t[]){2}, 0) == NULL && genie_status(ctx) == GENIE_ERR_INDEX);
    genie_clear_error(ctx);
    CHECK(genie_full(ctx, GENIE_I8, 1, (int64_t[]){2}, 300) == NULL && genie_status(ctx) == GENIE_ERR_INVALID_ARG);
    genie_clear_error(ctx);
    CHECK(genie_zeros(ctx, GENIE_F32, 2, (int64_t[]){INT64_MAX, 4}) == NULL && genie_status(ctx) == GENIE_ERR_OVERFLOW);
    genie_clear_error(ctx);
    CHECK(genie_zeros(ctx, GENIE_F32, 9, s23) == NULL && genie_status(ctx) == GENIE_ERR_INVALID_ARG);
    genie_clear_error(ctx);
    /* read into a too-small buffer: an error, nothing written */
    CHECK(genie_read(ctx, a, GENIE_F32, buf, 5 * sizeof(float)) == GENIE_ERR_INVALID_ARG);
    CHECK(buf[0] == 9 && buf[4] == 9);
    genie_clear_error(ctx);
    CHECK(genie_item(ctx, a, (double[]){0}) == GENIE_ERR_INVALID_ARG);
    genie_clear_error(ctx);
    CHECK(strstr(genie_result_string(GENIE_ERR_VIEW), "GENIE_ERR_VIEW") != NULL);
    CHECK(strcmp(genie_result_string((genie_result)-99), "unknown genie_result") == 0);
    {   /* a tensor of another context is refused, not followed */
        genie_ctx *other = genie_ctx_create(NULL);
        genie_tensor *o = genie_zeros(other, GENIE_F32, 2, s23);
        CHECK(genie_add(ctx, a, o) == NULL && genie_status(ctx) == GENIE_ERR_INVALID_ARG);
        CHECK(strstr(genie_last_error(ctx), "another context") != NULL);
        genie_clear_error(ctx);
        CHECK(genie_layer_norm(ctx, a, 1, s23 + 1, o, NULL, 1e-5) == NULL && genie_status(ctx) == GENIE_ERR_INVALID_ARG);
        genie_clear_error(ctx);
        CHECK(genie_realize(ctx, 1, &o) == GENIE_ERR_INVALID_ARG);
        genie_clear_error(ctx);
        genie_ctx_destroy(other);
    }
    genie_ctx_destroy(ctx);
    CHECK(genie_add(NULL, NULL, NULL) == NULL);
}

/* genie_read converts as PyTorch's copy_ does on x86 (expected bits from torch 1.13) */
static void test_read_conversions(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    static const float v[12] = {1.0f, 65519.0f, 65520.0f, 1e-8f, -2.5f, 300.7f, NAN, 6e-5f, -0.0f, 3.0e38f, 1.00390625f, 1.01171875f};
    static const uint16_t h[12] = {15360, 31743, 31744, 0, 49408, 23731, 32256, 1007, 32768, 31744, 15364, 15372};
    static const uint16_t b[12] = {16256, 18304, 18304, 12844, 49184, 17302, 0, 14460, 32768, 32610, 16256, 16258};
    static const uint8_t u8[12] = {1, 239, 240, 0, 254, 44, 0, 0, 0, 0, 1, 1};
    static const int32_t i32[12] = {1, 65519, 65520, 0, -2, 300, INT32_MIN, 0, 0, INT32_MIN, 1, 1};
    static const uint8_t bo[12] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1};
    uint16_t h2[12], b2[12];
    uint8_t u2[12], bo2[12];
    int32_t i2[12];
    genie_tensor *t = vec(ctx, 12, v);
    int i, ok_h = 1, ok_b = 1;
    CHECK(genie_read(ctx, t, GENIE_F16, h2, sizeof h2) == GENIE_OK);
    CHECK(genie_read(ctx, t, GENIE_BF16, b2, sizeof b2) == GENIE_OK);
    CHECK(genie_read(ctx, t, GENIE_U8, u2, sizeof u2) == GENIE_OK && memcmp(u2, u8, sizeof u8) == 0);
    CHECK(genie_read(ctx, t, GENIE_I32, i2, sizeof i2) == GENIE_OK && memcmp(i2, i32, sizeof i32) == 0);
    CHECK(genie_read(ctx, t, GENIE_BOOL, bo2, sizeof bo2) == GENIE_OK && memcmp(bo2, bo, sizeof bo) == 0);
    for (i = 0; i < 12; i++) {
        ok_h &= h2[i] == h[i];
        ok_b &= i == 6 ? ((b2[i] & 0x7f80) == 0x7f80 && (b2[i] & 0x7f)) : b2[i] == b[i]; /* any NaN */
    }
    CHECK(ok_h);
    CHECK(ok_b);
    genie_ctx_destroy(ctx);
}

/* genie_read's whole-array paths (contiguous: bytes as they are, f32 <-> f16/bf16 by the array
   conversions) against its element path, which a transposed view takes: every pair of f32, f16,
   bf16 and f64, element for element (any NaN for a NaN), on the tensor, a narrowed one (an
   offset) and the transposed one. A signalling NaN read as its own dtype keeps its bits. */
static int same_value(genie_dtype dt, const void *a, const void *b) {
    double x, y;
    uint16_t u, v;
    float f, g;
    switch (dt) {
    case GENIE_F64: memcpy(&x, a, 8), memcpy(&y, b, 8); return x == y || (x != x && y != y);
    case GENIE_F32: memcpy(&f, a, 4), memcpy(&g, b, 4); return f == g || (f != f && g != g);
    default: memcpy(&u, a, 2), memcpy(&v, b, 2); {
            const unsigned e = dt == GENIE_F16 ? 0x7c00u : 0x7f80u;
            return u == v || ((u & e) == e && (u & ~e & 0x7fffu) && (v & e) == e && (v & ~e & 0x7fffu));
        }
    }
}
static void test_read_paths(void) {
    static const genie_dtype dts[4] = {GENIE_F32, GENIE_F16, GENIE_BF16, GENIE_F64};
    enum { R = 37, C = 29, N = R * C };
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t sh[2] = {R, C}, one = 1, i, j;
    float *x = (float *)malloc(N * 4);
    char *bc = (char *)malloc(N * 8), *bn = (char *)malloc(N * 8), *bt = (char *)malloc(N * 8);
    uint32_t snan = 0x7f800001u, sb;
    int k, a, ok = 1;
    for (i = 0; i < N; i++) x[i] = i % 41 == 7 ? NAN : i % 53 == 3 ? -INFINITY : (float)(sin((double)i) * ldexp(1.0, (int)(i % 40) - 20));
    for (k = 0; k < 3; k++) {
        genie_tensor *t = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F32, 2, sh, x), dts[k]);
        for (a = 0; a < 4; a++) {
            const size_t es = dts[a] == GENIE_F64 ? 8 : dts[a] == GENIE_F32 ? 4 : 2;
            CHECK(genie_read(ctx, t, dts[a], bc, N * es) == GENIE_OK);
            CHECK(genie_read(ctx, genie_narrow(ctx, t, 0, 5, 30), dts[a], bn, 30 * C * es) == GENIE_OK);
            CHECK(genie_read(ctx, genie_t(ctx, t), dts[a], bt, N * es) == GENIE_OK);
            for (i = 0; i < R; i++)
                for (j = 0; j < C; j++) {
                    ok &= same_value(dts[a], bc + (size_t)(i * C + j) * es, bt + (size_t)(j * R + i) * es);
                    if (i >= 5 && i < 35) ok &= same_value(dts[a], bc + (size_t)(i * C + j) * es, bn + (size_t)((i - 5) * C + j) * es);
                }
        }
    }
    CHECK(ok);
    { /* a signalling NaN's payload survives a same-dtype read */
        float v;
        memcpy(&v, &snan, 4);
        CHECK(genie_read(ctx, genie_from_data(ctx, GENIE_F32, 1, &one, &v), GENIE_F32, &v, 4) == GENIE_OK);
        memcpy(&sb, &v, 4);
        CHECK(sb == snan);
    }
    free(x), free(bc), free(bn), free(bt);
    genie_ctx_destroy(ctx);
}

static void test_laziness(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float v[4] = {1, 2, 3, 4}, out[4];
    genie_tensor *A = vec(ctx, 4, v), *B, *C, *D;
    genie_stats s;
    B = genie_add(ctx, A, A);
    C = genie_mul_scalar(ctx, B, 2);
    D = genie_sub_scalar(ctx, A, 1);
    s = genie_get_stats(ctx);
    CHECK(s.nodes_executed == 0 && s.tapes_run == 0);
    CHECK(!genie_is_materialized(C) && genie_is_materialized(A));
    CHECK(genie_read(ctx, C, GENIE_F32, out, sizeof out) == GENIE_OK);
    CHECK(out[0] == 4 && out[3] == 16);
    s = genie_get_stats(ctx);
    CHECK(s.nodes_executed == 2); /* B and C; D is not needed */
    /* B, cheap, computed in C's fused pass: left lazy (deferred) though its handle lives; the
       reference path fuses nothing, so B runs alone there and is written */
    CHECK(!genie_is_materialized(D) && genie_is_materialized(B) == (genie_cpu_path(ctx) == GENIE_CPU_REFERENCE));
    CHECK(s.materializations[GENIE_MAT_READ] == 1);
    CHECK(s.tape_lazy_inputs == 1 && s.tape_constants == 2); /* C reads B (lazy); B reads A twice (constant) */
    CHECK(genie_read(ctx, C, GENIE_F32, out, sizeof out) == GENIE_OK);
    CHECK(genie_get_stats(ctx).nodes_executed == 2); /* nothing recomputed */
    {
        double x;
        int64_t i;
        genie_tensor *e = genie_sum(ctx, D, 0, NULL, 0);
        CHECK(genie_item(ctx, e, &x) == GENIE_OK && x == 6);
        CHECK(genie_get_stats(ctx).materializations[GENIE_MAT_ITEM] == 1);
        CHECK(genie_item_i64(ctx, genie_mul_scalar(ctx, e, -1.25), &i) == GENIE_OK && i == -7); /* truncates */
        /* a view of a materialized value is materialized for free: no kernel */
        CHECK(genie_is_materialized(genie_t(ctx, genie_unsqueeze(ctx, C, 0))));
        CHECK(genie_dtype_size(GENIE_BF16) == 2 && genie_dtype_size(GENIE_I64) == 8 && genie_dtype_size(GENIE_BOOL) == 1);
        CHECK(strcmp(genie_dtype_name(GENIE_F16), "f16") == 0);
        CHECK(genie_set_num_threads(ctx, 2) == GENIE_OK);
        CHECK(genie_set_num_threads(ctx, -1) == GENIE_ERR_INVALID_ARG && genie_status(ctx) == GENIE_ERR_INVALID_ARG);
        genie_clear_error(ctx);
    }
    genie_ctx_destroy(ctx);
}

static void test_graph_freed(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float v[4] = {1, 2, 3, 4};
    genie_tensor *r;
    uint64_t before;
    genie_pool_push(ctx);
    r = vec(ctx, 4, v);
    before = genie_get_stats(ctx).nodes_live;
    genie_pool_push(ctx);
    {
        genie_tensor *x = genie_exp(ctx, r), *y = genie_add(ctx, x, x), *z = genie_relu(ctx, y);
        genie_retain(z);
        genie_pool_pop(ctx);
        CHECK(genie_get_stats(ctx).nodes_live == before + 3); /* pending: z holds y holds x */
        CHECK(genie_realize(ctx, 1, &z) == GENIE_OK);
        CHECK(genie_get_stats(ctx).nodes_live == before + 1); /* materialized z dropped its inputs */
        genie_release(z);
    }
    CHECK(genie_get_stats(ctx).nodes_live == before);
    genie_pool_pop(ctx);
    CHECK(genie_get_stats(ctx).nodes_live == 0);
    CHECK(genie_get_stats(ctx).bytes_live == 0);
    genie_ctx_destroy(ctx);
}

static void test_no_pool(void) {
    genie_ctx_desc d = {.no_pool = 1};
    genie_ctx *ctx = genie_ctx_create(&d);
    float v[3] = {1, 2, 3}, out[3];
    genie_tensor *a = vec(ctx, 3, v), *b = genie_mul(ctx, a, a), *c = genie_t(ctx, b);
    genie_tuple *tu = genie_split(ctx, b, 2, 0);
    genie_release(a); /* graph edges hold their own references */
    CHECK(genie_read(ctx, c, GENIE_F32, out, sizeof out) == GENIE_OK && out[2] == 9);
    CHECK(genie_tuple_size(tu) == 2 && genie_numel(genie_tuple_get(tu, 1)) == 1);
    genie_tuple_release(tu);
    genie_release(b);
    genie_release(c);
    CHECK(genie_get_stats(ctx).nodes_live == 0 && genie_get_stats(ctx).bytes_live == 0);
    genie_ctx_destroy(ctx);
}

static int deleted;
static void deleter(void *data, void *user) { (void)data; deleted += *(int *)user; }

static void test_blob(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float mem[12];
    int one = 1, i;
    int64_t shape[2] = {3, 2}, strides[2] = {4, 2};
    const void *p;
    float out[6];
    genie_tensor *t, *s;
    for (i = 0; i < 12; i++) mem[i] = (float)i;
    t = genie_from_blob(ctx, GENIE_F32, 2, shape, strides, mem, deleter, &one);
    CHECK(t && genie_is_materialized(t) && genie_strides(t)[0] == 4 && !genie_is_contiguous(t));
    CHECK(genie_data(ctx, t, &p) == GENIE_OK && p == (const void *)mem); /* no copy */
    s = genie_select(ctx, t, 1, 1);
    CHECK(genie_data(ctx, s, &p) == GENIE_OK && p == (const void *)(mem + 2));
    CHECK(genie_read(ctx, t, GENIE_F32, out, sizeof out) == GENIE_OK && out[1] == 2 && out[2] == 4 && out[5] == 10);
    /* an in-place write makes a new version; the caller's memory is not written */
    genie_add_(ctx, s, genie_full(ctx, GENIE_F32, 0, NULL, 100));
    CHECK(genie_read(ctx, t, GENIE_F32, out, sizeof out) == GENIE_OK && out[1] == 102 && out[0] == 0);
    CHECK(mem[2] == 2);
    CHECK(genie_get_stats(ctx).inplace_copied == 1);
    CHECK(deleted == 1); /* the old version was the last user of the blob: genie let go */
    CHECK(genie_from_blob(ctx, GENIE_F32, 2, shape, strides, mem, deleter, &one) != NULL);
    CHECK(deleted == 1);
    genie_ctx_destroy(ctx);
    CHECK(deleted == 2); /* ... and at destroy */
}

static void test_tuples_lazy(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float v[6] = {3, 1, 4, 1, 5, 9}, out[6];
    int64_t idx[3];
    genie_tensor *x = vec(ctx, 6, v), *y = genie_mul_scalar(ctx, x, 2);
    genie_tuple *tk = genie_topk(ctx, y, 3, 0, 1, 1), *sp;
    genie_stats s = genie_get_stats(ctx);
    CHECK(s.nodes_executed == 0 && genie_tuple_size(tk) == 2);
    CHECK(genie_read(ctx, genie_tuple_get(tk, 0), GENIE_F32, out, 3 * sizeof(float)) == GENIE_OK);
    CHECK(out[0] == 18 && out[1] == 10 && out[2] == 8);
    CHECK(genie_get_stats(ctx).nodes_executed == 2); /* y and the values; not the indices */
    CHECK(!genie_is_materialized(genie_tuple_get(tk, 1)));
    CHECK(genie_read(ctx, genie_tuple_get(tk, 1), GENIE_I64, idx, sizeof idx) == GENIE_OK && idx[0] == 5 && idx[2] == 2);
    CHECK(genie_get_stats(ctx).nodes_executed == 3);
    /* split elements are views: a later write to the input shows through */
    sp = genie_split(ctx, x, 4, 0);
    CHECK(genie_tuple_size(sp) == 2 && genie_shares_storage(genie_tuple_get(sp, 1), x));
    CHECK(genie_tuple_get(sp, 2) == NULL && genie_status(ctx) == GENIE_ERR_INDEX);
    genie_clear_error(ctx);
    genie_add_(ctx, x, genie_full(ctx, GENIE_F32, 0, NULL, 1));
    CHECK(genie_read(ctx, genie_tuple_get(sp, 1), GENIE_F32, out, 2 * sizeof(float)) == GENIE_OK && out[0] == 6 && out[1] == 10);
    CHECK(strcmp(genie_op_name(genie_tuple_get(sp, 0)), "aten::split") == 0);
    genie_tuple_release(sp);
    genie_ctx_destroy(ctx);
}

static void test_chain(int n) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float v[2] = {0, 1}, out[2];
    genie_tensor *t = vec(ctx, 2, v);
    int i;
    clock_t c0 = clock();
    genie_pool_push(ctx);
    for (i = 0; i < n; i++) t = genie_add_scalar(ctx, t, 1.0);
    CHECK(genie_read(ctx, t, GENIE_F32, out, sizeof out) == GENIE_OK);
    CHECK(out[0] == (float)n && out[1] == (float)n + 1);
    CHECK(genie_get_stats(ctx).nodes_executed == (uint64_t)n);
    genie_pool_pop(ctx);
    CHECK(genie_get_stats(ctx).nodes_live == 1);
    printf("  chain of %d operations: captured, realized and freed in %.2f s\n", n, (double)(clock() - c0) / CLOCKS_PER_SEC);
    genie_ctx_destroy(ctx);
}

static void test_rng(void) {
    genie_ctx_desc d1 = {.n_threads = 1}, d2 = {.n_threads = 2};
    genie_ctx *a = genie_ctx_create(&d1), *b = genie_ctx_create(&d2);
    int64_t n = 20000, i;
    float *x = (float *)malloc((size_t)n * 4), *y = (float *)malloc((size_t)n * 4);
    double mean = 0, var = 0, lo = 1, hi = 0;
    CHECK(genie_read(a, genie_randn(a, GENIE_F32, 1, &n, 42), GENIE_F32, x, (size_t)n * 4) == GENIE_OK);
    CHECK(genie_read(b, genie_randn(b, GENIE_F32, 1, &n, 42), GENIE_F32, y, (size_t)n * 4) == GENIE_OK);
    CHECK(memcmp(x, y, (size_t)n * 4) == 0); /* same values whatever the thread count */
    for (i = 0; i < n; i++) mean += x[i];
    mean /= (double)n;
    for (i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= (double)n;
    CHECK(fabs(mean) < 0.05 && fabs(var - 1) < 0.05);
    CHECK(genie_read(a, genie_rand(a, GENIE_F32, 1, &n, 7), GENIE_F32, x, (size_t)n * 4) == GENIE_OK);
    for (i = 0; i < n; i++) { lo = x[i] < lo ? x[i] : lo; hi = x[i] > hi ? x[i] : hi; }
    CHECK(lo >= 0 && hi < 1 && lo < 0.01 && hi > 0.99);
    CHECK(genie_read(a, genie_rand(a, GENIE_F32, 1, &n, 8), GENIE_F32, y, (size_t)n * 4) == GENIE_OK);
    CHECK(memcmp(x, y, (size_t)n * 4) != 0);
    CHECK(genie_rand(a, GENIE_I32, 1, &n, 1) == NULL && genie_status(a) == GENIE_ERR_DTYPE);
    free(x);
    free(y);
    genie_ctx_destroy(a);
    genie_ctx_destroy(b);
}

static void test_scopes_dump(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float v[4] = {1, 2, 3, 4};
    genie_tensor *x = vec(ctx, 4, v), *h, *y, *tr;
    FILE *f = tmpfile();
    char text[8192];
    size_t len;
    genie_set_phase(ctx, "prefill");
    genie_scope_push(ctx, "encoder");
    genie_scope_push(ctx, "layers");
    genie_scope_push(ctx, "0");
    h = genie_relu(ctx, x);
    genie_scope_pop(ctx);
    genie_scope_pop(ctx);
    y = genie_add(ctx, h, x);
    genie_scope_pop(ctx);
    genie_scope_pop(ctx); /* popping past the top is harmless */
    tr = genie_t(ctx, y);
    CHECK(strcmp(genie_module_path(h), "encoder.layers.0") == 0);
    CHECK(strcmp(genie_module_path(y), "encoder") == 0 && strcmp(genie_module_path(tr), "") == 0);
    CHECK(strcmp(genie_phase(h), "prefill") == 0);
    CHECK(strcmp(genie_op_name(h), "aten::relu") == 0 && strcmp(genie_op_name(tr), "aten::t") == 0);
    genie_add_(ctx, h, x);
    CHECK(strcmp(genie_op_name(h), "aten::add_") == 0);
    {
        genie_tensor *roots[2];
        roots[0] = tr;
        roots[1] = h;
        CHECK(genie_dump_dot(ctx, 2, roots, f) == GENIE_OK);
    }
    rewind(f);
    len = fread(text, 1, sizeof text - 1, f);
    text[len] = 0;
    fclose(f);
    CHECK(strstr(text, "digraph genie") != NULL);
    CHECK(strstr(text, "cluster_encoder.layers.0") != NULL && strstr(text, "cluster_encoder\"") != NULL);
    CHECK(strstr(text, "aten::add_") != NULL && strstr(text, "aten::relu") != NULL && strstr(text, "old version") != NULL);
    CHECK(strstr(text, "pending") != NULL && strstr(text, "materialized") != NULL && strstr(text, "phase prefill") != NULL);
    genie_ctx_destroy(ctx);
}

static void test_data_errors(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float w[6] = {1, 2, 3, 4, 5, 6};
    int64_t ws[2] = {3, 2}, bad[2] = {0, 3}, one = 2;
    genie_tensor *W = genie_from_data(ctx, GENIE_F32, 2, ws, w);
    genie_tensor *I = genie_from_data(ctx, GENIE_I64, 1, &one, bad);
    genie_tensor *E = genie_embedding(ctx, W, I), *F = genie_relu(ctx, E), *G;
    CHECK(E != NULL && genie_status(ctx) == GENIE_OK); /* found when computed */
    CHECK(genie_realize(ctx, 1, &F) == GENIE_ERR_INDEX);
    CHECK(strstr(genie_last_error(ctx), "genie_embedding: index 3 is out of range") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_realize(ctx, 1, &E) == GENIE_ERR_INDEX); /* stays failed */
    genie_clear_error(ctx);
    G = genie_fill_(ctx, genie_select(ctx, E, 0, 0), 1.0); /* a storage whose version failed stays failed */
    CHECK(G != NULL && genie_realize(ctx, 1, &G) == GENIE_ERR_INDEX);
    genie_clear_error(ctx);
    CHECK(genie_get_stats(ctx).nodes_failed >= 3);
    genie_ctx_destroy(ctx);
}

static void test_inplace_versions(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float v[6] = {0, 1, 2, 3, 4, 5}, out[6];
    int64_t s[2] = {2, 3};
    genie_tensor *base = genie_view(ctx, vec(ctx, 6, v), 2, s);
    genie_tensor *row = genie_select(ctx, base, 0, 1);
    genie_tensor *before = genie_mul_scalar(ctx, base, 10); /* captured before the write */
    genie_tensor *col;
    genie_fill_(ctx, row, -1);
    CHECK(!genie_is_materialized(base) && !genie_is_materialized(row));
    col = genie_select(ctx, base, 1, 2); /* a view made after the write */
    CHECK(genie_read(ctx, col, GENIE_F32, out, 2 * sizeof(float)) == GENIE_OK && out[0] == 2 && out[1] == -1);
    CHECK(genie_read(ctx, before, GENIE_F32, out, sizeof out) == GENIE_OK && out[3] == 30 && out[5] == 50);
    /* 'before' still read the old version: the write ran on a copy */
    CHECK(genie_get_stats(ctx).inplace_copied == 1 && genie_get_stats(ctx).inplace_reused == 0);
    genie_relu_(ctx, base);
    CHECK(genie_read(ctx, base, GENIE_F32, out, sizeof out) == GENIE_OK && out[3] == 0 && out[2] == 2);
    CHECK(genie_get_stats(ctx).inplace_reused == 1); /* nobody needed the old version */
    /* overlap rules */
    CHECK(genie_add_(ctx, genie_expand(ctx, row, 2, s), base) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
    genie_clear_error(ctx);
    CHECK(genie_fill_(ctx, genie_expand(ctx, genie_zeros(ctx, GENIE_F32, 1, (int64_t[]){1}), 1, (int64_t[]){3}), 5) != NULL);
    {
        genie_tensor *x = vec(ctx, 6, v);
        genie_tensor *a = genie_slice(ctx, x, 0, 1, 6, 1), *b = genie_slice(ctx, x, 0, 0, 5, 1);
        CHECK(genie_copy_(ctx, a, b) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
        genie_clear_error(ctx);
        /* TOO_HARD and really overlapping: read-modify-write refused, pure writes take the last writer */
        a = genie_as_strided(ctx, x, 2, (int64_t[]){2, 2}, (int64_t[]){1, 1}, 0);
        CHECK(genie_add_(ctx, a, genie_ones(ctx, GENIE_F32, 0, NULL)) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
        genie_clear_error(ctx);
        CHECK(genie_copy_(ctx, a, genie_from_data(ctx, GENIE_F32, 2, (int64_t[]){2, 2}, (float[]){10, 11, 12, 13})) != NULL);
        CHECK(genie_read(ctx, x, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 10 && out[1] == 12 && out[2] == 13);
        CHECK(genie_div_(ctx, genie_arange(ctx, GENIE_I64, 0, 3, 1), genie_arange(ctx, GENIE_I64, 1, 4, 1)) == NULL &&
              genie_status(ctx) == GENIE_ERR_DTYPE);
        CHECK(strstr(genie_last_error(ctx), "can't be cast") != NULL);
        genie_clear_error(ctx);
    }
    genie_ctx_destroy(ctx);
}

static int strides_are(const genie_tensor *t, int n, const int64_t *want, int64_t off) {
    return t && genie_ndim(t) == n && memcmp(genie_strides(t), want, (size_t)n * 8) == 0 && genie_storage_offset(t) == off;
}

/* issue "views that never lie": each rule, with PyTorch 1.13's answers written out */
static void test_view_rules(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t s456[3] = {4, 5, 6}, perm[3] = {2, 0, 1}, ex[3] = {3, -1, -1};
    genie_tensor *x = genie_view(ctx, genie_arange(ctx, GENIE_F32, 0, 120, 1), 3, s456), *v, *w, *e, *f, *a;
    float out[18];
    /* a chain of views is one ViewSpec over the original storage */
    v = genie_narrow(ctx, genie_expand(ctx, genie_unsqueeze(ctx, genie_select(ctx, genie_slice(ctx,
            genie_permute(ctx, x, 3, perm), 0, 1, 5, 2), 1, 2), 0), 3, ex), 2, 1, 3);
    CHECK(strides_are(v, 3, (int64_t[]){0, 2, 6}, 67) && genie_shares_storage(v, x) && !genie_is_contiguous(v));
    CHECK(genie_read(ctx, v, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 67 && out[1] == 73 && out[3] == 69);
    w = genie_diagonal(ctx, v, 0, 1, 2);
    CHECK(strides_are(w, 2, (int64_t[]){0, 8}, 67));
    CHECK(genie_get_stats(ctx).nodes_executed == 1); /* only arange ran: views run nothing */
    /* size-0 dims */
    e = genie_slice(ctx, x, 1, 5, 5, 1);
    CHECK(strides_are(e, 3, (int64_t[]){30, 6, 1}, 30) && genie_is_contiguous(e));
    CHECK(strides_are(genie_unsqueeze(ctx, e, 1), 4, (int64_t[]){30, 0, 6, 1}, 30));
    CHECK(strides_are(genie_squeeze(ctx, e, 1), 3, (int64_t[]){30, 6, 1}, 30));
    /* as_strided: absolute offset, may reach outside its input's window, bounds-checked */
    a = genie_as_strided(ctx, genie_slice(ctx, x, 0, 0, 1, 1), 1, (int64_t[]){3}, (int64_t[]){1}, 117);
    CHECK(a && genie_read(ctx, a, GENIE_F32, out, 3 * sizeof(float)) == GENIE_OK && out[0] == 117 && out[2] == 119);
    CHECK(genie_as_strided(ctx, x, 1, (int64_t[]){3}, (int64_t[]){1}, 118) == NULL && genie_status(ctx) == GENIE_ERR_INDEX);
    CHECK(strstr(genie_last_error(ctx), "genie_as_strided") && strstr(genie_last_error(ctx), "out of bounds for a storage of 120"));
    genie_clear_error(ctx);
    CHECK(genie_as_strided(ctx, x, 1, (int64_t[]){3}, (int64_t[]){-1}, 5) == NULL && genie_status(ctx) == GENIE_ERR_VIEW);
    CHECK(strstr(genie_last_error(ctx), "negative strides") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_as_strided(ctx, x, 1, (int64_t[]){3}, (int64_t[]){1}, -1) == NULL && genie_status(ctx) == GENIE_ERR_VIEW);
    genie_clear_error(ctx);
    /* flip is a copy: no aliasing either way */
    f = genie_flip(ctx, genie_select(ctx, genie_select(ctx, x, 0, 0), 0, 0), 1, (int64_t[]){0});
    CHECK(!genie_shares_storage(f, x) && genie_is_contiguous(f));
    genie_fill_(ctx, f, 7);
    genie_fill_(ctx, genie_select(ctx, x, 0, 0), -1);
    CHECK(genie_read(ctx, f, GENIE_F32, out, 6 * sizeof(float)) == GENIE_OK && out[0] == 7);
    CHECK(genie_read(ctx, genie_select(ctx, genie_select(ctx, x, 0, 0), 0, 0), GENIE_F32, out, 6 * sizeof(float)) == GENIE_OK &&
          out[0] == -1 && out[5] == -1);
    /* ATen's messages for writes that cannot be done */
    CHECK(genie_mul_(ctx, genie_expand(ctx, genie_zeros(ctx, GENIE_F32, 1, (int64_t[]){1}), 1, (int64_t[]){3}),
                     genie_ones(ctx, GENIE_F32, 1, (int64_t[]){3})) == NULL);
    CHECK(strstr(genie_last_error(ctx), "genie_mul_: unsupported operation: more than one element of the written-to tensor refers to a single memory location") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_add_(ctx, genie_slice(ctx, x, 0, 1, 4, 1), genie_slice(ctx, x, 0, 0, 3, 1)) == NULL);
    CHECK(strstr(genie_last_error(ctx), "some elements of the input tensor and the written-to tensor refer to a single memory location") != NULL);
    genie_clear_error(ctx);
    CHECK(genie_add_(ctx, x, genie_t(ctx, genie_ones(ctx, GENIE_F32, 2, (int64_t[]){6, 5}))) != NULL); /* broadcast source */
    CHECK(genie_add_(ctx, x, genie_ones(ctx, GENIE_F32, 1, (int64_t[]){5})) == NULL && genie_status(ctx) == GENIE_ERR_SHAPE);
    genie_clear_error(ctx);
    CHECK(genie_copy_(ctx, genie_zeros(ctx, GENIE_I32, 1, (int64_t[]){2}), genie_full(ctx, GENIE_F32, 0, NULL, 2.7)) != NULL); /* copy casts */
    {   /* copy_ onto itself is a no-op only for the same tensor: an equal expanded view is refused */
        genie_tensor *c = genie_expand(ctx, genie_arange(ctx, GENIE_F32, 0, 6, 1), 2, (int64_t[]){2, 6});
        CHECK(genie_copy_(ctx, c, c) == c);
        CHECK(genie_copy_(ctx, genie_view(ctx, c, 2, (int64_t[]){2, 6}), c) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
        genie_clear_error(ctx);
    }
    CHECK(genie_add_(ctx, genie_zeros(ctx, GENIE_I32, 1, (int64_t[]){2}), genie_full(ctx, GENIE_F32, 0, NULL, 2.7)) == NULL &&
          genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    /* x[1:] += x[1:] through two handles on the same elements: FULL overlap is allowed */
    CHECK(genie_add_(ctx, genie_slice(ctx, x, 0, 1, 4, 1), genie_slice(ctx, x, 0, 1, 4, 1)) != NULL);
    CHECK(genie_read(ctx, genie_select(ctx, genie_select(ctx, x, 0, 1), 0, 0), GENIE_F32, out, 6 * sizeof(float)) == GENIE_OK &&
          out[0] == 2 * (30 + 1));
    /* copy_ from the tensor itself (to the same dtype and contiguous of a contiguous tensor are
       the input itself in PyTorch) does nothing, even into an expanded tensor; another view of
       the same geometry is a copy, and the written tensor's overlap an error (ATen 1.13) */
    {
        genie_tensor *b = genie_arange(ctx, GENIE_F32, 0, 3, 1), *be = genie_expand(ctx, b, 2, (int64_t[]){2, 3});
        CHECK(genie_copy_(ctx, be, genie_to_dtype(ctx, be, GENIE_F32)) == be && genie_status(ctx) == GENIE_OK);
        CHECK(genie_copy_(ctx, b, genie_contiguous(ctx, b)) == b && genie_status(ctx) == GENIE_OK);
        CHECK(genie_copy_(ctx, be, genie_expand(ctx, b, 2, (int64_t[]){2, 3})) == NULL && genie_status(ctx) == GENIE_ERR_UNSUPPORTED);
        genie_clear_error(ctx);
    }
    genie_ctx_destroy(ctx);
}

/* The version: genie_version() is GENIE_VERSION_STRING, which spells the three numbers, and the
   pkg-config file the build wrote (GENIE_PC_FILE, make test sets it) carries the same number. */
static void test_version(void) {
    char want[64], line[256];
    const char *pc = getenv("GENIE_PC_FILE");
    FILE *f;
    int found = 0;
    snprintf(want, sizeof want, "%d.%d.%d", GENIE_VERSION_MAJOR, GENIE_VERSION_MINOR, GENIE_VERSION_PATCH);
    CHECK(strcmp(genie_version(), GENIE_VERSION_STRING) == 0);
    CHECK(strcmp(GENIE_VERSION_STRING, want) == 0);
    if (!pc) {
        printf("skip: the pkg-config file's version (GENIE_PC_FILE is not set; make test sets it)\n");
        skipped++;
        return;
    }
    if (!(f = fopen(pc, "r"))) {
        printf("FAIL cannot open GENIE_PC_FILE=%s\n", pc);
        failed++;
        return;
    }
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Version: ", 9) == 0) {
            line[strcspn(line, "\r\n")] = 0;
            found = 1;
            CHECK(strcmp(line + 9, genie_version()) == 0);
            if (strcmp(line + 9, genie_version()) != 0) printf("  %s says %s, genie_version() %s\n", pc, line + 9, genie_version());
        }
    fclose(f);
    CHECK(found == 1);
}

/* Every program file against PyTorch's values, run both ways: on the default path (fused
   groups, product epilogues, the tape cache shared by all programs of a file) with every core,
   and unfused on the reference kernels with one thread; the property files also fused on one,
   fused with late reads (prog_late: every handle alive while the last value is realized
   first, so the intermediates are deferred and computed when read), and fused with every
   handle released after its last use (prog_released: the intermediates dead at each read). */
static void run_data_files(void) {
    const char *files[] = {"tests/data/cases.txt", "tests/data/props_views.txt", "tests/data/props_graphs.txt",
                           "tests/data/props_ops.txt"};
    static const struct { genie_cpu cpu; int threads, late, released; const char *name; } modes[5] = {
        {GENIE_CPU_AUTO, 0, 0, 0, "fused"}, {GENIE_CPU_REFERENCE, 1, 0, 0, "reference"},
        {GENIE_CPU_AUTO, 1, 0, 0, "fused, 1 thread"}, {GENIE_CPU_AUTO, 0, 1, 0, "fused, late reads"},
        {GENIE_CPU_AUTO, 0, 0, 1, "fused, released"}};
    int i, m, nmodes = getenv("GENIE_FILES_ONE_MODE") || test_quick() ? 1 : 5; /* valgrind and the quick tier:
                                                                                the first mode only */
    for (m = 0; m < nmodes; m++)
        for (i = m >= 2 ? 1 : 0; i < 4; i++) {
            int p = 0, f = 0;
            double t0 = wall_now();
            if (!test_shard_take()) continue;
            prog_cpu = modes[m].cpu;
            prog_threads = modes[m].threads;
            prog_late = modes[m].late;
            prog_released = modes[m].released;
            if (prog_run_file(files[i], &p, &f) < 0) { printf("FAIL cannot open %s\n", files[i]); failed++; continue; }
            printf("  %-30s %-16s %d passed, %d failed\n", files[i], modes[m].name, p, f);
            if (shard_times) printf("  [unit %d: %s %s %.2f s]\n", shard_k - 1, files[i], modes[m].name, wall_now() - t0);
            passed += p;
            failed += f;
        }
    prog_cpu = GENIE_CPU_AUTO;
    prog_threads = 0;
    prog_late = 0;
    prog_released = 0;
}

static void run_fresh_random(void) {
    char cmd[512];
    unsigned seed = getenv("GENIE_SEED") ? (unsigned)strtoul(getenv("GENIE_SEED"), NULL, 10) % 1000000u
                                         : (unsigned)time(NULL) % 1000000u; /* CI fixes it; a developer's run explores */
    const char *modes[3] = {"views", "graphs", "ops"};
    const int n = getenv("GENIE_FRESH_N") ? atoi(getenv("GENIE_FRESH_N")) : test_quick() ? 40 : 200;
    int i;
    if (getenv("GENIE_NO_TORCH")) {
        printf("skip: fresh random programs against PyTorch (GENIE_NO_TORCH is set)\n");
        skipped++;
        return;
    }
    if (system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
        printf("skip: fresh random programs against PyTorch (/usr/bin/python3 with torch not found; apt-get install python3-torch)\n");
        skipped++;
        return;
    }
    for (i = 0; i < 3; i++) {
        int p = 0, f = 0;
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/programs/gen_props.py %s %d %u /tmp/genie_fresh_%s.txt >/dev/null 2>&1",
                 modes[i], n, seed * 1000u, modes[i]);
        if (system(cmd) != 0) { printf("FAIL generating random %s programs (seed %u)\n", modes[i], seed * 1000u); failed++; continue; }
        snprintf(cmd, sizeof cmd, "/tmp/genie_fresh_%s.txt", modes[i]);
        prog_run_file(cmd, &p, &f);
        printf("  fresh %s programs, seed %u: %d passed, %d failed\n", modes[i], seed * 1000u, p, f);
        passed += p;
        failed += f;
    }
}

/* Bit operations on integer and bool tensors against hand-computed values, on the reference
   kernels and on the default path (2 threads), dense, broadcast over odd shapes and strided. */
static genie_ctx *bw_ctx(genie_cpu cpu, int threads) {
    genie_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.cpu = cpu;
    d.n_threads = threads;
    return genie_ctx_create(&d);
}
static int bw_read_i64(genie_ctx *c, genie_tensor *t, int64_t *out, int64_t n) {
    return t && genie_numel(t) == n && genie_read(c, t, GENIE_I64, out, (size_t)n * 8) == GENIE_OK;
}
static int bw_eq(genie_ctx *c, genie_tensor *t, genie_dtype dt, const int64_t *want, int64_t n) {
    int64_t got[64];
    int64_t i;
    if (n > 64 || genie_dtype_of(t) != dt || !bw_read_i64(c, t, got, n)) return 0;
    for (i = 0; i < n; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}
static void test_bitwise(void) {
    const genie_cpu cpus[2] = {GENIE_CPU_REFERENCE, GENIE_CPU_AUTO};
    int k;
    for (k = 0; k < 2; k++) {
        genie_ctx *c = bw_ctx(cpus[k], k ? 2 : 1);
        int64_t s7 = 7, s4 = 4, s3 = 3;
        const int64_t a[7] = {12, -1, 0, 5, INT64_MIN, 7, -8}, b[7] = {10, 3, -1, 6, -1, 0, 7};
        const int64_t and_[7] = {8, 3, 0, 4, INT64_MIN, 0, 0}, or_[7] = {14, -1, -1, 7, -1, 7, -1};
        const int64_t xor_[7] = {6, -4, -1, 3, INT64_MAX, 7, -1}, not_[7] = {-13, 0, -1, -6, INT64_MAX, -8, 7};
        genie_tensor *ta = genie_from_data(c, GENIE_I64, 1, &s7, a), *tb = genie_from_data(c, GENIE_I64, 1, &s7, b);
        CHECK(bw_eq(c, genie_bitwise_and(c, ta, tb), GENIE_I64, and_, 7));
        CHECK(bw_eq(c, genie_bitwise_or(c, ta, tb), GENIE_I64, or_, 7));
        CHECK(bw_eq(c, genie_bitwise_xor(c, ta, tb), GENIE_I64, xor_, 7));
        CHECK(bw_eq(c, genie_bitwise_not(c, ta), GENIE_I64, not_, 7));
        { /* int64 & bool: the bool is 0 or 1 (PyTorch promotes it), an int64 out */
            const int64_t x[4] = {3, 2, -1, 5}, want[4] = {1, 0, 1, 0}, wor[4] = {3, 3, -1, 5};
            const uint8_t m[4] = {1, 1, 1, 0};
            genie_tensor *tx = genie_from_data(c, GENIE_I64, 1, &s4, x), *tm = genie_from_data(c, GENIE_BOOL, 1, &s4, m);
            CHECK(bw_eq(c, genie_bitwise_and(c, tx, tm), GENIE_I64, want, 4));
            CHECK(bw_eq(c, genie_bitwise_and(c, tm, tx), GENIE_I64, want, 4));
            CHECK(bw_eq(c, genie_bitwise_or(c, tx, tm), GENIE_I64, wor, 4));
            { /* unfinished & ~done, as a generate loop writes it */
                const int64_t w2[4] = {0, 0, 0, 1}; /* 5 & 1 */
                CHECK(bw_eq(c, genie_bitwise_and(c, tx, genie_bitwise_not(c, tm)), GENIE_I64, w2, 4));
            }
        }
        { /* bool with bool: bool out; ~ of a bool is not */
            const uint8_t p[4] = {0, 0, 1, 1}, q[4] = {0, 1, 0, 1};
            const int64_t wa[4] = {0, 0, 0, 1}, wo[4] = {0, 1, 1, 1}, wx[4] = {0, 1, 1, 0}, wn[4] = {1, 1, 0, 0};
            genie_tensor *tp = genie_from_data(c, GENIE_BOOL, 1, &s4, p), *tq = genie_from_data(c, GENIE_BOOL, 1, &s4, q);
            CHECK(bw_eq(c, genie_bitwise_and(c, tp, tq), GENIE_BOOL, wa, 4));
            CHECK(bw_eq(c, genie_bitwise_or(c, tp, tq), GENIE_BOOL, wo, 4));
            CHECK(bw_eq(c, genie_bitwise_xor(c, tp, tq), GENIE_BOOL, wx, 4));
            CHECK(bw_eq(c, genie_bitwise_not(c, tp), GENIE_BOOL, wn, 4));
        }
        { /* u8 and i8 wrap to their width; i32 with i8 promotes to i32 */
            const uint8_t u[3] = {0, 5, 255};
            const int8_t i8[3] = {-128, 5, -1};
            const int32_t i32[3] = {0x10000, -6, 0x7fffffff};
            const int64_t wu[3] = {255, 250, 0}, wi8[3] = {127, -6, 0}, wx[3] = {-128 ^ 0x10000, 5 ^ -6, -1 ^ 0x7fffffff};
            genie_tensor *tu = genie_from_data(c, GENIE_U8, 1, &s3, u), *t8 = genie_from_data(c, GENIE_I8, 1, &s3, i8);
            genie_tensor *t32 = genie_from_data(c, GENIE_I32, 1, &s3, i32);
            CHECK(bw_eq(c, genie_bitwise_not(c, tu), GENIE_U8, wu, 3));
            CHECK(bw_eq(c, genie_bitwise_not(c, t8), GENIE_I8, wi8, 3));
            CHECK(bw_eq(c, genie_bitwise_xor(c, t8, t32), GENIE_I32, wx, 3));
        }
        { /* broadcast [3,1] ^ [1,5] of i32, and a transposed [5,3] i64 & [3,5] (strided reads) */
            int32_t col[3] = {1, -7, 100}, row[5] = {3, 0, -1, 64, 5};
            int64_t m53[15], want[15], i, j;
            int64_t sc[2] = {3, 1}, sr[2] = {1, 5}, s53[2] = {5, 3}, s35[2] = {3, 5};
            genie_tensor *x, *y, *r;
            for (i = 0; i < 3; i++)
                for (j = 0; j < 5; j++) want[i * 5 + j] = col[i] ^ row[j];
            x = genie_from_data(c, GENIE_I32, 2, sc, col);
            y = genie_from_data(c, GENIE_I32, 2, sr, row);
            r = genie_bitwise_xor(c, x, y);
            CHECK(genie_ndim(r) == 2 && genie_shape(r)[0] == 3 && genie_shape(r)[1] == 5);
            CHECK(bw_eq(c, r, GENIE_I32, want, 15));
            for (i = 0; i < 15; i++) m53[i] = i * 37 - 200;
            x = genie_transpose(c, genie_from_data(c, GENIE_I64, 2, s53, m53), 0, 1); /* [3,5], strides (1, 3) */
            y = genie_from_data(c, GENIE_I64, 2, s35, m53);
            for (i = 0; i < 3; i++)
                for (j = 0; j < 5; j++) want[i * 5 + j] = m53[j * 3 + i] & m53[i * 5 + j];
            CHECK(bw_eq(c, genie_bitwise_and(c, x, y), GENIE_I64, want, 15));
            for (i = 0; i < 3; i++)
                for (j = 0; j < 5; j++) want[i * 5 + j] = ~m53[j * 3 + i];
            CHECK(bw_eq(c, genie_bitwise_not(c, x), GENIE_I64, want, 15));
        }
        { /* a float operand: an error naming the op and the dtype */
            float f[7] = {0};
            genie_tensor *tf = genie_from_data(c, GENIE_F32, 1, &s7, f);
            CHECK(genie_bitwise_and(c, ta, tf) == NULL && genie_status(c) == GENIE_ERR_DTYPE);
            CHECK(strstr(genie_last_error(c), "genie_bitwise_and") != NULL && strstr(genie_last_error(c), "f32") != NULL);
            genie_clear_error(c);
            CHECK(genie_bitwise_not(c, tf) == NULL && genie_status(c) == GENIE_ERR_DTYPE);
            CHECK(strstr(genie_last_error(c), "genie_bitwise_not") != NULL);
            genie_clear_error(c);
            CHECK(genie_bitwise_not(c, NULL) == NULL && genie_status(c) == GENIE_ERR_INVALID_ARG);
            genie_clear_error(c);
        }
        genie_ctx_destroy(c);
    }
}

/* The suites, in the order a full run takes them. `build/test_main SUITE...` runs the named ones;
   `--help` lists them. A suite's function adds to passed/failed/skipped through CHECK or its
   pointers. */
static int chain_len = 1000000;
static void s_cxx(void) { CHECK(cxx_smoke() == 0); }
static void s_planner(void) { test_planner(&passed, &failed); }
static void s_chain(void) { test_chain(chain_len); }
static void s_fuse(void) { fuse_tests(&passed, &failed); }
static void s_rfuse(void) { rfuse_tests(&passed, &failed); }
static void s_tcache(void) { tcache_tests(&passed, &failed); }
static void s_threads(void) { threads_tests(&passed, &failed); }
static void s_vmath(void) { test_vmath(&passed, &failed, &skipped); }
static void s_reduce(void) { test_reduce_run(&passed, &failed, &skipped); }
static void s_roles(void) { test_roles(&passed, &failed); }
static void s_llmops(void) { test_llmops_run(&passed, &failed, &skipped); }
static void s_safetensors(void) {
#ifdef _WIN32 /* the mapped-file suite replaces files its live tensors still map, which Windows forbids */
    printf("skip: safetensors on mapped files under Windows (the suite rewrites files it still maps); "
           "the read-into-memory variant runs\n");
    skipped++;
#else
    test_safetensors_run(&passed, &failed);
#endif
}
static void s_safetensors_nommap(void) { test_safetensors_nommap_run(&passed, &failed); }
static void s_gemm(void) { gemm_tests(&passed, &failed, &skipped); }

/* unit: 1 where the runner shards the suite as one unit (SUITE); 0 where the suite shards its own
   parts (test_reduce's shapes, each program file and mode, the fresh programs' call) */
static const struct {
    const char *name;
    void (*run)(void);
    int unit;
    const char *what;
} suites[] = {
    {"errors", test_errors, 1, "error codes, messages, sticky errors, foreign handles"},
    {"version", test_version, 1, "genie_version(), GENIE_VERSION_* and the pkg-config file (GENIE_PC_FILE)"},
    {"read_conversions", test_read_conversions, 1, "genie_read's dtype conversions against PyTorch's bits"},
    {"read_paths", test_read_paths, 1, "genie_read and genie_data over every layout"},
    {"laziness", test_laziness, 1, "nothing runs before a read; only what a read needs"},
    {"graph_freed", test_graph_freed, 1, "computed nodes drop their inputs"},
    {"no_pool", test_no_pool, 1, "no_pool contexts and genie_release"},
    {"blob", test_blob, 1, "raw data in and out"},
    {"tuples_lazy", test_tuples_lazy, 1, "tuple elements run only what they need"},
    {"rng", test_rng, 1, "random number generation"},
    {"scopes_dump", test_scopes_dump, 1, "scopes, phases and genie_dump_dot"},
    {"data_errors", test_data_errors, 1, "errors that depend on data"},
    {"inplace_versions", test_inplace_versions, 1, "in-place writes and storage versions"},
    {"view_rules", test_view_rules, 1, "view, reshape and copy_ rules as PyTorch's"},
    {"bitwise", test_bitwise, 1, "bit operations on integer and bool tensors"},
    {"cxx", s_cxx, 1, "genie.h compiled as C++ (cxx_part.cpp)"},
    {"planner", s_planner, 1, "the memory planner (test_planner.c)"},
    {"chain", s_chain, 1, "a long chain realized without recursion (length: the numeric argument)"},
    {"fuse", s_fuse, 1, "elementwise groups and GEMM epilogues against the reference (test_fuse.c)"},
    {"rfuse", s_rfuse, 1, "row, column and segmented groups (test_rfuse.c)"},
    {"tcache", s_tcache, 1, "the tape cache (test_tcache.c)"},
    {"threads", s_threads, 1, "independent contexts on threads at once (test_threads.c)"},
    {"vmath", s_vmath, 1, "SIMD transcendentals against the reference (test_vmath.c)"},
    {"reduce", s_reduce, 0, "reductions, softmax, layer_norm row kernels (test_reduce.c)"},
    {"roles", s_roles, 1, "role recognition (test_roles.c)"},
    {"llmops", s_llmops, 1, "transformer operations against PyTorch's values (test_llmops.c)"},
    {"safetensors", s_safetensors, 1, "safetensors files, mapped (test_safetensors.c)"},
    {"safetensors_nommap", s_safetensors_nommap, 1, "safetensors files read into memory"},
    {"gemm", s_gemm, 1, "every CPU GEMM kernel path against the reference (test_gemm.c)"},
    {"files", run_data_files, 0, "the program files in tests/data against PyTorch's values"},
    {"fresh", run_fresh_random, 1, "fresh random programs against PyTorch (needs /usr/bin/python3 with torch)"},
};
enum { NSUITES = (int)(sizeof suites / sizeof suites[0]) };

static void usage(void) {
    int i;
    printf("usage: test_main [SUITE...] [CHAIN_LENGTH]\n"
           "       test_main --files FILE...   (replay program files only)\n"
           "Runs the named suites (default: all, in this order) and ends with\n"
           "\"N passed, N failed[, N skipped]\".\n\nsuites:\n");
    for (i = 0; i < NSUITES; i++) printf("  %-20s %s\n", suites[i].name, suites[i].what);
    printf("\nenvironment:\n"
           "  GENIE_TEST_QUICK=1     the quick tier (make test): fewer fresh random programs, program\n"
           "                         files on the default path only, the kernel suites' short forms\n"
           "  GENIE_FRESH_N=N        fresh random programs of each kind (default 200; quick 40)\n"
           "  GENIE_SEED=N           the fresh programs' seed (default: the clock; CI fixes it)\n"
           "  GENIE_NO_TORCH=1       skip the fresh random programs\n"
           "  GENIE_FILES_ONE_MODE=1 program files on the default path only (not reference, 1 thread)\n"
           "  GENIE_FILES_MODE=M     --files: fused (default), fused1, late, released or reference\n"
           "  GENIE_GEMM_QUICK=1     short forms of the kernel suites (gemm, fuse, rfuse, reduce,\n"
           "                         llmops, vmath): fewer shapes and threads\n"
           "  GENIE_GEMM_PERTURB=1   gemm: perturb inputs   GENIE_GEMM_SEED=N: gemm's random seed\n"
           "  GENIE_EXP_ULPS=1       reduce: print the softmax exp's measured ulps\n"
           "  GENIE_PC_FILE=PATH     version: the pkg-config file to compare (make test: build/genie.pc)\n"
           "  GENIE_TEST_SHARD=I/N   run the units with index %% N == I (tests/shards.sh)\n"
           "  GENIE_TEST_CLAIM=DIR   with a shard: a unit goes to the first shard that claims it in DIR\n"
           "  GENIE_TEST_TIMES=1     print each unit's wall time\n");
}

int main(int argc, char **argv) {
    int i, nsel = 0;
    unsigned char sel[NSUITES];
    memset(sel, 0, sizeof sel);
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--files") == 0) { /* replay program files only (make props) */
        const char *mode = getenv("GENIE_FILES_MODE"); /* as run_data_files: "fused" (the default), */
        if (mode && strcmp(mode, "reference") == 0) {  /* "reference", "fused1" (one thread), "late" */
            prog_cpu = GENIE_CPU_REFERENCE, prog_threads = 1;
        } else if (mode && strcmp(mode, "fused1") == 0) {
            prog_threads = 1;
        } else if (mode && strcmp(mode, "late") == 0) { /* fused, reads late (prog_late) */
            prog_late = 1;
        } else if (mode && strcmp(mode, "released") == 0) { /* fused, handles released (prog_released) */
            prog_released = 1;
        } else if (mode && strcmp(mode, "fused") != 0) {
            printf("FAIL GENIE_FILES_MODE=%s: expected fused, fused1, late, released or reference\n", mode);
            return 1;
        }
        for (i = 2; i < argc; i++) {
            int p = 0, f = 0;
            if (prog_run_file(argv[i], &p, &f) < 0) { printf("FAIL cannot open %s\n", argv[i]); failed++; continue; }
            printf("  %s: %d passed, %d failed\n", argv[i], p, f);
            passed += p;
            failed += f;
        }
        printf("%d passed, %d failed\n", passed, failed);
        return failed != 0;
    }
    for (i = 1; i < argc; i++) { /* suite names; a number is the chain's length */
        int k;
        if (argv[i][0] >= '0' && argv[i][0] <= '9') { chain_len = atoi(argv[i]); continue; }
        for (k = 0; k < NSUITES && strcmp(suites[k].name, argv[i]) != 0; k++) {}
        if (k == NSUITES) {
            printf("FAIL unknown suite '%s' (test_main --help lists them)\n", argv[i]);
            return 2;
        }
        sel[k] = 1, nsel++;
    }
    if (getenv("GENIE_TEST_SHARD") && (sscanf(getenv("GENIE_TEST_SHARD"), "%d/%d", &shard_i, &shard_n) != 2 ||
                                       shard_n < 1 || shard_i < 0 || shard_i >= shard_n)) {
        printf("FAIL GENIE_TEST_SHARD=%s: expected I/N with 0 <= I < N\n", getenv("GENIE_TEST_SHARD"));
        return 1;
    }
    shard_times = getenv("GENIE_TEST_TIMES") != NULL;
    shard_claim = shard_n > 1 ? getenv("GENIE_TEST_CLAIM") : NULL;
    if (shard_claim) { /* a folder that takes no files would leave every unit unclaimed */
        char path[512];
        FILE *f;
        snprintf(path, sizeof path, "%s/shard-%d", shard_claim, shard_i);
        if (!(f = fopen(path, "w"))) {
            printf("FAIL GENIE_TEST_CLAIM=%s: cannot create files there\n", shard_claim);
            return 1;
        }
        fclose(f);
    }
    for (i = 0; i < NSUITES; i++) {
        if (nsel && !sel[i]) continue;
        if (!suites[i].unit) suites[i].run(); /* shards its own parts */
        else if (test_shard_take()) {
            double t0 = wall_now();
            suites[i].run();
            if (shard_times) printf("  [unit %d: %s %.2f s]\n", shard_k - 1, suites[i].name, wall_now() - t0);
        }
        if (strcmp(suites[i].name, "safetensors_nommap") == 0 && !nsel)
            printf("  unit tests: %d passed, %d failed\n", passed, failed);
    }
    if (skipped) printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
