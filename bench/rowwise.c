/* bench/rowwise.c - the fast row kernels beside a memcpy of the same
   bytes, measured in the same run: softmax, layer_norm, sum and mean over the
   last dim of a [4096, 4096] f32 tensor, on 1 and 2 threads, and of the same tensor in
   f16 and bf16 (each row converted to f32 and back) beside a memcpy of 32 MiB.
   Bandwidth counts bytes read plus bytes written: the copy moves 2 x 64 MiB,
   softmax and layer_norm 2 x 64 MiB, sum and mean 64 MiB (+16 KiB).
   A node's time is what genie_realize takes: the executor's buffer for the
   result (from a cache here, as a host's allocator would: fresh pages cost
   ~2 us each) and its zero fill included; the zero fill of 64 MiB is timed on
   its own too, for scale. Best of 5 runs after a warm-up.
   Then a channel's statistics (mean, var, amax over (0, 2, 3) of [64, 64, 56, 56]:
   segmented rows) beside a copy of the same bytes, and segmented groups (sum, var
   and logsumexp over (0, 2, 3) of x * m, argmax of all of it transposed in dims 0
   and 1), fused against the product written first.
   Then row groups (>>fuse): a row op with its elementwise producers and
   consumers over [4096, 4096] (x, m: two such tensors; w, b: [4096]), and two
   column groups (a reduction over dim 0: the rows go down the columns), fused
   (one realize: one pass over memory) against the same nodes unfused (the
   prologue, the row op and the epilogue realized one after the other, each
   value written and read back: what ran before row groups), in f32, then with x,
   m, w and b in f16 and in bf16 (each op of the dtype, the row op in f32 and
   rounded once). */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <pthread.h>

/* Big blocks are kept for reuse (exact size), so repeated nodes touch warm pages. */
#define CACHE 16
static void *c_ptr[CACHE], *live_ptr[64];
static size_t c_size[CACHE], live_size[64];
static void *b_malloc(size_t n) {
    int i;
    void *p = NULL;
    if (n < (1u << 20)) return malloc(n);
    for (i = 0; i < CACHE; i++)
        if (c_ptr[i] && c_size[i] == n) { p = c_ptr[i]; c_ptr[i] = NULL; break; }
    if (!p) p = malloc(n);
    for (i = 0; p && i < 64; i++)
        if (!live_ptr[i]) { live_ptr[i] = p; live_size[i] = n; break; }
    return p;
}
static void b_free(void *p) {
    int i, j;
    for (i = 0; p && i < 64; i++)
        if (live_ptr[i] == p) {
            live_ptr[i] = NULL;
            for (j = 0; j < CACHE; j++)
                if (!c_ptr[j]) { c_ptr[j] = p; c_size[j] = live_size[i]; return; }
            break;
        }
    free(p);
}
#define GENIE_MALLOC(n) b_malloc(n)
#define GENIE_REALLOC(p, n) realloc(p, n)
#define GENIE_FREE(p) b_free(p)
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "bench_util.h"

#define N 4096

typedef struct { char *dst; const char *src; size_t n; int fill; } job;
static void *run_job(void *a) {
    job *j = (job *)a;
    if (j->fill) memset(j->dst, 0, j->n);
    else memcpy(j->dst, j->src, j->n);
    return NULL;
}
/* memcpy (or memset) of n bytes on nth threads, best of 5, seconds */
static double copy_time(char *dst, const char *src, size_t n, int nth, int fill) {
    double best = 1e9;
    int r, t;
    for (r = 0; r < 6; r++) {
        pthread_t th[2];
        job jobs[2];
        double t0 = bench_now();
        for (t = 0; t < nth; t++) {
            size_t lo = n / (size_t)nth * (size_t)t, hi = t == nth - 1 ? n : n / (size_t)nth * (size_t)(t + 1);
            jobs[t].dst = dst + lo; jobs[t].src = src ? src + lo : NULL; jobs[t].n = hi - lo; jobs[t].fill = fill;
            if (t) pthread_create(&th[t], NULL, run_job, &jobs[t]);
        }
        run_job(&jobs[0]);
        for (t = 1; t < nth; t++) pthread_join(th[t], NULL);
        if (r && bench_now() - t0 < best) best = bench_now() - t0;
    }
    return best;
}

/* the row ops over the last dim; then (C_*) a channel's statistics over (0, 2, 3) of x [N, C, H, W]
   (segmented rows: N runs of H x W) */
enum { SOFTMAX, LAYER_NORM, SUM, MEAN, NOPS, C_MEAN = NOPS, C_VAR, C_AMAX, NALL };
static const char *const names[NALL] = {"softmax", "layer_norm", "sum", "mean", "mean", "var", "amax"};

/* best of 5 realizes of op on x (w, b: layer_norm's), seconds */
static double node_time(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, genie_tensor *b, int op) {
    static const int64_t dims[3] = {0, 2, 3};
    int64_t last = -1, ln = N;
    double best = 1e9;
    int r;
    for (r = 0; r < 6; r++) {
        genie_tensor *y;
        double t0;
        genie_pool_push(ctx);
        switch (op) {
        case SOFTMAX: y = genie_softmax(ctx, x, -1); break;
        case LAYER_NORM: y = genie_layer_norm(ctx, x, 1, &ln, w, b, 1e-5); break;
        case SUM: y = genie_sum(ctx, x, 1, &last, 0); break;
        case MEAN: y = genie_mean(ctx, x, 1, &last, 0); break;
        case C_MEAN: y = genie_mean(ctx, x, 3, dims, 0); break;
        case C_VAR: y = genie_var(ctx, x, 3, dims, 1, 0); break;
        default: y = genie_amax(ctx, x, 3, dims, 0); break;
        }
        t0 = bench_now();
        if (genie_realize(ctx, 1, &y) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); exit(1); }
        if (r && bench_now() - t0 < best) best = bench_now() - t0;
        genie_pool_pop(ctx);
    }
    return best;
}

/* A segmented group: sum, var or logsumexp over (0, 2, 3) of x * m, or argmax of all of it
   transposed in dims 0 and 1 (runs of 3136 read in the view's order), fused (one realize) or
   unfused (the product realized, then the reduction), timed together; best of 5 */
enum { SG_SUM, SG_VAR, SG_LSE, SG_ARGMAX, NSG };
static const char *const sg_names[NSG] = {"sum(x * m, (0, 2, 3))", "var(x * m, (0, 2, 3))", "logsumexp(x * m, (0, 2, 3))",
                                          "argmax((x * m).transpose(0, 1))"};
static double seg_time(genie_ctx *ctx, genie_tensor *x, genie_tensor *m, int op, int fused) {
    static const int64_t dims[3] = {0, 2, 3};
    double best = 1e9;
    int r;
    for (r = 0; r < 6; r++) {
        genie_tensor *p, *y, *pt = NULL;
        double t0;
        genie_pool_push(ctx);
        t0 = bench_now();
        p = genie_mul(ctx, x, m);
        if (!fused && genie_realize(ctx, 1, &p) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); exit(1); }
        y = op == SG_SUM ? genie_sum(ctx, p, 3, dims, 0) : op == SG_VAR ? genie_var(ctx, p, 3, dims, 1, 0)
          : op == SG_LSE ? genie_logsumexp(ctx, p, 3, dims, 0) : genie_argmax(ctx, pt = genie_transpose(ctx, p, 0, 1), GENIE_DIM_NONE, 0);
        genie_release(p); /* nothing holds the product: fused, it is never written */
        if (pt) genie_release(pt);
        if (genie_realize(ctx, 1, &y) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); exit(1); }
        if (r && bench_now() - t0 < best) best = bench_now() - t0;
        genie_pool_pop(ctx);
    }
    return best;
}

/* Row groups: the prologue, row op and epilogue of case k; fused: one realize,
   else each stage realized on its own (its value written, then read). Only
   the result is held when it runs (a value a handle holds is always written). */
enum { G_SOFTMAX, G_LN, G_LN_RELU, G_LN_EPI, G_DOT, G_LSE, G_CDOT, G_CMAX, NGROUPS };
static const char *const gnames[NGROUPS] = {"softmax(x * 0.125 + m)", "layer_norm(x + m, w, b)", "relu(layer_norm(x + m, w, b))",
                                           "layer_norm(x + m) * w + b", "sum(x * m, -1)", "logsumexp(x * 0.5, -1) + 1",
                                           "sum(x * m, 0)", "amax(x + m, 0) * 0.5"};
static genie_tensor *stage(genie_ctx *ctx, genie_tensor *t, int k, int s, genie_tensor *x, genie_tensor *m, genie_tensor *w,
                           genie_tensor *b) {
    int64_t last = -1, ln = N, first = 0;
    genie_tensor *y;
    genie_pool_push(ctx);
    if (s == 0) {
        switch (k) {
        case G_SOFTMAX: y = genie_add(ctx, genie_mul_scalar(ctx, x, 0.125), m); break;
        case G_DOT: case G_CDOT: y = genie_mul(ctx, x, m); break;
        case G_LSE: y = genie_mul_scalar(ctx, x, 0.5); break;
        default: y = genie_add(ctx, x, m); break;
        }
    } else if (s == 1) {
        switch (k) {
        case G_SOFTMAX: y = genie_softmax(ctx, t, -1); break;
        case G_DOT: y = genie_sum(ctx, t, 1, &last, 0); break;
        case G_CDOT: y = genie_sum(ctx, t, 1, &first, 0); break;
        case G_CMAX: y = genie_amax(ctx, t, 1, &first, 0); break;
        case G_LSE: y = genie_logsumexp(ctx, t, 1, &last, 0); break;
        case G_LN_EPI: y = genie_layer_norm(ctx, t, 1, &ln, NULL, NULL, 1e-5); break;
        default: y = genie_layer_norm(ctx, t, 1, &ln, w, b, 1e-5); break;
        }
    } else if (k == G_LN_EPI) {
        y = genie_add(ctx, genie_mul(ctx, t, w), b);
    } else {
        y = k == G_LSE ? genie_add_scalar(ctx, t, 1.0) : k == G_LN_RELU ? genie_relu(ctx, t) : k == G_CMAX ? genie_mul_scalar(ctx, t, 0.5) : t;
    }
    genie_retain(y);
    genie_pool_pop(ctx);
    return y;
}
static double group_time(genie_ctx *ctx, genie_tensor *x, genie_tensor *m, genie_tensor *w, genie_tensor *b, int k, int fused,
                         double *mb) {
    double best = 1e9;
    int r, s;
    for (r = 0; r < 6; r++) {
        genie_tensor *y = NULL, *t;
        genie_stats s0 = genie_get_stats(ctx);
        double t0 = bench_now();
        for (s = 0; s < 3; s++) {
            t = stage(ctx, y, k, s, x, m, w, b);
            if (y) genie_release(y);
            y = t;
            if (!fused && genie_realize(ctx, 1, &y) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); exit(1); }
        }
        if (genie_realize(ctx, 1, &y) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); exit(1); }
        if (r && bench_now() - t0 < best) best = bench_now() - t0;
        genie_release(y);
        *mb = (double)(genie_get_stats(ctx).bytes_total - s0.bytes_total) / 1e6;
    }
    return best;
}

int main(void) {
    const size_t bytes = (size_t)N * N * sizeof(float);
    float *data = (float *)malloc(bytes), *wd = (float *)malloc(N * sizeof(float)), *bd = (float *)malloc(N * sizeof(float));
    char *dst = (char *)malloc(bytes);
    int64_t shape[2] = {N, N}, ln = N;
    size_t i;
    int nth;
    if (!data || !dst || !wd || !bd) return 1;
    for (i = 0; i < (size_t)N * N; i++) data[i] = (float)((i * 2654435761u) % 1000) * 0.01f - 5.0f;
    for (i = 0; i < N; i++) { wd[i] = 1.0f + 0.001f * (float)i; bd[i] = 0.5f; }
    memset(dst, 1, bytes);
    printf("rowwise kernels over the last dim of [%d, %d] f32 (64 MiB); GB/s = (bytes read + written) / time\n", N, N);
    for (nth = 1; nth <= 2; nth++) {
        genie_ctx_desc d;
        genie_ctx *ctx;
        genie_tensor *x, *w, *b;
        double tc, tz;
        int op;
        memset(&d, 0, sizeof d);
        d.n_threads = nth;
        ctx = genie_ctx_create(&d);
        x = genie_from_data(ctx, GENIE_F32, 2, shape, data);
        w = genie_from_data(ctx, GENIE_F32, 1, &ln, wd);
        b = genie_from_data(ctx, GENIE_F32, 1, &ln, bd);
        tc = copy_time(dst, (const char *)data, bytes, nth, 0);
        tz = copy_time(dst, NULL, bytes, nth, 1);
        printf("\n%d thread%s, path %s: memcpy 64 MiB %.2f ms = %.1f GB/s; memset 64 MiB (the executor's zero fill) %.2f ms\n",
               nth, nth > 1 ? "s" : "", genie_cpu_name(genie_cpu_path(ctx)), tc * 1e3, 2.0 * (double)bytes / tc * 1e-9, tz * 1e3);
        printf("  %-11s %9s %9s %10s\n", "op", "ms", "GB/s", "% of copy");
        for (op = 0; op < NOPS; op++) {
            double t = node_time(ctx, x, w, b, op), moved = (op == SUM || op == MEAN) ? (double)bytes : 2.0 * (double)bytes;
            printf("  %-11s %9.2f %9.1f %9.0f%%\n", names[op], t * 1e3, moved / t * 1e-9, 100.0 * (moved / t) / (2.0 * (double)bytes / tc));
        }
        { /* f16 and bf16 (x, w and b of the dtype): rows converted to f32 and back; copy of 32 MiB */
            static const genie_dtype hdt[2] = {GENIE_F16, GENIE_BF16};
            double th = copy_time(dst, (const char *)data, bytes / 2, nth, 0);
            int h;
            printf("  f16/bf16 [%d, %d] (32 MiB): memcpy 32 MiB %.2f ms = %.1f GB/s\n", N, N, th * 1e3, (double)bytes / th * 1e-9);
            for (h = 0; h < 2; h++) {
                genie_tensor *xh = genie_to_dtype(ctx, x, hdt[h]), *wh = genie_to_dtype(ctx, w, hdt[h]), *bh = genie_to_dtype(ctx, b, hdt[h]);
                genie_realize(ctx, 1, &xh);
                genie_realize(ctx, 1, &wh);
                genie_realize(ctx, 1, &bh);
                for (op = 0; op < NOPS; op++) {
                    double t = node_time(ctx, xh, wh, bh, op), moved = (op == SUM || op == MEAN) ? (double)bytes / 2 : (double)bytes;
                    char name[24];
                    snprintf(name, sizeof name, "%s %s", names[op], genie_dtype_name(hdt[h]));
                    printf("  %-15s %5.2f %9.1f %9.0f%%\n", name, t * 1e3, moved / t * 1e-9, 100.0 * (moved / t) / ((double)bytes / th));
                }
                genie_release(xh);
                genie_release(wh);
                genie_release(bh);
            }
        }
        genie_ctx_destroy(ctx);
    }
    { /* channel statistics of an NCHW activation: its reads against a copy of the same bytes */
        const int64_t csh[4] = {64, 64, 56, 56}, cn = csh[0] * csh[1] * csh[2] * csh[3], all = (int64_t)N * N;
        printf("\nchannel statistics over (0, 2, 3) of [64, 64, 56, 56] f32 (%.1f MiB; segmented rows: 64 runs of 3136)\n",
               (double)cn * 4 / 1048576);
        for (nth = 1; nth <= 2; nth++) {
            genie_ctx_desc d;
            genie_ctx *ctx;
            genie_tensor *x;
            double tc = copy_time(dst, (const char *)data, (size_t)cn * 4, nth, 0);
            int op;
            memset(&d, 0, sizeof d);
            d.n_threads = nth;
            ctx = genie_ctx_create(&d);
            x = genie_from_data(ctx, GENIE_F32, 2, shape, data);
            x = genie_contiguous(ctx, genie_narrow(ctx, genie_reshape(ctx, x, 1, &all), 0, 0, cn)); /* its first 49 MiB */
            x = genie_reshape(ctx, x, 4, csh);
            genie_realize(ctx, 1, &x);
            printf("  %d thread%s: memcpy %.2f ms", nth, nth > 1 ? "s" : "", tc * 1e3);
            for (op = C_MEAN; op < NALL; op++) {
                const double t = node_time(ctx, x, NULL, NULL, op);
                printf("; %s %.2f ms = %.0f%% of copy", names[op], t * 1e3, 100.0 * ((double)cn * 4 / t) / (2.0 * (double)cn * 4 / tc));
            }
            printf("\n");
            { /* a segmented group: the reduction of a product, fused against the product written first */
                genie_tensor *m = genie_add_scalar(ctx, genie_mul_scalar(ctx, x, 0.5), 1.0);
                genie_realize(ctx, 1, &m);
                int k;
                printf("    segmented groups, fused / unfused:");
                for (k = 0; k < NSG; k++)
                    printf("%s %s %.2f / %.2f ms", k ? ";" : "", sg_names[k], seg_time(ctx, x, m, k, 1) * 1e3, seg_time(ctx, x, m, k, 0) * 1e3);
                printf("\n");
            }
            genie_ctx_destroy(ctx);
        }
    }
    printf("\nrow groups over [%d, %d]: fused (one pass) vs unfused (each stage written and read back): ms, MB written\n", N, N);
    for (nth = 1; nth <= 2; nth++) {
        genie_ctx_desc d;
        genie_ctx *ctx;
        genie_tensor *x, *m, *w, *b;
        float *md = (float *)malloc(bytes);
        int k, h;
        if (!md) return 1;
        for (i = 0; i < (size_t)N * N; i++) md[i] = (float)((i * 40503u) % 997) * 0.002f - 1.0f;
        memset(&d, 0, sizeof d);
        d.n_threads = nth;
        ctx = genie_ctx_create(&d);
        x = genie_from_data(ctx, GENIE_F32, 2, shape, data);
        m = genie_from_data(ctx, GENIE_F32, 2, shape, md);
        w = genie_from_data(ctx, GENIE_F32, 1, &ln, wd);
        b = genie_from_data(ctx, GENIE_F32, 1, &ln, bd);
        printf("\n%d thread%s, path %s\n  %-35s %8s %8s %8s %8s %8s\n", nth, nth > 1 ? "s" : "", genie_cpu_name(genie_cpu_path(ctx)),
               "group", "fused", "unfused", "speedup", "MB fused", "unfused");
        for (h = 0; h < 3; h++) {
            static const genie_dtype gdt[3] = {GENIE_F32, GENIE_F16, GENIE_BF16};
            genie_tensor *xh = x, *mh = m, *wh = w, *bh = b;
            if (h) {
                xh = genie_to_dtype(ctx, x, gdt[h]), mh = genie_to_dtype(ctx, m, gdt[h]);
                wh = genie_to_dtype(ctx, w, gdt[h]), bh = genie_to_dtype(ctx, b, gdt[h]);
                genie_realize(ctx, 1, &xh), genie_realize(ctx, 1, &mh), genie_realize(ctx, 1, &wh), genie_realize(ctx, 1, &bh);
            }
            for (k = 0; k < NGROUPS; k++) {
                double mf, mu, tf = group_time(ctx, xh, mh, wh, bh, k, 1, &mf), tu = group_time(ctx, xh, mh, wh, bh, k, 0, &mu);
                char name[48];
                snprintf(name, sizeof name, "%s %s", gnames[k], genie_dtype_name(gdt[h]));
                printf("  %-35s %8.2f %8.2f %7.2fx %8.2f %8.2f\n", name, tf * 1e3, tu * 1e3, tu / tf, mf, mu);
            }
            if (h) genie_release(xh), genie_release(mh), genie_release(wh), genie_release(bh);
        }
        genie_ctx_destroy(ctx);
        free(md);
    }
    free(data);
    free(dst);
    free(wd);
    free(bd);
    return 0;
}
