/* llama_decode.h - greedy decode steps of examples/data/tiny_llama.safetensors with a static
 * KV cache, shared by tests/unit/test_remote.c and bench/remote.c (static functions; include
 * after genie.h).
 *
 * A step's graph has the same structure at every position (what a repeated tape needs): the
 * caches [n_kv, max_seq, head_dim] are written in place with genie_index_copy_ at the position
 * given as data (an i64 tensor), and attention reads the whole cache with an additive mask
 * [1, max_seq] (0 up to the position, -inf after it), also data. So the step's inputs are the
 * token, the position and the mask; everything else (weights, caches) stays where it is. */
#ifndef GENIE_LLAMA_DECODE_H
#define GENIE_LLAMA_DECODE_H
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LD_MAX_LAYERS 8
typedef struct ld_model {
    int64_t d, n_layers, n_heads, n_kv, vocab, max_seq;
    double theta, eps;
    genie_tensor *embed, *norm, *head;
    struct {
        genie_tensor *in_norm, *wq, *wk, *wv, *wo, *post_norm, *gate, *up, *down, *k_cache, *v_cache;
    } l[LD_MAX_LAYERS];
    float *mask; /* [max_seq]: the host copy of the mask, updated each step */
} ld_model;

static genie_tensor *ld_weight(genie_safetensors *st, const char *fmt, int layer) {
    char name[128];
    snprintf(name, sizeof name, fmt, layer);
    return genie_safetensors_get(st, name);
}
static int64_t ld_meta(genie_safetensors *st, const char *key) {
    const char *v = genie_safetensors_metadata(st, key);
    return v ? atoll(v) : 0;
}
/* Loads the checkpoint at path into ctx (weights mapped, caches zeros): 1, or 0 with the
   context's error or a bad configuration. */
static int ld_load(genie_ctx *ctx, const char *path, ld_model *m) {
    genie_safetensors *st = NULL;
    int i;
    memset(m, 0, sizeof *m);
    if (genie_safetensors_open(ctx, path, &st) != GENIE_OK) return 0;
    m->d = ld_meta(st, "d_model"), m->n_layers = ld_meta(st, "n_layers"), m->n_heads = ld_meta(st, "n_heads");
    m->n_kv = ld_meta(st, "n_kv_heads"), m->vocab = ld_meta(st, "vocab_size"), m->max_seq = ld_meta(st, "max_seq");
    m->theta = genie_safetensors_metadata(st, "rope_theta") ? atof(genie_safetensors_metadata(st, "rope_theta")) : 0;
    m->eps = genie_safetensors_metadata(st, "norm_eps") ? atof(genie_safetensors_metadata(st, "norm_eps")) : 0;
    if (m->n_layers < 1 || m->n_layers > LD_MAX_LAYERS || m->n_heads < 1 || m->n_kv < 1 || m->d % m->n_heads ||
        m->n_heads % m->n_kv || m->max_seq < 1 || !(m->mask = (float *)malloc((size_t)m->max_seq * sizeof(float)))) {
        genie_safetensors_close(st);
        return 0;
    }
    m->embed = ld_weight(st, "model.embed_tokens.weight", 0);
    m->norm = ld_weight(st, "model.norm.weight", 0);
    m->head = ld_weight(st, "lm_head.weight", 0);
    for (i = 0; i < m->n_layers; i++) {
        int64_t cache[3];
        cache[0] = m->n_kv, cache[1] = m->max_seq, cache[2] = m->d / m->n_heads;
        m->l[i].in_norm = ld_weight(st, "model.layers.%d.input_layernorm.weight", i);
        m->l[i].wq = ld_weight(st, "model.layers.%d.self_attn.q_proj.weight", i);
        m->l[i].wk = ld_weight(st, "model.layers.%d.self_attn.k_proj.weight", i);
        m->l[i].wv = ld_weight(st, "model.layers.%d.self_attn.v_proj.weight", i);
        m->l[i].wo = ld_weight(st, "model.layers.%d.self_attn.o_proj.weight", i);
        m->l[i].post_norm = ld_weight(st, "model.layers.%d.post_attention_layernorm.weight", i);
        m->l[i].gate = ld_weight(st, "model.layers.%d.mlp.gate_proj.weight", i);
        m->l[i].up = ld_weight(st, "model.layers.%d.mlp.up_proj.weight", i);
        m->l[i].down = ld_weight(st, "model.layers.%d.mlp.down_proj.weight", i);
        m->l[i].k_cache = genie_zeros(ctx, GENIE_F32, 3, cache);
        m->l[i].v_cache = genie_zeros(ctx, GENIE_F32, 3, cache);
    }
    genie_safetensors_close(st);
    return genie_status(ctx) == GENIE_OK;
}
static void ld_free(ld_model *m) { free(m->mask); m->mask = NULL; }

/* One decode step: token tok at position t (0 <= t < max_seq; the caches hold 0 .. t-1);
   the logits [vocab] into logits. Returns the context's status. */
static genie_result ld_step(genie_ctx *ctx, ld_model *m, int64_t tok, int64_t t, float *logits) {
    const int64_t D = m->d, hd = m->d / m->n_heads, one = 1;
    int64_t qs[3], kvs[3], flat[2], ms[2];
    genie_tensor *x, *pos, *tk, *mask;
    genie_result r;
    int64_t j;
    int i;
    qs[0] = 1, qs[1] = m->n_heads, qs[2] = hd;
    kvs[0] = 1, kvs[1] = m->n_kv, kvs[2] = hd;
    flat[0] = 1, flat[1] = D;
    ms[0] = 1, ms[1] = m->max_seq;
    for (j = 0; j < m->max_seq; j++) m->mask[j] = j <= t ? 0.0f : -INFINITY;
    genie_pool_push(ctx);
    tk = genie_from_data(ctx, GENIE_I64, 1, &one, &tok);
    pos = genie_from_data(ctx, GENIE_I64, 1, &one, &t);
    mask = genie_from_data(ctx, GENIE_F32, 2, ms, m->mask);
    genie_scope_push(ctx, "model");
    x = genie_embedding(ctx, m->embed, tk); /* [1, D] */
    for (i = 0; i < m->n_layers; i++) {
        char name[32];
        genie_tensor *h, *q, *k, *v, *a, *g;
        snprintf(name, sizeof name, "layers.%d", i);
        genie_scope_push(ctx, name);
        h = genie_rms_norm(ctx, x, 1, &D, m->l[i].in_norm, m->eps);
        q = genie_transpose(ctx, genie_view(ctx, genie_linear(ctx, h, m->l[i].wq, NULL), 3, qs), 0, 1);
        k = genie_transpose(ctx, genie_view(ctx, genie_linear(ctx, h, m->l[i].wk, NULL), 3, kvs), 0, 1);
        v = genie_transpose(ctx, genie_view(ctx, genie_linear(ctx, h, m->l[i].wv, NULL), 3, kvs), 0, 1);
        q = genie_rope(ctx, q, pos, 0, m->theta, 0);
        k = genie_rope(ctx, k, pos, 0, m->theta, 0);
        genie_index_copy_(ctx, m->l[i].k_cache, 1, pos, k);
        genie_index_copy_(ctx, m->l[i].v_cache, 1, pos, v);
        a = genie_scaled_dot_product_attention(ctx, q, m->l[i].k_cache, m->l[i].v_cache, mask, 0, NAN);
        a = genie_linear(ctx, genie_reshape(ctx, genie_transpose(ctx, a, 0, 1), 2, flat), m->l[i].wo, NULL);
        x = genie_add(ctx, x, a);
        h = genie_rms_norm(ctx, x, 1, &D, m->l[i].post_norm, m->eps);
        g = genie_mul(ctx, genie_silu(ctx, genie_linear(ctx, h, m->l[i].gate, NULL)), genie_linear(ctx, h, m->l[i].up, NULL));
        x = genie_add(ctx, x, genie_linear(ctx, g, m->l[i].down, NULL));
        genie_scope_pop(ctx);
    }
    x = genie_rms_norm(ctx, x, 1, &D, m->norm, m->eps);
    genie_scope_pop(ctx);
    r = genie_read(ctx, genie_linear(ctx, x, m->head, NULL), GENIE_F32, logits, (size_t)m->vocab * sizeof(float));
    genie_pool_pop(ctx);
    return r;
}
/* The greedy choice (the first of equal maxima). */
static int64_t ld_argmax(const float *v, int64_t n) {
    int64_t j, best = 0;
    for (j = 1; j < n; j++)
        if (v[j] > v[best]) best = j;
    return best;
}
#endif
