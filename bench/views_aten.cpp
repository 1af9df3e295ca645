// bench/views_aten.cpp - the peer of bench/views.c: the same measurements in PyTorch eager
// (ATen from C++, no Python overhead), printed as one line for `make bench` to put beside genie.
// Built only where Debian's libtorch-dev is installed.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <cstdio>
#include "bench_util.h"

int main() {
    const int n = 1000000;
    at::set_num_threads(1);
    double view_ns, add_ns, r1 = 1e30, r100 = 1e30;
    {
        at::Tensor t = at::zeros({64, 64});
        std::vector<at::Tensor> keep;
        keep.reserve(n);
        double t0 = bench_now();
        for (int i = 0; i < n; i++) {
            switch (i & 3) {
            case 0: t = t.transpose(0, 1); break;
            case 1: t = t.unsqueeze(0); break;
            case 2: t = t.squeeze(0); break;
            default: t = t.slice(1, 0, 64, 1); break;
            }
            keep.push_back(t); // genie's pool keeps every handle alive too
        }
        view_ns = (bench_now() - t0) * 1e9 / n;
    }
    {
        at::Tensor t = at::zeros({64, 64});
        double t0 = bench_now();
        for (int i = 0; i < n / 10; i++) t = t.add(1.0); // eager: each add also computes 4096 elements
        add_ns = (bench_now() - t0) * 1e9 / (n / 10);
    }
    {
        at::Tensor x = at::randn({1024, 1024});
        at::Tensor one = x.transpose(0, 1), chain = x;
        for (int i = 0; i < 99; i++) chain = (i & 1) ? chain.slice(0, 0, 1024, 1) : chain.transpose(0, 1);
        chain = chain.unsqueeze(0).squeeze(0).transpose(0, 1);
        for (int r = 0; r < 7; r++) {
            double t0 = bench_now();
            double s = one.sum().item<double>();
            double dt = bench_now() - t0;
            r1 = dt < r1 ? dt : r1;
            t0 = bench_now();
            s += chain.sum().item<double>();
            dt = bench_now() - t0;
            r100 = dt < r100 ? dt : r100;
            if (s != s) std::printf("nan\n");
        }
    }
    double cp[3] = {1e30, 1e30, 1e30}; // contiguous() of views, as bench/views.c's copy_ms
    {
        at::Tensor xs[3] = {at::randn({4096, 4096}), at::randn({3072, 768}), at::randn({128, 12, 64})};
        for (int f = 0; f < 3; f++)
            for (int r = 0; r < 7; r++) {
                double t0 = bench_now();
                at::Tensor y = f == 2 ? xs[f].permute({1, 0, 2}).contiguous() : xs[f].t().contiguous();
                double dt = bench_now() - t0;
                cp[f] = dt < cp[f] ? dt : cp[f];
            }
    }
    std::printf("%.1f %.1f %.3f %.3f %.3f %.3f %.3f\n", view_ns, add_ns, r1 * 1e3, r100 * 1e3, cp[0] * 1e3, cp[1] * 1e3,
                cp[2] * 1e3);
    return 0;
}
