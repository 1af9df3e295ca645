// bench/tape_aten.cpp - the PyTorch eager peer of bench/tape.c (ATen from C++, no Python
// overhead). Prints one line of key=value tokens that `make bench` passes to bench/tape.c, and
// writes the transformer block's input, weights and reference output (argv[1]) for tape.c to
// check genie against. Built only where Debian's libtorch-dev is installed.
//
// Threads: Debian's PyTorch runs f32 products on OpenBLAS, whose threads follow
// openblas_set_num_threads, not at::set_num_threads; both are pinned. At 1 thread both are 1; at
// 2 threads every split (torch 2/BLAS 2, 2/1, 1/2) is timed and the best is reported, with the
// winning split. Run with OPENBLAS_CORETYPE=SkylakeX (AVX-512) or Haswell (AVX2) and
// OPENBLAS_L2_SIZE unset (the Makefile does): the corename is printed so the table says which
// OpenBLAS kernel ran.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/nn/modules/transformerlayer.h>
#include <torch/utils.h>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#include "bench_util.h"

extern "C" {
void openblas_set_num_threads(int n);
char *openblas_get_corename(void);
}

// median seconds of reps runs after warm warm-up runs
static double median_s(int warm, int reps, const std::function<void()> &f) {
    for (int i = 0; i < warm; i++) f();
    std::vector<double> t;
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now();
        f();
        t.push_back(bench_now() - t0);
    }
    return bench_median(t.data(), (int)t.size());
}

struct Split { int torch, blas; };

// best (lowest) median over the splits for this thread count; writes the winning split
static double best_split(int threads, std::string *won, const std::function<double()> &f) {
    std::vector<Split> splits;
    if (threads == 1) splits = {{1, 1}};
    else splits = {{2, 2}, {2, 1}, {1, 2}};
    double best = 1e30;
    for (const Split &s : splits) {
        at::set_num_threads(s.torch);
        openblas_set_num_threads(s.blas);
        double t = f();
        if (t < best) {
            best = t;
            *won = std::to_string(s.torch) + "/" + std::to_string(s.blas);
        }
    }
    return best;
}

static at::Tensor chain8(const at::Tensor &x, const at::Tensor &y) {
    at::Tensor t = x + y;
    t = t * y;
    t = at::relu(t);
    t = at::gelu(t);
    t = t - x;
    t = t * 0.5;
    t = at::square(t);
    return at::silu(t);
}

struct Block {
    at::Tensor wqkv, bqkv, wo, bo, ln1w, ln1b, w1, b1, w2, b2, ln2w, ln2b;
};

// the block's math, spelled out: x [S, D]
static at::Tensor block_math(const at::Tensor &x, const Block &w, int64_t heads) {
    int64_t S = x.size(0), D = x.size(1), hd = D / heads;
    at::Tensor qkv = at::linear(x, w.wqkv, w.bqkv);
    at::Tensor q = qkv.slice(1, 0, D).view({S, heads, hd}).transpose(0, 1);
    at::Tensor k = qkv.slice(1, D, 2 * D).view({S, heads, hd}).transpose(0, 1);
    at::Tensor v = qkv.slice(1, 2 * D, 3 * D).view({S, heads, hd}).transpose(0, 1);
    at::Tensor p = at::softmax(at::matmul(q, k.transpose(1, 2)) * (1.0 / std::sqrt((double)hd)), -1);
    at::Tensor o = at::matmul(p, v).transpose(0, 1).reshape({S, D});
    at::Tensor x1 = at::layer_norm(x + at::linear(o, w.wo, w.bo), {D}, w.ln1w, w.ln1b, 1e-5);
    at::Tensor f = at::linear(at::gelu(at::linear(x1, w.w1, w.b1)), w.w2, w.b2);
    return at::layer_norm(x1 + f, {D}, w.ln2w, w.ln2b, 1e-5);
}

static void put(FILE *f, const at::Tensor &t) {
    at::Tensor c = t.contiguous().to(at::kFloat);
    fwrite(c.data_ptr<float>(), sizeof(float), (size_t)c.numel(), f);
}

int main(int argc, char **argv) {
    const char *q = std::getenv("BENCH_QUICK");
    bool quick = q && *q && *q != '0';
    const int64_t n_chain = quick ? (1 << 20) : (1 << 24);
    const int chain_reps = quick ? 3 : 7, block_reps = quick ? 5 : 21, tiny_reps = quick ? 3 : 5;
    const int n_tiny = quick ? 10000 : 100000, n_add = quick ? 10000 : 100000;
    const int64_t S = 128, D = 512, H = 8, F = 2048;
    torch::NoGradGuard no_grad;
    std::string out = std::string("corename=") + openblas_get_corename();
    char buf[256];

    // 1. the 8-op elementwise chain
    {
        at::Tensor x = at::randn({n_chain}), y = at::randn({n_chain});
        for (int th = 1; th <= 2; th++) {
            std::string won;
            double t = best_split(th, &won, [&] {
                return median_s(1, chain_reps, [&] { at::Tensor r = chain8(x, y); });
            });
            std::snprintf(buf, sizeof buf, " chain%d=%.6g chain%d_split=%s", th, t, th, won.c_str());
            out += buf;
        }
    }

    // 2. the transformer encoder block: torch::nn::TransformerEncoderLayer in eval mode (the C++
    // module has no fast path and no batch_first: it takes [S, 1, D]) and the fast path that
    // Python's module takes in eval/no-grad, at::_transformer_encoder_layer_fwd ([1, S, D])
    {
        at::manual_seed(7);
        Block w;
        double sc = 1.0 / std::sqrt((double)D);
        w.wqkv = at::randn({3 * D, D}) * sc; w.bqkv = at::randn({3 * D}) * 0.1;
        w.wo = at::randn({D, D}) * sc;       w.bo = at::randn({D}) * 0.1;
        w.ln1w = 1 + 0.1 * at::randn({D});  w.ln1b = 0.1 * at::randn({D});
        w.w1 = at::randn({F, D}) * sc;       w.b1 = at::randn({F}) * 0.1;
        w.w2 = at::randn({D, F}) * (1.0 / std::sqrt((double)F)); w.b2 = at::randn({D}) * 0.1;
        w.ln2w = 1 + 0.1 * at::randn({D});  w.ln2b = 0.1 * at::randn({D});
        at::Tensor x = at::randn({S, D});

        torch::nn::TransformerEncoderLayer layer(
            torch::nn::TransformerEncoderLayerOptions(D, H).dim_feedforward(F).dropout(0.0).activation(torch::kGELU));
        layer->eval();
        layer->self_attn->in_proj_weight.copy_(w.wqkv);
        layer->self_attn->in_proj_bias.copy_(w.bqkv);
        layer->self_attn->out_proj->weight.copy_(w.wo);
        layer->self_attn->out_proj->bias.copy_(w.bo);
        layer->linear1->weight.copy_(w.w1); layer->linear1->bias.copy_(w.b1);
        layer->linear2->weight.copy_(w.w2); layer->linear2->bias.copy_(w.b2);
        layer->norm1->weight.copy_(w.ln1w); layer->norm1->bias.copy_(w.ln1b);
        layer->norm2->weight.copy_(w.ln2w); layer->norm2->bias.copy_(w.ln2b);
        at::Tensor xs = x.unsqueeze(1), xb = x.unsqueeze(0);
        auto fast = [&] {
            return at::_transformer_encoder_layer_fwd(xb, D, H, w.wqkv, w.bqkv, w.wo, w.bo, true, false, 1e-5,
                                                      w.ln1w, w.ln1b, w.ln2w, w.ln2b, w.w1, w.b1, w.w2, w.b2);
        };
        at::set_num_threads(1);
        openblas_set_num_threads(1);
        at::Tensor ref = block_math(x, w, H);
        double d_mod = (layer->forward(xs).squeeze(1) - ref).abs().max().item<double>();
        double d_fast = (fast().squeeze(0) - ref).abs().max().item<double>();
        if (argc > 1) {
            FILE *f = std::fopen(argv[1], "wb");
            if (f) {
                put(f, x);
                put(f, w.wqkv); put(f, w.bqkv); put(f, w.wo); put(f, w.bo); put(f, w.ln1w); put(f, w.ln1b);
                put(f, w.w1); put(f, w.b1); put(f, w.w2); put(f, w.b2); put(f, w.ln2w); put(f, w.ln2b);
                put(f, ref);
                std::fclose(f);
                out += std::string(" block_file=") + argv[1];
            }
        }
        std::snprintf(buf, sizeof buf, " block_module_diff=%.3g block_fast_diff=%.3g", d_mod, d_fast);
        out += buf;
        for (int th = 1; th <= 2; th++) {
            std::string wm, wf;
            double tm = best_split(th, &wm, [&] {
                return median_s(3, block_reps, [&] { at::Tensor r = layer->forward(xs); });
            });
            double tf = best_split(th, &wf, [&] {
                return median_s(3, block_reps, [&] { at::Tensor r = fast(); });
            });
            std::snprintf(buf, sizeof buf, " block_module%d=%.6g block_module%d_split=%s block_fast%d=%.6g block_fast%d_split=%s",
                          th, tm, th, wm.c_str(), th, tf, th, wf.c_str());
            out += buf;
        }
    }

    // 3. tiny nodes: a chain of add(1.0) on a [16] tensor; 4. eager add on [64,64] (it computes)
    {
        at::Tensor t0 = at::zeros({16}), u0 = at::zeros({64, 64});
        for (int th = 1; th <= 2; th++) {
            at::set_num_threads(th);
            openblas_set_num_threads(th);
            double t = median_s(1, tiny_reps, [&] {
                at::Tensor t = t0;
                for (int i = 0; i < n_tiny; i++) t = t.add(1.0);
            });
            double u = median_s(1, tiny_reps, [&] {
                at::Tensor t = u0;
                for (int i = 0; i < n_add; i++) t = t.add(1.0);
            });
            std::snprintf(buf, sizeof buf, " tiny%d=%.6g add64%d=%.6g", th, t * 1e9 / n_tiny, th, u * 1e9 / n_add);
            out += buf;
        }
    }
    std::printf("%s\n", out.c_str());
    return 0;
}
