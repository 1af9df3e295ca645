/* vmath_bounds.h - the stated error bounds of the SIMD paths' (avx2, avx512) transcendental
   array kernels, in ulp from the reference (GENIE_CPU_REFERENCE: the libm formula in double,
   rounded to f32), shared by tests/unit/test_vmath.c (a dense sweep with the specials, in make
   test) and tests/unit/vmath_all.c (every f32 input, make test-vmath-all), which measured them.
   gelu and gelu_tanh are also held to their bound for x >= -5 only: below, the reference
   cancels (1 + erf, 1 + tanh in double) and a result within 1e-14 of it passes too.
   X(name, genie function, bound) */
#ifndef VMATH_BOUNDS_H
#define VMATH_BOUNDS_H
#define VM_TRANSCENDENTALS(X)                                                              \
    X(exp, genie_exp, 1) X(log, genie_log, 1) X(log1p, genie_log1p, 1) X(expm1, genie_expm1, 1) \
    X(tanh, genie_tanh, 2) X(sigmoid, genie_sigmoid, 2) X(silu, genie_silu, 3)             \
    X(erf, genie_erf, 1) X(gelu, genie_gelu, 4) X(gelu_tanh, genie_gelu_tanh, 4)           \
    X(pow_half, vm_pow_half, 0) X(pow_3, vm_pow_3, 0) X(pow_4, vm_pow_4, 0) X(pow_m2, vm_pow_m2, 0)       \
    X(pow_mhalf, vm_pow_mhalf, 0) X(pow_1half, vm_pow_1half, 0) X(pow_2half, vm_pow_2half, 0)     \
    X(pow_third, vm_pow_third, 0) X(pow_m7, vm_pow_m7, 0) X(pow_base, vm_pow_base, 0)
/* x ** 0.5: the SIMD paths' square root against the reference's pow, exact; x ** 3, 4, -2,
   -0.5, 1.5: computed in f64 (POWK), exact */
static genie_tensor *vm_pow_half(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, 0.5); }
static genie_tensor *vm_pow_3(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, 3.0); }
static genie_tensor *vm_pow_4(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, 4.0); }
static genie_tensor *vm_pow_m2(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, -2.0); }
static genie_tensor *vm_pow_mhalf(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, -0.5); }
static genie_tensor *vm_pow_1half(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, 1.5); }
/* general pow (f64 lanes, libm's pow where their result could round otherwise), exact: x ** 2.5,
   x ** (1/3) (a scalar no f32 holds), x ** -7 (an odd integer: negative x), 2.5 ** x */
static genie_tensor *vm_pow_2half(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, 2.5); }
static genie_tensor *vm_pow_third(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, 1.0 / 3.0); }
static genie_tensor *vm_pow_m7(genie_ctx *c, genie_tensor *t) { return genie_pow_scalar(c, t, -7.0); }
static genie_tensor *vm_pow_base(genie_ctx *c, genie_tensor *t) {
    int64_t one = 1, n = genie_numel(t);
    return genie_pow(c, genie_expand(c, genie_full(c, GENIE_F32, 1, &one, 2.5), 1, &n), t);
}
/* sin and cos keep f64 kernels: <= 1 ulp */
#define VM_ULP_TRIG 1
#define VM_BOUND_ENUM(name, fn, ulp) VM_ULP_##name = ulp,
enum { VM_TRANSCENDENTALS(VM_BOUND_ENUM) VM_ULP_COUNT_ };
#undef VM_BOUND_ENUM
#endif
