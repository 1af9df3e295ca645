/* bench/eltwise.c - elementwise operations on contiguous f32 tensors (and add and
   gelu on f16 and bf16, converted in registers by the fused group; cvt_gelu bf16
   is x.float() -> gelu -> .bfloat16(), one group since the conversions fuse; where is
   where(x > y, x, y) and masked_fill x.masked_fill(x > y, -inf), the comparison an
   array kernel, the selection a group; add on i64 and i32 and gt on f64 take the
   typed kernel, the same on every path): the
   reference kernels beside the array kernels of each CPU path this machine
   runs (generic, avx2, avx512), on 1 and 2 threads. Each timing is the best of
   a few realizations of one node (capture, buffer, kernel), so it includes
   the output buffer's allocation: at 16M floats a fresh 64 MiB buffer is
   first-touched every time (~2 us per 4 KiB page), at 1M the allocator reuses
   it. Prints ms per node and the speed-up over the reference on 1 thread. Inputs: x in
   [-10, 10] (y, and x of log and log1p, in (0, 20]). */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "bench_util.h"

typedef struct { const char *name; int kind; genie_dtype dt; } bench_op; /* kind 0 unary, 1 binary, 2 to bf16, 3 unary on x > 0 */
static genie_tensor *run_op(genie_ctx *ctx, const bench_op *o, genie_tensor *x, genie_tensor *y) {
    if (strcmp(o->name, "exp") == 0) return genie_exp(ctx, x);
    if (strcmp(o->name, "tanh") == 0) return genie_tanh(ctx, x);
    if (strcmp(o->name, "gelu") == 0) return genie_gelu(ctx, x);
    if (strcmp(o->name, "sigmoid") == 0) return genie_sigmoid(ctx, x);
    if (strcmp(o->name, "relu") == 0) return genie_relu(ctx, x);
    if (strcmp(o->name, "sin") == 0) return genie_sin(ctx, x);
    if (strcmp(o->name, "silu") == 0) return genie_silu(ctx, x);
    if (strcmp(o->name, "gelu_tanh") == 0) return genie_gelu_tanh(ctx, x);
    if (strcmp(o->name, "erf") == 0) return genie_erf(ctx, x);
    if (strcmp(o->name, "expm1") == 0) return genie_expm1(ctx, x);
    if (strcmp(o->name, "log") == 0) return genie_log(ctx, x);
    if (strcmp(o->name, "log1p") == 0) return genie_log1p(ctx, x);
    if (strcmp(o->name, "add") == 0) return genie_add(ctx, x, y);
    if (strcmp(o->name, "mul_scalar") == 0) return genie_mul_scalar(ctx, x, 0.125);
    if (strcmp(o->name, "gt") == 0) return genie_gt(ctx, x, y);
    if (strcmp(o->name, "where") == 0) return genie_where(ctx, genie_gt(ctx, x, y), x, y);
    if (strcmp(o->name, "masked_fill") == 0) return genie_masked_fill(ctx, x, genie_gt(ctx, x, y), -INFINITY);
    if (strcmp(o->name, "cvt_gelu") == 0) return genie_to_dtype(ctx, genie_gelu(ctx, genie_to_dtype(ctx, x, GENIE_F32)), o->dt);
    return genie_to_dtype(ctx, x, GENIE_BF16);
}
/* Best of reps: ms per node. */
static double time_op(genie_cpu cpu, int threads, const bench_op *o, int64_t n, const float *xs, const float *ys, int reps) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    genie_tensor *x, *y;
    double best = 1e30;
    int r;
    memset(&d, 0, sizeof d);
    d.cpu = cpu;
    d.n_threads = threads;
    ctx = genie_ctx_create(&d);
    x = genie_from_data(ctx, GENIE_F32, 1, &n, o->kind == 3 ? ys : xs); /* ys: positive for kind 3 */
    y = genie_from_data(ctx, GENIE_F32, 1, &n, ys);
    if (o->dt != GENIE_F32) { /* f16/bf16 operands, converted before the timing */
        x = genie_to_dtype(ctx, x, o->dt);
        y = genie_to_dtype(ctx, y, o->dt);
        genie_realize(ctx, 1, &x);
        genie_realize(ctx, 1, &y);
    }
    for (r = 0; r < reps; r++) {
        genie_tensor *t;
        double t0;
        genie_pool_push(ctx);
        t0 = bench_now();
        t = run_op(ctx, o, x, y);
        genie_retain(t);
        genie_pool_pop(ctx); /* a chain's intermediates released: never written */
        genie_realize(ctx, 1, &t);
        t0 = bench_now() - t0;
        if (t0 < best) best = t0;
        genie_release(t);
    }
    if (genie_status(ctx)) printf("error: %s\n", genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    return best * 1e3;
}

int main(int argc, char **argv) {
    static const bench_op ops[] = {
        {"exp", 0, GENIE_F32}, {"expm1", 0, GENIE_F32}, {"log", 3, GENIE_F32}, {"log1p", 3, GENIE_F32}, {"tanh", 0, GENIE_F32},
        {"sigmoid", 0, GENIE_F32}, {"silu", 0, GENIE_F32}, {"erf", 0, GENIE_F32}, {"gelu", 0, GENIE_F32},
        {"gelu_tanh", 0, GENIE_F32}, {"sin", 0, GENIE_F32}, {"relu", 0, GENIE_F32}, {"add", 1, GENIE_F32},
        {"mul_scalar", 1, GENIE_F32}, {"gt", 1, GENIE_F32}, {"where", 1, GENIE_F32}, {"masked_fill", 1, GENIE_F32},
        {"to_bf16", 2, GENIE_F32},
        {"add", 1, GENIE_F16}, {"add", 1, GENIE_BF16}, {"gelu", 0, GENIE_F16}, {"gelu", 0, GENIE_BF16},
        {"cvt_gelu", 0, GENIE_BF16}, {"add", 1, GENIE_I64}, {"add", 1, GENIE_I32}, {"gt", 1, GENIE_F64}};
    static const genie_cpu paths[] = {GENIE_CPU_GENERIC, GENIE_CPU_AVX2, GENIE_CPU_AVX512};
    int64_t sizes[2] = {1 << 20, 1 << 24}, i;
    int s, k, p, reps = argc > 1 ? atoi(argv[1]) : 3;
    float *xs = (float *)malloc(sizeof(float) << 24), *ys = (float *)malloc(sizeof(float) << 24);
    if (!xs || !ys) return 1;
    for (i = 0; i < (1 << 24); i++) {
        xs[i] = (float)((double)((i * 2654435761u) % 20001u) / 1000.0 - 10.0);
        ys[i] = (float)((double)((i * 40503u) % 1999u) / 100.0 + 0.01); /* (0, 20]: log's domain too */
    }
    printf("elementwise f32 (f16/bf16 where named), ms per node (best of %d); x: speed-up over the reference, 1 thread\n", reps);
    printf("%-14s %9s %10s", "op", "n", "reference");
    for (p = 0; p < 3; p++) printf(" %15s", genie_cpu_name(paths[p]));
    printf(" %15s\n", "best, 2 thr");
    for (s = 0; s < 2; s++)
        for (k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++) {
            double ref = time_op(GENIE_CPU_REFERENCE, 1, &ops[k], sizes[s], xs, ys, reps), t = 0;
            genie_cpu best = GENIE_CPU_GENERIC;
            char name[24];
            snprintf(name, sizeof name, "%s%s%s", ops[k].name, ops[k].dt == GENIE_F32 ? "" : " ", ops[k].dt == GENIE_F32 ? "" : genie_dtype_name(ops[k].dt));
            printf("%-14s %9lld %10.2f", name, (long long)sizes[s], ref);
            for (p = 0; p < 3; p++) {
                if (!genie_cpu_supported(paths[p])) { printf(" %15s", "-"); continue; }
                t = time_op(paths[p], 1, &ops[k], sizes[s], xs, ys, reps);
                best = paths[p];
                printf(" %8.2f %5.1fx", t, ref / t);
            }
            t = time_op(best, 2, &ops[k], sizes[s], xs, ys, reps);
            printf(" %8.2f %5.1fx\n", t, ref / t);
        }
    free(xs);
    free(ys);
    return 0;
}
