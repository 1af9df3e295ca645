// bench/attention_aten.cpp - the PyTorch eager peer of bench/attention.c: the same cases, the
// math composition of attention in ATen from C++ (matmul, scale, masked_fill for causal,
// softmax, matmul; grouped-query: a group's query heads viewed as rows), timed the same
// way (one warm-up, then the median of enough calls for ~0.5 s, at least 3; the result freed
// inside the timing). Prints one line of `name@threads=seconds` words for bench/attention.c.
// Threads: at::set_num_threads and OpenBLAS's (Debian's PyTorch calls OpenBLAS for f32
// products; its threads follow openblas_set_num_threads, weak so another BLAS still links).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include "bench_util.h"

extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

namespace {
struct Case {
    const char *name;
    int64_t H, Hkv, L, S, E;
    bool causal;
};
const Case cases[] = {
    {"prefill", 8, 8, 2048, 2048, 64, false},
    {"prefill_causal", 8, 8, 2048, 2048, 64, true},
    {"decode", 8, 8, 1, 2048, 64, false},
    {"decode_gqa", 8, 2, 1, 2048, 64, false},
};

at::Tensor attention(const Case &c, const at::Tensor &q, const at::Tensor &k, const at::Tensor &v, const at::Tensor &mask) {
    at::Tensor qq = c.Hkv != c.H ? q.view({1, c.Hkv, c.H / c.Hkv * c.L, c.E}) : q; // a group's query heads as rows
    at::Tensor s = at::matmul(qq, k.transpose(-2, -1)) * (1.0 / std::sqrt((double)c.E));
    if (c.causal) s = s.masked_fill(mask, -INFINITY);
    return at::matmul(at::softmax(s, -1), v).view({1, c.H, c.L, c.E});
}
}  // namespace

int main() {
    at::TensorOptions o = at::TensorOptions().dtype(at::kFloat);
    for (const Case &c : cases) {
        at::Tensor q = at::randn({1, c.H, c.L, c.E}, o), k = at::randn({1, c.Hkv, c.S, c.E}, o), v = at::randn({1, c.Hkv, c.S, c.E}, o);
        at::Tensor mask = at::ones({c.L, c.S}, at::TensorOptions().dtype(at::kBool)).triu(1);
        for (int t = 1; t <= 2; t++) {
            at::set_num_threads(t);
            if (openblas_set_num_threads) openblas_set_num_threads(t);
            { at::Tensor r = attention(c, q, k, v, mask); }
            std::vector<double> ts;
            double total = 0;
            while (ts.size() < 200 && (ts.size() < 3 || total < 0.5)) {
                double t0 = bench_now();
                { at::Tensor r = attention(c, q, k, v, mask); }
                ts.push_back(bench_now() - t0);
                total += ts.back();
            }
            std::printf("%s@%d=%.9g ", c.name, t, bench_median(ts.data(), (int)ts.size()));
        }
    }
    std::printf("\n");
    return 0;
}
