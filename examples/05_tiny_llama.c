/* 05_tiny_llama.c - a language model end to end: load a Llama-style checkpoint,
   prefill a prompt, decode with a KV cache, print the text.

   The checkpoint (examples/data/tiny_llama.safetensors, 0.4 MB) is a tiny
   character-level Llama (2 layers, d_model 64, 4 query heads sharing 2 key/value
   heads, RMSNorm, rotary embeddings, SwiGLU MLP) that tools/train_tiny_llama.py
   trained for a few minutes with PyTorch on the GPL-3 text Debian ships. Its
   "__metadata__" holds the configuration, the vocabulary (one character per
   token), a prompt and PyTorch's greedy continuation: this program checks that
   it produces exactly the same tokens, and exits 1 if not.

   What it shows:
     - genie_safetensors_open / _get: weights read from the mapped file, no copy;
     - genie_set_phase: the prompt runs under phase "prefill", each new token
       under "decode", and the statistics tell the two apart;
     - a preallocated KV cache [Hkv, max_seq, head_dim] per layer, written in
       place at the new positions with genie_index_copy_ (lazily: a new version
       of the cache, computed with the step that reads it);
     - genie_pool_push / genie_pool_pop around each decode step, so the step's
       temporaries are released and memory stays flat however long we decode;
     - genie_role: genie recognises attention, MLP, normalization, embedding and
       residual adds from the graph itself (genie_scope_push only names modules),
       colours them in the DOT dump (tiny_llama.dot) and counts work by role.

   Run from build/ (make examples; cd build; ./05_tiny_llama), or pass the path
   of the checkpoint as the first argument. Render the graph with
   `dot -Tsvg tiny_llama.dot -o tiny_llama.svg`. */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MAX_LAYERS 8

typedef struct model {
    int d, n_layers, n_heads, n_kv, d_ff, vocab, max_seq;
    double theta, eps;
    const char *chars;               /* token id -> character */
    genie_tensor *embed, *norm, *head;
    struct {
        genie_tensor *in_norm, *wq, *wk, *wv, *wo, *post_norm, *gate, *up, *down;
        genie_tensor *k_cache, *v_cache; /* [n_kv, max_seq, head_dim], written in place */
    } l[MAX_LAYERS];
} model;

static int meta_int(genie_safetensors *st, const char *key) {
    const char *v = genie_safetensors_metadata(st, key);
    return v ? atoi(v) : 0;
}
static genie_tensor *weight(genie_safetensors *st, const char *fmt, int layer) {
    char name[128];
    snprintf(name, sizeof name, fmt, layer);
    return genie_safetensors_get(st, name); /* NULL (and a sticky error) if missing */
}

/* Load the configuration and the weights; allocate the caches. The vocabulary
   string is copied because it belongs to the file, which we close. */
static int load(genie_ctx *ctx, const char *path, model *m, char **vocab, char **prompt, int **expect, int *nexpect) {
    genie_safetensors *st = NULL;
    const char *s;
    int i;
    if (genie_safetensors_open(ctx, path, &st) != GENIE_OK) return 0;
    m->d = meta_int(st, "d_model");
    m->n_layers = meta_int(st, "n_layers");
    m->n_heads = meta_int(st, "n_heads");
    m->n_kv = meta_int(st, "n_kv_heads");
    m->d_ff = meta_int(st, "d_ff");
    m->vocab = meta_int(st, "vocab_size");
    m->max_seq = meta_int(st, "max_seq");
    m->theta = atof(genie_safetensors_metadata(st, "rope_theta") ? genie_safetensors_metadata(st, "rope_theta") : "0");
    m->eps = atof(genie_safetensors_metadata(st, "norm_eps") ? genie_safetensors_metadata(st, "norm_eps") : "0");
    if (m->n_layers < 1 || m->n_layers > MAX_LAYERS || m->n_heads < 1 || m->n_kv < 1 || m->d % m->n_heads ||
        m->n_heads % m->n_kv || !genie_safetensors_metadata(st, "vocab") || !genie_safetensors_metadata(st, "prompt") ||
        !genie_safetensors_metadata(st, "greedy_tokens")) {
        fprintf(stderr, "%s: not a tiny llama checkpoint\n", path);
        genie_safetensors_close(st);
        return 0;
    }
    *vocab = (char *)malloc(strlen(genie_safetensors_metadata(st, "vocab")) + 1);
    *prompt = (char *)malloc(strlen(genie_safetensors_metadata(st, "prompt")) + 1);
    *expect = (int *)malloc(sizeof(int) * (strlen(genie_safetensors_metadata(st, "greedy_tokens")) + 1));
    if (!*vocab || !*prompt || !*expect) { genie_safetensors_close(st); return 0; }
    strcpy(*vocab, genie_safetensors_metadata(st, "vocab"));
    strcpy(*prompt, genie_safetensors_metadata(st, "prompt"));
    for (*nexpect = 0, s = genie_safetensors_metadata(st, "greedy_tokens"); *s;) {
        char *end;
        long t = strtol(s, &end, 10);
        if (end == s) break;
        (*expect)[(*nexpect)++] = (int)t;
        s = end;
    }
    m->chars = *vocab;
    m->embed = weight(st, "model.embed_tokens.weight", 0);
    m->norm = weight(st, "model.norm.weight", 0);
    m->head = weight(st, "lm_head.weight", 0);
    for (i = 0; i < m->n_layers; i++) {
        int64_t cache[3];
        cache[0] = m->n_kv, cache[1] = m->max_seq, cache[2] = m->d / m->n_heads;
        m->l[i].in_norm = weight(st, "model.layers.%d.input_layernorm.weight", i);
        m->l[i].wq = weight(st, "model.layers.%d.self_attn.q_proj.weight", i);
        m->l[i].wk = weight(st, "model.layers.%d.self_attn.k_proj.weight", i);
        m->l[i].wv = weight(st, "model.layers.%d.self_attn.v_proj.weight", i);
        m->l[i].wo = weight(st, "model.layers.%d.self_attn.o_proj.weight", i);
        m->l[i].post_norm = weight(st, "model.layers.%d.post_attention_layernorm.weight", i);
        m->l[i].gate = weight(st, "model.layers.%d.mlp.gate_proj.weight", i);
        m->l[i].up = weight(st, "model.layers.%d.mlp.up_proj.weight", i);
        m->l[i].down = weight(st, "model.layers.%d.mlp.down_proj.weight", i);
        m->l[i].k_cache = genie_zeros(ctx, GENIE_F32, 3, cache);
        m->l[i].v_cache = genie_zeros(ctx, GENIE_F32, 3, cache);
    }
    genie_safetensors_close(st); /* the tensors keep the mapping alive */
    return genie_status(ctx) == GENIE_OK;
}

/* Tensors of one step worth checking the roles of (they belong to the step's pool). */
typedef struct probes { genie_tensor *emb, *norm, *attn, *mlp, *resid; } probes;

/* One forward step: the T tokens `ids` at positions t0 .. t0+T-1 (the cache holds
   the positions before t0). Returns the logits of the last position [1, vocab]. */
static genie_tensor *forward(genie_ctx *ctx, model *m, const int64_t *ids, int64_t t0, int64_t T, probes *pr) {
    const int64_t D = m->d, hd = m->d / m->n_heads, H = m->n_heads, Hkv = m->n_kv;
    int64_t qs[3], kvs[3], flat[2];
    genie_tensor *x, *pos, *tok;
    int i;
    qs[0] = T, qs[1] = H, qs[2] = hd;
    kvs[0] = T, kvs[1] = Hkv, kvs[2] = hd;
    flat[0] = T, flat[1] = D;
    tok = genie_from_data(ctx, GENIE_I64, 1, &T, ids);
    pos = genie_arange(ctx, GENIE_I64, (double)t0, (double)(t0 + T), 1); /* positions of these tokens */
    genie_scope_push(ctx, "model");
    x = genie_embedding(ctx, m->embed, tok); /* [T, D] */
    pr->emb = x;
    for (i = 0; i < m->n_layers; i++) {
        char name[32];
        genie_tensor *h, *q, *k, *v, *a, *g;
        snprintf(name, sizeof name, "layers.%d", i);
        genie_scope_push(ctx, name);

        /* attention: q, k, v as [heads, T, head_dim]; rotary embedding at the positions */
        h = genie_rms_norm(ctx, x, 1, &D, m->l[i].in_norm, m->eps);
        q = genie_transpose(ctx, genie_view(ctx, genie_linear(ctx, h, m->l[i].wq, NULL), 3, qs), 0, 1);
        k = genie_transpose(ctx, genie_view(ctx, genie_linear(ctx, h, m->l[i].wk, NULL), 3, kvs), 0, 1);
        v = genie_transpose(ctx, genie_view(ctx, genie_linear(ctx, h, m->l[i].wv, NULL), 3, kvs), 0, 1);
        q = genie_rope(ctx, q, pos, 0, m->theta, 0); /* pairs (i, i + hd/2), as Hugging Face */
        k = genie_rope(ctx, k, pos, 0, m->theta, 0);
        /* the cache: rows t0 .. t0+T-1 written in place, then attention over rows 0 .. t0+T-1 */
        genie_index_copy_(ctx, m->l[i].k_cache, 1, pos, k);
        genie_index_copy_(ctx, m->l[i].v_cache, 1, pos, v);
        k = genie_narrow(ctx, m->l[i].k_cache, 1, 0, t0 + T);
        v = genie_narrow(ctx, m->l[i].v_cache, 1, 0, t0 + T);
        /* grouped-query attention: 4 query heads read 2 key/value heads; the prompt is
           causal (top-left), a single new token sees the whole cache */
        a = genie_scaled_dot_product_attention(ctx, q, k, v, NULL, T > 1, NAN);
        a = genie_reshape(ctx, genie_transpose(ctx, a, 0, 1), 2, flat); /* [T, D] */
        a = genie_linear(ctx, a, m->l[i].wo, NULL);
        x = genie_add(ctx, x, a);
        if (i == 0) pr->norm = h, pr->attn = a, pr->resid = x;

        /* SwiGLU MLP */
        h = genie_rms_norm(ctx, x, 1, &D, m->l[i].post_norm, m->eps);
        g = genie_mul(ctx, genie_silu(ctx, genie_linear(ctx, h, m->l[i].gate, NULL)), genie_linear(ctx, h, m->l[i].up, NULL));
        g = genie_linear(ctx, g, m->l[i].down, NULL);
        x = genie_add(ctx, x, g);
        if (i == 0) pr->mlp = g;
        genie_scope_pop(ctx);
    }
    x = genie_narrow(ctx, x, 0, T - 1, 1); /* only the last position predicts the next token */
    x = genie_rms_norm(ctx, x, 1, &D, m->norm, m->eps);
    genie_scope_pop(ctx);
    return genie_linear(ctx, x, m->head, NULL); /* [1, vocab] */
}

static int check_role(genie_tensor *t, const char *want, const char *what) {
    if (strcmp(genie_role(t), want) == 0) return 1;
    printf("role of %s: \"%s\", expected \"%s\"\n", what, genie_role(t), want);
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../examples/data/tiny_llama.safetensors";
    static const char *const roles[] = {"embedding", "norm", "attention", "mlp", "residual", ""};
    static const char *const phases[] = {"prefill", "decode"};
    genie_ctx *ctx = genie_ctx_create(NULL);
    model m;
    char *vocab = NULL, *prompt = NULL;
    int *expect = NULL, nexpect = 0, n, i, ok = 1, p, r;
    int64_t *ids, tok;
    probes pr;
    memset(&m, 0, sizeof m);
    if (!load(ctx, path, &m, &vocab, &prompt, &expect, &nexpect)) {
        int again = argc <= 1; /* the default path: perhaps run from the repository root */
        if (again) {
            genie_clear_error(ctx);
            free(vocab), free(prompt), free(expect);
            vocab = prompt = NULL, expect = NULL;
        }
        if (!again || !load(ctx, "examples/data/tiny_llama.safetensors", &m, &vocab, &prompt, &expect, &nexpect)) {
            fprintf(stderr, "cannot load the checkpoint: %s\n", genie_status(ctx) ? genie_last_error(ctx) : "not a tiny llama file");
            free(vocab), free(prompt), free(expect);
            genie_ctx_destroy(ctx);
            return 1;
        }
    }
    n = (int)strlen(prompt);
    if (n < 1 || n + nexpect > m.max_seq) {
        fprintf(stderr, "the prompt (%d) and its continuation (%d) do not fit max_seq (%d)\n", n, nexpect, m.max_seq);
        free(vocab), free(prompt), free(expect);
        genie_ctx_destroy(ctx);
        return 1;
    }
    ids = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + nexpect));
    for (i = 0; i < n; i++) { /* characters -> token ids */
        const char *c = strchr(m.chars, prompt[i]);
        ids[i] = c ? (int64_t)(c - m.chars) : 0;
    }
    printf("tiny llama: %d layers, d_model %d, %d heads (%d key/value), vocabulary %d\n", m.n_layers, m.d, m.n_heads,
           m.n_kv, m.vocab);
    printf("%s", prompt);
    fflush(stdout);

    /* prefill: the whole prompt in one step; dump its graph before it runs */
    genie_set_phase(ctx, "prefill");
    genie_pool_push(ctx);
    {
        genie_tensor *logits = forward(ctx, &m, ids, 0, n, &pr), *next = genie_argmax(ctx, logits, -1, 0);
        FILE *f = fopen("tiny_llama.dot", "w");
        if (f) { genie_dump_dot(ctx, 1, &next, f); fclose(f); }
        ok &= check_role(pr.emb, "embedding", "the embedding lookup");
        ok &= check_role(pr.norm, "norm", "rms_norm");
        ok &= check_role(pr.attn, "attention", "the attention block's output projection");
        ok &= check_role(pr.mlp, "mlp", "the MLP's down projection");
        ok &= check_role(pr.resid, "residual", "x + attention(x)");
        genie_item_i64(ctx, next, &tok);
    }
    genie_pool_pop(ctx);

    /* decode: one token per step, each step in its own pool */
    genie_set_phase(ctx, "decode");
    for (i = 0; i < nexpect && genie_status(ctx) == GENIE_OK; i++) {
        ids[n + i] = tok;
        putchar(tok >= 0 && tok < (int64_t)strlen(m.chars) ? m.chars[tok] : '?');
        fflush(stdout);
        if (tok != expect[i]) ok = 0;
        if (i + 1 == nexpect) break;
        genie_pool_push(ctx);
        genie_item_i64(ctx, genie_argmax(ctx, forward(ctx, &m, &ids[n + i], n + i, 1, &pr), -1, 0), &tok);
        genie_pool_pop(ctx);
    }
    printf("\n");
    if (genie_status(ctx) != GENIE_OK) { printf("error: %s\n", genie_last_error(ctx)); ok = 0; }
    printf("%d tokens, %s PyTorch's greedy tokens\n", nexpect, ok ? "equal to" : "DIFFERENT FROM");
    { /* each decode step writes the caches in place, in their old buffers: never a copy of a cache */
        genie_stats s = genie_get_stats(ctx);
        printf("KV cache writes: %llu in place, %llu copied; %llu values left lazy (deferred), %llu computed later\n",
               (unsigned long long)s.inplace_reused, (unsigned long long)s.inplace_copied,
               (unsigned long long)s.nodes_deferred, (unsigned long long)s.nodes_recomputed);
        if (s.inplace_copied != 0) ok = 0;
    }

    /* what the work was, by phase and role */
    printf("\n%-8s %-10s %7s %12s %12s %10s\n", "phase", "role", "nodes", "flops", "bytes", "time ms");
    for (p = 0; p < 2; p++)
        for (r = 0; r < 6; r++) {
            genie_work w = genie_work_of(ctx, phases[p], roles[r]);
            if (w.nodes)
                printf("%-8s %-10s %7llu %12llu %12llu %10.2f\n", phases[p], *roles[r] ? roles[r] : "(other)",
                       (unsigned long long)w.nodes, (unsigned long long)w.flops, (unsigned long long)w.bytes, (double)w.ns / 1e6);
        }
    printf("graph of the prefill step, coloured by role: tiny_llama.dot\n");
    free(ids);
    free(vocab);
    free(prompt);
    free(expect);
    genie_ctx_destroy(ctx);
    printf("%s\n", ok ? "ok" : "FAILED");
    return !ok;
}
