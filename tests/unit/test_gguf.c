/* test_gguf.c - the GGUF reader (>>gguf) and the block dtypes (>>quant), against files written and
   dequantized by the `gguf` Python package (tests/data/gen_gguf.py, run into build/gguf_data with
   GGUF_PYTHON, default .venv/bin/python (make venv); a skip line when it is missing), and
   against hand-made broken files. Each product path (GENIE_CPU generic, avx2, avx512, amx where
   the CPU runs it) is held to the f64 reference within the bound stated in >>quant: decode (at
   most 16 rows of x) on quantized activations, prefill on dequantized panels in f32, except
   Q8_0/Q4_0/Q4_K prefill on amx (AMX int8 tiles) and every block type's prefill on avx2, avx512
   and amx (int8 panels: vpdpbusd where the CPU has AVX-512 VNNI, else vpmaddubsw): quantized
   activations per 32-block (the decode bound, QB 32). On a CPU with AVX-VNNI the avx2 path's int8
   dots run VEX vpdpbusd: the product tests run again on avx2 with them on vpmaddubsw (the test
   hook GENIE_NO_AVXVNNI), and the two forms must agree bit for bit. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include "testctx.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails, checks;
#define CHECK(c) do { checks++; if (!(c)) { fails++; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)
static const char *dir = "build/gguf_data";
static char pbuf[512];
static const char *P(const char *name) { snprintf(pbuf, sizeof pbuf, "%s/%s", dir, name); return pbuf; }

static float *read_f32(const char *name, int64_t n) {
    FILE *f = fopen(P(name), "rb");
    float *v = (float *)malloc((size_t)n * 4);
    if (!f || fread(v, 4, (size_t)n, f) != (size_t)n) { printf("FAIL cannot read %s\n", name); fails++; }
    if (f) fclose(f);
    return v;
}
static void t_meta(void) {
    genie_ctx *ctx = test_ctx(GENIE_CPU_AUTO, 1);
    genie_gguf *g = NULL;
    int64_t i;
    double f;
    CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK && g);
    if (!g) { puts(genie_last_error(ctx)); genie_ctx_destroy(ctx); return; }
    CHECK(genie_gguf_meta_i64(g, "t.u8", &i) == GENIE_OK && i == 200);
    CHECK(genie_gguf_meta_i64(g, "t.i8", &i) == GENIE_OK && i == -100);
    CHECK(genie_gguf_meta_i64(g, "t.u16", &i) == GENIE_OK && i == 60000);
    CHECK(genie_gguf_meta_i64(g, "t.i16", &i) == GENIE_OK && i == -30000);
    CHECK(genie_gguf_meta_i64(g, "t.u32", &i) == GENIE_OK && i == 4000000000LL);
    CHECK(genie_gguf_meta_i64(g, "t.i32", &i) == GENIE_OK && i == -2000000000LL);
    CHECK(genie_gguf_meta_i64(g, "t.u64", &i) == GENIE_OK && i == (1LL << 40) + 3);
    CHECK(genie_gguf_meta_i64(g, "t.i64", &i) == GENIE_OK && i == -(1LL << 40) - 5);
    CHECK(genie_gguf_meta_i64(g, "t.bool", &i) == GENIE_OK && i == 1);
    CHECK(genie_gguf_meta_f64(g, "t.f32", &f) == GENIE_OK && f == 1.5);
    CHECK(genie_gguf_meta_f64(g, "t.f64", &f) == GENIE_OK && f == -2.25);
    CHECK(genie_gguf_meta_f64(g, "t.i32", &f) == GENIE_ERR_DTYPE);
    CHECK(genie_gguf_meta_i64(g, "t.str", &i) == GENIE_ERR_DTYPE);
    CHECK(genie_gguf_meta_i64(g, "nope", &i) == GENIE_ERR_INDEX);
    CHECK(genie_gguf_meta_str(g, "t.str") && strcmp(genie_gguf_meta_str(g, "t.str"), "h\xc3\xa9llo") == 0);
    CHECK(genie_gguf_meta_str(g, "general.architecture") && strcmp(genie_gguf_meta_str(g, "general.architecture"), "llama") == 0);
    CHECK(genie_gguf_meta_str(g, "t.u8") == NULL);
    CHECK(genie_gguf_meta_len(g, "t.arr_i") == 3 && genie_gguf_meta_len(g, "t.u8") == -1);
    CHECK(genie_gguf_meta_i64_at(g, "t.arr_i", 1, &i) == GENIE_OK && i == -2);
    CHECK(genie_gguf_meta_i64_at(g, "t.arr_i", 3, &i) == GENIE_ERR_INDEX);
    CHECK(genie_gguf_meta_f64_at(g, "t.arr_f", 1, &f) == GENIE_OK && f == -1.25);
    CHECK(genie_gguf_meta_str_at(g, "t.arr_s", 2) && strcmp(genie_gguf_meta_str_at(g, "t.arr_s", 2), "bc") == 0);
    CHECK(genie_gguf_meta_str_at(g, "t.arr_s", 1) && genie_gguf_meta_str_at(g, "t.arr_s", 1)[0] == 0);
    CHECK(genie_gguf_meta_str_at(g, "t.arr_s", 3) == NULL);
    CHECK(genie_gguf_meta_i64_at(g, "t.arr_s", 0, &i) == GENIE_ERR_DTYPE);
    CHECK(genie_gguf_meta_i64_at(g, "t.arr_b", 0, &i) == GENIE_OK && i == 1);
    CHECK(genie_gguf_meta_count(g) >= 16 && genie_gguf_meta_key(g, genie_gguf_meta_count(g)) == NULL);
    CHECK(genie_gguf_count(g) == 18 && genie_gguf_name(g, 0) && strcmp(genie_gguf_name(g, 0), "f32") == 0);
    CHECK(genie_status(ctx) == GENIE_OK);
    genie_gguf_close(g);
    genie_ctx_destroy(ctx);
}
static void t_plain(void) {
    genie_ctx *ctx = test_ctx(GENIE_CPU_AUTO, 1);
    genie_gguf *g = NULL;
    const char *names[3] = {"f32", "f16", "bf16"};
    genie_dtype dts[3] = {GENIE_F32, GENIE_F16, GENIE_BF16};
    float v[15];
    int i, k;
    CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
    for (k = 0; k < 3 && g; k++) {
        genie_tensor *t = genie_gguf_get(g, names[k]);
        CHECK(t && genie_dtype_of(t) == dts[k] && genie_ndim(t) == 2 && genie_shape(t)[0] == 3 && genie_shape(t)[1] == 5);
        CHECK(genie_read(ctx, genie_to_dtype(ctx, t, GENIE_F32), GENIE_F32, v, sizeof v) == GENIE_OK);
        for (i = 0; i < 15; i++) CHECK(v[i] == (float)i * 0.5f - 3);
    }
    CHECK(g && genie_gguf_get(g, "missing") == NULL && genie_status(ctx) == GENIE_ERR_INDEX && strstr(genie_last_error(ctx), "t.gguf"));
    genie_clear_error(ctx);
    CHECK(g && genie_gguf_get(g, "q4_1") == NULL && genie_status(ctx) == GENIE_ERR_DTYPE && strstr(genie_last_error(ctx), "q4_1"));
    genie_clear_error(ctx);
    genie_gguf_close(g);
    g = NULL;
    CHECK(genie_gguf_open(ctx, P("align8.gguf"), &g) == GENIE_OK);
    if (g) {
        genie_tensor *y = genie_gguf_get(g, "y");
        genie_gguf_close(g); /* the tensor keeps the mapping */
        CHECK(genie_read(ctx, y, GENIE_F32, v, 16) == GENIE_OK && v[0] == 0 && v[3] == 3);
    }
    CHECK(genie_status(ctx) == GENIE_OK);
    genie_ctx_destroy(ctx);
}
/* dequantized values, on every path, against gguf's */
static const struct { const char *name; genie_dtype dt; int64_t r, c; } QT[] = {
    {"q8_0", GENIE_Q8_0, 7, 96}, {"q4_0", GENIE_Q4_0, 5, 160}, {"q4_k", GENIE_Q4_K, 5, 512}, {"q6_k", GENIE_Q6_K, 3, 768},
    {"q8_0big", GENIE_Q8_0, 33, 288}, {"q4_0big", GENIE_Q4_0, 19, 320},
    {"q8_0tall", GENIE_Q8_0, 600, 64}, /* prefill: panels of 512 rows */
    {"q4_0odd", GENIE_Q4_0, 21, 96},
    {"q4_kwide", GENIE_Q4_K, 40, 256}, {"q6_kwide", GENIE_Q6_K, 35, 256}, /* prefill: a whole 32-row panel and a tail */
    /* Q4_0 decode (8 blocks a row a step, then pairs): rows of 1 and 2 blocks, one group, 16 groups and a block */
    {"q4_0k32", GENIE_Q4_0, 11, 32}, {"q4_0k64", GENIE_Q4_0, 9, 64}, {"q4_0g8", GENIE_Q4_0, 13, 256}, {"q4_0long", GENIE_Q4_0, 11, 4128}};
#define NQT 14
#define QT_KMAX 4128 /* the longest row above */
#define NPATHS 5
static const genie_cpu paths[NPATHS] = {GENIE_CPU_REFERENCE, GENIE_CPU_GENERIC, GENIE_CPU_AVX2, GENIE_CPU_AVX512, GENIE_CPU_AMX};
/* set: the product tests run the avx2 path alone (its int8 dots on vpmaddubsw, GENIE_NO_AVXVNNI) */
static int maddubs_pass;
#define SKIP_PATH(p) (!genie_cpu_supported(paths[p]) || (maddubs_pass && paths[p] != GENIE_CPU_AVX2))
/* AVX-VNNI: CPUID.(7,1):EAX bit 4 (the AVX state is the avx2 path's, which genie_cpu_supported tests) */
static int have_avxvnni(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b, c = 0, d;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    if (a < 7 || !genie_cpu_supported(GENIE_CPU_AVX2)) return 0;
    a = 7, c = 0;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    if (a < 1) return 0;
    a = 7, c = 1;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    (void)b, (void)d;
    return (int)((a >> 4) & 1u);
#else
    return 0;
#endif
}
static void t_dequant(void) {
    int p, k;
    char fn[64];
    for (p = 0; p < NPATHS; p++) {
        genie_ctx *ctx;
        genie_gguf *g = NULL;
        if (!genie_cpu_supported(paths[p])) { printf("  skip: gguf path %s (this CPU lacks it)\n", genie_cpu_name(paths[p])); continue; }
        ctx = test_ctx(paths[p], 2);
        CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
        for (k = 0; k < NQT && g; k++) {
            const int64_t n = QT[k].r * QT[k].c;
            float *ref, *got = (float *)malloc((size_t)n * 4);
            genie_tensor *t = genie_gguf_get(g, QT[k].name), *row;
            int64_t i, bad = 0, e, b;
            snprintf(fn, sizeof fn, "%s.f32", QT[k].name);
            ref = read_f32(fn, n);
            CHECK(t && genie_dtype_of(t) == QT[k].dt && genie_shape(t)[0] == QT[k].r && genie_shape(t)[1] == QT[k].c);
            CHECK(genie_dtype_size(QT[k].dt) == 0 && genie_dtype_block(QT[k].dt, &e, &b) == 1 && QT[k].c % e == 0);
            CHECK(genie_read(ctx, genie_to_dtype(ctx, t, GENIE_F32), GENIE_F32, got, (size_t)n * 4) == GENIE_OK);
            for (i = 0; i < n; i++) bad += fabsf(got[i] - ref[i]) > 1e-6f * fabsf(ref[i]) + 1e-7f;
            CHECK(bad == 0);
            /* a view of rows (select, slice with step) keeps whole blocks */
            row = genie_select(ctx, t, 0, 2);
            CHECK(genie_read(ctx, genie_to_dtype(ctx, row, GENIE_F32), GENIE_F32, got, (size_t)QT[k].c * 4) == GENIE_OK);
            for (i = 0, bad = 0; i < QT[k].c; i++) bad += fabsf(got[i] - ref[2 * QT[k].c + i]) > 1e-6f * fabsf(ref[2 * QT[k].c + i]) + 1e-7f;
            CHECK(bad == 0);
            row = genie_slice(ctx, t, 0, 1, QT[k].r, 2); /* rows 1, 3, ... */
            CHECK(genie_read(ctx, genie_to_dtype(ctx, row, GENIE_F32), GENIE_F32, got, (size_t)n * 4) == GENIE_OK);
            for (i = 0, bad = 0; i < genie_numel(row); i++) {
                const int64_t rr = 1 + 2 * (i / QT[k].c), c = i % QT[k].c;
                bad += fabsf(got[i] - ref[rr * QT[k].c + c]) > 1e-6f * fabsf(ref[rr * QT[k].c + c]) + 1e-7f;
            }
            CHECK(bad == 0);
            free(got);
            free(ref);
        }
        CHECK(genie_status(ctx) == GENIE_OK);
        if (genie_status(ctx)) puts(genie_last_error(ctx));
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
}
/* a deterministic input in [-1, 1) */
static double xv(int64_t i) { return (double)((i * 7919 + 13) % 2003) / 1001.5 - 1.0; }
/* The bound on |fast - reference| for out[m, n]: sum over x's QB-blocks of amax / 254 times
   sum |w| over the block, times 1.01, plus 1e-5 of sum |x w| (f32 sums). */
static double bound(const double *x, const float *w, int64_t K, int QB) {
    double tot = 0, mag = 0;
    int64_t b, k;
    for (b = 0; b < K / QB; b++) {
        double amax = 0, sw = 0;
        for (k = b * QB; k < (b + 1) * QB; k++) {
            amax = fabs(x[k]) > amax ? fabs(x[k]) : amax;
            sw += fabs(w[k]);
            mag += fabs(x[k] * w[k]);
        }
        tot += amax / 254 * sw;
    }
    return tot * 1.01 + 1e-5 * mag + 1e-6;
}
/* The fast paths' value emulated: x quantized per QB-block as >>quant states (d = amax / 127,
   q = round(x 127 / amax) in f32), integer products with the dequantized weight, in f64. */
static double emulate(const double *x, const float *w, int64_t K, int QB) {
    double tot = 0;
    int64_t b, k;
    for (b = 0; b < K / QB; b++) {
        float amax = 0, id;
        double part = 0;
        for (k = b * QB; k < (b + 1) * QB; k++) amax = fabsf((float)x[k]) > amax ? fabsf((float)x[k]) : amax;
        id = amax > 0 ? 127.0f / amax : 0.0f;
        for (k = b * QB; k < (b + 1) * QB; k++) {
            const float v = (float)x[k] * id;
            part += (double)(int)(v + (v >= 0 ? 0.5f : -0.5f)) * w[k];
        }
        tot += part * (double)(amax / 127.0f);
    }
    return tot;
}
static void t_products(void) {
    static const int64_t Ms[5] = {1, 3, 16, 37, 100}; /* 37, 100: the prefill path (tiles of 16 rows and a part) */
    int p, k, mi;
    char fn[64];
    genie_ctx *rctx = test_ctx(GENIE_CPU_REFERENCE, 1);
    genie_gguf *rg = NULL;
    CHECK(genie_gguf_open(rctx, P("t.gguf"), &rg) == GENIE_OK);
    for (p = 1; p < NPATHS && rg; p++) {
        genie_ctx *ctx;
        genie_gguf *g = NULL;
        if (SKIP_PATH(p)) continue;
        ctx = test_ctx(paths[p], 2);
        CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
        for (k = 0; k < NQT && g; k++) {
            const int64_t N = QT[k].r, K = QT[k].c;
            const int QB = QT[k].dt == GENIE_Q8_0 || QT[k].dt == GENIE_Q4_0 ? 32 : 256;
            /* prefill on int8: AMX tiles or VNNI / AVX2 panels (every block type; x per 32) */
            const int int8pre = paths[p] != GENIE_CPU_GENERIC;
            float *wref;
            snprintf(fn, sizeof fn, "%s.f32", QT[k].name);
            wref = read_f32(fn, N * K);
            for (mi = 0; mi < 5; mi++) {
                const int64_t M = Ms[mi], xs[2] = {M, K}, is[1] = {3};
                /* quantized activations: decode, and prefill on int8 (x per 32-block there) */
                const int quant = M <= 16 || int8pre, qb = M <= 16 ? QB : 32;
                double *x = (double *)malloc((size_t)(M * K) * 8), *want = (double *)malloc((size_t)(M * N) * 8);
                float *got = (float *)malloc((size_t)(M * N) * 4), *got2 = (float *)malloc((size_t)(M * N) * 4);
                int64_t i, m, n, bad = 0, badref = 0;
                const int64_t idx[3] = {N - 1, 0, N / 2};
                genie_tensor *w = genie_gguf_get(g, QT[k].name), *rw = genie_gguf_get(rg, QT[k].name), *xt, *rx, *e;
                for (i = 0; i < M * K; i++) x[i] = xv(i + 31 * k);
                xt = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F64, 2, xs, x), GENIE_F32);
                rx = genie_to_dtype(rctx, genie_from_data(rctx, GENIE_F64, 2, xs, x), GENIE_F32);
                CHECK(genie_read(rctx, genie_linear(rctx, rx, rw, NULL), GENIE_F64, want, (size_t)(M * N) * 8) == GENIE_OK);
                CHECK(genie_read(ctx, genie_linear(ctx, xt, w, NULL), GENIE_F32, got, (size_t)(M * N) * 4) == GENIE_OK);
                CHECK(genie_read(ctx, genie_matmul(ctx, xt, genie_t(ctx, w)), GENIE_F32, got2, (size_t)(M * N) * 4) == GENIE_OK);
                for (m = 0; m < M; m++)
                    for (n = 0; n < N; n++) {
                        double xr[QT_KMAX], r = 0;
                        for (i = 0; i < K; i++) {
                            xr[i] = (float)x[m * K + i];
                            r += xr[i] * (double)wref[n * K + i];
                        }
                        badref += fabs(want[m * N + n] - r) > 1e-9 * (1 + fabs(r)) + 1e-6 * fabs(r);
                        bad += got2[m * N + n] != got[m * N + n];
                        if (quant) { /* quantized activations, integer dots */
                            bad += fabs(got[m * N + n] - want[m * N + n]) > bound(xr, wref + n * K, K, qb);
                            bad += fabs(got[m * N + n] - emulate(xr, wref + n * K, K, qb)) > 2e-5 * bound(xr, wref + n * K, K, qb) * 254 + 1e-6;
                        } else { /* prefill: dequantized panels through the f32 GEMM (as f32 sums) */
                            double mag = 0;
                            for (i = 0; i < K; i++) mag += fabs(xr[i] * wref[n * K + i]);
                            bad += fabs(got[m * N + n] - want[m * N + n]) > 1e-5 * mag + 1e-6;
                        }
                    }
                CHECK(badref == 0);
                CHECK(bad == 0);
                for (i = 0, n = 0; i < M * N; i++) n += got[i] != (float)want[i];
                CHECK(!quant || n > 0); /* the quantized path ran (its activations differ from the reference) */
                if (bad) printf("  %s path %s M=%lld: %lld outside the bound\n", QT[k].name, genie_cpu_name(paths[p]), (long long)M, (long long)bad);
                /* embedding of rows: dequantized rows */
                if (mi == 0) {
                    static float rows[3 * QT_KMAX];
                    genie_tensor *it = genie_from_data(ctx, GENIE_I64, 1, is, idx);
                    e = genie_embedding(ctx, w, it);
                    CHECK(e && genie_dtype_of(e) == GENIE_F32 && genie_read(ctx, e, GENIE_F32, rows, sizeof rows) == GENIE_OK);
                    for (i = 0, bad = 0; i < 3 * K; i++) bad += fabsf(rows[i] - wref[idx[i / K] * K + i % K]) > 1e-6f * fabsf(rows[i]) + 1e-7f;
                    CHECK(bad == 0);
                    e = genie_index_select(ctx, w, 0, it);
                    CHECK(e && genie_read(ctx, e, GENIE_F32, rows + K, 2 * (size_t)K * 4) == GENIE_ERR_INVALID_ARG); /* too small */
                    genie_clear_error(ctx);
                    CHECK(genie_read(ctx, e, GENIE_F32, rows, sizeof rows) == GENIE_OK);
                    for (i = 0, bad = 0; i < 3 * K; i++) bad += fabsf(rows[i] - wref[idx[i / K] * K + i % K]) > 1e-6f * fabsf(rows[i]) + 1e-7f;
                    CHECK(bad == 0);
                }
                free(x);
                free(want);
                free(got);
                free(got2);
            }
            free(wref);
        }
        CHECK(genie_status(ctx) == GENIE_OK);
        if (genie_status(ctx)) puts(genie_last_error(ctx));
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
    genie_gguf_close(rg);
    CHECK(genie_status(rctx) == GENIE_OK);
    genie_ctx_destroy(rctx);
}
/* Prefill (37 rows) from inputs the int8 kernels read element by element: an f32 x seen through
   a transpose (its rows strided) and a bf16 x (a bf16 out), on every path, against the f64
   reference on the same (bf16-rounded) x within the decode bound (its blocks: QB of the type,
   which is at least the 32-block bound) plus bf16's rounding of the out. */
static void t_prefill_inputs(void) {
    static const int ks[3] = {0, 2, 3}; /* q8_0, q4_k, q6_k */
    genie_ctx *rctx = test_ctx(GENIE_CPU_REFERENCE, 1);
    genie_gguf *rg = NULL;
    int p, k, v;
    CHECK(genie_gguf_open(rctx, P("t.gguf"), &rg) == GENIE_OK);
    for (p = 1; p < NPATHS && rg; p++) {
        genie_ctx *ctx;
        genie_gguf *g = NULL;
        if (SKIP_PATH(p)) continue;
        ctx = test_ctx(paths[p], 2);
        CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
        for (k = 0; k < 3 && g; k++) {
            const int64_t N = QT[ks[k]].r, K = QT[ks[k]].c, M = 37, xs[2] = {M, K}, ts[2] = {K, M};
            const int QB = QT[ks[k]].dt == GENIE_Q8_0 ? 32 : 256;
            double *x = (double *)malloc((size_t)(M * K) * 8), *xt = (double *)malloc((size_t)(M * K) * 8);
            double *xr = (double *)malloc((size_t)(M * K) * 8), *want = (double *)malloc((size_t)(M * N) * 8), *got = (double *)malloc((size_t)(M * N) * 8);
            float *wref;
            char fn[64];
            int64_t i, m, n, bad = 0;
            snprintf(fn, sizeof fn, "%s.f32", QT[ks[k]].name);
            wref = read_f32(fn, N * K);
            for (i = 0; i < M * K; i++) x[i] = xv(3 * i + k), xt[i % K * M + i / K] = x[i];
            for (v = 0; v < 2; v++) {
                genie_tensor *in, *rin;
                if (v == 0) { /* f32 rows through a transpose */
                    in = genie_t(ctx, genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F64, 2, ts, xt), GENIE_F32));
                    rin = genie_t(rctx, genie_to_dtype(rctx, genie_from_data(rctx, GENIE_F64, 2, ts, xt), GENIE_F32));
                } else {
                    in = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F64, 2, xs, x), GENIE_BF16);
                    rin = genie_to_dtype(rctx, genie_from_data(rctx, GENIE_F64, 2, xs, x), GENIE_BF16);
                }
                CHECK(genie_read(rctx, rin, GENIE_F64, xr, (size_t)(M * K) * 8) == GENIE_OK);
                CHECK(genie_read(rctx, genie_linear(rctx, rin, genie_gguf_get(rg, QT[ks[k]].name), NULL), GENIE_F64, want, (size_t)(M * N) * 8) == GENIE_OK);
                CHECK(genie_read(ctx, genie_linear(ctx, in, genie_gguf_get(g, QT[ks[k]].name), NULL), GENIE_F64, got, (size_t)(M * N) * 8) == GENIE_OK);
                for (m = 0; m < M; m++)
                    for (n = 0; n < N; n++)
                        bad += !(fabs(got[m * N + n] - want[m * N + n]) <= bound(xr + m * K, wref + n * K, K, QB) + (v ? fabs(want[m * N + n]) / 128 : 0));
                if (bad) printf("  %s path %s %s x: %lld outside the bound\n", QT[ks[k]].name, genie_cpu_name(paths[p]), v ? "bf16" : "strided", (long long)bad);
                CHECK(bad == 0);
            }
            free(x), free(xt), free(xr), free(want), free(got), free(wref);
        }
        CHECK(genie_status(ctx) == GENIE_OK);
        if (genie_status(ctx)) puts(genie_last_error(ctx));
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
    genie_gguf_close(rg);
    genie_ctx_destroy(rctx);
}
/* x holding a NaN (row 1) and an infinity (row 2): their rows' products are not finite on
   every path and every weight type, decode (M 3) and prefill (M 37); where x is quantized (avx2,
   avx512, amx) they are NaN, since no int8 value stands for either; the other rows stay
   finite. */
/* x with blocks so small (|x| <= 3.1e-37, below GENIE__Q8_AMAX_MIN) that 127 / amax would overflow:
   on every path each product is finite, a row of only such blocks gives exactly 0 where x is
   quantized (its blocks quantize to zeros) and a value within 1e-30 otherwise, and a row with
   one such block among ordinary ones gives what the same row with that block zeroed gives
   within a relative 1e-5. */
static void t_tiny_x(void) {
    static const int ks[5] = {0, 1, 2, 3, 13}; /* q8_0, q4_0, q4_k, q6_k, q4_0long */
    int p, k;
    for (p = 0; p < NPATHS; p++) {
        genie_ctx *ctx;
        genie_gguf *g = NULL;
        if (SKIP_PATH(p)) continue;
        ctx = test_ctx(paths[p], 1);
        CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
        for (k = 0; k < 5 && g; k++) {
            const int64_t N = QT[ks[k]].r, K = QT[ks[k]].c, M = 3, xs[2] = {M, K};
            const int quantized = paths[p] >= GENIE_CPU_AVX2;
            float *x = (float *)malloc((size_t)(M * K) * 4), *y = (float *)malloc((size_t)(M * N) * 4);
            int64_t i, n, bad = 0;
            for (i = 0; i < K; i++) {
                x[i] = (i & 1 ? -1e-38f : 1e-38f) * (float)(i % 32); /* row 0: tiny blocks only */
                x[K + i] = x[2 * K + i] = (float)xv(7 * i + k);      /* rows 1 and 2: ordinary */
                if (i < 32) x[K + i] = x[i], x[2 * K + i] = 0.0f;    /* row 1's first block tiny, row 2's zero */
            }
            CHECK(genie_read(ctx, genie_linear(ctx, genie_from_data(ctx, GENIE_F32, 2, xs, x), genie_gguf_get(g, QT[ks[k]].name), NULL),
                             GENIE_F32, y, (size_t)(M * N) * 4) == GENIE_OK);
            for (n = 0; n < N; n++) {
                const float y0 = y[n], y1 = y[N + n], y2 = y[2 * N + n];
                bad += !isfinite(y0) || !isfinite(y1) || (quantized ? y0 != 0.0f : fabsf(y0) > 1e-30f) ||
                       fabsf(y1 - y2) > 1e-5f * (fabsf(y2) + 1.0f);
            }
            if (bad) printf("  %s path %s: %lld products wrong about blocks of x below GENIE__Q8_AMAX_MIN\n", QT[ks[k]].name,
                            genie_cpu_name(paths[p]), (long long)bad);
            CHECK(bad == 0);
            free(x), free(y);
        }
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
}
static void t_nonfinite_x(void) {
    static const int ks[5] = {0, 1, 2, 3, 13}; /* q8_0, q4_0, q4_k, q6_k, q4_0long (its 8-block steps) */
    static const int64_t ms[2] = {3, 37};
    int p, k, mi;
    for (p = 0; p < NPATHS; p++) {
        genie_ctx *ctx;
        genie_gguf *g = NULL;
        if (SKIP_PATH(p)) continue;
        ctx = test_ctx(paths[p], 2);
        CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
        for (k = 0; k < 5 && g; k++)
            for (mi = 0; mi < 2; mi++) {
                const int64_t N = QT[ks[k]].r, K = QT[ks[k]].c, M = ms[mi], xs[2] = {M, K};
                const int quantized = paths[p] >= GENIE_CPU_AVX2;
                float *x = (float *)malloc((size_t)(M * K) * 4), *y = (float *)malloc((size_t)(M * N) * 4);
                int64_t i, m, n, bad = 0;
                for (i = 0; i < M * K; i++) x[i] = (float)xv(5 * i + k);
                x[1 * K + 5] = NAN, x[2 * K] = INFINITY;
                CHECK(genie_read(ctx, genie_linear(ctx, genie_from_data(ctx, GENIE_F32, 2, xs, x), genie_gguf_get(g, QT[ks[k]].name), NULL),
                                 GENIE_F32, y, (size_t)(M * N) * 4) == GENIE_OK);
                for (m = 0; m < M; m++)
                    for (n = 0; n < N; n++) {
                        const float v = y[m * N + n];
                        bad += m == 1 || m == 2 ? (quantized ? !isnan(v) : isfinite(v)) : !isfinite(v);
                    }
                if (bad) printf("  %s path %s M %lld: %lld products wrong about a NaN or an infinity in x\n", QT[ks[k]].name,
                                genie_cpu_name(paths[p]), (long long)M, (long long)bad);
                CHECK(bad == 0);
                free(x), free(y);
            }
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
}
/* The activations' quantization of the decode products is one computation on every path: the
   AVX-512 rows (VNNI and VBMI kernels) give the scalar code's int8 values and scales. Q8_0, Q4_K
   and Q6_K dots on avx2 and avx512 are exact integer sums under the same f32 steps, so their
   products agree bit for bit; x holds the cases where rounding is decided: values a half
   from an integer once scaled (each block's largest is 127, so the scale is exactly 1), both
   zeros, a block of zeros, a block of tiny values, and values that round to +-127. */
static void t_qrow_paths(void) {
    static const int ks[4] = {0, 6, 2, 3}; /* q8_0 (rows of 4 and 1; of 8), q4_k, q6_k */
    genie_ctx *c2, *c5;
    genie_gguf *g2 = NULL, *g5 = NULL;
    int k;
    if (!genie_cpu_supported(GENIE_CPU_AVX512)) { printf("  skip: activation quantization on AVX-512 against the scalar rows (no AVX-512 here)\n"); return; }
    c2 = test_ctx(GENIE_CPU_AVX2, 1), c5 = test_ctx(GENIE_CPU_AVX512, 1);
    CHECK(genie_gguf_open(c2, P("t.gguf"), &g2) == GENIE_OK && genie_gguf_open(c5, P("t.gguf"), &g5) == GENIE_OK);
    for (k = 0; k < 4 && g2 && g5; k++) {
        const int64_t N = QT[ks[k]].r, K = QT[ks[k]].c, M = 3, xs[2] = {M, K};
        float *x = (float *)malloc((size_t)(M * K) * 4), *y2 = (float *)malloc((size_t)(M * N) * 4), *y5 = (float *)malloc((size_t)(M * N) * 4);
        int64_t i, diff = 0;
        for (i = 0; i < M * K; i++) {
            const int64_t b = i / 32, j = i % 32;
            const float half = (float)((i * 37) % 253 - 126) + ((i & 1) ? 0.5f : -0.5f); /* in (-127, 127) */
            /* blocks by b % 5: halves and -127; all zeros; 127 and tiny values; scale not 1; halves, -0, +-126.5 */
            x[i] = b % 5 == 2 ? 0.0f : j == 0 ? 127.0f : b % 5 == 1 ? (j == 3 ? -127.0f : half) : b % 5 == 3 ? 1e-30f * (float)j
                 : b % 5 == 4 ? 3.0f * (float)xv(i) : j == 5 ? -0.0f : j == 7 ? 126.5f : j == 9 ? -126.5f : half;
        }
        CHECK(genie_read(c2, genie_linear(c2, genie_from_data(c2, GENIE_F32, 2, xs, x), genie_gguf_get(g2, QT[ks[k]].name), NULL), GENIE_F32, y2,
                         (size_t)(M * N) * 4) == GENIE_OK);
        CHECK(genie_read(c5, genie_linear(c5, genie_from_data(c5, GENIE_F32, 2, xs, x), genie_gguf_get(g5, QT[ks[k]].name), NULL), GENIE_F32, y5,
                         (size_t)(M * N) * 4) == GENIE_OK);
        for (i = 0; i < M * N; i++) diff += memcmp(&y2[i], &y5[i], 4) != 0;
        CHECK(diff == 0);
        if (diff) printf("  %s: %lld of %lld decode outputs differ between avx2 and avx512\n", QT[ks[k]].name, (long long)diff, (long long)(M * N));
        free(x), free(y2), free(y5);
    }
    genie_gguf_close(g2), genie_gguf_close(g5);
    genie_ctx_destroy(c2), genie_ctx_destroy(c5);
}
/* The avx2 path's activation quantization on AVX2 gives the portable row's bytes, scales and
   sums (the test hook GENIE_SCALAR_QROW runs the portable row in its place), so the products
   agree bit for bit: every weight of the file (QB 32 and the K-quants' 256), decode (M 1, 3,
   16) and prefill (M 37, 100), on x where rounding is decided: values a half from an integer
   once scaled, both zeros, a block of zeros, tiny values (scales of 2.4e-37 and, below
   GENIE__Q8_AMAX_MIN, 2.4e-39: quantized to zeros), values that
   round to +-127, scales not 1, and rows holding a NaN, an infinity or -FLT_MAX. A skip
   line where the CPU has no AVX2. */
static void t_qrow_avx2(void) {
    static const int64_t ms[5] = {1, 3, 16, 37, 100};
    genie_ctx *cv, *cs;
    genie_gguf *gv = NULL, *gs = NULL;
    int k, mi;
    if (!genie_cpu_supported(GENIE_CPU_AVX2)) { printf("  skip: activation quantization on AVX2 against the portable row (no AVX2 here)\n"); return; }
    cv = test_ctx(GENIE_CPU_AVX2, 1);
    CHECK(setenv("GENIE_SCALAR_QROW", "1", 1) == 0);
    cs = test_ctx(GENIE_CPU_AVX2, 1);
    CHECK(unsetenv("GENIE_SCALAR_QROW") == 0);
    CHECK(genie_gguf_open(cv, P("t.gguf"), &gv) == GENIE_OK && genie_gguf_open(cs, P("t.gguf"), &gs) == GENIE_OK);
    for (k = 0; k < NQT && gv && gs; k++)
        for (mi = 0; mi < 5; mi++) {
            const int64_t N = QT[k].r, K = QT[k].c, M = ms[mi], xs[2] = {M, K};
            float *x = (float *)malloc((size_t)(M * K) * 4), *yv = (float *)malloc((size_t)(M * N) * 4), *ys = (float *)malloc((size_t)(M * N) * 4);
            int64_t i, diff = 0;
            for (i = 0; i < M * K; i++) {
                const int64_t b = i / 32 + k, j = i % 32;
                const float half = (float)((i * 37) % 253 - 126) + ((i & 1) ? 0.5f : -0.5f); /* in (-127, 127) */
                /* 32-blocks by b % 8: halves, -0, +-126.5; halves and -127; zeros; tiny values; scales not 1 (twice);
                   -0; 127 and tiny values */
                x[i] = b % 8 == 2 ? 0.0f : b % 8 == 3 ? (b % 16 == 3 ? 1e-36f : 1e-38f) * (float)j : b % 8 == 6 ? -0.0f : b % 8 == 4 ? 3.0f * (float)xv(i)
                     : b % 8 == 5 ? (float)xv(i) / 7.0f : j == 0 ? 127.0f : b % 8 == 7 ? 1e-30f * (float)j
                     : b % 8 == 1 ? (j == 3 ? -127.0f : half) : j == 5 ? -0.0f : j == 7 ? 126.5f : j == 9 ? -126.5f : half;
            }
            if (M > 1) x[K + 3] = NAN;
            if (M > 2) x[2 * K + K - 1] = -INFINITY, x[2 * K + 40 % K] = -FLT_MAX;
            CHECK(genie_read(cv, genie_linear(cv, genie_from_data(cv, GENIE_F32, 2, xs, x), genie_gguf_get(gv, QT[k].name), NULL),
                             GENIE_F32, yv, (size_t)(M * N) * 4) == GENIE_OK);
            CHECK(genie_read(cs, genie_linear(cs, genie_from_data(cs, GENIE_F32, 2, xs, x), genie_gguf_get(gs, QT[k].name), NULL),
                             GENIE_F32, ys, (size_t)(M * N) * 4) == GENIE_OK);
            for (i = 0; i < M * N; i++) diff += memcmp(&yv[i], &ys[i], 4) != 0 && !(yv[i] != yv[i] && ys[i] != ys[i]);
            CHECK(diff == 0);
            if (diff) printf("  %s M %lld: %lld of %lld outputs differ between the AVX2 and the portable activation rows\n", QT[k].name,
                             (long long)M, (long long)diff, (long long)(M * N));
            free(x), free(yv), free(ys);
        }
    genie_gguf_close(gv), genie_gguf_close(gs);
    genie_ctx_destroy(cv), genie_ctx_destroy(cs);
}
/* Q4_K prefill on the AMX int8 tiles is the int8 panels' computation (x per 32-block, the same
   integer sums of each 32-group, scaled and summed in the same order), and Q6_K runs on the
   panels on both paths: amx and avx512 (vpdpbusd panels) agree bit for bit, on 1 and 2
   threads, M 37 and 100 (tiles of 16 rows and a part), weights of 3 to 40 rows (a tile of 16
   and a part). A skip line where this CPU has no AMX path. */
static void t_prefill_tiles(void) {
    static const int ks[4] = {2, 3, 8, 9}; /* q4_k, q6_k, q4_kwide, q6_kwide */
    static const int64_t ms[2] = {37, 100};
    int k, mi, t;
    if (!genie_cpu_supported(GENIE_CPU_AMX)) { printf("  skip: K-quant prefill on AMX tiles against the VNNI panels (no AMX path here)\n"); return; }
    for (t = 1; t <= 2; t++) {
        genie_ctx *ca = test_ctx(GENIE_CPU_AMX, t), *cv = test_ctx(GENIE_CPU_AVX512, t);
        genie_gguf *ga = NULL, *gv = NULL;
        CHECK(genie_gguf_open(ca, P("t.gguf"), &ga) == GENIE_OK && genie_gguf_open(cv, P("t.gguf"), &gv) == GENIE_OK);
        for (k = 0; k < 4 && ga && gv; k++)
            for (mi = 0; mi < 2; mi++) {
                const int64_t N = QT[ks[k]].r, K = QT[ks[k]].c, M = ms[mi], xs[2] = {M, K};
                float *x = (float *)malloc((size_t)(M * K) * 4), *ya = (float *)malloc((size_t)(M * N) * 4), *yv = (float *)malloc((size_t)(M * N) * 4);
                int64_t i, diff = 0;
                for (i = 0; i < M * K; i++) x[i] = (float)xv(3 * i + k);
                CHECK(genie_read(ca, genie_linear(ca, genie_from_data(ca, GENIE_F32, 2, xs, x), genie_gguf_get(ga, QT[ks[k]].name), NULL),
                                 GENIE_F32, ya, (size_t)(M * N) * 4) == GENIE_OK);
                CHECK(genie_read(cv, genie_linear(cv, genie_from_data(cv, GENIE_F32, 2, xs, x), genie_gguf_get(gv, QT[ks[k]].name), NULL),
                                 GENIE_F32, yv, (size_t)(M * N) * 4) == GENIE_OK);
                for (i = 0; i < M * N; i++) diff += memcmp(&ya[i], &yv[i], 4) != 0 || ya[i] != ya[i];
                CHECK(diff == 0);
                if (diff) printf("  %s M %lld, %d thread(s): %lld of %lld prefill outputs differ between amx and avx512\n", QT[ks[k]].name,
                                 (long long)M, t, (long long)diff, (long long)(M * N));
                free(x), free(ya), free(yv);
            }
        genie_gguf_close(ga), genie_gguf_close(gv);
        genie_ctx_destroy(ca), genie_ctx_destroy(cv);
    }
}
/* The avx2 path's int8 dots in their two forms, VEX vpdpbusd (AVX-VNNI) and vpmaddubsw (the test
   hook GENIE_NO_AVXVNNI), agree bit for bit: the same exact i32 sums under the same f32 steps.
   Every weight of the file (each block type; odd row counts, rows of 1 block to 129), decode
   (M 1, 3, 16: one-row and 4-row dots) and prefill (M 37, 100: the int8 panels, Q8_0 unsigned
   beside signed), 1 and 2 threads.
   A skip line where the CPU has no AVX-VNNI. */
static void t_avxvnni_forms(void) {
    static const int64_t ms[5] = {1, 3, 16, 37, 100};
    int k, mi, t;
    if (!have_avxvnni()) { printf("  skip: the avx2 path's int8 dots on AVX-VNNI beside vpmaddubsw (no AVX-VNNI here)\n"); return; }
    for (t = 1; t <= 2; t++) {
        genie_ctx *cv = test_ctx(GENIE_CPU_AVX2, t), *cy;
        genie_gguf *gv = NULL, *gy = NULL;
        CHECK(setenv("GENIE_NO_AVXVNNI", "1", 1) == 0);
        cy = test_ctx(GENIE_CPU_AVX2, t);
        CHECK(unsetenv("GENIE_NO_AVXVNNI") == 0);
        CHECK(genie_gguf_open(cv, P("t.gguf"), &gv) == GENIE_OK && genie_gguf_open(cy, P("t.gguf"), &gy) == GENIE_OK);
        for (k = 0; k < NQT && gv && gy; k++)
            for (mi = 0; mi < 5; mi++) {
                const int64_t N = QT[k].r, K = QT[k].c, M = ms[mi], xs[2] = {M, K};
                float *x = (float *)malloc((size_t)(M * K) * 4), *yv = (float *)malloc((size_t)(M * N) * 4), *yy = (float *)malloc((size_t)(M * N) * 4);
                int64_t i, diff = 0;
                for (i = 0; i < M * K; i++) x[i] = (float)xv(7 * i + k);
                CHECK(genie_read(cv, genie_linear(cv, genie_from_data(cv, GENIE_F32, 2, xs, x), genie_gguf_get(gv, QT[k].name), NULL),
                                 GENIE_F32, yv, (size_t)(M * N) * 4) == GENIE_OK);
                CHECK(genie_read(cy, genie_linear(cy, genie_from_data(cy, GENIE_F32, 2, xs, x), genie_gguf_get(gy, QT[k].name), NULL),
                                 GENIE_F32, yy, (size_t)(M * N) * 4) == GENIE_OK);
                for (i = 0; i < M * N; i++) diff += memcmp(&yv[i], &yy[i], 4) != 0 || yv[i] != yv[i];
                CHECK(diff == 0);
                if (diff) printf("  %s M %lld, %d thread(s): %lld of %lld outputs differ between AVX-VNNI and vpmaddubsw\n", QT[k].name,
                                 (long long)M, t, (long long)diff, (long long)(M * N));
                free(x), free(yv), free(yy);
            }
        genie_gguf_close(gv), genie_gguf_close(gy);
        genie_ctx_destroy(cv), genie_ctx_destroy(cy);
    }
}
static void t_errors(void) {
    genie_ctx *ctx = test_ctx(GENIE_CPU_AUTO, 1);
    genie_gguf *g = NULL;
    genie_tensor *w, *x;
    const int64_t xs[2] = {2, 96}, bad_idx[1] = {7};
    float xb[192] = {0};
    CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
    w = genie_gguf_get(g, "q8_0");
    x = genie_from_data(ctx, GENIE_F32, 2, xs, xb);
    CHECK(genie_add(ctx, w, w) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE && strstr(genie_last_error(ctx), "q8_0"));
    genie_clear_error(ctx);
    CHECK(genie_narrow(ctx, w, 1, 0, 16) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    CHECK(genie_narrow(ctx, w, 1, 32, 64) != NULL && genie_status(ctx) == GENIE_OK);
    CHECK(genie_to_dtype(ctx, w, GENIE_I32) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    CHECK(genie_to_dtype(ctx, x, GENIE_Q8_0) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    CHECK(genie_zeros(ctx, GENIE_Q4_0, 2, xs) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    CHECK(genie_matmul(ctx, w, x) == NULL && genie_status(ctx) == GENIE_ERR_DTYPE);
    genie_clear_error(ctx);
    CHECK(genie_linear(ctx, x, genie_t(ctx, w), NULL) == NULL && genie_status(ctx) != GENIE_OK);
    genie_clear_error(ctx);
    CHECK(genie_linear(ctx, genie_t(ctx, x), w, NULL) == NULL && genie_status(ctx) == GENIE_ERR_SHAPE);
    genie_clear_error(ctx);
    CHECK(genie_read(ctx, w, GENIE_F32, xb, sizeof xb) != GENIE_OK);
    genie_clear_error(ctx);
    { /* an index out of range: at materialization */
        const int64_t one[1] = {1};
        genie_tensor *e = genie_embedding(ctx, w, genie_from_data(ctx, GENIE_I64, 1, one, bad_idx));
        CHECK(e && genie_realize(ctx, 1, &e) == GENIE_ERR_INDEX);
        genie_clear_error(ctx);
    }
    genie_gguf_close(g);
    genie_ctx_destroy(ctx);
}
/* Broken files: each is an error naming the file, never a crash. */
static void put(unsigned char *b, size_t *n, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; i++) b[(*n)++] = (unsigned char)(v >> (8 * i));
}
static void t_broken(void) {
    static unsigned char b[4096];
    FILE *f;
    size_t n, i;
    int c;
    for (c = 0; c < 12; c++) {
        genie_ctx *ctx = test_ctx(GENIE_CPU_AUTO, 1);
        genie_gguf *g = NULL;
        genie_result r;
        n = 0;
        memcpy(b, c == 0 ? "GGUG" : "GGUF", 4);
        n = 4;
        put(b, &n, c == 1 ? 1 : c == 2 ? 0x03000000u : 3, 4);
        put(b, &n, c == 3 ? (uint64_t)1 << 60 : 1, 8);             /* tensors */
        put(b, &n, c == 4 ? (uint64_t)1 << 62 : 1, 8);             /* key/values */
        put(b, &n, c == 5 ? (uint64_t)-1 : 17, 8);                  /* key length */
        memcpy(b + n, "general.alignment", 17), n += 17;
        put(b, &n, c == 6 ? 5 : 4, 4);                              /* u32, or i32 */
        put(b, &n, c == 7 ? 24 : 32, 4);
        put(b, &n, 1, 8), b[n++] = 'w';                             /* the tensor: "w" */
        put(b, &n, c == 8 ? 5 : 2, 4);                              /* n_dims */
        put(b, &n, c == 9 ? 33 : 64, 8), put(b, &n, c == 10 ? (uint64_t)1 << 62 : 2, 8);
        put(b, &n, 8, 4);                                           /* Q8_0 */
        put(b, &n, c == 11 ? 64 : 0, 8);                            /* offset */
        while (n % 32) b[n++] = 0;
        for (i = 0; i < 4 * 34; i++) b[n++] = (unsigned char)i;
        f = fopen(P("broken.gguf"), "wb");
        if (!f || fwrite(b, 1, n, f) != n) { printf("FAIL cannot write broken.gguf\n"); fails++; }
        if (f) fclose(f);
        r = genie_gguf_open(ctx, P("broken.gguf"), &g);
        CHECK(r != GENIE_OK && g == NULL && strstr(genie_last_error(ctx), "broken.gguf"));
        genie_ctx_destroy(ctx);
    }
    { /* and the good one it was bent from reads */
        genie_ctx *ctx = test_ctx(GENIE_CPU_AUTO, 1);
        genie_gguf *g = NULL;
        float v[128];
        n = 0;
        memcpy(b, "GGUF", 4), n = 4;
        put(b, &n, 3, 4), put(b, &n, 1, 8), put(b, &n, 1, 8), put(b, &n, 17, 8);
        memcpy(b + n, "general.alignment", 17), n += 17;
        put(b, &n, 4, 4), put(b, &n, 32, 4), put(b, &n, 1, 8), b[n++] = 'w', put(b, &n, 2, 4), put(b, &n, 64, 8), put(b, &n, 2, 8);
        put(b, &n, 8, 4), put(b, &n, 0, 8);
        while (n % 32) b[n++] = 0;
        for (i = 0; i < 4 * 34; i++) b[n++] = (unsigned char)(i % 34 == 1 ? 0x3c : i % 34 == 0 ? 0 : i); /* d = 1.0 */
        f = fopen(P("good.gguf"), "wb");
        if (f) { fwrite(b, 1, n, f); fclose(f); }
        CHECK(genie_gguf_open(ctx, P("good.gguf"), &g) == GENIE_OK);
        CHECK(genie_read(ctx, genie_to_dtype(ctx, genie_gguf_get(g, "w"), GENIE_F32), GENIE_F32, v, sizeof v) == GENIE_OK &&
              v[0] == 2 && v[1] == 3 && v[33] == 37 && v[127] == (float)(int8_t)(3 * 34 + 33));
        genie_gguf_close(g);
        genie_ctx_destroy(ctx);
    }
}

/* Q4_0 decode products whose every step is exact in f32, so each path must give the integer sum
   itself, bit for bit: weight scales 1.0 (f16 0x3c00), x integers with a +-127 in every 32-block
   (so x's scale is 1 and its int8 values are x), blocks few enough that every partial sum is an
   integer below 2^24. Rows 0-7 hold the extremes the kernels' i16 steps must not wrap at (all
   nibbles 15 or 0 against x all 127 or -127: a 16-element partial of 16 * 15 * 127); the rest
   random nibbles. Every path (the reference too), N = 29 (8-row groups, a 4-row group and single
   rows), K = 7 blocks, M 1 and 3 (decode), 1 and 2 threads. */
static void t_q4_exact(void) {
    enum { N = 29, NB = 7, K = 32 * NB, M = 3 };
    static unsigned char wb[N * NB * 18];
    static float x[M * K], y[M * N];
    static double want[M * N];
    int p, th, mi, n, b, j, m;
    for (n = 0; n < N; n++)
        for (b = 0; b < NB; b++) {
            unsigned char *blk = wb + (n * NB + b) * 18;
            blk[0] = 0x00, blk[1] = 0x3c;
            for (j = 0; j < 16; j++) blk[2 + j] = n < 8 ? (n & 1 ? 0xFF : 0x00) : (unsigned char)((n * 131 + b * 17 + j * 29) * 7 >> 2);
        }
    for (m = 0; m < M; m++)
        for (j = 0; j < K; j++)
            x[m * K + j] = m == 0 ? 127.0f : m == 1 ? -127.0f : (float)(j % 32 == 5 ? 127 : (j * 37 + 11) % 255 - 127);
    for (m = 0; m < M; m++)
        for (n = 0; n < N; n++) {
            double t = 0;
            for (b = 0; b < NB; b++)
                for (j = 0; j < 32; j++) {
                    const unsigned char c = wb[(n * NB + b) * 18 + 2 + j % 16];
                    t += (double)((j < 16 ? c & 15 : c >> 4) - 8) * x[m * K + 32 * b + j];
                }
            want[m * N + n] = t;
        }
    for (p = 0; p < NPATHS; p++)
        for (th = 1; th <= 2; th++)
            for (mi = 0; mi < 2; mi++) {
                const int64_t ms = mi ? M : 1, xs[2] = {ms, K}, ws[2] = {N, K};
                genie_ctx *ctx;
                int64_t i, bad = 0;
                if (SKIP_PATH(p)) continue;
                ctx = test_ctx(paths[p], th);
                CHECK(genie_read(ctx, genie_linear(ctx, genie_from_data(ctx, GENIE_F32, 2, xs, x + (mi ? 0 : 2 * K)),
                                                   genie_from_blocks(ctx, GENIE_Q4_0, 2, ws, wb, NULL, NULL), NULL),
                                 GENIE_F32, y, (size_t)(ms * N) * 4) == GENIE_OK);
                for (i = 0; i < ms * N; i++) bad += (double)y[i] != want[(mi ? 0 : 2 * N) + i];
                if (bad) printf("  q4_0 exact sums, path %s, %d threads, M=%lld: %lld of %lld differ\n", genie_cpu_name(paths[p]), th,
                                (long long)ms, (long long)bad, (long long)(ms * N));
                CHECK(bad == 0);
                genie_ctx_destroy(ctx);
            }
}

/* The AVX2 packs that read a weight as it is, bit for bit against their references, on odd
   shapes: genie__pack_th_avx2 (an f16/bf16 matrix as f32 panels, converted in registers)
   against genie__hconv's values placed element by element (NaN made quiet, infinities,
   subnormals; rows not a multiple of 8 or 4, a k tail, panels wider than the rows, whose
   other lanes it must leave alone); genie__qavx2_wpanel_q8 (Q8_0 rows as the int8 panels,
   8 x 8 dword transposes) against genie__qavx2_wpanel_s (the byte copy and gathers), signed
   and offset, 1 to 32 rows of 1 to 9 blocks, rows from a view with a row stride. */
#ifdef GENIE__X86
/* genie__qavx2_wpanel_s is always inlined: called from a function built for AVX2 */
static GENIE__AVX2 void q8_wpanel_ref(const void *base, const genie__vspec *wv, int64_t n0, int64_t nn, int64_t nb, uint8_t *wp, float *dw,
                                      float *mw, int s8) {
    if (s8) genie__qavx2_wpanel_s(GENIE_Q8_0, base, wv, n0, nn, nb, wp, dw, mw, 1);
    else genie__qavx2_wpanel_s(GENIE_Q8_0, base, wv, n0, nn, nb, wp, dw, mw, 0);
}
#endif
static void t_avx2_packs(void) {
#ifdef GENIE__X86
    static const int64_t rs[9] = {1, 3, 4, 6, 7, 8, 9, 16, 17}, ks[6] = {1, 7, 8, 9, 64, 515}, nns[6] = {1, 5, 8, 17, 31, 32}, nbs[3] = {1, 3, 9};
    uint16_t *src = (uint16_t *)malloc(sizeof(uint16_t) * 17 * 520);
    float *got = (float *)malloc(sizeof(float) * 24 * 520), *want = (float *)malloc(sizeof(float) * 24 * 520);
    unsigned char *wq = (unsigned char *)malloc(70 * 9 * 34);
    uint8_t *wp1 = (uint8_t *)malloc(9 * 1024), *wp2 = (uint8_t *)malloc(9 * 1024);
    float dw1[9 * 32], dw2[9 * 32], mw[9 * 64];
    int d, ri, ki, wi, ni, bi, s8;
    int64_t i, bad = 0;
    if (!genie_cpu_supported(GENIE_CPU_AVX2)) { printf("  skip: the AVX2 packs (no AVX2 here)\n"); free(src), free(got), free(want), free(wq), free(wp1), free(wp2); return; }
    for (i = 0; i < 17 * 520; i++) { /* specials every few elements: NaN (signalling and quiet), +-inf, subnormals, zeros */
        static const uint16_t sp[6] = {0x7f81, 0xffc1, 0x7f80, 0x0001, 0x8000, 0x7c01};
        src[i] = i % 11 == 5 ? sp[(i / 11) % 6] : (uint16_t)((i * 40503u + 7u) & 0xffffu);
    }
    for (d = 0; d < 2; d++)
        for (ri = 0; ri < 9; ri++)
            for (ki = 0; ki < 6; ki++)
                for (wi = 0; wi < 2; wi++) {
                    const int dt = d ? GENIE_F16 : GENIE_BF16, w = (int)(wi ? 24 : rs[ri]);
                    const int64_t rows = rs[ri], kc = ks[ki], ld = kc + 5;
                    int64_t r, k;
                    for (i = 0; i < 24 * 520; i++) got[i] = want[i] = -7.25f;
                    for (r = 0; r < rows; r++)
                        for (k = 0; k < kc; k++) genie__hconv(GENIE_CPU_GENERIC, dt, 0, want + k * w + r, src + r * ld + k, 1);
                    genie__pack_th_avx2(dt, src, ld, rows, kc, w, got);
                    bad += memcmp(got, want, sizeof(float) * 24 * 520) != 0;
                }
    CHECK(bad == 0);
    for (i = 0; i < 70 * 9 * 34; i++) wq[i] = (unsigned char)((i * 2654435761u) >> 13);
    for (bad = 0, ni = 0; ni < 6; ni++)
        for (bi = 0; bi < 3; bi++)
            for (s8 = 0; s8 < 2; s8++) {
                genie__vspec wv;
                memset(&wv, 0, sizeof wv);
                wv.ndim = 2, wv.shape[0] = 2 * nns[ni] + 2, wv.shape[1] = 32 * nbs[bi];
                wv.strides[0] = 2 * 32 * nbs[bi], wv.strides[1] = 1, wv.off = 32 * nbs[bi]; /* every other row of a [.., 32 nb] matrix, from row 1 */
                memset(wp1, 0x55, 9 * 1024), memset(wp2, 0x55, 9 * 1024), memset(dw1, 0x55, sizeof dw1), memset(dw2, 0x55, sizeof dw2);
                q8_wpanel_ref(wq, &wv, 1, nns[ni], nbs[bi], wp1, dw1, mw, s8);
                genie__qavx2_wpanel_q8(wq, &wv, 1, nns[ni], nbs[bi], wp2, dw2, s8);
                bad += memcmp(wp1, wp2, 9 * 1024) != 0 || memcmp(dw1, dw2, sizeof dw1) != 0;
            }
    CHECK(bad == 0);
    free(src), free(got), free(want), free(wq), free(wp1), free(wp2);
#endif
}
/* One pool job for the decode products of one x (genie__qjob_run): products that read the same x
   with weights of one block dtype and K run in the first one's job, up to 4, each with the bits it
   gets alone (realized apart, the same path and threads), on every path, 1 and 2 threads, Q8_0,
   Q4_0 and the K types, rows of 1 and 3, output columns that end off a group of 4 or 8; x computed
   in the same tape (its products wait for it) or a constant; products that must not join (another
   x, another K, a prefill's 37 rows, a fifth product) run alone. The avx2 path's Q4_0 rows of 8
   round otherwise than its rows of 4: a product after one with an odd count of groups of 4
   (q4_0long, N 11, work enough for 2 threads) must still start on a row of 8. */
static void t_qjob(void) {
    /* q8_0big, q4_0big, q4_k, q6_k; q4_0long: work enough for 2 threads, N = 11 (3 groups of 4: an odd count before the next product) */
    static const int ks[5] = {4, 5, 2, 3, 13};
    int p, th, kk, mi;
    for (p = 1; p < NPATHS; p++)
        for (th = 1; th <= 2; th++) {
            genie_ctx *ctx;
            genie_gguf *g = NULL;
            if (SKIP_PATH(p)) continue;
            ctx = test_ctx(paths[p], th);
            CHECK(genie_gguf_open(ctx, P("t.gguf"), &g) == GENIE_OK);
            for (kk = 0; kk < 5 && g; kk++)
                for (mi = 0; mi < 3; mi++) {
                    const int k = ks[kk];
                    const int64_t N = QT[k].r, K = QT[k].c, M = mi == 0 ? 1 : mi == 1 ? 3 : 37, xs[2] = {M, K};
                    const int64_t K2 = K - (QT[k].dt == GENIE_Q8_0 || QT[k].dt == GENIE_Q4_0 ? 32 : 256); /* a block less */
                    genie_tensor *w = genie_gguf_get(g, QT[k].name), *ws[6], *x, *x2, *y[8], *z;
                    float *got = (float *)malloc((size_t)(M * N) * 4), *alone = (float *)malloc((size_t)(M * N) * 4);
                    double *xd = (double *)malloc((size_t)(M * K) * 8);
                    int64_t i, bad = 0;
                    uint64_t j0;
                    int j;
                    for (i = 0; i < M * K; i++) xd[i] = xv(i + 7 * k);
                    x = genie_to_dtype(ctx, genie_from_data(ctx, GENIE_F64, 2, xs, xd), GENIE_F32);
                    CHECK(genie_realize(ctx, 1, &x) == GENIE_OK);
                    x2 = genie_mul(ctx, x, x); /* computed in the tape that reads it */
                    ws[0] = w, ws[1] = genie_narrow(ctx, w, 0, 1, N - 1), ws[2] = genie_narrow(ctx, w, 0, 2, N - 3);
                    ws[3] = genie_narrow(ctx, w, 0, 0, N / 2), ws[4] = w; /* the fifth joins none */
                    for (j = 0; j < 5; j++) y[j] = genie_linear(ctx, x2, ws[j], NULL);
                    y[5] = genie_linear(ctx, x, w, NULL);                                  /* another x */
                    y[6] = genie_linear(ctx, genie_narrow(ctx, x2, 1, 0, K2), genie_narrow(ctx, w, 1, 0, K2), NULL); /* another view of x */
                    y[7] = genie_linear(ctx, x, ws[1], NULL);                              /* joins y[5] */
                    j0 = genie_get_stats(ctx).products_joined;
                    CHECK(genie_realize(ctx, 8, y) == GENIE_OK);
                    CHECK(genie_get_stats(ctx).products_joined - j0 == (uint64_t)(M <= 16 ? 4 : 0));
                    for (j = 0; j < 8; j++) { /* each beside its product realized alone */
                        const int64_t n = genie_shape(y[j])[1];
                        genie_tensor *xa = j == 5 || j == 7 ? x : genie_mul(ctx, x, x);
                        if (j == 6) xa = genie_narrow(ctx, xa, 1, 0, K2);
                        z = genie_linear(ctx, xa, j == 5 ? w : j == 6 ? genie_narrow(ctx, w, 1, 0, K2) : j == 7 ? ws[1] : ws[j], NULL);
                        j0 = genie_get_stats(ctx).products_joined;
                        CHECK(genie_read(ctx, y[j], GENIE_F32, got, (size_t)(M * n) * 4) == GENIE_OK);
                        CHECK(genie_read(ctx, z, GENIE_F32, alone, (size_t)(M * n) * 4) == GENIE_OK);
                        CHECK(genie_get_stats(ctx).products_joined == j0);
                        for (i = 0; i < M * n; i++) bad += memcmp(&got[i], &alone[i], 4) != 0;
                    }
                    CHECK(bad == 0);
                    { /* the work statistics count joined products as they count them apart */
                        genie_tensor *a[3];
                        genie_work w[3];
                        int e, r;
                        for (e = 0; e < 3; e++) {
                            genie_stats st = genie_get_stats(ctx);
                            memset(&w[e], 0, sizeof w[e]);
                            for (r = 0; r < GENIE_ROLE_COUNT; r++) w[e].nodes += st.work_by_role[r].nodes, w[e].bytes += st.work_by_role[r].bytes;
                            if (e == 0) {
                                for (j = 0; j < 3; j++) a[j] = genie_linear(ctx, x, ws[j], NULL);
                                CHECK(genie_realize(ctx, 3, a) == GENIE_OK);
                            } else if (e == 1) {
                                for (j = 0; j < 3; j++) {
                                    a[j] = genie_linear(ctx, x, ws[j], NULL);
                                    CHECK(genie_realize(ctx, 1, &a[j]) == GENIE_OK);
                                }
                            }
                        }
                        CHECK(w[1].nodes - w[0].nodes >= 3 && w[1].nodes - w[0].nodes == w[2].nodes - w[1].nodes && w[1].bytes - w[0].bytes == w[2].bytes - w[1].bytes);
                    }
                    if (bad) printf("  qjob %s path %s %d threads M=%lld: %lld values differ\n", QT[k].name, genie_cpu_name(paths[p]), th, (long long)M, (long long)bad);
                    free(got);
                    free(alone);
                    free(xd);
                }
            CHECK(genie_status(ctx) == GENIE_OK);
            genie_gguf_close(g);
            genie_ctx_destroy(ctx);
        }
}
int main(int argc, char **argv) {
    char cmd[1024];
    const char *py = getenv("GGUF_PYTHON") ? getenv("GGUF_PYTHON") : ".venv/bin/python";
    int have;
    if (argc > 1) dir = argv[1];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && %s -c 'import gguf' >/dev/null 2>&1 && %s tests/data/gen_gguf.py %s >/dev/null", dir, py, py, dir);
    have = system(cmd) == 0;
    if (have) {
        t_meta();
        t_plain();
        t_dequant();
        t_products();
        t_prefill_inputs();
        t_nonfinite_x();
        t_tiny_x();
        t_qrow_paths();
        t_qrow_avx2();
        t_prefill_tiles();
        t_avxvnni_forms();
        t_avx2_packs();
        t_qjob();
        if (have_avxvnni()) { /* the products again on avx2 with its int8 dots on vpmaddubsw */
            printf("  the avx2 path's products again with GENIE_NO_AVXVNNI (vpmaddubsw)\n");
            maddubs_pass = 1;
            CHECK(setenv("GENIE_NO_AVXVNNI", "1", 1) == 0);
            t_products();
            t_prefill_inputs();
            t_nonfinite_x();
            CHECK(unsetenv("GENIE_NO_AVXVNNI") == 0);
            maddubs_pass = 0;
        }
        t_errors();
    } else {
        printf("  skip: GGUF files written by the Python gguf package (%s with gguf not found; set GGUF_PYTHON)\n", py);
    }
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) == 0) t_broken();
    t_q4_exact();
    printf("  test_gguf: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
