/* 01_hello_lazy.c - operations are recorded, not run; reading a value runs
   exactly the part of the graph it needs.
     A = [1 2 3 4];  B = A + A;  C = B * 2;  D = A - 1 (never needed) */
#define GENIE_IMPLEMENTATION
#include "genie.h"

int main(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    float a[4] = {1, 2, 3, 4}, c[4];
    int64_t n = 4;
    genie_tensor *A = genie_from_data(ctx, GENIE_F32, 1, &n, a);
    genie_tensor *B = genie_add(ctx, A, A);
    genie_tensor *C = genie_mul_scalar(ctx, B, 2.0);
    genie_tensor *D = genie_sub_scalar(ctx, A, 1.0);
    genie_stats s = genie_get_stats(ctx);
    int i, ok = 1;

    printf("captured %llu nodes, executed %llu\n", (unsigned long long)s.nodes_created, (unsigned long long)s.nodes_executed);
    ok &= s.nodes_executed == 0 && !genie_is_materialized(C);

    genie_read(ctx, C, GENIE_F32, c, sizeof c); /* runs B and C, not D */
    for (i = 0; i < 4; i++) ok &= c[i] == 4 * a[i];
    s = genie_get_stats(ctx);
    printf("C = [%g %g %g %g]; executed %llu nodes, D materialized: %d\n", c[0], c[1], c[2], c[3],
           (unsigned long long)s.nodes_executed, genie_is_materialized(D));
    ok &= s.nodes_executed == 2 && !genie_is_materialized(D);

    /* mistakes are errors, never aborts: the first one is kept */
    if (!genie_matmul(ctx, A, genie_view(ctx, C, 2, (int64_t[]){2, 2}))) printf("error: %s\n", genie_last_error(ctx));
    ok &= genie_status(ctx) == GENIE_ERR_SHAPE;

    genie_ctx_destroy(ctx);
    printf("%s\n", ok ? "ok" : "FAILED");
    return !ok;
}
