/* bench/tape.c - what the tape costs and how fast it runs, beside PyTorch eager and the memory
   bound in the same run, at 1 and 2 threads.

   1. chain8: the 8-op elementwise chain on 16M f32 (t = x + y; t *= y; relu; gelu; t - x; * 0.5;
      square; silu). "released": built inside genie_pool_push, the result genie_retain'ed, then
      genie_pool_pop before realizing, so the intermediates are dead and fusion never writes them.
      "held": the same with every intermediate handle still alive (the natural form): the cheap
      intermediates stay deferred (docs/lazy.md), so it is the same one pass.
      bound: one pass reading x and y and writing a result (out[i] = x[i] + y[i], a plain C loop
      split over the same number of threads, warm output buffer), timed in this run.
   2. block: a transformer encoder layer forward (post-norm, GELU, no dropout): seq 128, d_model
      512, 8 heads, MLP 2048, batch 1, f32, built from linear, view/transpose, matmul, mul_scalar,
      softmax, reshape, add, layer_norm, gelu. Peers: at::_transformer_encoder_layer_fwd (the fast
      path Python's nn.TransformerEncoderLayer takes in eval/no-grad) and the C++ module
      torch::nn::TransformerEncoderLayer in eval mode under NoGradGuard (which has no fast path).
      genie's result is checked once against the block's math in ATen with the same weights (the
      ATen peer writes x, the weights and its result to a file; they enter genie by from_data).
      genie's statistics for one block are printed (nodes executed, fused groups, peak bytes).
      "held": realized while the pool holds every intermediate (the natural form: the expensive
      ones, products and rows, are written; the cheap ones deferred); "released":
      the result retained and the pool popped before the realize, as a PyTorch module's forward
      leaves its intermediates (fusion then writes none it can skip: gelu in its product's
      epilogue, the scaled scores and the residual sums never written), timed in turns with held
      (median_pair). A last row per thread count runs the held block in a second context with
      the pack cache off (genie_set_pack_cache(ctx, 0): each weight packed as its product runs),
      timed in turns with held.
   3. tiny: a chain of 100,000 add_scalar on a [16] tensor, realized: ns per node, capture
      included (released and held as above), and 1,000,000 held and released, vs ATen eager
      t = t.add(1) per op.
   4. capture: a chain of 1,000,000 add_scalar on [64,64], ns per op captured: cold (a fresh
      context, fresh memory) and warm (after a pool pop, the slabs reused). Bytes per node are
      measured by counting every byte the library allocates (GENIE_MALLOC/REALLOC/FREE hooks)
      during the cold capture, divided by the number of operations (node, handle, view spec,
      slab and pool bookkeeping all included; the chain is never realized, so no data buffers).
      The eager column there is ATen's t.add(1) on [64,64], which computes: not the same work.

   Timing: wall clock, warm-up runs first, then the median of R runs: chain8 R = 7 (1 warm-up;
   the released chain and its bound timed in turns, so that both see the same machine),
   block R = 21 (3), tiny R = 5 (1), capture R = 3 (cold: a fresh context each). BENCH_QUICK=1:
   chain8 on 1M with R = 3, block R = 5, tiny 10,000 nodes with R = 3, capture 100,000 ops.
   Notes column: genie_get_stats differences over one more run of the case: nodes executed,
   fused groups (and nodes inside them), MB written (bytes_total: data buffers allocated, i.e.
   the values that were written; released chain8 writes only its result).
   Threads: genie_set_num_threads(ctx, 1 or 2). PyTorch: at::set_num_threads and
   openblas_set_num_threads both pinned; at 2 threads its best split (torch/BLAS threads) counts.

   BENCH_ONLY=tiny,capture (any of chain8, block, tiny, capture) runs only those sections.
   Run: make bench-tape, or make bench (builds bench/tape_aten.cpp where libtorch-dev is installed and passes its
   output line and block file here); alone: build/bench_tape [key=value ...] prints genie only. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>

/* count every byte genie allocates: a 16-byte header keeps each block's size */
static size_t g_alloc_bytes;
static void *cnt_malloc(size_t n) {
    size_t *p = (size_t *)malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    g_alloc_bytes += n;
    return (char *)p + 16;
}
static void cnt_free(void *q) {
    if (q) free((char *)q - 16);
}
static void *cnt_realloc(void *q, size_t n) {
    size_t *p, old;
    if (!q) return cnt_malloc(n);
    old = *(size_t *)((char *)q - 16);
    p = (size_t *)realloc((char *)q - 16, n + 16);
    if (!p) return NULL;
    p[0] = n;
    if (n > old) g_alloc_bytes += n - old;
    return (char *)p + 16;
}
#define GENIE_MALLOC(sz) cnt_malloc(sz)
#define GENIE_REALLOC(p, sz) cnt_realloc(p, sz)
#define GENIE_FREE(p) cnt_free(p)
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <math.h>
#include <pthread.h>
#include <string.h>
#include "bench_util.h"


/* median seconds of reps calls of f after warm calls */
static double median_s(int warm, int reps, void (*f)(void *), void *arg) {
    double t[64];
    int i;
    if (reps > 64) reps = 64;
    for (i = 0; i < warm; i++) f(arg);
    for (i = 0; i < reps; i++) {
        double t0 = bench_now();
        f(arg);
        t[i] = bench_now() - t0;
    }
    return bench_median(t, reps);
}

/* The medians of f and g timed in turns (f, g, f, g, ...), so that both see the same
   machine: this host's memory bandwidth moved by up to 1.5x between blocks of runs. */
static void median_pair(int warm, int reps, void (*f)(void *), void *a, void (*g)(void *), void *b, double *tf, double *tg) {
    double t[2][64];
    int i;
    if (reps > 64) reps = 64;
    for (i = 0; i < warm; i++) f(a), g(b);
    for (i = 0; i < reps; i++) {
        double t0 = bench_now();
        f(a);
        t[0][i] = bench_now() - t0;
        t0 = bench_now();
        g(b);
        t[1][i] = bench_now() - t0;
    }
    *tf = bench_median(t[0], reps), *tg = bench_median(t[1], reps);
}

static void check(genie_ctx *ctx, const char *what) {
    if (genie_status(ctx) != GENIE_OK) {
        printf("error in %s: %s\n", what, genie_last_error(ctx));
        exit(1);
    }
}

/* ---- the peer's line: key=value tokens ---- */
static int g_argc;
static char **g_argv;
static const char *peer_s(const char *key) { return bench_arg(g_argc, g_argv, key); }
static double peer_d(const char *key) { /* < 0: absent */
    const char *s = peer_s(key);
    return s ? atof(s) : -1.0;
}

/* BENCH_ONLY=name[,name...]: run only those sections (chain8, block, tiny, capture); unset: all */
static int section_on(const char *name) {
    const char *only = getenv("BENCH_ONLY"), *p;
    size_t k = strlen(name);
    if (!only || !*only) return 1;
    for (p = only; (p = strstr(p, name)) != NULL; p += k)
        if ((p == only || p[-1] == ',') && (p[k] == 0 || p[k] == ',')) return 1;
    return 0;
}

/* ---- the memory bound: out = x + y over nt threads ---- */
typedef struct {
    const float *x, *y;
    float *o;
    size_t lo, hi;
} bound_part;
static void *bound_run(void *p) {
    bound_part *b = (bound_part *)p;
    size_t i;
    for (i = b->lo; i < b->hi; i++) b->o[i] = b->x[i] + b->y[i];
    return NULL;
}
typedef struct {
    const float *x, *y;
    float *o;
    size_t n;
    int nt;
} bound_arg;
static void bound_pass(void *p) {
    bound_arg *a = (bound_arg *)p;
    bound_part part[2];
    pthread_t th;
    int k;
    memset(part, 0, sizeof part);
    for (k = 0; k < a->nt; k++) {
        part[k].x = a->x, part[k].y = a->y, part[k].o = a->o;
        part[k].lo = a->n * (size_t)k / (size_t)a->nt;
        part[k].hi = a->n * (size_t)(k + 1) / (size_t)a->nt;
    }
    if (a->nt == 2) pthread_create(&th, NULL, bound_run, &part[1]);
    bound_run(&part[0]);
    if (a->nt == 2) pthread_join(th, NULL);
}

/* ---- 1. the 8-op chain ---- */
static genie_tensor *chain8(genie_ctx *ctx, genie_tensor *x, genie_tensor *y) {
    genie_tensor *t = genie_add(ctx, x, y);
    t = genie_mul(ctx, t, y);
    t = genie_relu(ctx, t);
    t = genie_gelu(ctx, t);
    t = genie_sub(ctx, t, x);
    t = genie_mul_scalar(ctx, t, 0.5);
    t = genie_square(ctx, t);
    return genie_silu(ctx, t);
}
typedef struct {
    genie_ctx *ctx;
    genie_tensor *x, *y;
    int held;
} chain_arg;
static void chain_run(void *p) {
    chain_arg *a = (chain_arg *)p;
    genie_tensor *r;
    genie_pool_push(a->ctx);
    r = chain8(a->ctx, a->x, a->y);
    if (a->held) {
        genie_realize(a->ctx, 1, &r);
        genie_pool_pop(a->ctx);
    } else {
        genie_retain(r);
        genie_pool_pop(a->ctx); /* the intermediates die here, before anything ran */
        genie_realize(a->ctx, 1, &r);
        genie_release(r);
    }
}

/* ---- 2. the encoder block ---- */
enum { S = 128, D = 512, NH = 8, HD = 64, FF = 2048 };
typedef struct {
    genie_tensor *x, *wqkv, *bqkv, *wo, *bo, *ln1w, *ln1b, *w1, *b1, *w2, *b2, *ln2w, *ln2b;
} block_w;
static genie_tensor *block(genie_ctx *ctx, const block_w *w) {
    int64_t hs[3] = {S, NH, HD}, sd[2] = {S, D}, nd = D;
    genie_tensor *qkv = genie_linear(ctx, w->x, w->wqkv, w->bqkv);
    genie_tensor *q = genie_transpose(ctx, genie_view(ctx, genie_slice(ctx, qkv, 1, 0, D, 1), 3, hs), 0, 1);
    genie_tensor *k = genie_transpose(ctx, genie_view(ctx, genie_slice(ctx, qkv, 1, D, 2 * D, 1), 3, hs), 0, 1);
    genie_tensor *v = genie_transpose(ctx, genie_view(ctx, genie_slice(ctx, qkv, 1, 2 * D, 3 * D, 1), 3, hs), 0, 1);
    genie_tensor *sc = genie_mul_scalar(ctx, genie_matmul(ctx, q, genie_transpose(ctx, k, 1, 2)), 1.0 / sqrt((double)HD));
    genie_tensor *o = genie_matmul(ctx, genie_softmax(ctx, sc, -1), v);
    genie_tensor *a = genie_linear(ctx, genie_reshape(ctx, genie_transpose(ctx, o, 0, 1), 2, sd), w->wo, w->bo);
    genie_tensor *x1 = genie_layer_norm(ctx, genie_add(ctx, w->x, a), 1, &nd, w->ln1w, w->ln1b, 1e-5);
    genie_tensor *h = genie_gelu(ctx, genie_linear(ctx, x1, w->w1, w->b1));
    genie_tensor *f = genie_linear(ctx, h, w->w2, w->b2);
    return genie_layer_norm(ctx, genie_add(ctx, x1, f), 1, &nd, w->ln2w, w->ln2b, 1e-5);
}
/* the weights (from the peer's file when given, else random) and, in *ref, the peer's result */
static void block_load(genie_ctx *ctx, block_w *w, float **ref) {
    static const int64_t shp[13][2] = {{S, D},  {3 * D, D}, {3 * D, 0}, {D, D},  {D, 0},  {D, 0}, {D, 0},
                                       {FF, D}, {FF, 0},    {D, FF},    {D, 0},  {D, 0},  {D, 0}};
    genie_tensor **slot[13];
    const char *path = peer_s("block_file");
    FILE *f = path ? fopen(path, "rb") : NULL;
    int i;
    slot[0] = &w->x, slot[1] = &w->wqkv, slot[2] = &w->bqkv, slot[3] = &w->wo, slot[4] = &w->bo;
    slot[5] = &w->ln1w, slot[6] = &w->ln1b, slot[7] = &w->w1, slot[8] = &w->b1, slot[9] = &w->w2;
    slot[10] = &w->b2, slot[11] = &w->ln2w, slot[12] = &w->ln2b;
    *ref = NULL;
    for (i = 0; i < 13; i++) {
        int nd = shp[i][1] ? 2 : 1;
        size_t n = (size_t)shp[i][0] * (size_t)(shp[i][1] ? shp[i][1] : 1);
        if (f) {
            float *buf = (float *)malloc(n * sizeof(float));
            if (!buf || fread(buf, sizeof(float), n, f) != n) {
                printf("error: short block file %s\n", path);
                exit(1);
            }
            *slot[i] = genie_from_data(ctx, GENIE_F32, nd, shp[i], buf);
            free(buf);
        } else {
            *slot[i] = genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, nd, shp[i], (uint64_t)i + 1), 0.04);
        }
        genie_retain(*slot[i]);
    }
    if (f) {
        *ref = (float *)malloc((size_t)S * D * sizeof(float));
        if (!*ref || fread(*ref, sizeof(float), (size_t)S * D, f) != (size_t)S * D) {
            printf("error: short block file %s\n", path);
            exit(1);
        }
        fclose(f);
    }
    {
        genie_tensor *all[13];
        for (i = 0; i < 13; i++) all[i] = *slot[i];
        genie_realize(ctx, 13, all);
    }
    check(ctx, "block weights");
}
typedef struct {
    genie_ctx *ctx;
    const block_w *w;
    int released;
} block_arg;
/* One forward: held, realized while the pool holds every intermediate (each is written);
   released, the result retained and the pool popped first, as a PyTorch module's forward
   leaves its intermediates (fusion then writes none it can skip). */
static void block_run(void *p) {
    block_arg *a = (block_arg *)p;
    genie_tensor *y;
    genie_pool_push(a->ctx);
    y = block(a->ctx, a->w);
    if (a->released) {
        genie_retain(y);
        genie_pool_pop(a->ctx);
        genie_realize(a->ctx, 1, &y);
        genie_release(y);
    } else {
        genie_realize(a->ctx, 1, &y);
        genie_pool_pop(a->ctx);
    }
}

/* ---- 3. tiny nodes, 4. capture ---- */
typedef struct {
    genie_ctx *ctx;
    genie_tensor *t0;
    int n, held, runs;
    double capture_s[64]; /* of each run, for the median */
} tiny_arg;
static double tiny_capture_ns(tiny_arg *a) {
    return bench_median(a->capture_s, a->runs) * 1e9 / a->n;
}
static void tiny_run(void *p) {
    tiny_arg *a = (tiny_arg *)p;
    genie_tensor *t = a->t0;
    double t0 = bench_now();
    int i;
    genie_pool_push(a->ctx);
    for (i = 0; i < a->n; i++) t = genie_add_scalar(a->ctx, t, 1.0);
    if (a->runs < 64) a->capture_s[a->runs++] = bench_now() - t0;
    if (a->held) {
        genie_realize(a->ctx, 1, &t);
        genie_pool_pop(a->ctx);
    } else {
        genie_retain(t);
        genie_pool_pop(a->ctx);
        genie_realize(a->ctx, 1, &t);
        genie_release(t);
    }
}

/* ns per captured add_scalar on [64,64]; *bytes: bytes allocated during the capture */
static double capture_ns(int n, int warm, double *bytes) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t s[2] = {64, 64};
    genie_tensor *t0 = genie_zeros(ctx, GENIE_F32, 2, s), *t;
    double t1, dt;
    size_t b0;
    int i;
    genie_realize(ctx, 1, &t0);
    if (warm) {
        genie_pool_push(ctx);
        for (t = t0, i = 0; i < n; i++) t = genie_add_scalar(ctx, t, 1.0);
        genie_pool_pop(ctx);
    }
    genie_pool_push(ctx);
    b0 = g_alloc_bytes;
    t1 = bench_now();
    for (t = t0, i = 0; i < n; i++) t = genie_add_scalar(ctx, t, 1.0);
    dt = bench_now() - t1;
    *bytes = (double)(g_alloc_bytes - b0) / n;
    check(ctx, "capture");
    genie_pool_pop(ctx);
    genie_ctx_destroy(ctx);
    return dt * 1e9 / n;
}

/* one more run of f, described by the statistics it moved */
static void stat_note(char *buf, size_t size, genie_ctx *ctx, void (*f)(void *), void *arg) {
    genie_stats s0 = genie_get_stats(ctx), s1;
    f(arg);
    s1 = genie_get_stats(ctx);
    snprintf(buf, size, "%llu nodes run, %llu fused groups (%llu nodes), %.3g MB written; plan %.3g us (%s)",
             (unsigned long long)(s1.nodes_executed - s0.nodes_executed),
             (unsigned long long)(s1.fused_groups - s0.fused_groups),
             (unsigned long long)(s1.fused_nodes - s0.fused_nodes), (double)(s1.bytes_total - s0.bytes_total) / 1e6,
             (double)s1.tape_plan_ns / 1e3, s1.tape_cache_hits > s0.tape_cache_hits ? "cache hit" : "planned");
}

/* ---- the table ---- */
static void row(const char *name, int thr, double g, double p, double b, const char *unit, double scale, const char *note) {
    char gs[32], ps[32], bs[32], r1[16], r2[16];
    snprintf(gs, sizeof gs, g * scale < 1000 ? "%.3g %s" : "%.0f %s", g * scale, unit);
    if (p > 0) snprintf(ps, sizeof ps, p * scale < 1000 ? "%.3g %s" : "%.0f %s", p * scale, unit), snprintf(r1, sizeof r1, "%.2fx", p / g);
    else snprintf(ps, sizeof ps, "-"), snprintf(r1, sizeof r1, "-");
    if (b > 0) snprintf(bs, sizeof bs, b * scale < 1000 ? "%.3g %s" : "%.0f %s", b * scale, unit), snprintf(r2, sizeof r2, "%.2g", b / g);
    else snprintf(bs, sizeof bs, "-"), snprintf(r2, sizeof r2, "-");
    printf("%-28s %3d %12s %13s %11s %10s %8s  %s\n", name, thr, gs, ps, bs, r1, r2, note ? note : "");
}

/* One tiny row: the chain of n nodes, held (every handle alive at the realize) or released,
   timed as the median of reps runs; its note splits the capture from the rest. */
static void tiny_row(tiny_arg *ta, int n, int held, int th, double pe, int reps) {
    char note[160], name[64];
    double t;
    ta->n = n, ta->held = held, ta->runs = 0;
    t = median_s(1, reps, tiny_run, ta) / n;
    check(ta->ctx, "tiny");
    snprintf(note, sizeof note, held ? "capture %.0f ns/node (median), the realize and the pool's pop %.0f; "
                                     : "capture %.0f ns/node (median), the pool's pop and the realize %.0f; ",
             tiny_capture_ns(ta), t * 1e9 - tiny_capture_ns(ta));
    stat_note(note + strlen(note), sizeof note - strlen(note), ta->ctx, tiny_run, ta);
    snprintf(name, sizeof name, "tiny %dk x [16] %s", n / 1000, held ? "held" : "released");
    row(name, th, t, pe, 0, "ns", 1e9, note);
}

int main(int argc, char **argv) {
    const char *q = getenv("BENCH_QUICK");
    int quick = q && *q && *q != '0', th, i;
    int64_t n_chain = quick ? (1 << 20) : (1 << 24);
    int chain_reps = quick ? 3 : 7, block_reps = quick ? 5 : 21, tiny_reps = quick ? 3 : 5, cap_reps = 3;
    int n_tiny = quick ? 10000 : 100000, n_cap = quick ? 100000 : 1000000;
    int peer;
    genie_ctx_desc desc;
    genie_ctx *ctx;
    char note[160], note2[160], name[64];
    g_argc = argc, g_argv = argv;
    peer = peer_s("corename") != NULL;
    memset(&desc, 0, sizeof desc);
    desc.n_threads = 1;
    ctx = genie_ctx_create(&desc);

    printf("bench/tape: genie (%s path) beside PyTorch eager (ATen from C++%s%s) and the memory bound%s\n",
           genie_cpu_name(genie_cpu_path(ctx)), peer ? ", OpenBLAS core " : "", peer ? peer_s("corename") : ", not installed: skipped",
           quick ? "; BENCH_QUICK sizes" : "");
    if (peer && strcmp(peer_s("corename"), "SkylakeX") != 0 && strcmp(peer_s("corename"), "Haswell") != 0)
        printf("warning: OpenBLAS runs its %s kernel: run with OPENBLAS_CORETYPE=SkylakeX (AVX-512) or Haswell (AVX2)"
               " and OPENBLAS_L2_SIZE unset, as make bench does\n", peer_s("corename"));
    printf("ratios: eager/genie > 1 means genie is faster; bound/genie is the fraction of the memory bound reached\n\n");
    printf("%-28s %3s %12s %13s %11s %10s %8s  %s\n", "case", "thr", "genie", "PyTorch eager", "bound", "eager/genie",
           "bound/g", "notes");

    /* 1. chain8 */
    if (section_on("chain8")) {
        int64_t sh[1];
        genie_tensor *x, *y;
        float *bx = (float *)malloc((size_t)n_chain * 4), *by = (float *)malloc((size_t)n_chain * 4),
              *bo = (float *)malloc((size_t)n_chain * 4);
        chain_arg ca;
        bound_arg ba;
        sh[0] = n_chain;
        x = genie_randn(ctx, GENIE_F32, 1, sh, 11);
        y = genie_randn(ctx, GENIE_F32, 1, sh, 12);
        genie_realize(ctx, 1, &x);
        genie_realize(ctx, 1, &y);
        genie_read(ctx, x, GENIE_F32, bx, (size_t)n_chain * 4);
        genie_read(ctx, y, GENIE_F32, by, (size_t)n_chain * 4);
        memset(bo, 0, (size_t)n_chain * 4);
        check(ctx, "chain8 inputs");
        ca.ctx = ctx, ca.x = x, ca.y = y;
        ba.x = bx, ba.y = by, ba.o = bo, ba.n = (size_t)n_chain;
        for (th = 1; th <= 2; th++) {
            double tr, th_, tb, pe = peer_d(th == 1 ? "chain1" : "chain2");
            const char *split = peer_s(th == 1 ? "chain1_split" : "chain2_split");
            genie_set_num_threads(ctx, th);
            ba.nt = th;
            ca.held = 0;
            median_pair(1, chain_reps, bound_pass, &ba, chain_run, &ca, &tb, &tr);
            stat_note(note, sizeof note, ctx, chain_run, &ca);
            ca.held = 1;
            th_ = median_s(1, chain_reps, chain_run, &ca);
            stat_note(note2, sizeof note2, ctx, chain_run, &ca);
            check(ctx, "chain8");
            snprintf(name, sizeof name, "chain8 %lldM released", (long long)(n_chain >> 20));
            snprintf(note + strlen(note), sizeof note - strlen(note), "; eager split %s", split ? split : "-");
            row(name, th, tr, pe, tb, "ms", 1e3, note);
            snprintf(name, sizeof name, "chain8 %lldM held", (long long)(n_chain >> 20));
            row(name, th, th_, pe, tb, "ms", 1e3, note2);
        }
        { /* the released chain's values against the same math in double */
            double err = 0;
            int64_t j;
            genie_tensor *r;
            genie_pool_push(ctx);
            r = chain8(ctx, x, y);
            genie_retain(r);
            genie_pool_pop(ctx);
            genie_read(ctx, r, GENIE_F32, bo, (size_t)n_chain * 4);
            genie_release(r);
            check(ctx, "chain8 check");
            for (j = 0; j < n_chain; j++) {
                double t = (double)bx[j] + by[j], e;
                t *= by[j];
                t = t > 0 ? t : 0;
                t = 0.5 * t * (1 + erf(t / sqrt(2.0)));
                t = (t - bx[j]) * 0.5;
                t *= t;
                t = t / (1 + exp(-t));
                e = fabs(t - bo[j]) / (1 + fabs(t));
                err = e > err ? e : err;
            }
            printf("  chain8 released vs the same math in double: max error %.2g (relative above 1)\n", err);
        }
        free(bx), free(by), free(bo);
    }

    /* 2. the encoder block */
    if (section_on("block")) {
        genie_ctx *bctx = genie_ctx_create(&desc), *nctx;
        block_w w, nw;
        block_arg a, ar, na;
        float *ref, *out = (float *)malloc((size_t)S * D * sizeof(float));
        genie_stats s0, s1, s3;
        double diff = -1, diff_r = -1, tg[3], tr[3], plan_miss, plan_hit;
        uint64_t plan_hits;
        genie_tensor *y;
        block_load(bctx, &w, &ref);
        /* statistics and the check: one block in a context holding only the weights */
        s0 = genie_get_stats(bctx);
        genie_pool_push(bctx);
        y = block(bctx, &w);
        genie_read(bctx, y, GENIE_F32, out, (size_t)S * D * sizeof(float));
        genie_pool_pop(bctx);
        s1 = genie_get_stats(bctx);
        { /* the same structure again, 9 times: the tape cache's hits (their median) against the first plan */
            genie_stats s2 = s1;
            double hits[9];
            for (i = 0; i < 9; i++) {
                genie_pool_push(bctx);
                y = block(bctx, &w);
                genie_realize(bctx, 1, &y);
                genie_pool_pop(bctx);
                s2 = genie_get_stats(bctx);
                hits[i] = (double)s2.tape_plan_ns;
            }
            plan_miss = (double)s1.tape_plan_ns, plan_hit = bench_median(hits, 9);
            plan_hits = s2.tape_cache_hits - s1.tape_cache_hits;
        }
        check(bctx, "block");
        if (ref) {
            diff = 0;
            for (i = 0; i < S * D; i++) diff = fabs((double)out[i] - ref[i]) > diff ? fabs((double)out[i] - ref[i]) : diff;
        }
        { /* released: its statistics and result */
            genie_stats s2 = genie_get_stats(bctx);
            genie_pool_push(bctx);
            y = block(bctx, &w);
            genie_retain(y);
            genie_pool_pop(bctx);
            genie_read(bctx, y, GENIE_F32, out, (size_t)S * D * sizeof(float));
            genie_release(y);
            s3 = genie_get_stats(bctx);
            s3.nodes_executed -= s2.nodes_executed, s3.fused_groups -= s2.fused_groups, s3.fused_nodes -= s2.fused_nodes;
            check(bctx, "block, released");
            if (ref) {
                diff_r = 0;
                for (i = 0; i < S * D; i++) diff_r = fabs((double)out[i] - ref[i]) > diff_r ? fabs((double)out[i] - ref[i]) : diff_r;
            }
        }
        a.ctx = bctx, a.w = &w, a.released = 0;
        ar = a, ar.released = 1;
        { /* the same block and weights in a context without the pack cache */
            float *nref = NULL;
            nctx = genie_ctx_create(&desc);
            if (!nctx) { printf("out of memory\n"); exit(1); }
            genie_set_pack_cache(nctx, 0);
            block_load(nctx, &nw, &nref);
            free(nref);
            na.ctx = nctx, na.w = &nw, na.released = 0;
        }
        for (th = 1; th <= 2; th++) {
            double pf = peer_d(th == 1 ? "block_fast1" : "block_fast2"), pm = peer_d(th == 1 ? "block_module1" : "block_module2");
            const char *sf = peer_s(th == 1 ? "block_fast1_split" : "block_fast2_split");
            const char *sm = peer_s(th == 1 ? "block_module1_split" : "block_module2_split");
            double tn;
            genie_set_num_threads(bctx, th);
            genie_set_num_threads(nctx, th);
            median_pair(3, block_reps, block_run, &a, block_run, &ar, &tg[th], &tr[th]); /* in turns: the same machine */
            median_pair(1, block_reps, block_run, &a, block_run, &na, &tn, &tn);
            check(bctx, "block");
            check(nctx, "block, no pack cache");
            snprintf(note, sizeof note, "vs at::_transformer_encoder_layer_fwd (fast path), split %s", sf ? sf : "-");
            row("block held (fast path)", th, tg[th], pf, 0, "ms", 1e3, note);
            snprintf(note, sizeof note, "vs torch::nn::TransformerEncoderLayer, eval, split %s", sm ? sm : "-");
            row("block held (nn module)", th, tg[th], pm, 0, "ms", 1e3, note);
            row("block released (fast path)", th, tr[th], pf, 0, "ms", 1e3, "intermediates dead before the realize, timed in turns with held");
            row("block released (nn module)", th, tr[th], pm, 0, "ms", 1e3, "as a module's forward leaves them");
            row("block held, no pack cache", th, tn, pf, 0, "ms", 1e3,
                "timed in turns with held, in a context with genie_set_pack_cache(ctx, 0)");
        }
        {
            genie_stats sp = genie_get_stats(bctx);
            printf("  the pack cache: %llu weights packed (%.2f MB kept), %llu products read them\n",
                   (unsigned long long)sp.pack_cache_packs, (double)sp.pack_cache_bytes / 1e6, (unsigned long long)sp.pack_cache_hits);
        }
        genie_ctx_destroy(nctx);
        printf("  block, one forward in a context holding only its weights and input: %llu nodes captured, %llu executed,\n"
               "  %llu fused groups (%llu nodes inside them), %.2f MB peak data above the %.2f MB of weights and input;\n",
               (unsigned long long)(s1.nodes_created - s0.nodes_created), (unsigned long long)(s1.nodes_executed - s0.nodes_executed),
               (unsigned long long)(s1.fused_groups - s0.fused_groups), (unsigned long long)(s1.fused_nodes - s0.fused_nodes),
               (double)(s1.bytes_peak - s0.bytes_live) / 1e6, (double)s0.bytes_live / 1e6);
        printf("  released: %llu nodes executed, %llu fused groups (%llu nodes inside them), the product epilogues included\n",
               (unsigned long long)s3.nodes_executed, (unsigned long long)s3.fused_groups, (unsigned long long)s3.fused_nodes);
        printf("  the block's tape as planned: %.2f MB peak (its liveness bound %.2f MB), %llu outputs written in place\n",
               (double)s1.tape_peak_bytes / 1e6, (double)s1.tape_bound_bytes / 1e6, (unsigned long long)(s1.tape_inplace - s0.tape_inplace));
        printf("  planning the block's tape: %.1f us the first time, %.1f us for the same structure again (%s: %.0f%%)\n",
               plan_miss / 1e3, plan_hit / 1e3, plan_hits == 9 ? "median of 9 tape-cache hits" : "NOT all tape-cache hits",
               plan_miss > 0 ? 100.0 * plan_hit / plan_miss : 0.0);
        if (diff >= 0)
            printf("  genie vs the block's math in ATen, same weights: max abs diff %.3g held, %.3g released (ATen's nn module\n"
                   "  vs the same math %s, its fast path %s); about 0.84 GFLOP: genie %.1f GFLOP/s on 1 thread, %.1f on 2 (released)\n",
                   diff, diff_r, peer_s("block_module_diff"), peer_s("block_fast_diff"), 0.8389 / tr[1], 0.8389 / tr[2]);
        else
            printf("  (no ATen peer: random weights, result not checked)\n");
        free(out), free(ref);
        genie_ctx_destroy(bctx);
    }

    /* 3. tiny nodes */
    if (section_on("tiny")) {
        int64_t s16 = 16;
        tiny_arg ta;
        ta.ctx = ctx, ta.n = n_tiny;
        ta.t0 = genie_zeros(ctx, GENIE_F32, 1, &s16);
        genie_realize(ctx, 1, &ta.t0);
        printf("\n");
        for (th = 1; th <= 2; th++) {
            double pe = peer_d(th == 1 ? "tiny1" : "tiny2") * 1e-9;
            genie_set_num_threads(ctx, th);
            tiny_row(&ta, n_tiny, 0, th, pe, tiny_reps);
            tiny_row(&ta, n_tiny, 1, th, pe, tiny_reps);
            /* ten times longer, every handle alive (a chain of groups, each writing its root alone),
               then its intermediates released before the realize (each group's root a temporary) */
            tiny_row(&ta, n_tiny * 10, 1, th, pe, tiny_reps);
            tiny_row(&ta, n_tiny * 10, 0, th, pe, tiny_reps);
        }
    }
    genie_ctx_destroy(ctx);

    /* 4. capture */
    if (section_on("capture")) {
        double cold[8], warm[8], bc = 0, bw = 0, pe = peer_d("add641") * 1e-9;
        for (i = 0; i < cap_reps; i++) cold[i] = capture_ns(n_cap, 0, &bc);
        for (i = 0; i < cap_reps; i++) warm[i] = capture_ns(n_cap, 1, &bw);
        printf("\n");
        snprintf(name, sizeof name, "capture %dk cold", n_cap / 1000);
        snprintf(note, sizeof note, "%.0f bytes/node allocated (GENIE_MALLOC hooks); eager computes a [64,64] add", bc);
        row(name, 1, bench_median(cold, cap_reps) * 1e-9, pe, 0, "ns", 1e9, note);
        snprintf(name, sizeof name, "capture %dk warm", n_cap / 1000);
        snprintf(note, sizeof note, "%.0f bytes/node allocated (slabs reused after a pool pop)", bw);
        row(name, 1, bench_median(warm, cap_reps) * 1e-9, pe, 0, "ns", 1e9, note);
    }
    if (!peer) printf("skip: PyTorch eager peer (libtorch-dev not installed, or no peer line given)\n");
    return 0;
}
