/* llm.c - prefill and decode tokens/s of a GPT-2-small-sized model (d_model 768,
   12 layers, 12 heads, MLP 3072, vocabulary 50257, tied embeddings, random
   weights from llm_weights.h), a 128-token prompt then 64 greedy decode steps
   with a preallocated KV cache, on 1 and 2 threads, beside PyTorch eager with
   the same math (bench/llm_torch.py, whose lines are passed as a file) and
   beside the bandwidth bound of decode: weight bytes read per token / copy
   bandwidth measured in the same run (STREAM's copy: bytes read + written), and beside
   the read-only bandwidth of the same threads (what a step that streams its weights can
   reach: one core here reads about 70% of what memcpy moves).
   Prefill computes the logits of the last position only, in both.
     make bench-llm            (runs the peer with OPENBLAS_NUM_THREADS pinned)
     build/bench_llm [peer.txt] [reps] */
#define _POSIX_C_SOURCE 200809L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "llm_weights.h"
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "copy_bw.h"
#include "bench_util.h"

typedef struct layer {
    genie_tensor *ln1w, *ln1b, *wqkv, *bqkv, *wo, *bo, *ln2w, *ln2b, *wfc, *bfc, *wpr, *bpr;
    genie_tensor *K, *V; /* caches [H, CTX, Dh] */
} layer;
typedef struct model {
    genie_ctx *ctx;
    genie_tensor *wte, *wpe, *lnfw, *lnfb;
    layer l[LLM_L];
    uint64_t weight_bytes; /* read per decode token: every matrix, bias and norm */
} model;

static void free_blob(void *data, void *user) { (void)user; free(data); }
static genie_tensor *param(model *m, int nd, int64_t a, int64_t b, uint64_t seed, double scale, double constant) {
    int64_t shape[2], n = nd == 1 ? a : a * b, i;
    float *w = (float *)malloc((size_t)n * sizeof(float));
    shape[0] = a;
    shape[1] = b;
    if (!w) { fprintf(stderr, "out of memory\n"); exit(1); }
    if (seed) llm_fill(w, n, seed, scale);
    else for (i = 0; i < n; i++) w[i] = (float)constant;
    m->weight_bytes += (uint64_t)n * 4;
    return genie_from_blob(m->ctx, GENIE_F32, nd, shape, NULL, w, free_blob, NULL);
}
static void model_init(model *m, int threads) {
    genie_ctx_desc d;
    int64_t cs[3] = {LLM_H, LLM_PROMPT + LLM_DECODE, LLM_D / LLM_H};
    int l;
    memset(&d, 0, sizeof d);
    d.n_threads = threads;
    memset(m, 0, sizeof *m);
    m->ctx = genie_ctx_create(&d);
    m->wte = param(m, 2, LLM_V, LLM_D, 1, 0.1, 0);
    m->wpe = param(m, 2, LLM_CTX, LLM_D, 2, 0.1, 0);
    m->weight_bytes = (uint64_t)LLM_V * LLM_D * 4; /* the head reads wte; one row of each embedding is noise */
    for (l = 0; l < LLM_L; l++) {
        layer *y = &m->l[l];
        uint64_t s = 100 + 10 * (uint64_t)l;
        y->ln1w = param(m, 1, LLM_D, 0, 0, 0, 1);
        y->ln1b = param(m, 1, LLM_D, 0, 0, 0, 0);
        y->wqkv = param(m, 2, 3 * LLM_D, LLM_D, s + 0, sqrt(3.0 / LLM_D), 0);
        y->bqkv = param(m, 1, 3 * LLM_D, 0, s + 1, 0.02, 0);
        y->wo = param(m, 2, LLM_D, LLM_D, s + 2, sqrt(3.0 / LLM_D), 0);
        y->bo = param(m, 1, LLM_D, 0, s + 3, 0.02, 0);
        y->ln2w = param(m, 1, LLM_D, 0, 0, 0, 1);
        y->ln2b = param(m, 1, LLM_D, 0, 0, 0, 0);
        y->wfc = param(m, 2, LLM_F, LLM_D, s + 4, sqrt(3.0 / LLM_D), 0);
        y->bfc = param(m, 1, LLM_F, 0, s + 5, 0.02, 0);
        y->wpr = param(m, 2, LLM_D, LLM_F, s + 6, sqrt(3.0 / LLM_F), 0);
        y->bpr = param(m, 1, LLM_D, 0, s + 7, 0.02, 0);
        y->K = genie_zeros(m->ctx, GENIE_F32, 3, cs);
        y->V = genie_zeros(m->ctx, GENIE_F32, 3, cs);
        genie_realize(m->ctx, 1, &y->K);
        genie_realize(m->ctx, 1, &y->V);
    }
    m->lnfw = param(m, 1, LLM_D, 0, 0, 0, 1);
    m->lnfb = param(m, 1, LLM_D, 0, 0, 0, 0);
}

/* x [T, D] at positions t0 .. t0+T-1 through every layer; writes the caches. */
static genie_tensor *blocks(model *m, genie_tensor *x, int64_t t0, int64_t T) {
    genie_ctx *c = m->ctx;
    const int64_t D = LLM_D, H = LLM_H, Dh = LLM_D / LLM_H;
    int64_t hs[3] = {T, H, Dh}, flat[2] = {T, D}, last = D, ms[2] = {T, T};
    genie_tensor *mask = NULL;
    int l;
    if (T > 1) mask = genie_triu(c, genie_full(c, GENIE_F32, 2, ms, -INFINITY), 1);
    for (l = 0; l < LLM_L; l++) {
        layer *y = &m->l[l];
        genie_tensor *h, *qkv, *q, *k, *v, *s, *a;
        h = genie_layer_norm(c, x, 1, &last, y->ln1w, y->ln1b, 1e-5);
        qkv = genie_linear(c, h, y->wqkv, y->bqkv);                                  /* [T, 3D] */
        q = genie_transpose(c, genie_view(c, genie_narrow(c, qkv, 1, 0, D), 3, hs), 0, 1); /* [H, T, Dh] */
        k = genie_transpose(c, genie_view(c, genie_narrow(c, qkv, 1, D, D), 3, hs), 0, 1);
        v = genie_transpose(c, genie_view(c, genie_narrow(c, qkv, 1, 2 * D, D), 3, hs), 0, 1);
        genie_copy_(c, genie_narrow(c, y->K, 1, t0, T), k); /* the cache at positions t0 .. */
        genie_copy_(c, genie_narrow(c, y->V, 1, t0, T), v);
        k = genie_narrow(c, y->K, 1, 0, t0 + T);
        v = genie_narrow(c, y->V, 1, 0, t0 + T);
        s = genie_mul_scalar(c, genie_matmul(c, q, genie_transpose(c, k, 1, 2)), 1.0 / sqrt((double)Dh));
        if (mask) s = genie_add(c, s, mask); /* t0 == 0 when T > 1 */
        a = genie_matmul(c, genie_softmax(c, s, -1), v);                             /* [H, T, Dh] */
        a = genie_reshape(c, genie_transpose(c, a, 0, 1), 2, flat);
        x = genie_add(c, x, genie_linear(c, a, y->wo, y->bo));
        h = genie_layer_norm(c, x, 1, &last, y->ln2w, y->ln2b, 1e-5);
        x = genie_add(c, x, genie_linear(c, genie_gelu_tanh(c, genie_linear(c, h, y->wfc, y->bfc)), y->wpr, y->bpr));
    }
    return x;
}
/* The next token after positions t0 .. t0+T-1 holding ids. */
static int64_t step(model *m, const int64_t *ids, int64_t t0, int64_t T) {
    genie_ctx *c = m->ctx;
    int64_t last = LLM_D, tok = -1;
    genie_tensor *idt, *x, *logits;
    genie_pool_push(c);
    genie_set_phase(c, T > 1 ? "prefill" : "decode");
    idt = genie_from_data(c, GENIE_I64, 1, &T, ids);
    x = genie_add(c, genie_embedding(c, m->wte, idt), genie_narrow(c, m->wpe, 0, t0, T));
    x = blocks(m, x, t0, T);
    x = genie_narrow(c, x, 0, T - 1, 1); /* the last position only */
    logits = genie_linear(c, genie_layer_norm(c, x, 1, &last, m->lnfw, m->lnfb, 1e-5), m->wte, NULL);
    if (genie_item_i64(c, genie_argmax(c, logits, -1, 0), &tok) != GENIE_OK)
        fprintf(stderr, "genie: %s\n", genie_last_error(c));
    genie_pool_pop(c);
    return tok;
}

typedef struct peer { int ok; double prefill, decode; char split[32]; int64_t toks[LLM_DECODE + 1]; int ntok; } peer;
/* Lines of llm_torch.py: "torch threads=T split=AxB prefill=X decode=Y tokens=a,b,...";
   per thread count the best split of each measure. */
static void read_peer(const char *path, peer *p1, peer *p2) {
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[4096];
    memset(p1, 0, sizeof *p1);
    memset(p2, 0, sizeof *p2);
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        int th;
        double pf, dc;
        char split[32], *tk;
        peer *p;
        if (sscanf(line, "torch threads=%d split=%31s prefill=%lf decode=%lf", &th, split, &pf, &dc) != 4) continue;
        p = th == 1 ? p1 : p2;
        if (pf > p->prefill) p->prefill = pf;
        if (dc > p->decode) { p->decode = dc; strcpy(p->split, split); }
        if ((tk = strstr(line, "tokens=")) != NULL && !p->ok) {
            char *s = tk + 7;
            p->ntok = 0;
            while (*s && *s != '\n' && p->ntok < LLM_DECODE + 1) {
                p->toks[p->ntok++] = strtoll(s, &s, 10);
                if (*s == ',') s++;
            }
        }
        p->ok = 1;
    }
    fclose(f);
}

int main(int argc, char **argv) {
    const char *peer_path = argc > 1 ? argv[1] : NULL;
    int reps = argc > 2 ? atoi(argv[2]) : 2, th, r, i;
    int64_t prompt[LLM_PROMPT], toks[LLM_DECODE + 1];
    peer pe[2];
    for (i = 0; i < LLM_PROMPT; i++) prompt[i] = (int64_t)(((uint64_t)i * 7919u + 13u) % LLM_V);
    read_peer(peer_path, &pe[0], &pe[1]);
    printf("GPT-2-small-sized decoder: d 768, 12 layers, 12 heads, MLP 3072, vocab %d, f32, random weights;\n"
           "prompt %d tokens (prefill: logits of the last position), then %d greedy decode steps (KV cache)\n",
           LLM_V, LLM_PROMPT, LLM_DECODE);
    printf("%-8s %-16s %12s %12s %9s %12s %12s %9s %10s %9s %s\n", "threads", "", "prefill tok/s", "torch", "ratio",
           "decode tok/s", "torch", "ratio", "bound", "of bound", "tokens = torch");
    for (th = 1; th <= 2; th++) {
        model m;
        double bw = copy_bw(th), rbw = read_bw(th), bestp = 0, bestd = 0, bound;
        int same = -1;
        model_init(&m, th);
        for (r = 0; r < reps; r++) {
            double t = bench_now(), p, d;
            int64_t ids[1];
            toks[0] = step(&m, prompt, 0, LLM_PROMPT);
            p = LLM_PROMPT / (bench_now() - t);
            t = bench_now();
            for (i = 0; i < LLM_DECODE; i++) {
                ids[0] = toks[i];
                toks[i + 1] = step(&m, ids, LLM_PROMPT + i, 1);
            }
            d = LLM_DECODE / (bench_now() - t);
            if (p > bestp) bestp = p;
            if (d > bestd) bestd = d;
        }
        bound = bw / (double)m.weight_bytes;
        if (pe[th - 1].ok && pe[th - 1].ntok > 0) {
            same = 0;
            for (i = 0; i < pe[th - 1].ntok && i < LLM_DECODE + 1; i++) same += pe[th - 1].toks[i] == toks[i];
        }
        printf("%-8d %-16s %12.1f %12.1f %8.2fx %12.2f %12.2f %8.2fx %10.2f %8.0f%% ", th, "genie", bestp,
               pe[th - 1].prefill, pe[th - 1].prefill > 0 ? bestp / pe[th - 1].prefill : 0.0, bestd, pe[th - 1].decode,
               pe[th - 1].decode > 0 ? bestd / pe[th - 1].decode : 0.0, bound, 100.0 * bestd / bound);
        if (same < 0) printf("(no peer)\n");
        else printf("%d of %d%s\n", same, pe[th - 1].ntok, same == pe[th - 1].ntok ? " (all)" : "");
        if (th == 2 && pe[1].split[0]) printf("         (torch on 2 cores: best split torch threads x OpenBLAS threads = %s)\n", pe[1].split);
        printf("         copy bandwidth %.1f GB/s on %d thread%s, weights read per token %.1f MB\n", bw / 1e9, th,
               th > 1 ? "s" : "", (double)m.weight_bytes / 1e6);
        printf("         read-only bandwidth %.1f GB/s (%.0f%% of copy): decode streams its weights at %.1f GB/s, %.0f%% of it\n",
               rbw / 1e9, 100.0 * rbw / bw, bestd * (double)m.weight_bytes / 1e9, 100.0 * bestd * (double)m.weight_bytes / rbw);
        { /* the KV cache is written in place each step (its old buffer reused), never copied */
            genie_stats st = genie_get_stats(m.ctx);
            printf("         KV cache writes: %llu in place, %llu copied%s\n", (unsigned long long)st.inplace_reused,
                   (unsigned long long)st.inplace_copied, st.inplace_copied ? " (a copy of a cache: slower than it should be)" : "");
        }
        { /* where the time went: kernel time by role, summed over the repetitions */
            static const char *const roles[] = {"attention", "mlp", "norm", "embedding", "residual", ""};
            static const char *const phases[] = {"prefill", "decode"};
            int k, ph;
            for (ph = 0; ph < 2; ph++) {
                genie_work all = genie_work_of(m.ctx, phases[ph], NULL);
                printf("         %s kernel time by role (%d reps, %.0f ms, %.1f GFLOP/s):", phases[ph], reps,
                       (double)all.ns / 1e6, all.ns ? (double)all.flops / (double)all.ns : 0.0);
                for (k = 0; k < 6; k++) {
                    genie_work w = genie_work_of(m.ctx, phases[ph], roles[k]);
                    printf(" %s %.0f%%", *roles[k] ? roles[k] : "other", all.ns ? 100.0 * (double)w.ns / (double)all.ns : 0.0);
                }
                printf("\n");
            }
        }
        genie_ctx_destroy(m.ctx);
    }
    return 0;
}
