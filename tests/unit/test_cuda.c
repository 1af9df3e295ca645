/* tests/unit/test_cuda.c - the CUDA backend (genie_cuda.c, included whole: this file
 * is the implementation translation unit and sees the generator's internals).
 *
 *   test_cuda            no GPU needed (in `make test`): selecting "cuda" without a
 *                        device gives GENIE_ERR_BACKEND and the CPU stays usable;
 *                        every kernel the generator emits for the cases below and
 *                        for the property suites' programs compiles with NVRTC to
 *                        PTX for sm_80 and sm_90 ("cuda-compile" backend).
 *   test_cuda --gpu      (make test-cuda) the same cases computed on the GPU and
 *                        compared with the CPU executor; the property suites'
 *                        programs run on the backend against their PyTorch
 *                        expectations; device OOM, transfers and fallbacks. */
#include "../../genie_cuda.c" /* the implementation unit, with genie_cuda.h */
#include "../../genie_cuda.h"
#include "../programs/prog.h"
#include <math.h>

static int passed, failed;
#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (cond) passed++;                                              \
        else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

/* ---- the cases: graphs built the same way in two contexts ---- */
typedef genie_tensor *(*build_fn)(genie_ctx *ctx);
static genie_tensor *rnd(genie_ctx *c, genie_dtype dt, int nd, int64_t s0, int64_t s1, int64_t s2, int64_t s3, uint64_t seed) {
    int64_t sh[4];
    sh[0] = s0; sh[1] = s1; sh[2] = s2; sh[3] = s3;
    return genie_randn(c, dt, nd, sh, seed);
}
static genie_tensor *c_chain8(genie_ctx *c) { /* the 8-op chain: one fused group */
    genie_tensor *x = rnd(c, GENIE_F32, 2, 37, 53, 0, 0, 1), *y = x;
    y = genie_mul_scalar(c, y, 1.5);
    y = genie_add_scalar(c, y, 0.1);
    y = genie_tanh(c, y);
    y = genie_mul(c, y, x);
    y = genie_exp(c, y);
    y = genie_sub_scalar(c, y, 1.0);
    y = genie_relu(c, y);
    return genie_sqrt(c, y);
}
static genie_tensor *c_unary_all(genie_ctx *c) { /* every unary op the generator knows */
    genie_tensor *x = rnd(c, GENIE_F32, 2, 9, 31, 0, 0, 2), *p = genie_add_scalar(c, genie_abs(c, x), 0.5), *acc;
    acc = genie_add(c, genie_neg(c, x), genie_exp(c, genie_mul_scalar(c, x, 0.25)));
    acc = genie_add(c, acc, genie_log(c, p));
    acc = genie_add(c, acc, genie_sqrt(c, p));
    acc = genie_add(c, acc, genie_rsqrt(c, p));
    acc = genie_add(c, acc, genie_sin(c, x));
    acc = genie_add(c, acc, genie_cos(c, x));
    acc = genie_add(c, acc, genie_sigmoid(c, x));
    acc = genie_add(c, acc, genie_gelu(c, x));
    acc = genie_add(c, acc, genie_gelu_tanh(c, x));
    acc = genie_add(c, acc, genie_silu(c, x));
    acc = genie_add(c, acc, genie_reciprocal(c, p));
    acc = genie_add(c, acc, genie_square(c, x));
    acc = genie_add(c, acc, genie_floor(c, genie_mul_scalar(c, x, 3.0)));
    acc = genie_add(c, acc, genie_ceil(c, genie_mul_scalar(c, x, 3.0)));
    acc = genie_add(c, acc, genie_round(c, genie_mul_scalar(c, x, 3.0)));
    acc = genie_add(c, acc, genie_sign(c, x));
    acc = genie_add(c, acc, genie_erf(c, x));
    acc = genie_add(c, acc, genie_log1p(c, p));
    acc = genie_add(c, acc, genie_expm1(c, x));
    return genie_add(c, acc, genie_clamp(c, x, -0.5, 0.75));
}
static genie_tensor *c_binary_bcast(genie_ctx *c) { /* broadcast, transposed and scalar operands */
    genie_tensor *a = rnd(c, GENIE_F32, 2, 29, 41, 0, 0, 3), *b = rnd(c, GENIE_F32, 1, 41, 0, 0, 0, 4);
    genie_tensor *t = genie_t(c, rnd(c, GENIE_F32, 2, 41, 29, 0, 0, 5));
    genie_tensor *y = genie_maximum(c, genie_add(c, a, b), t);
    y = genie_minimum(c, y, genie_mul_scalar(c, t, 0.5));
    y = genie_div(c, y, genie_add_scalar(c, genie_abs(c, b), 1.0));
    y = genie_pow(c, genie_abs(c, y), genie_add_scalar(c, genie_abs(c, t), 0.5));
    return genie_sub(c, genie_pow_scalar(c, y, 1.5), a);
}
static genie_tensor *c_f16_chain(genie_ctx *c) {
    genie_tensor *x = genie_to_dtype(c, rnd(c, GENIE_F32, 2, 17, 33, 0, 0, 6), GENIE_F16);
    genie_tensor *y = genie_gelu(c, genie_add_scalar(c, genie_mul(c, x, x), -0.3));
    return genie_to_dtype(c, genie_sigmoid(c, y), GENIE_F32);
}
static genie_tensor *c_bf16_chain(genie_ctx *c) {
    genie_tensor *x = genie_to_dtype(c, rnd(c, GENIE_F32, 2, 17, 33, 0, 0, 7), GENIE_BF16);
    genie_tensor *y = genie_silu(c, genie_sub(c, genie_mul_scalar(c, x, 2.0), genie_t(c, genie_t(c, x))));
    return genie_to_dtype(c, genie_exp(c, y), GENIE_F32);
}
static genie_tensor *c_mixed_chain(genie_ctx *c) { /* three dtypes in one group, each narrowing rounded in its register */
    genie_tensor *x = rnd(c, GENIE_F32, 2, 17, 33, 0, 0, 19);
    genie_tensor *b = genie_to_dtype(c, rnd(c, GENIE_F32, 2, 17, 33, 0, 0, 20), GENIE_BF16);
    genie_tensor *h = genie_to_dtype(c, rnd(c, GENIE_F32, 2, 17, 33, 0, 0, 21), GENIE_F16);
    genie_tensor *y = genie_mul(c, genie_to_dtype(c, genie_gelu(c, x), GENIE_BF16), b);
    y = genie_add(c, genie_to_dtype(c, y, GENIE_F16), h);
    return genie_mul(c, genie_to_dtype(c, y, GENIE_F32), x);
}
static genie_tensor *c_f64(genie_ctx *c) { /* single f64 nodes (not fused: double registers) */
    genie_tensor *x = rnd(c, GENIE_F64, 2, 13, 7, 0, 0, 8);
    genie_tensor *e = genie_exp(c, x);
    genie_realize(c, 1, &e);
    return genie_to_dtype(c, genie_mul(c, e, x), GENIE_F32);
}
static genie_tensor *c_convert(genie_ctx *c) { /* conversions and a strided copy */
    int64_t perm[3] = {2, 0, 1};
    genie_tensor *i = genie_to_dtype(c, genie_mul_scalar(c, rnd(c, GENIE_F32, 3, 4, 5, 6, 0, 9), 10.0), GENIE_I32);
    genie_tensor *f = genie_to_dtype(c, i, GENIE_F32);
    genie_tensor *p = genie_contiguous(c, genie_permute(c, f, 3, perm));
    return genie_add(c, genie_to_dtype(c, genie_to_dtype(c, p, GENIE_F64), GENIE_F32), genie_to_dtype(c, genie_to_dtype(c, p, GENIE_BF16), GENIE_F32));
}
static genie_tensor *c_reduce(genie_ctx *c, int which, int ndims, const int64_t *dims, int keep) {
    genie_tensor *x = rnd(c, GENIE_F32, 3, 5, 7, 9, 0, 10 + (uint64_t)which);
    if (which % 2) x = genie_transpose(c, x, 0, 2); /* a strided view */
    switch (which) {
    case 0: return genie_sum(c, x, ndims, dims, keep);
    case 1: return genie_mean(c, x, ndims, dims, keep);
    case 2: return genie_amax(c, x, ndims, dims, keep);
    case 3: return genie_amin(c, x, ndims, dims, keep);
    case 4: return genie_prod(c, genie_add_scalar(c, genie_mul_scalar(c, x, 0.1), 1.0), ndims, dims, keep);
    case 5: return genie_var(c, x, ndims, dims, 1, keep);
    case 6: return genie_std(c, x, ndims, dims, 0, keep);
    default: return genie_logsumexp(c, x, ndims, dims, keep);
    }
}
static int red_case;
static genie_tensor *c_reduce_any(genie_ctx *c) {
    static const int64_t d1[1] = {1}, d0[1] = {0}, d02[2] = {0, 2};
    const int64_t *ds[3] = {d1, d0, d02};
    int nds[3] = {1, 1, 2};
    int which = red_case % 8, k = (red_case / 8) % 3;
    return c_reduce(c, which, nds[k], ds[k], red_case % 2);
}
static genie_tensor *c_softmax(genie_ctx *c) {
    genie_tensor *x = rnd(c, GENIE_F32, 2, 6, 130, 0, 0, 20);
    genie_tensor *a = genie_softmax(c, x, 1), *b = genie_softmax(c, x, 0), *l = genie_log_softmax(c, genie_t(c, x), 1);
    return genie_add(c, genie_add(c, a, b), genie_t(c, l));
}
static genie_tensor *c_softmax_f16(genie_ctx *c) {
    genie_tensor *x = genie_to_dtype(c, rnd(c, GENIE_F32, 3, 2, 3, 70, 0, 21), GENIE_F16);
    return genie_to_dtype(c, genie_softmax(c, x, 2), GENIE_F32);
}
static genie_tensor *c_layer_norm(genie_ctx *c) {
    int64_t ns[1] = {48}, ns2[2] = {6, 48};
    genie_tensor *x = rnd(c, GENIE_F32, 3, 4, 6, 48, 0, 22), *w = rnd(c, GENIE_F32, 1, 48, 0, 0, 0, 23), *b = rnd(c, GENIE_F32, 1, 48, 0, 0, 0, 24);
    genie_tensor *y = genie_layer_norm(c, x, 1, ns, w, b, 1e-5), *z = genie_layer_norm(c, x, 2, ns2, NULL, NULL, 1e-5);
    genie_tensor *u = genie_layer_norm(c, genie_transpose(c, x, 0, 1), 1, ns, w, NULL, 1e-3);
    return genie_add(c, genie_add(c, y, z), genie_transpose(c, u, 0, 1));
}
static genie_tensor *c_matmul(genie_ctx *c) {
    genie_tensor *a = rnd(c, GENIE_F32, 2, 33, 17, 0, 0, 30), *b = rnd(c, GENIE_F32, 2, 17, 29, 0, 0, 31);
    genie_tensor *y = genie_matmul(c, a, b);
    genie_tensor *yt = genie_matmul(c, genie_t(c, b), genie_t(c, a)); /* both transposed: read in place */
    return genie_add(c, y, genie_t(c, yt));
}
static genie_tensor *c_bmm(genie_ctx *c) {
    genie_tensor *a = rnd(c, GENIE_F32, 4, 2, 1, 4, 5, 32), *b = rnd(c, GENIE_F32, 3, 3, 5, 6, 0, 33);
    genie_tensor *y = genie_matmul(c, a, b); /* [2,3,4,6], a broadcast over the 3 */
    genie_tensor *v = rnd(c, GENIE_F32, 1, 6, 0, 0, 0, 34);
    return genie_add(c, genie_sum(c, y, 0, NULL, 0), genie_sum(c, genie_matmul(c, y, v), 0, NULL, 0));
}
static genie_tensor *c_linear(genie_ctx *c) {
    genie_tensor *x = rnd(c, GENIE_F32, 3, 4, 5, 17, 0, 35), *w = rnd(c, GENIE_F32, 2, 9, 17, 0, 0, 36), *b = rnd(c, GENIE_F32, 1, 9, 0, 0, 0, 37);
    genie_tensor *h = genie_gelu(c, genie_linear(c, x, w, b));
    return genie_add(c, genie_linear(c, h, genie_t(c, genie_linear(c, w, w, NULL)), NULL), h);
}
static genie_tensor *c_matmul_f64(genie_ctx *c) {
    genie_tensor *a = rnd(c, GENIE_F64, 2, 20, 11, 0, 0, 38), *b = rnd(c, GENIE_F64, 2, 11, 7, 0, 0, 39);
    return genie_to_dtype(c, genie_matmul(c, a, b), GENIE_F32);
}
static genie_tensor *c_matmul_f16(genie_ctx *c) {
    genie_tensor *a = genie_to_dtype(c, rnd(c, GENIE_F32, 2, 20, 16, 0, 0, 40), GENIE_F16);
    genie_tensor *b = genie_to_dtype(c, rnd(c, GENIE_F32, 2, 16, 24, 0, 0, 41), GENIE_F16);
    return genie_to_dtype(c, genie_matmul(c, a, b), GENIE_F32);
}
static genie_tensor *c_block(genie_ctx *c) { /* an encoder-like block: attention and MLP */
    int64_t ns[1] = {32}, sh[3] = {2, 8, 32};
    genie_tensor *x = genie_randn(c, GENIE_F32, 3, sh, 50), *wq = rnd(c, GENIE_F32, 2, 32, 32, 0, 0, 51);
    genie_tensor *w1 = rnd(c, GENIE_F32, 2, 64, 32, 0, 0, 52), *w2 = rnd(c, GENIE_F32, 2, 32, 64, 0, 0, 53);
    genie_tensor *q = genie_linear(c, x, wq, NULL), *att, *h;
    att = genie_softmax(c, genie_mul_scalar(c, genie_matmul(c, q, genie_transpose(c, q, 1, 2)), 0.17), 2);
    h = genie_layer_norm(c, genie_add(c, x, genie_matmul(c, att, q)), 1, ns, NULL, NULL, 1e-5);
    return genie_layer_norm(c, genie_add(c, h, genie_linear(c, genie_relu(c, genie_linear(c, h, w1, NULL)), w2, NULL)), 1, ns, NULL, NULL, 1e-5);
}
typedef struct tcase { const char *name; build_fn fn; int reps; double tol; } tcase; /* tol: on the GPU */
static const tcase cases[] = {
    {"chain8", c_chain8, 1, 1e-5}, {"unary_all", c_unary_all, 1, 1e-5}, {"binary_bcast", c_binary_bcast, 1, 1e-5},
    {"f16_chain", c_f16_chain, 1, 2e-3}, {"bf16_chain", c_bf16_chain, 1, 1.6e-2}, {"mixed_chain", c_mixed_chain, 1, 1.6e-2},
    {"f64", c_f64, 1, 1e-6},
    {"convert", c_convert, 1, 0}, {"reduce", c_reduce_any, 24, 1e-5}, {"softmax", c_softmax, 1, 1e-5},
    {"softmax_f16", c_softmax_f16, 1, 2e-3}, {"layer_norm", c_layer_norm, 1, 1e-5}, {"matmul", c_matmul, 1, 1e-5},
    {"bmm", c_bmm, 1, 1e-5}, {"linear", c_linear, 1, 1e-5}, {"matmul_f64", c_matmul_f64, 1, 1e-6},
    {"matmul_f16", c_matmul_f16, 1, 2e-3}, {"block", c_block, 1, 1e-4},
};

/* Compute a case in ctx: its f32 values (malloc'd) and count. */
static float *run_case(genie_ctx *ctx, build_fn fn, int64_t *n) {
    genie_tensor *t;
    float *v;
    genie_pool_push(ctx);
    t = fn(ctx);
    *n = t ? genie_numel(t) : 0;
    v = (float *)malloc((size_t)(*n ? *n : 1) * sizeof(float));
    if (!t || genie_read(ctx, t, GENIE_F32, v, (size_t)*n * sizeof(float)) != GENIE_OK) { free(v); v = NULL; }
    genie_pool_pop(ctx);
    return v;
}
static int close_to(float got, float want, double tol) {
    if (want != want) return got != got;
    if (isinf(want)) return got == want;
    return fabs((double)got - (double)want) <= tol * (fabs((double)want) + 1.0);
}
/* Each case in ctx (a backend) beside a CPU context: the same values. */
static void compare_cases(genie_ctx *ctx, int on_gpu) {
    genie_ctx *cpu = genie_ctx_create(NULL);
    size_t k;
    int r;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (r = 0; r < cases[k].reps; r++) {
            genie_stats s0 = genie_get_stats(ctx), s1;
            gc_check_stats c0 = gc_check;
            int64_t n1 = 0, n2 = 0, i, bad = 0;
            float *a, *b;
            red_case = r;
            a = run_case(ctx, cases[k].fn, &n1);
            b = run_case(cpu, cases[k].fn, &n2);
            s1 = genie_get_stats(ctx);
            CHECK(a && b && n1 == n2, "%s/%d: did not compute: %s", cases[k].name, r, genie_last_error(ctx));
            if (!a || !b || n1 != n2) { genie_clear_error(ctx); free(a); free(b); continue; }
            for (i = 0; i < n1 && bad < 3; i++)
                if (!close_to(a[i], b[i], on_gpu ? cases[k].tol : 0.0)) {
                    bad++;
                    printf("  %s/%d [%lld]: backend %.9g cpu %.9g\n", cases[k].name, r, (long long)i, a[i], b[i]);
                }
            CHECK(bad == 0, "%s/%d: values differ from the CPU executor", cases[k].name, r);
            if (on_gpu) CHECK(s1.backend_nodes > s0.backend_nodes, "%s/%d: nothing ran on the GPU", cases[k].name, r);
            else CHECK(gc_check.groups + gc_check.nodes + gc_check.gemms > c0.groups + c0.nodes + c0.gemms,
                       "%s/%d: the generator saw nothing", cases[k].name, r);
            free(a);
            free(b);
        }
    genie_ctx_destroy(cpu);
}

/* Selecting a backend that cannot start: GENIE_ERR_BACKEND, the CPU still computes. */
static void test_select(int expect_gpu) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    genie_tensor *t;
    double v = 0;
    memset(&d, 0, sizeof d);
    d.backend = "cuda";
    ctx = genie_ctx_create(&d);
    CHECK(ctx != NULL, "genie_ctx_create returned NULL");
    if (!ctx) return;
    if (expect_gpu) {
        CHECK(genie_status(ctx) == GENIE_OK && strcmp(genie_backend_name(ctx), "cuda") == 0, "cuda did not start: %s",
              genie_last_error(ctx));
    } else if (genie_status(ctx) == GENIE_OK) {
        printf("  note: a GPU is present: \"cuda\" started (run `make test-cuda`)\n");
        CHECK(strcmp(genie_backend_name(ctx), "cuda") == 0, "backend name");
    } else {
        CHECK(genie_status(ctx) == GENIE_ERR_BACKEND, "status %d", (int)genie_status(ctx));
        CHECK(strstr(genie_last_error(ctx), "cuda") && strstr(genie_last_error(ctx), "cudaGetDeviceCount"),
              "message names the call: %s", genie_last_error(ctx));
        CHECK(strcmp(genie_backend_name(ctx), "cpu") == 0, "runs on the CPU");
        printf("  no GPU: %s\n", genie_last_error(ctx));
        genie_clear_error(ctx);
    }
    t = genie_sum(ctx, genie_arange(ctx, GENIE_F32, 0, 10, 1), 0, NULL, 0);
    CHECK(genie_item(ctx, t, &v) == GENIE_OK && v == 45.0, "compute after selecting cuda: %g (%s)", v, genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    d.backend = "no-such-backend";
    ctx = genie_ctx_create(&d);
    CHECK(ctx && genie_status(ctx) == GENIE_ERR_BACKEND && strstr(genie_last_error(ctx), "no-such-backend"), "unknown backend");
    genie_clear_error(ctx);
    CHECK(genie_item(ctx, genie_sum(ctx, genie_arange(ctx, GENIE_F32, 0, 4, 1), 0, NULL, 0), &v) == GENIE_OK && v == 6.0, "CPU after");
    genie_ctx_destroy(ctx);
    d.backend = "cpu";
    ctx = genie_ctx_create(&d);
    CHECK(ctx && genie_status(ctx) == GENIE_OK && strcmp(genie_backend_name(ctx), "cpu") == 0, "\"cpu\" selects the CPU");
    genie_ctx_destroy(ctx);
}

/* A kernel that does not compile: GENIE_ERR_BACKEND with NVRTC's log. */
static void test_compile_error(void) {
    char msg[GENIE_BACKEND_MSG], *image = NULL;
    size_t size = 0;
    genie_result r = gc_compile("extern \"C\" __global__ void genie_k() { undeclared_thing = 1; }", 80, 0, &image, &size, msg);
    CHECK(r == GENIE_ERR_BACKEND && strstr(msg, "NVRTC_ERROR_COMPILATION") && strstr(msg, "undeclared_thing"), "NVRTC log kept: %s", msg);
    GENIE_FREE(image);
    gc_check.last_failure[0] = 0;
}

static void run_props(const genie_ctx_desc *d, const char *dir) {
    static const char *files[] = {"props_graphs.txt", "props_ops.txt", "props_views.txt"};
    size_t i;
    prog_backend = d->backend;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        int p = 0, f = 0, rc;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        rc = prog_run_file(path, &p, &f);
        CHECK(rc == 0, "cannot open %s", path);
        CHECK(f == 0, "%s: %d checks failed on the backend", path, f);
        passed += p;
        printf("  %s on \"%s\": %d checks passed, %d failed\n", files[i], d->backend, p, f);
    }
    prog_backend = NULL;
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    genie_ctx_desc d;
    genie_ctx *ctx;
    memset(&d, 0, sizeof d);
    (void)genie_cuda_register();
    test_select(gpu);
    test_compile_error();
    if (!gpu) {
        d.backend = "cuda-compile";
        ctx = genie_ctx_create(&d);
        CHECK(ctx && genie_status(ctx) == GENIE_OK, "cuda-compile: %s", ctx ? genie_last_error(ctx) : "NULL");
        compare_cases(ctx, 0);
        genie_ctx_destroy(ctx);
        run_props(&d, "tests/data");
        CHECK(gc_check.failed == 0, "%llu NVRTC compilations failed; last:\n%s", (unsigned long long)gc_check.failed, gc_check.last_failure);
        CHECK(gc_check.sources >= 20, "only %llu kernel sources generated", (unsigned long long)gc_check.sources);
        /* the structural key finds kernels without generating them on the GPU: here every hit's
           source is generated anyway and must be the one compiled for its key */
        CHECK(gc_check.memo_hits > 100 && gc_check.memo_mismatch == 0, "structural keys: %llu hits, %llu with another source:\n%s",
              (unsigned long long)gc_check.memo_hits, (unsigned long long)gc_check.memo_mismatch, gc_check.last_failure);
        printf("  NVRTC: %llu distinct kernels (%llu fused groups, %llu single nodes, %llu cuBLAS products seen; %llu found "
               "by structural key), %llu compilations to PTX for sm_80 and sm_90, %llu failed\n",
               (unsigned long long)gc_check.sources, (unsigned long long)gc_check.groups, (unsigned long long)gc_check.nodes,
               (unsigned long long)gc_check.gemms, (unsigned long long)gc_check.memo_hits, (unsigned long long)gc_check.compiled, (unsigned long long)gc_check.failed);
    } else {
        genie_stats s;
        genie_tensor *t, *v;
        float one = 0;
        int64_t sh[1] = {1 << 20};
        d.backend = "cuda";
        ctx = genie_ctx_create(&d);
        CHECK(ctx && genie_status(ctx) == GENIE_OK, "cuda: %s", ctx ? genie_last_error(ctx) : "NULL");
        if (ctx && genie_status(ctx) == GENIE_OK) {
            compare_cases(ctx, 1);
            /* results stay on the device; a read brings back only the view's bytes */
            float *zeros = (float *)calloc((size_t)sh[0], 4);
            t = genie_exp(ctx, genie_from_data(ctx, GENIE_F32, 1, sh, zeros));
            free(zeros);
            genie_realize(ctx, 1, &t);
            s = genie_get_stats(ctx);
            v = genie_slice(ctx, t, 0, 5, 6, 1);
            CHECK(genie_read(ctx, v, GENIE_F32, &one, 4) == GENIE_OK && one == 1.0f, "read one element: %g", one);
            CHECK(genie_get_stats(ctx).bytes_to_host - s.bytes_to_host == 4, "a 1-element read moved %llu bytes",
                  (unsigned long long)(genie_get_stats(ctx).bytes_to_host - s.bytes_to_host));
            s = genie_get_stats(ctx);
            printf("  stats: %llu backend nodes, %llu fallbacks, %llu/%llu copies/bytes to device, %llu/%llu to host\n",
                   (unsigned long long)s.backend_nodes, (unsigned long long)s.backend_fallbacks, (unsigned long long)s.copies_to_device,
                   (unsigned long long)s.bytes_to_device, (unsigned long long)s.copies_to_host, (unsigned long long)s.bytes_to_host);
            /* device out of memory: GENIE_ERR_OOM, and the context goes on */
            {
                size_t fr = 0, total = 0;
                int64_t big[2] = {1, 1 << 20};
                genie_tensor *z;
                double x = 0;
                genie_result r;
                cudaMemGetInfo(&fr, &total);
                big[0] = (int64_t)((total + ((size_t)1 << 30)) / 4 / (1 << 20)); /* more than the GPU has */
                z = genie_exp(ctx, genie_expand(ctx, genie_full(ctx, GENIE_F32, 1, big + 1, 1.0), 2, big));
                r = genie_realize(ctx, 1, &z);
                CHECK(r == GENIE_ERR_OOM, "device OOM gives %s: %s", genie_result_string(r), genie_last_error(ctx));
                printf("  out of memory: %s\n", genie_last_error(ctx));
                genie_clear_error(ctx);
                CHECK(genie_item(ctx, genie_sum(ctx, genie_exp(ctx, genie_zeros(ctx, GENIE_F32, 1, sh)), 0, NULL, 0), &x) == GENIE_OK &&
                          x == (double)sh[0], "after OOM: %g %s", x, genie_last_error(ctx));
            }
        }
        genie_ctx_destroy(ctx);
        run_props(&d, "tests/data");
    }
    printf("%s: %d passed, %d failed\n", gpu ? "test_cuda --gpu" : "test_cuda (no GPU)", passed, failed);
    return failed ? 1 : 0;
}
