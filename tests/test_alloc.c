/* test_alloc.c - every allocation goes through GENIE_MALLOC/REALLOC/FREE: count
   them, then fail the k-th one for every k of a small program. genie must
   report GENIE_ERR_OOM (or finish), never crash, and free everything. */
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
#include "../genie.h"

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

int main(void) {
    long total, k;
    int passed = 0, failed = 0, oom = 0;
    genie_ctx *ctx = genie_ctx_create(NULL);
    if (program(ctx) != GENIE_OK) {
        printf("FAIL clean run: %s\n", genie_last_error(ctx));
        genie_ctx_destroy(ctx);
        return 1;
    }
    genie_ctx_destroy(ctx);
    total = calls;
    if (live == 0) passed++;
    else { failed++; printf("FAIL %ld blocks leaked on a clean run\n", live); }
    for (k = 1; k <= total; k++) {
        int r;
        calls = 0;
        fail_at = k;
        ctx = genie_ctx_create(NULL);
        if (!ctx) { passed++; continue; } /* the context itself could not be made */
        r = program(ctx);
        genie_ctx_destroy(ctx);
        if (r == GENIE_ERR_OOM) oom++;
        if ((r == GENIE_OK || r == GENIE_ERR_OOM) && live == 0) passed++;
        else { failed++; printf("FAIL allocation %ld failing: status %d, %ld blocks leaked\n", k, r, live); live = 0; }
    }
    printf("  allocation failures: %ld sites tried, %d reported GENIE_ERR_OOM\n", total, oom);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
