/* test_alloc.c - every allocation goes through GENIE_MALLOC/REALLOC/FREE: count
   them, then fail the k-th one for every k of each program below (capture,
   realize, tuples, views, in-place writes, the MLP and KV-cache examples, fused
   groups, the planner, the reference kernels, the thread pool, a no_pool
   context). genie must report GENIE_ERR_OOM (or finish), never crash, free
   everything at genie_ctx_destroy, and compute on after genie_clear_error.
   `make asan` runs it under ASan + LeakSanitizer as well. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long live, calls, fail_at = -1;
static void *t_malloc(size_t n) {
    void *p;
    if (++calls == fail_at) return NULL;
    p = malloc(n);
    if (p) live++;
    return p;
}
static void *t_realloc(void *p, size_t n) {
    void *q;
    if (++calls == fail_at) return NULL;
    q = realloc(p, n);
    if (q && !p) live++;
    return q;
}
static void t_free(void *p) {
    if (p) live--;
    free(p);
}
#define GENIE_MALLOC(n) t_malloc(n)
#define GENIE_REALLOC(p, n) t_realloc(p, n)
#define GENIE_FREE(p) t_free(p)
#define GENIE_STATIC
#define GENIE_IMPLEMENTATION
#include "../../genie.h"

/* a small program touching most allocation sites; returns its status */
static int program(genie_ctx *ctx) {
    int64_t s[2] = {4, 4};
    float out[16];
    genie_tensor *a, *b, *c;
    genie_tuple *t;
    genie_pool_push(ctx);
    genie_scope_push(ctx, "block");
    a = genie_randn(ctx, GENIE_F32, 2, s, 1);
    b = genie_softmax(ctx, genie_add(ctx, a, genie_t(ctx, genie_matmul(ctx, genie_t(ctx, a), a))), -1);
    t = genie_topk(ctx, b, 2, 1, 1, 1);
    c = genie_cat(ctx, 1, &b, 0);
    genie_add_(ctx, genie_select(ctx, c, 0, 1), genie_tuple_get(t, 0) ? genie_select(ctx, genie_tuple_get(t, 0), 1, 0) : NULL);
    genie_read(ctx, c, GENIE_F32, out, sizeof out);
    {   /* views, copies, joins with heap inputs, sorts, writes, a dump */
        genie_tensor *parts[5], *r, *f;
        genie_tuple *sp;
        FILE *dev = fopen("/dev/null", "w");
        int i;
        for (i = 0; i < 5; i++) parts[i] = genie_narrow(ctx, a, 0, i % 4, 1);
        r = genie_reshape(ctx, genie_t(ctx, genie_cat(ctx, 5, parts, 0)), 1, (int64_t[]){20});
        sp = genie_sort(ctx, r, 0, 1);
        f = genie_flip(ctx, genie_as_strided(ctx, r, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2}, 1), 1, (int64_t[]){1});
        genie_copy_(ctx, genie_slice(ctx, r, 0, 0, 20, 4), genie_ones(ctx, GENIE_F32, 0, NULL));
        genie_masked_fill_(ctx, a, genie_gt(ctx, a, genie_zeros(ctx, GENIE_F32, 0, NULL)), 0.5);
        if (sp && f && dev) {
            genie_tensor *roots[2];
            roots[0] = genie_tuple_get(sp, 1);
            roots[1] = f;
            genie_dump_dot(ctx, 2, roots, dev);
            genie_realize(ctx, 2, roots);
        }
        if (dev) fclose(dev);
        genie_read(ctx, genie_narrow(ctx, r, 0, 0, 16), GENIE_F32, out, sizeof out);
    }
    {   /* a product on the thread pool with an epilogue, a fused chain, a transposed product */
        int64_t s2[2] = {96, 96};
        float o2[16];
        genie_tensor *x = genie_randn(ctx, GENIE_F32, 2, s2, 3), *w = genie_randn(ctx, GENIE_F32, 2, s2, 4), *y, *z;
        genie_pool_push(ctx);
        y = genie_gelu(ctx, genie_linear(ctx, x, w, NULL));
        z = genie_silu(ctx, genie_mul_scalar(ctx, genie_add(ctx, y, genie_matmul(ctx, genie_t(ctx, x), w)), 0.5));
        if (z) genie_retain(z);
        genie_pool_pop(ctx);
        if (z) {
            genie_read(ctx, genie_narrow(ctx, genie_reshape(ctx, z, 1, (int64_t[]){96 * 96}), 0, 0, 16), GENIE_F32, o2, sizeof o2);
            genie_release(z);
        }
    }
    {   /* steps of a loop: later steps take their buffers from the context's
           cache; a new size misses it while it holds blocks (emptied and
           retried when that allocation fails) */
        int step;
        for (step = 0; step < 3; step++) {
            int64_t n = (int64_t)64 << step;
            genie_tensor *h;
            genie_pool_push(ctx);
            h = genie_relu(ctx, genie_add_scalar(ctx, genie_matmul(ctx, a, a), 1.0));
            genie_read(ctx, h, GENIE_F32, out, sizeof out);
            h = genie_full(ctx, GENIE_F32, 1, &n, 1.0);
            genie_realize(ctx, 1, &h);
            genie_pool_pop(ctx);
        }
    }
    {   /* a safetensors file written (with metadata), mapped, read after it is closed */
        char path[80];
        const char *names[2] = {"a", "b.t"}, *keys[1] = {"format"}, *vals[1] = {"pt"};
        genie_tensor *ts[2], *g;
        genie_safetensors *st = NULL;
        snprintf(path, sizeof path, "/tmp/genie_alloc_%ld.safetensors", (long)getpid());
        ts[0] = a;
        ts[1] = genie_t(ctx, a);
        genie_safetensors_save_metadata(ctx, path, 2, names, ts, 1, keys, vals);
        if (genie_safetensors_open(ctx, path, &st) == GENIE_OK) {
            g = genie_safetensors_get(st, "b.t");
            genie_safetensors_metadata(st, "format");
            genie_safetensors_close(st);
            genie_read(ctx, genie_add(ctx, g, a), GENIE_F32, out, sizeof out);
        }
        remove(path);
    }
    genie_scope_pop(ctx);
    genie_pool_pop(ctx);
    return genie_status(ctx);
}

/* The MLP of examples/03_mlp.c: scopes, a phase, linear + gelu (a product epilogue), a dump. */
static int prog_mlp(genie_ctx *ctx) {
    int64_t xs[2] = {4, 8}, w1s[2] = {16, 8}, w2s[2] = {3, 16}, b1s = 16, b2s = 3;
    float out[12];
    genie_tensor *X, *W1, *B1, *W2, *B2, *y;
    FILE *dev = fopen("/dev/null", "w");
    X = genie_randn(ctx, GENIE_F32, 2, xs, 1);
    W1 = genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 2, w1s, 2), 0.3);
    B1 = genie_randn(ctx, GENIE_F32, 1, &b1s, 3);
    W2 = genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 2, w2s, 4), 0.3);
    B2 = genie_randn(ctx, GENIE_F32, 1, &b2s, 5);
    genie_set_phase(ctx, "inference");
    genie_scope_push(ctx, "mlp");
    genie_scope_push(ctx, "fc1");
    y = genie_gelu(ctx, genie_linear(ctx, X, W1, B1));
    genie_scope_pop(ctx);
    genie_scope_push(ctx, "fc2");
    y = genie_softmax(ctx, genie_linear(ctx, y, W2, B2), -1);
    genie_scope_pop(ctx);
    genie_scope_pop(ctx);
    if (dev && y) genie_dump_dot(ctx, 1, &y, dev);
    if (dev) fclose(dev);
    genie_read(ctx, y, GENIE_F32, out, sizeof out);
    return genie_status(ctx);
}
/* The KV cache of examples/04_kv_cache.c: a pool per step, in-place row writes through
   narrow views, retained lazy outputs read after the loop. */
static int prog_kv_cache(genie_ctx *ctx) {
    enum { T = 4, DH = 4 };
    int64_t cs[2] = {T, DH}, rs[2] = {1, DH};
    genie_tensor *K = genie_zeros(ctx, GENIE_F32, 2, cs), *V = genie_zeros(ctx, GENIE_F32, 2, cs), *outs[T];
    float q[T][DH], got[DH];
    int t;
    genie_read(ctx, genie_randn(ctx, GENIE_F32, 2, cs, 11), GENIE_F32, q, sizeof q);
    for (t = 0; t < T; t++) {
        genie_tensor *qt, *kt, *Kp, *Vp, *w;
        genie_pool_push(ctx);
        genie_scope_push(ctx, "attn");
        qt = genie_from_data(ctx, GENIE_F32, 2, rs, q[t]);
        kt = genie_mul_scalar(ctx, qt, 0.5);
        genie_copy_(ctx, genie_narrow(ctx, K, 0, t, 1), kt);
        genie_copy_(ctx, genie_narrow(ctx, V, 0, t, 1), qt);
        Kp = genie_narrow(ctx, K, 0, 0, t + 1);
        Vp = genie_narrow(ctx, V, 0, 0, t + 1);
        w = genie_softmax(ctx, genie_mul_scalar(ctx, genie_matmul(ctx, qt, genie_t(ctx, Kp)), 0.5), -1);
        outs[t] = genie_matmul(ctx, w, Vp);
        if (outs[t]) genie_retain(outs[t]);
        genie_scope_pop(ctx);
        genie_pool_pop(ctx);
    }
    for (t = 0; t < T; t++)
        if (outs[t]) {
            genie_read(ctx, outs[t], GENIE_F32, got, sizeof got);
            genie_release(outs[t]);
        }
    return genie_status(ctx);
}
/* Tuples, view chains, joins of many inputs, indexing, reductions, normalization, a convolution. */
static int prog_tuples_views(genie_ctx *ctx) {
    int64_t s[3] = {3, 4, 5}, d1 = 1, st[2] = {1, 1}, pad[2] = {1, 0}, dil[2] = {1, 1}, idx[3] = {2, 0, 1};
    float out[64];
    genie_tensor *a = genie_randn(ctx, GENIE_F32, 3, s, 7), *parts[6], *r, *ix;
    genie_tuple *tp[6];
    int i;
    tp[0] = genie_split(ctx, a, 2, 2);
    tp[1] = genie_chunk(ctx, a, 3, 1);
    tp[2] = genie_unbind(ctx, a, 0);
    tp[3] = genie_topk(ctx, a, 2, -1, 1, 1);
    tp[4] = genie_sort(ctx, a, 1, 0);
    tp[5] = genie_max_dim(ctx, a, 2, 1);
    for (i = 0; i < 6; i++) parts[i] = tp[i] ? genie_tuple_get(tp[i], 0) : NULL;
    r = genie_realize(ctx, 6, parts) == GENIE_OK ? parts[0] : NULL;
    genie_tuple_release(tp[2]);
    r = genie_cat(ctx, 4, (genie_tensor *[]){genie_narrow(ctx, a, 2, 0, 1), genie_narrow(ctx, a, 2, 1, 1),
                                             genie_narrow(ctx, a, 2, 2, 1), genie_narrow(ctx, a, 2, 3, 2)}, 2);
    r = genie_stack(ctx, 4, (genie_tensor *[]){r, r, a, a}, 0);
    r = genie_sum(ctx, genie_expand(ctx, genie_unsqueeze(ctx, genie_diagonal(ctx, a, 1, 1, 2), 0), 3,
                                    (int64_t[]){2, 3, 4}), 1, &d1, 0);
    genie_read(ctx, r, GENIE_F32, out, sizeof out);
    ix = genie_from_data(ctx, GENIE_I64, 1, (int64_t[]){3}, idx);
    r = genie_add(ctx, genie_index_select(ctx, a, 0, ix), genie_gather(ctx, a, 0, genie_expand(ctx, genie_view(ctx, ix, 3,
                    (int64_t[]){3, 1, 1}), 3, s)));
    r = genie_masked_fill(ctx, genie_tril(ctx, r, 0), genie_gt(ctx, r, genie_zeros(ctx, GENIE_F32, 0, NULL)), -1.0);
    r = genie_layer_norm(ctx, genie_permute(ctx, r, 3, (int64_t[]){2, 0, 1}), 1, (int64_t[]){4}, NULL, NULL, 1e-5);
    r = genie_var(ctx, genie_as_strided(ctx, r, 2, (int64_t[]){4, 4}, (int64_t[]){3, 1}, 2), 1, &d1, 1, 1);
    genie_read(ctx, genie_embedding(ctx, genie_view(ctx, a, 2, (int64_t[]){12, 5}), ix), GENIE_F32, out, sizeof out);
    genie_read(ctx, genie_argmax(ctx, genie_flip(ctx, r, 1, &d1), GENIE_DIM_NONE, 0), GENIE_I64, out, sizeof out);
    r = genie_conv2d(ctx, genie_view(ctx, a, 4, (int64_t[]){1, 3, 4, 5}), genie_ones(ctx, GENIE_F32, 4, (int64_t[]){2, 3, 2, 2}),
                     genie_zeros(ctx, GENIE_F32, 1, (int64_t[]){2}), st, pad, dil, 1);
    genie_read(ctx, genie_reshape(ctx, genie_t(ctx, genie_view(ctx, r, 2, (int64_t[]){2, 20})), 1, (int64_t[]){40}), GENIE_F32, out,
               sizeof out);
    genie_read(ctx, genie_to_dtype(ctx, genie_clone(ctx, a), GENIE_BF16), GENIE_F32, out, sizeof out);
    return genie_status(ctx);
}
/* The planner and fused groups: a chain whose temporaries die inside the tape (written in
   place), f16 / bf16 groups, in-place writes that reuse or copy their old buffer. */
static int prog_planner_fused(genie_ctx *ctx) {
    int64_t s[2] = {64, 33};
    float out[64 * 33];
    genie_tensor *x = genie_randn(ctx, GENIE_F32, 2, s, 9), *h, *g, *c;
    int i;
    h = x;
    for (i = 0; i < 6; i++) h = genie_tanh(ctx, genie_add_scalar(ctx, genie_mul(ctx, h, x), 0.25));
    g = genie_to_dtype(ctx, h, GENIE_F16);
    g = genie_silu(ctx, genie_mul(ctx, g, genie_sigmoid(ctx, g)));
    c = genie_to_dtype(ctx, genie_relu(ctx, genie_neg(ctx, genie_to_dtype(ctx, h, GENIE_BF16))), GENIE_F32);
    genie_add_(ctx, h, c);                /* h's old version is still needed by g: copied */
    genie_mul_(ctx, genie_exp(ctx, x), x); /* nothing else reads it: reused */
    genie_realize(ctx, 2, (genie_tensor *[]){g, c});
    genie_read(ctx, genie_add(ctx, h, genie_to_dtype(ctx, g, GENIE_F32)), GENIE_F32, out, sizeof out);
    return genie_status(ctx);
}
/* The pack cache: a weight read by three products (marked, packed, read from the cache),
   written in place, then read again. */
static int prog_pack_cache(genie_ctx *ctx) {
    int64_t xs[2] = {24, 64}, ws[2] = {40, 64};
    float out[24 * 40];
    genie_tensor *x = genie_randn(ctx, GENIE_F32, 2, xs, 11), *w = genie_randn(ctx, GENIE_F32, 2, ws, 12);
    int i;
    genie_realize(ctx, 2, (genie_tensor *[]){x, w});
    for (i = 0; i < 4; i++) {
        if (i == 3) genie_add_(ctx, w, genie_ones(ctx, GENIE_F32, 2, ws));
        genie_read(ctx, genie_linear(ctx, x, w, NULL), GENIE_F32, out, sizeof out);
    }
    return genie_status(ctx);
}
/* The thread pool: products, row kernels and elementwise work big enough to split. */
static int prog_threads(genie_ctx *ctx) {
    int64_t s[2] = {160, 160};
    float out[16];
    genie_tensor *a = genie_randn(ctx, GENIE_F32, 2, s, 1), *b = genie_randn(ctx, GENIE_F32, 2, s, 2), *r;
    r = genie_softmax(ctx, genie_matmul(ctx, a, b), -1);
    r = genie_add(ctx, genie_layer_norm(ctx, r, 1, &s[1], NULL, NULL, 1e-5), genie_sum(ctx, genie_exp(ctx, a), 1, (int64_t[]){0}, 1));
    genie_read(ctx, genie_narrow(ctx, genie_view(ctx, r, 1, (int64_t[]){160 * 160}), 0, 0, 16), GENIE_F32, out, sizeof out);
    return genie_status(ctx);
}
/* A no_pool context: every result is the caller's to release. */
static int prog_no_pool(genie_ctx *ctx) {
    int64_t s[2] = {8, 8};
    float out[64];
    genie_tensor *a = genie_randn(ctx, GENIE_F32, 2, s, 3), *t = genie_t(ctx, a), *m = genie_matmul(ctx, a, t);
    genie_tuple *tp = genie_chunk(ctx, m, 2, 0);
    genie_tensor *p = tp ? genie_tuple_get(tp, 1) : NULL, *q = genie_add(ctx, p, genie_narrow(ctx, a, 0, 0, 4));
    genie_read(ctx, q, GENIE_F32, out, sizeof out);
    genie_tuple_release(tp);
    genie_release(q);
    genie_release(m);
    genie_release(t);
    genie_release(a);
    return genie_status(ctx);
}

typedef struct { const char *name; int (*fn)(genie_ctx *); genie_ctx_desc desc; } aprog;
static const aprog progs[] = {
    {"capture, realize, tuples, views, in-place, dump, loop", program, {.cpu = GENIE_CPU_AUTO}},
    {"the MLP example", prog_mlp, {.cpu = GENIE_CPU_AUTO}},
    {"the KV-cache example", prog_kv_cache, {.cpu = GENIE_CPU_AUTO}},
    {"tuples, view chains, joins, indexing, conv2d", prog_tuples_views, {.n_threads = 1, .cpu = GENIE_CPU_AUTO}},
    {"the planner and fused groups", prog_planner_fused, {.n_threads = 1, .cpu = GENIE_CPU_AUTO}},
    {"the reference kernels", prog_planner_fused, {.n_threads = 1, .cpu = GENIE_CPU_REFERENCE}},
    {"the thread pool", prog_threads, {.n_threads = 2, .cpu = GENIE_CPU_AUTO}},
    {"the pack cache", prog_pack_cache, {.n_threads = 1, .cpu = GENIE_CPU_AUTO}},
    {"a no_pool context", prog_no_pool, {.n_threads = 1, .no_pool = 1, .cpu = GENIE_CPU_AUTO}},
};

/* After a failure and genie_clear_error the context computes on. */
static int works_on(genie_ctx *ctx, int no_pool) {
    int64_t n = 3;
    float v[3];
    genie_tensor *t;
    genie_clear_error(ctx);
    t = genie_mul_scalar(ctx, genie_arange(ctx, GENIE_F32, 0, 3, 1), 2.0);
    if (!t || genie_read(ctx, t, GENIE_F32, v, sizeof v) != GENIE_OK || v[2] != 4.0f) return 0;
    if (no_pool) genie_release(t);
    (void)n;
    return 1;
}

/* Fail each allocation of realizing a long chain (its tape outgrows the first
   buffers, so a later one fails with nodes already on the tape): once the pool
   is popped, no node of the chain may stay alive. Returns failures. */
static int realize_oom_frees_nodes(int *sites) {
    int k, bad = 0;
    *sites = 0;
    for (k = 1;; k++) {
        int64_t s[1] = {4};
        genie_ctx *ctx = genie_ctx_create(NULL);
        genie_tensor *x = genie_zeros(ctx, GENIE_F32, 1, s), *t;
        genie_stats st;
        uint64_t base;
        int i, r;
        if (!x || genie_realize(ctx, 1, &x) != GENIE_OK) { genie_ctx_destroy(ctx); return bad + 1; }
        base = genie_get_stats(ctx).nodes_live;
        genie_pool_push(ctx);
        for (t = x, i = 0; i < 300; i++) t = genie_neg(ctx, t);
        calls = 0;
        fail_at = k;
        r = genie_realize(ctx, 1, &t);
        fail_at = -1;
        genie_pool_pop(ctx);
        st = genie_get_stats(ctx);
        genie_ctx_destroy(ctx);
        if (r == GENIE_OK) break; /* k passed the last allocation */
        ++*sites;
        if (r != GENIE_ERR_OOM || st.nodes_live != base) {
            bad++;
            printf("FAIL realize of a chain, allocation %d failing: status %d, %llu nodes alive after the pool (want %llu)\n", k, r,
                   (unsigned long long)st.nodes_live, (unsigned long long)base);
        }
    }
    live = 0;
    return bad;
}

/* Fail each allocation of capturing 600 operations and a tuple inside a pool (the
   pool's own array grows several times on the way): an operation either fails with
   GENIE_ERR_OOM or lands in the pool, so once it is popped no node stays alive. Before
   the fix, a handle whose pool entry could not be stored came back as a success and
   outlived its pool. Returns failures. */
static int capture_oom_keeps_pool(int *sites) {
    int k, bad = 0;
    *sites = 0;
    for (k = 1;; k++) {
        int64_t s[1] = {4};
        genie_ctx *ctx = genie_ctx_create(NULL);
        genie_tensor *x = genie_zeros(ctx, GENIE_F32, 1, s), *t;
        genie_tuple *tp;
        genie_result r;
        genie_stats st;
        uint64_t base;
        long used;
        int i;
        if (!x || genie_realize(ctx, 1, &x) != GENIE_OK) { genie_ctx_destroy(ctx); return bad + 1; }
        base = genie_get_stats(ctx).nodes_live;
        genie_pool_push(ctx);
        calls = 0;
        fail_at = k;
        for (t = x, i = 0; i < 600; i++) t = i % 3 ? genie_neg(ctx, t) : genie_add(ctx, t, x);
        tp = genie_chunk(ctx, t, 2, 0);
        fail_at = -1;
        r = genie_status(ctx);
        used = calls;
        genie_pool_pop(ctx);
        st = genie_get_stats(ctx);
        genie_ctx_destroy(ctx);
        if (used < k) break; /* k passed the last allocation */
        ++*sites;
        if (r != GENIE_ERR_OOM || tp || st.nodes_live != base) {
            bad++;
            printf("FAIL capture in a pool, allocation %d failing: status %d, %llu nodes alive after the pool (want %llu)\n", k, r,
                   (unsigned long long)st.nodes_live, (unsigned long long)base);
        }
    }
    live = 0;
    return bad;
}

/* Fail each allocation of naming scopes and a phase (interned strings, the scope
   table) and making a tensor in each: every failure is reported as GENIE_ERR_OOM, never
   a tensor silently left without its module path or phase. Returns failures. */
static int scopes_oom_reported(int *sites) {
    static const char *const paths[3] = {"blocks.0", "blocks.1", "blocks.1.attn"};
    int k, bad = 0;
    *sites = 0;
    for (k = 1;; k++) {
        int64_t s[1] = {2};
        genie_ctx *ctx = genie_ctx_create(NULL);
        genie_tensor *t[3];
        genie_result r;
        long used;
        int i, wrong = 0;
        calls = 0;
        fail_at = k;
        genie_set_phase(ctx, "decode");
        genie_scope_push(ctx, "blocks");
        genie_scope_push(ctx, "0");
        t[0] = genie_zeros(ctx, GENIE_F32, 1, s);
        genie_scope_pop(ctx);
        genie_scope_push(ctx, "1");
        t[1] = genie_zeros(ctx, GENIE_F32, 1, s);
        genie_scope_push(ctx, "attn");
        t[2] = genie_zeros(ctx, GENIE_F32, 1, s);
        fail_at = -1;
        used = calls;
        r = genie_status(ctx);
        for (i = 0; i < 3 && r == GENIE_OK; i++)
            wrong += strcmp(genie_module_path(t[i]), paths[i]) != 0 || strcmp(genie_phase(t[i]), "decode") != 0;
        genie_ctx_destroy(ctx);
        if (used < k) break; /* k passed the last allocation */
        ++*sites;
        if (r != GENIE_ERR_OOM || wrong) {
            bad++;
            printf("FAIL scopes and a phase, allocation %d failing: status %d, %d tensors with a wrong module path or phase\n", k, r, wrong);
        }
    }
    live = 0;
    return bad;
}

/* A loop that captures and realizes the same fused chain takes the node slab's slots in
   the same order each time: the walk and capture prefetch along it (the tape gives back the
   nodes it freed in its own order). Returns the share of consecutive nodes of the last run
   that lie next to each other; it fell to about 0.5 within 20 runs when nodes went back
   as they were freed. */
static double slab_order_kept(void) {
    enum { N = 4096, RUNS = 24 };
    static uintptr_t at[N];
    int64_t s = 16;
    genie_ctx *ctx = genie_ctx_create(NULL);
    genie_tensor *x = genie_zeros(ctx, GENIE_F32, 1, &s), *t;
    int r, i, next = 0;
    genie_realize(ctx, 1, &x);
    for (r = 0; r < RUNS; r++) {
        genie_pool_push(ctx);
        for (t = x, i = 0; i < N; i++) {
            t = genie_add_scalar(ctx, t, 1.0);
            at[i] = t ? (uintptr_t)t->st->ver : 0;
        }
        genie_retain(t);
        genie_pool_pop(ctx);
        genie_realize(ctx, 1, &t);
        genie_release(t);
    }
    for (i = 1; i < N; i++) next += at[i] - at[i - 1] == sizeof(genie__node) || at[i - 1] - at[i] == sizeof(genie__node);
    if (genie_status(ctx) != GENIE_OK) next = 0;
    genie_ctx_destroy(ctx);
    return (double)next / (N - 1);
}

int main(void) {
    long sites = 0, k;
    int passed = 0, failed = 0, oom = 0;
    size_t p;
    for (p = 0; p < sizeof progs / sizeof progs[0]; p++) {
        long total;
        int poom = 0;
        genie_ctx *ctx;
        calls = 0;
        fail_at = -1;
        ctx = genie_ctx_create(&progs[p].desc);
        if (progs[p].fn(ctx) != GENIE_OK) {
            printf("FAIL %s: clean run: %s\n", progs[p].name, genie_last_error(ctx));
            genie_ctx_destroy(ctx);
            failed++;
            continue;
        }
        genie_ctx_destroy(ctx);
        total = calls;
        if (live == 0) passed++;
        else { failed++; printf("FAIL %s: %ld blocks leaked on a clean run\n", progs[p].name, live); live = 0; }
        for (k = 1; k <= total; k++) {
            int r, on = 1;
            calls = 0;
            fail_at = k;
            ctx = genie_ctx_create(&progs[p].desc);
            if (!ctx) { passed++; continue; } /* the context itself could not be made */
            r = progs[p].fn(ctx);
            fail_at = -1; /* memory is back: clear the error and go on */
            if (r != GENIE_OK) on = works_on(ctx, progs[p].desc.no_pool);
            genie_ctx_destroy(ctx);
            if (r == GENIE_ERR_OOM) poom++;
            if ((r == GENIE_OK || r == GENIE_ERR_OOM) && on && live == 0) passed++;
            else {
                failed++;
                printf("FAIL %s: allocation %ld failing: status %d, %s, %ld blocks leaked\n", progs[p].name, k, r,
                       on ? "works on" : "broken after genie_clear_error", live);
                live = 0;
            }
        }
        printf("  allocation failures, %s: %ld sites tried, %d reported GENIE_ERR_OOM\n", progs[p].name, total, poom);
        sites += total;
        oom += poom;
    }
    {
        int rs, bad = realize_oom_frees_nodes(&rs);
        if (bad) failed += bad;
        else passed++;
        printf("  allocation failures, realizing a 300-node chain: %d sites, %s\n", rs,
               bad ? "nodes left alive" : "every node freed with its pool");
    }
    {
        int cs, bad = capture_oom_keeps_pool(&cs);
        if (bad) failed += bad;
        else passed++;
        printf("  allocation failures, capturing 600 ops and a tuple in a pool: %d sites, %s\n", cs,
               bad ? "values outlived their pool" : "every value freed with its pool");
    }
    {
        int ss, bad = scopes_oom_reported(&ss);
        if (bad) failed += bad;
        else passed++;
        printf("  allocation failures, naming scopes and a phase: %d sites, %s\n", ss,
               bad ? "names lost without an error" : "each reported as GENIE_ERR_OOM");
    }
    {
        double kept = slab_order_kept();
        if (kept >= 0.95) passed++;
        else failed++;
        printf("  %s: after 24 runs of a 4096-node chain, %.1f%% of its consecutive nodes lie next to each other (want >= 95%%)\n",
               kept >= 0.95 ? "slab order kept" : "FAIL slab order", 100 * kept);
    }
    printf("  allocation failures: %ld sites tried in %d programs, %d reported GENIE_ERR_OOM\n", sites,
           (int)(sizeof progs / sizeof progs[0]), oom);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
