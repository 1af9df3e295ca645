/* gguf_llm.c - prefill and decode tokens/s of one Llama-architecture GGUF model in F32, BF16,
   Q8_0 and Q4_0 (the same random weights: tools/make_llama_gguf.py --size bench writes
   build/gguf_llm/bench-TYPE.gguf), on 1 and 2 threads, with examples/06_gguf_llm.c's model
   code; beside llama.cpp's llama-bench on the same files (its results passed as a file of
   lines "TYPE THREADS pp|tg TOKENS_PER_S": the Makefile writes it when LLAMA_BENCH names the
   binary) and beside the decode bound: the weight bytes a token reads over the copy bandwidth
   measured in the same run (memcpy of 512 MiB on as many threads, bytes read + written).
   Prefill: 128 tokens in one step (logits of the last position). Decode: 32 steps after it,
   each a token at the next position (llama-bench's tg 32 starts from an empty cache; at these
   lengths attention is a small part of a step). Best of REPS runs.
     make bench-gguf-llm   (LLAMA_BENCH=/path/to/llama-bench)
     build/bench_gguf_llm DIR [reps] [peer.txt] */
#define _POSIX_C_SOURCE 200809L
#define GGUF_LLM_NO_MAIN
#include "../examples/06_gguf_llm.c"
#include <pthread.h>

#define PROMPT 128
#define DECODE 32

/* STREAM copy bandwidth (bytes read + written per second) of memcpy on nth threads */
typedef struct cpy { char *d; const char *s; size_t n; } cpy;
static void *cpy_run(void *p) { cpy *c = (cpy *)p; memcpy(c->d, c->s, c->n); return NULL; }
static double copy_bw(int nth) {
    size_t n = (size_t)512 << 20, part = n / (size_t)nth;
    char *a = (char *)malloc(n), *b = (char *)malloc(n);
    double best = 0;
    int r, i;
    if (!a || !b) { free(a), free(b); return 0; }
    memset(a, 1, n), memset(b, 2, n);
    for (r = 0; r < 4; r++) {
        pthread_t th[8];
        cpy cs[8];
        double t = lm_now();
        for (i = 0; i < nth; i++) {
            cs[i].d = b + part * (size_t)i, cs[i].s = a + part * (size_t)i, cs[i].n = part;
            pthread_create(&th[i], NULL, cpy_run, &cs[i]);
        }
        for (i = 0; i < nth; i++) pthread_join(th[i], NULL);
        t = lm_now() - t;
        if (2.0 * (double)n / t > best) best = 2.0 * (double)n / t;
    }
    free(a), free(b);
    return best;
}

/* llama-bench's tokens/s for (type, threads, "pp" or "tg"), 0 if the file has none */
static double peer(const char *path, const char *type, int threads, const char *test) {
    FILE *f = path ? fopen(path, "r") : NULL;
    char t[32], k[8];
    int th;
    double v, got = 0;
    if (!f) return 0;
    while (fscanf(f, "%31s %d %7s %lf", t, &th, k, &v) == 4)
        if (strcmp(t, type) == 0 && th == threads && strcmp(k, test) == 0) got = v;
    fclose(f);
    return got;
}

static void cell(double genie, double other) {
    if (other > 0) printf(" %8.1f %8.2fx |", other, genie / other);
    else printf(" %8s %9s |", "-", "-");
}

int main(int argc, char **argv) {
    static const char *const types[] = {"f32", "bf16", "q8_0", "q4_0"};
    const char *dir = argc > 1 ? argv[1] : "build/gguf_llm", *peer_path = argc > 3 ? argv[3] : NULL;
    int reps = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 3, ti, th, r, i, ok = 1;
    double bw[3];
    float *logits = NULL;
    int64_t ids[PROMPT + DECODE];
    bw[1] = copy_bw(1), bw[2] = copy_bw(2);
    printf("bench-gguf-llm: Llama GGUF from %s, prefill %d tokens, decode %d tokens, best of %d; copy bandwidth %.1f GB/s (1 thread), "
           "%.1f GB/s (2)\n", dir, PROMPT, DECODE, reps, bw[1] / 1e9, bw[2] / 1e9);
    if (!peer_path) printf("(no llama.cpp results: set LLAMA_BENCH=/path/to/llama-bench)\n");
    printf("bound: decode tokens/s if each step read its weight bytes at the copy bandwidth\n\n");
    printf("| type | thr | weights MB/token | prefill tok/s | llama.cpp  ratio     | decode tok/s | llama.cpp  ratio     | bound tok/s | of bound |\n");
    printf("|------|----:|-----:|------:|-------------------:|------:|-------------------:|------:|------:|\n");
    for (ti = 0; ti < 4; ti++)
        for (th = 1; th <= 2; th++) {
            char path[1024], err[512];
            lm m;
            double pf = 0, dc = 0, bound;
            snprintf(path, sizeof path, "%s/bench-%s.gguf", dir, types[ti]);
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
            }
            if (genie_status(m.ctx) != GENIE_OK) {
                printf("| %s | %d | error: %s |\n", types[ti], th, genie_last_error(m.ctx));
                lm_free(&m);
                ok = 0;
                continue;
            }
            bound = bw[th] / (double)m.decode_bytes;
            printf("| %s | %d | %.1f | %.1f |", types[ti], th, (double)m.decode_bytes / 1e6, pf);
            cell(pf, peer(peer_path, types[ti], th, "pp"));
            printf(" %.1f |", dc);
            cell(dc, peer(peer_path, types[ti], th, "tg"));
            printf(" %.1f | %.2f |\n", bound, dc / bound);
            fflush(stdout);
            lm_free(&m);
        }
    free(logits);
    return !ok;
}
