/* llm_weights.h - the GPT-2-small-sized model of bench/llm.c and its PyTorch
   peer bench/llm_torch.py: the configuration and the weights, generated from a
   hash of (tensor seed, element index) so that C and NumPy make the same bits
   without a 500 MB file between them:
     u = splitmix64((seed << 40) + i) >> 40      (24 random bits)
     w = (float)((u * 2^-24 * 2 - 1) * a)        (uniform in [-a, a), in double, rounded once)
   with a = sqrt(3 / fan_in) for the products (variance 1 / fan_in), 0.1 for the
   embeddings, 0.02 for the biases; LayerNorm weights 1, biases 0. */
#ifndef LLM_WEIGHTS_H
#define LLM_WEIGHTS_H
#include <stdint.h>
#include <math.h>

enum { LLM_D = 768, LLM_L = 12, LLM_H = 12, LLM_F = 3072, LLM_V = 50257, LLM_CTX = 1024, LLM_PROMPT = 128, LLM_DECODE = 64 };

static uint64_t llm_splitmix(uint64_t x) {
    uint64_t z = x + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static void llm_fill(float *w, int64_t n, uint64_t seed, double a) {
    int64_t i;
    for (i = 0; i < n; i++) {
        double u = (double)(llm_splitmix((seed << 40) + (uint64_t)i) >> 40) * (1.0 / 16777216.0);
        w[i] = (float)((u * 2.0 - 1.0) * a);
    }
}
/* Tensor seeds: wte 1, wpe 2, then per layer l: 100 + 10 l + {0 qkv.w, 1 qkv.b, 2 o.w, 3 o.b,
   4 fc.w, 5 fc.b, 6 proj.w, 7 proj.b}. The prompt: token i is (i * 7919 + 13) % V. */
#endif
