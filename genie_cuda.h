/* genie_cuda.h - what genie_cuda.c (the CUDA backend) exports.
 *
 * genie_cuda.c is genie's implementation translation unit with the CUDA backend in it: a program
 * links genie_cuda.o instead of defining GENIE_IMPLEMENTATION, includes genie.h as usual and
 * this header where it calls the functions below:
 *
 *     cc -std=c99 -O2 -I/usr/local/cuda/include -c genie_cuda.c
 *     cc app.c genie_cuda.o -L/usr/local/cuda/lib64 -lcudart -lcublas -lnvrtc -lm -pthread
 *
 * docs/cuda.md describes the backend: what runs on the GPU, its environment variables and its
 * tests. */
#ifndef GENIE_CUDA_H
#define GENIE_CUDA_H

#include "genie.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the backends "cuda" (computes on GPU GENIE_CUDA_DEVICE, default 0) and "cuda-compile"
   (no GPU needed: generates and compiles every kernel with NVRTC, then computes on the CPU) in
   genie's backend table; select one with genie_ctx_desc.backend. With GCC and Clang this runs at
   load time; calling it again is harmless (the same name replaces itself). GENIE_OK, or the
   error of genie_backend_register. */
genie_result genie_cuda_register(void);

#ifdef __cplusplus
}
#endif
#endif /* GENIE_CUDA_H */
