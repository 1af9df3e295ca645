/* gguf_llm.c - prefill and decode tokens/s of one Llama-architecture GGUF model in F32, BF16,
   Q8_0 and Q4_0 (the same random weights: tools/make_llama_gguf.py --size bench writes
   build/gguf_llm/bench-TYPE.gguf) and Q4_K_M (the F32 file through llama.cpp's llama-quantize,
   which make runs when it finds one beside LLAMA_BENCH: a skip line without the file; Q4_K
   weights with Q6_K where llama.cpp's mix puts them), on 1 and 2 threads, with examples/06_gguf_llm.c's model
   code; beside llama.cpp's llama-bench on the same file (when its path is given: LLAMA_BENCH for
   make) and beside the decode bound: the weight bytes a token reads over the copy bandwidth
   (memcpy of 512 MiB on as many threads, bytes read + written), and the same over the read
   bandwidth (512 MiB read on as many threads: what a step whose weights no cache holds can
   stream; a model whose weights fit the last-level cache can beat it).
   Prefill: 128 tokens in one step (logits of the last position). Decode: 32 steps after it,
   each a token at the next position (llama-bench's tg 32 starts from an empty cache; at these
   lengths attention is a small part of a step). "products": the step's products alone
   (lm_matvecs: every weight a step reads times one row) over a decode step.
   Rounds: the machines here are shared, and their speed moves by tens of percent within a
   minute, so a row is ROUNDS rounds (after one warm-up run of genie), each measuring side by
   side: the copy and read bandwidths, genie's prefill, decode and products, and llama-bench -r 1
   (genie first in even rounds, second in odd ones). A row prints the medians, and each ratio as
   the median of the rounds' ratios with their range. With GGUF_LLM_TORCH set (the command that
   runs bench/gguf_llm_torch.py; make sets it when the venv has torch, transformers and gguf) each
   bf16 row is followed by PyTorch's bf16 prefill of the same file (its best of ROUNDS runs,
   against genie's best round).
     make bench-gguf-llm   (LLAMA_BENCH=/path/to/llama-bench, GGUF_LLM_ROUNDS=5)
     build/bench_gguf_llm DIR [rounds] [path/to/llama-bench|-] [types, e.g. q8_0,bf16|-] [size: bench|big]
   (the files DIR/SIZE-TYPE.gguf; make bench-gguf-llm-big runs the ~540M-parameter Q8_0 and Q4_0
   files, whose weights stream from memory) */
#define _POSIX_C_SOURCE 200809L
#define GGUF_LLM_NO_MAIN
#define GENIE_TEST_HOOKS /* GENIE_NO_AVXVNNI=1: the avx2 path's int8 dots on vpmaddubsw (the A/B beside AVX-VNNI) */
#include "../examples/06_gguf_llm.c"
#include "copy_bw.h"

#define PROMPT 128
#define DECODE 32
#define MAX_ROUNDS 32

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
/* The median of v[0..n) (the mean of the middle two when n is even), its least in *lo and its most
   in *hi; v left as it is. n in 1..MAX_ROUNDS. */
static double spread(const double *v, int n, double *lo, double *hi) {
    double t[MAX_ROUNDS];
    memcpy(t, v, sizeof t[0] * (size_t)n);
    const double m = bench_median_mean(t, n);
    *lo = t[0], *hi = t[n - 1];
    return m;
}
/* The peer's median beside genie's, and the median of the rounds' ratios genie / peer with their
   range (each ratio from one round, the two taken side by side); dashes where the peer gave none */
static void cell(const double *genie, const double *peer_v, int n) {
    double r[MAX_ROUNDS], lo, hi, plo, phi, m;
    int i;
    for (i = 0; i < n; i++)
        if (peer_v[i] <= 0) { printf(" %8s %20s |", "-", "-"); return; }
    for (i = 0; i < n; i++) r[i] = genie[i] / peer_v[i];
    m = spread(r, n, &lo, &hi);
    printf(" %8.1f %6.2fx (%.2f-%.2f) |", spread(peer_v, n, &plo, &phi), m, lo, hi);
}
/* One round of genie on m: the prefill of ids[0..PROMPT) (tokens/s into *pf), DECODE greedy steps
   after it (tokens/s into *dc) and the step's products alone (seconds into *mv). 0 on an error. */
static int lm_round(lm *m, int64_t *ids, float *logits, double *pf, double *dc, double *mv) {
    double t = lm_now();
    int64_t tok = lm_step(m, ids, 0, PROMPT, logits);
    int i;
    *pf = PROMPT / (lm_now() - t);
    t = lm_now();
    for (i = 0; i < DECODE && tok >= 0; i++) {
        ids[PROMPT + i] = tok;
        tok = lm_step(m, &ids[PROMPT + i], PROMPT + i, 1, logits);
    }
    *dc = DECODE / (lm_now() - t);
    *mv = lm_matvecs(m);
    return genie_status(m->ctx) == GENIE_OK;
}

int main(int argc, char **argv) {
    static const char *const types[] = {"f32", "bf16", "q8_0", "q4_0", "q4_k_m"};
    const char *dir = argc > 1 ? argv[1] : "build/gguf_llm", *llama_bench = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
    const char *only = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL; /* the types to run (all when absent) */
    const char *size = argc > 5 ? argv[5] : "bench";
    const char *torch_cmd = getenv("GGUF_LLM_TORCH");  /* the PyTorch bf16 prefill beside the bf16 rows */
    const int rounds = argc > 2 && atoi(argv[2]) > 0 ? (atoi(argv[2]) < MAX_ROUNDS ? atoi(argv[2]) : MAX_ROUNDS) : 5;
    int ti, th, r, i, ok = 1;
    float *logits = NULL;
    int64_t ids[PROMPT + DECODE];
    bw_bufs bufs = bw_bufs_new();
    printf("bench-gguf-llm: Llama GGUF %s/%s-*.gguf, prefill %d tokens, decode %d tokens, %d rounds a row: genie's prefill and\n"
           "decode, llama.cpp's llama-bench -r 1 on the same file (genie first in even rounds, second in odd ones) and the copy and\n"
           "read bandwidths, all side by side; each number is the median of the rounds, each ratio the median of the rounds'\n"
           "ratios (least-most)\n", dir, size, PROMPT, DECODE, rounds);
    if (!llama_bench) printf("(no llama.cpp beside it: LLAMA_BENCH=/path/to/llama-bench)\n");
    if (!bufs.a) printf("(no memory for the bandwidths' 2 x 512 MiB: no bound)\n");
    printf("bound: decode tokens/s if each step read its weight bytes at the copy bandwidth (memcpy of 512 MiB on as many threads,\n"
           "bytes read + written: STREAM's convention); of read bw: the decode's weight bytes a second over the read-only rate of\n"
           "as many threads (what a step whose weights no cache holds can stream); products: a step's products alone (every weight\n"
           "it reads times one row, one tape) over the whole step (the rest is attention, norms, rope, the tape and its dispatch)\n\n");
    printf("| type | thr | weights MB/token | prefill tok/s | llama.cpp  ratio (least-most)  | decode tok/s | llama.cpp  ratio (least-most)  "
           "| bound tok/s | of bound (least-most) | of read bw | products |\n");
    printf("|------|----:|-----:|------:|------------------------------:|------:|------------------------------:|------:|------:|------:|------:|\n");
    for (ti = 0; ti < 5; ti++)
        for (th = 1; th <= 2; th++) {
            char path[1024], err[512];
            lm m;
            double pf[MAX_ROUNDS], dc[MAX_ROUNDS], mv[MAX_ROUNDS], pp[MAX_ROUNDS], tg[MAX_ROUNDS], bw[MAX_ROUNDS], rbw[MAX_ROUNDS];
            double ofb[MAX_ROUNDS], ofr[MAX_ROUNDS], prod[MAX_ROUNDS], lo, hi, mb, of_bound;
            int good = 1;
            if (only && !strstr(only, types[ti])) continue;
            snprintf(path, sizeof path, "%s/%s-%s.gguf", dir, size, types[ti]);
            if (ti == 4) { /* made by llama-quantize (make bench-gguf-llm: beside LLAMA_BENCH), not by genie's tools */
                FILE *f = fopen(path, "rb");
                if (!f) {
                    if (th == 1) printf("| %s | skip: no %s (llama.cpp's llama-quantize writes it from the F32 file) |\n", types[ti], path);
                    continue;
                }
                fclose(f);
            }
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
            good = lm_round(&m, ids, logits, &pf[0], &dc[0], &mv[0]); /* a warm-up, as llama-bench runs one */
            for (r = 0; r < rounds && good; r++) {
                bw[r] = bw_copy_on(&bufs, th), rbw[r] = bw_read_on(&bufs, th);
                if (r % 2) peer(llama_bench, path, th, 1, &pp[r], &tg[r]);
                good = lm_round(&m, ids, logits, &pf[r], &dc[r], &mv[r]);
                if (r % 2 == 0) peer(llama_bench, path, th, 1, &pp[r], &tg[r]);
                mb = (double)m.decode_bytes;
                ofb[r] = bw[r] > 0 ? dc[r] * mb / bw[r] : 0, ofr[r] = rbw[r] > 0 ? dc[r] * mb / rbw[r] : 0, prod[r] = mv[r] * dc[r];
            }
            if (!good) {
                printf("| %s | %d | error: %s |\n", types[ti], th, genie_last_error(m.ctx));
                lm_free(&m);
                ok = 0;
                continue;
            }
            mb = (double)m.decode_bytes;
            printf("| %s | %d | %.1f | %.1f |", types[ti], th, mb / 1e6, spread(pf, rounds, &lo, &hi));
            cell(pf, pp, rounds);
            printf(" %.1f |", spread(dc, rounds, &lo, &hi));
            cell(dc, tg, rounds);
            printf(" %.1f |", spread(bw, rounds, &lo, &hi) / mb);
            of_bound = spread(ofb, rounds, &lo, &hi); /* before the printf: its arguments' order is unspecified */
            printf(" %.2f (%.2f-%.2f) |", of_bound, lo, hi);
            printf(" %.2f | %.2f |\n", spread(ofr, rounds, &lo, &hi), spread(prod, rounds, &lo, &hi));
            if (ti == 1 && torch_cmd) { /* PyTorch's best of rounds runs, against genie's best prefill */
                const double tp = torch_peer(torch_cmd, path, th, rounds);
                double best = pf[0];
                for (r = 1; r < rounds; r++) best = pf[r] > best ? pf[r] : best;
                printf("| bf16 | %d | prefill beside PyTorch bf16 (transformers' Llama), best against best | %.1f |", th, best);
                if (tp > 0) printf(" %8.1f %6.2fx |", tp, best / tp);
                else printf(" %8s %9s |", "-", "-");
                printf(" | | | | | |\n");
            }
            lm_free(&m);
            fflush(stdout);
        }
    free(logits);
    bw_bufs_free(&bufs);
    return !ok;
}
