/* mlp_step.c - repeated steps inside genie_pool_push/pop: an MLP forward
   (examples/03_mlp.c style) at three sizes and an elementwise chain on 2 MiB
   tensors. Prints the median and best time per step and the page faults per
   step (a first touch of a 4 KiB page costs ~2 us here), to measure the buffer
   planner and cache against another genie.h:
     cc -std=c99 -O2 -I<dir with genie.h> bench/mlp_step.c -lm -pthread && ./a.out [steps]
   Each case runs in two forms, one after the other: "held", the natural form (the step's
   result read while its pool holds every intermediate), and "released" (the result retained,
   the pool popped, then read: the intermediates dead before the realize). The two should take
   the same time (docs/lazy.md: the cheap intermediates of the held form stay deferred). The
   chain's memory bound, one pass reading x and writing a result (a plain C loop), is timed in
   the same run. PyTorch eager (bench/mlp_step_torch.py: the same steps written in Python, one
   thread, read with .item()) runs just before, in the same `make bench-mlp`, and passes its
   medians as key=value arguments (caseN=us, torch=version); the ratio is eager/genie (> 1:
   genie faster). Alone: build/bench_mlp_step [steps] prints genie only. */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "bench_util.h"

static long minflt(double *sys) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *sys = (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return ru.ru_minflt;
}

/* kind 0: MLP [B,D] -> linear(D,H) -> gelu -> linear(H,O) -> softmax -> sum of squares;
   kind 1: chain relu((1 - x*0.5) + x) -> amax over [B,D] */
/* the peer's median for case k (caseK=us among the arguments), or < 0 */
static int g_argc;
static char **g_argv;
static double peer_us(int k) {
    char key[16];
    const char *v;
    snprintf(key, sizeof key, "case%d", k);
    v = bench_arg(g_argc, g_argv, key);
    return v ? atof(v) : -1;
}
static const char *peer_version(void) { return bench_arg(g_argc, g_argv, "torch"); }

static void run(int kind, int64_t B, int64_t D, int64_t H, int64_t O, int steps, int released, int peer_case) {
    genie_ctx_desc desc;
    genie_ctx *ctx;
    int64_t xs[2] = {B, D}, w1s[2] = {H, D}, w2s[2] = {O, H}, b1s = H, b2s = O;
    genie_tensor *all[5];
    double *t = (double *)malloc((size_t)steps * sizeof(double));
    long f0, f1;
    double sys0, sys1;
    float first = 0, v = 0;
    int s;
    memset(&desc, 0, sizeof desc);
    desc.n_threads = 1;
    ctx = genie_ctx_create(&desc);
    all[0] = genie_randn(ctx, GENIE_F32, 2, xs, 1);
    all[1] = genie_randn(ctx, GENIE_F32, 2, w1s, 2);
    all[2] = genie_randn(ctx, GENIE_F32, 1, &b1s, 3);
    all[3] = genie_randn(ctx, GENIE_F32, 2, w2s, 4);
    all[4] = genie_randn(ctx, GENIE_F32, 1, &b2s, 5);
    genie_realize(ctx, 5, all);
    f0 = minflt(&sys0);
    for (s = 0; s < steps; s++) {
        double a = bench_now();
        genie_tensor *y;
        genie_pool_push(ctx);
        if (kind == 0) {
            y = genie_softmax(ctx, genie_linear(ctx, genie_gelu(ctx, genie_linear(ctx, all[0], all[1], all[2])),
                                                all[3], all[4]), -1);
            y = genie_sum(ctx, genie_mul(ctx, y, y), 0, NULL, 0);
        } else {
            y = genie_add_scalar(ctx, genie_neg(ctx, genie_mul_scalar(ctx, all[0], 0.5)), 1.0);
            y = genie_amax(ctx, genie_relu(ctx, genie_add(ctx, y, all[0])), 0, NULL, 0);
        }
        if (released) {
            genie_retain(y);
            genie_pool_pop(ctx);
            genie_read(ctx, y, GENIE_F32, &v, sizeof v);
            genie_release(y);
        } else {
            genie_read(ctx, y, GENIE_F32, &v, sizeof v);
            genie_pool_pop(ctx);
        }
        t[s] = bench_now() - a;
        if (s == 0) first = v;
        else if (v != first) printf("value changed at step %d\n", s);
    }
    f1 = minflt(&sys1);
    qsort(t, (size_t)steps, sizeof(double), bench_cmp_d);
    printf("%-8s ", released ? "released" : "held");
    if (kind == 0)
        printf("MLP   B=%-3lld D=%-4lld H=%-4lld O=%-4lld  median %9.1f us  best %9.1f us  faults/step %7.2f  sys/step %7.1f us  (%d steps)",
               (long long)B, (long long)D, (long long)H, (long long)O, 1e6 * t[steps / 2], 1e6 * t[0],
               (double)(f1 - f0) / steps, 1e6 * (sys1 - sys0) / steps, steps);
    else
        printf("chain [%lld,%lld] f32, 5 ops + amax    median %9.1f us  best %9.1f us  faults/step %7.2f  sys/step %7.1f us  (%d steps)",
               (long long)B, (long long)D, 1e6 * t[steps / 2], 1e6 * t[0], (double)(f1 - f0) / steps,
               1e6 * (sys1 - sys0) / steps, steps);
    if (peer_us(peer_case) > 0)
        printf("  eager %.1f us, eager/genie %.2fx", peer_us(peer_case), peer_us(peer_case) / (1e6 * t[steps / 2]));
    printf("\n");
    free(t);
    genie_ctx_destroy(ctx);
}

/* the chain's memory bound: one pass reading x and writing out = relu(1 - x*0.5 + x) (the
   amax then reads out again, as genie's row group does not: genie's own pass may beat this
   plain loop, whose max the compiler does not vectorize) (median us) */
static double bound_us(int64_t n, int steps) {
    float *x = (float *)malloc((size_t)n * 4), *out = (float *)malloc((size_t)n * 4), m = 0;
    double *t = (double *)malloc((size_t)steps * sizeof(double)), r;
    int64_t i;
    int s;
    for (i = 0; i < n; i++) x[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f, out[i] = 0;
    for (s = 0; s < steps; s++) {
        double a = bench_now();
        for (i = 0; i < n; i++) {
            float v = 1.0f - x[i] * 0.5f + x[i];
            out[i] = v > 0 ? v : 0;
        }
        for (i = 0, m = out[0]; i < n; i++) m = out[i] > m ? out[i] : m;
        t[s] = bench_now() - a;
    }
    r = 1e6 * bench_median(t, steps) + (m < -1 ? 1 : 0);
    free(x), free(out), free(t);
    return r;
}

int main(int argc, char **argv) {
    int steps = argc > 1 && !strchr(argv[1], '=') ? atoi(argv[1]) : 400, released;
    if (steps < 2) steps = 2;
    g_argc = argc, g_argv = argv;
    if (peer_version() && strcmp(peer_version(), "none") != 0)
        printf("PyTorch eager %s (Python, 1 thread) timed just before, in the same run; genie on 1 thread\n", peer_version());
    else
        printf("skip: PyTorch eager peer (no torch for bench/mlp_step_torch.py, or run alone)\n");
    for (released = 0; released < 2; released++) {
        run(0, 4, 8, 16, 3, steps * 10, released, 0);
        run(0, 32, 128, 512, 128, steps, released, 1);
        run(0, 64, 512, 2048, 512, steps / 4 > 2 ? steps / 4 : 2, released, 2);
        run(1, 512, 1024, 0, 0, steps, released, 3);
    }
    printf("bound    chain [512,1024] f32, one pass (C loop)  median %9.1f us\n", bound_us(512 * 1024, steps));
    return 0;
}
