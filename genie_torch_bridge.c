/* genie_torch_bridge.c - genie as a lazy PyTorch device.
 *
 * C++ by necessity (ATen is C++): compile with `c++ -x c++` (`make torch` builds
 * build/libgenie_torch.so against Debian's libtorch 1.13; TORCH_VERSION_MAJOR guards keep
 * the same file building against torch 2.x).
 *
 * Load it with torch.ops.load_library("build/libgenie_torch.so") or `import genie_torch`.
 * The device is PyTorch's PrivateUse1 key: `privateuseone` on torch 1.13, renamed
 * `remote_accelerator` on torch >= 2.0.
 *
 * A tensor on the device is a GenieImpl: a storage-less TensorImpl holding one genie handle
 * (storage + ViewSpec), released when PyTorch frees it. Sizes, strides and storage offsets
 * are genie's, which are PyTorch's for the same operations.
 *
 * Every kernel here is boxed: it inspects its arguments on the stack and either captures the
 * operation lazily in genie (counted as "captured") or hands the same stack to the boxed CPU
 * fallback (counted as "fallback"): inputs are materialized, the operation runs on CPU,
 * mutated arguments are written back through genie (so aliasing holds), results wrapped back.
 * Operations with no kernel here reach the fallback directly.
 *
 * One recursive mutex guards the bridge's genie context (PyTorch frees and runs backward on
 * other threads); the context runs with no_pool (PyTorch owns lifetimes). Genie errors become
 * Python exceptions (TORCH_CHECK) carrying genie's message.
 */
/* GCC 12 in C++ mode flags _mm512_reduce_add_ps (inlined into genie.h's AVX-512 kernels) as
   maybe-uninitialized: a false positive in the compiler's own intrinsics header */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* GENIE_TORCH_REMOTE (`make torch-remote`): genie's implementation comes from
   build/genie_remote_pic.o (genie_remote.c, with the "remote" backend), linked beside */
#ifndef GENIE_TORCH_REMOTE
#define GENIE_IMPLEMENTATION
#endif
#include "genie.h"
#ifdef GENIE_TORCH_REMOTE
#include "genie_remote.h"
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/InferSize.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>
#include <torch/version.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

/* Every difference between the torch versions this file builds against, in one place:
   GENIE_TORCH_RENAME  (2.0+) c10::register_privateuse1_backend names the device remote_accelerator
   GENIE_TORCH_HOOKS   (2.6+) PrivateUse1HooksInterface with isAvailable/generators/pinned memory,
                       which torch.accelerator, torch.Generator(device=...) and pin_memory consult
   GENIE_TORCH_SYNC    (2.4+) DeviceGuardImplInterface::synchronizeDevice (torch.accelerator.synchronize)
   GENIE_TORCH_SAFE_SOFTMAX (2.5+) aten::_safe_softmax, which scaled_dot_product_attention calls
   GENIE_TORCH_AUTOCAST (2.5+) ATen's autocast policy lists and KERNEL_PRIVATEUSEONE
   GENIE_TORCH_SDPA    (2.5+) scaled_dot_product_attention's overrideable backend: its choice
                       (_fused_sdp_choice_stub) and aten::_scaled_dot_product_fused_attention_overrideable
   Without the hooks (1.13) random tensors on the device draw from PyTorch's CPU generator. */
#define GENIE_TORCH_AT_LEAST(ma, mi) (TORCH_VERSION_MAJOR > (ma) || (TORCH_VERSION_MAJOR == (ma) && TORCH_VERSION_MINOR >= (mi)))
#define GENIE_TORCH_RENAME GENIE_TORCH_AT_LEAST(2, 0)
#define GENIE_TORCH_HOOKS GENIE_TORCH_AT_LEAST(2, 6)
#define GENIE_TORCH_SYNC GENIE_TORCH_AT_LEAST(2, 4)
#define GENIE_TORCH_SAFE_SOFTMAX GENIE_TORCH_AT_LEAST(2, 5)
#define GENIE_TORCH_AUTOCAST GENIE_TORCH_AT_LEAST(2, 5)
/* bitwise_and/or/xor.Scalar take a backend's kernel (1.13: a backend's kernel for them leaves
   their autograd key without one; its composite reaches .Tensor, which is captured) */
#define GENIE_TORCH_BITWISE_SCALAR GENIE_TORCH_AT_LEAST(2, 0)
#if defined(__has_include)
#if __has_include(<ATen/ops/_scaled_dot_product_fused_attention_overrideable.h>)
#define GENIE_TORCH_SDPA 1
#endif
#endif
#ifndef GENIE_TORCH_SDPA
#define GENIE_TORCH_SDPA 0
#endif
#if GENIE_TORCH_AUTOCAST
#include <ATen/autocast_mode.h> /* KERNEL_PRIVATEUSEONE and ATen's autocast policy lists */
#endif
#if GENIE_TORCH_RENAME
#include <c10/core/DeviceType.h> /* c10::register_privateuse1_backend */
#endif
#if GENIE_TORCH_HOOKS
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <unordered_set>
#endif
#include <ATen/Parallel.h> /* at::get_num_threads */
#if GENIE_TORCH_SDPA
#include <ATen/native/DispatchStub.h>
#include <ATen/native/transformers/attention.h> /* _fused_sdp_choice_stub */
#endif

namespace {

using Stack = torch::jit::Stack;
using c10::IValue;
const c10::DeviceType kDev = c10::DeviceType::PrivateUse1;
const c10::Device kDevice(kDev, 0); /* device index -1 is normalised to 0 everywhere */

/* ------------------------------------------------------------------ context */
std::recursive_mutex g_mu;
genie_ctx *g_ctx = nullptr;
typedef std::lock_guard<std::recursive_mutex> Lock;

/* The backend the environment asks for: GENIE_REMOTE=host:port runs the device's tapes on a
   genie-server (docs/remote.md; GENIE_REMOTE_KEY_FILE names the key file), in a bridge built
   with the remote backend (make torch-remote); NULL otherwise (the CPU). */
const char *env_backend() {
    const char *addr = getenv("GENIE_REMOTE");
    if (!addr || !*addr) return nullptr;
#ifdef GENIE_TORCH_REMOTE
    return "remote";
#else
    TORCH_CHECK(false, "genie: GENIE_REMOTE is set but this bridge has no remote backend (build it with make torch-remote)");
    return nullptr;
#endif
}

genie_ctx *ctx() {
    if (!g_ctx) {
        genie_ctx_desc d;
        memset(&d, 0, sizeof d);
        d.no_pool = 1;
        d.backend = env_backend();
        g_ctx = genie_ctx_create(&d);
        TORCH_CHECK(g_ctx, "genie: cannot create the context");
        if (d.backend && genie_status(g_ctx) != GENIE_OK) { /* an unreachable server: say so, not run on the CPU */
            std::string why = genie_last_error(g_ctx);
            genie_ctx_destroy(g_ctx);
            g_ctx = nullptr;
            TORCH_CHECK(false, "genie: ", why);
        }
    }
    return g_ctx;
}

/* genie's kernels use as many threads as PyTorch's intra-op pool (torch.set_num_threads), read
   where work runs: at each materialization */
int g_threads = 0; /* the count last given to genie (0: genie's default, all cores) */
thread_local int g_serial_saved = 0; /* inside a SerialCpu: the intra-op count it replaced */
void sync_threads() {
    int n = g_serial_saved ? g_serial_saved : at::get_num_threads();
    if (n != g_threads && genie_set_num_threads(ctx(), n) == GENIE_OK) g_threads = n;
}

} // namespace
/* OpenMP's per-thread count, torch's intra-op pool where torch is built with OpenMP (weak:
   null where no OpenMP runtime is loaded, and then SerialCpu does nothing) */
extern "C" void omp_set_num_threads(int) __attribute__((weak));
extern "C" int omp_get_max_threads(void) __attribute__((weak));
namespace {
/* While alive, ATen's CPU kernels on this thread run serially (at::parallel_for takes one
   thread when at::get_num_threads() is 1, which reads OpenMP's count): a fallback on small
   tensors then enters no OpenMP region, whose workers would spin for the cores genie's own
   pool runs the next tape on. Nested guards and a count of 1 leave everything as it is. */
struct SerialCpu {
    int saved = 0;
    explicit SerialCpu(bool on) {
        if (!on || g_serial_saved || !omp_set_num_threads || !omp_get_max_threads) return;
        saved = omp_get_max_threads();
        if (saved <= 1) {
            saved = 0;
            return;
        }
        g_serial_saved = saved;
        omp_set_num_threads(1);
    }
    ~SerialCpu() {
        if (!saved) return;
        omp_set_num_threads(saved);
        g_serial_saved = 0;
    }
    SerialCpu(const SerialCpu &) = delete;
    SerialCpu &operator=(const SerialCpu &) = delete;
};
/* elements of genie tensors below which a fallback runs its CPU work on one thread, and a copy
   to the CPU is made on one thread: a copy or an elementwise kernel over them takes tens of
   microseconds alone */
constexpr int64_t kSerialFallbackElems = 1 << 18;

/* a genie NULL result becomes a Python exception with genie's message */
[[noreturn]] void fail() {
    std::string msg = genie_last_error(ctx());
    genie_clear_error(ctx());
    C10_THROW_ERROR(Error, msg);
}
genie_tensor *ok(genie_tensor *t) {
    if (!t) fail();
    return t;
}
void okr(genie_result r) {
    if (r != GENIE_OK) fail();
}

/* ------------------------------------------------------------------ counters */
struct Counts {
    std::map<std::string, uint64_t> captured, fallback;
    uint64_t fallback_materialized = 0; /* inputs materialized for the fallback */
    uint64_t to_cpu = 0, items = 0;     /* protocol materializations */
};
Counts g_counts;
/* per-operator counters keyed by the schema's address (stable for the process) */
std::unordered_map<const void *, uint64_t *> g_cap_index, g_fb_index;

std::string op_name(const c10::OperatorHandle &op) {
    const auto &n = op.schema().operator_name();
    return n.overload_name.empty() ? n.name : n.name + "." + n.overload_name;
}
void count(const c10::OperatorHandle &op, bool captured) {
    auto &idx = captured ? g_cap_index : g_fb_index;
    const void *key = &op.schema();
    auto it = idx.find(key);
    if (it == idx.end()) {
        auto &m = captured ? g_counts.captured : g_counts.fallback;
        it = idx.emplace(key, &m[op_name(op)]).first;
    }
    ++*it->second;
}

/* ------------------------------------------------------------------ dtypes */
bool to_gd(at::ScalarType s, genie_dtype *out) {
    switch (s) {
    case at::kFloat: *out = GENIE_F32; return true;
    case at::kDouble: *out = GENIE_F64; return true;
    case at::kHalf: *out = GENIE_F16; return true;
    case at::kBFloat16: *out = GENIE_BF16; return true;
    case at::kLong: *out = GENIE_I64; return true;
    case at::kInt: *out = GENIE_I32; return true;
    case at::kShort: *out = GENIE_I16; return true;
    case at::kChar: *out = GENIE_I8; return true;
    case at::kByte: *out = GENIE_U8; return true;
    case at::kBool: *out = GENIE_BOOL; return true;
    default: return false;
    }
}
/* dtypes genie does not compute with are held as raw bits of the same size (complex64 as
   i64, complex32 as i32): views and same-dtype copies work on them, every computation on
   them goes through the fallback */
bool storage_gd(at::ScalarType s, genie_dtype *out) {
    if (to_gd(s, out)) return true;
    if (s == at::kComplexFloat) { *out = GENIE_I64; return true; }
    if (s == at::kComplexHalf) { *out = GENIE_I32; return true; }
    return false;
}
genie_dtype gd(at::ScalarType s) {
    genie_dtype d = GENIE_F32;
    TORCH_CHECK(storage_gd(s, &d), "genie: dtype ", s, " is not supported on the genie device");
    return d;
}
bool is_raw(at::ScalarType s) {
    genie_dtype d;
    return !to_gd(s, &d);
}
at::ScalarType st_of(genie_dtype d) {
    switch (d) {
    case GENIE_F32: return at::kFloat;
    case GENIE_F64: return at::kDouble;
    case GENIE_F16: return at::kHalf;
    case GENIE_BF16: return at::kBFloat16;
    case GENIE_I64: return at::kLong;
    case GENIE_I32: return at::kInt;
    case GENIE_I16: return at::kShort;
    case GENIE_I8: return at::kChar;
    case GENIE_U8: return at::kByte;
    default: return at::kBool;
    }
}

/* ------------------------------------------------------------------ the tensor */
struct GenieImpl final : public c10::TensorImpl {
    genie_tensor *h; /* owned reference */

    GenieImpl(genie_tensor *handle, caffe2::TypeMeta dt)
        : c10::TensorImpl(c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), dt, kDevice), h(handle) {
        set_storage_access_should_throw();
        sync();
    }
    ~GenieImpl() override {
        Lock l(g_mu);
        if (h) genie_release(h);
    }
    /* sizes, strides and offset from the handle */
    void sync() {
        int nd = genie_ndim(h);
        set_sizes_and_strides(c10::IntArrayRef(genie_shape(h), (size_t)nd), c10::IntArrayRef(genie_strides(h), (size_t)nd));
        set_storage_offset(genie_storage_offset(h));
    }
    /* replace the handle (resize_, set_): this tensor only; the handle's aliases keep theirs */
    void reset(genie_tensor *nh) {
        genie_release(h);
        h = nh;
        set_allow_tensor_metadata_change(true);
        sync();
    }

    template <typename VC>
    c10::intrusive_ptr<c10::TensorImpl> detach_core(VC &&vc, bool allow) const {
        {
            Lock l(g_mu);
            genie_retain(h);
        }
        auto impl = c10::make_intrusive<GenieImpl>(h, dtype());
        copy_tensor_metadata(this, impl.get(), std::forward<VC>(vc), allow);
        impl->refresh_numel();
        impl->refresh_contiguous();
        return impl;
    }
    c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach(const c10::VariableVersion &vc, bool allow) const override {
        return detach_core(vc, allow);
    }
    c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach(c10::VariableVersion &&vc, bool allow) const override {
        return detach_core(std::move(vc), allow);
    }
    void shallow_copy_from(const c10::intrusive_ptr<c10::TensorImpl> &impl) override {
        auto *o = dynamic_cast<GenieImpl *>(impl.get());
        TORCH_CHECK(o, "genie: shallow copy from a tensor that is not on the genie device");
        {
            Lock l(g_mu);
            genie_retain(o->h);
            genie_release(h);
            h = o->h;
        }
        copy_tensor_metadata(o, this, version_counter(), allow_tensor_metadata_change());
        refresh_numel();
        refresh_contiguous();
    }
};

bool is_genie(const at::Tensor &t) { return t.defined() && t.device().type() == kDev; }
GenieImpl *gimpl(const at::Tensor &t) {
    auto *g = dynamic_cast<GenieImpl *>(t.unsafeGetTensorImpl());
    TORCH_CHECK(g, "genie: a ", t.device(), " tensor that the genie bridge did not make");
    return g;
}
genie_tensor *H(const at::Tensor &t) { return gimpl(t)->h; }

/* wraps an owned handle (st: the PyTorch dtype when genie holds it as raw bits) */
at::Tensor wrap(genie_tensor *h, at::ScalarType st = at::ScalarType::Undefined) {
    ok(h);
    if (st == at::ScalarType::Undefined) st = st_of(genie_dtype_of(h));
    return at::detail::make_tensor<GenieImpl>(h, c10::scalarTypeToTypeMeta(st));
}
/* a view of `like`: same dtype, same negative/conjugate bits (as PyTorch's views) */
at::Tensor wrapv(const at::Tensor &like, genie_tensor *h) {
    at::Tensor r;
    if (c10::InferenceMode::is_enabled() && !like.is_inference()) {
        /* under inference mode a view of a normal tensor is a normal tensor (PyTorch builds it
           from its base's key set): autograd sets its version counter from the base */
        c10::InferenceMode normal(false);
        r = wrap(h, like.scalar_type());
    } else {
        r = wrap(h, like.scalar_type());
    }
    if (like.is_neg()) r._set_neg(true);
    if (like.is_conj()) r._set_conj(true);
    return r;
}

/* an owned-or-borrowed operand */
struct GT {
    genie_tensor *p = nullptr;
    bool owned = false;
    GT() {}
    GT(const GT &) = delete;
    GT &operator=(const GT &) = delete;
    GT(GT &&o) : p(o.p), owned(o.owned) { o.owned = false; }
    ~GT() {
        if (owned && p) genie_release(p);
    }
};

/* a CPU tensor copied into genie (caller owns) */
genie_tensor *from_cpu(const at::Tensor &src) {
    at::Tensor c = src.resolve_conj().resolve_neg().contiguous();
    std::vector<int64_t> shape(c.sizes().begin(), c.sizes().end());
    return ok(genie_from_data(ctx(), gd(c.scalar_type()), (int)shape.size(), shape.data(), c.data_ptr()));
}
void blob_deleter(void *, void *user) { delete static_cast<at::Tensor *>(user); }
/* a CPU tensor nobody else holds (a fallback result) wrapped without a copy, strides kept */
genie_tensor *adopt_cpu(const at::Tensor &src) {
    at::Tensor c = src.resolve_conj().resolve_neg();
    if (c._is_zerotensor()) c = at::zeros(c.sizes(), c.options().dtype(c.scalar_type())); /* no data behind it */
    if (!c.is_non_overlapping_and_dense()) c = c.contiguous();
    genie_dtype d = gd(c.scalar_type());
    if (c.numel() == 0) {
        std::vector<int64_t> shape(c.sizes().begin(), c.sizes().end());
        return ok(genie_empty(ctx(), d, (int)shape.size(), shape.data()));
    }
    std::vector<int64_t> shape(c.sizes().begin(), c.sizes().end()), strides(c.strides().begin(), c.strides().end());
    auto *keep = new at::Tensor(c);
    genie_tensor *h = genie_from_blob(ctx(), d, (int)shape.size(), shape.data(), strides.data(), c.data_ptr(), blob_deleter, keep);
    if (!h) delete keep;
    return ok(h);
}

/* a genie tensor's value on CPU, with genie's strides where they are dense */
at::Tensor to_cpu(const at::Tensor &t) {
    genie_tensor *h = H(t);
    at::TensorOptions o = at::TensorOptions().dtype(t.scalar_type());
    at::Tensor out;
    if (t.numel() == 0) {
        out = at::empty_strided(t.sizes(), t.strides(), o);
    } else {
        const void *p = nullptr;
        sync_threads();
        okr(genie_data(ctx(), h, &p));
        SerialCpu serial(t.numel() <= kSerialFallbackElems); /* a copy as small runs on this thread */
        out = at::from_blob(const_cast<void *>(p), t.sizes(), t.strides(), o).clone(at::MemoryFormat::Preserve);
    }
    if (t.is_neg()) out = out.neg();
    if (t.is_conj()) out = out.conj_physical();
    return out;
}

/* operand for a captured op: genie tensors as they are, CPU 0-dim tensors (Python scalars) as
   0-dim genie constants of a dtype that promotes as ATen's wrapped number does */
bool operand_ok(const at::Tensor &t) {
    genie_dtype d;
    if (!t.defined()) return false;
    if (is_genie(t)) return !t.is_neg() && !t.is_conj() && to_gd(t.scalar_type(), &d);
    return t.device().is_cpu() && t.dim() == 0 && to_gd(t.scalar_type(), &d);
}
/* an integer scalar v as a 0-dim dt, exact (a double holds integers up to 2^53 only: masks of
   bit operations go past it); the conversion from int64 wraps as ATen's */
GT int_const(int64_t v, at::ScalarType dt) {
    GT g;
    genie_tensor *t = ok(genie_from_data(ctx(), GENIE_I64, 0, nullptr, &v)), *c = t;
    if (gd(dt) != GENIE_I64) {
        c = genie_to_dtype(ctx(), t, gd(dt));
        genie_release(t);
    }
    g.p = ok(c);
    g.owned = true;
    return g;
}
GT operand(const at::Tensor &t, const at::Tensor &other) {
    GT g;
    if (is_genie(t)) {
        g.p = H(t);
        return g;
    }
    at::ScalarType s = t.scalar_type();
    if (t.unsafeGetTensorImpl()->is_wrapped_number() && other.defined()) s = at::result_type(other, t);
    if (c10::isIntegralType(t.scalar_type(), false) && c10::isIntegralType(s, false)) return int_const(t.item<int64_t>(), s);
    double v = t.item<double>();
    g.p = ok(genie_full(ctx(), gd(s), 0, nullptr, v));
    g.owned = true;
    return g;
}
/* an owned result (NULL: genie's error as an exception) */
GT own(genie_tensor *p) {
    GT g;
    g.p = ok(p);
    g.owned = true;
    return g;
}
GT scalar_const(const c10::Scalar &s, at::ScalarType dt) {
    GT g;
    if (s.isIntegral(false) && c10::isIntegralType(dt, false)) return int_const(s.toLong(), dt);
    g.p = ok(genie_full(ctx(), gd(dt), 0, nullptr, s.toDouble()));
    g.owned = true;
    return g;
}

/* ------------------------------------------------------------------ boxed helpers */
struct Args {
    Stack *s;
    size_t n, base;
    Args(const c10::OperatorHandle &op, Stack *st) : s(st), n(op.schema().arguments().size()), base(st->size() - n) {}
    IValue &operator[](size_t i) { return (*s)[base + i]; }
    at::Tensor t(size_t i) { return (*this)[i].toTensor(); }
    bool none(size_t i) { return i >= n || (*this)[i].isNone(); }
    int64_t i64(size_t i) { return (*this)[i].toInt(); }
    bool b(size_t i) { return (*this)[i].toBool(); }
    c10::Scalar sc(size_t i) { return (*this)[i].toScalar(); }
    std::vector<int64_t> ints(size_t i) { return (*this)[i].toIntVector(); }
    void ret(IValue v) {
        torch::jit::drop(*s, n);
        s->push_back(std::move(v));
    }
    void ret2(IValue a, IValue b) {
        torch::jit::drop(*s, n);
        s->push_back(std::move(a));
        s->push_back(std::move(b));
    }
};

void genie_fallback(const c10::OperatorHandle &op, Stack *stack);

typedef bool (*Kernel)(const c10::OperatorHandle &, Args &);
/* a captured kernel: K returns false (stack untouched) to hand the operation to the fallback */
template <Kernel K>
void boxed(const c10::OperatorHandle &op, Stack *s) {
    bool done;
    /* The inputs stay referenced here until g_mu is released: on torch 2.x dropping a C++
       reference to a tensor that a Python object owns takes the GIL, which another thread
       may hold while it waits for g_mu (a deadlock of tensor ops from several threads). */
    size_t nargs = std::min(op.schema().arguments().size(), s->size());
    std::vector<c10::IValue> keep(s->end() - (std::ptrdiff_t)nargs, s->end());
    {
        Lock l(g_mu);
        Args a(op, s);
        done = K(op, a);
        if (done) count(op, true);
    }
    if (!done) genie_fallback(op, s);
}

bool genie_float(const at::Tensor &t) { return at::isFloatingType(t.scalar_type()); }

/* ------------------------------------------------------------------ the fallback */
/* whether a CPU kernel changed its copy `after` of the device tensor `t` (whose genie value is
   materialized and unchanged): bit for bit, so NaNs compare equal */
bool changed_by_kernel(const at::Tensor &t, const at::Tensor &after) {
    if (t.numel() == 0 || t.is_neg() || t.is_conj() || !after.defined() || after.sizes() != t.sizes() ||
        after.scalar_type() != t.scalar_type())
        return false;
    const void *p = nullptr;
    if (genie_data(ctx(), H(t), &p) != GENIE_OK) {
        genie_clear_error(ctx());
        return false;
    }
    at::Tensor before = at::from_blob(const_cast<void *>(p), t.sizes(), t.strides(), at::TensorOptions().dtype(t.scalar_type()));
    at::ScalarType bits;
    switch (before.element_size()) {
    case 1: bits = at::kByte; break;
    case 2: bits = at::kShort; break;
    case 4: bits = at::kInt; break;
    default: bits = at::kLong; break;
    }
    return !at::equal(before.view(bits), after.view(bits));
}

/* Materializes genie inputs, runs the operation on CPU, writes mutated arguments back through
   genie (aliases see the write), wraps results (a view op through here returns a copy). */
void genie_fallback(const c10::OperatorHandle &op, Stack *stack) {
    const auto &schema = op.schema();
    const auto &args = schema.arguments();
    const size_t n = args.size(), base = stack->size() - n;
    std::vector<at::Tensor> orig(n), cpu(n);
    std::vector<std::vector<at::Tensor>> orig_list(n), cpu_list(n);
    /* the same tensor passed twice (out= self) must stay one tensor on CPU */
    std::unordered_map<const c10::TensorImpl *, at::Tensor> seen;
    int64_t elems = 0;
    for (size_t i = 0; i < n; i++) {
        const IValue &v = (*stack)[base + i];
        if (v.isTensor() && is_genie(v.toTensor())) elems += v.toTensor().numel();
        else if (v.isTensorList())
            for (const auto &t : v.toTensorVector()) elems += is_genie(t) ? t.numel() : 0;
    }
    SerialCpu serial(elems <= kSerialFallbackElems);
    auto cpu_copy = [&](const at::Tensor &t) {
        auto it = seen.find(t.unsafeGetTensorImpl());
        if (it != seen.end()) return it->second;
        at::Tensor c = to_cpu(t);
        g_counts.fallback_materialized++;
        seen.emplace(t.unsafeGetTensorImpl(), c);
        return c;
    };
    {
        Lock l(g_mu);
        count(op, false);
        for (size_t i = 0; i < n; i++) {
            IValue &v = (*stack)[base + i];
            if (v.isTensor()) {
                at::Tensor t = v.toTensor();
                if (is_genie(t)) {
                    orig[i] = t;
                    cpu[i] = cpu_copy(t);
                    v = IValue(cpu[i]);
                }
            } else if (v.isTensorList()) {
                auto lst = v.toTensorVector();
                bool any = false;
                for (auto &t : lst)
                    if (is_genie(t)) any = true;
                if (any) {
                    orig_list[i] = lst;
                    for (auto &t : lst)
                        if (is_genie(t)) t = cpu_copy(t);
                    cpu_list[i] = lst;
                    v = IValue(lst);
                }
            } else if (v.isList()) {
                /* Tensor?[] (index) */
                auto gl = v.toList();
                bool any = false;
                for (size_t j = 0; j < gl.size(); j++) {
                    IValue e = gl.get(j);
                    if (e.isTensor() && is_genie(e.toTensor())) any = true;
                }
                if (any) {
                    c10::List<c10::optional<at::Tensor>> nl;
                    for (size_t j = 0; j < gl.size(); j++) {
                        IValue e = gl.get(j);
                        if (e.isTensor()) {
                            at::Tensor t = e.toTensor();
                            nl.push_back(is_genie(t) ? c10::optional<at::Tensor>(cpu_copy(t)) : c10::optional<at::Tensor>(t));
                        } else {
                            nl.push_back(c10::nullopt);
                        }
                    }
                    v = IValue(nl);
                }
            } else if (v.isDevice() && v.toDevice().type() == kDev) {
                v = IValue(c10::Device(c10::DeviceType::CPU));
            }
        }
    }
    op.callBoxed(stack);
    Lock l(g_mu);
    /* write back mutated arguments: those the schema marks written (Tensor(a!)), and those it
       does not mark but the kernel changed (native_batch_norm's running_mean/running_var) */
    for (size_t i = 0; i < n; i++) {
        const auto *ai = args[i].alias_info();
        bool marked = ai && ai->isWrite();
        if (!marked && !(orig[i].defined() && changed_by_kernel(orig[i], cpu[i]))) continue;
        if (orig[i].defined()) {
            GenieImpl *g = gimpl(orig[i]);
            if (cpu[i].sizes() == orig[i].sizes()) {
                GT s;
                s.p = from_cpu(cpu[i]);
                s.owned = true;
                ok(genie_copy_(ctx(), g->h, s.p));
            } else { /* resized (out= arguments) */
                g->reset(adopt_cpu(cpu[i].clone()));
            }
        }
        for (size_t j = 0; j < orig_list[i].size(); j++) {
            if (!is_genie(orig_list[i][j])) continue;
            GenieImpl *g = gimpl(orig_list[i][j]);
            GT s;
            s.p = from_cpu(cpu_list[i][j]);
            s.owned = true;
            ok(genie_copy_(ctx(), g->h, s.p));
        }
    }
    /* results */
    const auto &rets = schema.returns();
    const size_t nr = rets.size(), rbase = stack->size() - nr;
    for (size_t j = 0; j < nr; j++) {
        IValue &v = (*stack)[rbase + j];
        const auto *ra = rets[j].alias_info();
        if (ra && ra->isWrite()) { /* returns a mutated argument: the genie tensor itself */
            bool found = false;
            for (size_t i = 0; i < n && !found; i++) {
                const auto *ai = args[i].alias_info();
                if (ai && ai->isWrite() && ai->beforeSets() == ra->beforeSets()) {
                    if (orig[i].defined()) v = IValue(orig[i]);
                    else if (!orig_list[i].empty()) v = IValue(orig_list[i]);
                    found = true;
                }
            }
            if (found) continue;
        }
        if (v.isTensor()) {
            at::Tensor t = v.toTensor();
            if (t.defined() && t.device().is_cpu()) v = IValue(wrap(adopt_cpu(t), t.scalar_type()));
        } else if (v.isTensorList()) {
            auto lst = v.toTensorVector();
            for (auto &t : lst)
                if (t.defined() && t.device().is_cpu()) t = wrap(adopt_cpu(t), t.scalar_type());
            v = IValue(lst);
        }
    }
}

/* ------------------------------------------------------------------ creation */
at::ScalarType dtype_arg(Args &a, size_t i) {
    return a.none(i) ? c10::typeMetaToScalarType(at::get_default_dtype()) : (at::ScalarType)a.i64(i);
}
bool layout_ok(Args &a, size_t i) { /* the layout argument, if given, is strided */
    return a.none(i) || (at::Layout)a.i64(i) == at::kStrided;
}
bool k_empty(const c10::OperatorHandle &, Args &a) {
    /* empty.memory_format(size, dtype?, layout?, device?, pin_memory?, memory_format?) */
    genie_dtype d;
    at::ScalarType st = dtype_arg(a, 1);
    if (!storage_gd(st, &d) || !layout_ok(a, 2)) return false;
    auto size = a.ints(0);
    at::MemoryFormat mf = a.none(5) ? at::MemoryFormat::Contiguous : (at::MemoryFormat)a.i64(5);
    genie_tensor *h;
    if (mf == at::MemoryFormat::ChannelsLast || mf == at::MemoryFormat::ChannelsLast3d) {
        auto strides = mf == at::MemoryFormat::ChannelsLast ? c10::get_channels_last_strides_2d(size)
                                                             : c10::get_channels_last_strides_3d(size);
        int64_t numel = 1;
        for (auto s : size) numel *= s;
        GT base;
        base.p = ok(genie_empty(ctx(), d, 1, &numel));
        base.owned = true;
        h = genie_as_strided(ctx(), base.p, (int)size.size(), size.data(), strides.data(), 0);
    } else {
        h = genie_empty(ctx(), d, (int)size.size(), size.data());
    }
    a.ret(wrap(h, st));
    return true;
}
bool k_empty_strided(const c10::OperatorHandle &, Args &a) {
    /* empty_strided(size, stride, dtype?, layout?, device?, pin_memory?) */
    genie_dtype d;
    at::ScalarType st = dtype_arg(a, 2);
    if (!storage_gd(st, &d) || !layout_ok(a, 3)) return false;
    auto size = a.ints(0), stride = a.ints(1);
    int64_t extent = 1; /* elements the strides reach */
    for (size_t i = 0; i < size.size(); i++) {
        if (size[i] == 0) { extent = 0; break; }
        extent += (size[i] - 1) * stride[i];
    }
    GT base;
    base.p = ok(genie_empty(ctx(), d, 1, &extent));
    base.owned = true;
    a.ret(wrap(genie_as_strided(ctx(), base.p, (int)size.size(), size.data(), stride.data(), 0), st));
    return true;
}
template <int KIND> /* 0 zeros, 1 ones */
bool k_const(const c10::OperatorHandle &, Args &a) {
    /* zeros/ones(size, dtype?, layout?, device?, pin_memory?) */
    genie_dtype d;
    if (!to_gd(dtype_arg(a, 1), &d) || !layout_ok(a, 2)) return false;
    auto size = a.ints(0);
    a.ret(wrap(KIND == 0 ? genie_zeros(ctx(), d, (int)size.size(), size.data()) : genie_ones(ctx(), d, (int)size.size(), size.data())));
    return true;
}
bool k_full(const c10::OperatorHandle &, Args &a) {
    /* full(size, fill_value, dtype?, layout?, device?, pin_memory?) */
    c10::Scalar v = a.sc(1);
    at::ScalarType st = a.none(2) ? (v.isBoolean() ? at::kBool : v.isIntegral(false) ? at::kLong : c10::typeMetaToScalarType(at::get_default_dtype()))
                                  : (at::ScalarType)a.i64(2);
    genie_dtype d;
    if (!to_gd(st, &d) || !layout_ok(a, 3) || v.isComplex()) return false;
    auto size = a.ints(0);
    a.ret(wrap(genie_full(ctx(), d, (int)size.size(), size.data(), v.toDouble())));
    return true;
}
template <int NS> /* arange(end) / arange.start(start, end) / arange.start_step(start, end, step), then options */
bool k_arange(const c10::OperatorHandle &, Args &a) {
    c10::Scalar start = NS >= 2 ? a.sc(0) : c10::Scalar(0), end = NS >= 2 ? a.sc(1) : a.sc(0),
                step = NS == 3 ? a.sc(2) : c10::Scalar(1);
    size_t o = (size_t)(NS == 1 ? 1 : NS); /* index of dtype */
    bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
    at::ScalarType st = a.none(o) ? (integral ? at::kLong : c10::typeMetaToScalarType(at::get_default_dtype())) : (at::ScalarType)a.i64(o);
    genie_dtype d;
    if (!to_gd(st, &d) || !layout_ok(a, o + 1)) return false;
    a.ret(wrap(genie_arange(ctx(), d, start.toDouble(), end.toDouble(), step.toDouble())));
    return true;
}
#if GENIE_TORCH_HOOKS
const at::Generator &default_generator();
#endif
/* one 64-bit seed from the generator argument, else the device's default generator (PyTorch's
   CPU one where the hooks are absent); the device's generators are CPU generators underneath */
uint64_t draw_seed(Args &a, size_t gen_idx) {
#if GENIE_TORCH_HOOKS
    at::Generator g = (gen_idx < a.n && !a[gen_idx].isNone()) ? a[gen_idx].toGenerator() : default_generator();
#else
    at::Generator g = (gen_idx < a.n && !a[gen_idx].isNone()) ? a[gen_idx].toGenerator() : at::detail::getDefaultCPUGenerator();
#endif
    TORCH_CHECK(g.device().type() == c10::DeviceType::CPU || g.device().type() == kDev, "genie: a ", g.device(),
                " generator cannot draw random numbers for the genie device");
    auto *cg = g.get<at::CPUGeneratorImpl>();
    std::lock_guard<std::mutex> gl(g.mutex());
    return cg->random64();
}
template <int NORMAL, int GEN> /* randn/rand(size, [generator,] dtype?, layout?, device?, pin?) */
bool k_rand(const c10::OperatorHandle &, Args &a) {
    size_t o = GEN ? 2 : 1;
    genie_dtype d;
    if (!to_gd(dtype_arg(a, o), &d) || !layout_ok(a, o + 1)) return false;
    if (GEN && !a.none(1) && a[1].toGenerator().device().type() != c10::DeviceType::CPU && a[1].toGenerator().device().type() != kDev)
        return false;
    auto size = a.ints(0);
    uint64_t seed = draw_seed(a, GEN ? 1 : (size_t)-1);
    a.ret(wrap(NORMAL ? genie_randn(ctx(), d, (int)size.size(), size.data(), seed) : genie_rand(ctx(), d, (int)size.size(), size.data(), seed)));
    return true;
}

/* ------------------------------------------------------------------ copies */
/* copy src into dst; either may be on CPU (then the genie side is materialized) */
void copy_into(const at::Tensor &dst, const at::Tensor &src) {
    if (is_genie(dst)) {
        GT s;
        bool conv = src.scalar_type() != dst.scalar_type() && (is_raw(src.scalar_type()) || is_raw(dst.scalar_type()));
        if (is_genie(src) && !src.is_neg() && !src.is_conj() && !conv) {
            s.p = H(src);
        } else {
            at::Tensor c = is_genie(src) ? to_cpu(src) : src;
            if (conv) c = c.to(dst.scalar_type());
            s.p = from_cpu(c);
            s.owned = true;
        }
        ok(genie_copy_(ctx(), H(dst), s.p));
    } else {
        at::Tensor c = to_cpu(src);
        g_counts.to_cpu++;
        dst.copy_(c);
    }
}
bool k_copy_(const c10::OperatorHandle &, Args &a) { /* copy_(self, src, non_blocking) */
    at::Tensor self = a.t(0), src = a.t(1);
    copy_into(self, src);
    a.ret(self);
    return true;
}
bool k_copy_from(const c10::OperatorHandle &, Args &a) { /* _copy_from(self, dst, non_blocking) */
    at::Tensor src = a.t(0), dst = a.t(1);
    copy_into(dst, src);
    a.ret(dst);
    return true;
}
/* resize_ as PyTorch: the tensor becomes contiguous over its storage from its offset, which
   grows (keeping its elements) when too small */
void resize_to(const at::Tensor &t, c10::IntArrayRef size) {
    if (t.sizes() == size) return;
    if (!is_genie(t)) {
        t.resize_(size);
        return;
    }
    GenieImpl *g = gimpl(t);
    std::vector<int64_t> sz(size.begin(), size.end()), st(sz.size());
    int64_t numel = 1, off = t.storage_offset();
    for (size_t i = sz.size(); i-- > 0;) {
        st[i] = numel;
        numel *= sz[i];
    }
    genie_tensor *v = numel ? genie_as_strided(ctx(), g->h, (int)sz.size(), sz.data(), st.data(), off) : nullptr;
    if (v) {
        g->reset(v);
        return;
    }
    genie_clear_error(ctx());
    /* a new storage: the old one's elements up to the current view's reach come along */
    int64_t reach = off + 1, want = off + numel;
    for (int64_t i = 0; i < t.dim(); i++) {
        if (t.size(i) == 0) { reach = 0; break; }
        reach += (t.size(i) - 1) * t.stride(i);
    }
    GT ns, old, dst;
    ns.p = ok(genie_zeros(ctx(), genie_dtype_of(g->h), 1, &want));
    ns.owned = true;
    int64_t keep = std::min(reach, want), one = 1;
    if (keep > 0) {
        old.p = ok(genie_as_strided(ctx(), g->h, 1, &keep, &one, 0));
        old.owned = true;
        dst.p = ok(genie_as_strided(ctx(), ns.p, 1, &keep, &one, 0));
        dst.owned = true;
        ok(genie_copy_(ctx(), dst.p, old.p));
    }
    g->reset(ok(genie_as_strided(ctx(), ns.p, (int)sz.size(), sz.data(), st.data(), off)));
}
bool k_copy_from_and_resize(const c10::OperatorHandle &, Args &a) { /* (self, dst) */
    at::Tensor src = a.t(0), dst = a.t(1);
    resize_to(dst, src.sizes());
    copy_into(dst, src);
    a.ret(dst);
    return true;
}
bool k_resize_(const c10::OperatorHandle &, Args &a) { /* resize_(self, size, memory_format?) */
    at::Tensor self = a.t(0);
    auto size = a.ints(1);
    resize_to(self, size);
    a.ret(self);
    return true;
}
bool k_to_copy(const c10::OperatorHandle &, Args &a) {
    /* _to_copy(self, dtype?, layout?, device?, pin_memory?, non_blocking, memory_format?) */
    at::Tensor self = a.t(0);
    if (!layout_ok(a, 2)) return false;
    at::ScalarType st = a.none(1) ? self.scalar_type() : (at::ScalarType)a.i64(1);
    at::MemoryFormat mf = a.none(6) ? at::MemoryFormat::Preserve : (at::MemoryFormat)a.i64(6);
    genie_dtype d;
    if (self.device().is_cpu()) { /* CPU -> genie: one copy, layout kept */
        if (a.none(3) || a[3].toDevice().type() != kDev || !storage_gd(st, &d)) return false;
        if (self.is_contiguous() && (mf == at::MemoryFormat::Preserve || mf == at::MemoryFormat::Contiguous)) {
            /* dense rows: copied into genie's own memory, where the pack cache keeps a weight packed
               for the products that read it (it packs no caller's from_blob memory) */
            a.ret(wrap(from_cpu(self.to(st)), st));
            return true;
        }
        at::Tensor c = at::empty_like(self, self.options().dtype(st), mf);
        c.copy_(self);
        a.ret(wrap(adopt_cpu(c), st));
        return true;
    }
    if (!is_genie(self) || self.is_neg() || self.is_conj()) return false;
    if (mf != at::MemoryFormat::Preserve && mf != at::MemoryFormat::Contiguous) return false;
    bool to_cpu_dev = !a.none(3) && a[3].toDevice().is_cpu();
    if (!a.none(3) && !to_cpu_dev && a[3].toDevice().type() != kDev) return false;
    if (to_cpu_dev) { /* materialize */
        at::Tensor c = to_cpu(self);
        g_counts.to_cpu++;
        c = c.to(st);
        if (mf == at::MemoryFormat::Contiguous) c = c.contiguous();
        a.ret(c);
        return true;
    }
    if (!to_gd(st, &d)) return false;
    genie_tensor *h = H(self);
    GT tmp;
    if (mf == at::MemoryFormat::Contiguous && !self.is_contiguous()) {
        tmp.p = ok(genie_contiguous(ctx(), h));
        tmp.owned = true;
        h = tmp.p;
        if (st == self.scalar_type()) {
            tmp.owned = false;
            a.ret(wrap(h));
            return true;
        }
    }
    if (st == self.scalar_type()) a.ret(wrap(genie_clone(ctx(), h)));
    else a.ret(wrap(genie_to_dtype(ctx(), h, d)));
    return true;
}
bool k_clone(const c10::OperatorHandle &, Args &a) { /* clone(self, memory_format?) */
    at::Tensor self = a.t(0);
    if (!operand_ok(self) || !is_genie(self)) return false;
    at::MemoryFormat mf = a.none(1) ? at::MemoryFormat::Preserve : (at::MemoryFormat)a.i64(1);
    if (mf == at::MemoryFormat::Preserve || (mf == at::MemoryFormat::Contiguous && self.is_contiguous()))
        a.ret(wrap(genie_clone(ctx(), H(self))));
    else if (mf == at::MemoryFormat::Contiguous)
        a.ret(wrap(genie_contiguous(ctx(), H(self))));
    else
        return false;
    return true;
}
bool k_local_scalar_dense(const c10::OperatorHandle &, Args &a) {
    at::Tensor self = a.t(0);
    genie_tensor *h = H(self);
    g_counts.items++;
    sync_threads();
    at::ScalarType st = self.scalar_type();
    if (is_raw(st)) {
        a.ret(IValue(to_cpu(self).item()));
    } else if (at::isFloatingType(st)) {
        double v;
        okr(genie_item(ctx(), h, &v));
        if (self.is_neg()) v = -v;
        a.ret(IValue(c10::Scalar(v)));
    } else {
        int64_t v;
        okr(genie_item_i64(ctx(), h, &v));
        if (st == at::kBool) a.ret(IValue(c10::Scalar(v != 0)));
        else a.ret(IValue(c10::Scalar(self.is_neg() ? -v : v)));
    }
    return true;
}
bool k_set_source(const c10::OperatorHandle &, Args &a) { /* set_.source_Tensor(self, source) */
    at::Tensor self = a.t(0), src = a.t(1);
    if (!is_genie(src)) return false;
    genie_tensor *h = H(src);
    genie_retain(h);
    gimpl(self)->reset(h);
    a.ret(self);
    return true;
}
bool k_set_empty(const c10::OperatorHandle &, Args &a) { /* set_(self) */
    at::Tensor self = a.t(0);
    int64_t zero = 0;
    gimpl(self)->reset(ok(genie_empty(ctx(), gd(self.scalar_type()), 1, &zero)));
    a.ret(self);
    return true;
}
bool k_set_storage(const c10::OperatorHandle &op, Args &) {
    TORCH_CHECK(false, "genie: ", op_name(op), ": tensors on the genie device have no storage");
}

/* ------------------------------------------------------------------ views */
bool k_view(const c10::OperatorHandle &, Args &a) { /* view(self, size) */
    at::Tensor self = a.t(0);
    auto size = at::infer_size(a.ints(1), self.numel());
    a.ret(wrapv(a.t(0), genie_view(ctx(), H(self), (int)size.size(), size.data())));
    return true;
}
bool k_unsafe_view(const c10::OperatorHandle &, Args &a) { /* _unsafe_view(self, size) */
    at::Tensor self = a.t(0);
    auto size = at::infer_size(a.ints(1), self.numel());
    a.ret(wrapv(a.t(0), genie_reshape(ctx(), H(self), (int)size.size(), size.data())));
    return true;
}
/* as_strided; an empty result may sit anywhere, as in PyTorch (genie checks every window, so it
   gets an empty tensor of its own reporting PyTorch's strides and offset) */
at::Tensor strided_view(const at::Tensor &self, std::vector<int64_t> size, std::vector<int64_t> stride, int64_t off) {
    int64_t numel = 1;
    for (auto v : size) numel *= v;
    if (numel == 0 && size.size() == stride.size()) {
        at::Tensor r = wrapv(self, genie_empty(ctx(), gd(self.scalar_type()), (int)size.size(), size.data()));
        r.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride);
        r.unsafeGetTensorImpl()->set_storage_offset(off);
        return r;
    }
    return wrapv(self, genie_as_strided(ctx(), H(self), (int)size.size(), size.data(), stride.data(), off));
}
bool k_as_strided(const c10::OperatorHandle &, Args &a) { /* as_strided(self, size, stride, storage_offset?) */
    at::Tensor self = a.t(0);
    int64_t off = a.none(3) ? self.storage_offset() : a.i64(3);
    a.ret(strided_view(self, a.ints(1), a.ints(2), off));
    return true;
}
bool k_reshape_alias(const c10::OperatorHandle &, Args &a) { /* _reshape_alias(self, size, stride) */
    at::Tensor self = a.t(0);
    a.ret(strided_view(self, a.ints(1), a.ints(2), self.storage_offset()));
    return true;
}
bool k_alias(const c10::OperatorHandle &, Args &a) { /* alias/detach(self): the same handle */
    at::Tensor self = a.t(0);
    genie_tensor *h = H(self);
    genie_retain(h);
    a.ret(wrapv(self, h));
    return true;
}
bool k_transpose(const c10::OperatorHandle &, Args &a) {
    a.ret(wrapv(a.t(0), genie_transpose(ctx(), H(a.t(0)), a.i64(1), a.i64(2))));
    return true;
}
bool k_t(const c10::OperatorHandle &, Args &a) {
    at::Tensor self = a.t(0);
    if (self.dim() < 2) { /* t of 0-D/1-D: the tensor itself (a view) */
        genie_retain(H(self));
        a.ret(wrapv(self, H(self)));
    } else {
        a.ret(wrapv(a.t(0), genie_t(ctx(), H(self))));
    }
    return true;
}
bool k_permute(const c10::OperatorHandle &, Args &a) {
    auto dims = a.ints(1);
    a.ret(wrapv(a.t(0), genie_permute(ctx(), H(a.t(0)), (int)dims.size(), dims.data())));
    return true;
}
bool k_expand(const c10::OperatorHandle &, Args &a) { /* expand(self, size, implicit) */
    auto size = a.ints(1);
    a.ret(wrapv(a.t(0), genie_expand(ctx(), H(a.t(0)), (int)size.size(), size.data())));
    return true;
}
bool k_squeeze(const c10::OperatorHandle &, Args &a) { /* squeeze(self) */
    at::Tensor self = a.t(0);
    genie_tensor *h = H(self);
    genie_retain(h);
    for (int64_t d = self.dim() - 1; d >= 0; d--) {
        if (self.size(d) != 1) continue;
        genie_tensor *nh = genie_squeeze(ctx(), h, d);
        genie_release(h);
        h = ok(nh);
    }
    a.ret(wrapv(self, h));
    return true;
}
bool k_squeeze_dim(const c10::OperatorHandle &, Args &a) {
    a.ret(wrapv(a.t(0), genie_squeeze(ctx(), H(a.t(0)), a.i64(1))));
    return true;
}
bool k_unsqueeze(const c10::OperatorHandle &, Args &a) {
    a.ret(wrapv(a.t(0), genie_unsqueeze(ctx(), H(a.t(0)), a.i64(1))));
    return true;
}
bool k_select(const c10::OperatorHandle &, Args &a) {
    a.ret(wrapv(a.t(0), genie_select(ctx(), H(a.t(0)), a.i64(1), a.i64(2))));
    return true;
}
bool k_slice(const c10::OperatorHandle &, Args &a) { /* slice.Tensor(self, dim, start?, end?, step) */
    int64_t start = a.none(2) ? 0 : a.i64(2), end = a.none(3) ? INT64_MAX : a.i64(3);
    a.ret(wrapv(a.t(0), genie_slice(ctx(), H(a.t(0)), a.i64(1), start, end, a.i64(4))));
    return true;
}
bool k_diagonal(const c10::OperatorHandle &, Args &a) { /* diagonal(self, offset, dim1, dim2) */
    a.ret(wrapv(a.t(0), genie_diagonal(ctx(), H(a.t(0)), a.i64(1), a.i64(2), a.i64(3))));
    return true;
}

/* unfold(self, dimension, size, step): a view, as ATen */
bool k_unfold(const c10::OperatorHandle &, Args &a) {
    at::Tensor self = a.t(0);
    int64_t d = self.dim() ? at::maybe_wrap_dim(a.i64(1), self.dim()) : 0, size = a.i64(2), step = a.i64(3);
    int64_t dsize = self.dim() ? self.size(d) : 1, dstride = self.dim() ? self.stride(d) : 1;
    TORCH_CHECK(size <= dsize, "maximum size for tensor at dimension ", d, " is ", dsize, " but size is ", size);
    TORCH_CHECK(step > 0, "step is ", step, " but must be > 0");
    std::vector<int64_t> sz(self.sizes().begin(), self.sizes().end()), st(self.strides().begin(), self.strides().end());
    if (self.dim()) {
        sz[d] = (dsize - size) / step + 1;
        st[d] = dstride * step;
    }
    sz.push_back(size);
    st.push_back(dstride);
    a.ret(wrapv(self, genie_as_strided(ctx(), H(self), (int)sz.size(), sz.data(), st.data(), self.storage_offset())));
    return true;
}
/* in-place view ops (squeeze_, transpose_, ...): the same view computed out of place, then
   this tensor's handle replaced (its aliases keep theirs, as in PyTorch) */
template <Kernel K>
bool k_inplace_view(const c10::OperatorHandle &op, Args &a) {
    at::Tensor self = a.t(0);
    if (!is_genie(self)) return false;
    if (!K(op, a)) return false;
    at::Tensor v = a.s->back().toTensor();
    a.s->pop_back();
    genie_tensor *h = H(v);
    genie_retain(h);
    gimpl(self)->reset(h);
    a.s->push_back(self);
    return true;
}
/* convolution for backends PyTorch does not know: genie_conv2d where it applies, CPU otherwise */
at::Tensor cpu_of(const at::Tensor &t) { return is_genie(t) ? to_cpu(t) : t; }
at::Tensor dev_of(const at::Tensor &c) { return c.defined() ? wrap(adopt_cpu(c), c.scalar_type()) : c; }
bool k_convolution(const c10::OperatorHandle &, Args &a) {
    /* convolution_overrideable(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups) */
    at::Tensor x = a.t(0), w = a.t(1), b = a.none(2) ? at::Tensor() : a.t(2);
    auto stride = a.ints(3), padding = a.ints(4), dilation = a.ints(5), opad = a.ints(7);
    bool transposed = a.b(6);
    int64_t groups = a.i64(8);
    if (!transposed && x.dim() == 4 && stride.size() == 2 && padding.size() == 2 && dilation.size() == 2 &&
        operand_ok(x) && operand_ok(w) && is_genie(x) && is_genie(w) && genie_float(x) && w.scalar_type() == x.scalar_type() &&
        (!b.defined() || (is_genie(b) && b.scalar_type() == x.scalar_type()))) {
        a.ret(wrap(genie_conv2d(ctx(), H(x), H(w), b.defined() ? H(b) : nullptr, stride.data(), padding.data(), dilation.data(), groups)));
        return true;
    }
    g_counts.fallback_materialized += 2;
    at::Tensor r = at::convolution(cpu_of(x), cpu_of(w), b.defined() ? c10::optional<at::Tensor>(cpu_of(b)) : c10::nullopt, stride,
                                   padding, dilation, transposed, opad, groups);
    a.ret(dev_of(r));
    return true;
}
bool k_convolution_backward(const c10::OperatorHandle &, Args &a) {
    /* convolution_backward_overrideable(grad_output, input, weight, stride, padding, dilation, transposed,
       output_padding, groups, output_mask[3]) -> (grad_input, grad_weight, grad_bias) */
    at::Tensor go = a.t(0), x = a.t(1), w = a.t(2);
    auto stride = a.ints(3), padding = a.ints(4), dilation = a.ints(5), opad = a.ints(7);
    bool transposed = a.b(6);
    int64_t groups = a.i64(8);
    auto maskl = a[9].toBoolList();
    std::array<bool, 3> mask = {maskl.get(0), maskl.get(1), maskl.get(2)};
    std::vector<int64_t> bias_sizes = {transposed ? w.size(1) * groups : w.size(0)};
    g_counts.fallback_materialized += 3;
    auto r = at::convolution_backward(cpu_of(go), cpu_of(x), cpu_of(w), c10::IntArrayRef(bias_sizes), stride, padding, dilation,
                                      transposed, opad, groups, mask);
    torch::jit::drop(*a.s, a.n);
    a.s->push_back(dev_of(std::get<0>(r)));
    a.s->push_back(dev_of(std::get<1>(r)));
    a.s->push_back(dev_of(std::get<2>(r)));
    return true;
}

/* ------------------------------------------------------------------ elementwise */
typedef genie_tensor *(*BinFn)(genie_ctx *, genie_tensor *, genie_tensor *);
typedef genie_tensor *(*UnFn)(genie_ctx *, genie_tensor *);

bool one_genie(const at::Tensor &a, const at::Tensor &b) { return is_genie(a) || is_genie(b); }

/* binary(self, other[, alpha]) with alpha at index 2 when ALPHA */
typedef genie_tensor *(*ScalFn)(genie_ctx *, genie_tensor *, double);
/* a floating genie tensor with a Python number keeps its dtype in ATen, as genie's *_scalar
   forms do: one node instead of a constant and a node */
genie_tensor *no_scalar(genie_ctx *, genie_tensor *, double) { return nullptr; }
template <ScalFn S, int ALPHA>
bool scalar_path(Args &a, const at::Tensor &x, const at::Tensor &y) {
    if constexpr (S == &no_scalar) return false;
    if (!is_genie(x) || !genie_float(x) || y.dim() != 0 || is_genie(y) || !y.unsafeGetTensorImpl()->is_wrapped_number())
        return false;
    double v = y.item<double>();
    if (ALPHA && !a.none(2)) {
        c10::Scalar al = a.sc(2);
        if (al.isComplex()) return false;
        v *= al.toDouble();
    }
    a.ret(wrap(S(ctx(), H(x), v)));
    return true;
}
template <BinFn F, int ALPHA, ScalFn S = &no_scalar>
bool k_binary(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0), y = a.t(1);
    if (!operand_ok(x) || !operand_ok(y) || !one_genie(x, y)) return false;
    if (x.is_complex() || y.is_complex()) return false;
    if (scalar_path<S, ALPHA>(a, x, y)) return true;
    GT gx = operand(x, y), gy = operand(y, x);
    GT scaled;
    if (ALPHA && !a.none(2)) {
        c10::Scalar al = a.sc(2);
        if (!(al.isIntegral(true) && al.toLong() == 1) && !(al.isFloatingPoint() && al.toDouble() == 1.0)) {
            if (al.isComplex()) return false;
            GT c = scalar_const(al, at::result_type(x, y));
            scaled.p = ok(genie_mul(ctx(), gy.p, c.p));
            scaled.owned = true;
        }
    }
    a.ret(wrap(F(ctx(), gx.p, scaled.p ? scaled.p : gy.p)));
    return true;
}
/* comparison/binary with a Scalar other: other as a wrapped number */
template <BinFn F>
bool k_binary_scalar(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    c10::Scalar s = a.sc(1);
    if (!is_genie(x) || !operand_ok(x) || s.isComplex()) return false;
    at::Tensor w = at::scalar_to_tensor(s);
    w.unsafeGetTensorImpl()->set_wrapped_number(true);
    GT gy = operand(w, x);
    a.ret(wrap(F(ctx(), H(x), gy.p)));
    return true;
}
/* in-place binary: self op= other (alpha at 2 when ALPHA) */
template <BinFn F, int ALPHA>
bool k_binary_(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0), y = a.t(1);
    if (!is_genie(x) || !operand_ok(x) || !operand_ok(y)) return false;
    if (at::infer_size(x.sizes(), y.sizes()) != x.sizes()) return false; /* self cannot grow: ATen's error */
    GT gy = operand(y, x);
    GT scaled;
    if (ALPHA && !a.none(2)) {
        c10::Scalar al = a.sc(2);
        if (!(al.isIntegral(true) && al.toLong() == 1) && !(al.isFloatingPoint() && al.toDouble() == 1.0)) {
            if (al.isComplex()) return false;
            GT c = scalar_const(al, at::result_type(x, y));
            scaled.p = ok(genie_mul(ctx(), gy.p, c.p));
            scaled.owned = true;
        }
    }
    ok(F(ctx(), H(x), scaled.p ? scaled.p : gy.p));
    a.ret(x);
    return true;
}
/* after a functional kernel left its value on the stack (its arguments popped): the value copied
   into out (resized as ATen resizes an out= argument), and out returned in its place */
void value_into_out(Args &a, const at::Tensor &out) {
    at::Tensor r = a.s->back().toTensor();
    if (r.scalar_type() != out.scalar_type()) { /* stack already consumed: finish through CPU */
        at::Tensor c = to_cpu(r).to(out.scalar_type());
        resize_to(out, c.sizes());
        GT g;
        g.p = from_cpu(c);
        g.owned = true;
        ok(genie_copy_(ctx(), H(out), g.p));
    } else {
        resize_to(out, r.sizes());
        ok(genie_copy_(ctx(), H(out), H(r)));
    }
    a.s->back() = IValue(out);
}
/* binary.out(self, other, [alpha,] *, out): the value as k_binary computes it, copied into out
   (resized as ATen resizes an out= argument); another dtype than the value's goes to the fallback */
template <BinFn F, int ALPHA, ScalFn S = &no_scalar>
bool k_binary_out(const c10::OperatorHandle &op, Args &a) {
    const size_t oi = ALPHA ? 3 : 2;
    at::Tensor out = a.t(oi), x = a.t(0), y = a.t(1);
    if (!is_genie(out) || !operand_ok(out) || !operand_ok(x) || !operand_ok(y)) return false;
    /* out that is an input cannot be resized (ATen's error, from the fallback) */
    if ((out.is_same(x) || out.is_same(y)) && at::infer_size(x.sizes(), y.sizes()) != out.sizes()) return false;
    if (!k_binary<F, ALPHA, S>(op, a)) return false; /* pops the arguments, pushes the value */
    value_into_out(a, out);
    return true;
}
/* op.out(inputs..., *, out) for a functional kernel K that reads only the arguments before OUT:
   its value copied into out as value_into_out does; out aliasing an input goes to the fallback */
template <Kernel K, size_t OUT>
bool k_out(const c10::OperatorHandle &op, Args &a) {
    at::Tensor out = a.t(OUT);
    if (!is_genie(out) || !operand_ok(out)) return false;
    for (size_t i = 0; i < OUT; i++)
        if (a[i].isTensor() && a.t(i).is_same(out)) return false;
    if (!K(op, a)) return false;
    value_into_out(a, out);
    return true;
}
template <UnFn F, int FLOAT_ONLY>
bool k_unary(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    if (FLOAT_ONLY && !genie_float(x)) return false;
    a.ret(wrap(F(ctx(), H(x))));
    return true;
}
/* in-place unary (sigmoid_, tanh_, ...): the value out of place, copied back through the view */
template <UnFn F, int FLOAT_ONLY>
bool k_unary_(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    if (FLOAT_ONLY && !genie_float(x)) return false;
    GT r;
    r.p = ok(F(ctx(), H(x)));
    r.owned = true;
    if (genie_dtype_of(r.p) != genie_dtype_of(H(x))) return false; /* PyTorch's cast rules: the fallback */
    ok(genie_copy_(ctx(), H(x), r.p));
    a.ret(x);
    return true;
}
bool k_relu_(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    ok(genie_relu_(ctx(), H(x)));
    a.ret(x);
    return true;
}
bool k_gelu(const c10::OperatorHandle &, Args &a) { /* gelu(self, approximate) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x)) return false;
    std::string ap = a.none(1) ? "none" : a[1].toStringRef();
    a.ret(wrap(ap == "tanh" ? genie_gelu_tanh(ctx(), H(x)) : genie_gelu(ctx(), H(x))));
    return true;
}
bool k_div_mode(const c10::OperatorHandle &op, Args &a) { /* div.Tensor_mode(self, other, rounding_mode?) */
    if (!a.none(2)) return false;
    return k_binary<genie_div, 0>(op, a);
}
bool k_pow_scalar(const c10::OperatorHandle &, Args &a) { /* pow.Tensor_Scalar(self, exponent) */
    at::Tensor x = a.t(0);
    c10::Scalar e = a.sc(1);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x) || e.isComplex()) return false;
    a.ret(wrap(genie_pow_scalar(ctx(), H(x), e.toDouble())));
    return true;
}
bool k_pow_tensor(const c10::OperatorHandle &op, Args &a) {
    if (!genie_float(a.t(0))) return false;
    return k_binary<genie_pow, 0>(op, a);
}
bool k_where(const c10::OperatorHandle &, Args &a) { /* where.self(cond, self, other) */
    at::Tensor c = a.t(0), x = a.t(1), y = a.t(2);
    if (!operand_ok(c) || !operand_ok(x) || !operand_ok(y) || c.scalar_type() != at::kBool) return false;
    if (!is_genie(c) && !is_genie(x) && !is_genie(y)) return false;
    GT gc = operand(c, c), gx = operand(x, y), gy = operand(y, x);
    a.ret(wrap(genie_where(ctx(), gc.p, gx.p, gy.p)));
    return true;
}
bool k_clamp(const c10::OperatorHandle &, Args &a) { /* clamp(self, min?, max?) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x)) return false;
    if (a.none(1) && a.none(2)) return false;
    double lo = a.none(1) ? NAN : a.sc(1).toDouble(), hi = a.none(2) ? NAN : a.sc(2).toDouble();
    if (std::isnan(lo) && !a.none(1)) return false;
    if (std::isnan(hi) && !a.none(2)) return false;
    a.ret(wrap(genie_clamp(ctx(), H(x), lo, hi)));
    return true;
}
template <bool MAX>
bool k_clamp_one(const c10::OperatorHandle &, Args &a) { /* clamp_min/clamp_max(self, Scalar bound) */
    /* genie_clamp reads NAN as "no bound", so the other side is NAN; a NaN bound itself (ATen: every
       element NaN) goes to ATen, as does a non-float self (false: not captured, ATen computes it) */
    at::Tensor x = a.t(0);
    c10::Scalar b = a.sc(1);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x) || b.isComplex() || std::isnan(b.toDouble())) return false;
    a.ret(wrap(MAX ? genie_clamp(ctx(), H(x), NAN, b.toDouble()) : genie_clamp(ctx(), H(x), b.toDouble(), NAN)));
    return true;
}
bool k_fill_(const c10::OperatorHandle &, Args &a) { /* fill_.Scalar(self, value) */
    at::Tensor x = a.t(0);
    c10::Scalar v = a.sc(1);
    if (!is_genie(x) || !operand_ok(x) || v.isComplex()) return false;
    ok(genie_fill_(ctx(), H(x), v.toDouble()));
    a.ret(x);
    return true;
}
bool k_zero_(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    ok(genie_zero_(ctx(), H(x)));
    a.ret(x);
    return true;
}
bool k_masked_fill(const c10::OperatorHandle &, Args &a) { /* masked_fill[_].Scalar(self, mask, value) */
    at::Tensor x = a.t(0), m = a.t(1);
    c10::Scalar v = a.sc(2);
    if (!is_genie(x) || !is_genie(m) || !operand_ok(x) || !operand_ok(m) || v.isComplex()) return false;
    if (m.scalar_type() != at::kBool) return false;
    a.ret(wrap(genie_masked_fill(ctx(), H(x), H(m), v.toDouble())));
    return true;
}
bool k_masked_fill_(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0), m = a.t(1);
    c10::Scalar v = a.sc(2);
    if (!is_genie(x) || !is_genie(m) || !operand_ok(x) || !operand_ok(m) || v.isComplex()) return false;
    if (m.scalar_type() != at::kBool) return false;
    ok(genie_masked_fill_(ctx(), H(x), H(m), v.toDouble()));
    a.ret(x);
    return true;
}
template <int UPPER>
bool k_tri(const c10::OperatorHandle &, Args &a) { /* tril/triu(self, diagonal) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    a.ret(wrap(UPPER ? genie_triu(ctx(), H(x), a.i64(1)) : genie_tril(ctx(), H(x), a.i64(1))));
    return true;
}

/* ------------------------------------------------------------------ reductions */
typedef genie_tensor *(*RedFn)(genie_ctx *, genie_tensor *, int, const int64_t *, int);
std::vector<int64_t> dims_arg(Args &a, size_t i) {
    if (a.none(i)) return {};
    return a.ints(i);
}
/* sum/mean.dim(self, dim?, keepdim, dtype?) ; amax/amin(self, dim, keepdim) ; logsumexp(self, dim, keepdim) */
template <RedFn F, int DTYPE_AT> /* DTYPE_AT: index of dtype? argument, 0 if none */
bool k_reduce(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    if (DTYPE_AT && !a.none(DTYPE_AT)) return false;
    auto dims = dims_arg(a, 1);
    if (x.dim() == 0 && !dims.empty()) return false; /* ATen's 0-dim dim rules */
    a.ret(wrap(F(ctx(), H(x), (int)dims.size(), dims.data(), a.b(2))));
    return true;
}
template <RedFn F>
bool k_reduce_all(const c10::OperatorHandle &, Args &a) { /* sum/mean/prod(self, dtype?) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !a.none(1)) return false;
    a.ret(wrap(F(ctx(), H(x), 0, nullptr, 0)));
    return true;
}
/* the 2-norm of a float32/float64 tensor, sqrt(sum(self * self over dim (none: all), keepdim))
   (a bfloat16/half square would round before the sum, which ATen accumulates in float), as
   linalg_vector_norm(self, ord, dim?, keepdim, *, dtype?) (DTYPE_AT 4) and
   norm.ScalarOpt_dim(self, p?, dim, keepdim) (DTYPE_AT 0: none; p none is 2) */
template <int DTYPE_AT>
bool k_vector_norm(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.dim() == 0 || (DTYPE_AT && !a.none(DTYPE_AT))) return false;
    if (x.scalar_type() != at::kFloat && x.scalar_type() != at::kDouble) return false;
    if (!a.none(1) && (a.sc(1).isComplex() || a.sc(1).toDouble() != 2.0)) return false; /* other orders: ATen's */
    auto dims = dims_arg(a, 2);
    GT sq = own(genie_mul(ctx(), H(x), H(x)));
    GT ss = own(genie_sum(ctx(), sq.p, (int)dims.size(), dims.data(), a.b(3)));
    a.ret(wrap(genie_sqrt(ctx(), ss.p)));
    return true;
}
bool k_prod_dim(const c10::OperatorHandle &, Args &a) { /* prod.dim_int(self, dim, keepdim, dtype?) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !a.none(3) || x.dim() == 0) return false;
    int64_t d = a.i64(1);
    a.ret(wrap(genie_prod(ctx(), H(x), 1, &d, a.b(2))));
    return true;
}
template <int MAX>
bool k_argreduce(const c10::OperatorHandle &, Args &a) { /* argmax(self, dim?, keepdim) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    int64_t d = a.none(1) ? GENIE_DIM_NONE : a.i64(1);
    if (x.dim() == 0 && d != GENIE_DIM_NONE) return false;
    a.ret(wrap(MAX ? genie_argmax(ctx(), H(x), d, a.b(2)) : genie_argmin(ctx(), H(x), d, a.b(2))));
    return true;
}
template <int STD>
bool k_var(const c10::OperatorHandle &, Args &a) { /* var.correction(self, dim?, correction?, keepdim) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x)) return false;
    auto dims = dims_arg(a, 1);
    if (x.dim() == 0 && !dims.empty()) return false;
    /* correction: int? on torch 1.13, Scalar? on 2.x; a fractional one goes to the fallback */
    if (!a.none(2) && !a.sc(2).isIntegral(false)) return false;
    int64_t corr = a.none(2) ? 1 : a.sc(2).toLong();
    a.ret(wrap(STD ? genie_std(ctx(), H(x), (int)dims.size(), dims.data(), corr, a.b(3))
                   : genie_var(ctx(), H(x), (int)dims.size(), dims.data(), corr, a.b(3))));
    return true;
}
template <int LOG>
bool k_softmax(const c10::OperatorHandle &, Args &a) { /* _softmax(self, dim, half_to_float) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || a.b(2)) return false;
    a.ret(wrap(LOG ? genie_log_softmax(ctx(), H(x), a.i64(1)) : genie_softmax(ctx(), H(x), a.i64(1))));
    return true;
}
#if GENIE_TORCH_SAFE_SOFTMAX
/* _safe_softmax(self, dim, dtype?): softmax whose rows that are all -inf give 0 instead of NaN
   (a row is all -inf exactly when its max is -inf) */
bool k_safe_softmax(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x) || x.dim() == 0) return false;
    if (!a.none(2) && (at::ScalarType)a.i64(2) != x.scalar_type()) return false;
    int64_t dim = a.i64(1);
    GT sm = own(genie_softmax(ctx(), H(x), dim));
    GT mx = own(genie_amax(ctx(), H(x), 1, &dim, 1));
    GT ninf = scalar_const(c10::Scalar(-INFINITY), x.scalar_type());
    GT dead = own(genie_eq(ctx(), mx.p, ninf.p));
    GT zero = scalar_const(c10::Scalar(0.0), x.scalar_type());
    a.ret(wrap(genie_where(ctx(), dead.p, zero.p, sm.p)));
    return true;
}
#endif
#if GENIE_TORCH_SDPA
/* scaled_dot_product_attention(q [.., H, L, E], k [.., H, S, E], v [.., H, S, Ev], mask?) as one
   genie node (genie_scaled_dot_product_attention: fused, no [L, S] scores kept), through the
   overrideable backend that sdpa_choice picks where this kernel takes the call; elsewhere
   PyTorch's math path runs, captured operation by operation. Taken: device operands of one
   floating dtype and equal rank, as many heads in k as in v and in q, or (gqa: enable_gqa)
   q's heads a multiple of k's (genie's kernel shares each head of k and v among a group of q's),
   no dropout, a mask of bool or floating dtype and no is_causal beside it, and nothing that
   needs a gradient (the overrideable backward is not implemented here). */
bool sdpa_takes(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v, const at::Tensor *m, double dropout_p,
                bool is_causal, bool gqa) {
    if (!is_genie(q) || !is_genie(k) || !is_genie(v) || !operand_ok(q) || !operand_ok(k) || !operand_ok(v)) return false;
    if (!genie_float(q) || k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type()) return false;
    const int64_t nd = q.dim();
    if (nd < 3 || k.dim() != nd || v.dim() != nd || dropout_p != 0.0) return false;
    const int64_t hq = q.size(-3), hk = k.size(-3);
    if (v.size(-3) != hk || k.size(-1) != q.size(-1) || v.size(-2) != k.size(-2)) return false;
    if (hk != hq && !(gqa && hk > 0 && hq % hk == 0)) return false;
    if (m && m->defined() &&
        (is_causal || !is_genie(*m) || !operand_ok(*m) || (m->scalar_type() != at::kBool && !genie_float(*m)) || m->dim() > nd))
        return false;
    if (at::GradMode::is_enabled() &&
        (q.requires_grad() || k.requires_grad() || v.requires_grad() || (m && m->defined() && m->requires_grad())))
        return false;
    return true;
}
int64_t sdpa_choice(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v, const std::optional<at::Tensor> &m,
                    double dropout_p, bool is_causal, std::optional<double>, bool enable_gqa) {
    const at::Tensor *mp = m.has_value() ? &*m : nullptr;
    return static_cast<int64_t>(sdpa_takes(q, k, v, mp, dropout_p, is_causal, enable_gqa) ? at::SDPBackend::overrideable
                                                                             : at::SDPBackend::math);
}
/* _scaled_dot_product_fused_attention_overrideable(query, key, value, attn_bias?, dropout_p,
   is_causal, return_debug_mask, *, scale?) -> (output, logsumexp, cum_seq_q, cum_seq_k, max_q,
   max_k, philox_seed, philox_offset, debug_attn_mask): the output, the others empty (the
   composite reads only the output) */
bool k_sdpa(const c10::OperatorHandle &, Args &a) {
    at::Tensor q = a.t(0), k = a.t(1), v = a.t(2), m = a.none(3) ? at::Tensor() : a.t(3);
    if (!sdpa_takes(q, k, v, &m, a[4].toDouble(), a.b(5), true) || a.b(6)) return false;
    const double scale = a.none(7) ? NAN : a[7].toDouble();
    at::Tensor out = wrap(genie_scaled_dot_product_attention(ctx(), H(q), H(k), H(v), m.defined() ? H(m) : nullptr,
                                                             a.b(5), scale));
    const int64_t zero = 0;
    auto empty = [&]() { return IValue(wrap(genie_empty(ctx(), GENIE_F32, 1, &zero))); };
    torch::jit::drop(*a.s, a.n);
    a.s->push_back(IValue(out));
    for (int i = 0; i < 3; i++) a.s->push_back(empty()); /* logsumexp, cum_seq_q, cum_seq_k */
    a.s->push_back(IValue(q.size(-2)));
    a.s->push_back(IValue(k.size(-2)));
    for (int i = 0; i < 3; i++) a.s->push_back(empty()); /* philox_seed, philox_offset, debug_attn_mask */
    return true;
}
#endif
bool k_native_layer_norm(const c10::OperatorHandle &, Args &a) {
    /* native_layer_norm(input, normalized_shape, weight?, bias?, eps) -> (out, mean, rstd) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || !genie_float(x)) return false;
    at::Tensor w = a.none(2) ? at::Tensor() : a.t(2), b = a.none(3) ? at::Tensor() : a.t(3);
    if ((w.defined() && !is_genie(w)) || (b.defined() && !is_genie(b))) return false;
    auto ns = a.ints(1);
    double eps = a[4].toDouble();
    int nn = (int)ns.size();
    if (nn == 0 || nn > x.dim()) return false;
    genie_tensor *out = ok(genie_layer_norm(ctx(), H(x), nn, ns.data(), w.defined() ? H(w) : nullptr, b.defined() ? H(b) : nullptr, eps));
    at::Tensor r0 = wrap(out);
    std::vector<int64_t> dims;
    for (int i = 0; i < nn; i++) dims.push_back(x.dim() - nn + i);
    at::Tensor r1 = wrap(genie_mean(ctx(), H(x), nn, dims.data(), 1));
    GT var, ve;
    var.p = ok(genie_var(ctx(), H(x), nn, dims.data(), 0, 1));
    var.owned = true;
    ve.p = ok(genie_add_scalar(ctx(), var.p, eps));
    ve.owned = true;
    at::Tensor r2 = wrap(genie_rsqrt(ctx(), ve.p));
    torch::jit::drop(*a.s, a.n);
    a.s->push_back(r0);
    a.s->push_back(r1);
    a.s->push_back(r2);
    return true;
}

/* ------------------------------------------------------------------ backward formulas */
/* the backward kernels autograd calls most, captured with ATen's formulas, so a training step
   stays lazy; anything unusual (other dtypes, broadcasting) goes to the fallback */
bool floats_alike(const at::Tensor &a, const at::Tensor &b) {
    return is_genie(a) && is_genie(b) && operand_ok(a) && operand_ok(b) && genie_float(a) && a.scalar_type() == b.scalar_type() &&
           a.sizes() == b.sizes();
}
bool k_threshold_backward(const c10::OperatorHandle &, Args &a) { /* (grad_output, self, threshold) */
    at::Tensor go = a.t(0), x = a.t(1);
    if (!floats_alike(go, x) || a.sc(2).isComplex()) return false;
    GT thr = scalar_const(a.sc(2), x.scalar_type());
    GT mask = own(genie_le(ctx(), H(x), thr.p)); /* self <= threshold ? 0 : grad */
    a.ret(wrap(genie_masked_fill(ctx(), H(go), mask.p, 0.0)));
    return true;
}
template <int SIGMOID>
bool k_act_backward(const c10::OperatorHandle &, Args &a) { /* tanh/sigmoid_backward(grad_output, output) */
    at::Tensor go = a.t(0), y = a.t(1);
    if (!floats_alike(go, y)) return false;
    if (SIGMOID) { /* grad * y * (1 - y) */
        GT one_minus = own(genie_mul_scalar(ctx(), H(y), -1.0));
        GT om = own(genie_add_scalar(ctx(), one_minus.p, 1.0));
        GT t = own(genie_mul(ctx(), H(go), om.p));
        a.ret(wrap(genie_mul(ctx(), t.p, H(y))));
    } else { /* grad * (1 - y^2) */
        GT y2 = own(genie_mul(ctx(), H(y), H(y)));
        GT neg = own(genie_mul_scalar(ctx(), y2.p, -1.0));
        GT om = own(genie_add_scalar(ctx(), neg.p, 1.0));
        a.ret(wrap(genie_mul(ctx(), H(go), om.p)));
    }
    return true;
}
template <int LOG>
bool k_softmax_backward(const c10::OperatorHandle &, Args &a) { /* (grad_output, output, dim, input_dtype) */
    at::Tensor go = a.t(0), y = a.t(1);
    if (!floats_alike(go, y) || (at::ScalarType)a.i64(3) != y.scalar_type() || y.dim() == 0) return false;
    int64_t dim = a.i64(2);
    if (LOG) { /* grad - exp(y) * sum(grad, dim) */
        GT s = own(genie_sum(ctx(), H(go), 1, &dim, 1));
        GT e = own(genie_exp(ctx(), H(y)));
        GT es = own(genie_mul(ctx(), e.p, s.p));
        a.ret(wrap(genie_sub(ctx(), H(go), es.p)));
    } else { /* y * (grad - sum(grad * y, dim)) */
        GT gy = own(genie_mul(ctx(), H(go), H(y)));
        GT s = own(genie_sum(ctx(), gy.p, 1, &dim, 1));
        GT d = own(genie_sub(ctx(), H(go), s.p));
        a.ret(wrap(genie_mul(ctx(), H(y), d.p)));
    }
    return true;
}
bool k_mse_loss(const c10::OperatorHandle &, Args &a) { /* mse_loss(self, target, reduction) */
    at::Tensor x = a.t(0), t = a.t(1);
    int64_t red = a.i64(2);
    if (!floats_alike(x, t) || red < 0 || red > 2) return false;
    GT d = own(genie_sub(ctx(), H(x), H(t)));
    GT sq = own(genie_mul(ctx(), d.p, d.p));
    if (red == 0) {
        genie_retain(sq.p);
        a.ret(wrap(sq.p));
    } else {
        a.ret(wrap(red == 1 ? genie_mean(ctx(), sq.p, 0, nullptr, 0) : genie_sum(ctx(), sq.p, 0, nullptr, 0)));
    }
    return true;
}
bool k_mse_loss_backward(const c10::OperatorHandle &, Args &a) { /* (grad_output, self, target, reduction) */
    at::Tensor go = a.t(0), x = a.t(1), t = a.t(2);
    int64_t red = a.i64(3);
    if (!floats_alike(x, t) || !is_genie(go) || !operand_ok(go) || go.scalar_type() != x.scalar_type() || red < 0 || red > 2)
        return false;
    if (red == 0 ? go.sizes() != x.sizes() : go.dim() != 0) return false;
    double norm = red == 1 ? 2.0 / (double)std::max<int64_t>(x.numel(), 1) : 2.0;
    if (red == 1 && x.numel() == 0) return false;
    GT d = own(genie_sub(ctx(), H(x), H(t)));
    GT dn = own(genie_mul_scalar(ctx(), d.p, norm)); /* ATen: norm * (self - target) * grad */
    a.ret(wrap(genie_mul(ctx(), dn.p, H(go))));
    return true;
}

/* ------------------------------------------------------------------ linear algebra */
bool same_float(const at::Tensor &x, const at::Tensor &y) {
    return is_genie(x) && is_genie(y) && operand_ok(x) && operand_ok(y) && x.scalar_type() == y.scalar_type() && genie_float(x);
}
bool k_mm(const c10::OperatorHandle &, Args &a) { /* mm/bmm(self, mat2) */
    at::Tensor x = a.t(0), y = a.t(1);
    if (!same_float(x, y)) return false;
    a.ret(wrap(genie_matmul(ctx(), H(x), H(y))));
    return true;
}
bool k_addmm(const c10::OperatorHandle &, Args &a) { /* addmm/baddbmm(self, m1, m2, beta, alpha) */
    at::Tensor s = a.t(0), x = a.t(1), y = a.t(2);
    if (!same_float(x, y) || !is_genie(s) || s.scalar_type() != x.scalar_type()) return false;
    c10::Scalar beta = a.sc(3), alpha = a.sc(4);
    if (beta.isComplex() || alpha.isComplex()) return false;
    GT p, pa, sb;
    p.p = ok(genie_matmul(ctx(), H(x), H(y)));
    p.owned = true;
    genie_tensor *prod = p.p;
    if (alpha.toDouble() != 1.0) {
        pa.p = ok(genie_mul_scalar(ctx(), p.p, alpha.toDouble()));
        pa.owned = true;
        prod = pa.p;
    }
    if (beta.toDouble() == 0.0) { /* self is ignored (NaN included), as ATen */
        genie_retain(prod);
        a.ret(wrap(prod));
        return true;
    }
    genie_tensor *self = H(s);
    if (beta.toDouble() != 1.0) {
        sb.p = ok(genie_mul_scalar(ctx(), self, beta.toDouble()));
        sb.owned = true;
        self = sb.p;
    }
    a.ret(wrap(genie_add(ctx(), self, prod)));
    return true;
}

/* ------------------------------------------------------------------ joining, indexing, tuples */
template <int STACK>
bool k_join(const c10::OperatorHandle &, Args &a) {
    auto ts = a[0].toTensorVector();
    if (ts.empty()) return false;
    std::vector<genie_tensor *> hs;
    for (auto &t : ts) {
        if (!is_genie(t) || !operand_ok(t)) return false;
        hs.push_back(H(t));
    }
    int64_t dim = a.i64(1);
    a.ret(wrap(STACK ? genie_stack(ctx(), (int)hs.size(), hs.data(), dim) : genie_cat(ctx(), (int)hs.size(), hs.data(), dim)));
    return true;
}
bool k_flip(const c10::OperatorHandle &, Args &a) { /* flip(self, dims): a copy in PyTorch */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x)) return false;
    auto dims = a.ints(1);
    a.ret(wrap(genie_flip(ctx(), H(x), (int)dims.size(), dims.data())));
    return true;
}
bool k_index_select(const c10::OperatorHandle &, Args &a) { /* index_select(self, dim, index) */
    at::Tensor x = a.t(0), i = a.t(2);
    if (!is_genie(x) || !is_genie(i) || !operand_ok(x) || i.scalar_type() != at::kLong || i.dim() > 1) return false;
    a.ret(wrap(genie_index_select(ctx(), H(x), a.i64(1), H(i))));
    return true;
}
bool k_gather(const c10::OperatorHandle &, Args &a) { /* gather(self, dim, index, sparse_grad) */
    at::Tensor x = a.t(0), i = a.t(2);
    if (!is_genie(x) || !is_genie(i) || !operand_ok(x) || i.scalar_type() != at::kLong) return false;
    a.ret(wrap(genie_gather(ctx(), H(x), a.i64(1), H(i))));
    return true;
}
bool k_embedding(const c10::OperatorHandle &, Args &a) { /* embedding(weight, indices, padding_idx, scale, sparse) */
    at::Tensor w = a.t(0), i = a.t(1);
    if (!is_genie(w) || !is_genie(i) || !operand_ok(w) || i.scalar_type() != at::kLong || w.dim() != 2) return false;
    a.ret(wrap(genie_embedding(ctx(), H(w), H(i))));
    return true;
}
void ret_tuple(Args &a, genie_tuple *tup) {
    if (!tup) fail();
    int n = genie_tuple_size(tup);
    std::vector<at::Tensor> out;
    for (int i = 0; i < n; i++) {
        genie_tensor *e = genie_tuple_get(tup, i);
        genie_retain(e);
        out.push_back(wrap(e));
    }
    genie_tuple_release(tup);
    torch::jit::drop(*a.s, a.n);
    for (auto &t : out) a.s->push_back(t);
}
bool k_topk(const c10::OperatorHandle &, Args &a) { /* topk(self, k, dim, largest, sorted) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.scalar_type() == at::kBool) return false;
    ret_tuple(a, genie_topk(ctx(), H(x), a.i64(1), a.i64(2), a.b(3), a.b(4)));
    return true;
}
bool k_sort(const c10::OperatorHandle &, Args &a) { /* sort(self, dim, descending) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.scalar_type() == at::kBool) return false;
    ret_tuple(a, genie_sort(ctx(), H(x), a.i64(1), a.b(2)));
    return true;
}
bool k_sort_stable(const c10::OperatorHandle &, Args &a) { /* sort.stable(self, stable?, dim, descending) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.scalar_type() == at::kBool) return false;
    ret_tuple(a, genie_sort(ctx(), H(x), a.i64(2), a.b(3)));
    return true;
}
template <int MAX>
bool k_max_dim(const c10::OperatorHandle &, Args &a) { /* max.dim(self, dim, keepdim) */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.scalar_type() == at::kBool || x.dim() == 0) return false;
    ret_tuple(a, MAX ? genie_max_dim(ctx(), H(x), a.i64(1), a.b(2)) : genie_min_dim(ctx(), H(x), a.i64(1), a.b(2)));
    return true;
}


/* ------------------------------------------------------------------ bool logic, any/all, isin */
/* bitwise_and/or/xor.Tensor(self, other) on integer or bool tensors (bool beside an integer
   promoted to 0 or 1, as ATen): genie's bit operations; a float operand is ATen's error, the
   fallback's */
template <BinFn F>
bool k_bitwise(const c10::OperatorHandle &op, Args &a) {
    if (!a.t(0).defined() || !a.t(1).defined() || !c10::isIntegralType(a.t(0).scalar_type(), true) ||
        !c10::isIntegralType(a.t(1).scalar_type(), true))
        return false;
    return k_binary<F, 0>(op, a);
}
template <BinFn F>
bool k_bitwise_scalar(const c10::OperatorHandle &op, Args &a) { /* bitwise_and/or/xor.Scalar: an integer or bool other */
    if (!c10::isIntegralType(a.t(0).scalar_type(), true) || !a.sc(1).isIntegral(true)) return false;
    return k_binary_scalar<F>(op, a);
}
bool k_bitwise_not(const c10::OperatorHandle &op, Args &a) { /* bitwise_not(self): ~, logical_not on bool */
    if (!c10::isIntegralType(a.t(0).scalar_type(), true)) return false;
    return k_unary<genie_bitwise_not, 0>(op, a);
}
/* x as a bool tensor (x != 0), or x itself when bool */
GT truth(const at::Tensor &x) {
    GT g;
    if (x.scalar_type() == at::kBool) {
        g.p = H(x);
        return g;
    }
    GT zero = scalar_const(0, x.scalar_type());
    return own(genie_ne(ctx(), H(x), zero.p));
}
/* any/all over dims (none: all of them) as amax/amin of the bool truth; uint8 (whose any/all
   give uint8) and empty tensors go to the fallback */
bool any_all(Args &a, bool all, const std::vector<int64_t> &dims, bool keepdim) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.scalar_type() == at::kByte || x.numel() == 0) return false;
    if (x.dim() == 0 && !dims.empty()) return false; /* ATen's 0-dim dim rules */
    GT b = truth(x);
    a.ret(wrap(all ? genie_amin(ctx(), b.p, (int)dims.size(), dims.data(), keepdim)
                   : genie_amax(ctx(), b.p, (int)dims.size(), dims.data(), keepdim)));
    return true;
}
template <int ALL> /* any/all(self) */
bool k_any_all(const c10::OperatorHandle &, Args &a) { return any_all(a, ALL, {}, false); }
template <int ALL> /* any/all.dim(self, dim, keepdim) */
bool k_any_all_dim(const c10::OperatorHandle &, Args &a) { return any_all(a, ALL, {a.i64(1)}, a.b(2)); }
template <int ALL> /* any/all.dims(self, dim?, keepdim) */
bool k_any_all_dims(const c10::OperatorHandle &, Args &a) { return any_all(a, ALL, dims_arg(a, 1), a.b(2)); }
template <int MAX>
bool k_max_all(const c10::OperatorHandle &, Args &a) { /* max/min(self): every element, non-empty */
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.numel() == 0) return false;
    a.ret(wrap(MAX ? genie_amax(ctx(), H(x), 0, nullptr, 0) : genie_amin(ctx(), H(x), 0, nullptr, 0)));
    return true;
}
/* elements of isin's [elements, test_elements] comparison above which it goes to the fallback */
constexpr int64_t kIsinMaxPairs = 1 << 22;
/* isin.Tensor_Tensor(elements, test_elements, assume_unique, invert): any over the last dim of
   elements[..., None] == test_elements.flatten(), promoted as ATen's isin (eq's promotion), or
   elements == the one test element where it has elements' dtype (generate's eos test); empty
   operands and large products go to the fallback */
bool k_isin(const c10::OperatorHandle &, Args &a) {
    at::Tensor e = a.t(0), t = a.t(1);
    if (!is_genie(e) || !is_genie(t) || !operand_ok(e) || !operand_ok(t)) return false;
    if (e.numel() == 0 || t.numel() == 0 || e.numel() * t.numel() > kIsinMaxPairs) return false;
    bool invert = a.b(3);
    if (t.numel() == 1 && t.scalar_type() == e.scalar_type()) { /* one test element: elements == it */
        GT tv = own(genie_reshape(ctx(), H(t), 0, nullptr));
        GT hit = own(genie_eq(ctx(), H(e), tv.p));
        hit.owned = invert;
        a.ret(wrap(invert ? genie_logical_not(ctx(), hit.p) : hit.p));
        return true;
    }
    int64_t flat = -1;
    GT ev = own(genie_unsqueeze(ctx(), H(e), e.dim()));
    GT tv = own(genie_reshape(ctx(), H(t), 1, &flat));
    GT eq = own(genie_eq(ctx(), ev.p, tv.p));
    int64_t last = -1;
    GT hit = own(genie_amax(ctx(), eq.p, 1, &last, 0));
    if (invert) {
        a.ret(wrap(genie_logical_not(ctx(), hit.p)));
    } else {
        hit.owned = false;
        a.ret(wrap(hit.p));
    }
    return true;
}
/* cumsum(self, dim, dtype?): genie's dtype (integer and bool inputs: i64); another asked dtype
   goes to the fallback */
bool k_cumsum(const c10::OperatorHandle &, Args &a) {
    at::Tensor x = a.t(0);
    if (!is_genie(x) || !operand_ok(x) || x.dim() == 0) return false;
    at::ScalarType want = genie_float(x) ? x.scalar_type() : at::kLong;
    if (!a.none(2) && (at::ScalarType)a.i64(2) != want) return false;
    a.ret(wrap(genie_cumsum(ctx(), H(x), a.i64(1))));
    return true;
}

/* ------------------------------------------------------------------ the device guard */
struct GenieGuard final : public c10::impl::DeviceGuardImplInterface {
    c10::DeviceType type() const override { return kDev; }
    c10::Device exchangeDevice(c10::Device) const override { return kDevice; }
    c10::Device getDevice() const override { return kDevice; }
    void setDevice(c10::Device d) const override {
        TORCH_CHECK(d.index() <= 0, "genie: device index ", (int)d.index(), " out of range (one device)");
    }
    void uncheckedSetDevice(c10::Device) const noexcept override {}
    c10::Stream getStream(c10::Device) const noexcept override { return c10::Stream(c10::Stream::DEFAULT, kDevice); }
    c10::Stream exchangeStream(c10::Stream) const noexcept override { return c10::Stream(c10::Stream::DEFAULT, kDevice); }
    c10::DeviceIndex deviceCount() const noexcept override { return 1; }
#if GENIE_TORCH_SYNC
    /* work is lazy and runs where values are read: nothing is ever in flight */
    void synchronizeDevice(const c10::DeviceIndex) const override {}
#endif
};
C10_REGISTER_GUARD_IMPL(PrivateUse1, GenieGuard);

#if GENIE_TORCH_HOOKS
/* ------------------------------------------------------------------ generator, hooks, pinned memory */
/* the device's generator: PyTorch's CPU generator (mt19937) reporting the device, as
   PyTorch's reference backend does; genie's random kernels take one 64-bit seed drawn from it */
struct GenieGenerator final : public at::CPUGeneratorImpl {
    GenieGenerator() : at::CPUGeneratorImpl(c10::detail::getNonDeterministicRandom()) {
        device_ = kDevice;
        key_set_ = c10::DispatchKeySet(c10::DispatchKey::PrivateUse1);
    }
};
const at::Generator &default_generator() {
    static at::Generator g = at::make_generator<GenieGenerator>();
    return g;
}

/* pinned host memory: plain host memory the hooks recognise (is_pinned answers for it) */
std::mutex g_pin_mu;
std::unordered_set<const void *> g_pinned;
void pinned_free(void *p) {
    {
        std::lock_guard<std::mutex> l(g_pin_mu);
        g_pinned.erase(p);
    }
    c10::free_cpu(p);
}
struct PinnedAllocator final : public c10::Allocator {
    c10::DataPtr allocate(size_t n) override {
        void *p = n ? c10::alloc_cpu(n) : nullptr;
        if (p) {
            std::lock_guard<std::mutex> l(g_pin_mu);
            g_pinned.insert(p);
        }
        return {p, p, &pinned_free, c10::Device(c10::DeviceType::CPU)};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &pinned_free; }
    void copy_data(void *dst, const void *src, size_t n) const override { memcpy(dst, src, n); }
};
PinnedAllocator g_pinned_alloc;

struct GenieHooks final : public at::PrivateUse1HooksInterface {
    bool isBuilt() const override { return true; }
    bool isAvailable() const override { return true; }
    bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
    const at::Generator &getDefaultGenerator(c10::DeviceIndex) const override { return default_generator(); }
    at::Generator getNewGenerator(c10::DeviceIndex) const override { return at::make_generator<GenieGenerator>(); }
    at::Device getDeviceFromPtr(void *) const override { return kDevice; }
    bool isPinnedPtr(const void *p) const override {
        std::lock_guard<std::mutex> l(g_pin_mu);
        return g_pinned.count(p) != 0;
    }
    c10::Allocator *getPinnedMemoryAllocator() const override { return &g_pinned_alloc; }
};
struct RegisterHooks {
    RegisterHooks() { at::RegisterPrivateUse1HooksInterface(new GenieHooks()); }
} g_register_hooks;
#endif

#if GENIE_TORCH_RENAME
struct RenameOnce {
    RenameOnce() {
        try {
            c10::register_privateuse1_backend("remote_accelerator");
        } catch (const std::exception &) { /* already renamed in this process */
        }
    }
} g_rename;
#endif

/* ------------------------------------------------------------------ the genie:: ops for Python */
std::string json_stats() {
    Lock l(g_mu);
    genie_stats s = genie_get_stats(ctx());
    std::ostringstream o;
    o << "{\"nodes_created\":" << s.nodes_created << ",\"views_created\":" << s.views_created
      << ",\"nodes_executed\":" << s.nodes_executed << ",\"nodes_live\":" << s.nodes_live << ",\"tapes_run\":" << s.tapes_run
      << ",\"materializations\":{\"realize\":" << s.materializations[GENIE_MAT_REALIZE] << ",\"read\":" << s.materializations[GENIE_MAT_READ]
      << ",\"item\":" << s.materializations[GENIE_MAT_ITEM] << ",\"data\":" << s.materializations[GENIE_MAT_DATA] << "}"
      << ",\"inplace_writes\":" << s.inplace_writes << ",\"bytes_live\":" << s.bytes_live << ",\"bytes_peak\":" << s.bytes_peak
      << ",\"fallback_materialized\":" << g_counts.fallback_materialized << ",\"to_cpu\":" << g_counts.to_cpu
      << ",\"items\":" << g_counts.items << ",\"pack_cache_bytes\":" << s.pack_cache_bytes
      << ",\"pack_cache_packs\":" << s.pack_cache_packs << ",\"pack_cache_hits\":" << s.pack_cache_hits;
    o << ",\"backend\":\"" << genie_backend_name(ctx()) << "\",\"backend_nodes\":" << s.backend_nodes << ",\"backend_fallbacks\":"
      << s.backend_fallbacks << ",\"remote_bytes_sent\":" << s.remote_bytes_sent << ",\"remote_bytes_received\":"
      << s.remote_bytes_received << ",\"remote_round_trips\":" << s.remote_round_trips;
    for (int k = 0; k < 2; k++) {
        o << (k ? ",\"fallback\":{" : ",\"captured\":{");
        bool first = true;
        for (auto &e : (k ? g_counts.fallback : g_counts.captured)) {
            o << (first ? "" : ",") << "\"" << e.first << "\":" << e.second;
            first = false;
        }
        o << "}";
    }
    o << "}";
    return o.str();
}
void reset_counts() {
    Lock l(g_mu);
    for (auto &e : g_counts.captured) e.second = 0;
    for (auto &e : g_counts.fallback) e.second = 0;
    g_counts.fallback_materialized = g_counts.to_cpu = g_counts.items = 0;
}
void scope_push(std::string name) {
    Lock l(g_mu);
    genie_scope_push(ctx(), name.c_str());
}
void scope_pop() {
    Lock l(g_mu);
    genie_scope_pop(ctx());
}
void set_phase(std::string phase) {
    Lock l(g_mu);
    genie_set_phase(ctx(), phase.c_str());
}
void dump_dot(at::TensorList roots, std::string path) {
    Lock l(g_mu);
    std::vector<genie_tensor *> hs;
    for (auto &t : roots) {
        TORCH_CHECK(is_genie(t), "genie.dump_dot: a tensor not on the genie device");
        hs.push_back(H(t));
    }
    FILE *f = fopen(path.c_str(), "w");
    TORCH_CHECK(f, "genie.dump_dot: cannot write ", path);
    genie_result r = genie_dump_dot(ctx(), (int)hs.size(), hs.data(), f);
    fclose(f);
    okr(r);
}
std::vector<std::string> info(const at::Tensor &t) {
    Lock l(g_mu);
    TORCH_CHECK(is_genie(t), "genie.info: a tensor not on the genie device");
    genie_tensor *h = H(t);
    return {genie_op_name(h), genie_module_path(h), genie_phase(h), genie_is_materialized(h) ? "1" : "0"};
}
int64_t num_threads() {
    Lock l(g_mu);
    return g_threads;
}
bool shares_storage(const at::Tensor &a, const at::Tensor &b) {
    Lock l(g_mu);
    return is_genie(a) && is_genie(b) && genie_shares_storage(H(a), H(b));
}
/* computes the genie tensors among ts together (one tape: what they share runs once) */
void realize(at::TensorList ts) {
    Lock l(g_mu);
    std::vector<genie_tensor *> hs;
    for (auto &t : ts)
        if (is_genie(t)) hs.push_back(H(t));
    if (hs.empty()) return;
    sync_threads();
    okr(genie_realize(ctx(), (int)hs.size(), hs.data()));
}

#ifdef GENIE_TORCH_REMOTE
/* The server's work for this process (genie_remote_stats), one line a row:
   module \t phase \t role \t nodes \t flops \t bytes \t ns */
std::string remote_stats() {
    Lock l(g_mu);
    std::vector<genie_remote_work> rows(256);
    int n = genie_remote_stats(ctx(), rows.data(), (int)rows.size());
    if (n > (int)rows.size()) {
        rows.resize((size_t)n);
        n = genie_remote_stats(ctx(), rows.data(), (int)rows.size());
    }
    if (n < 0) fail();
    std::ostringstream o;
    for (int i = 0; i < n && i < (int)rows.size(); i++) {
        const genie_remote_work &r = rows[i];
        o << r.module << '\t' << r.phase << '\t' << r.role << '\t' << r.work.nodes << '\t' << r.work.flops << '\t'
          << r.work.bytes << '\t' << r.work.ns << '\n';
    }
    return o.str();
}
/* after the server was lost: connect to it again (genie_remote_reconnect) */
void remote_reconnect() {
    Lock l(g_mu);
    okr(genie_remote_reconnect(ctx()));
}
#endif

} // namespace

#define BOX(fn) torch::CppFunction::makeFromBoxedFunction<&boxed<fn>>()

#if GENIE_TORCH_HOOKS
at::Generator py_default_generator() { return default_generator(); }
#endif

#if GENIE_TORCH_SDPA
/* scaled_dot_product_attention asks this stub which backend runs it on the device */
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &sdpa_choice)
} // namespace at::native
#endif

TORCH_LIBRARY(genie, m) {
#if GENIE_TORCH_HOOKS
    m.def("default_generator() -> Generator?", &py_default_generator);
#endif
    m.def("stats() -> str", &json_stats);
    m.def("reset_counts() -> ()", &reset_counts);
    m.def("scope_push(str name) -> ()", &scope_push);
    m.def("scope_pop() -> ()", &scope_pop);
    m.def("set_phase(str phase) -> ()", &set_phase);
    m.def("dump_dot(Tensor[] roots, str path) -> ()", &dump_dot);
    m.def("info(Tensor t) -> str[]", &info);
    m.def("shares_storage(Tensor a, Tensor b) -> bool", &shares_storage);
    m.def("num_threads() -> int", &num_threads);
    m.def("realize(Tensor[] ts) -> ()", &realize);
#ifdef GENIE_TORCH_REMOTE
    m.def("remote_stats() -> str", &remote_stats);
    m.def("remote_reconnect() -> ()", &remote_reconnect);
#endif
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
    m.fallback(torch::CppFunction::makeFromBoxedFunction<&genie_fallback>());
}

/* _copy_from must see the Negative/Conjugate bits itself, or it and the fallbacks recurse */
TORCH_LIBRARY_IMPL(aten, Negative, m) {
    m.impl("_copy_from", torch::CppFunction::makeFallthrough());
    m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
    m.impl("_copy_from", torch::CppFunction::makeFallthrough());
    m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    /* what an out-of-tree backend needs */
    m.impl("empty.memory_format", BOX(k_empty));
    m.impl("empty_strided", BOX(k_empty_strided));
    m.impl("as_strided", BOX(k_as_strided));
    m.impl("resize_", BOX(k_resize_));
    m.impl("_reshape_alias", BOX(k_reshape_alias));
    m.impl("view", BOX(k_view));
    m.impl("_unsafe_view", BOX(k_unsafe_view));
    m.impl("_copy_from", BOX(k_copy_from));
    m.impl("_copy_from_and_resize", BOX(k_copy_from_and_resize));
    m.impl("copy_", BOX(k_copy_));
    m.impl("_local_scalar_dense", BOX(k_local_scalar_dense));
    m.impl("set_.source_Tensor", BOX(k_set_source));
    m.impl("set_", BOX(k_set_empty));
    m.impl("set_.source_Storage", BOX(k_set_storage));
    m.impl("set_.source_Storage_storage_offset", BOX(k_set_storage));
    m.impl("_to_copy", BOX(k_to_copy));
    m.impl("clone", BOX(k_clone));
    /* creation */
    m.impl("zeros", BOX(k_const<0>));
    m.impl("ones", BOX(k_const<1>));
    m.impl("full", BOX(k_full));
    m.impl("arange", BOX(k_arange<1>));
    m.impl("arange.start", BOX(k_arange<2>));
    m.impl("arange.start_step", BOX(k_arange<3>));
    m.impl("randn", BOX((k_rand<1, 0>)));
    m.impl("randn.generator", BOX((k_rand<1, 1>)));
    m.impl("rand", BOX((k_rand<0, 0>)));
    m.impl("rand.generator", BOX((k_rand<0, 1>)));
    /* views: genie views, so aliasing holds */
    m.impl("alias", BOX(k_alias));
    m.impl("detach", BOX(k_alias));
    m.impl("transpose.int", BOX(k_transpose));
    m.impl("t", BOX(k_t));
    m.impl("permute", BOX(k_permute));
    m.impl("expand", BOX(k_expand));
    m.impl("squeeze", BOX(k_squeeze));
    m.impl("squeeze.dim", BOX(k_squeeze_dim));
    m.impl("unsqueeze", BOX(k_unsqueeze));
    m.impl("select.int", BOX(k_select));
    m.impl("slice.Tensor", BOX(k_slice));
    m.impl("diagonal", BOX(k_diagonal));
    m.impl("unfold", BOX(k_unfold));
    m.impl("squeeze_", BOX(k_inplace_view<k_squeeze>));
    m.impl("squeeze_.dim", BOX(k_inplace_view<k_squeeze_dim>));
    m.impl("unsqueeze_", BOX(k_inplace_view<k_unsqueeze>));
    m.impl("transpose_", BOX(k_inplace_view<k_transpose>));
    m.impl("t_", BOX(k_inplace_view<k_t>));
    m.impl("as_strided_", BOX(k_inplace_view<k_as_strided>));
    /* convolution: PyTorch sends backends it does not know here */
    m.impl("convolution_overrideable", BOX(k_convolution));
    m.impl("convolution_backward_overrideable", BOX(k_convolution_backward));
    /* fallback-first: ATen's generic composites for these are worse than running CPU's own
       kernel (math_group_norm divides by zero on an empty batch; math_addr_out skips CPU's
       shape check of addr_) */
    /* ... and for these ATen's composites read the storage, which device tensors do not have
       (clone_preserve_strides, frexp's out= path) */
    for (const char *name : {"native_group_norm", "native_group_norm_backward", "addr_", "addr.out", "diagonal_scatter",
                             "as_strided_scatter", "select_scatter", "slice_scatter", "frexp.Tensor"})
        m.impl(name, torch::CppFunction::makeFromBoxedFunction<&genie_fallback>());
    /* elementwise */
    m.impl("add.Tensor", BOX((k_binary<genie_add, 1, genie_add_scalar>)));
    m.impl("sub.Tensor", BOX((k_binary<genie_sub, 1, genie_sub_scalar>)));
    m.impl("mul.Tensor", BOX((k_binary<genie_mul, 0, genie_mul_scalar>)));
    m.impl("div.Tensor", BOX((k_binary<genie_div, 0, genie_div_scalar>)));
    m.impl("div.Tensor_mode", BOX(k_div_mode));
    m.impl("maximum", BOX((k_binary<genie_maximum, 0>)));
    m.impl("minimum", BOX((k_binary<genie_minimum, 0>)));
    m.impl("eq.Tensor", BOX((k_binary<genie_eq, 0>)));
    m.impl("ne.Tensor", BOX((k_binary<genie_ne, 0>)));
    m.impl("lt.Tensor", BOX((k_binary<genie_lt, 0>)));
    m.impl("le.Tensor", BOX((k_binary<genie_le, 0>)));
    m.impl("gt.Tensor", BOX((k_binary<genie_gt, 0>)));
    m.impl("ge.Tensor", BOX((k_binary<genie_ge, 0>)));
    m.impl("eq.Scalar", BOX(k_binary_scalar<genie_eq>));
    m.impl("ne.Scalar", BOX(k_binary_scalar<genie_ne>));
    m.impl("lt.Scalar", BOX(k_binary_scalar<genie_lt>));
    m.impl("le.Scalar", BOX(k_binary_scalar<genie_le>));
    m.impl("gt.Scalar", BOX(k_binary_scalar<genie_gt>));
    m.impl("ge.Scalar", BOX(k_binary_scalar<genie_ge>));
    m.impl("logical_and", BOX((k_binary<genie_logical_and, 0>)));
    m.impl("logical_or", BOX((k_binary<genie_logical_or, 0>)));
    m.impl("pow.Tensor_Tensor", BOX(k_pow_tensor));
    m.impl("pow.Tensor_Scalar", BOX(k_pow_scalar));
    m.impl("add.out", BOX((k_binary_out<genie_add, 1, genie_add_scalar>)));
    m.impl("sub.out", BOX((k_binary_out<genie_sub, 1, genie_sub_scalar>)));
    m.impl("mul.out", BOX((k_binary_out<genie_mul, 0, genie_mul_scalar>)));
    m.impl("div.out", BOX((k_binary_out<genie_div, 0, genie_div_scalar>)));
    m.impl("add_.Tensor", BOX((k_binary_<genie_add_, 1>)));
    m.impl("sub_.Tensor", BOX((k_binary_<genie_sub_, 1>)));
    m.impl("mul_.Tensor", BOX((k_binary_<genie_mul_, 0>)));
    m.impl("div_.Tensor", BOX((k_binary_<genie_div_, 0>)));
    m.impl("fill_.Scalar", BOX(k_fill_));
    m.impl("zero_", BOX(k_zero_));
    m.impl("relu_", BOX(k_relu_));
    m.impl("masked_fill.Scalar", BOX(k_masked_fill));
    m.impl("masked_fill_.Scalar", BOX(k_masked_fill_));
    m.impl("neg", BOX((k_unary<genie_neg, 0>)));
    m.impl("abs", BOX((k_unary<genie_abs, 0>)));
    m.impl("exp", BOX((k_unary<genie_exp, 1>)));
    m.impl("log", BOX((k_unary<genie_log, 1>)));
    m.impl("sqrt", BOX((k_unary<genie_sqrt, 1>)));
    m.impl("rsqrt", BOX((k_unary<genie_rsqrt, 1>)));
    m.impl("sin", BOX((k_unary<genie_sin, 1>)));
    m.impl("cos", BOX((k_unary<genie_cos, 1>)));
    m.impl("tanh", BOX((k_unary<genie_tanh, 1>)));
    m.impl("sigmoid", BOX((k_unary<genie_sigmoid, 1>)));
    m.impl("relu", BOX((k_unary<genie_relu, 0>)));
    m.impl("gelu", BOX(k_gelu));
    m.impl("silu", BOX((k_unary<genie_silu, 1>)));
    m.impl("reciprocal", BOX((k_unary<genie_reciprocal, 1>)));
    m.impl("floor", BOX((k_unary<genie_floor, 1>)));
    m.impl("ceil", BOX((k_unary<genie_ceil, 1>)));
    m.impl("round", BOX((k_unary<genie_round, 1>)));
    m.impl("sign", BOX((k_unary<genie_sign, 1>)));
    m.impl("erf", BOX((k_unary<genie_erf, 1>)));
    m.impl("log1p", BOX((k_unary<genie_log1p, 1>)));
    m.impl("expm1", BOX((k_unary<genie_expm1, 1>)));
    m.impl("logical_not", BOX((k_unary<genie_logical_not, 0>)));
    m.impl("neg_", BOX((k_unary_<genie_neg, 0>)));
    m.impl("abs_", BOX((k_unary_<genie_abs, 0>)));
    m.impl("exp_", BOX((k_unary_<genie_exp, 1>)));
    m.impl("log_", BOX((k_unary_<genie_log, 1>)));
    m.impl("sqrt_", BOX((k_unary_<genie_sqrt, 1>)));
    m.impl("rsqrt_", BOX((k_unary_<genie_rsqrt, 1>)));
    m.impl("sin_", BOX((k_unary_<genie_sin, 1>)));
    m.impl("cos_", BOX((k_unary_<genie_cos, 1>)));
    m.impl("tanh_", BOX((k_unary_<genie_tanh, 1>)));
    m.impl("sigmoid_", BOX((k_unary_<genie_sigmoid, 1>)));
    m.impl("silu_", BOX((k_unary_<genie_silu, 1>)));
    m.impl("reciprocal_", BOX((k_unary_<genie_reciprocal, 1>)));
    m.impl("floor_", BOX((k_unary_<genie_floor, 1>)));
    m.impl("ceil_", BOX((k_unary_<genie_ceil, 1>)));
    m.impl("round_", BOX((k_unary_<genie_round, 1>)));
    m.impl("sign_", BOX((k_unary_<genie_sign, 1>)));
    m.impl("erf_", BOX((k_unary_<genie_erf, 1>)));
    m.impl("log1p_", BOX((k_unary_<genie_log1p, 1>)));
    m.impl("expm1_", BOX((k_unary_<genie_expm1, 1>)));
    m.impl("where.self", BOX(k_where));
    m.impl("clamp", BOX(k_clamp));
    m.impl("clamp_min", BOX(k_clamp_one<false>));
    m.impl("clamp_max", BOX(k_clamp_one<true>));
    m.impl("linalg_vector_norm", BOX(k_vector_norm<4>));
    m.impl("norm.ScalarOpt_dim", BOX(k_vector_norm<0>));
    m.impl("tril", BOX(k_tri<0>));
    m.impl("triu", BOX(k_tri<1>));
    /* reductions and normalization */
    m.impl("sum.dim_IntList", BOX((k_reduce<genie_sum, 3>)));
    m.impl("mean.dim", BOX((k_reduce<genie_mean, 3>)));
    m.impl("sum", BOX(k_reduce_all<genie_sum>));
    m.impl("mean", BOX(k_reduce_all<genie_mean>));
    m.impl("prod", BOX(k_reduce_all<genie_prod>));
    m.impl("prod.dim_int", BOX(k_prod_dim));
    m.impl("amax", BOX((k_reduce<genie_amax, 0>)));
    m.impl("amin", BOX((k_reduce<genie_amin, 0>)));
    m.impl("logsumexp", BOX((k_reduce<genie_logsumexp, 0>)));
    m.impl("argmax", BOX(k_argreduce<1>));
    m.impl("argmin", BOX(k_argreduce<0>));
    m.impl("var.correction", BOX(k_var<0>));
    m.impl("std.correction", BOX(k_var<1>));
    m.impl("_softmax", BOX(k_softmax<0>));
    m.impl("_log_softmax", BOX(k_softmax<1>));
    m.impl("native_layer_norm", BOX(k_native_layer_norm));
#if GENIE_TORCH_SAFE_SOFTMAX
    m.impl("_safe_softmax", BOX(k_safe_softmax));
#endif
#if GENIE_TORCH_SDPA
    m.impl("_scaled_dot_product_fused_attention_overrideable", BOX(k_sdpa));
#endif
    /* backward formulas and the MSE loss (other cases: the fallback) */
    m.impl("threshold_backward", BOX(k_threshold_backward));
    m.impl("tanh_backward", BOX(k_act_backward<0>));
    m.impl("sigmoid_backward", BOX(k_act_backward<1>));
    m.impl("_softmax_backward_data", BOX(k_softmax_backward<0>));
    m.impl("_log_softmax_backward_data", BOX(k_softmax_backward<1>));
    m.impl("mse_loss", BOX(k_mse_loss));
    m.impl("mse_loss_backward", BOX(k_mse_loss_backward));
    /* linear algebra */
    m.impl("mm", BOX(k_mm));
    m.impl("bmm", BOX(k_mm));
    m.impl("addmm", BOX(k_addmm));
    m.impl("baddbmm", BOX(k_addmm));
    /* joining, indexing, tuples */
    m.impl("cat", BOX(k_join<0>));
    m.impl("stack", BOX(k_join<1>));
    m.impl("flip", BOX(k_flip));
    m.impl("index_select", BOX(k_index_select));
    m.impl("gather", BOX(k_gather));
    m.impl("embedding", BOX(k_embedding));
    m.impl("topk", BOX(k_topk));
    m.impl("sort", BOX(k_sort));
    m.impl("sort.stable", BOX(k_sort_stable));
    m.impl("max.dim", BOX(k_max_dim<1>));
    m.impl("min.dim", BOX(k_max_dim<0>));
    /* bool logic and the tests model.generate's stopping criteria and logits processors run
       each step: captured, so a decoding step stays one tape */
    m.impl("bitwise_and.Tensor", BOX(k_bitwise<genie_bitwise_and>));
    m.impl("bitwise_or.Tensor", BOX(k_bitwise<genie_bitwise_or>));
    m.impl("bitwise_xor.Tensor", BOX(k_bitwise<genie_bitwise_xor>));
    m.impl("bitwise_not", BOX(k_bitwise_not));
#if GENIE_TORCH_BITWISE_SCALAR
    m.impl("bitwise_and.Scalar", BOX(k_bitwise_scalar<genie_bitwise_and>));
    m.impl("bitwise_or.Scalar", BOX(k_bitwise_scalar<genie_bitwise_or>));
    m.impl("bitwise_xor.Scalar", BOX(k_bitwise_scalar<genie_bitwise_xor>));
#endif
    m.impl("bitwise_and.Tensor_out", BOX((k_out<k_bitwise<genie_bitwise_and>, 2>)));
    m.impl("bitwise_or.Tensor_out", BOX((k_out<k_bitwise<genie_bitwise_or>, 2>)));
    m.impl("bitwise_xor.Tensor_out", BOX((k_out<k_bitwise<genie_bitwise_xor>, 2>)));
    m.impl("bitwise_not.out", BOX((k_out<k_bitwise_not, 1>)));
    m.impl("logical_and.out", BOX((k_out<k_binary<genie_logical_and, 0>, 2>)));
    m.impl("logical_or.out", BOX((k_out<k_binary<genie_logical_or, 0>, 2>)));
    m.impl("logical_not.out", BOX((k_out<k_unary<genie_logical_not, 0>, 1>)));
    m.impl("any", BOX(k_any_all<0>));
    m.impl("all", BOX(k_any_all<1>));
    m.impl("any.dim", BOX(k_any_all_dim<0>));
    m.impl("all.dim", BOX(k_any_all_dim<1>));
    m.impl("any.all_out", BOX((k_out<k_any_all<0>, 1>)));
    m.impl("all.all_out", BOX((k_out<k_any_all<1>, 1>)));
    m.impl("any.out", BOX((k_out<k_any_all_dim<0>, 3>)));
    m.impl("all.out", BOX((k_out<k_any_all_dim<1>, 3>)));
#if GENIE_TORCH_AT_LEAST(2, 2)
    m.impl("any.dims", BOX(k_any_all_dims<0>));
    m.impl("all.dims", BOX(k_any_all_dims<1>));
    m.impl("any.dims_out", BOX((k_out<k_any_all_dims<0>, 3>)));
    m.impl("all.dims_out", BOX((k_out<k_any_all_dims<1>, 3>)));
#endif
    m.impl("max", BOX(k_max_all<1>));
    m.impl("min", BOX(k_max_all<0>));
    m.impl("isin.Tensor_Tensor", BOX(k_isin));
    m.impl("isin.Tensor_Tensor_out", BOX((k_out<k_isin, 4>)));
    m.impl("cumsum", BOX(k_cumsum));
}

/* ------------------------------------------------------------------ autocast */
/* torch.autocast("remote_accelerator", dtype=torch.bfloat16 or float16): the AutocastPrivateUse1
   key gets ATen's own policy lists (the ones CUDA and CPU use), so matmuls and convolutions run in
   the lower precision and the ops ATen keeps in float32 (layer_norm, softmax with a dtype, losses,
   exp/log, ...) run in float32; every other op passes through. */
#if GENIE_TORCH_AUTOCAST && defined(AT_FORALL_LOWER_PRECISION_FP) && defined(KERNEL_PRIVATEUSEONE)
#define GENIE_AC_LOWER(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define GENIE_AC_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define GENIE_AC_FP32_OPT(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define GENIE_AC_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
namespace { /* the names ATen's signature lists use unqualified */
using at::Tensor;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
} // namespace
TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) {
    m.fallback(torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
    AT_FORALL_LOWER_PRECISION_FP(GENIE_AC_LOWER)
    AT_FORALL_FP32(GENIE_AC_FP32)
    AT_FORALL_FP32_SET_OPT_DTYPE(GENIE_AC_FP32_OPT)
    AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
    AT_FORALL_PROMOTE(GENIE_AC_PROMOTE)
}
#endif
