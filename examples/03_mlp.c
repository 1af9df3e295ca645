/* 03_mlp.c - the flagship: a two-layer MLP forward pass captured lazily with
   module scopes and a phase, dumped as a Graphviz graph (mlp.dot), then run
   once and checked against a plain C computation.
     x [B, D] -> linear(D, H) -> gelu -> linear(H, O) -> softmax */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <math.h>

enum { B = 4, D = 8, H = 16, O = 3 };

static void ref_linear(const float *x, const float *w, const float *b, float *y, int rows, int in, int out) {
    int r, o, i;
    for (r = 0; r < rows; r++)
        for (o = 0; o < out; o++) {
            double acc = b[o];
            for (i = 0; i < in; i++) acc += (double)x[r * in + i] * w[o * in + i];
            y[r * out + o] = (float)acc;
        }
}

int main(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t xs[2] = {B, D}, w1s[2] = {H, D}, w2s[2] = {O, H}, b1s = H, b2s = O;
    float x[B * D], w1[H * D], b1[H], w2[O * H], b2[O], h[B * H], logits[B * O], out[B * O];
    genie_tensor *X, *W1, *B1, *W2, *B2, *hid, *y;
    FILE *dot;
    int i, j, ok = 1;

    /* weights from genie's counter-based RNG, read back for the reference */
    genie_read(ctx, genie_randn(ctx, GENIE_F32, 2, xs, 1), GENIE_F32, x, sizeof x);
    genie_read(ctx, genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 2, w1s, 2), 0.3), GENIE_F32, w1, sizeof w1);
    genie_read(ctx, genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 1, &b1s, 3), 0.1), GENIE_F32, b1, sizeof b1);
    genie_read(ctx, genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 2, w2s, 4), 0.3), GENIE_F32, w2, sizeof w2);
    genie_read(ctx, genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 1, &b2s, 5), 0.1), GENIE_F32, b2, sizeof b2);
    X = genie_from_data(ctx, GENIE_F32, 2, xs, x);
    W1 = genie_from_data(ctx, GENIE_F32, 2, w1s, w1);
    B1 = genie_from_data(ctx, GENIE_F32, 1, &b1s, b1);
    W2 = genie_from_data(ctx, GENIE_F32, 2, w2s, w2);
    B2 = genie_from_data(ctx, GENIE_F32, 1, &b2s, b2);

    genie_set_phase(ctx, "inference");
    genie_scope_push(ctx, "mlp");
    genie_scope_push(ctx, "fc1");
    hid = genie_gelu(ctx, genie_linear(ctx, X, W1, B1));
    genie_scope_pop(ctx);
    genie_scope_push(ctx, "fc2");
    y = genie_linear(ctx, hid, W2, B2);
    genie_scope_pop(ctx);
    y = genie_softmax(ctx, y, -1);
    genie_scope_pop(ctx);

    dot = fopen("mlp.dot", "w");
    if (dot) {
        genie_dump_dot(ctx, 1, &y, dot);
        fclose(dot);
        printf("wrote mlp.dot (render: dot -Tsvg mlp.dot -o mlp.svg)\n");
    }
    printf("y: %s in '%s' (%s), materialized %d\n", genie_op_name(y), genie_module_path(y), genie_phase(y),
           genie_is_materialized(y));
    if (genie_read(ctx, y, GENIE_F32, out, sizeof out) != GENIE_OK) {
        printf("error: %s\n", genie_last_error(ctx));
        return 1;
    }

    ref_linear(x, w1, b1, h, B, D, H);
    for (i = 0; i < B * H; i++) h[i] = (float)(0.5 * h[i] * (1 + erf(h[i] / sqrt(2.0))));
    ref_linear(h, w2, b2, logits, B, H, O);
    for (i = 0; i < B; i++) {
        double mx = logits[i * O], sum = 0;
        for (j = 1; j < O; j++) mx = logits[i * O + j] > mx ? logits[i * O + j] : mx;
        for (j = 0; j < O; j++) sum += exp(logits[i * O + j] - mx);
        for (j = 0; j < O; j++) ok &= fabs(out[i * O + j] - exp(logits[i * O + j] - mx) / sum) < 1e-5;
        printf("row %d: [%.4f %.4f %.4f]\n", i, out[i * O], out[i * O + 1], out[i * O + 2]);
    }
    printf("nodes executed: %llu\n", (unsigned long long)genie_get_stats(ctx).nodes_executed);
    genie_ctx_destroy(ctx);
    printf("%s\n", ok ? "ok" : "FAILED");
    return !ok;
}
