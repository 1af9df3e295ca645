// bench/gemm_aten.cpp - the PyTorch eager peer of bench/gemm.c: the same cases (bench/gemm_cases.h),
// picked the same way (case names in argv, BENCH_QUICK=1), timed the same way, in ATen from C++.
// Prints one line of `name@threads=seconds` words (median seconds per call) for bench/gemm.c to
// put beside genie. Built only where Debian's libtorch-dev is installed.
//
// Threads: Debian's PyTorch calls OpenBLAS for f32/f64 products, and OpenBLAS's threads follow
// OPENBLAS_NUM_THREADS (read once, at load), not at::set_num_threads: both are pinned to the
// thread count, OpenBLAS's through openblas_set_num_threads (weak, so a libtorch built on another
// BLAS still links and runs; the line then says it was not pinned).
#include "gemm_cases.h"
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <cstdio>
#include <vector>
#if __has_include(<torch/csrc/api/include/torch/version.h>)
#include <torch/csrc/api/include/torch/version.h>
#define GB_TORCH_VERSION TORCH_VERSION
#else
#define GB_TORCH_VERSION "?"
#endif

extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

namespace {

struct Inputs {
    const gb_case *c;
    at::Tensor x;               // matmul, linear: [m,k]; conv: [b,c,h,w]
    std::vector<at::Tensor> w;  // gb_copies(c) weights, one per call in turn: [k,n]; [n,k]; [o,c,r,r]
    size_t next = 0;
};

at::ScalarType scalar_type(gb_dtype dt) { return dt == GB_F64 ? at::kDouble : dt == GB_BF16 ? at::kBFloat16 : at::kFloat; }

Inputs make_inputs(const gb_case *c) {
    at::TensorOptions o = at::TensorOptions().dtype(scalar_type(c->dt));
    Inputs in;
    in.c = c;
    in.x = c->kind == GB_CONV ? at::randn({c->b, c->c, c->h, c->w}, o) : at::randn({c->m, c->k}, o);
    for (int i = 0; i < gb_copies(c); i++) {
        if (c->kind == GB_CONV) in.w.push_back(at::randn({c->o, c->c, c->r, c->r}, o));
        else in.w.push_back(c->kind == GB_LINEAR ? at::randn({c->n, c->k}, o) : at::randn({c->k, c->n}, o));
    }
    return in;
}

at::Tensor op(const gb_case *c, const at::Tensor &x, const at::Tensor &w) {
    if (c->kind == GB_MATMUL) return at::matmul(x, w);
    if (c->kind == GB_LINEAR) return at::linear(x, w);
    return at::conv2d(x, w, {}, {c->stride, c->stride}, {c->pad, c->pad});
}

double once(void *arg) { // one eager call with the next weight; its result is freed inside the
    Inputs *in = static_cast<Inputs *>(arg); // timing, as genie's pool is
    const at::Tensor &w = in->w[in->next++ % in->w.size()];
    double t0 = bench_now();
    {
        at::Tensor y = op(in->c, in->x, w);
    }
    return bench_now() - t0;
}

void pin_threads(int t) {
    at::set_num_threads(t);
    if (openblas_set_num_threads) openblas_set_num_threads(t);
}

} // namespace

int main(int argc, char **argv) {
    const int quick = gb_quick();
    const double target = quick ? 0.1 : 0.3;
    std::printf("aten=%s aten_openblas_pinned=%d", GB_TORCH_VERSION, openblas_set_num_threads ? 1 : 0);
    for (int i = 0; i < GB_NCASES; i++) {
        const gb_case *c = &gb_cases[i];
        if (!gb_selected(c, argc, argv, quick)) continue;
        Inputs in = make_inputs(c);
        for (int j = 0; j < GB_NTHREADS; j++) {
            pin_threads(gb_threads[j]);
            double s = gb_median(once, &in, once(&in), target);
            std::printf(" %s@%d=%.9g", c->name, gb_threads[j], s);
            std::fflush(stdout);
        }
    }
    std::printf("\n");
    return 0;
}
