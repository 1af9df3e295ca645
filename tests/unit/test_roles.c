/* test_roles.c - roles found by recognising patterns (genie_role), in the
   fused and decomposed forms a model writes them, whatever the scopes say; the
   work statistics by role and phase (genie_work_of, genie_stats.work_by_role);
   the DOT dump coloured by role. Negative cases too: a pattern that is not
   there must not be found. */
#include "../../genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static int *g_pass, *g_fail;
#define RCHECK(cond) rcheck_((cond) != 0, #cond, __LINE__)
static void rcheck_(int ok, const char *what, int line) {
    if (ok) (*g_pass)++;
    else { (*g_fail)++; printf("FAIL tests/unit/test_roles.c:%d: %s\n", line, what); }
}
#define ROLE(t, r) RCHECK(strcmp(genie_role(t), r) == 0)

static genie_tensor *rnd(genie_ctx *c, int nd, int64_t a, int64_t b, int64_t d, uint64_t seed) {
    int64_t s[3];
    s[0] = a, s[1] = b, s[2] = d;
    return genie_randn(c, GENIE_F32, nd, s, seed);
}
/* softmax(q k^T * scale + causal mask) v from matmul and softmax; q, k, v [B, H, T, E]. */
static genie_tensor *attn_decomposed(genie_ctx *c, genie_tensor *q, genie_tensor *k, genie_tensor *v, genie_tensor **parts) {
    int64_t T = genie_shape(q)[genie_ndim(q) - 2], E = genie_shape(q)[genie_ndim(q) - 1], ms[2];
    genie_tensor *s, *m, *p;
    ms[0] = ms[1] = T;
    s = genie_matmul(c, q, genie_transpose(c, k, -2, -1));
    parts[0] = s;
    s = genie_div_scalar(c, s, sqrt((double)E));
    parts[1] = s;
    m = genie_triu(c, genie_full(c, GENIE_F32, 2, ms, -INFINITY), 1);
    s = genie_add(c, s, m);
    parts[2] = s;
    p = genie_softmax(c, s, -1);
    parts[3] = p;
    return genie_matmul(c, p, v);
}

static void test_attention(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    int64_t s4[4] = {2, 3, 5, 8}, h[4] = {1, 5, 2, 8}, flat[2] = {5, 16};
    genie_tensor *parts[4], *q = genie_randn(c, GENIE_F32, 4, s4, 1), *k = genie_randn(c, GENIE_F32, 4, s4, 2),
                 *v = genie_randn(c, GENIE_F32, 4, s4, 3), *o, *x, *wq, *wk, *wv, *wo, *y, *r, *ln;
    int i;
    genie_scope_push(c, "mlp"); /* a misleading scope: roles ignore scopes */
    o = attn_decomposed(c, q, k, v, parts);
    ROLE(o, "attention"); /* asked lazily: found on the pending graph */
    for (i = 0; i < 4; i++) ROLE(parts[i], "attention");
    ROLE(q, "");
    genie_scope_pop(c);

    /* with projections, heads split by views, output projection and a residual */
    x = rnd(c, 2, 5, 16, 0, 4);
    ln = genie_layer_norm(c, x, 1, flat + 1, NULL, NULL, 1e-5);
    wq = rnd(c, 2, 16, 16, 0, 5), wk = rnd(c, 2, 16, 16, 0, 6), wv = rnd(c, 2, 16, 16, 0, 7), wo = rnd(c, 2, 16, 16, 0, 8);
    q = genie_transpose(c, genie_view(c, genie_linear(c, ln, wq, NULL), 4, h), 1, 2); /* [1, 2, 5, 8] */
    k = genie_transpose(c, genie_view(c, genie_linear(c, ln, wk, NULL), 4, h), 1, 2);
    v = genie_transpose(c, genie_view(c, genie_linear(c, ln, wv, NULL), 4, h), 1, 2);
    q = genie_mul_scalar(c, q, 1.0); /* rope-like arithmetic on q */
    o = attn_decomposed(c, q, k, v, parts);
    o = genie_reshape(c, genie_transpose(c, o, 1, 2), 2, flat); /* a copy: not contiguous */
    y = genie_linear(c, o, wo, NULL);
    r = genie_add(c, x, y);
    genie_set_phase(c, "prefill");
    RCHECK(genie_realize(c, 1, &r) == GENIE_OK); /* roles found at realize */
    ROLE(r, "residual");
    ROLE(y, "attention");
    ROLE(q, "attention");
    ROLE(k, "attention");
    ROLE(ln, "norm");
    ROLE(x, "");
    genie_ctx_destroy(c);
}

static void test_attention_negative(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    genie_tensor *a = rnd(c, 2, 4, 4, 0, 1), *b = rnd(c, 2, 4, 4, 0, 2), *p, *s, *m;
    p = genie_matmul(c, a, b);
    ROLE(p, ""); /* a product alone */
    s = genie_softmax(c, a, -1);
    ROLE(s, "");
    m = genie_matmul(c, genie_exp(c, s), b); /* not softmax(...) @ v */
    ROLE(m, "");
    m = genie_matmul(c, genie_softmax(c, genie_exp(c, a), -1), b); /* softmax of no product */
    ROLE(m, "");
    ROLE(genie_add(c, a, b), ""); /* not a residual: neither operand ends a block */
    ROLE(genie_linear(c, genie_relu(c, a), b, NULL), ""); /* an activation of no product */
    genie_ctx_destroy(c);
}

static void test_mlp(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    genie_tensor *x = rnd(c, 2, 3, 8, 0, 1), *w1 = rnd(c, 2, 16, 8, 0, 2), *b1 = rnd(c, 1, 16, 0, 0, 3),
                 *w2 = rnd(c, 2, 8, 16, 0, 4), *w3 = rnd(c, 2, 16, 8, 0, 5), *h, *a, *y, *g, *u, *r, *sg;
    h = genie_linear(c, x, w1, b1);
    a = genie_gelu(c, h);
    y = genie_linear(c, a, w2, NULL);
    ROLE(y, "mlp");
    ROLE(a, "mlp");
    ROLE(h, "mlp");
    r = genie_add(c, x, y);
    ROLE(r, "residual");
    /* SwiGLU: w2(silu(w1 x) * w3 x) */
    g = genie_silu(c, genie_linear(c, x, w1, NULL));
    u = genie_linear(c, x, w3, NULL);
    y = genie_linear(c, genie_mul(c, g, u), w2, NULL);
    ROLE(y, "mlp");
    ROLE(g, "mlp");
    ROLE(u, "mlp");
    /* decomposed: matmul with a bias add, then p * sigmoid(p) */
    h = genie_add(c, genie_matmul(c, x, genie_t(c, w1)), b1);
    sg = genie_mul(c, h, genie_sigmoid(c, h));
    y = genie_matmul(c, sg, genie_t(c, w2));
    ROLE(y, "mlp");
    ROLE(sg, "mlp");
    ROLE(h, "mlp");
    /* not an MLP: linear of a linear */
    y = genie_linear(c, genie_linear(c, x, w1, NULL), w2, NULL);
    ROLE(y, "");
    genie_ctx_destroy(c);
}

static void test_norm_embedding(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    int64_t last = -1, ids_v[3] = {1, 0, 3}, pos_v[3] = {0, 1, 2}, three = 3;
    genie_tensor *x = rnd(c, 2, 3, 8, 0, 1), *w = rnd(c, 1, 8, 0, 0, 2), *b = rnd(c, 1, 8, 0, 0, 3), *ms, *inv, *nx, *y,
                 *mu, *xc, *var, *ln, *tab, *ptab, *ids, *pos, *e, *pe, *sum;
    /* RMSNorm written out: x * rsqrt(mean(x*x) + eps) * w */
    ms = genie_mean(c, genie_mul(c, x, x), 1, &last, 1);
    inv = genie_rsqrt(c, genie_add_scalar(c, ms, 1e-6));
    nx = genie_mul(c, x, inv);
    y = genie_mul(c, nx, w);
    ROLE(y, "norm");
    ROLE(nx, "norm");
    ROLE(inv, "norm");
    ROLE(ms, "norm");
    /* LayerNorm written out: (x - mean) / sqrt(var + eps) * w + b */
    mu = genie_mean(c, x, 1, &last, 1);
    xc = genie_sub(c, x, mu);
    var = genie_var(c, x, 1, &last, 0, 1);
    ln = genie_add(c, genie_mul(c, genie_div(c, xc, genie_sqrt(c, genie_add_scalar(c, var, 1e-5))), w), b);
    ROLE(ln, "norm");
    ROLE(xc, "norm");
    ROLE(mu, "norm");
    ROLE(genie_layer_norm(c, x, 1, genie_shape(w), w, b, 1e-5), "norm");
    /* not a norm: x * rsqrt(x) (no mean of squares) */
    ROLE(genie_mul(c, x, genie_rsqrt(c, x)), "");
    /* embeddings */
    tab = rnd(c, 2, 10, 8, 0, 4);
    ptab = rnd(c, 2, 4, 8, 0, 5);
    ids = genie_from_data(c, GENIE_I64, 1, &three, ids_v);
    pos = genie_from_data(c, GENIE_I64, 1, &three, pos_v);
    e = genie_embedding(c, tab, ids);
    pe = genie_index_select(c, ptab, 0, pos);
    sum = genie_add(c, e, pe);
    ROLE(sum, "embedding");
    ROLE(e, "embedding");
    ROLE(pe, "embedding");
    ROLE(genie_index_select(c, x, 1, pos), ""); /* columns: no table lookup */
    genie_ctx_destroy(c);
}

/* The transformer operations: rms_norm, rope, a cache written by index_copy_,
   scaled_dot_product_attention (grouped-query), as examples/05_tiny_llama.c uses them. */
static void test_fused_ops(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    int64_t D = 16, qs[3] = {3, 4, 4}, kvs[3] = {3, 2, 4}, cs[3] = {2, 8, 4}, flat[2] = {3, 16};
    genie_tensor *x = rnd(c, 2, 3, 16, 0, 1), *w = rnd(c, 1, 16, 0, 0, 2), *wq = rnd(c, 2, 16, 16, 0, 3),
                 *wk = rnd(c, 2, 8, 16, 0, 4), *wv = rnd(c, 2, 8, 16, 0, 5), *wo = rnd(c, 2, 16, 16, 0, 6),
                 *kc = genie_zeros(c, GENIE_F32, 3, cs), *vc = genie_zeros(c, GENIE_F32, 3, cs),
                 *pos = genie_arange(c, GENIE_I64, 0, 3, 1), *h, *q, *k, *v, *a, *o, *r, *s;
    h = genie_rms_norm(c, x, 1, &D, w, 1e-5);
    ROLE(h, "norm");
    q = genie_transpose(c, genie_view(c, genie_linear(c, h, wq, NULL), 3, qs), 0, 1);
    k = genie_transpose(c, genie_view(c, genie_linear(c, h, wk, NULL), 3, kvs), 0, 1);
    v = genie_transpose(c, genie_view(c, genie_linear(c, h, wv, NULL), 3, kvs), 0, 1);
    q = genie_rope(c, q, pos, 0, 10000.0, 0);
    k = genie_rope(c, k, pos, 0, 10000.0, 0);
    ROLE(q, ""); /* nothing reads it yet */
    genie_index_copy_(c, kc, 1, pos, k);
    genie_index_copy_(c, vc, 1, pos, v);
    a = genie_scaled_dot_product_attention(c, q, genie_narrow(c, kc, 1, 0, 3), genie_narrow(c, vc, 1, 0, 3), NULL, 1, NAN);
    ROLE(a, "attention");
    ROLE(q, "attention"); /* rope, the projections and the cache writes: found from the attention */
    ROLE(k, "attention");
    ROLE(kc, "attention");
    ROLE(v, "attention");
    o = genie_linear(c, genie_reshape(c, genie_transpose(c, a, 0, 1), 2, flat), wo, NULL);
    r = genie_add(c, x, o);
    ROLE(r, "residual");
    ROLE(o, "attention");
    s = genie_scaled_dot_product_attention(c, x, x, x, NULL, 0, NAN); /* q, k, v from no product */
    ROLE(s, "attention");
    ROLE(x, "");
    ROLE(genie_rope(c, q, pos, 0, 10000.0, 0), ""); /* rope alone is no attention */
    genie_ctx_destroy(c);
}

/* Work by role and phase: exact counts on a graph whose numbers are known. */
static void test_work(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    int64_t xs[2] = {3, 4}, ws[2] = {5, 4}, bs = 5, s4[4] = {1, 2, 4, 8};
    float xv[12] = {0}, wv[20] = {0}, bv[5] = {0};
    genie_tensor *x = genie_from_data(c, GENIE_F32, 2, xs, xv), *w = genie_from_data(c, GENIE_F32, 2, ws, wv),
                 *b = genie_from_data(c, GENIE_F32, 1, &bs, bv), *y, *parts[4], *q, *k, *v, *o;
    genie_work all, none, at;
    genie_stats st;
    genie_realize(c, 1, &x);
    genie_realize(c, 1, &w);
    genie_realize(c, 1, &b);
    all = genie_work_of(c, NULL, NULL);
    genie_set_phase(c, "p1");
    y = genie_linear(c, x, w, b);
    RCHECK(genie_realize(c, 1, &y) == GENIE_OK);
    none = genie_work_of(c, "p1", "");
    RCHECK(none.nodes == 1);
    RCHECK(none.flops == 2 * 3 * 5 * 4 + 15);
    RCHECK(none.bytes == (12 + 20 + 5 + 15) * 4);
    RCHECK(genie_work_of(c, "p1", "attention").nodes == 0);
    RCHECK(genie_work_of(c, "p2", NULL).nodes == 0);
    RCHECK(genie_work_of(c, NULL, NULL).nodes == all.nodes + 1);
    genie_set_phase(c, "p2");
    q = genie_randn(c, GENIE_F32, 4, s4, 1), k = genie_randn(c, GENIE_F32, 4, s4, 2), v = genie_randn(c, GENIE_F32, 4, s4, 3);
    genie_realize(c, 1, &q);
    genie_realize(c, 1, &k);
    genie_realize(c, 1, &v);
    o = attn_decomposed(c, q, k, v, parts);
    RCHECK(genie_realize(c, 1, &o) == GENIE_OK);
    at = genie_work_of(c, "p2", "attention");
    RCHECK(at.nodes == 5); /* q k^T, scale, mask add, softmax, @ v (the mask itself has no role) */
    RCHECK(at.flops == 2 * (2 * 4 * 4 * 8) + 2 * 32 + 5 * 32 + 2 * (2 * 4 * 8 * 4));
    RCHECK(genie_work_of(c, "p2", "").nodes >= 2); /* the mask: full, triu */
    st = genie_get_stats(c);
    RCHECK(st.work_by_role[GENIE_ROLE_ATTENTION].nodes == 5 && st.work_by_role[GENIE_ROLE_ATTENTION].flops == at.flops);
    RCHECK(st.work_by_role[GENIE_ROLE_ATTENTION].ns <= genie_work_of(c, NULL, NULL).ns);
    { /* time is measured where the build has a monotonic clock (the tape planner's) */
        int64_t big[2] = {256, 256};
        genie_tensor *m = genie_matmul(c, genie_randn(c, GENIE_F32, 2, big, 9), genie_randn(c, GENIE_F32, 2, big, 10));
        genie_set_phase(c, "p3");
        m = genie_exp(c, m);
        RCHECK(genie_realize(c, 1, &m) == GENIE_OK);
        RCHECK(genie_work_of(c, "p3", NULL).ns > 0 || genie_get_stats(c).tape_plan_ns == 0);
        RCHECK(genie_work_of(c, NULL, NULL).ns > 0 || genie_get_stats(c).tape_plan_ns == 0);
    }
    RCHECK(strcmp(genie_role_name(GENIE_ROLE_MLP), "mlp") == 0 && strcmp(genie_role_name(GENIE_ROLE_COUNT), "") == 0);
    RCHECK(strcmp(genie_role(NULL), "") == 0);
    genie_ctx_destroy(c);
}

static void test_dump(void) {
    genie_ctx *c = genie_ctx_create(NULL);
    int64_t s4[4] = {1, 2, 4, 8};
    genie_tensor *q = genie_randn(c, GENIE_F32, 4, s4, 1), *parts[4], *o;
    FILE *f = tmpfile();
    char buf[16384];
    size_t n;
    o = attn_decomposed(c, q, q, q, parts);
    RCHECK(f != NULL);
    if (!f) { genie_ctx_destroy(c); return; }
    RCHECK(genie_dump_dot(c, 1, &o, f) == GENIE_OK);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    RCHECK(strstr(buf, "role attention") != NULL);
    RCHECK(strstr(buf, "fillcolor=\"#f7b6b2\"") != NULL);
    RCHECK(strstr(buf, "cluster_legend") != NULL && strstr(buf, "\"legend_attention\"") != NULL);
    RCHECK(strstr(buf, "legend_mlp") == NULL); /* only roles present */
    genie_ctx_destroy(c);
}

void test_roles(int *passed, int *failed);
void test_roles(int *passed, int *failed) {
    int p0 = *passed, f0 = *failed;
    g_pass = passed;
    g_fail = failed;
    test_attention();
    test_attention_negative();
    test_mlp();
    test_norm_embedding();
    test_fused_ops();
    test_work();
    test_dump();
    printf("  roles: %d passed, %d failed\n", *passed - p0, *failed - f0);
}

#ifdef TEST_ROLES_MAIN
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
int main(void) {
    int p = 0, f = 0;
    test_roles(&p, &f);
    return f != 0;
}
#endif
