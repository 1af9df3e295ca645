/* tests/unit/test_backend.c - the backend table of genie.h (>>backend) without a GPU: a fake
 * backend whose "device" is a second host block per buffer. It runs groups and a few
 * kinds of nodes on its blocks with the reference kernels and fills the host block of
 * every result with garbage, so a value read on the host without the copy back the tape
 * owes shows as wrong numbers. Checked against a CPU context: results, fallbacks,
 * copies counted, a read bringing back only its view's bytes, in-place writes on device
 * values, device out of memory (GENIE_ERR_OOM, the context going on), selection errors. */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include <math.h>
#include <stdlib.h>

static int passed, failed;
#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (cond) passed++;                                              \
        else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

typedef struct fake { size_t limit, live; int runs; } fake;
static fake g_fake;
static genie_result f_init(void **state, char *msg) { (void)msg; memset(&g_fake, 0, sizeof g_fake); *state = &g_fake; return GENIE_OK; }
static void f_destroy(void *state) { (void)state; }
static int f_kind_ok(int kind) {
    return kind == GENIE__K_UNARY || kind == GENIE__K_BINARY || kind == GENIE__K_REDUCE || kind == GENIE__K_SOFTMAX ||
           kind == GENIE__K_LAYER_NORM || kind == GENIE__K_MATMUL || kind == GENIE__K_COPY;
}
static int f_supports(void *state, const genie__node *n, const genie__fgroup *g) {
    (void)state;
    return g ? 1 : f_kind_ok(genie__op_kinds[n->op]);
}
static void f_garbage(genie__buf *b) { memset(b->data, 0xff, b->bytes); } /* NaN for floats */
static genie_result f_run(void *state, genie__node *n, const genie__fgroup *cg, char *msg) {
    genie__kparams p;
    fake *f = (fake *)state;
    genie_result r;
    int i, j;
    f->runs++;
    memset(&p, 0, sizeof p);
    if (cg) { /* the group's kernel over the device blocks */
        genie__fgroup *g = (genie__fgroup *)cg;
        char *ws = (char *)malloc(genie__fgroup_ws_bytes(g));
        for (i = 0; i < g->nin; i++) g->in[i].data = (const char *)g->src[i]->buf->dev;
        for (j = 0; j < g->nops; j++)
            if (g->written[j]) {
                genie__buf *b = g->nodes[j]->buf;
                memset(b->dev, 0, b->bytes);
                g->out[j].data = (const char *)b->dev;
                f_garbage(b);
            }
        g->cpu = GENIE_CPU_REFERENCE;
        p.n = g->root;
        p.fg = g;
        p.ws = ws;
        r = genie__k_fused(&p, 0, 1);
        free(ws);
        return r;
    }
    { /* a node: its reference kernel reading and writing the device blocks */
        void *saved[8];
        int nin = n->nin < 8 ? n->nin : 8;
        for (i = 0; i < nin; i++) { saved[i] = n->in[i].n->buf->data; n->in[i].n->buf->data = n->in[i].n->buf->dev; }
        f_garbage(n->buf);
        saved[nin] = n->buf->data;
        n->buf->data = n->buf->dev;
        if (!genie__writes_all(n->op) && !genie__eltwise_whole(n) && !genie__rowwise_whole(n)) memset(n->buf->dev, 0, n->buf->bytes);
        p.n = n;
        r = genie__kernel_for(genie__op_kinds[n->op])(&p, 0, 1);
        n->buf->data = saved[nin];
        for (i = nin - 1; i >= 0; i--) n->in[i].n->buf->data = saved[i]; /* reverse: an input may be the output's buffer */
        if (r != GENIE_OK) snprintf(msg, GENIE_BACKEND_MSG, "fake: %s", p.msg);
        return r;
    }
}
static genie_result f_alloc(void *state, genie__buf *b, char *msg) {
    fake *f = (fake *)state;
    size_t bytes = b->cap > b->bytes ? b->cap : b->bytes;
    if (f->limit && f->live + bytes > f->limit) {
        snprintf(msg, GENIE_BACKEND_MSG, "fakeMalloc(%llu bytes): out of memory", (unsigned long long)bytes);
        return GENIE_ERR_OOM;
    }
    if (!(b->dev = malloc(bytes ? bytes : 1))) return GENIE_ERR_OOM;
    f->live += bytes;
    return GENIE_OK;
}
static void f_free(void *state, genie__buf *b) {
    fake *f = (fake *)state;
    f->live -= b->cap > b->bytes ? b->cap : b->bytes;
    free(b->dev);
    b->dev = NULL;
}
static genie_result f_copy_in(void *state, genie__buf *b, char *msg) {
    (void)state; (void)msg;
    memcpy(b->dev, b->data, b->bytes);
    return GENIE_OK;
}
static genie_result f_copy_out(void *state, genie__buf *b, size_t lo, size_t hi, char *msg) {
    (void)state; (void)msg;
    memcpy((char *)b->data + lo, (const char *)b->dev + lo, hi - lo);
    return GENIE_OK;
}
static const genie_backend fake_backend = {.name = "fake", .init = f_init, .destroy = f_destroy, .supports = f_supports,
                                           .run = f_run, .alloc = f_alloc, .free = f_free, .copy_in = f_copy_in,
                                           .copy_out = f_copy_out};

/* a graph mixing device groups and nodes, CPU fallbacks (argmax, cat, index_select, where,
   in-place writes) and device work on their results */
static genie_tensor *mixed(genie_ctx *c) {
    int64_t sh[2] = {12, 40}, d1 = 1;
    genie_tensor *x = genie_randn(c, GENIE_F32, 2, sh, 1), *w = genie_randn(c, GENIE_F32, 2, sh, 2);
    genie_tensor *y = genie_gelu(c, genie_add_scalar(c, genie_mul(c, x, x), -0.5));       /* a group */
    genie_tensor *s = genie_softmax(c, genie_matmul(c, y, genie_t(c, w)), 1);           /* device nodes */
    genie_tensor *idx = genie_argmax(c, s, 1, 0);                                       /* CPU */
    genie_tensor *sel = genie_index_select(c, y, 0, idx);                               /* CPU */
    genie_tensor *both = genie_cat(c, 2, (genie_tensor *[]){sel, y}, 0);                /* CPU */
    genie_tensor *m = genie_mean(c, genie_exp(c, genie_neg(c, both)), 1, &d1, 1);       /* device */
    genie_tensor *z = genie_where(c, genie_gt(c, both, m), both, genie_mul_scalar(c, m, 2.0)); /* CPU */
    genie_tensor *acc = genie_clone(c, genie_t(c, z));                                  /* device copy */
    genie_add_(c, acc, genie_t(c, genie_relu(c, z)));                                   /* in place: CPU */
    return genie_layer_norm(c, genie_t(c, acc), 1, sh + 1, NULL, NULL, 1e-5);          /* device */
}
static float *values(genie_ctx *c, genie_tensor *t, int64_t *n) {
    float *v;
    *n = genie_numel(t);
    v = (float *)malloc((size_t)*n * 4);
    if (genie_read(c, t, GENIE_F32, v, (size_t)*n * 4) != GENIE_OK) { free(v); return NULL; }
    return v;
}

int main(void) {
    genie_ctx_desc d;
    genie_ctx *ctx, *cpu;
    genie_stats s0, s1;
    genie_tensor *a, *b;
    float *va, *vb, one = 0;
    int64_t na, nb, i, bad = 0, big[2] = {1 << 12, 1 << 12};
    double x = 0;
    memset(&d, 0, sizeof d);
    CHECK(genie_backend_register(NULL) == GENIE_ERR_INVALID_ARG, "NULL backend");
    CHECK(genie_backend_register(&fake_backend) == GENIE_OK, "register");
    d.backend = "fake";
    ctx = genie_ctx_create(&d);
    cpu = genie_ctx_create(NULL);
    CHECK(genie_status(ctx) == GENIE_OK && strcmp(genie_backend_name(ctx), "fake") == 0, "select: %s", genie_last_error(ctx));
    CHECK(strcmp(genie_backend_name(cpu), "cpu") == 0, "cpu name");

    /* the same numbers as the CPU, with both executors at work */
    a = mixed(ctx);
    b = mixed(cpu);
    va = values(ctx, a, &na);
    vb = values(cpu, b, &nb);
    CHECK(va && vb && na == nb, "mixed graph: %s", genie_last_error(ctx));
    for (i = 0; va && vb && i < na; i++)
        if (!(fabsf(va[i] - vb[i]) <= 1e-4f * (1 + fabsf(vb[i])))) { if (bad++ < 3) printf("  [%lld] %g vs %g\n", (long long)i, va[i], vb[i]); }
    CHECK(bad == 0, "mixed graph: %lld values differ from the CPU", (long long)bad);
    s0 = genie_get_stats(ctx);
    CHECK(s0.backend_nodes > 5 && s0.backend_fallbacks >= 5 && s0.fused_groups >= 1, "backend %llu, fallbacks %llu, groups %llu",
          (unsigned long long)s0.backend_nodes, (unsigned long long)s0.backend_fallbacks, (unsigned long long)s0.fused_groups);
    CHECK(s0.copies_to_device > 0 && s0.copies_to_host > 0 && s0.bytes_to_host > 0, "copies counted");
    CHECK(genie_get_stats(cpu).backend_nodes == 0 && genie_get_stats(cpu).copies_to_device == 0, "the CPU context counts none");
    free(va);
    free(vb);

    /* results stay on the device; a read brings back the view's bytes only; genie_data all */
    a = genie_exp(ctx, genie_arange(ctx, GENIE_F32, 0, 1000, 1));
    genie_realize(ctx, 1, &a);
    s0 = genie_get_stats(ctx);
    CHECK(genie_read(ctx, genie_slice(ctx, a, 0, 2, 3, 1), GENIE_F32, &one, 4) == GENIE_OK && one == (float)exp(2.0), "one element: %g", one);
    s1 = genie_get_stats(ctx);
    CHECK(s1.bytes_to_host - s0.bytes_to_host == 4 && s1.copies_to_host - s0.copies_to_host == 1, "a 1-element read moved %llu bytes",
          (unsigned long long)(s1.bytes_to_host - s0.bytes_to_host));
    CHECK(genie_item(ctx, genie_select(ctx, a, 0, 3), &x) == GENIE_OK && (float)x == (float)exp(3.0), "item %g", x);
    {
        const void *p = NULL;
        CHECK(genie_data(ctx, a, &p) == GENIE_OK && ((const float *)p)[999] == INFINITY && ((const float *)p)[10] == (float)exp(10.0),
              "genie_data brings all back");
        s0 = genie_get_stats(ctx);
        CHECK(genie_data(ctx, a, &p) == GENIE_OK && genie_get_stats(ctx).copies_to_host == s0.copies_to_host, "then the host copy is current");
    }

    /* a CPU write into a buffer that has a device block (an in-place write reusing it), then
       a device step reading it: the stale device copy must be refreshed */
    a = genie_exp(ctx, genie_arange(ctx, GENIE_F32, 0, 8, 1));
    genie_realize(ctx, 1, &a);
    genie_add_(ctx, a, genie_ones(ctx, GENIE_F32, 0, NULL)); /* exp(k) + 1 */
    genie_realize(ctx, 1, &a);
    CHECK(genie_item(ctx, genie_sum(ctx, genie_neg(ctx, a), 0, NULL, 0), &x) == GENIE_OK && fabs(x + 8 + (exp(8.0) - 1) / (exp(1.0) - 1)) < 1e-2,
          "device step after a CPU in-place write: %g", x);

    /* device out of memory: GENIE_ERR_OOM naming the call; the context goes on */
    g_fake.limit = g_fake.live + ((size_t)1 << 20);
    a = genie_exp(ctx, genie_expand(ctx, genie_full(ctx, GENIE_F32, 1, big + 1, 1.0), 2, big)); /* 64 MiB */
    CHECK(genie_realize(ctx, 1, &a) == GENIE_ERR_OOM && strstr(genie_last_error(ctx), "fakeMalloc"), "device OOM: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    g_fake.limit = 0;
    CHECK(genie_item(ctx, genie_sum(ctx, genie_exp(ctx, genie_zeros(ctx, GENIE_F32, 1, big)), 0, NULL, 0), &x) == GENIE_OK && x == 4096.0,
          "after OOM: %g %s", x, genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    CHECK(g_fake.live == 0, "every device block went back (%llu bytes left)", (unsigned long long)g_fake.live);

    /* selection that fails: GENIE_ERR_BACKEND, the CPU runs */
    d.backend = "missing";
    ctx = genie_ctx_create(&d);
    CHECK(ctx && genie_status(ctx) == GENIE_ERR_BACKEND && strstr(genie_last_error(ctx), "missing"), "unknown backend: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    CHECK(genie_item(ctx, genie_sum(ctx, genie_arange(ctx, GENIE_F32, 0, 4, 1), 0, NULL, 0), &x) == GENIE_OK && x == 6, "CPU after");
    genie_ctx_destroy(ctx);
    genie_ctx_destroy(cpu);
    printf("test_backend (a fake device through the backend table): %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
