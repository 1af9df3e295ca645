/* test_planner.c - the buffer planner and cache: steady-state
   loops allocate no fresh memory and hold no more than after their first steps;
   a chain's planned peak equals its liveness bound; recycled blocks never leak
   old values into results; in-place writes through views inside a tape and
   genie_data pointers stay right. Called from test_main.c's main. */
#include "../programs/prog.h"
#include <string.h>
#include <math.h>

static int *np, *nf;
#define CHECK(cond) check_((cond) != 0, #cond, __LINE__)
static void check_(int ok, const char *what, int line) {
    if (ok) (*np)++;
    else { (*nf)++; printf("FAIL tests/unit/test_planner.c:%d: %s\n", line, what); }
}

/* no_pool chains: release the input once the output is captured */
/* got is want or a neighbour: genie's vector exp is within 1 ulp of libm's, not equal to it */
static int ulp1(float got, float want) {
    return got == want || got == nextafterf(want, INFINITY) || got == nextafterf(want, -INFINITY);
}
static genie_tensor *rel(genie_tensor *out, genie_tensor *in) {
    genie_release(in);
    return out;
}
/* The suite runs twice: on the default path (f32 elementwise trees fused, so
   their inner nodes get no buffer at all) and on the reference path (every
   node runs alone, so dying inputs are taken in place). */
static genie_cpu cur_cpu;
#define UNFUSED (cur_cpu == GENIE_CPU_REFERENCE)
static genie_ctx *make_ctx(int no_pool) {
    genie_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.no_pool = no_pool;
    d.cpu = cur_cpu;
    return genie_ctx_create(&d);
}

/* One MLP step (03_mlp.c) with an SGD-like in-place update of a weight. */
static float mlp_step(genie_ctx *ctx, genie_tensor *X, genie_tensor *W1, genie_tensor *B1, genie_tensor *W2,
                      genie_tensor *B2) {
    float v = -1;
    genie_tensor *y;
    genie_pool_push(ctx);
    y = genie_softmax(ctx, genie_linear(ctx, genie_gelu(ctx, genie_linear(ctx, X, W1, B1)), W2, B2), -1);
    y = genie_sum(ctx, genie_mul(ctx, y, y), 0, NULL, 0);
    genie_sub_(ctx, B2, genie_mul_scalar(ctx, genie_add_scalar(ctx, B2, 1.0), 1e-3));
    genie_read(ctx, y, GENIE_F32, &v, sizeof v);
    genie_pool_pop(ctx);
    return v;
}

static void test_steady_state(void) {
    genie_ctx *ctx = make_ctx(0), *ref = make_ctx(0);
    int64_t xs[2] = {4, 8}, w1s[2] = {16, 8}, w2s[2] = {3, 16}, b1s = 16, b2s = 3;
    genie_tensor *p[2][5];
    genie_stats s10, s;
    int step, same = 1, k;
    for (k = 0; k < 2; k++) {
        genie_ctx *c = k ? ref : ctx;
        p[k][0] = genie_randn(c, GENIE_F32, 2, xs, 1);
        p[k][1] = genie_randn(c, GENIE_F32, 2, w1s, 2);
        p[k][2] = genie_randn(c, GENIE_F32, 1, &b1s, 3);
        p[k][3] = genie_randn(c, GENIE_F32, 2, w2s, 4);
        p[k][4] = genie_randn(c, GENIE_F32, 1, &b2s, 5);
    }
    memset(&s10, 0, sizeof s10);
    for (step = 0; step < 10000; step++) {
        float v = mlp_step(ctx, p[0][0], p[0][1], p[0][2], p[0][3], p[0][4]);
        if (step < 20) { /* the same numbers as a context with no history, step by step */
            float w = mlp_step(ref, p[1][0], p[1][1], p[1][2], p[1][3], p[1][4]);
            same &= memcmp(&v, &w, sizeof v) == 0;
        }
        if (step == 9) s10 = genie_get_stats(ctx);
    }
    s = genie_get_stats(ctx);
    CHECK(same);
    CHECK(genie_status(ctx) == GENIE_OK);
    CHECK(s.bytes_live == s10.bytes_live);   /* no growth of live bytes ... */
    CHECK(s.bytes_peak == s10.bytes_peak);
    CHECK(s.cache_bytes == s10.cache_bytes); /* ... nor of the cache ... */
    CHECK(s.bytes_fresh == s10.bytes_fresh); /* ... and no fresh memory after the first steps */
    CHECK(s.nodes_live == s10.nodes_live);
    /* every step's 7 buffers come from the cache; the update's mul_scalar is
       written in place of add_scalar, whose handle the pool let go (fused:
       add_scalar is never written, and mul(y, y), the sum's prologue, is left
       deferred though its handle lives: 6 buffers) */
    CHECK(s.cache_hits - s10.cache_hits == 9990u * (UNFUSED ? 7u : 6u));
    CHECK(s.tape_inplace - s10.tape_inplace == (UNFUSED ? 9990u : 0u));
    CHECK(s.tape_peak_bytes >= s.tape_bound_bytes && s.tape_bound_bytes > 0);
    genie_ctx_destroy(ctx);
    genie_ctx_destroy(ref);

    /* an elementwise chain whose handles are released (a host like the PyTorch
       bridge): each step's temporaries are written in place, one block per step */
    ctx = make_ctx(1);
    {
        int64_t n = 1024;
        genie_tensor *x = genie_arange(ctx, GENIE_F32, 0, 1024, 1), *t;
        float out[1024];
        int ok = 1, i;
        genie_realize(ctx, 1, &x);
        for (step = 0; step < 10000; step++) {
            t = genie_mul_scalar(ctx, x, 0.5);
            t = rel(genie_neg(ctx, t), t);
            t = rel(genie_exp(ctx, t), t);
            t = rel(genie_add(ctx, t, x), t);
            t = rel(genie_relu(ctx, t), t);
            if (step % 1000 == 0) {
                ok &= genie_read(ctx, t, GENIE_F32, out, sizeof out) == GENIE_OK;
                for (i = 0; i < 1024; i += 37) ok &= fabs(out[i] - (exp(-0.5 * i) + i)) < 1e-3 * (1 + i);
            } else ok &= genie_realize(ctx, 1, &t) == GENIE_OK;
            genie_release(t);
            if (step == 9) s10 = genie_get_stats(ctx);
        }
        s = genie_get_stats(ctx);
        CHECK(ok);
        CHECK(s.bytes_live == (uint64_t)n * 4 && s10.bytes_live == (uint64_t)n * 4); /* x alone */
        CHECK(s.bytes_fresh == s10.bytes_fresh && s.cache_bytes == s10.cache_bytes);
        /* neg, exp, add, relu: each in its input's block (fused: one pass, one block) */
        CHECK(s.tape_inplace == (UNFUSED ? 10000u * 4u : 0u));
        CHECK(s.tape_peak_bytes == s.tape_bound_bytes);
        genie_release(x);
    }
    genie_ctx_destroy(ctx);
}

/* Planned peak and liveness bound on small tapes (no_pool: released handles make temporaries). */
static void test_bound(void) {
    genie_ctx *ctx = make_ctx(1);
    genie_tensor *x = genie_arange(ctx, GENIE_F32, 0, 1024, 1), *a, *b, *c, *y;
    int64_t sq[2] = {32, 32};
    genie_stats s;
    float out[1024];
    genie_realize(ctx, 1, &x);
    /* a chain: one block, every step in place; 4096 bytes is a class size */
    c = genie_neg(ctx, x);
    c = rel(genie_exp(ctx, c), c);
    c = rel(genie_add_scalar(ctx, c, 1.0), c);
    c = rel(genie_sqrt(ctx, c), c);
    CHECK(genie_realize(ctx, 1, &c) == GENIE_OK);
    s = genie_get_stats(ctx);
    CHECK(s.tape_bound_bytes == 4096 && s.tape_peak_bytes == 4096 && s.tape_inplace == (UNFUSED ? 3u : 0u));
    CHECK(genie_read(ctx, c, GENIE_F32, out, sizeof out) == GENIE_OK && out[5] == sqrtf(expf(-5.0f) + 1.0f));
    genie_release(c);
    /* the same chain with a middle handle kept: that value outlives the tape where each node
       runs alone (unfused); fused, it is cheap and not asked for, so it is left deferred */
    a = genie_neg(ctx, x);
    b = genie_exp(ctx, a);
    genie_release(a);
    c = genie_sqrt(ctx, b);
    CHECK(genie_realize(ctx, 1, &c) == GENIE_OK);
    s = genie_get_stats(ctx);
    CHECK(s.tape_bound_bytes == (UNFUSED ? 2u : 1u) * 4096 && s.tape_peak_bytes == (UNFUSED ? 2u : 1u) * 4096 &&
          s.tape_inplace == (UNFUSED ? 4u : 0u));
    CHECK(genie_read(ctx, b, GENIE_F32, out, sizeof out) == GENIE_OK && ulp1(out[5], expf(-5.0f)));
    genie_release(b);
    genie_release(c);
    /* a diamond: a is read twice, b once; c takes one of them */
    a = genie_exp(ctx, x);
    b = genie_mul_scalar(ctx, a, 2.0);
    c = genie_add(ctx, a, b);
    genie_release(a);
    genie_release(b);
    CHECK(genie_realize(ctx, 1, &c) == GENIE_OK);
    s = genie_get_stats(ctx);
    CHECK(s.tape_bound_bytes == 2 * 4096 && s.tape_peak_bytes == 2 * 4096);
    CHECK(genie_read(ctx, c, GENIE_F32, out, sizeof out) == GENIE_OK && out[3] == (float)(3 * (double)expf(3.0f)));
    genie_release(c);
    /* a product cannot be written in place: the bound holds both operands and the result */
    a = genie_exp(ctx, x);
    a = rel(genie_view(ctx, a, 2, sq), a);
    b = genie_matmul(ctx, a, a);
    y = genie_relu(ctx, b);
    genie_release(a);
    genie_release(b);
    CHECK(genie_realize(ctx, 1, &y) == GENIE_OK);
    s = genie_get_stats(ctx);
    CHECK(s.tape_bound_bytes == 2 * 4096 && s.tape_peak_bytes == 2 * 4096);
    genie_release(y);
    genie_release(x);
    genie_ctx_destroy(ctx);
}

/* Results computed in a context whose cache is full of 0xff blocks equal a fresh context's. */
static int run_ops(genie_ctx *ctx, int which, unsigned char *out, size_t cap, size_t *len) {
    int64_t s2[2] = {6, 10}, s4[4] = {2, 3, 5, 5}, w4[4] = {4, 3, 3, 3}, i3 = 3, nn = 5, dim1 = 1;
    int64_t st2[2] = {1, 1}, pd2[2] = {1, 1}, dl2[2] = {1, 1};
    genie_tensor *a = genie_randn(ctx, GENIE_F32, 2, s2, 7), *r = NULL, *idx;
    genie_tensor *parts[3];
    genie_tuple *tu;
    idx = genie_from_data(ctx, GENIE_I64, 1, &i3, (int64_t[]){4, 0, 2});
    switch (which) {
    case 0: r = genie_sum(ctx, a, 1, &dim1, 0); break;
    case 1: r = genie_mean(ctx, a, 0, NULL, 1); break;
    case 2: r = genie_var(ctx, a, 1, &dim1, 1, 0); break;
    case 3: r = genie_softmax(ctx, a, 0); break;
    case 4: r = genie_layer_norm(ctx, a, 1, s2 + 1, NULL, NULL, 1e-5); break;
    case 5: r = genie_matmul(ctx, a, genie_t(ctx, a)); break;
    case 6: r = genie_conv2d(ctx, genie_randn(ctx, GENIE_F32, 4, s4, 8), genie_randn(ctx, GENIE_F32, 4, w4, 9), NULL, st2, pd2, dl2, 1); break;
    case 7: parts[0] = a; parts[1] = genie_exp(ctx, a); parts[2] = a; r = genie_cat(ctx, 3, parts, 1); break;
    case 8: r = genie_index_select(ctx, a, 0, idx); break;
    case 9: r = genie_tuple_get(genie_topk(ctx, a, 3, 1, 1, 1), 0); break;
    case 10: tu = genie_sort(ctx, a, 0, 0); r = genie_add(ctx, genie_tuple_get(tu, 0), genie_tuple_get(tu, 1)); break;
    case 11: r = genie_tril(ctx, genie_exp(ctx, a), 1); break;
    case 12: r = genie_argmax(ctx, a, 1, 0); break;
    case 13: r = genie_masked_fill(ctx, genie_abs(ctx, a), genie_gt(ctx, a, genie_zeros(ctx, GENIE_F32, 0, NULL)), 2.0); break;
    case 14: r = genie_embedding(ctx, genie_randn(ctx, GENIE_F32, 2, s2, 3), idx); break;
    case 15: r = genie_flip(ctx, genie_to_dtype(ctx, a, GENIE_F16), 1, &dim1); break;
    case 16: r = genie_reshape(ctx, genie_t(ctx, a), 1, (int64_t[]){60}); break;
    case 17: r = genie_amax(ctx, a, 1, &dim1, 0); break;
    case 18: r = genie_logsumexp(ctx, a, 1, &dim1, 1); break;
    case 19: r = genie_stack(ctx, 2, (genie_tensor *[]){a, a}, 0); break;
    case 20: r = genie_where(ctx, genie_lt(ctx, a, genie_zeros(ctx, GENIE_F32, 0, NULL)), a, genie_square(ctx, a)); break;
    case 21: r = genie_gather(ctx, genie_arange(ctx, GENIE_F32, 0, (double)nn * 4, 1), 0, idx); break;
    case 22: tu = genie_max_dim(ctx, a, 0, 1); r = genie_tuple_get(tu, 1); break;
    case 23: r = genie_linear(ctx, a, genie_randn(ctx, GENIE_F32, 2, (int64_t[]){7, 10}, 2), NULL); break;
    default: return 0;
    }
    *len = (size_t)genie_numel(r) * genie_dtype_size(genie_dtype_of(r));
    if (*len > cap || genie_read(ctx, r, genie_dtype_of(r), out, cap) != GENIE_OK) return -1;
    return 1;
}
static void test_no_stale_values(void) {
    genie_ctx *ctx = make_ctx(0);
    int which, k, ok = 1, ran = 0;
    /* dirty blocks of every class up to 64 KiB in the cache */
    genie_pool_push(ctx);
    for (k = 1; k <= 65536; k += 1 + k / 8) {
        genie_tensor *f = genie_full(ctx, GENIE_U8, 1, (int64_t[]){k}, 255);
        genie_realize(ctx, 1, &f);
    }
    genie_pool_pop(ctx);
    CHECK(genie_get_stats(ctx).cache_bytes > 65536);
    for (which = 0;; which++) {
        unsigned char a[4096], b[4096];
        size_t la = 0, lb = 0;
        genie_ctx *fresh = make_ctx(0);
        int r1, r2;
        genie_pool_push(ctx);
        r1 = run_ops(ctx, which, a, sizeof a, &la);
        genie_pool_pop(ctx);
        r2 = run_ops(fresh, which, b, sizeof b, &lb);
        genie_ctx_destroy(fresh);
        if (r1 == 0) break;
        ran++;
        if (r1 != 1 || r2 != 1 || la != lb || memcmp(a, b, la) != 0) {
            printf("FAIL tests/unit/test_planner.c: op case %d differs in a context with recycled blocks\n", which);
            ok = 0;
        }
    }
    CHECK(ok && ran == 24);
    CHECK(genie_get_stats(ctx).cache_hits > 0);
    genie_ctx_destroy(ctx);
}

/* A context that held large tensors and now runs small steps: the cache (256 MiB by
   default) is full of the large blocks, and freeing the small ones makes room by
   freeing the blocks freed longest ago, so the next step finds every small block in
   the cache instead of allocating it afresh. */
static void test_cache_ages(void) {
    genie_ctx *ctx = make_ctx(0);
    genie_stats s0, s1;
    int step, k;
    genie_pool_push(ctx);
    for (k = 0; k < 4; k++) { /* 4 x 64 MiB: the whole budget */
        genie_tensor *big = genie_full(ctx, GENIE_F32, 1, (int64_t[]){(int64_t)16 << 20}, 1.0);
        genie_realize(ctx, 1, &big);
    }
    genie_pool_pop(ctx);
    CHECK(genie_get_stats(ctx).cache_bytes == (uint64_t)256 << 20);
    s0 = genie_get_stats(ctx);
    for (step = 0; step < 2; step++) {
        if (step == 1) s0 = genie_get_stats(ctx);
        genie_pool_push(ctx);
        for (k = 0; k < 100; k++) {
            genie_tensor *t = genie_full(ctx, GENIE_F32, 1, (int64_t[]){16 + k}, (double)k);
            genie_realize(ctx, 1, &t);
        }
        genie_pool_pop(ctx);
    }
    s1 = genie_get_stats(ctx);
    CHECK(s1.bytes_fresh == s0.bytes_fresh);        /* the second step: every block from the cache */
    CHECK(s1.cache_hits - s0.cache_hits == 100);
    CHECK(s1.cache_bytes < (uint64_t)200 << 20);     /* one 64 MiB block made room */
    CHECK(s1.cache_bytes > (uint64_t)192 << 20);     /* the other three and the small ones stay */
    genie_ctx_destroy(ctx);
}

/* In-place writes through views inside one tape, on temporaries and on kept values. */
static void test_inplace_views(void) {
    genie_ctx *ctx = make_ctx(1);
    genie_tensor *x = genie_arange(ctx, GENIE_F32, 0, 12, 1), *a, *v, *y, *keep;
    int64_t s34[2] = {3, 4};
    float out[12];
    const void *p;
    int i, ok = 1;
    genie_realize(ctx, 1, &x);
    /* a temporary written through a column view, then read whole */
    a = genie_mul_scalar(ctx, x, 2.0);
    a = rel(genie_view(ctx, a, 2, s34), a);
    v = genie_select(ctx, a, 1, 2);
    genie_fill_(ctx, v, -1.0); /* returns v */
    genie_release(v);
    y = genie_relu(ctx, a);    /* a dies here: relu takes its block */
    genie_release(a);
    CHECK(genie_read(ctx, y, GENIE_F32, out, sizeof out) == GENIE_OK);
    for (i = 0; i < 12; i++) ok &= out[i] == (i % 4 == 2 ? 0.0f : 2.0f * (float)i);
    CHECK(ok);
    CHECK(genie_get_stats(ctx).tape_inplace >= 1 && genie_get_stats(ctx).inplace_reused >= 1);
    genie_release(y);
    /* a value still held by a handle is never overwritten by a consumer */
    keep = genie_neg(ctx, x);
    keep = rel(genie_exp(ctx, keep), keep);
    a = genie_add_scalar(ctx, keep, -0.5);
    y = genie_relu_(ctx, genie_slice(ctx, a, 0, 0, 12, 2));
    genie_release(a);
    CHECK(genie_read(ctx, y, GENIE_F32, out, 6 * sizeof(float)) == GENIE_OK && out[0] == 0.5f && out[1] == 0.0f);
    CHECK(genie_read(ctx, keep, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 1.0f && ulp1(out[1], expf(-1.0f)));
    /* genie_data stays valid through later tapes that recycle blocks */
    CHECK(genie_data(ctx, keep, &p) == GENIE_OK);
    for (i = 0; i < 100; i++) {
        genie_tensor *t = genie_mul_scalar(ctx, keep, 3.0), *u = genie_relu(ctx, t);
        genie_release(t);
        genie_realize(ctx, 1, &u);
        genie_release(u);
    }
    CHECK(((const float *)p)[0] == 1.0f && ulp1(((const float *)p)[2], expf(-2.0f)));
    genie_release(y);
    genie_release(keep);
    genie_release(x);
    genie_ctx_destroy(ctx);
}

/* Random elementwise programs on [6,6] values (views through t(), the same value
   read twice through equal or different views, dtype round trips, in-place
   writes), captured twice: in a no_pool context that releases every handle
   after its last use (so temporaries die in the tape and outputs take their
   blocks) and in a pooled one that keeps every handle (nothing is taken). The
   kept values must agree bit for bit. */
enum { RP_OPS = 14 };
typedef struct { int op, a, b, t, kept; } rp_ins;
#define RP_RND(n) ((int)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33) % (n))
/* the result of one instruction; rel: release the handles made on the way (no_pool) */
static genie_tensor *rp_apply(genie_ctx *ctx, const rp_ins *in, genie_tensor **v, int rel) {
    static const int64_t id[2] = {0, 1};
    genie_tensor *a = v[in->a], *b = v[in->b], *r = NULL, *bt, *t1 = NULL, *t2 = NULL;
    bt = in->t ? genie_t(ctx, b) : genie_permute(ctx, b, 2, id); /* b's view, or b transposed */
    switch (in->op) {
    case 0: r = genie_neg(ctx, a); break;
    case 1: r = genie_tanh(ctx, a); break;
    case 2: r = genie_add(ctx, a, bt); break;
    case 3: r = genie_mul(ctx, a, bt); break;
    case 4: t1 = genie_gt(ctx, a, bt); r = genie_where(ctx, t1, a, bt); break;
    case 5: r = genie_tril(ctx, a, in->t - 1); break;
    case 6: t1 = genie_lt(ctx, bt, a); r = genie_masked_fill(ctx, a, t1, 0.25); break;
    case 7: t1 = genie_to_dtype(ctx, a, GENIE_F64); t2 = genie_sigmoid(ctx, t1); r = genie_to_dtype(ctx, t2, GENIE_F32); break;
    case 8: r = genie_clone(ctx, a); genie_sub_(ctx, r, bt); break;
    case 9: r = genie_maximum(ctx, a, a); break;
    default: t1 = genie_add_scalar(ctx, a, -0.25); r = genie_relu(ctx, t1); break;
    }
    if (rel) {
        genie_release(bt);
        genie_release(t1);
        genie_release(t2);
    }
    return r;
}
static void test_random_programs(void) {
    uint64_t seed = 12345;
    int prog, bad = 0, takes = 0;
    for (prog = 0; prog < 300; prog++) {
        rp_ins ins[RP_OPS];
        int last[RP_OPS + 2], i, k;
        float out[2][36];
        int64_t s66[2] = {6, 6};
        for (i = 0; i < RP_OPS; i++) {
            ins[i].op = RP_RND(11);
            ins[i].a = RP_RND(i + 2);
            ins[i].b = RP_RND(4) == 0 ? ins[i].a : RP_RND(i + 2);
            ins[i].t = RP_RND(2);
            ins[i].kept = RP_RND(6) == 0 || i == RP_OPS - 1;
        }
        for (i = 0; i < RP_OPS + 2; i++) last[i] = -1;
        for (i = 0; i < RP_OPS; i++) last[ins[i].a] = last[ins[i].b] = i;
        for (k = 0; k < 2; k++) { /* k 0: no_pool, releasing; k 1: pooled, keeping */
            genie_ctx *ctx = make_ctx(k == 0);
            genie_tensor *v[RP_OPS + 2], *base;
            v[0] = genie_randn(ctx, GENIE_F32, 2, s66, (uint64_t)prog);
            base = genie_randn(ctx, GENIE_F32, 2, s66, (uint64_t)prog + 7);
            v[1] = genie_t(ctx, base); /* strides (1, 6): results take that layout */
            if (k == 0) {
                genie_release(base);
                genie_realize(ctx, 2, v);
            }
            for (i = 0; i < RP_OPS; i++) {
                v[i + 2] = rp_apply(ctx, &ins[i], v, k == 0);
                if (k == 0) {
                    int j;
                    for (j = 0; j < i + 2; j++)
                        if (last[j] == i && (j < 2 || !ins[j - 2].kept)) { genie_release(v[j]); v[j] = NULL; }
                    if (RP_RND(5) == 0) genie_realize(ctx, 1, &v[i + 2]); /* several tapes */
                    if (last[i + 2] < 0 && !ins[i].kept) { genie_release(v[i + 2]); v[i + 2] = NULL; } /* never read */
                }
            }
            memset(out[k], 0, sizeof out[k]);
            for (i = 0; i < RP_OPS; i++)
                if (ins[i].kept && v[i + 2]) {
                    float o[36];
                    int j;
                    if (genie_read(ctx, v[i + 2], GENIE_F32, o, sizeof o) != GENIE_OK) { bad++; printf("read %d %s\n", k, genie_last_error(ctx)); }
                    for (j = 0; j < 36; j++) out[k][j] += o[j] * (float)(i + 1);
                }
            if (k == 0) {
                takes += (int)genie_get_stats(ctx).tape_inplace;
                for (i = 0; i < RP_OPS + 2; i++)
                    if (v[i] && last[i] >= 0 && !(i >= 2 && ins[i - 2].kept)) { bad++; printf("unreleased %d\n", i); } /* all released */
                for (i = 0; i < RP_OPS; i++)
                    if (ins[i].kept) genie_release(v[i + 2]);
                for (i = 0; i < 2; i++) if (last[i] < 0) genie_release(v[i]);
                if (genie_get_stats(ctx).bytes_live != 0) { bad++; printf("live %d %llu\n", prog, (unsigned long long)genie_get_stats(ctx).bytes_live); }
            }
            genie_ctx_destroy(ctx);
        }
        if (memcmp(out[0], out[1], sizeof out[0]) != 0) {
            bad++;
            printf("FAIL tests/unit/test_planner.c: random program %d differs with planned buffers\n", prog);
        }
    }
    CHECK(bad == 0);
    CHECK(takes > 300); /* the programs do exercise writing into dying inputs */
}

void test_planner(int *passed, int *failed) {
    np = passed;
    nf = failed;
    for (cur_cpu = GENIE_CPU_AUTO;; cur_cpu = GENIE_CPU_REFERENCE) {
        test_steady_state();
        test_bound();
        test_no_stale_values();
        test_cache_ages();
        test_inplace_views();
        test_random_programs();
        if (UNFUSED) break;
    }
}
