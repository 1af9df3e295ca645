/* bench/gemm.c - genie's matrix products beside OpenBLAS and PyTorch eager, in one run.

   Cases (bench/gemm_cases.h), f32 unless named, each at 1 and 2 threads:
     sq256 .. sq4096   [N,N] @ [N,N], genie_matmul vs cblas_sgemm vs at::matmul
     ffn_up, ffn_down  [512,768] x w[3072,768] and [512,3072] x w[768,3072] as linear
                       layers (w stored [out, in]): genie_linear vs sgemm(TransB) vs at::linear
     decode            [1,4096] x w[4096,4096] (OpenBLAS: sgemv, as sgemm with M = 1 packs the
                       weight first): GB/s of reading the weight, and its share of
                       the copy bandwidth measured in this run at the same thread count
                       (memcpy, counted as bytes read + bytes written). Each call reads the
                       next of several weights, and the copy moves as many bytes, at least
                       twice the largest cache (260 MiB of L3 here): both come from memory
     decode_gpt2_qkv, decode_gpt2_down, decode_gpt2_head
                       GPT-2 small's decode products: [1,768] @ [768,2304] and [1,3072] @ [3072,768]
                       (Conv1D weights stored [in, out]: genie's axpy form, OpenBLAS sgemv
                       transposed) and its LM head [1,768] x w[50257,768]^T (the dot form); GB/s
                       as decode
     conv56, conv224   [1,64,56,56] 3x3 pad 1 -> 64 and [8,3,224,224] 7x7 stride 2 pad 3 -> 64:
                       genie_conv2d vs at::conv2d, ms per call
     f64_1024          f64 [1024,1024] @ [1024,1024] vs cblas_dgemm and ATen
     bf16_2048         bf16 [2048,2048] @ [2048,2048] vs ATen bf16 (Debian's OpenBLAS has no
                       sbgemm), plus genie's bf16 speed over its own f32 at N = 2048
   Timing: inputs are materialized first; every call captures and realizes anew inside
   genie_pool_push/pop (ATen: the result is freed inside the timing too; OpenBLAS writes into a
   buffer made once); one warm-up call, then the median of enough calls for ~0.3 s (at least
   3; a warm-up of 5 s or more is the only sample). genie is skipped for a case whose call
   would take more than 20 s (predicted from calls on 1/256 and 1/64 of the rows, then checked
   on the warm-up), so a slow kernel never hangs the run.

   Run: `make bench-gemm` (`make bench` also runs bench/views.c); `BENCH_CASES="sq conv"` picks
   cases, BENCH_QUICK=1 runs the quick ones (sq256, sq1024, ffn_up, decode, conv56, f64_1024)
   for ~0.1 s each (with cases named, it only shortens the timing). By hand:
     E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX"
     $E build/bench_gemm $($E build/bench_gemm_aten [CASE...]) [CASE...]
   CASE picks the cases whose names contain it (`sq`, `conv`, `decode`, ...); arguments with
   '=' are the peer's results, printed by bench/gemm_aten.cpp. The environment's
   OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE pick a slow OpenBLAS kernel, and OpenBLAS 0.3.21 falls
   back to its SSE3 kernel on CPUs it does not know (Emerald Rapids): the Makefile names the
   best kernel the CPU runs. The kernel in use is printed. GENIE_CPU=reference|generic|avx2|
   avx512 picks genie's path. */
#define _POSIX_C_SOURCE 200112L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "gemm_cases.h"
#include <pthread.h>
#include <stdio.h>
#ifdef GB_OPENBLAS
#include <cblas.h>
void openblas_set_num_threads(int num_threads); /* in case the header lacks it */
#endif

#ifdef GB_OPENBLAS
#define GB_HAVE_OPENBLAS 1
#else
#define GB_HAVE_OPENBLAS 0
#endif
#define GB_CAP_S 20.0      /* genie skips a case whose call would take longer */

static void settle(void) { /* let the previous library's spinning workers go to sleep */
    struct timespec ts = {0, 200000000L};
    nanosleep(&ts, NULL);
}

/* ---- copy bandwidth: memcpy of gb_stream_bytes split over t threads ---- */
typedef struct { char *dst; const char *src; size_t n; } gb_chunk;
typedef struct { char *dst, *src; size_t n; int threads; } gb_copy;

static void *copy_chunk(void *p) {
    gb_chunk *c = (gb_chunk *)p;
    memcpy(c->dst, c->src, c->n);
    return NULL;
}
static double copy_once(void *arg) {
    gb_copy *cp = (gb_copy *)arg;
    gb_chunk ch[GB_NTHREADS];
    pthread_t th[GB_NTHREADS];
    int made[GB_NTHREADS] = {0}, i;
    size_t part = cp->n / (size_t)cp->threads;
    double t0 = bench_now();
    for (i = 0; i < cp->threads; i++) {
        ch[i].dst = cp->dst + (size_t)i * part;
        ch[i].src = cp->src + (size_t)i * part;
        ch[i].n = part;
        if (i > 0) made[i] = pthread_create(&th[i], NULL, copy_chunk, &ch[i]) == 0;
    }
    for (i = 0; i < cp->threads; i++) /* chunk 0, and any a thread could not be made for */
        if (!made[i]) copy_chunk(&ch[i]);
    for (i = 1; i < cp->threads; i++)
        if (made[i]) pthread_join(th[i], NULL);
    return bench_now() - t0;
}
/* GB/s of memcpy of gb_stream_bytes at t threads, counted as bytes read + bytes written */
static double copy_gbs(int threads) {
    gb_copy cp;
    double s;
    cp.n = (size_t)gb_stream_bytes();
    cp.src = (char *)malloc(cp.n);
    cp.dst = (char *)malloc(cp.n);
    cp.threads = threads;
    if (!cp.src || !cp.dst) { free(cp.src); free(cp.dst); return 0; }
    memset(cp.src, 1, cp.n);
    memset(cp.dst, 2, cp.n); /* first touch outside the timing */
    s = gb_median(copy_once, &cp, copy_once(&cp), 0.3);
    free(cp.src);
    free(cp.dst);
    return 2.0 * (double)cp.n / s * 1e-9;
}

/* ---- genie ---- */
typedef struct { genie_ctx *ctx; const gb_case *c; genie_tensor *x, *w[GB_MAXW]; int nw, next; } gb_genie;

static genie_dtype genie_dt(gb_dtype dt) { return dt == GB_F64 ? GENIE_F64 : dt == GB_BF16 ? GENIE_BF16 : GENIE_F32; }

/* matmul: x [m,k], w [k,n]; linear: x [m,k], w [n,k]; conv: x [b,c,h,w], w [o,c,r,r];
   g->nw copies of w (distinct values), materialized */
static int genie_inputs(gb_genie *g) {
    const gb_case *c = g->c;
    int64_t xs[4] = {c->m, c->k}, ws[4] = {c->k, c->n};
    int nd = 2, i;
    genie_tensor *t[GB_MAXW + 1];
    if (c->kind == GB_LINEAR) ws[0] = c->n, ws[1] = c->k;
    if (c->kind == GB_CONV) {
        nd = 4;
        xs[0] = c->b, xs[1] = c->c, xs[2] = c->h, xs[3] = c->w;
        ws[0] = c->o, ws[1] = c->c, ws[2] = c->r, ws[3] = c->r;
    }
    t[0] = g->x = genie_randn(g->ctx, genie_dt(c->dt), nd, xs, 1);
    for (i = 0; i < g->nw; i++) t[i + 1] = g->w[i] = genie_randn(g->ctx, genie_dt(c->dt), nd, ws, (uint64_t)i + 2);
    return genie_realize(g->ctx, g->nw + 1, t) == GENIE_OK;
}
static genie_tensor *genie_op(genie_ctx *ctx, const gb_case *c, genie_tensor *x, genie_tensor *w) {
    int64_t st[2] = {c->stride, c->stride}, pad[2] = {c->pad, c->pad}, dil[2] = {1, 1};
    if (c->kind == GB_MATMUL) return genie_matmul(ctx, x, w);
    if (c->kind == GB_LINEAR) return genie_linear(ctx, x, w, NULL);
    return genie_conv2d(ctx, x, w, NULL, st, pad, dil, 1);
}
static double genie_once(void *arg) { /* capture and realize anew, in a pool, with the next w */
    gb_genie *g = (gb_genie *)arg;
    genie_tensor *y, *w = g->w[g->next++ % g->nw];
    double t0 = bench_now();
    genie_pool_push(g->ctx);
    y = genie_op(g->ctx, g->c, g->x, w);
    genie_realize(g->ctx, 1, &y);
    genie_pool_pop(g->ctx);
    return bench_now() - t0;
}
/* seconds of one call on the first `rows` rows of x */
static double genie_probe(gb_genie *g, int64_t rows) {
    gb_genie p = *g;
    double t;
    genie_pool_push(g->ctx);
    p.x = genie_slice(g->ctx, g->x, 0, 0, rows, 1);
    t = genie_once(&p);
    genie_pool_pop(g->ctx);
    return t;
}
/* seconds a matmul/linear call of over 1 GFLOP would take (0: not predicted). A call on m/256
   rows bounds it from above (x256); when that bound is over the cap, a call on m/64 rows fits
   fixed + per-row cost, as packing the whole of w dominates small calls of a fast kernel. */
static double genie_predict(gb_genie *g) {
    int64_t m = g->c->m, r1 = m / 256, r2 = m / 64;
    double t1, t2;
    if (g->c->kind == GB_CONV || r1 < 1 || gb_flops(g->c) < 1e9) return 0;
    t1 = genie_probe(g, r1);
    if (t1 * 256 <= GB_CAP_S || t1 > 0.75) return t1 * 256; /* within the cap, or surely slow */
    t2 = genie_probe(g, r2);
    return t2 + (double)(m - r2) * (t2 > t1 ? (t2 - t1) / (double)(r2 - r1) : 0);
}
/* median seconds per genie call; -1 with `why` written when skipped or failed */
static double genie_time(gb_genie *g, double target, char *why, size_t nwhy) {
    double pred = genie_predict(g), warm;
    if (pred > GB_CAP_S) {
        snprintf(why, nwhy, "predicted %.0f s per call from calls on 1/256 (and 1/64) of the rows (cap %.0f s)", pred, GB_CAP_S);
        return -1;
    }
    warm = genie_once(g);
    if (genie_status(g->ctx) == GENIE_OK && warm > GB_CAP_S) {
        snprintf(why, nwhy, "the warm-up call took %.0f s (cap %.0f s)", warm, GB_CAP_S);
        return -1;
    }
    if (genie_status(g->ctx) == GENIE_OK) warm = gb_median(genie_once, g, warm, target);
    if (genie_status(g->ctx) != GENIE_OK) {
        snprintf(why, nwhy, "error: %s", genie_last_error(g->ctx));
        genie_clear_error(g->ctx);
        return -1;
    }
    return warm;
}

/* ---- OpenBLAS: C = A @ B (linear: A @ W^T), row-major, into a buffer made once ---- */
typedef struct { const gb_case *c; void *a, *b[GB_MAXW], *out; int nb, next; } gb_blas;

/* n values in [-1, 1) as f32 or f64, from a small LCG */
static void *blas_fill(gb_dtype dt, size_t n, uint32_t seed) {
    size_t i;
    char *p = (char *)malloc(n * (dt == GB_F64 ? 8 : 4));
    for (i = 0; p && i < n; i++) {
        float v;
        seed = seed * 1664525u + 1013904223u;
        v = (float)(seed >> 8) * (1.0f / 8388608.0f) - 1.0f;
        if (dt == GB_F64) ((double *)p)[i] = v;
        else ((float *)p)[i] = v;
    }
    return p;
}
/* the case's operands for OpenBLAS (none for conv and bf16, nor without OpenBLAS): a [m,k],
   nb copies of b, out [m,n] */
static void blas_inputs(gb_blas *s, const gb_case *c) {
    int i;
    memset(s, 0, sizeof *s);
    s->c = c;
    if (!GB_HAVE_OPENBLAS || c->kind == GB_CONV || c->dt == GB_BF16) return;
    s->nb = gb_copies(c);
    s->a = blas_fill(c->dt, (size_t)(c->m * c->k), 1);
    for (i = 0; i < s->nb; i++) s->b[i] = blas_fill(c->dt, (size_t)(c->k * c->n), (uint32_t)i + 2);
    s->out = blas_fill(c->dt, (size_t)(c->m * c->n), 99);
}
static void blas_free(gb_blas *s) {
    int i;
    for (i = 0; i < s->nb; i++) free(s->b[i]);
    free(s->a), free(s->out);
}
#ifdef GB_OPENBLAS
static double blas_once(void *arg) {
    gb_blas *s = (gb_blas *)arg;
    const gb_case *c = s->c;
    void *b = s->b[s->next++ % s->nb];
    int M = (int)c->m, N = (int)c->n, K = (int)c->k;
    enum CBLAS_TRANSPOSE tb = c->kind == GB_LINEAR ? CblasTrans : CblasNoTrans;
    int ldb = c->kind == GB_LINEAR ? K : N;
    double t0 = bench_now();
    if (M == 1 && c->kind == GB_LINEAR && c->dt == GB_F32) /* decode: y [n] = w [n,k] x, what BLAS users call */
        cblas_sgemv(CblasRowMajor, CblasNoTrans, N, K, 1.0f, (float *)b, K, (float *)s->a, 1, 0.0f, (float *)s->out, 1);
    else if (M == 1 && c->dt == GB_F32) /* decode with a weight stored [in, out]: y [n] = b^T x */
        cblas_sgemv(CblasRowMajor, CblasTrans, K, N, 1.0f, (float *)b, N, (float *)s->a, 1, 0.0f, (float *)s->out, 1);
    else if (c->dt == GB_F64)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, tb, M, N, K, 1.0, (double *)s->a, K, (double *)b, ldb, 0.0, (double *)s->out, N);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, tb, M, N, K, 1.0f, (float *)s->a, K, (float *)b, ldb, 0.0f, (float *)s->out, N);
    return bench_now() - t0;
}
#endif
/* median seconds per OpenBLAS call at t threads; 0 where there is none (conv; bf16: Debian's
   OpenBLAS is built without sbgemm; not installed) */
static double blas_time(gb_blas *s, int threads, double target) {
#ifdef GB_OPENBLAS
    int i;
    for (i = 0; i < s->nb; i++)
        if (!s->b[i]) return 0;
    if (!s->a || !s->out) return 0; /* none for this case, or out of memory */
    openblas_set_num_threads(threads);
    return gb_median(blas_once, s, blas_once(s), target);
#else
    (void)s, (void)threads, (void)target;
    return 0;
#endif
}

/* ---- peers' results and printing ---- */
static void cpu_model(char *out, size_t n) {
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(out, n, "unknown CPU");
    while (f && fgets(line, sizeof line, f)) {
        char *p = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && p) {
            p[strcspn(p, "\n")] = 0;
            snprintf(out, n, "%s", p + 2);
            break;
        }
    }
    if (f) fclose(f);
}
/* the 1-minute load average: other work on the cores skews the 2-thread numbers most */
static double load_avg(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &l) != 1) l = -1;
    if (f) fclose(f);
    return l;
}
static const char *shape_of(const gb_case *c, char *buf, size_t n) {
    static const char *dts[] = {"", "f64 ", "bf16 "};
    if (c->kind == GB_CONV)
        snprintf(buf, n, "[%lld,%lld,%lld,%lld] %lldx%lld/%lld -> %lld", (long long)c->b, (long long)c->c, (long long)c->h,
                 (long long)c->w, (long long)c->r, (long long)c->r, (long long)c->stride, (long long)c->o);
    else if (c->kind == GB_LINEAR)
        snprintf(buf, n, "[%lld,%lld] x w[%lld,%lld]^T", (long long)c->m, (long long)c->k, (long long)c->n, (long long)c->k);
    else
        snprintf(buf, n, "%s[%lld,%lld]@[%lld,%lld]", dts[c->dt], (long long)c->m, (long long)c->k, (long long)c->k, (long long)c->n);
    return buf;
}
/* what a row shows for seconds s per call: GFLOP/s, GB/s of the weight, or ms */
static double metric(const gb_case *c, double s) {
    if (s <= 0) return s;
    return c->unit == GB_MS ? s * 1e3 : c->unit == GB_GBS ? gb_weight_bytes(c) / s * 1e-9 : gb_flops(c) / s * 1e-9;
}
static void put_value(double v) {
    if (v < 0) printf(" %9s", "skip");
    else if (v == 0) printf(" %9s", "-");
    else printf(" %9.*f", v < 10 ? 2 : 1, v);
}
/* genie's speed over the peer's, from seconds per call */
static void put_ratio(double g, double p) {
    if (g > 0 && p > 0) printf(" %6.*f", p / g < 0.1 ? 3 : 2, p / g);
    else printf(" %6s", "-");
}
static void put_share(const char *who, double gbs, double copy) {
    if (gbs > 0) printf(" %s %.0f%%", who, 100 * gbs / copy);
    else printf(" %s -", who);
}
static void put_header(gb_unit u) {
    static const char *what[] = {"GFLOP/s (higher is better)", "GB/s of reading the weight (higher is better)",
                                 "ms per call (lower is better)"};
    printf("\n%s; ratio = genie speed / peer speed\n", what[u]);
    printf("%-10s %-30s %3s %9s %9s %6s %9s %6s\n", "case", "shape", "thr", "genie", "OpenBLAS", "ratio", "ATen", "ratio");
}

int main(int argc, char **argv) {
    int quick = gb_quick(), i, j, u, last_unit = -1;
    const char *aten = bench_arg(argc, argv, "aten"), *pinned = bench_arg(argc, argv, "aten_openblas_pinned");
    double target = quick ? 0.1 : 0.3, copy[GB_NTHREADS], secs[GB_NCASES][GB_NTHREADS];
    genie_ctx *ctx = genie_ctx_create(NULL);
    char cpu[128];
    if (!ctx) { puts("genie_ctx_create failed"); return 1; }
    cpu_model(cpu, sizeof cpu);
    printf("genie gemm bench: genie CPU path \"%s\" on %s, load average %.2f%s\n", genie_cpu_name(genie_cpu_path(ctx)),
           cpu, load_avg(), quick ? " (BENCH_QUICK)" : "");
#ifdef GB_OPENBLAS
    printf("OpenBLAS: %s, kernel %s\n", openblas_get_config(), openblas_get_corename());
#else
    printf("skip: OpenBLAS peer (libopenblas-dev not installed)\n");
#endif
    if (aten)
        printf("PyTorch eager: ATen %s from C++; %s\n", aten,
               pinned && *pinned == '1' ? "at::set_num_threads and OpenBLAS's threads both pinned to the thread count"
                                        : "at::set_num_threads pinned; OpenBLAS's thread count not found, not pinned");
    else
        printf("skip: PyTorch eager peer (libtorch-dev not installed)\n");
    for (i = 0; i < GB_NCASES; i++) /* the copy bandwidth, for the bandwidth cases */
        if (gb_cases[i].unit == GB_GBS && gb_selected(&gb_cases[i], argc, argv, quick)) break;
    for (j = 0; j < GB_NTHREADS; j++) copy[j] = i < GB_NCASES ? copy_gbs(gb_threads[j]) : 0;
    if (i < GB_NCASES)
        printf("copy bandwidth: %.1f GB/s on 1 thread, %.1f on 2 (memcpy of %.0f MiB, at least twice the %.0f MiB\n"
               "  largest cache, so from memory; counted as bytes read + bytes written)\n",
               copy[0], copy[1], gb_stream_bytes() / 1048576.0, gb_llc_bytes() / 1048576.0);
    printf("each value: median of calls after a warm-up; genie captures and realizes each call in a pool\n");

    for (i = 0; i < GB_NCASES; i++)
        for (j = 0; j < GB_NTHREADS; j++) secs[i][j] = 0;
    /* the cases unit by unit (the table mixes them), so that each unit's header is printed once;
       within a unit in table order (a bf16 case follows the f32 case of its shape) */
    for (u = GB_GFLOPS; u <= GB_MS; u++)
    for (i = 0; i < GB_NCASES; i++) {
        const gb_case *c = &gb_cases[i];
        gb_genie g;
        gb_blas b;
        char shape[64], why[600];
        if ((int)c->unit != u || !gb_selected(c, argc, argv, quick)) continue;
        if ((int)c->unit != last_unit) put_header(c->unit), last_unit = (int)c->unit;
        g.ctx = ctx, g.c = c, g.nw = gb_copies(c), g.next = 0;
        genie_pool_push(ctx);
        if (!genie_inputs(&g)) printf("genie inputs failed: %s\n", genie_last_error(ctx)), genie_clear_error(ctx);
        blas_inputs(&b, c);
        if (g.nw > 1)
            printf("  (%s: each call reads the next of %d weights, %.0f MiB in all, so from memory%s)\n", c->name, g.nw,
                   g.nw * gb_weight_bytes(c) / 1048576.0, c->m == 1 ? "; OpenBLAS runs sgemv" : "");
        for (j = 0; j < GB_NTHREADS; j++) {
            int t = gb_threads[j];
            double gs, bs, as = bench_peer_time(argc, argv, c->name, t);
            why[0] = 0;
            genie_set_num_threads(ctx, t);
            gs = secs[i][j] = genie_time(&g, target, why, sizeof why);
            settle();
            bs = blas_time(&b, t, target);
            if (bs > 0) settle();
            printf("%-10s %-30s %3d", c->name, shape_of(c, shape, sizeof shape), t);
            put_value(metric(c, gs)), put_value(metric(c, bs)), put_ratio(gs, bs);
            put_value(metric(c, as)), put_ratio(gs, as);
            printf("\n");
            if (why[0]) printf("  genie skipped: %s\n", why);
            if (c->unit == GB_GBS) {
                printf("  share of the copy bandwidth (%.1f GB/s at %d thread%s):", copy[j], t, t > 1 ? "s" : "");
                put_share("genie", metric(c, gs), copy[j]), printf(" (target >= 80%%),");
                put_share("OpenBLAS", metric(c, bs), copy[j]), printf(",");
                put_share("ATen", metric(c, as), copy[j]), printf("\n");
            }
            if (c->dt == GB_BF16) {
                int f32 = -1, k;
                for (k = 0; k < i; k++)
                    if (gb_cases[k].dt == GB_F32 && gb_cases[k].kind == c->kind && gb_cases[k].m == c->m &&
                        gb_cases[k].k == c->k && gb_cases[k].n == c->n) f32 = k;
                if (f32 >= 0 && secs[f32][j] > 0 && gs > 0)
                    printf("  genie bf16 speed / genie f32 speed (%s): %.2f\n", gb_cases[f32].name, secs[f32][j] / gs);
                else
                    printf("  genie bf16 speed / genie f32 speed: - (the f32 case of this shape not measured in this run)\n");
            }
            fflush(stdout);
        }
        blas_free(&b);
        genie_pool_pop(ctx);
    }
    printf("\nload average at the end: %.2f (other work on the cores skews these numbers, 2-thread ones most)\n",
           load_avg());
    genie_ctx_destroy(ctx);
    return 0;
}
