/* gguf_llm.c - prefill and decode tokens/s of one Llama-architecture GGUF model in F32, BF16,
   Q8_0 and Q4_0 (the same random weights: tools/make_llama_gguf.py --size bench writes
   build/gguf_llm/bench-TYPE.gguf), on 1 and 2 threads, with examples/06_gguf_llm.c's model
   code; beside llama.cpp's llama-bench on the same file, run right after each row (when its
   path is given: LLAMA_BENCH for make) and beside the decode bound: the weight bytes a token reads over the copy bandwidth
   measured in the same run (memcpy of 512 MiB on as many threads, bytes read + written), and
   the same over the read bandwidth (512 MiB read on as many threads: what a step whose weights
   no cache holds can stream; a model whose weights fit the last-level cache can beat it).
   Prefill: 128 tokens in one step (logits of the last position). Decode: 32 steps after it,
   each a token at the next position (llama-bench's tg 32 starts from an empty cache; at these
   lengths attention is a small part of a step). Best of REPS runs. "products": the step's
   products alone (lm_matvecs: every weight a step reads times one row) over a decode step. With GGUF_LLM_TORCH set (the
   command that runs bench/gguf_llm_torch.py; make sets it when the venv has torch, transformers
   and gguf) each bf16 row is followed by PyTorch's bf16 prefill of the same file, run then.
     make bench-gguf-llm   (LLAMA_BENCH=/path/to/llama-bench)
     build/bench_gguf_llm DIR [reps] [path/to/llama-bench|-] [types, e.g. q8_0,bf16|-] [size: bench|big]
   (the files DIR/SIZE-TYPE.gguf; make bench-gguf-llm-big runs the ~540M-parameter Q8_0 and Q4_0
   files, whose weights stream from memory) */
#define _POSIX_C_SOURCE 200809L
#define GGUF_LLM_NO_MAIN
#define GENIE_TEST_HOOKS /* GENIE_NO_AVXVNNI=1: the avx2 path's int8 dots on vpmaddubsw (the A/B beside AVX-VNNI) */
#include "../examples/06_gguf_llm.c"
#include "copy_bw.h"

#define PROMPT 128
#define DECODE 32

/* The i-th field of a CSV line (fields in double quotes may hold commas), into out */
static void csv_field(const char *line, int i, char *out, size_t n) {
    int f = 0, q = 0;
    size_t k = 0;
    for (; *line && *line != '\n'; line++) {
        if (*line == '"') q = !q;
        else if (*line == ',' && !q) f++;
        else if (f == i && k + 1 < n) out[k++] = *line;
    }
    out[k] = 0;
}
/* llama-bench's prefill (pp PROMPT) and decode (tg DECODE) tokens/s of path on threads, run now
   (beside genie's row, so both meet the same load); 0 where it gives none */
static void peer(const char *llama_bench, const char *path, int threads, int reps, double *pp, double *tg) {
    char cmd[2048], head[4096], line[4096], v[64];
    int i, c_prompt = -1, c_gen = -1, c_ts = -1;
    FILE *f;
    *pp = *tg = 0;
    if (!llama_bench) return;
    snprintf(cmd, sizeof cmd, "%.900s -m %.900s -p %d -n %d -t %d -r %d -o csv 2>/dev/null", llama_bench, path, PROMPT, DECODE,
             threads, reps);
    if (!(f = popen(cmd, "r"))) return;
    if (fgets(head, sizeof head, f))
        for (i = 0; i < 64; i++) {
            csv_field(head, i, v, sizeof v);
            if (strcmp(v, "n_prompt") == 0) c_prompt = i;
            if (strcmp(v, "n_gen") == 0) c_gen = i;
            if (strcmp(v, "avg_ts") == 0) c_ts = i;
        }
    while (c_ts >= 0 && c_prompt >= 0 && c_gen >= 0 && fgets(line, sizeof line, f)) {
        int np, ng;
        double ts;
        csv_field(line, c_prompt, v, sizeof v), np = atoi(v);
        csv_field(line, c_gen, v, sizeof v), ng = atoi(v);
        csv_field(line, c_ts, v, sizeof v), ts = atof(v);
        if (np > 0 && ng == 0) *pp = ts;
        if (ng > 0 && np == 0) *tg = ts;
    }
    pclose(f);
}

/* PyTorch's bf16 prefill tokens/s of path on threads (bench/gguf_llm_torch.py, run now through
   the command torch_cmd, e.g. ".venv/bin/python bench/gguf_llm_torch.py"); 0 where it gives none */
static double torch_peer(const char *torch_cmd, const char *path, int threads, int reps) {
    char cmd[2048], line[512];
    double v = 0;
    FILE *f;
    if (!torch_cmd) return 0;
    snprintf(cmd, sizeof cmd, "%.900s %.900s %d %d 2>/dev/null", torch_cmd, path, threads, reps);
    if (!(f = popen(cmd, "r"))) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "torch_prefill=", 14) == 0) v = atof(line + 14);
    pclose(f);
    return v;
}
/* Seconds of the decode step's products alone: every weight a step reads (the layers' seven and
   the head) times one random row, realized in one tape (x and g computed before the clock).
   Beside the step's time it splits a token between the products and the rest (attention,
   norms, rope, the tape and its dispatch). */
static double lm_matvecs(lm *m) {
    genie_ctx *ctx = m->ctx;
    const int64_t sx[2] = {1, m->d}, sg[2] = {1, m->d_ff};
    genie_tensor *ys[8 * LM_MAX_LAYERS + 1], *xg[2];
    int n = 0, i;
    double t;
    genie_pool_push(ctx);
    xg[0] = genie_randn(ctx, GENIE_F32, 2, sx, 1), xg[1] = genie_randn(ctx, GENIE_F32, 2, sg, 2);
    genie_realize(ctx, 2, xg);
    for (i = 0; i < m->n_layers; i++) {
        ys[n++] = lm_linear(ctx, xg[0], m->l[i].wq), ys[n++] = lm_linear(ctx, xg[0], m->l[i].wk);
        ys[n++] = lm_linear(ctx, xg[0], m->l[i].wv), ys[n++] = lm_linear(ctx, xg[0], m->l[i].wo);
        ys[n++] = lm_linear(ctx, xg[0], m->l[i].gate), ys[n++] = lm_linear(ctx, xg[0], m->l[i].up);
        ys[n++] = lm_linear(ctx, xg[1], m->l[i].down);
    }
    ys[n++] = lm_linear(ctx, xg[0], m->head);
    t = lm_now();
    genie_realize(ctx, n, ys);
    t = lm_now() - t;
    genie_pool_pop(ctx);
    return t;
}
static void cell(double genie, double other) {
    if (other > 0) printf(" %8.1f %8.2fx |", other, genie / other);
    else printf(" %8s %9s |", "-", "-");
}

int main(int argc, char **argv) {
    static const char *const types[] = {"f32", "bf16", "q8_0", "q4_0"};
    const char *dir = argc > 1 ? argv[1] : "build/gguf_llm", *llama_bench = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
    const char *only = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL; /* the types to run (all when absent) */
    const char *size = argc > 5 ? argv[5] : "bench";
    const char *torch_cmd = getenv("GGUF_LLM_TORCH");  /* the PyTorch bf16 prefill beside the bf16 rows */
    int reps = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 3, ti, th, r, i, ok = 1;
    double bw[3], rbw[3];
    float *logits = NULL;
    int64_t ids[PROMPT + DECODE];
    bw[1] = copy_bw(1), bw[2] = copy_bw(2), rbw[1] = read_bw(1), rbw[2] = read_bw(2);
    printf("bench-gguf-llm: Llama GGUF %s/%s-*.gguf, prefill %d tokens, decode %d tokens, best of %d; copy bandwidth %.1f GB/s (1 thread), "
           "%.1f GB/s (2); read bandwidth %.1f GB/s (1), %.1f GB/s (2)\n", dir, size, PROMPT, DECODE, reps, bw[1] / 1e9, bw[2] / 1e9,
           rbw[1] / 1e9, rbw[2] / 1e9);
    if (!llama_bench) printf("(no llama.cpp beside it: LLAMA_BENCH=/path/to/llama-bench)\n");
    printf("bound: decode tokens/s if each step read its weight bytes at the copy bandwidth; of read bw: the decode's weight bytes a\n"
           "second over the read bandwidth; products: a step's products alone (every weight it reads times one row, one tape) over\n"
           "the whole step, best of each (the rest is attention, norms, rope, the tape and its dispatch)\n\n");
    printf("| type | thr | weights MB/token | prefill tok/s | llama.cpp  ratio     | decode tok/s | llama.cpp  ratio     | bound tok/s | of bound | of read bw | products |\n");
    printf("|------|----:|-----:|------:|-------------------:|------:|-------------------:|------:|------:|------:|------:|\n");
    for (ti = 0; ti < 4; ti++)
        for (th = 1; th <= 2; th++) {
            char path[1024], err[512];
            lm m;
            double pf = 0, dc = 0, mv = 0, bound, peer_pp, peer_tg;
            if (only && !strstr(only, types[ti])) continue;
            snprintf(path, sizeof path, "%s/%s-%s.gguf", dir, size, types[ti]);
            if (!lm_load(&m, path, th, PROMPT + DECODE + 1, err, sizeof err)) {
                printf("| %s | %d | cannot load: %s |\n", types[ti], th, err);
                lm_free(&m);
                ok = 0;
                continue;
            }
            logits = (float *)realloc(logits, sizeof(float) * (size_t)m.vocab);
            { /* the prompt: the file's tokenizer on a text, repeated to PROMPT tokens */
                int got[512], n = tokenize(&m.tok, "The GNU General Public License is a free, copyleft license for software "
                                                   "and other kinds of works, version 3, 29 June 2007.", got);
                for (i = 0; i < PROMPT; i++) ids[i] = n > 0 ? got[i % n] : 0;
            }
            for (r = 0; r < reps && genie_status(m.ctx) == GENIE_OK; r++) {
                double t = lm_now();
                int64_t tok = lm_step(&m, ids, 0, PROMPT, logits);
                t = lm_now() - t;
                if (PROMPT / t > pf) pf = PROMPT / t;
                t = lm_now();
                for (i = 0; i < DECODE && tok >= 0; i++) {
                    ids[PROMPT + i] = tok;
                    tok = lm_step(&m, &ids[PROMPT + i], PROMPT + i, 1, logits);
                }
                t = lm_now() - t;
                if (DECODE / t > dc) dc = DECODE / t;
                t = lm_matvecs(&m);
                if (mv == 0 || t < mv) mv = t;
            }
            if (genie_status(m.ctx) != GENIE_OK) {
                printf("| %s | %d | error: %s |\n", types[ti], th, genie_last_error(m.ctx));
                lm_free(&m);
                ok = 0;
                continue;
            }
            lm_free(&m); /* its memory, before llama.cpp maps the same file */
            peer(llama_bench, path, th, reps, &peer_pp, &peer_tg);
            bound = bw[th] / (double)m.decode_bytes;
            printf("| %s | %d | %.1f | %.1f |", types[ti], th, (double)m.decode_bytes / 1e6, pf);
            cell(pf, peer_pp);
            printf(" %.1f |", dc);
            cell(dc, peer_tg);
            printf(" %.1f | %.2f | %.2f | %.2f |\n", bound, dc / bound, dc * (double)m.decode_bytes / rbw[th], mv * dc);
            if (ti == 1 && torch_cmd) {
                const double tp = torch_peer(torch_cmd, path, th, reps);
                printf("| bf16 | %d | prefill beside PyTorch bf16 (transformers' Llama) | %.1f |", th, pf);
                cell(pf, tp);
                printf(" | | | | | |\n");
            }
            fflush(stdout);
        }
    free(logits);
    return !ok;
}
