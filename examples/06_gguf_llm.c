/* 06_gguf_llm.c - a Llama-architecture model from a GGUF file, as llama.cpp runs it: the
   weights (f32, bf16, q8_0 or q4_0 blocks, read in place from the mapped file), the
   tokenizer the file carries, a prompt prefilled in one step, then greedy decoding with
   a KV cache, and tokens/s of both phases.

   The tokenizer: tokenizer.ggml.model "gpt2" (byte-level BPE: GPT-2's pre-tokenizing
   pattern, then the file's merges by rank) and "llama" (SentencePiece: scores and byte
   fallback, as llama.cpp runs it) are implemented; loading a file with another fails with a
   message saying so. The BPE pattern's
   letter and digit classes are exact for ASCII; beyond it they follow a table of the
   common scripts (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, CJK, kana, Hangul),
   and other code points count as punctuation. Special tokens in the text are not parsed.

   The model file comes from tools/make_llama_gguf.py (make gguf-llm-models writes
   build/gguf_llm/tiny-{f32,bf16,q8_0,q4_0}.gguf: random weights, a real vocabulary).
   Given its reference (tests/data/gguf_llm_ref.txt) this program checks
     - its token ids of a few strings against Hugging Face's `tokenizers`;
     - each decode step against transformers' Llama in float64 on the weights the file
       holds (dequantized). The reference's token is fed back at every step (teacher
       forcing), so one differing token does not change the steps after it. genie's
       logits of the reference's two best tokens must lie within BOUND of the reference
       (per type, below); a step whose best token differs (a flip) is allowed only where
       the reference's two best logits are closer than 2 BOUND (so the flip is explained
       by errors within the bound), and at most MAX_FLIPS times.
   It exits 1 on any difference.

     06_gguf_llm [model.gguf [reference.txt]] [-t threads] [-n tokens] [-p prompt] [-b backend]
   With -p the prompt is yours and nothing is checked. -b names the context's backend
   (genie_ctx_desc.backend): "remote" runs every step on a genie-server (GENIE_REMOTE=host:port)
   when the program is built against build/genie_remote.o with GENIE_EXAMPLE_LINKED defined
   (make test-gguf-llm-remote), and it then prints what crossed the network. With no arguments it runs
   gguf_llm/tiny-q8_0.gguf against ../tests/data/gguf_llm_ref.txt (from build/), and
   prints a skip line if the model file has not been written. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef GENIE_EXAMPLE_LINKED /* linked against a backend's unit, which holds genie's implementation */
#define GENIE_IMPLEMENTATION
#endif
#include "genie.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#define LM_MAX_LAYERS 64
#define MAX_FLIPS 2

/* ---- the tokenizer: byte-level BPE (tokenizer.ggml.model "gpt2") ---- */

/* a string -> int map, open addressing; keys point into the GGUF (or into strs) */
typedef struct strmap { const char **key; int *val; size_t cap; } strmap;
static uint64_t str_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}
static int map_init(strmap *m, size_t n) {
    for (m->cap = 16; m->cap < 2 * n; m->cap *= 2) {}
    m->key = (const char **)calloc(m->cap, sizeof *m->key);
    m->val = (int *)calloc(m->cap, sizeof *m->val);
    return m->key && m->val;
}
static void map_free(strmap *m) { free((void *)m->key), free(m->val); }
/* the value of the n bytes at s, or -1 */
static int map_get(const strmap *m, const char *s, size_t n) {
    size_t i = (size_t)str_hash(s, n) & (m->cap - 1);
    for (; m->key[i]; i = (i + 1) & (m->cap - 1))
        if (strlen(m->key[i]) == n && memcmp(m->key[i], s, n) == 0) return m->val[i];
    return -1;
}
static void map_put(strmap *m, const char *s, int v) { /* the first value of a key stays */
    size_t i = (size_t)str_hash(s, strlen(s)) & (m->cap - 1);
    for (; m->key[i]; i = (i + 1) & (m->cap - 1))
        if (strcmp(m->key[i], s) == 0) return;
    m->key[i] = s, m->val[i] = v;
}

typedef struct tokenizer {
    int n_vocab;
    int spm;                    /* 1: SentencePiece ("llama"); 0: byte-level BPE ("gpt2") */
    const char **tokens;        /* id -> the token's string (owned by the GGUF) */
    int *is_control;            /* id -> 1 for control tokens (not printed) */
    strmap ids, ranks;          /* token string -> id; "left right" merge -> rank (BPE) */
    char byte_str[256][3];      /* BPE: byte -> its byte-level character, UTF-8 */
    int cp_byte[324];           /* BPE: byte-level code point -> byte */
    float *scores;              /* SentencePiece: id -> score (a higher one merges first) */
    int byte_id[256];           /* SentencePiece: byte -> its <0xXX> token, or -1 */
    int add_space_prefix;       /* SentencePiece: a space before the text (default 1) */
} tokenizer;

static int utf8_put(char *o, int cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    o[0] = (char)(0xC0 | (cp >> 6)), o[1] = (char)(0x80 | (cp & 0x3F));
    return 2; /* the byte-level characters are all below 0x800 */
}
/* the code point at s (n bytes left) and its length; invalid bytes read as themselves */
static int utf8_get(const unsigned char *s, size_t n, int *len) {
    int c = s[0], k = c < 0x80 ? 0 : c >= 0xF0 && c < 0xF8 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1, i;
    if (k <= 0 || (size_t)k >= n) { *len = 1; return c; }
    c &= 0x3F >> k; /* the lead byte's payload: 5, 4 or 3 bits */
    for (i = 1; i <= k; i++) {
        if ((s[i] & 0xC0) != 0x80) { *len = 1; return s[0]; }
        c = (c << 6) | (s[i] & 0x3F);
    }
    *len = k + 1;
    return c;
}

/* GPT-2's map of bytes to printable characters: the printable Latin-1 bytes are themselves,
   the others 256, 257, ... in byte order */
static void byte_level_init(tokenizer *t) {
    int b, n = 0;
    for (b = 0; b < 324; b++) t->cp_byte[b] = -1;
    for (b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        int cp = printable ? b : 256 + n++;
        memset(t->byte_str[b], 0, 3);
        utf8_put(t->byte_str[b], cp);
        t->cp_byte[cp] = b;
    }
}

static void tokenizer_free(tokenizer *t) {
    map_free(&t->ids), map_free(&t->ranks);
    free((void *)t->tokens), free(t->is_control), free(t->scores);
}
/* Reads the GGUF's vocabulary; 0 with a message in err if the file's tokenizer is not one this
   program implements or its arrays are inconsistent. */
static int tokenizer_load(genie_gguf *g, tokenizer *t, char *err, size_t errn) {
    const char *model = genie_gguf_meta_str(g, "tokenizer.ggml.model");
    int64_t nv = genie_gguf_meta_len(g, "tokenizer.ggml.tokens"), nm = genie_gguf_meta_len(g, "tokenizer.ggml.merges"), i;
    memset(t, 0, sizeof *t);
    if (!model) { snprintf(err, errn, "no tokenizer.ggml.model"); return 0; }
    if (strcmp(model, "gpt2") != 0 && strcmp(model, "llama") != 0) {
        snprintf(err, errn, "tokenizer.ggml.model \"%.40s\" is not implemented (only \"gpt2\", byte-level BPE, and "
                 "\"llama\", SentencePiece)", model);
        return 0;
    }
    t->spm = strcmp(model, "llama") == 0;
    if (t->spm) {
        nm = 0;
        if (genie_gguf_meta_len(g, "tokenizer.ggml.scores") != nv) { snprintf(err, errn, "tokenizer.ggml.scores missing or not one a token"); return 0; }
    }
    if (nv < 256 || nv > 1 << 24 || nm < 0) { snprintf(err, errn, "tokenizer.ggml.tokens (%lld) or .merges (%lld) missing", (long long)nv, (long long)nm); return 0; }
    t->n_vocab = (int)nv;
    t->tokens = (const char **)calloc((size_t)nv, sizeof *t->tokens);
    t->is_control = (int *)calloc((size_t)nv, sizeof *t->is_control);
    t->scores = (float *)calloc((size_t)nv, sizeof *t->scores);
    if (!t->tokens || !t->is_control || !t->scores || !map_init(&t->ids, (size_t)nv) || !map_init(&t->ranks, (size_t)nm + 1)) {
        snprintf(err, errn, "out of memory");
        return 0;
    }
    for (i = 0; i < nv; i++) {
        int64_t ty = 1;
        t->tokens[i] = genie_gguf_meta_str_at(g, "tokenizer.ggml.tokens", i);
        if (!t->tokens[i]) { snprintf(err, errn, "tokenizer.ggml.tokens[%lld] is not a string", (long long)i); return 0; }
        genie_gguf_meta_i64_at(g, "tokenizer.ggml.token_type", i, &ty); /* 1 normal when absent */
        t->is_control[i] = ty == 3;
        map_put(&t->ids, t->tokens[i], (int)i);
        if (t->spm) {
            double sc = 0;
            if (genie_gguf_meta_f64_at(g, "tokenizer.ggml.scores", i, &sc) != GENIE_OK) {
                snprintf(err, errn, "tokenizer.ggml.scores[%lld] is not a number", (long long)i);
                return 0;
            }
            t->scores[i] = (float)sc;
        }
    }
    if (t->spm) {
        int b;
        int64_t v = 1; /* a bool reads as 0 or 1 */
        for (b = 0; b < 256; b++) {
            char hex[8];
            snprintf(hex, sizeof hex, "<0x%02X>", b);
            t->byte_id[b] = map_get(&t->ids, hex, 6);
        }
        if (genie_gguf_meta_i64(g, "tokenizer.ggml.add_space_prefix", &v) != GENIE_OK) v = 1;
        t->add_space_prefix = v != 0;
        return 1;
    }
    for (i = 0; i < nm; i++) {
        const char *m = genie_gguf_meta_str_at(g, "tokenizer.ggml.merges", i);
        if (!m || !strchr(m, ' ')) { snprintf(err, errn, "tokenizer.ggml.merges[%lld] is not \"left right\"", (long long)i); return 0; }
        map_put(&t->ranks, m, (int)i);
    }
    byte_level_init(t);
    return 1;
}

/* GPT-2's pattern, by the class of a code point: 'L' letter, 'N' digit, 'S' space, 'P' other */
static char cp_class(int c) {
    static const int letters[][2] = {{0xAA, 0xAA}, {0xB5, 0xB5}, {0xBA, 0xBA}, {0xC0, 0xD6}, {0xD8, 0xF6},
        {0xF8, 0x2C1}, {0x370, 0x373}, {0x376, 0x377}, {0x37B, 0x37D}, {0x386, 0x386}, {0x388, 0x3FF},
        {0x400, 0x481}, {0x48A, 0x52F}, {0x531, 0x556}, {0x561, 0x587}, {0x5D0, 0x5EA}, {0x620, 0x64A},
        {0x1E00, 0x1FBC}, {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
        {0xAC00, 0xD7A3}};
    size_t i;
    if (c < 0x80) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 'L';
        if (c >= '0' && c <= '9') return 'N';
        return (c >= 9 && c <= 13) || c == ' ' ? 'S' : 'P';
    }
    if (c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
        c == 0x202F || c == 0x205F || c == 0x3000) return 'S';
    for (i = 0; i < sizeof letters / sizeof letters[0]; i++)
        if (c >= letters[i][0] && c <= letters[i][1]) return 'L';
    return 'P';
}

/* The length in bytes of the next piece of s (n > 0 bytes) under
   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static size_t pretoken(const unsigned char *s, size_t n) {
    size_t i = 0, last;
    int len, c = utf8_get(s, n, &len), k;
    char cls;
    if (c == '\'' && n >= 2) {
        if (s[1] && strchr("stmd", s[1])) return 2;
        if (n >= 3 && ((s[1] == 'r' && s[2] == 'e') || (s[1] == 'v' && s[2] == 'e') || (s[1] == 'l' && s[2] == 'l'))) return 3;
    }
    if (c == ' ' && n > 1 && cp_class(utf8_get(s + 1, n - 1, &k)) != 'S') i = 1; /* " ?" then a run */
    cls = cp_class(utf8_get(s + i, n - i, &len));
    if (cls != 'S') {
        for (i += (size_t)len; i < n; i += (size_t)len)
            if (cp_class(utf8_get(s + i, n - i, &len)) != cls) break;
        return i;
    }
    /* a run of spaces: all of it at the end of the text; else all but its last space
       (which joins the next piece), or the single space if the run has one */
    for (last = 0; i < n; i += (size_t)len) {
        if (cp_class(utf8_get(s + i, n - i, &len)) != 'S') break;
        last = i;
    }
    return i == n || last == 0 ? i : last;
}

/* The ids of the n bytes of one piece: byte-level characters merged by rank. Returns how
   many ids were written to out (room for n), -1 if a symbol is not in the vocabulary. */
static int bpe_piece(const tokenizer *t, const unsigned char *s, size_t n, int *out) {
    char *buf = (char *)malloc(n * 2 + 1), *pair = (char *)malloc(n * 4 + 2);
    size_t *start = (size_t *)malloc((n + 1) * sizeof *start), i, m = n, len = 0;
    int nout = 0;
    if (!buf || !pair || !start) { free(buf), free(pair), free(start); return -1; }
    for (i = 0; i < n; i++) { /* symbols: [start[i], start[i+1]) of buf */
        start[i] = len;
        len += strlen(strcpy(buf + len, t->byte_str[s[i]]));
    }
    start[n] = len;
    while (m > 1) { /* merge the pair of lowest rank (the leftmost of equals) */
        int best = -1;
        size_t at = 0;
        for (i = 0; i + 1 < m; i++) {
            size_t a = start[i + 1] - start[i], b = start[i + 2] - start[i + 1];
            int r;
            memcpy(pair, buf + start[i], a), pair[a] = ' ', memcpy(pair + a + 1, buf + start[i + 1], b);
            r = map_get(&t->ranks, pair, a + 1 + b);
            if (r >= 0 && (best < 0 || r < best)) best = r, at = i;
        }
        if (best < 0) break;
        memmove(start + at + 1, start + at + 2, (m - at - 1) * sizeof *start);
        m--;
    }
    for (i = 0; i < m; i++) {
        int id = map_get(&t->ids, buf + start[i], start[i + 1] - start[i]);
        if (id < 0) { nout = -1; break; }
        out[nout++] = id;
    }
    free(buf), free(pair), free(start);
    return nout;
}

/* SentencePiece as llama.cpp runs it: a space before the text, every space as U+2581 ("\xE2\x96\x81"),
   the text's characters as symbols, then again and again the adjacent pair whose concatenation
   is a token of the highest score (the leftmost of equals) merged into one symbol. A final
   symbol that is not a token becomes its bytes' <0xXX> tokens. Returns the ids written to out
   (room for 3 (strlen(text) + 1)), -1 on a byte without its token or out of memory. */
static int spm_tokenize(const tokenizer *t, const char *text, int *out) {
    size_t n = strlen(text), len = 0, i, m = 0;
    char *buf = (char *)malloc(3 * n + 4);
    size_t *start = (size_t *)malloc((3 * n + 5) * sizeof *start);
    int nout = 0;
    if (!buf || !start) { free(buf), free(start); return -1; }
    if (n == 0) { free(buf), free(start); return 0; }
    if (t->add_space_prefix) memcpy(buf, "\xE2\x96\x81", 3), len = 3;
    for (i = 0; i < n; i++) {
        if (text[i] == ' ') memcpy(buf + len, "\xE2\x96\x81", 3), len += 3;
        else buf[len++] = text[i];
    }
    for (i = 0; i < len; m++) { /* symbols: [start[k], start[k+1]) of buf, one a UTF-8 character */
        int clen;
        start[m] = i;
        utf8_get((const unsigned char *)buf + i, len - i, &clen);
        i += (size_t)clen;
    }
    start[m] = len;
    while (m > 1) {
        int best = -1;
        size_t at = 0;
        for (i = 0; i + 1 < m; i++) {
            int id = map_get(&t->ids, buf + start[i], start[i + 2] - start[i]);
            if (id >= 0 && (best < 0 || t->scores[id] > t->scores[best])) best = id, at = i;
        }
        if (best < 0) break;
        memmove(start + at + 1, start + at + 2, (m - at - 1) * sizeof *start);
        m--;
    }
    for (i = 0; i < m && nout >= 0; i++) {
        int id = map_get(&t->ids, buf + start[i], start[i + 1] - start[i]);
        size_t b;
        if (id >= 0) { out[nout++] = id; continue; }
        for (b = start[i]; b < start[i + 1]; b++) {
            int bid = t->byte_id[(unsigned char)buf[b]];
            if (bid < 0) { nout = -1; break; }
            out[nout++] = bid;
        }
    }
    free(buf), free(start);
    return nout;
}

/* The ids of text (out has room for 3 (strlen(text) + 1)); -1 on a symbol missing from the
   vocabulary */
static int tokenize(const tokenizer *t, const char *text, int *out) {
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), i = 0;
    int total = 0;
    if (t->spm) return spm_tokenize(t, text, out);
    while (i < n) {
        size_t k = pretoken(s + i, n - i);
        int got = bpe_piece(t, s + i, k, out + total);
        if (got < 0) return -1;
        total += got;
        i += k;
    }
    return total;
}

/* ---- the model ---- */

typedef struct lm {
    genie_ctx *ctx;
    genie_gguf *g;       /* open while the tokenizer reads its strings */
    tokenizer tok;
    int64_t d, n_layers, n_heads, n_kv, d_ff, vocab, max_seq, head_dim;
    double theta, eps;
    genie_dtype wtype;   /* the dtype of the attention's q weight: the file's type */
    uint64_t decode_bytes; /* weight bytes a decode step reads (all but the embedding table) */
    genie_tensor *embed, *norm, *head;
    struct {
        genie_tensor *in_norm, *wq, *wk, *wv, *wo, *post_norm, *gate, *up, *down;
        genie_tensor *k_cache, *v_cache; /* [n_kv, max_seq, head_dim], written in place */
    } l[LM_MAX_LAYERS];
} lm;

static genie_tensor *lm_weight(lm *m, const char *fmt, int64_t layer) {
    char name[96];
    genie_tensor *t;
    snprintf(name, sizeof name, fmt, (int)layer);
    t = genie_gguf_get(m->g, name); /* NULL (and a sticky error) if missing */
    if (t && strcmp(fmt, "token_embd.weight") != 0) {
        const int64_t *s = genie_shape(t);
        int64_t n = genie_ndim(t) == 2 ? s[0] * s[1] : s[0];
        genie_dtype dt = genie_dtype_of(t);
        m->decode_bytes += dt == GENIE_Q8_0 ? (uint64_t)n / 32 * 34 : dt == GENIE_Q4_0 ? (uint64_t)n / 32 * 18
                         : dt == GENIE_Q4_K ? (uint64_t)n / 256 * 144 : dt == GENIE_Q6_K ? (uint64_t)n / 256 * 210
                         : (uint64_t)n * (dt == GENIE_F32 ? 4 : 2);
    }
    return t;
}
static int64_t meta(genie_gguf *g, const char *key) {
    int64_t v = 0;
    genie_gguf_meta_i64(g, key, &v);
    return v;
}

static const char *lm_backend; /* genie_ctx_desc.backend of the model's context; NULL the CPU */

/* Opens path and reads the model; 0 with a message in err (the file, the key or the tensor) */
static int lm_load(lm *m, const char *path, int threads, int64_t max_seq, char *err, size_t errn) {
    genie_ctx_desc desc;
    const char *arch;
    int64_t i;
    memset(m, 0, sizeof *m);
    memset(&desc, 0, sizeof desc);
    desc.n_threads = threads;
    desc.backend = lm_backend;
    m->ctx = genie_ctx_create(&desc);
    if (!m->ctx) { snprintf(err, errn, "cannot create a context%s%s", lm_backend ? " on backend " : "", lm_backend ? lm_backend : ""); return 0; }
    if (genie_gguf_open(m->ctx, path, &m->g) != GENIE_OK) { snprintf(err, errn, "%s", genie_last_error(m->ctx)); return 0; }
    arch = genie_gguf_meta_str(m->g, "general.architecture");
    if (!arch || strcmp(arch, "llama") != 0) { snprintf(err, errn, "%.300s: general.architecture is \"%.40s\", not \"llama\"", path, arch ? arch : "(none)"); return 0; }
    m->d = meta(m->g, "llama.embedding_length"), m->n_layers = meta(m->g, "llama.block_count");
    m->n_heads = meta(m->g, "llama.attention.head_count"), m->n_kv = meta(m->g, "llama.attention.head_count_kv");
    m->d_ff = meta(m->g, "llama.feed_forward_length");
    m->theta = 10000, m->eps = 1e-5;
    genie_gguf_meta_f64(m->g, "llama.rope.freq_base", &m->theta);
    genie_gguf_meta_f64(m->g, "llama.attention.layer_norm_rms_epsilon", &m->eps);
    if (!m->n_kv) m->n_kv = m->n_heads;
    m->max_seq = max_seq;
    if (m->d < 2 || m->n_layers < 1 || m->n_layers > LM_MAX_LAYERS || m->n_heads < 1 || m->d % m->n_heads ||
        m->n_kv < 1 || m->n_heads % m->n_kv || (m->d / m->n_heads) % 2) {
        snprintf(err, errn, "%.300s: unsupported hyperparameters (embedding %lld, %lld layers, %lld heads, %lld key/value heads)", path,
                 (long long)m->d, (long long)m->n_layers, (long long)m->n_heads, (long long)m->n_kv);
        return 0;
    }
    m->head_dim = m->d / m->n_heads;
    if (meta(m->g, "llama.rope.dimension_count") && meta(m->g, "llama.rope.dimension_count") != m->head_dim) {
        snprintf(err, errn, "%.300s: partial rotary embeddings are not implemented", path);
        return 0;
    }
    if (!tokenizer_load(m->g, &m->tok, err, errn)) return 0;
    m->vocab = m->tok.n_vocab;
    m->embed = lm_weight(m, "token_embd.weight", 0);
    m->norm = lm_weight(m, "output_norm.weight", 0);
    m->head = genie_gguf_get(m->g, "output.weight") ? lm_weight(m, "output.weight", 0) : m->embed; /* tied */
    if (m->head == m->embed) genie_clear_error(m->ctx);
    for (i = 0; i < m->n_layers; i++) {
        int64_t cache[3];
        cache[0] = m->n_kv, cache[1] = m->max_seq, cache[2] = m->head_dim;
        m->l[i].in_norm = lm_weight(m, "blk.%d.attn_norm.weight", i);
        m->l[i].wq = lm_weight(m, "blk.%d.attn_q.weight", i);
        m->l[i].wk = lm_weight(m, "blk.%d.attn_k.weight", i);
        m->l[i].wv = lm_weight(m, "blk.%d.attn_v.weight", i);
        m->l[i].wo = lm_weight(m, "blk.%d.attn_output.weight", i);
        m->l[i].post_norm = lm_weight(m, "blk.%d.ffn_norm.weight", i);
        m->l[i].gate = lm_weight(m, "blk.%d.ffn_gate.weight", i);
        m->l[i].up = lm_weight(m, "blk.%d.ffn_up.weight", i);
        m->l[i].down = lm_weight(m, "blk.%d.ffn_down.weight", i);
        m->l[i].k_cache = genie_zeros(m->ctx, GENIE_F32, 3, cache);
        m->l[i].v_cache = genie_zeros(m->ctx, GENIE_F32, 3, cache);
    }
    if (genie_status(m->ctx) != GENIE_OK) { snprintf(err, errn, "%s", genie_last_error(m->ctx)); return 0; }
    m->wtype = genie_dtype_of(m->l[0].wq);
    return 1;
}
static void lm_free(lm *m) {
    tokenizer_free(&m->tok);
    genie_gguf_close(m->g);
    genie_ctx_destroy(m->ctx);
}

/* x w^T with x f32: a bf16 weight (which genie's linear takes with bf16 inputs) multiplies x
   rounded to bf16, as bf16 tile products do; the result is f32 again */
static genie_tensor *lm_linear(genie_ctx *ctx, genie_tensor *x, genie_tensor *w) {
    if (genie_dtype_of(w) != GENIE_BF16) return genie_linear(ctx, x, w, NULL);
    return genie_to_dtype(ctx, genie_linear(ctx, genie_to_dtype(ctx, x, GENIE_BF16), w, NULL), GENIE_F32);
}

/* One step: the T tokens ids at positions t0 .. t0+T-1 (the caches hold those before t0).
   Returns the logits of the last position [1, vocab]. The file's q and k rows are ggml's
   (pairs (2i, 2i+1) rotate together), so rope runs interleaved. */
static genie_tensor *lm_forward(lm *m, const int64_t *ids, int64_t t0, int64_t T) {
    genie_ctx *ctx = m->ctx;
    const int64_t D = m->d, hd = m->head_dim;
    int64_t qs[3], kvs[3], flat[2];
    genie_tensor *x, *pos;
    int64_t i;
    qs[0] = T, qs[1] = m->n_heads, qs[2] = hd;
    kvs[0] = T, kvs[1] = m->n_kv, kvs[2] = hd;
    flat[0] = T, flat[1] = D;
    pos = genie_arange(ctx, GENIE_I64, (double)t0, (double)(t0 + T), 1);
    x = genie_embedding(ctx, m->embed, genie_from_data(ctx, GENIE_I64, 1, &T, ids)); /* [T, D] */
    if (genie_dtype_of(x) != GENIE_F32) x = genie_to_dtype(ctx, x, GENIE_F32);        /* bf16 rows of a bf16 table */
    for (i = 0; i < m->n_layers; i++) {
        genie_tensor *h, *q, *k, *v, *a, *g;
        h = genie_rms_norm(ctx, x, 1, &D, m->l[i].in_norm, m->eps);
        q = genie_transpose(ctx, genie_view(ctx, lm_linear(ctx, h, m->l[i].wq), 3, qs), 0, 1);
        k = genie_transpose(ctx, genie_view(ctx, lm_linear(ctx, h, m->l[i].wk), 3, kvs), 0, 1);
        v = genie_transpose(ctx, genie_view(ctx, lm_linear(ctx, h, m->l[i].wv), 3, kvs), 0, 1);
        q = genie_rope(ctx, q, pos, 0, m->theta, 1);
        k = genie_rope(ctx, k, pos, 0, m->theta, 1);
        genie_index_copy_(ctx, m->l[i].k_cache, 1, pos, k);
        genie_index_copy_(ctx, m->l[i].v_cache, 1, pos, v);
        k = genie_narrow(ctx, m->l[i].k_cache, 1, 0, t0 + T);
        v = genie_narrow(ctx, m->l[i].v_cache, 1, 0, t0 + T);
        a = genie_scaled_dot_product_attention(ctx, q, k, v, NULL, T > 1, NAN);
        a = lm_linear(ctx, genie_reshape(ctx, genie_transpose(ctx, a, 0, 1), 2, flat), m->l[i].wo);
        x = genie_add(ctx, x, a);
        h = genie_rms_norm(ctx, x, 1, &D, m->l[i].post_norm, m->eps);
        g = genie_mul(ctx, genie_silu(ctx, lm_linear(ctx, h, m->l[i].gate)), lm_linear(ctx, h, m->l[i].up));
        x = genie_add(ctx, x, lm_linear(ctx, g, m->l[i].down));
    }
    x = genie_rms_norm(ctx, genie_narrow(ctx, x, 0, T - 1, 1), 1, &D, m->norm, m->eps);
    return lm_linear(ctx, x, m->head);
}

/* Runs a step and reads its logits into out [vocab]; returns the best token or -1 */
static int64_t lm_step(lm *m, const int64_t *ids, int64_t t0, int64_t T, float *out) {
    int64_t best = 0, i;
    genie_pool_push(m->ctx);
    genie_read(m->ctx, lm_forward(m, ids, t0, T), GENIE_F32, out, (size_t)m->vocab * sizeof *out);
    genie_pool_pop(m->ctx);
    if (genie_status(m->ctx) != GENIE_OK) return -1;
    for (i = 1; i < m->vocab; i++)
        if (out[i] > out[best]) best = i;
    return best;
}

static double lm_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifndef GGUF_LLM_NO_MAIN

/* The bytes of token id, written to out (room for strlen(token) + 1), 0-terminated;
   control tokens are empty */
static void detokenize(const tokenizer *t, int id, char *out) {
    const unsigned char *s;
    size_t n, i = 0;
    int len;
    *out = 0;
    if (id < 0 || id >= t->n_vocab || t->is_control[id]) return;
    s = (const unsigned char *)t->tokens[id], n = strlen(t->tokens[id]);
    if (t->spm) { /* <0xXX>: the byte; else the text with U+2581 as a space */
        unsigned v;
        if (n == 6 && sscanf((const char *)s, "<0x%2X>", &v) == 1 && t->byte_id[v & 255] == id) {
            *out++ = (char)v, *out = 0;
            return;
        }
        for (; i < n; i++)
            if (i + 2 < n && memcmp(s + i, "\xE2\x96\x81", 3) == 0) *out++ = ' ', i += 2;
            else *out++ = (char)s[i];
        *out = 0;
        return;
    }
    for (; i < n; i += (size_t)len) {
        int c = utf8_get(s + i, n - i, &len);
        *out++ = (char)(c < 324 && t->cp_byte[c] >= 0 ? t->cp_byte[c] : '?');
    }
    *out = 0;
}

/* ---- the reference file ---- */

typedef struct ref_step { int64_t tok, alt; double logit, alt_logit; } ref_step;
typedef struct reference {
    char *prompt;
    int *prompt_ids, n_prompt_ids;
    ref_step *steps;
    int n_steps;
    int texts, texts_ok;
} reference;

/* hex -> bytes, 0-terminated ("-" is the empty string); NULL if not hex */
static char *unhex(const char *h) {
    size_t n = strcmp(h, "-") == 0 ? 0 : strlen(h), i;
    char *s = (char *)malloc(n / 2 + 1);
    if (!s || n % 2) { free(s); return NULL; }
    for (i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) { free(s); return NULL; }
        s[i] = (char)v;
    }
    s[n / 2] = 0;
    return s;
}
/* the ids after the first two words of line, into a new array */
static int *parse_ids(char *line, int *n) {
    int *ids = (int *)malloc(sizeof(int) * (strlen(line) / 2 + 1));
    char *p = strchr(line, ' '), *end;
    *n = 0;
    if (!ids) return NULL;
    p = p ? strchr(p + 1, ' ') : NULL;
    while (p) {
        long v = strtol(p, &end, 10);
        if (end == p) break;
        ids[(*n)++] = (int)v, p = end;
    }
    return ids;
}

/* Reads the reference lines of type (and the tokenizer's lines, checked against tok as they
   come). 0 if the file cannot be read or holds no steps for type. */
static int ref_load(const char *path, const char *type, const tokenizer *tok, reference *r) {
    FILE *f = fopen(path, "r");
    char line[8192], word[64], hex[4096];
    memset(r, 0, sizeof *r);
    if (!f) return 0;
    r->steps = (ref_step *)calloc(4096, sizeof *r->steps);
    while (r->steps && fgets(line, sizeof line, f)) {
        ref_step s;
        int step;
        if (line[0] == '#' || sscanf(line, "%63s %4095s", word, hex) != 2) continue;
        if (strcmp(word, "text") == 0 || strcmp(word, "prompt") == 0) {
            char *text = unhex(hex);
            int n, *want = parse_ids(line, &n), *got = text ? (int *)malloc(sizeof(int) * 3 * (strlen(text) + 1)) : NULL;
            int ngot = got ? tokenize(tok, text, got) : -1, ok = want && ngot == n && memcmp(got, want, sizeof(int) * (size_t)n) == 0;
            if (!ok) printf("tokenizer: \"%s\" gives %d ids, the reference %d%s\n", text ? text : "?", ngot, n, ngot == n ? " (different ones)" : "");
            r->texts++, r->texts_ok += ok;
            if (strcmp(word, "prompt") == 0) {
                free(r->prompt), free(r->prompt_ids);
                r->prompt = text, r->prompt_ids = want, r->n_prompt_ids = n, text = NULL, want = NULL;
            }
            free(text), free(want), free(got);
        } else if (strcmp(word, type) == 0 && r->n_steps < 4096 &&
                   sscanf(line, "%*s %d %lld %lf %lld %lf", &step, (long long *)&s.tok, &s.logit, (long long *)&s.alt, &s.alt_logit) == 5 &&
                   step == r->n_steps) {
            r->steps[r->n_steps++] = s;
        }
    }
    fclose(f);
    return r->n_steps > 0 && r->prompt != NULL;
}
static void ref_free(reference *r) { free(r->prompt), free(r->prompt_ids), free(r->steps); }

/* The largest error allowed in a logit, by the file's type (the reference already holds the
   file's rounded weights, so what is left is how genie rounds activations). The logits are
   about 12 here. f32: float32 sums (errors about 1e-5). bf16 products round activations to
   8 significant bits (relative step 2^-8); q8_0 and q4_0 products round them to int8 per
   32-block (step max|x|/127, about 1.7% of the block's RMS): either gives a product a
   relative error of about 0.5% RMS, about 0.06 on these logits after two layers, and 0.25
   is 4 of those. */
static double logit_bound(genie_dtype t) {
    return t == GENIE_F32 ? 1e-3 : 0.25;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *ref_path = NULL, *user_prompt = NULL;
    int threads = 0, n_decode = 32, i, a, n_prompt, ok = 1, flips = 0, explicit_path = 0;
    char err[512], *piece;
    lm m;
    reference r;
    int64_t *ids, tok;
    float *logits;
    double t_prefill, t_decode, max_err = 0;
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-t") == 0 && a + 1 < argc) threads = atoi(argv[++a]);
        else if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) n_decode = atoi(argv[++a]);
        else if (strcmp(argv[a], "-p") == 0 && a + 1 < argc) user_prompt = argv[++a];
        else if (strcmp(argv[a], "-b") == 0 && a + 1 < argc) lm_backend = argv[++a];
        else if (!model_path) model_path = argv[a], explicit_path = 1;
        else if (!ref_path) ref_path = argv[a];
        else { fprintf(stderr, "usage: %s [model.gguf [reference.txt]] [-t threads] [-n tokens] [-p prompt] [-b backend]\n", argv[0]); return 2; }
    }
    if (!model_path) model_path = "gguf_llm/tiny-q8_0.gguf", ref_path = "../tests/data/gguf_llm_ref.txt";
    if (!explicit_path) {
        FILE *f = fopen(model_path, "rb");
        if (!f) { printf("skip: %s not written (make gguf-llm-models)\n", model_path); return 0; }
        fclose(f);
    }
    if (n_decode < 1 || n_decode > 4096) n_decode = 32;
    if (!lm_load(&m, model_path, threads, 4096 + 64, err, sizeof err)) {
        fprintf(stderr, "cannot load %s: %s\n", model_path, err);
        lm_free(&m);
        return 1;
    }
    memset(&r, 0, sizeof r);
    if (!user_prompt && ref_path) {
        if (!ref_load(ref_path, genie_dtype_name(m.wtype), &m.tok, &r)) {
            fprintf(stderr, "%s: cannot read it, or it has no prompt or no %s steps\n", ref_path, genie_dtype_name(m.wtype));
            ref_free(&r), lm_free(&m);
            return 1;
        }
        n_decode = r.n_steps;
        for (i = 0; i < r.n_steps; i++)
            if (r.steps[i].tok < 0 || r.steps[i].tok >= m.vocab || r.steps[i].alt < 0 || r.steps[i].alt >= m.vocab) {
                fprintf(stderr, "%s: step %d names a token outside the vocabulary (%lld)\n", ref_path, i, (long long)m.vocab);
                ref_free(&r), lm_free(&m);
                return 1;
            }
        printf("tokenizer: %d of %d strings give the reference's ids\n", r.texts_ok, r.texts);
        ok &= r.texts_ok == r.texts;
    }
    if (!user_prompt) user_prompt = r.prompt ? r.prompt : "The GNU General Public License is a free, copyleft license for";
    ids = (int64_t *)malloc(sizeof(int64_t) * (3 * (strlen(user_prompt) + 1) + (size_t)n_decode));
    logits = (float *)malloc(sizeof(float) * (size_t)m.vocab);
    {
        size_t longest = 0;
        for (i = 0; i < m.vocab; i++)
            if (strlen(m.tok.tokens[i]) > longest) longest = strlen(m.tok.tokens[i]);
        piece = (char *)malloc(longest + 1); /* a token's bytes are at most its characters */
    }
    {
        int *pids = (int *)malloc(sizeof(int) * 3 * (strlen(user_prompt) + 1));
        n_prompt = pids ? tokenize(&m.tok, user_prompt, pids) : -1;
        for (i = 0; i < n_prompt; i++) ids[i] = pids[i];
        free(pids);
    }
    if (n_prompt < 1 || n_prompt + n_decode > m.max_seq) {
        fprintf(stderr, "the prompt gives %d tokens (at least 1; with %d more at most %lld)\n", n_prompt, n_decode, (long long)m.max_seq);
        free(ids), free(logits), free(piece), ref_free(&r), lm_free(&m);
        return 1;
    }
    printf("%s: llama, %lld layers, embedding %lld, %lld heads (%lld key/value), vocabulary %lld, weights %s\n", model_path,
           (long long)m.n_layers, (long long)m.d, (long long)m.n_heads, (long long)m.n_kv, (long long)m.vocab, genie_dtype_name(m.wtype));
    printf("%s", user_prompt);
    fflush(stdout);

    genie_set_phase(m.ctx, "prefill");
    t_prefill = lm_now();
    tok = lm_step(&m, ids, 0, n_prompt, logits);
    t_prefill = lm_now() - t_prefill;
    genie_set_phase(m.ctx, "decode");
    t_decode = lm_now();
    for (i = 0; i < n_decode && tok >= 0; i++) {
        if (r.steps) { /* check the step; continue from the reference's token */
            const ref_step *s = &r.steps[i];
            double e1 = fabs(logits[s->tok] - s->logit), e2 = fabs(logits[s->alt] - s->alt_logit), bound = logit_bound(m.wtype);
            if (e1 > max_err) max_err = e1;
            if (e2 > max_err) max_err = e2;
            if (e1 > bound || e2 > bound) {
                printf("\nstep %d: logits %.6f %.6f, the reference's %.6f %.6f: more than %g apart\n", i, logits[s->tok],
                       logits[s->alt], s->logit, s->alt_logit, bound);
                ok = 0;
            }
            if (tok != s->tok) {
                int allowed = s->logit - s->alt_logit < 2 * bound && ++flips <= MAX_FLIPS;
                printf("\nstep %d: token %lld, the reference's %lld (its two best logits %.4f apart: %s)\n", i, (long long)tok,
                       (long long)s->tok, s->logit - s->alt_logit, allowed ? "a near-tie, allowed" : "NOT allowed");
                ok &= allowed;
                tok = s->tok;
            }
        }
        ids[n_prompt + i] = tok;
        detokenize(&m.tok, (int)tok, piece);
        printf("%s", piece);
        fflush(stdout);
        if (i + 1 < n_decode) tok = lm_step(&m, &ids[n_prompt + i], n_prompt + i, 1, logits);
    }
    t_decode = lm_now() - t_decode;
    printf("\n");
    if (genie_status(m.ctx) != GENIE_OK) { printf("error: %s\n", genie_last_error(m.ctx)); ok = 0; }
    printf("prefill: %d tokens in %.1f ms (%.1f tokens/s); decode: %d tokens in %.1f ms (%.1f tokens/s)\n", n_prompt,
           t_prefill * 1e3, n_prompt / t_prefill, n_decode, t_decode * 1e3, n_decode / t_decode);
    if (r.steps)
        printf("%d tokens against transformers in float64 on the file's weights: %d flips at near-ties (at most %d allowed), "
               "largest logit error %.2g (bound %g)\n", n_decode, flips, MAX_FLIPS, max_err, logit_bound(m.wtype));
    if (lm_backend) {
        genie_stats st = genie_get_stats(m.ctx);
        printf("backend %s: %llu nodes on it, %llu on the CPU; %llu bytes sent in %llu messages, %llu received; %llu round trips\n",
               lm_backend, (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks,
               (unsigned long long)st.remote_bytes_sent, (unsigned long long)st.remote_messages_sent,
               (unsigned long long)st.remote_bytes_received, (unsigned long long)st.remote_round_trips);
    }
    free(ids), free(logits), free(piece);
    ref_free(&r);
    lm_free(&m);
    printf("%s\n", ok ? "ok" : "FAILED");
    return !ok;
}
#endif
