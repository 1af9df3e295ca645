/* genie.h - a lazy tensor engine in one header (stb style).                    v0.2.0
 *
 * Programs build tensors and operations; genie records a graph rich in meaning
 * (module path, phase) instead of computing, and computes only what is needed,
 * when it is needed, as a tape run by the CPU executor.
 *
 * QUICK START
 *     #define GENIE_IMPLEMENTATION      // in exactly one C or C++ file
 *     #include "genie.h"
 *
 *     genie_ctx *ctx = genie_ctx_create(NULL);
 *     int64_t shape[2] = {2, 3};
 *     genie_tensor *a = genie_arange(ctx, GENIE_F32, 0, 6, 1);
 *     genie_tensor *b = genie_view(ctx, a, 2, shape);          // a view: no copy
 *     genie_tensor *c = genie_relu(ctx, genie_add_scalar(ctx, b, -2.0));
 *     float out[6];
 *     genie_read(ctx, c, GENIE_F32, out, sizeof out);           // computes c only now
 *     if (genie_status(ctx)) puts(genie_last_error(ctx));      // errors never abort
 *     genie_ctx_destroy(ctx);                                   // frees everything
 *
 * CONTENTS (search for the markers)
 *     public API ........ result codes, dtypes, context, tensors, operations
 *     >>config .......... configuration macros and includes
 *     >>errors .......... sticky first error, messages naming the op and shapes
 *     >>memory .......... allocation hooks, slabs, buffers, overflow-checked sizes
 *     >>dtype ........... element sizes, promotion, conversions (f16/bf16, x86 casts)
 *     >>shape ........... broadcasting, dims, contiguity, TensorIterator layouts
 *     >>view ............ ViewSpec folding (PyTorch-exact strides and offsets)
 *     >>graph ........... values (nodes), storages with versions, handles, pools
 *     >>overlap ......... ATen's internal/partial overlap rules for in-place writes
 *     >>tuple ........... lazy tuples
 *     >>scope ........... interned module paths and phases
 *     >>tape ............ realize: iterative walk, topological tape, execution
 *     >>cpu ............. reference kernels, shaped (node, ith, nth)
 *     >>gemm ............ packed SIMD matrix products, run-time CPU dispatch
 *     >>threads ......... the thread pool: persistent workers, barrier
 *     >>fuse ............ fusion groups as data, run in one pass over tiles
 *     >>backend ......... the backend table: device buffers, per-node offload, CPU fallback
 *     >>dump ............ Graphviz dump and statistics
 *     >>io .............. safetensors files: a strict header reader, mapping, writer
 *     >>api ............. the public operations: capture and shape inference
 *
 * CONFIGURATION (define before including the implementation)
 *     GENIEDEF             storage class of public functions (default extern)
 *     GENIE_STATIC         make every public function static
 *     GENIE_MALLOC(sz)     \
 *     GENIE_REALLOC(p,sz)   > all three or none; every allocation of the library
 *     GENIE_FREE(p)        /  goes through them (a failure is GENIE_ERR_OOM)
 *     GENIE_ASSERT(x)      internal invariants only (default assert)
 *     GENIE_MAX_DIMS       most dimensions of a tensor (default 8)
 *     GENIE_NO_THREADS     no thread pool: every kernel runs on the calling thread
 *                          (otherwise link with -pthread; Win32 threads on Windows)
 *     GENIE_NO_MMAP        safetensors files are read into memory instead of mapped
 *                          (mmap on POSIX, MapViewOfFile on Windows otherwise)
 *     GENIE_CACHE_MAX_BYTES  freed data blocks a context keeps for reuse, at most
 *                          (default 256 MiB; 0 frees every block at once)
 *     GENIE_TAPE_CACHE_BYTES planned tapes a context keeps by structure, at most
 *                          (default 16 MiB; a bigger plan is not kept)
 *     GENIE_PACK_CACHE_BYTES packed weights a context keeps, at most, until
 *                          genie_set_pack_cache (default 64 MiB; 0: none)
 *     GENIE_DEBUG          dead handles are quarantined (slots never reused), so every
 *                          use of one is GENIE_ERR_INVALID_ARG; automatic under ASan,
 *                          which also poisons them (see "Dead handles" in README.md)
 *
 * RUN TIME
 *     GENIE_CPU=reference|generic|avx2|avx512   force a kernel path (see genie_cpu)
 *     GENIE_TAPE_HASH_BITS=0..63   tests: mask the tape cache's hash (0: all collide)
 *
 * MODEL
 *     A genie_tensor is a handle: a storage plus an immutable ViewSpec (shape,
 *     strides, offset). A storage's value is an immutable node of the graph; an
 *     in-place write makes a new version of the storage that differs from the old
 *     one only at the written view's elements, so every alias sees it, and values
 *     captured before the write keep the old numbers.
 *     A handle is dead once its pool was popped (unretained) or its last reference
 *     released: passing it is GENIE_ERR_INVALID_ARG until its slot serves a newer
 *     tensor (never, with GENIE_DEBUG or ASan). Sizes, strides, offsets and byte
 *     counts that int64 cannot hold are GENIE_ERR_OVERFLOW at capture.
 *
 * LICENSE: MIT (see the end of this file).
 */
#ifndef GENIE_H
#define GENIE_H

/* The version of this header: semantic versioning (a MINOR step adds, a MAJOR step may break
   the public API); genie_version() returns the implementation's GENIE_VERSION_STRING. */
#define GENIE_VERSION_MAJOR 0
#define GENIE_VERSION_MINOR 2
#define GENIE_VERSION_PATCH 0
#define GENIE_VERSION_STRING "0.2.0"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef GENIEDEF
#ifdef GENIE_STATIC
#define GENIEDEF static
#else
#define GENIEDEF extern
#endif
#endif

#ifndef GENIE_MAX_DIMS
#define GENIE_MAX_DIMS 8
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes: X(name, value, description). */
#define GENIE_RESULT_LIST(X)                                                  \
    X(GENIE_OK, 0, "no error")                                                \
    X(GENIE_ERR_INVALID_ARG, -1, "invalid argument")                          \
    X(GENIE_ERR_SHAPE, -2, "shapes do not fit")                               \
    X(GENIE_ERR_DTYPE, -3, "dtype not supported or mismatched")               \
    X(GENIE_ERR_VIEW, -4, "view not possible on these strides")               \
    X(GENIE_ERR_INDEX, -5, "index or dimension out of range")                 \
    X(GENIE_ERR_OOM, -6, "out of memory")                                     \
    X(GENIE_ERR_OVERFLOW, -7, "size arithmetic overflows")                    \
    X(GENIE_ERR_UNSUPPORTED, -8, "operation not supported")                   \
    X(GENIE_ERR_BACKEND, -9, "backend failure")

typedef enum genie_result {
#define GENIE__X(name, value, text) name = value,
    GENIE_RESULT_LIST(GENIE__X)
#undef GENIE__X
    GENIE__RESULT_END = 1
} genie_result;

/* Dtypes: X(name, short name, size in bytes, category 0 bool / 1 int / 2 float). */
#define GENIE_DTYPE_LIST(X)          \
    X(GENIE_F32, "f32", 4, 2)        \
    X(GENIE_F64, "f64", 8, 2)        \
    X(GENIE_F16, "f16", 2, 2)        \
    X(GENIE_BF16, "bf16", 2, 2)      \
    X(GENIE_I64, "i64", 8, 1)        \
    X(GENIE_I32, "i32", 4, 1)        \
    X(GENIE_I16, "i16", 2, 1)        \
    X(GENIE_I8, "i8", 1, 1)          \
    X(GENIE_U8, "u8", 1, 1)          \
    X(GENIE_BOOL, "bool", 1, 0)

typedef enum genie_dtype {
#define GENIE__X(name, short_name, size, cat) name,
    GENIE_DTYPE_LIST(GENIE__X)
#undef GENIE__X
    GENIE_DTYPE_COUNT
} genie_dtype;

/* Why a value was materialized (statistics). */
typedef enum genie_mat_reason {
    GENIE_MAT_REALIZE, GENIE_MAT_READ, GENIE_MAT_ITEM, GENIE_MAT_DATA, GENIE_MAT_COUNT
} genie_mat_reason;

#define GENIE_DIM_NONE INT64_MIN /* argmax/argmin over the flattened tensor */

/* RULES OF EVERY CALL
     - Errors never abort or print: an operation returns NULL (or a genie_result) and the context
       keeps its first error (code and message naming the op and shapes); after it every
       operation returns NULL until genie_clear_error. NULL is accepted for optional inputs only
       (marked "may be NULL"); a NULL context makes a call do nothing and return NULL/an error.
     - Handles (genie_tensor, genie_tuple) and strings genie returns belong to their context:
       results go to the innermost pool and die at its genie_pool_pop (or at genie_ctx_destroy);
       genie_retain/genie_release keep one longer. Using a handle after its release is a bug.
     - Operations are lazy: they record and return at once; only the calls marked "materializes"
       compute. Shapes are (int ndim, const int64_t *shape) in elements; dims may be negative.
     - One context is used by one thread at a time; separate contexts are independent. */
typedef struct genie_ctx genie_ctx;       /* a context: graph, memory, errors, thread pool */
typedef struct genie_tensor genie_tensor; /* a handle: a storage seen through a ViewSpec */
typedef struct genie_tuple genie_tuple;   /* a lazy tuple of handles (split, topk, sort, ...) */

/* CPU kernel paths: X(name, short name). AUTO picks the best the CPU runs;
   REFERENCE runs every operation on its plain strided reference kernel (the
   oracle); the others pick the matrix-product micro-kernels. */
#define GENIE_CPU_LIST(X)            \
    X(GENIE_CPU_AUTO, "auto")        \
    X(GENIE_CPU_REFERENCE, "reference") \
    X(GENIE_CPU_GENERIC, "generic")  \
    X(GENIE_CPU_AVX2, "avx2")        \
    X(GENIE_CPU_AVX512, "avx512")

typedef enum genie_cpu {
#define GENIE__X(name, short_name) name,
    GENIE_CPU_LIST(GENIE__X)
#undef GENIE__X
    GENIE_CPU_COUNT
} genie_cpu;

/* genie_ctx_create's options; a zeroed desc (or NULL) means the defaults */
typedef struct genie_ctx_desc {
    int n_threads; /* 0: all cores; 1: kernels run on the calling thread only */
    int no_pool;   /* 1: the caller owns every result and releases it */
    genie_cpu cpu; /* AUTO (0): the environment variable GENIE_CPU=reference|generic|
                      avx2|avx512 if set, else the best path this CPU runs; a path the
                      CPU cannot run falls back to the best one below it */
    const char *backend; /* NULL or "cpu": the CPU executor; else a registered backend's name
                      ("cuda" when genie_cuda.c is linked); one that is missing or has no device
                      leaves GENIE_ERR_BACKEND in the context, which then runs on the CPU */
} genie_ctx_desc;

/* Roles found by recognising patterns in the graph (genie_role): X(id, name). */
#define GENIE_ROLE_LIST(X)                       \
    X(GENIE_ROLE_NONE, "")                       \
    X(GENIE_ROLE_ATTENTION, "attention")         \
    X(GENIE_ROLE_MLP, "mlp")                     \
    X(GENIE_ROLE_NORM, "norm")                   \
    X(GENIE_ROLE_EMBEDDING, "embedding")         \
    X(GENIE_ROLE_RESIDUAL, "residual")

typedef enum genie_role_id {
#define GENIE__X(id, name) id,
    GENIE_ROLE_LIST(GENIE__X)
#undef GENIE__X
    GENIE_ROLE_COUNT
} genie_role_id;

/* Work done by computed nodes: how many, their floating-point operations, the bytes they
   read and wrote (each node as if it ran alone: distinct input elements and its output),
   and the wall time of the kernels that ran them (a fused group's or a product epilogue's
   time goes to the node that ends it; the nodes inside it count 0 ns; ns stay 0 where the
   build has no monotonic clock, as tape_plan_ns). */
typedef struct genie_work {
    uint64_t nodes, flops, bytes, ns;
} genie_work;

/* genie_get_stats: counters since genie_ctx_create (the tape_* ones: of the last tape) */
typedef struct genie_stats {
    uint64_t nodes_created;    /* value nodes captured (operations, data, in-place writes) */
    uint64_t views_created;    /* handles made by view operations (no node, no copy) */
    uint64_t nodes_executed;   /* kernels run */
    uint64_t nodes_failed;     /* values that failed when computed (data-dependent errors) */
    uint64_t nodes_live;       /* value nodes alive now */
    uint64_t tapes_run;        /* realizations that ran a tape */
    uint64_t tape_lazy_inputs; /* tape inputs produced inside the tape */
    uint64_t tape_constants;   /* tape inputs already materialized before it ran */
    uint64_t materializations[GENIE_MAT_COUNT]; /* by reason */
    uint64_t inplace_writes;   /* in-place operations captured */
    uint64_t inplace_reused;   /* ... executed in the old version's buffer */
    uint64_t inplace_copied;   /* ... executed on a copy (the old version was still needed) */
    uint64_t bytes_live, bytes_peak, bytes_total; /* data buffers genie allocated (not from_blob
                                 memory), in bytes asked for: held by values now, the most ever
                                 held at once, and handed out in all (fresh or from the cache) */
    uint64_t fused_groups;     /* fused elementwise groups run (one pass each) */
    uint64_t fused_nodes;      /* nodes computed inside them (only each group's root is written) */
    /* the buffer planner and cache (see ">>tape" in the implementation) */
    uint64_t tape_peak_bytes;  /* last tape: most bytes held at once by the buffers its nodes
                                  allocated, in block sizes (size classes), as planned */
    uint64_t tape_bound_bytes; /* last tape: its liveness lower bound, the most bytes that must be
                                  live at one step (exact sizes; see genie__plan) */
    uint64_t tape_inplace;     /* outputs written into the buffer of an input that died there */
    uint64_t cache_bytes;      /* freed data blocks the context keeps for reuse, now */
    uint64_t cache_hits;       /* buffers served from those blocks */
    uint64_t bytes_fresh;      /* bytes of data blocks obtained from GENIE_MALLOC (fresh memory) */
    /* the tape cache: plans kept under a structural hash (see ">>tape") */
    uint64_t tape_cache_hits;   /* realizations whose tape was planned before: nothing planned */
    uint64_t tape_cache_misses; /* realizations planned afresh (and then kept) */
    uint64_t tape_plan_ns;      /* last tape: time spent planning it (fusion and buffers on a miss;
                                   key, lookup and rebinding on a hit); 0 where the build has no
                                   monotonic clock (POSIX clock_gettime or Windows) */
    /* a backend (genie_ctx_desc.backend; all 0 on the CPU) */
    uint64_t backend_nodes;    /* nodes computed by the backend (each node of a fused group counts) */
    uint64_t backend_fallbacks; /* nodes it lacks, computed by the CPU executor instead */
    uint64_t copies_to_device, bytes_to_device; /* host -> device copies the tape needed */
    uint64_t copies_to_host, bytes_to_host;     /* device -> host: CPU fallbacks and reads */
    genie_work work_by_role[GENIE_ROLE_COUNT]; /* computed nodes by role (genie_work_of: by phase too) */
    /* the pack cache (genie_set_pack_cache) */
    uint64_t pack_cache_bytes; /* packed weights kept now */
    uint64_t pack_cache_packs; /* weights packed into it */
    uint64_t pack_cache_hits;  /* products that read a kept weight instead of packing it */
} genie_stats;

/* ---- context, errors, ownership ---- */
/* desc may be NULL (defaults); NULL when out of memory */
GENIEDEF genie_ctx   *genie_ctx_create(const genie_ctx_desc *desc);
/* frees everything: every handle, tuple and string it gave is invalid; NULL: no-op */
GENIEDEF void         genie_ctx_destroy(genie_ctx *ctx);
/* kernel threads, 0: all cores; n < 0 is an error */
GENIEDEF genie_result genie_set_num_threads(genie_ctx *ctx, int n);
/* the pack cache: an f32 product that takes the packed kernel (not the skinny ones of M <= 16,
   or N <= 16, with k or B's rows contiguous) with all its rows in one block of A (M <= 132 on
   avx512, 96 on avx2, 128 generic; one batch, or a batch broadcast against one B, its rows
   counted together), whose B is a constant of the tape in genie's memory (from data, computed,
   or a safetensors file; not the caller's genie_from_blob memory) that an earlier tape read the
   same way, keeps that B (a weight) packed for the micro-kernel, and packs it no more until the
   value dies or its buffer is written; up to 4 layouts or slices of one buffer. max_bytes in all
   (default 64 MiB, GENIE_PACK_CACHE_BYTES; 0: off; lowering it drops every packed weight).
   Results are bitwise the same. */
GENIEDEF genie_result genie_set_pack_cache(genie_ctx *ctx, size_t max_bytes);
GENIEDEF genie_cpu    genie_cpu_path(const genie_ctx *ctx);   /* the kernel path in use */
GENIEDEF int          genie_cpu_supported(genie_cpu path);    /* 1 if this CPU runs it */
GENIEDEF const char  *genie_cpu_name(genie_cpu path);         /* "avx512", ...; "" if unknown */
GENIEDEF genie_result genie_status(const genie_ctx *ctx); /* the first error, or GENIE_OK (NULL ctx: INVALID_ARG) */
/* its message, "" if none; owned by ctx, valid until the next error or clear */
GENIEDEF const char  *genie_last_error(const genie_ctx *ctx);
/* forget the error: operations run again; failed values stay failed */
GENIEDEF void         genie_clear_error(genie_ctx *ctx);
/* a static description; "unknown genie_result" for other values */
GENIEDEF const char  *genie_result_string(genie_result r);
GENIEDEF const char  *genie_version(void); /* GENIE_VERSION_STRING of the implementation compiled in */
GENIEDEF void         genie_pool_push(genie_ctx *ctx); /* results made from now on belong to a new innermost pool */
/* releases the innermost pool's handles and tuples; no pool pushed: no-op */
GENIEDEF void         genie_pool_pop(genie_ctx *ctx);
/* one more reference, owned by the caller (keeps t past its pool); NULL: no-op */
GENIEDEF void         genie_retain(genie_tensor *t);
/* gives back one reference (a no_pool context's results: the caller's); NULL: no-op */
GENIEDEF void         genie_release(genie_tensor *t);

/* ---- making tensors ---- */
/* copies numel elements of dt, row-major, from data (NULL only if numel is 0) */
GENIEDEF genie_tensor *genie_from_data(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, const void *data);
/* wraps the caller's memory, no copy: strides in elements (NULL: contiguous, none negative); the
   caller keeps data unchanged while values read it; deleter (may be NULL) runs when genie lets go */
GENIEDEF genie_tensor *genie_from_blob(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape,
                                       const int64_t *strides, void *data,
                                       void (*deleter)(void *data, void *user), void *user);
/* zeros (genie never hands out uninitialized memory) */
GENIEDEF genie_tensor *genie_empty(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape);
/* 0 everywhere; computed lazily */
GENIEDEF genie_tensor *genie_zeros(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape);
GENIEDEF genie_tensor *genie_ones(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape); /* 1 everywhere */
/* v everywhere; v out of dt's range is an error, as in PyTorch */
GENIEDEF genie_tensor *genie_full(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, double v);
/* 1-D [start, end) by step, torch.arange's length */
GENIEDEF genie_tensor *genie_arange(genie_ctx *ctx, genie_dtype dt, double start, double end, double step);
/* uniform [0, 1), float dtypes; counter-based: the same seed gives the same values */
GENIEDEF genie_tensor *genie_rand(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, uint64_t seed);
/* standard normal, float dtypes; same seed, same values (not PyTorch's) */
GENIEDEF genie_tensor *genie_randn(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, uint64_t seed);

/* ---- looking at a tensor (never materializes) ---- */
GENIEDEF int            genie_ndim(const genie_tensor *t); /* dimensions (0 for a scalar or NULL) */
/* ndim sizes, owned by t (valid while t lives); NULL t: NULL */
GENIEDEF const int64_t *genie_shape(const genie_tensor *t);
/* ndim strides in elements, as PyTorch reports them; owned by t */
GENIEDEF const int64_t *genie_strides(const genie_tensor *t);
GENIEDEF int64_t        genie_storage_offset(const genie_tensor *t); /* in elements of the storage */
GENIEDEF int64_t        genie_numel(const genie_tensor *t); /* elements (1 for 0-dim; 0 for NULL) */
GENIEDEF genie_dtype    genie_dtype_of(const genie_tensor *t); /* its dtype (GENIE_F32 for NULL) */
GENIEDEF size_t         genie_dtype_size(genie_dtype dt); /* bytes per element; 0 for an invalid dtype */
GENIEDEF const char    *genie_dtype_name(genie_dtype dt); /* "f32", "bf16", ... (static); "?" if invalid */
/* PyTorch's rule: size-1 dims ignored, 1 when numel is 0 */
GENIEDEF int            genie_is_contiguous(const genie_tensor *t);
/* 1 if its storage's current value is computed */
GENIEDEF int            genie_is_materialized(const genie_tensor *t);
/* 1 if views of one storage (aliases) */
GENIEDEF int            genie_shares_storage(const genie_tensor *a, const genie_tensor *b);

/* ---- materializing ---- */
/* materializes the n tensors (one tape); data errors are reported here */
GENIEDEF genie_result genie_realize(genie_ctx *ctx, int n, genie_tensor *const *ts);
/* materializes; numel elements converted to `as`, row-major, into dst (dst_bytes too small: error).
   A contiguous tensor is one copy (bits as they are), or one SIMD f32 <-> f16/bf16 conversion */
GENIEDEF genie_result genie_read(genie_ctx *ctx, genie_tensor *t, genie_dtype as, void *dst, size_t dst_bytes);
/* materializes a one-element tensor into *out */
GENIEDEF genie_result genie_item(genie_ctx *ctx, genie_tensor *t, double *out);
/* the same, as an integer (exact for i64) */
GENIEDEF genie_result genie_item_i64(genie_ctx *ctx, genie_tensor *t, int64_t *out);
/* materializes; *ptr: element 0 in genie's buffer (read-only), laid out by genie_strides,
   valid until the next write to its storage or t's release */
GENIEDEF genie_result genie_data(genie_ctx *ctx, genie_tensor *t, const void **ptr);

/* ---- elementwise ---- */
/* Every result is a new lazy tensor with TensorIterator's layout; nothing runs until a
   materializing call. Binary: broadcasting, ATen's type promotion (a double scalar is a Python
   float: i32 + 2.0 is f32); integer arithmetic wraps; integer div is true division. */
#define GENIE__DECL_BINARY(name) \
    GENIEDEF genie_tensor *genie_##name(genie_ctx *ctx, genie_tensor *a, genie_tensor *b);
#define GENIE__DECL_SCALAR(name) \
    GENIEDEF genie_tensor *genie_##name##_scalar(genie_ctx *ctx, genie_tensor *a, double s);
#define GENIE__DECL_UNARY(name) \
    GENIEDEF genie_tensor *genie_##name(genie_ctx *ctx, genie_tensor *t);
/* a op b: add, sub, mul, div, pow, maximum, minimum (NaN propagates); comparisons and logical
   ops give GENIE_BOOL */
GENIE__DECL_BINARY(add) GENIE__DECL_BINARY(sub) GENIE__DECL_BINARY(mul) GENIE__DECL_BINARY(div)
GENIE__DECL_BINARY(pow) GENIE__DECL_BINARY(maximum) GENIE__DECL_BINARY(minimum)
GENIE__DECL_BINARY(eq) GENIE__DECL_BINARY(ne) GENIE__DECL_BINARY(lt) GENIE__DECL_BINARY(le)
GENIE__DECL_BINARY(gt) GENIE__DECL_BINARY(ge) GENIE__DECL_BINARY(logical_and) GENIE__DECL_BINARY(logical_or)
/* a op s, s a Python float for promotion (for a typed scalar pass a 0-dim tensor) */
GENIE__DECL_SCALAR(add) GENIE__DECL_SCALAR(sub) GENIE__DECL_SCALAR(mul) GENIE__DECL_SCALAR(div)
GENIE__DECL_SCALAR(pow)
/* op(t); integer inputs of the float functions give f32, as PyTorch; gelu is the erf form,
   gelu_tanh approximate='tanh'; logical_not gives GENIE_BOOL */
GENIE__DECL_UNARY(neg) GENIE__DECL_UNARY(abs) GENIE__DECL_UNARY(exp) GENIE__DECL_UNARY(log)
GENIE__DECL_UNARY(sqrt) GENIE__DECL_UNARY(rsqrt) GENIE__DECL_UNARY(sin) GENIE__DECL_UNARY(cos)
GENIE__DECL_UNARY(tanh) GENIE__DECL_UNARY(sigmoid) GENIE__DECL_UNARY(relu) GENIE__DECL_UNARY(gelu)
GENIE__DECL_UNARY(gelu_tanh) GENIE__DECL_UNARY(silu) GENIE__DECL_UNARY(reciprocal)
GENIE__DECL_UNARY(square) GENIE__DECL_UNARY(floor) GENIE__DECL_UNARY(ceil) GENIE__DECL_UNARY(round)
GENIE__DECL_UNARY(sign) GENIE__DECL_UNARY(erf) GENIE__DECL_UNARY(log1p) GENIE__DECL_UNARY(expm1)
GENIE__DECL_UNARY(logical_not)
/* cond (bool) ? a : b, broadcasting, promoting a and b */
GENIEDEF genie_tensor *genie_where(genie_ctx *ctx, genie_tensor *cond, genie_tensor *a, genie_tensor *b);
/* bounds converted to t's dtype; NAN means no bound */
GENIEDEF genie_tensor *genie_clamp(genie_ctx *ctx, genie_tensor *t, double min, double max);

/* ---- reductions ---- */
/* over dims (ndims 0: all), keepdim as PyTorch; amax/amin over an empty dim is an error */
#define GENIE__DECL_REDUCE(name) \
    GENIEDEF genie_tensor *genie_##name(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims, int keepdim);
GENIE__DECL_REDUCE(sum) GENIE__DECL_REDUCE(mean) GENIE__DECL_REDUCE(amax) GENIE__DECL_REDUCE(amin)
GENIE__DECL_REDUCE(prod) GENIE__DECL_REDUCE(logsumexp)
/* i64 index of the largest (first NaN wins, ties: lowest); GENIE_DIM_NONE: flattened */
GENIEDEF genie_tensor *genie_argmax(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim);
/* i64 index of the smallest, as argmax */
GENIEDEF genie_tensor *genie_argmin(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim);
/* variance over dims (ndims 0: all), dividing by N - correction */
GENIEDEF genie_tensor *genie_var(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims, int64_t correction, int keepdim);
/* sqrt of genie_var */
GENIEDEF genie_tensor *genie_std(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims, int64_t correction, int keepdim);

/* ---- normalization, linear algebra ---- */
/* exp(t) / sum over dim, float dtypes */
GENIEDEF genie_tensor *genie_softmax(genie_ctx *ctx, genie_tensor *t, int64_t dim);
GENIEDEF genie_tensor *genie_log_softmax(genie_ctx *ctx, genie_tensor *t, int64_t dim); /* t - logsumexp over dim */
/* over the last nnorm dims (normalized_shape); weight and bias may be NULL */
GENIEDEF genie_tensor *genie_layer_norm(genie_ctx *ctx, genie_tensor *x, int nnorm, const int64_t *normalized_shape,
                                        genie_tensor *weight, genie_tensor *bias, double eps);
/* torch.matmul: 1-D cases, batched, broadcasting batch dims; equal dtypes */
GENIEDEF genie_tensor *genie_matmul(genie_ctx *ctx, genie_tensor *a, genie_tensor *b);
/* x @ w^T + b: x [..., in], w [out, in], b [out] may be NULL */
GENIEDEF genie_tensor *genie_linear(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, genie_tensor *b);
/* x [N, C, H, W] or [C, H, W], w [O, C/groups, kH, kW], b [O] may be NULL */
GENIEDEF genie_tensor *genie_conv2d(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, genie_tensor *b,
                                    const int64_t stride[2], const int64_t padding[2],
                                    const int64_t dilation[2], int64_t groups);

/* ---- types and copies ---- */
/* converted as copy_ does; to t's own dtype: t itself (an alias) */
GENIEDEF genie_tensor *genie_to_dtype(genie_ctx *ctx, genie_tensor *t, genie_dtype dt);
/* a row-major copy; of a contiguous tensor: t itself (an alias) */
GENIEDEF genie_tensor *genie_contiguous(genie_ctx *ctx, genie_tensor *t);
/* a copy with its own storage, t's layout as PyTorch keeps it */
GENIEDEF genie_tensor *genie_clone(genie_ctx *ctx, genie_tensor *t);

/* ---- views (share storage with their input) ---- */
/* same elements, new shape (-1 infers a size); GENIE_ERR_VIEW when strides forbid */
GENIEDEF genie_tensor *genie_view(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *shape);
/* a view when possible, else a copy (as PyTorch) */
GENIEDEF genie_tensor *genie_reshape(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *shape);
/* dims reordered: result dim i is t's dims[i] */
GENIEDEF genie_tensor *genie_permute(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *dims);
/* dims d0 and d1 swapped */
GENIEDEF genie_tensor *genie_transpose(genie_ctx *ctx, genie_tensor *t, int64_t d0, int64_t d1);
GENIEDEF genie_tensor *genie_t(genie_ctx *ctx, genie_tensor *t); /* transpose of a tensor of <= 2 dims */
/* size-1 dims broadcast to shape (stride 0); -1 keeps a size */
GENIEDEF genie_tensor *genie_expand(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *shape);
/* dim removed if its size is 1, else an alias */
GENIEDEF genie_tensor *genie_squeeze(genie_ctx *ctx, genie_tensor *t, int64_t dim);
/* a size-1 dim inserted at dim */
GENIEDEF genie_tensor *genie_unsqueeze(genie_ctx *ctx, genie_tensor *t, int64_t dim);
/* t[start:end:step] along dim (bounds clamped as Python's; step > 0) */
GENIEDEF genie_tensor *genie_slice(genie_ctx *ctx, genie_tensor *t, int64_t dim, int64_t start, int64_t end, int64_t step);
/* t[index] along dim, which is removed */
GENIEDEF genie_tensor *genie_select(genie_ctx *ctx, genie_tensor *t, int64_t dim, int64_t index);
/* length elements from start along dim (bounds checked) */
GENIEDEF genie_tensor *genie_narrow(genie_ctx *ctx, genie_tensor *t, int64_t dim, int64_t start, int64_t length);
/* the offset-th diagonal of dims d0, d1 as a view; it becomes the last dim */
GENIEDEF genie_tensor *genie_diagonal(genie_ctx *ctx, genie_tensor *t, int64_t offset, int64_t d0, int64_t d1);
/* size and strides (elements, >= 0) at storage_offset, absolute in the storage; out of it: error */
GENIEDEF genie_tensor *genie_as_strided(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *size,
                                        const int64_t *stride, int64_t storage_offset);
/* reversed along dims: not a view (shares no storage, as PyTorch copies) */
GENIEDEF genie_tensor *genie_flip(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims);

/* ---- joining and indexing ---- */
/* the n tensors joined along dim, promoted */
GENIEDEF genie_tensor *genie_cat(genie_ctx *ctx, int n, genie_tensor *const *ts, int64_t dim);
/* the n equal-shaped tensors along a new dim */
GENIEDEF genie_tensor *genie_stack(genie_ctx *ctx, int n, genie_tensor *const *ts, int64_t dim);
/* the entries of dim that index (integer, 0-D or 1-D) names; out of range: error at materialization */
GENIEDEF genie_tensor *genie_index_select(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index);
/* torch.gather; out-of-range indices: error at materialization */
GENIEDEF genie_tensor *genie_gather(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index);
/* weight [V, D] rows picked by integer indices: [..., D] */
GENIEDEF genie_tensor *genie_embedding(genie_ctx *ctx, genie_tensor *weight, genie_tensor *indices);
/* v where mask (bool, broadcast together with t) is true */
GENIEDEF genie_tensor *genie_masked_fill(genie_ctx *ctx, genie_tensor *t, genie_tensor *mask, double v);
/* zeros above the k-th diagonal of the last 2 dims */
GENIEDEF genie_tensor *genie_tril(genie_ctx *ctx, genie_tensor *t, int64_t k);
GENIEDEF genie_tensor *genie_triu(genie_ctx *ctx, genie_tensor *t, int64_t k); /* zeros below the k-th diagonal */

/* ---- tuples ---- */
/* views of split_size along dim (the last may be shorter) */
GENIEDEF genie_tuple  *genie_split(genie_ctx *ctx, genie_tensor *t, int64_t split_size, int64_t dim);
/* at most chunks views (fewer as PyTorch) */
GENIEDEF genie_tuple  *genie_chunk(genie_ctx *ctx, genie_tensor *t, int64_t chunks, int64_t dim);
GENIEDEF genie_tuple  *genie_unbind(genie_ctx *ctx, genie_tensor *t, int64_t dim); /* the selects along dim, views */
/* (values, i64 indices), each owning its storage */
GENIEDEF genie_tuple  *genie_topk(genie_ctx *ctx, genie_tensor *t, int64_t k, int64_t dim, int largest, int sorted);
/* (values, i64 indices); stable, NaN largest */
GENIEDEF genie_tuple  *genie_sort(genie_ctx *ctx, genie_tensor *t, int64_t dim, int descending);
/* (values, i64 indices) of the max along dim */
GENIEDEF genie_tuple  *genie_max_dim(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim);
/* (values, i64 indices) of the min along dim */
GENIEDEF genie_tuple  *genie_min_dim(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim);
GENIEDEF int           genie_tuple_size(const genie_tuple *tup); /* its elements (0 for NULL or released) */
/* lends element i, valid while the tuple lives (retain to keep); out of range: NULL, GENIE_ERR_INDEX;
   a dead tuple (its pool popped; released in a no_pool context): NULL, GENIE_ERR_INVALID_ARG */
GENIEDEF genie_tensor *genie_tuple_get(genie_tuple *tup, int i);
/* gives the tuple back early (else its pool does); NULL: no-op */
GENIEDEF void          genie_tuple_release(genie_tuple *tup);

/* ---- in place (return dst) ---- */
/* dst += src (src broadcasts to dst; ATen's overlap rules); every alias sees it */
GENIEDEF genie_tensor *genie_add_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src);
GENIEDEF genie_tensor *genie_sub_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src); /* dst -= src */
GENIEDEF genie_tensor *genie_mul_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src); /* dst *= src */
/* dst /= src (true division: an integer dst is an error) */
GENIEDEF genie_tensor *genie_div_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src);
GENIEDEF genie_tensor *genie_fill_(genie_ctx *ctx, genie_tensor *t, double v); /* every element of the view t = v */
GENIEDEF genie_tensor *genie_zero_(genie_ctx *ctx, genie_tensor *t); /* fill_ with 0 */
/* dst = src broadcast and converted to dst's dtype; src is dst itself: nothing */
GENIEDEF genie_tensor *genie_copy_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src);
GENIEDEF genie_tensor *genie_relu_(genie_ctx *ctx, genie_tensor *t); /* t = max(t, 0) */
/* t = v where mask (bool, broadcast to t) is true */
GENIEDEF genie_tensor *genie_masked_fill_(genie_ctx *ctx, genie_tensor *t, genie_tensor *mask, double v);

/* ---- transformer operations (v1) ---- */
/* x / sqrt(mean(x^2 over the last nnorm dims) + eps) * weight; weight (NULL: none) has
   normalized_shape and x's dtype; eps NAN: the epsilon of the compute type (f32's for
   f32/f16/bf16, f64's for f64) */
GENIEDEF genie_tensor *genie_rms_norm(genie_ctx *ctx, genie_tensor *x, int nnorm, const int64_t *normalized_shape,
                                      genie_tensor *weight, double eps);
/* rotary embedding of x [..., T, D] at integer positions pos [T]: the first rotary_dim
   features (0: all D; even, <= D) turn by pos * theta^(-2i/rotary_dim); pairs (i, i + rd/2)
   (interleaved 0, Hugging Face Llama) or (2i, 2i+1) (interleaved 1, GPT-J); result contiguous */
GENIEDEF genie_tensor *genie_rope(genie_ctx *ctx, genie_tensor *x, genie_tensor *pos, int64_t rotary_dim,
                                  double theta, int interleaved);
/* softmax(q k^T scale + mask) v: q [..., Hq, L, E], k [..., Hkv, S, E], v [..., Hkv, S, Ev],
   Hq a multiple of Hkv (grouped-query); attn_mask NULL, bool (true takes part) or float
   (added), broadcast to [..., Hq, L, S]; is_causal: top-left causal mask (not with a mask);
   scale NAN: 1/sqrt(E); result [..., Hq, L, Ev]; computed fused (no [L, S] scores) */
GENIEDEF genie_tensor *genie_scaled_dot_product_attention(genie_ctx *ctx, genie_tensor *q, genie_tensor *k,
                                                          genie_tensor *v, genie_tensor *attn_mask, int is_causal,
                                                          double scale);
/* cumulative sum along dim; integer and bool inputs give i64 */
GENIEDEF genie_tensor *genie_cumsum(genie_ctx *ctx, genie_tensor *t, int64_t dim);
/* out-of-place torch.scatter: t with t[.., index[p], ..] = src[p] along dim (index i64;
   src t's dtype); an index out of range fails when computed */
GENIEDEF genie_tensor *genie_scatter(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index, genie_tensor *src);
/* out-of-place torch.scatter_add: as scatter, adding src into t */
GENIEDEF genie_tensor *genie_scatter_add(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index, genie_tensor *src);
/* in place: slice k of src along dim goes to slice index[k] of t (index i64, <= 1-D);
   returns t; an index out of range fails when computed */
GENIEDEF genie_tensor *genie_index_copy_(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index, genie_tensor *src);

/* ---- semantic capture and inspection ---- */
/* module path grows by ".name" (copied); for the nodes made from now on. Out of memory
   (here or in genie_set_phase / genie_scope_pop): GENIE_ERR_OOM is set, the push or phase
   does not happen, and nodes made after the error is cleared may carry no scope */
GENIEDEF void         genie_scope_push(genie_ctx *ctx, const char *name);
GENIEDEF void         genie_scope_pop(genie_ctx *ctx); /* back to the enclosing module path; at top level: no-op */
/* tags later nodes ("prefill", "decode"; copied; NULL clears) */
GENIEDEF void         genie_set_phase(genie_ctx *ctx, const char *phase);
/* "encoder.layers.0" where t was made, "" at top level; owned by the context */
GENIEDEF const char  *genie_module_path(const genie_tensor *t);
/* the phase t was made in, "" if none; owned by the context */
GENIEDEF const char  *genie_phase(const genie_tensor *t);
GENIEDEF const char  *genie_op_name(const genie_tensor *t); /* the op that made t, "aten::add" style (static) */
/* writes the graph behind roots to out as Graphviz, clustered by module; runs nothing */
GENIEDEF genie_result genie_dump_dot(genie_ctx *ctx, int n, genie_tensor *const *roots, FILE *out);
GENIEDEF genie_stats  genie_get_stats(const genie_ctx *ctx); /* a copy of the counters (zeros for NULL) */
/* Roles: "attention", "mlp", "norm", "embedding", "residual", or "" (none found). Found by
   recognising patterns in the graph (decomposed forms too), whatever the scopes say, when a
   graph is realized or dumped or its role asked for: a node's role may be found only once a
   later node completes the pattern (attention's softmax when its product with V is made). */
GENIEDEF const char  *genie_role(const genie_tensor *t);     /* of t's value; never materializes */
GENIEDEF const char  *genie_role_name(genie_role_id role);   /* "" for NONE or out of range */
GENIEDEF genie_work   genie_work_of(const genie_ctx *ctx, const char *phase, const char *role);
                      /* work of the nodes computed so far in this phase ("" none, NULL: all)
                         and of this role ("" none, NULL: all); zeros when none */

/* ---- backends (see ">>backend" in the implementation; genie_cuda.c registers "cuda") ----
   UNSTABLE, VERSIONED INTERFACE: the backend table below is for backends built together with
   this header (genie_cuda.c). It names the implementation's internal structs, and its layout may
   change in any release; GENIE_BACKEND_API_VERSION changes whenever it does, so a backend checks
   it at compile time (#if GENIE_BACKEND_API_VERSION != N #error ...) and fills the table by
   field name (designated initializers), never by position.
   A backend computes the tape nodes and fused groups it supports on its device;
   the CPU executor computes the rest. It sees the implementation's structs, so
   it lives in the translation unit that defines GENIE_IMPLEMENTATION. Fallible
   calls write a message naming the failed call into msg (GENIE_BACKEND_MSG bytes). */
#define GENIE_BACKEND_API_VERSION 1
#define GENIE_BACKEND_MSG 512
struct genie__node;
struct genie__fgroup;
struct genie__buf;
typedef struct genie_backend {
    const char *name; /* what genie_ctx_desc.backend selects */
    /* per context: *state for the others; GENIE_ERR_BACKEND when there is no device or driver */
    genie_result (*init)(void **state, char *msg);
    void (*destroy)(void *state);
    /* 1 when run takes this node (g NULL) or the fused group g rooted at n */
    int (*supports)(void *state, const struct genie__node *n, const struct genie__fgroup *g);
    /* compute n (or the group g): every input buffer holds its bytes in ->dev, every output
       buffer has its ->dev block; results stay on the device */
    genie_result (*run)(void *state, struct genie__node *n, const struct genie__fgroup *g, char *msg);
    genie_result (*alloc)(void *state, struct genie__buf *b, char *msg); /* b->dev: b->cap bytes */
    void (*free)(void *state, struct genie__buf *b);                     /* b->dev, set to NULL */
    genie_result (*copy_in)(void *state, struct genie__buf *b, char *msg); /* host -> device, b->bytes */
    genie_result (*copy_out)(void *state, struct genie__buf *b, size_t lo, size_t hi, char *msg); /* bytes [lo, hi) */
} genie_backend;
/* Adds a backend to the process-wide table (at most 8; the same name again replaces it).
   be must outlive every context that selects it. */
GENIEDEF genie_result genie_backend_register(const genie_backend *be);
GENIEDEF const char  *genie_backend_name(const genie_ctx *ctx); /* "cpu" or the backend in use */
/* ---- weights: safetensors files (see >>io) ---- */
typedef struct genie_safetensors genie_safetensors;
/* Maps the file at path read-only (no copy); the file is untrusted: any defect is an error whose message names
   the path and the tensor. *out is NULL on error; close it with genie_safetensors_close. */
GENIEDEF genie_result  genie_safetensors_open(genie_ctx *ctx, const char *path, genie_safetensors **out);
GENIEDEF int           genie_safetensors_count(const genie_safetensors *st);        /* tensors in the file; 0 for NULL */
GENIEDEF const char   *genie_safetensors_name(const genie_safetensors *st, int i);  /* i-th name in byte order (NULL out of range); st owns it */
/* A tensor reading the file's bytes without a copy (f16/bf16 as stored; a copy only when another writer left it
   unaligned), belonging to the innermost pool; NULL and GENIE_ERR_INDEX when name is missing. */
GENIEDEF genie_tensor *genie_safetensors_get(genie_safetensors *st, const char *name);
GENIEDEF const char   *genie_safetensors_metadata(const genie_safetensors *st, const char *key); /* a "__metadata__" value or NULL; st owns it */
GENIEDEF void          genie_safetensors_close(genie_safetensors *st);  /* frees st (NULL is fine); the mapping lives on while any tensor reads it */
/* Realizes ts and writes them (any layout, written row-major) under names: the header keeps the given order, the data
   is ordered by element size so every tensor is aligned; written to "<path>.genie.tmp" and renamed over path, so on
   failure path is unchanged. Names must be unique, valid UTF-8 and not "__metadata__". */
GENIEDEF genie_result  genie_safetensors_save(genie_ctx *ctx, const char *path, int n, const char *const *names,
                                              genie_tensor *const *ts);
GENIEDEF genie_result  genie_safetensors_save_metadata(genie_ctx *ctx, const char *path, int n, const char *const *names,
                                                       genie_tensor *const *ts, int nmeta, const char *const *keys,
                                                       const char *const *values);  /* save, with "__metadata__" key -> value */

#ifdef __cplusplus
}
#endif
#endif /* GENIE_H */

/* ======================================================================== */
/*                             IMPLEMENTATION                               */
/* ======================================================================== */
#ifdef GENIE_IMPLEMENTATION
#ifndef GENIE__IMPLEMENTED
#define GENIE__IMPLEMENTED

/* >>config ---------------------------------------------------------------- */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <limits.h>
#include <time.h>
#ifndef GENIE_NO_THREADS
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif
#endif
#include <errno.h>
#if !defined(GENIE_NO_MMAP)
#ifdef _WIN32
#ifdef GENIE_NO_THREADS /* else included above */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#endif
#elif defined(__unix__) || defined(__unix) || defined(__APPLE__)
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#endif
#endif
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define GENIE__X86 1
#if defined(__GNUC__) && !defined(__clang__)
/* GCC 12's AVX-512 headers warn falsely (their _mm512_undefined_* operands) when inlined
   into code compiled as C++ at -O2; the kernels below never read undefined lanes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#define GENIE__DIAG_PUSHED 1
#endif
#include <immintrin.h>
#define GENIE__AVX2 __attribute__((target("avx2,fma,f16c")))
#define GENIE__AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
#endif
/* The kernel name##_generic, _avx2 or _avx512 for path cpu (x86 builds define all three) */
#ifdef GENIE__X86
#define GENIE__BY_PATH(cpu, name) ((cpu) == GENIE_CPU_AVX512 ? name##_avx512 : (cpu) == GENIE_CPU_AVX2 ? name##_avx2 : name##_generic)
#else
#define GENIE__BY_PATH(cpu, name) name##_generic
#endif

/* Software prefetch into L1 of the line holding p, to be read or written; a
   prefetch never faults, so p may lie past the end of an array. */
#if defined(__GNUC__) || defined(__clang__)
#define GENIE__PREFETCH(p) __builtin_prefetch((p), 0, 3)
#define GENIE__PREFETCH_W(p) __builtin_prefetch((p), 1, 3) /* to be written */
#define GENIE__PREFETCH_L2(p) __builtin_prefetch((p), 0, 2) /* into L2, not L1 (prefetcht1) */
#else
#define GENIE__PREFETCH(p) ((void)(p))
#define GENIE__PREFETCH_W(p) ((void)(p))
#define GENIE__PREFETCH_L2(p) ((void)(p))
#endif

/* Sanitizer builds and GENIE_DEBUG quarantine dead handles (>>graph): their slots
   are never reused, and ASan builds poison them. */
#if defined(__SANITIZE_ADDRESS__)
#define GENIE__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GENIE__ASAN 1
#endif
#endif
#ifndef GENIE__ASAN
#define GENIE__ASAN 0
#endif
#if GENIE__ASAN
#include <sanitizer/asan_interface.h>
#endif
#if GENIE__ASAN || defined(GENIE_DEBUG)
#define GENIE__QUARANTINE 1
#else
#define GENIE__QUARANTINE 0
#endif

#if defined(GENIE_MALLOC) && defined(GENIE_REALLOC) && defined(GENIE_FREE)
#elif !defined(GENIE_MALLOC) && !defined(GENIE_REALLOC) && !defined(GENIE_FREE)
#define GENIE_MALLOC(sz) malloc(sz)
#define GENIE_REALLOC(p, sz) realloc(p, sz)
#define GENIE_FREE(p) free(p)
#else
#error "genie: define all of GENIE_MALLOC, GENIE_REALLOC and GENIE_FREE, or none"
#endif
#ifndef GENIE_ASSERT
#include <assert.h>
#define GENIE_ASSERT(x) assert(x)
#endif

#if defined(GENIE_STATIC) && defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function" /* a static build need not use every function */
#endif
#define GENIE__MAXD GENIE_MAX_DIMS
#define GENIE__STATIC_ASSERT(name, cond) typedef char genie__sa_##name[(cond) ? 1 : -1]

/* Operation table: X(ID, aten name, kind). Views have no kernel (kind VIEW);
   in-place forms reuse the kernel of their op and are named "<aten name>_". */
#define GENIE__OP_LIST(X)                                                     \
    X(LEAF, "from_data", SRC) X(FULL, "full", FULL) X(ARANGE, "arange", ARANGE) \
    X(RAND, "rand", RAND) X(RANDN, "randn", RAND)                                \
    X(CLONE, "clone", COPY) X(CONTIGUOUS, "contiguous", COPY) X(TO, "to", COPY) \
    X(COPY, "copy", COPY) X(FLIP, "flip", COPY) X(RESHAPE_COPY, "reshape", COPY) \
    X(NEG, "neg", UNARY) X(ABS, "abs", UNARY) X(EXP, "exp", UNARY) X(LOG, "log", UNARY) \
    X(SQRT, "sqrt", UNARY) X(RSQRT, "rsqrt", UNARY) X(SIN, "sin", UNARY) X(COS, "cos", UNARY) \
    X(TANH, "tanh", UNARY) X(SIGMOID, "sigmoid", UNARY) X(RELU, "relu", UNARY) \
    X(GELU, "gelu", UNARY) X(GELU_TANH, "gelu", UNARY) X(SILU, "silu", UNARY) \
    X(RECIPROCAL, "reciprocal", UNARY) X(SQUARE, "square", UNARY) X(FLOOR, "floor", UNARY) \
    X(CEIL, "ceil", UNARY) X(ROUND, "round", UNARY) X(SIGN, "sign", UNARY) X(ERF, "erf", UNARY) \
    X(LOG1P, "log1p", UNARY) X(EXPM1, "expm1", UNARY) X(LOGICAL_NOT, "logical_not", UNARY) \
    X(CLAMP, "clamp", UNARY)                                                     \
    X(ADD, "add", BINARY) X(SUB, "sub", BINARY) X(MUL, "mul", BINARY) X(DIV, "div", BINARY) \
    X(POW, "pow", BINARY) X(MAXIMUM, "maximum", BINARY) X(MINIMUM, "minimum", BINARY) \
    X(EQ, "eq", BINARY) X(NE, "ne", BINARY) X(LT, "lt", BINARY) X(LE, "le", BINARY) \
    X(GT, "gt", BINARY) X(GE, "ge", BINARY) X(LOGICAL_AND, "logical_and", BINARY) \
    X(LOGICAL_OR, "logical_or", BINARY)                                          \
    X(WHERE, "where", WHERE) X(MASKED_FILL, "masked_fill", MASKED_FILL)          \
    X(TRIL, "tril", TRI) X(TRIU, "triu", TRI)                                    \
    X(SUM, "sum", REDUCE) X(MEAN, "mean", REDUCE) X(AMAX, "amax", REDUCE) X(AMIN, "amin", REDUCE) \
    X(PROD, "prod", REDUCE) X(VAR, "var", REDUCE) X(STD, "std", REDUCE)          \
    X(LOGSUMEXP, "logsumexp", REDUCE)                                            \
    X(ARGMAX, "argmax", ARGREDUCE) X(ARGMIN, "argmin", ARGREDUCE)                \
    X(MAX_DIM, "max", ARGREDUCE) X(MIN_DIM, "min", ARGREDUCE)                    \
    X(SOFTMAX, "softmax", SOFTMAX) X(LOG_SOFTMAX, "log_softmax", SOFTMAX)        \
    X(LAYER_NORM, "layer_norm", LAYER_NORM)                                      \
    X(MATMUL, "matmul", MATMUL) X(LINEAR, "linear", MATMUL) X(CONV2D, "conv2d", CONV2D) \
    X(CAT, "cat", CAT) X(STACK, "stack", CAT)                                    \
    X(INDEX_SELECT, "index_select", INDEX) X(GATHER, "gather", INDEX) X(EMBEDDING, "embedding", INDEX) \
    X(TOPK, "topk", SORT) X(SORT, "sort", SORT)                                  \
    X(RMS_NORM, "rms_norm", LAYER_NORM) X(ROPE, "rope", ROPE)                    \
    X(SDPA, "scaled_dot_product_attention", ATTENTION) X(CUMSUM, "cumsum", CUMSUM) \
    X(SCATTER, "scatter", SCATTER) X(SCATTER_ADD, "scatter_add", SCATTER)        \
    X(INDEX_COPY, "index_copy", INDEX_COPY)                                      \
    X(VIEW, "view", VIEW) X(RESHAPE, "reshape", VIEW) X(PERMUTE, "permute", VIEW) \
    X(TRANSPOSE, "transpose", VIEW) X(T, "t", VIEW) X(EXPAND, "expand", VIEW)    \
    X(SQUEEZE, "squeeze", VIEW) X(UNSQUEEZE, "unsqueeze", VIEW) X(SLICE, "slice", VIEW) \
    X(SELECT, "select", VIEW) X(NARROW, "narrow", VIEW) X(DIAGONAL, "diagonal", VIEW) \
    X(AS_STRIDED, "as_strided", VIEW) X(SPLIT, "split", VIEW) X(CHUNK, "chunk", VIEW) \
    X(UNBIND, "unbind", VIEW) X(ALIAS, "alias", VIEW)

enum genie__kind { GENIE__K_SRC, GENIE__K_FULL, GENIE__K_ARANGE, GENIE__K_RAND, GENIE__K_COPY,
    GENIE__K_UNARY, GENIE__K_BINARY, GENIE__K_WHERE, GENIE__K_MASKED_FILL, GENIE__K_TRI,
    GENIE__K_REDUCE, GENIE__K_ARGREDUCE, GENIE__K_SOFTMAX, GENIE__K_LAYER_NORM, GENIE__K_MATMUL,
    GENIE__K_CONV2D, GENIE__K_CAT, GENIE__K_INDEX, GENIE__K_SORT, GENIE__K_ROPE, GENIE__K_ATTENTION,
    GENIE__K_CUMSUM, GENIE__K_SCATTER, GENIE__K_INDEX_COPY, GENIE__K_VIEW, GENIE__K_COUNT };

enum genie__op {
#define GENIE__X(id, name, kind) GENIE__OP_##id,
    GENIE__OP_LIST(GENIE__X)
#undef GENIE__X
    GENIE__OP_COUNT
};
static const char *const genie__op_names[] = {
#define GENIE__X(id, name, kind) "aten::" name,
    GENIE__OP_LIST(GENIE__X)
#undef GENIE__X
};
static const char *const genie__op_inplace_names[] = {
#define GENIE__X(id, name, kind) "aten::" name "_",
    GENIE__OP_LIST(GENIE__X)
#undef GENIE__X
};
static const unsigned char genie__op_kinds[] = {
#define GENIE__X(id, name, kind) GENIE__K_##kind,
    GENIE__OP_LIST(GENIE__X)
#undef GENIE__X
};
GENIE__STATIC_ASSERT(op_names, sizeof(genie__op_names) / sizeof(genie__op_names[0]) == GENIE__OP_COUNT);
GENIE__STATIC_ASSERT(op_kinds, sizeof(genie__op_kinds) == GENIE__OP_COUNT);
GENIE__STATIC_ASSERT(op_byte, GENIE__OP_COUNT <= 256); /* nodes and handles keep op in a byte */
GENIE__STATIC_ASSERT(compare_ops, GENIE__OP_GE - GENIE__OP_EQ == 5 && GENIE__OP_NE == GENIE__OP_EQ + 1);

/* >>errors ---------------------------------------------------------------- */
static const genie_result genie__result_codes[] = {
#define GENIE__X(name, value, text) name,
    GENIE_RESULT_LIST(GENIE__X)
#undef GENIE__X
};
static const char *const genie__result_texts[] = {
#define GENIE__X(name, value, text) #name ": " text,
    GENIE_RESULT_LIST(GENIE__X)
#undef GENIE__X
};
GENIE__STATIC_ASSERT(results, sizeof(genie__result_codes) / sizeof(genie__result_codes[0]) ==
                                  sizeof(genie__result_texts) / sizeof(genie__result_texts[0]));

GENIEDEF const char *genie_version(void) { return GENIE_VERSION_STRING; }
GENIEDEF const char *genie_result_string(genie_result r) {
    size_t i;
    for (i = 0; i < sizeof(genie__result_codes) / sizeof(genie__result_codes[0]); i++)
        if (genie__result_codes[i] == r) return genie__result_texts[i];
    return "unknown genie_result";
}

/* >>memory ---------------------------------------------------------------- */
/* Fixed-size objects (nodes, handles, storages, view specs) come from slabs:
   capture allocates no data and never calls malloc per object in steady state. */
#define GENIE__SLAB_PER 256 /* objects a chunk */
typedef struct genie__slab {
    size_t size;      /* object size, >= sizeof(void*) */
    void *free_list;  /* singly linked through the first word */
    char *fresh;      /* the newest chunk's slots never handed out: fresh[0 .. nfresh * size) */
    int nfresh;
    void **chunks;    /* every chunk, freed at destroy */
    int nchunks, capchunks;
    int64_t live;
} genie__slab;

/* An object's slot, its bytes as they were (GENIE__SLAB_NEW clears them), or NULL: a freed
   slot, else the newest chunk's next in address order. A new chunk is neither cleared
   nor linked, as each object is cleared when it is handed out: clearing the chunk too
   was a second pass over its fresh pages in a cold capture. */
static void *genie__slab_alloc(genie__slab *s) {
    void *p;
    if (!s->free_list) {
        if (!s->nfresh) {
            const int per = GENIE__SLAB_PER;
            char *chunk;
            if (s->nchunks == s->capchunks) {
                int nc = s->capchunks ? s->capchunks * 2 : 16;
                void **c = (void **)GENIE_REALLOC(s->chunks, (size_t)nc * sizeof(void *));
                if (!c) return NULL;
                s->chunks = c;
                s->capchunks = nc;
            }
            chunk = (char *)GENIE_MALLOC(s->size * (size_t)per);
            if (!chunk) return NULL;
            s->chunks[s->nchunks++] = chunk;
            s->fresh = chunk, s->nfresh = per;
        }
        p = s->fresh;
        s->fresh += s->size;
        s->nfresh--;
        s->live++;
        return p;
    }
    p = s->free_list;
    s->free_list = *(void **)p;
    /* In steady state (a pool popped, its slots taken again) the free list runs
       through each chunk in address order, and each pop waits on the slot's line:
       ask for the lines 512 bytes on (capture 55 -> 48 ns an op) */
    if (s->free_list) GENIE__PREFETCH_W((const void *)((uintptr_t)s->free_list + 512));
    s->live++;
    return p;
}
/* A zeroed object of type T from slab s, or NULL. The size is a constant where
   this expands, so the compiler clears it with plain stores: libc's memset of a
   run-time size used masked stores here, and loading a field back from a masked
   store cannot be forwarded (it waits for the store to reach the cache). */
static void *genie__zeroed(void *p, size_t n) {
    if (p) memset(p, 0, n);
    return p;
}
#define GENIE__SLAB_NEW(T, s) ((T *)genie__zeroed(genie__slab_alloc(s), sizeof(T)))
static void genie__slab_free(genie__slab *s, void *p) {
    *(void **)p = s->free_list;
    s->free_list = p;
    s->live--;
}
static void genie__slab_destroy(genie__slab *s) {
    int i;
    for (i = 0; i < s->nchunks; i++) GENIE_FREE(s->chunks[i]);
    GENIE_FREE(s->chunks);
    memset(s, 0, sizeof *s);
}

/* Overflow-checked size arithmetic: results are -1 on overflow. */
#if defined(__GNUC__) && (__GNUC__ >= 5 || defined(__clang__))
#define GENIE__MUL_OVF(a, b, r) __builtin_mul_overflow(a, b, r) /* no division: capture stays cheap */
#endif
static int64_t genie__mul_ck(int64_t a, int64_t b) {
    if (a < 0 || b < 0) return -1;
#ifdef GENIE__MUL_OVF
    {
        int64_t r;
        return GENIE__MUL_OVF(a, b, &r) ? -1 : r;
    }
#else
    if (a != 0 && b > INT64_MAX / a) return -1;
    return a * b;
#endif
}
static int64_t genie__add_ck(int64_t a, int64_t b) {
    if (a < 0 || b < 0 || a > INT64_MAX - b) return -1;
    return a + b;
}
/* Signed a + b and a * b into *r: 0 when the result is not representable (*r then unspecified). */
static int genie__sadd(int64_t a, int64_t b, int64_t *r) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *r = a + b;
    return 1;
}
static int genie__smul(int64_t a, int64_t b, int64_t *r) {
#ifdef GENIE__MUL_OVF
    return !GENIE__MUL_OVF(a, b, r);
#else
    uint64_t ua = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, ub = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    uint64_t lim = (a < 0) != (b < 0) ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (ua != 0 && ub > lim / ua) return 0;
    *r = (int64_t)((a < 0) != (b < 0) ? 0 - ua * ub : ua * ub); /* two's complement, no signed overflow */
    return 1;
#endif
}
/* Products in layout helpers whose shapes were checked (genie__layout_ok) or whose
   result is thrown away: wrapping, never undefined. */
#define GENIE__WMUL(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))

/* A data buffer, reference counted: a value node holds one; zero-copy readers
   (genie_data) borrow through their handle. External buffers (from_blob) keep
   the caller's memory and its deleter and are never written by genie. */
typedef struct genie__buf {
    int32_t refs;
    int32_t external;
    void *data;                     /* 64-byte aligned when cap >= GENIE__ALIGN_MIN */
    void *raw;                      /* what GENIE_MALLOC gave (data, or up to 63 bytes before it) */
    size_t bytes;                   /* asked for */
    size_t cap;                     /* the block's size (its size class); 0 if external */
    uint32_t born;                  /* the tape that allocated it (its epoch), 0 outside tapes */
    void (*deleter)(void *, void *);
    void *user;
    struct genie__buf *prev, *next; /* live: every live buffer, freed at destroy;
                                       cached: its size class's free list, newest first */
    struct genie__buf *older, *newer; /* cached: every cached block by when it was freed */
    void *dev;                      /* a backend's block of cap bytes (kept while cached), or NULL */
    uint32_t loc;                   /* GENIE__ON_HOST | GENIE__ON_DEV: which copies are current */
    struct genie__pk *pk;           /* its bytes as a packed weight (the pack cache), or NULL:
                                       dropped when it is freed or another value writes it */
} genie__buf;
enum { GENIE__ON_HOST = 1, GENIE__ON_DEV = 2 };
#ifndef GENIE_PACK_CACHE_BYTES
#define GENIE_PACK_CACHE_BYTES ((size_t)64 << 20)
#endif
static void genie__pk_drop(genie_ctx *ctx, genie__buf *b); /* >>cpu: the pack cache */

static double genie__no_data[1]; /* the data of empty external buffers given as NULL (never read) */

/* The buffer cache. A context keeps freed data blocks (with their genie__buf)
   in free lists by size class instead of returning them to GENIE_FREE, and
   genie__buf_new takes from them first: a steady-state loop allocates the same
   sizes every step and so touches no fresh pages. Classes: 64 bytes, then four
   per doubling (2^k * 1.25, 1.5, 1.75, 2), so a block is at most 25% larger
   than asked and the tail is never touched. The cache holds at most
   GENIE_CACHE_MAX_BYTES: a freed block that does not fit makes room by freeing
   the blocks freed longest ago (a program that once held large tensors and now
   runs small ones must not keep the large ones and free every small one); a
   block larger than the whole budget is freed. It is emptied when an allocation
   fails (then retried once), and is freed at genie_ctx_destroy. */
#ifndef GENIE_CACHE_MAX_BYTES
#define GENIE_CACHE_MAX_BYTES ((size_t)256 << 20)
#endif
#define GENIE__NCLASS 240
/* Blocks of at least this many bytes start on a cache line: malloc gives 16 bytes past a
   page for large blocks, and every 64-byte vector load or store of such a buffer would
   straddle two lines (the tail of the extra 64 bytes is never touched). */
#define GENIE__ALIGN_MIN 1024
/* The class of a block of `bytes` (-1: too large to cache) and its size. */
static int genie__size_class(size_t bytes, size_t *cap) {
    int k = 6, sub;
    size_t q;
    if (bytes <= 64) { *cap = 64; return 0; }
    if (bytes > (SIZE_MAX >> 2)) { *cap = bytes; return -1; }
    while (((size_t)1 << (k + 1)) < bytes) k++; /* 2^k < bytes <= 2^(k+1) */
    q = (size_t)1 << (k - 2);
    sub = (int)((bytes - ((size_t)1 << k) + q - 1) / q); /* 1..4 */
    *cap = ((size_t)1 << k) + (size_t)sub * q;
    return (k - 6) * 4 + sub;
}

/* >>dtype ----------------------------------------------------------------- */
static const size_t genie__dt_size[] = {
#define GENIE__X(name, sn, size, cat) size,
    GENIE_DTYPE_LIST(GENIE__X)
#undef GENIE__X
};
static const char *const genie__dt_names[] = {
#define GENIE__X(name, sn, size, cat) sn,
    GENIE_DTYPE_LIST(GENIE__X)
#undef GENIE__X
};
static const int genie__dt_cat[] = {
#define GENIE__X(name, sn, size, cat) cat,
    GENIE_DTYPE_LIST(GENIE__X)
#undef GENIE__X
};
GENIE__STATIC_ASSERT(dtypes, sizeof(genie__dt_cat) / sizeof(genie__dt_cat[0]) == GENIE_DTYPE_COUNT);

#define GENIE__IS_FLOAT(dt) (genie__dt_cat[dt] == 2)

GENIEDEF size_t genie_dtype_size(genie_dtype dt) {
    return ((int)dt >= 0 && dt < GENIE_DTYPE_COUNT) ? genie__dt_size[dt] : 0;
}
GENIEDEF const char *genie_dtype_name(genie_dtype dt) {
    return ((int)dt >= 0 && dt < GENIE_DTYPE_COUNT) ? genie__dt_names[dt] : "?";
}
static int genie__dt_valid(int dt) { return dt >= 0 && dt < GENIE_DTYPE_COUNT; }

/* ATen's promoteTypes for our dtypes. */
static int genie__int_rank(int dt) {
    switch (dt) {
    case GENIE_I8: return 1; case GENIE_I16: return 2; case GENIE_I32: return 3; case GENIE_I64: return 4;
    default: return 0;
    }
}
static int genie__promote(int a, int b) {
    if (a < 0) return b;
    if (b < 0) return a;
    if (a == b) return a;
    if (a == GENIE_BOOL) return b;
    if (b == GENIE_BOOL) return a;
    if (GENIE__IS_FLOAT(a) && GENIE__IS_FLOAT(b)) {
        if (a == GENIE_F64 || b == GENIE_F64) return GENIE_F64;
        return GENIE_F32; /* f16+bf16, f16+f32, bf16+f32 */
    }
    if (GENIE__IS_FLOAT(a)) return a;
    if (GENIE__IS_FLOAT(b)) return b;
    if (a == GENIE_U8 || b == GENIE_U8) {
        int o = a == GENIE_U8 ? b : a;
        return o == GENIE_I8 ? GENIE_I16 : o;
    }
    return genie__int_rank(a) > genie__int_rank(b) ? a : b;
}
/* canCast(from, to): no float -> integral, no non-bool -> bool. */
static int genie__can_cast(int from, int to) {
    if (GENIE__IS_FLOAT(from) && !GENIE__IS_FLOAT(to)) return 0;
    if (from != GENIE_BOOL && to == GENIE_BOOL) return 0;
    return 1;
}

/* f16 / bf16 <-> f32, round to nearest even. */
static float genie__bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t genie__f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float genie__h2f(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f);
        return s ? -v : v;
    }
    if (e == 31) return genie__bits_f(s | 0x7f800000u | (m << 13));
    return genie__bits_f(s | ((e + 112u) << 23) | (m << 13));
}
static uint16_t genie__f2h(float x) {
    uint32_t u = genie__f_bits(x), s = (u >> 16) & 0x8000u, h, rem;
    u &= 0x7fffffffu;
    if (u >= 0x7f800000u) return (uint16_t)(s | 0x7c00u | (u > 0x7f800000u ? 0x200u : 0u));
    if (u >= 0x477ff000u) return (uint16_t)(s | 0x7c00u); /* >= 65520 rounds to inf */
    if (u < 0x38800000u) {                                  /* below 2^-14: subnormal */
        float v = genie__bits_f(u) * 16777216.0f;            /* exact: units of 2^-24 */
        volatile float r = v + 12582912.0f;                  /* round half to even */
        return (uint16_t)(s | (uint32_t)(r - 12582912.0f));
    }
    h = ((u >> 23) - 112u) << 10 | ((u & 0x7fffffu) >> 13);
    rem = u & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(s | h);
}
static float genie__bf2f(uint16_t b) { return genie__bits_f((uint32_t)b << 16); }
static uint16_t genie__f2bf(float x) {
    uint32_t u = genie__f_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Float -> integer as x86 does it (cvttsd2si): out of range or NaN gives the
   integer indefinite value; narrow types go through int32 and wrap. */
static int64_t genie__f2i64(double v) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)v;
}
static int64_t genie__f2i32(double v) {
    if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
    return (int64_t)(int32_t)v;
}

/* Element access: p is element 0 of a buffer, i an element index. */
static double genie__ldf(const void *p, int64_t i, int dt) {
    switch (dt) {
    case GENIE_F32: return ((const float *)p)[i];
    case GENIE_F64: return ((const double *)p)[i];
    case GENIE_F16: return genie__h2f(((const uint16_t *)p)[i]);
    case GENIE_BF16: return genie__bf2f(((const uint16_t *)p)[i]);
    case GENIE_I64: return (double)((const int64_t *)p)[i];
    case GENIE_I32: return ((const int32_t *)p)[i];
    case GENIE_I16: return ((const int16_t *)p)[i];
    case GENIE_I8: return ((const int8_t *)p)[i];
    case GENIE_U8: return ((const uint8_t *)p)[i];
    default: return ((const uint8_t *)p)[i] != 0;
    }
}
static int64_t genie__ldi(const void *p, int64_t i, int dt) {
    switch (dt) {
    case GENIE_I64: return ((const int64_t *)p)[i];
    case GENIE_I32: return ((const int32_t *)p)[i];
    case GENIE_I16: return ((const int16_t *)p)[i];
    case GENIE_I8: return ((const int8_t *)p)[i];
    case GENIE_U8: return ((const uint8_t *)p)[i];
    case GENIE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case GENIE_F64: return genie__f2i64(((const double *)p)[i]);
    default: return genie__f2i64(genie__ldf(p, i, dt));
    }
}
/* v as integer dtype dt holds it: wrapped to the width (two's complement). */
static int64_t genie__wrap_int(int64_t v, int dt) {
    switch (dt) {
    case GENIE_I32: return (int32_t)(uint32_t)(uint64_t)v;
    case GENIE_I16: return (int16_t)(uint16_t)(uint64_t)v;
    case GENIE_I8: return (int8_t)(uint8_t)(uint64_t)v;
    case GENIE_U8: return (uint8_t)(uint64_t)v;
    case GENIE_BOOL: return v != 0;
    default: return v;
    }
}
/* Store an integer value: wraps to the width (two's complement), bool is != 0. */
static void genie__sti(void *p, int64_t i, int dt, int64_t v) {
    switch (dt) {
    case GENIE_I64: ((int64_t *)p)[i] = v; break;
    case GENIE_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
    case GENIE_I16: ((int16_t *)p)[i] = (int16_t)(uint16_t)(uint64_t)v; break;
    case GENIE_I8: ((int8_t *)p)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
    case GENIE_U8: ((uint8_t *)p)[i] = (uint8_t)(uint64_t)v; break;
    case GENIE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case GENIE_F32: ((float *)p)[i] = (float)v; break;
    case GENIE_F64: ((double *)p)[i] = (double)v; break;
    case GENIE_F16: ((uint16_t *)p)[i] = genie__f2h((float)v); break;
    default: ((uint16_t *)p)[i] = genie__f2bf((float)v); break;
    }
}
/* Store a floating value: low-precision types round through f32 (as PyTorch
   computes them in f32); integers convert as x86 does. */
static void genie__stf(void *p, int64_t i, int dt, double v) {
    switch (dt) {
    case GENIE_F32: ((float *)p)[i] = (float)v; break;
    case GENIE_F64: ((double *)p)[i] = v; break;
    case GENIE_F16: ((uint16_t *)p)[i] = genie__f2h((float)v); break;
    case GENIE_BF16: ((uint16_t *)p)[i] = genie__f2bf((float)v); break;
    case GENIE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case GENIE_I64: ((int64_t *)p)[i] = genie__f2i64(v); break;
    default: genie__sti(p, i, dt, genie__f2i32(v)); break;
    }
}
/* Round a double to what dtype dt holds (f32 and narrower floats). */
static double genie__round_to(double v, int dt) {
    switch (dt) {
    case GENIE_F32: return (float)v;
    case GENIE_F16: return genie__h2f(genie__f2h((float)v));
    case GENIE_BF16: return genie__bf2f(genie__f2bf((float)v));
    default: return v;
    }
}
/* The integer a fill value stores in integer dtype dt (0 for float and bool
   dtypes, whose kernels store the double; v has passed genie__fits). */
static int64_t genie__fill_int(double v, int dt) {
    return (GENIE__IS_FLOAT(dt) || dt == GENIE_BOOL) ? 0 : genie__f2i64(v); /* 2^63: INT64_MIN, as x86 */
}
/* Can v be stored in dt without overflow (PyTorch's checked Scalar conversion)? */
static int genie__fits(double v, int dt) {
    double lo, hi;
    switch (dt) {
    case GENIE_BOOL: return 1;
    case GENIE_F64: return 1;
    case GENIE_F32: return !(isfinite(v) && fabs(v) > FLT_MAX);
    case GENIE_F16: return !(isfinite(v) && fabs(v) > 65504.0);
    case GENIE_BF16: return !(isfinite(v) && fabs(v) > 3.3895313892515355e38);
    case GENIE_I64: return v >= -9223372036854775808.0 && v <= 9223372036854775808.0; /* 2^63 passes, as in ATen */
    case GENIE_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case GENIE_I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case GENIE_I8: lo = INT8_MIN; hi = INT8_MAX; break;
    default: lo = 0; hi = 255; break;
    }
    return v >= lo && v <= hi;
}

/* >>shape ----------------------------------------------------------------- */
/* A ViewSpec: shape, strides (elements, may be 0 or negative inside genie) and
   an absolute offset into a flat storage. Immutable once shared (refs > 1). */
typedef struct genie__vspec {
    int32_t refs;
    int32_t ndim;
    int64_t off;
    int64_t shape[GENIE__MAXD];
    int64_t strides[GENIE__MAXD];
} genie__vspec;

static int64_t genie__numel(int nd, const int64_t *shape) {
    int64_t n = 1;
    int i;
    for (i = 0; i < nd; i++) n = genie__mul_ck(n, shape[i]);
    return n;
}
/* Can a tensor of this shape exist: its contiguous strides, element count and
   bytes (esz per element) representable in int64? (Every output passes it at
   capture, so layouts and kernels on it never overflow.) */
static int64_t genie__layout_numel(int nd, const int64_t *shape, size_t esz) { /* numel, or -1 if not */
    int64_t dense = 1, bytes;
    int i, empty = 0;
    for (i = 0; i < nd; i++) {
        if (shape[i] < 0) return -1;
        if (shape[i] > 1 && !genie__smul(dense, shape[i], &dense)) return -1;
        empty |= shape[i] == 0;
    }
    if (empty) return 0; /* else numel is the dense size */
    return genie__smul(dense, (int64_t)(esz ? esz : 1), &bytes) ? dense : -1;
}
static int genie__layout_ok(int nd, const int64_t *shape, size_t esz) { return genie__layout_numel(nd, shape, esz) >= 0; }
static void genie__contig_strides(int nd, const int64_t *shape, int64_t *st) {
    int64_t s = 1;
    int i;
    for (i = nd - 1; i >= 0; i--) {
        st[i] = s;
        s = GENIE__WMUL(s, shape[i] > 1 ? shape[i] : 1);
    }
}
/* Exactly the row-major strides of a non-empty shape (size-1 dims too): what an
   elementwise result over this view alone is laid out as (capture's fast path). */
static int genie__std_layout(const genie__vspec *v) {
    int64_t s = 1;
    int i;
    for (i = v->ndim - 1; i >= 0; i--) {
        if (v->shape[i] <= 0 || v->strides[i] != s) return 0;
        s *= v->shape[i];
    }
    return 1;
}
/* PyTorch's is_contiguous: size-1 dims ignored, true when numel is 0. */
static int genie__is_contig(int nd, const int64_t *shape, const int64_t *st) {
    int64_t expect = 1;
    int i;
    for (i = 0; i < nd; i++)
        if (shape[i] == 0) return 1;
    for (i = nd - 1; i >= 0; i--) {
        if (shape[i] == 1) continue;
        if (st[i] != expect) return 0;
        expect = GENIE__WMUL(expect, shape[i]);
    }
    return 1;
}
/* Do the strides lay out the non-size-1 dims densely in `order` (fastest first)? */
static int genie__dense_in_order(const int64_t *shape, const int64_t *st, int n, const int *order) {
    int64_t expect = 1;
    int i;
    for (i = 0; i < n; i++) {
        int d = order[i];
        if (shape[d] != 1) {
            if (st[d] != expect) return 0;
            expect = GENIE__WMUL(expect, shape[d]);
        }
    }
    return 1;
}
static int genie__is_channels_last(int nd, const int64_t *shape, const int64_t *st) {
    static const int order[4] = {1, 3, 2, 0};
    return nd == 4 && genie__dense_in_order(shape, st, 4, order);
}
static void genie__channels_last_strides(const int64_t *shape, int64_t *st) {
    st[1] = 1;
    st[3] = shape[1];
    st[2] = GENIE__WMUL(st[3], shape[3]);
    st[0] = GENIE__WMUL(st[2], shape[2]);
}
static int genie__is_channels_last_3d(int nd, const int64_t *shape, const int64_t *st) {
    static const int order[5] = {1, 4, 3, 2, 0};
    return nd == 5 && genie__dense_in_order(shape, st, 5, order);
}
/* c10's is_non_overlapping_and_dense as TensorImpl caches it: contiguous (so
   every empty tensor), channels-last contiguous, or dense by sorted strides. */
static int genie__is_dense(int nd, const int64_t *shape, const int64_t *st) {
    int perm[GENIE__MAXD], i, j;
    int64_t req = 1;
    if (genie__is_contig(nd, shape, st) || genie__is_channels_last(nd, shape, st) ||
        genie__is_channels_last_3d(nd, shape, st)) return 1;
    if (nd == 1) return shape[0] < 2 || st[0] == 1;
    for (i = 0; i < nd; i++) perm[i] = i;
    for (i = 1; i < nd; i++) /* stable insertion sort: size<2 last, then by stride */
        for (j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j], swap;
            if (shape[a] < 2) swap = shape[b] >= 2;
            else if (shape[b] < 2) swap = 0;
            else swap = st[b] < st[a];
            if (!swap) break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    for (i = 0; i < nd; i++) {
        int64_t sz = shape[perm[i]];
        if (sz < 2) return 1;
        if (st[perm[i]] != req) return 0;
        req = GENIE__WMUL(req, sz);
    }
    return 1;
}

/* Broadcast shapes a and b (right aligned). 0 on failure, *bad = failing dim. */
static int genie__broadcast(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    int n = na > nb ? na : nb, i;
    for (i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) return 0;
        out[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return 1;
}

/* reorder_dimensions' stable insertion sort: perm[0] becomes the fastest dim.
   Dims compare by the first operand whose strides (st[k], broadcast: 0 where
   expanded) order them strictly; equal strides put the smaller size first;
   a zero stride is no information. */
static void genie__sort_dims(int nd, const int64_t *shape, int nops, int64_t (*st)[GENIE__MAXD], int *perm) {
    int i, k;
    for (i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (i = 1; i < nd; i++) {
        int d1 = i, d0;
        for (d0 = i - 1; d0 >= 0; d0--) {
            int cmp = 0;
            for (k = 0; k < nops && cmp == 0; k++) {
                int64_t s0 = st[k][perm[d0]], s1 = st[k][perm[d1]];
                if (s0 == 0 || s1 == 0) continue;
                if (s0 < s1) cmp = -1;
                else if (s0 > s1) cmp = 1;
                else if (shape[perm[d0]] > shape[perm[d1]]) cmp = 1;
            }
            if (cmp > 0) {
                int tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            } else if (cmp < 0) break;
        }
    }
}
/* TensorIterator's output layout for inputs ins (original shapes/strides)
   broadcast to (nd, shape): the fast setups (all contiguous, all channels-last,
   all dense with equal strides), else the sorted dims with compatible strides
   (sizes multiplied as they are, as compatible_stride does). */
static void genie__ti_layout(int nin, const genie__vspec *const *ins, int has_scalar, int nd,
                             const int64_t *shape, int64_t *out) {
    int same = !has_scalar || nd == 0, i, k, perm[GENIE__MAXD];
    int64_t bst[4][GENIE__MAXD], next;
    for (k = 0; k < nin; k++) {
        if (ins[k]->ndim != nd || memcmp(ins[k]->shape, shape, (size_t)nd * 8) != 0) same = 0;
    }
    if (same && nin > 0) {
        int contig = 1, cl = 1, dense = 1, eq = 1;
        for (k = 0; k < nin; k++) {
            contig &= genie__is_contig(nd, ins[k]->shape, ins[k]->strides);
            cl &= genie__is_channels_last(nd, ins[k]->shape, ins[k]->strides);
            dense &= genie__is_dense(nd, ins[k]->shape, ins[k]->strides);
            if (memcmp(ins[k]->strides, ins[0]->strides, (size_t)nd * 8) != 0) eq = 0;
        }
        if (contig) { genie__contig_strides(nd, shape, out); return; }
        if (cl) { genie__channels_last_strides(shape, out); return; }
        if (dense && eq) { memcpy(out, ins[0]->strides, (size_t)nd * 8); return; }
    }
    if (nd <= 1) { genie__contig_strides(nd, shape, out); return; }
    if (has_scalar && genie__numel(nd, shape) > 0) { /* inputs of the out shape with exactly the */
        genie__contig_strides(nd, shape, out);        /* standard strides keep the identity order */
        for (k = 0; k < nin; k++)                     /* when no size is 0 */
            if (ins[k]->ndim != nd || memcmp(ins[k]->shape, shape, (size_t)nd * 8) != 0 ||
                memcmp(ins[k]->strides, out, (size_t)nd * 8) != 0) break;
        if (k == nin) return;
    }
    for (k = 0; k < nin; k++) /* broadcast strides: 0 where a size-1 dim is expanded */
        for (i = 0; i < nd; i++) {
            int src = i - (nd - ins[k]->ndim);
            bst[k][i] = (src < 0 || (ins[k]->shape[src] == 1 && shape[i] != 1)) ? 0 : ins[k]->strides[src];
        }
    genie__sort_dims(nd, shape, nin, bst, perm);
    for (i = 0; i < nd; i++)
        if (perm[i] != nd - 1 - i) break;
    if (i == nd) { genie__contig_strides(nd, shape, out); return; }
    next = 1;
    for (i = 0; i < nd; i++) {
        out[perm[i]] = next;
        next = GENIE__WMUL(next, shape[perm[i]]);
    }
}
/* Memory format "preserve" (clone, to, flip, sort): dense inputs keep their
   strides, others get infer_dense_strides (the same sort; size-0/1 dims count
   as 1). */
static void genie__preserve_layout(const genie__vspec *v, int64_t *out) {
    int nd = v->ndim, perm[GENIE__MAXD], i;
    int64_t cur = 1, st[1][GENIE__MAXD];
    if (genie__is_dense(nd, v->shape, v->strides)) { memcpy(out, v->strides, (size_t)nd * 8); return; }
    if (nd <= 1) { genie__contig_strides(nd, v->shape, out); return; }
    memcpy(st[0], v->strides, (size_t)nd * 8);
    genie__sort_dims(nd, v->shape, 1, st, perm);
    for (i = 0; i < nd; i++) {
        out[perm[i]] = cur;
        if (v->shape[perm[i]] > 1) cur = GENIE__WMUL(cur, v->shape[perm[i]]);
    }
}
/* The view an operand of dtype dt has in ATen's TensorIterator when it computes
   in cdt: on the CPU an operand of another dtype is first copied by .to(cdt)
   (memory format preserve), whose layout then votes in the result's; a dense
   view keeps its strides. tmp holds the copy's view. */
static const genie__vspec *genie__cast_view(const genie__vspec *v, int dt, int cdt, genie__vspec *tmp) {
    if (!v || dt == cdt || genie__is_dense(v->ndim, v->shape, v->strides)) return v;
    *tmp = *v;
    tmp->off = 0;
    genie__preserve_layout(v, tmp->strides);
    return tmp;
}

/* Shapes in messages: "[2,3]". Writes into buf (at least 200 bytes). */
static const char *genie__fmt_shape(char *buf, int nd, const int64_t *shape) {
    int i, n = 0;
    n += sprintf(buf + n, "[");
    for (i = 0; i < nd && n < 180; i++) n += sprintf(buf + n, i ? ",%lld" : "%lld", (long long)shape[i]);
    sprintf(buf + n, "]");
    return buf;
}

/* >>view ------------------------------------------------------------------ */
/* ATen's computeStride: strides for viewing (oshape, ostride) as nshape, or 0
   when the view spans non-contiguous subspaces. */
static int genie__view_strides(int ond, const int64_t *oshape, const int64_t *ostride, int nnd,
                               const int64_t *nshape, int64_t *nstride) {
    int64_t numel = genie__numel(ond, oshape), chunk_base, tnumel = 1, vnumel = 1;
    int vd = nnd - 1, td, i;
    if (ond == 0) {
        for (i = 0; i < nnd; i++) nstride[i] = 1;
        return 1;
    }
    if (numel == 0 && ond == nnd && memcmp(oshape, nshape, (size_t)nnd * 8) == 0) {
        memcpy(nstride, ostride, (size_t)nnd * 8);
        return 1;
    }
    if (numel == 0) {
        for (i = nnd - 1; i >= 0; i--)
            nstride[i] = i == nnd - 1 ? 1 : GENIE__WMUL(nshape[i + 1] > 1 ? nshape[i + 1] : 1, nstride[i + 1]);
        return 1;
    }
    chunk_base = ostride[ond - 1];
    for (td = ond - 1; td >= 0; td--) {
        tnumel *= oshape[td];
        if (td == 0 || (oshape[td - 1] != 1 && ostride[td - 1] != tnumel * chunk_base)) {
            while (vd >= 0 && (vnumel < tnumel || nshape[vd] == 1)) {
                nstride[vd] = vnumel * chunk_base;
                vnumel *= nshape[vd];
                vd--;
            }
            if (vnumel != tnumel) return 0;
            if (td > 0) {
                chunk_base = ostride[td - 1];
                tnumel = 1;
                vnumel = 1;
            }
        }
    }
    return vd == -1;
}
/* The same for view arguments (any signs): -1 when an element's offset is below 0
   or the extent overflows int64; the element count must fit as well. */
static int64_t genie__extent_ck(int nd, const int64_t *shape, const int64_t *st, int64_t off) {
    int64_t lo = off, hi = off, t;
    int i;
    if (genie__numel(nd, shape) < 0) return -1;
    for (i = 0; i < nd; i++)
        if (shape[i] == 0) return 0;
    for (i = 0; i < nd; i++) {
        if (!genie__smul(shape[i] - 1, st[i], &t)) return -1;
        if (!genie__sadd(t < 0 ? lo : hi, t, t < 0 ? &lo : &hi)) return -1;
    }
    if (lo < 0 || hi == INT64_MAX) return -1;
    return hi + 1;
}
/* Storage elements a view needs: offset + sum((size-1)*stride) + 1, or 0 if empty. */
static int64_t genie__view_extent(const genie__vspec *v) {
    int64_t e = v->off;
    int i;
    for (i = 0; i < v->ndim; i++)
        if (v->shape[i] == 0) return 0; /* before any product: an empty view's strides may be anything */
    for (i = 0; i < v->ndim; i++) e += (v->shape[i] - 1) * v->strides[i];
    return e + 1;
}

/* >>graph ----------------------------------------------------------------- */
struct genie__node;
typedef struct genie__input {
    struct genie__node *n; /* the value read (a version of some storage) */
    genie__vspec *v;       /* how it is read: a view of that value's flat buffer */
} genie__input;

/* Inline operation arguments: dims, sizes and scalars (conv2d uses the most integers:
   stride[2], padding[2], dilation[2]). */
#define GENIE__NARGI 6
typedef struct genie__args {
    int64_t i[GENIE__NARGI];
    double f[2];
} genie__args;

enum { GENIE__PENDING = 0, GENIE__DONE = 1, GENIE__FAILED = 2 };

/* Where a value was captured: the module path and phase in force, interned per context
   as a pair (one pointer per node and handle, which also gives a handle its context);
   both strings are interned, never NULL. */
typedef struct genie__scope { const char *module, *phase; genie_ctx *ctx; } genie__scope;

/* A value: an immutable node of the graph. Its result is a flat buffer of
   `numel` elements of `dtype` (a whole storage version); the kernel writes the
   elements of `out`. An in-place write is a node with `base`: the old version's
   buffer is copied (or reused when nothing else needs it) before the kernel. */
typedef struct genie__node {
    genie__buf *buf;         /* set once computed; while the slot is free, the slab's free-list
                                link (refs stays 0 there) */
    int32_t refs;
    uint8_t op;
    uint8_t dtype, cdt;      /* buffer dtype; compute dtype of elementwise kernels */
    uint8_t state, inplace, has_scalar, err_code; /* err_code: -genie_result */
    uint8_t role;            /* genie_role_id, found by genie__roles (>>scope), never at capture */
    int32_t nin;
    uint32_t mark;           /* tape walk epoch */
    uint32_t tix;            /* index in the tape being run */
    int64_t numel;
    struct genie__node *base;
    genie__vspec *out;
    genie__input *in;        /* in_small, or heap for cat/stack */
    genie__input in_small[3];
    genie__args a;
    const genie__scope *scope;
} genie__node;

/* A storage: a flat array whose current value is its latest version. */
typedef struct genie__storage {
    int32_t refs;
    int32_t dtype;
    genie__node *ver;  /* every version has the storage's dtype and numel (ver->numel) */
} genie__storage;

/* A handle: what genie_tensor * points to. A dead handle (its last reference
   released) keeps refs 0 and its ctx: its slot is only reused by a later handle
   (never with GENIE__QUARANTINE), so genie__dead catches every use until then. */
struct genie_tensor {
    genie__storage *st;      /* NULL while dead; while the slot is free, the slab's free-list
                                link (refs 0 and scope stay readable: genie__dead, GENIE__CTX) */
    int32_t refs;
    uint8_t op, inplace;
    genie__vspec *v;
    const genie__scope *scope; /* its context: scope->ctx (GENIE__CTX) */
    uint64_t self; /* identity, as ATen's TensorImpl: shared by the handles that PyTorch would
                      return as the input itself (to the same dtype, contiguous of contiguous) */
};

/* A tuple: a shell from the context's slab. A freed shell (its pool popped, or released in a
   no_pool context) keeps ctx and released == 2 (dead) until a later tuple takes the slot (never
   with GENIE__QUARANTINE), so the tuple API reports every such use. */
struct genie_tuple {
    genie_tensor **items;    /* NULL while dead; while the slot is free, the slab's free-list link */
    genie_ctx *ctx;
    int n, released;         /* released: 1 by genie_tuple_release (the shell waits for its pool), 2 dead */
    struct genie_tuple *prev, *next; /* every live tuple, freed at destroy */
};

typedef uintptr_t genie__pool_entry; /* a handle, or a tuple with the low bit set (both 8-aligned) */

struct genie_ctx {
    genie_result err;
    char msg[512];
    int n_threads, no_pool;
    genie_cpu cpu; /* the kernel path in use, never AUTO */
    struct genie__tpool *tpool; /* worker threads, started on first need */
    char *ws_raw, *ws;        /* kernel workspace (64-byte aligned), grown on need */
    size_t ws_size;
    struct genie__mm_plan *mm_plan;
    genie__slab nodes, handles, storages, vspecs, tuple_shells;
    genie__buf *bufs;
    genie__buf *cache[GENIE__NCLASS]; /* freed blocks by size class (>>memory) */
    genie__buf *cache_oldest, *cache_newest; /* the same blocks by when they were freed */
    uint32_t tape_ep;                 /* the tape running now (its epoch), 0 if none */
    uint64_t handles_made;            /* identities handed out (genie_tensor.self) */
    uint64_t tape_held;               /* bytes held by buffers it allocated */
    genie_tuple *tuples;
    genie__pool_entry *pool;
    int64_t npool, cappool;
    int64_t *marks;
    int nmarks, capmarks;
    const char **scopes;
    int nscopes, capscopes;
    const char *phase;
    const genie__scope *scope;        /* (module path, phase) now: what capture records */
    genie__scope no_scope;            /* ("", ""): outside every scope, or out of memory */
    genie__scope **scopeset;          /* every pair seen, by hash of the two pointers */
    int64_t nscopeset, capscopeset;
    char **interned;
    int64_t ninterned, capinterned;
    genie__node **rel;          /* release worklist (no recursion) */
    int64_t nrel, caprel;
    int releasing;
    uint32_t epoch;
    struct genie__tc_entry *tcache;   /* the tape cache (>>tape), most recently used first */
    uint64_t tc_bytes, tc_mask;       /* its bytes; the hash mask (GENIE_TAPE_HASH_BITS: tests) */
    size_t pk_cap;                    /* the pack cache's budget (genie_set_pack_cache) */
    uint64_t *tkey;                   /* the key of the tape being planned */
    struct genie__fgroup *fg_scratch; /* a kept group bound to the running tape */
    int64_t captkey;
    /* realize's walk stack and tape, kept for the next realize (a steady loop touches no
       fresh pages); NULL while a realize holds them */
    struct genie__node **wk_stack;
    int *wk_next;
    struct genie__tape_op *wk_tape;
    int64_t capwk_stack, capwk_next, capwk_tape;
    /* the nodes the running tape frees, by tape index (NULL elsewhere, and whenever kept):
       they go back to the slab after the tape ran, its last first, so that the next capture
       takes their slots in this tape's order. Freed as they ran (group roots after their
       insides), a loop's slots would scatter, and the walk's and capture's prefetches along
       the slab would miss (tiny nodes over 25 runs: walk 50 -> 90-135 ns a node, capture 43 -> 92) */
    struct genie__node **wk_free, **tape_free;
    int64_t capwk_free, ntape_free; /* tape_free's length: the running tape's */
    const genie_backend *be;  /* the backend in use, or NULL: the CPU executor alone */
    void *be_state;
    genie_stats stats;
    struct genie__phase_work *pwork; /* work by phase and role (>>scope) */
    int64_t npwork, cappwork, lastpw;
};

static void *genie__fail(genie_ctx *ctx, genie_result code, const char *fmt, ...) {
    if (ctx && ctx->err == GENIE_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
        va_end(ap);
        ctx->err = code;
    }
    return NULL;
}
#define GENIE__OOM(ctx, fn) genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory", fn)

static int genie__grow(void **p, int64_t *cap, int64_t need, size_t elem) {
    int64_t nc;
    void *q;
    if (need <= *cap) return 1;
    nc = *cap ? *cap * 2 : 64;
    while (nc < need) nc *= 2;
    q = GENIE_REALLOC(*p, (size_t)nc * elem);
    if (!q) return 0;
    *p = q;
    *cap = nc;
    return 1;
}

/* A buffer's device block back to the backend (a no-op on the CPU). */
static void genie__dev_free(genie_ctx *ctx, genie__buf *b) {
    if (b->dev && ctx->be) ctx->be->free(ctx->be_state, b);
    b->dev = NULL;
}
/* Take cached block b (of class c, cap bytes) out of its class list and the age order. */
static void genie__cache_take(genie_ctx *ctx, genie__buf *b, int c, size_t cap) {
    if (b->prev) b->prev->next = b->next;
    else ctx->cache[c] = b->next;
    if (b->next) b->next->prev = b->prev;
    if (b->older) b->older->newer = b->newer;
    else ctx->cache_oldest = b->newer;
    if (b->newer) b->newer->older = b->older;
    else ctx->cache_newest = b->older;
    ctx->stats.cache_bytes -= cap;
}
/* Free the cached block freed longest ago. */
static void genie__cache_evict(genie_ctx *ctx) {
    genie__buf *b = ctx->cache_oldest;
    size_t cap;
    int c = genie__size_class(b->bytes, &cap);
    genie__cache_take(ctx, b, c, cap);
    genie__dev_free(ctx, b);
    GENIE_FREE(b->raw);
    GENIE_FREE(b);
}
static void genie__cache_flush(genie_ctx *ctx) {
    while (ctx->cache_oldest) genie__cache_evict(ctx);
}
/* GENIE_MALLOC, and once more after emptying the cache if it fails. */
static void *genie__malloc_or_flush(genie_ctx *ctx, size_t bytes) {
    void *p = GENIE_MALLOC(bytes);
    if (!p && ctx->stats.cache_bytes) {
        genie__cache_flush(ctx);
        p = GENIE_MALLOC(bytes);
    }
    return p;
}
/* A data buffer of `bytes` (uninitialized), refs 1: a cached block of its size
   class if there is one, else a fresh one. */
static genie__buf *genie__buf_new(genie_ctx *ctx, size_t bytes) {
    size_t cap;
    int c = genie__size_class(bytes, &cap);
    genie__buf *b = c >= 0 ? ctx->cache[c] : NULL;
    if (b) {
        genie__cache_take(ctx, b, c, cap);
        if (ctx->cache[c]) GENIE__PREFETCH_W(ctx->cache[c]); /* the next pop's block: a tape of
                                                                many small outputs pops one a node */
        ctx->stats.cache_hits++;
    } else {
        b = (genie__buf *)genie__malloc_or_flush(ctx, sizeof(genie__buf));
        if (!b) return NULL;
        b->raw = genie__malloc_or_flush(ctx, cap + (cap >= GENIE__ALIGN_MIN ? 64 : 0));
        if (!b->raw) { GENIE_FREE(b); return NULL; }
        b->data = cap >= GENIE__ALIGN_MIN ? (void *)(((uintptr_t)b->raw + 63) & ~(uintptr_t)63) : b->raw;
        ctx->stats.bytes_fresh += cap;
        b->dev = NULL;
    }
    b->loc = GENIE__ON_HOST;
    b->pk = NULL;
    b->refs = 1;
    b->external = 0;
    b->bytes = bytes;
    b->cap = cap;
    b->born = ctx->tape_ep;
    b->deleter = NULL;
    b->user = NULL;
    b->prev = NULL;
    b->next = ctx->bufs;
    if (ctx->bufs) ctx->bufs->prev = b;
    ctx->bufs = b;
    ctx->stats.bytes_live += bytes;
    ctx->stats.bytes_total += bytes;
    if (ctx->stats.bytes_live > ctx->stats.bytes_peak) ctx->stats.bytes_peak = ctx->stats.bytes_live;
    if (ctx->tape_ep) {
        ctx->tape_held += cap;
        if (ctx->tape_held > ctx->stats.tape_peak_bytes) ctx->stats.tape_peak_bytes = ctx->tape_held;
    }
    return b;
}
/* Back to the cache (or GENIE_FREE when it is full or the block too large). */
static void genie__buf_free_now(genie_ctx *ctx, genie__buf *b) {
    size_t cap;
    int c;
    if (b->pk) genie__pk_drop(ctx, b);
    if (b->prev) b->prev->next = b->next;
    else ctx->bufs = b->next;
    if (b->next) b->next->prev = b->prev;
    if (b->external) {
        genie__dev_free(ctx, b);
        if (b->deleter) b->deleter(b->data == (void *)genie__no_data ? NULL : b->data, b->user);
        GENIE_FREE(b);
        return;
    }
    ctx->stats.bytes_live -= b->bytes;
    if (ctx->tape_ep && b->born == ctx->tape_ep) ctx->tape_held -= b->cap;
    c = genie__size_class(b->bytes, &cap);
    if (c >= 0 && cap <= GENIE_CACHE_MAX_BYTES) {
        while (ctx->stats.cache_bytes > GENIE_CACHE_MAX_BYTES - cap) genie__cache_evict(ctx);
        b->prev = NULL; /* the newest of its class and of the cache */
        b->next = ctx->cache[c];
        if (b->next) b->next->prev = b;
        ctx->cache[c] = b;
        b->newer = NULL;
        b->older = ctx->cache_newest;
        if (b->older) b->older->newer = b;
        else ctx->cache_oldest = b;
        ctx->cache_newest = b;
        ctx->stats.cache_bytes += cap;
        return;
    }
    genie__dev_free(ctx, b);
    GENIE_FREE(b->raw);
    GENIE_FREE(b);
}
static void genie__buf_release(genie_ctx *ctx, genie__buf *b) {
    if (b && --b->refs == 0) genie__buf_free_now(ctx, b);
}

static genie__vspec *genie__vspec_new(genie_ctx *ctx, int nd, const int64_t *shape, const int64_t *st, int64_t off) {
    genie__vspec *v = GENIE__SLAB_NEW(genie__vspec, &ctx->vspecs);
    if (!v) return NULL;
    v->refs = 1;
    v->ndim = nd;
    v->off = off;
    if (nd) {
        memcpy(v->shape, shape, (size_t)nd * 8);
        if (st) memcpy(v->strides, st, (size_t)nd * 8);
        else genie__contig_strides(nd, shape, v->strides);
    }
    return v;
}
static genie__vspec *genie__vspec_retain(genie__vspec *v) { v->refs++; return v; }
static void genie__vspec_release(genie_ctx *ctx, genie__vspec *v) {
    if (v && --v->refs == 0) genie__slab_free(&ctx->vspecs, v);
}
static int genie__vspec_equal(const genie__vspec *a, const genie__vspec *b) {
    return a == b || (a->ndim == b->ndim && a->off == b->off &&
                      memcmp(a->shape, b->shape, (size_t)a->ndim * 8) == 0 &&
                      memcmp(a->strides, b->strides, (size_t)a->ndim * 8) == 0);
}

/* Release a node without recursion: a worklist of pending decrements. */
static void genie__node_release(genie_ctx *ctx, genie__node *n) {
    if (!n) return;
    if (!genie__grow((void **)&ctx->rel, &ctx->caprel, ctx->nrel + 1, sizeof(void *))) {
        if (--n->refs == 0) n->refs = 1; /* cannot free safely without memory: leak until destroy */
        return;
    }
    ctx->rel[ctx->nrel++] = n;
    if (ctx->releasing) return;
    ctx->releasing = 1;
    while (ctx->nrel > 0) {
        genie__node *m = ctx->rel[--ctx->nrel];
        int i;
        GENIE_ASSERT(m->refs > 0);
        if (--m->refs > 0) continue;
        for (i = 0; i < m->nin; i++) {
            genie__vspec_release(ctx, m->in[i].v);
            if (m->in[i].n && genie__grow((void **)&ctx->rel, &ctx->caprel, ctx->nrel + 1, sizeof(void *)))
                ctx->rel[ctx->nrel++] = m->in[i].n;
        }
        if (m->base && genie__grow((void **)&ctx->rel, &ctx->caprel, ctx->nrel + 1, sizeof(void *)))
            ctx->rel[ctx->nrel++] = m->base;
        genie__vspec_release(ctx, m->out);
        genie__buf_release(ctx, m->buf);
        if (m->in != m->in_small) GENIE_FREE(m->in);
        /* on this tape: later (a node that only seems so, its mark an epoch that wrapped, is
           given back later too, or at once if its slot is taken) */
        if (ctx->tape_free && ctx->tape_ep && m->mark == ctx->tape_ep && m->tix < ctx->ntape_free && !ctx->tape_free[m->tix])
            ctx->tape_free[m->tix] = m;
        else genie__slab_free(&ctx->nodes, m);
        ctx->stats.nodes_live--;
    }
    ctx->releasing = 0;
}
/* Once computed, a node drops its inputs: the graph behind it can be freed. */
static void genie__node_drop_inputs(genie_ctx *ctx, genie__node *n) {
    int i;
    for (i = 0; i < n->nin; i++) {
        genie__vspec_release(ctx, n->in[i].v);
        genie__node_release(ctx, n->in[i].n);
        n->in[i].n = NULL;
        n->in[i].v = NULL;
    }
    n->nin = 0;
    genie__node_release(ctx, n->base);
    n->base = NULL;
}

static const char *genie__cur_module(genie_ctx *ctx) { return ctx->nscopes ? ctx->scopes[ctx->nscopes - 1] : ""; }
/* ctx->scope = the interned (module path, phase) pair now in force: an open-addressing set
   keyed by the two (interned) pointers; out of memory, the empty pair (as genie__intern's ""). */
static uint64_t genie__scope_hash(const char *mod, const char *ph) {
    return (((uint64_t)(uintptr_t)mod * 0x9E3779B97F4A7C15u) ^ ((uint64_t)(uintptr_t)ph * 0xC2B2AE3D27D4EB4Fu)) >> 20;
}
/* ctx->scope for the current module and phase; out of memory: an error for fn, and no
   scope (the error says the names were lost) */
static void genie__scope_update(genie_ctx *ctx, const char *fn) {
    const char *mod = genie__cur_module(ctx), *ph = ctx->phase;
    int64_t i, mask;
    genie__scope *sc;
    if (!*mod && !*ph) { ctx->scope = &ctx->no_scope; return; }
    if (ctx->nscopeset * 2 >= ctx->capscopeset) { /* rehash into a table twice the size */
        int64_t nc = ctx->capscopeset ? ctx->capscopeset * 2 : 16, j;
        genie__scope **t = (genie__scope **)GENIE_MALLOC((size_t)nc * sizeof(genie__scope *));
        if (!t) { ctx->scope = &ctx->no_scope; GENIE__OOM(ctx, fn); return; }
        memset(t, 0, (size_t)nc * sizeof(genie__scope *));
        for (j = 0; j < ctx->capscopeset; j++)
            if (ctx->scopeset[j]) {
                int64_t k = (int64_t)(genie__scope_hash(ctx->scopeset[j]->module, ctx->scopeset[j]->phase) & (uint64_t)(nc - 1));
                while (t[k]) k = (k + 1) & (nc - 1);
                t[k] = ctx->scopeset[j];
            }
        GENIE_FREE(ctx->scopeset);
        ctx->scopeset = t;
        ctx->capscopeset = nc;
    }
    mask = ctx->capscopeset - 1;
    for (i = (int64_t)(genie__scope_hash(mod, ph) & (uint64_t)mask);; i = (i + 1) & mask) {
        if (!ctx->scopeset[i]) break;
        if (ctx->scopeset[i]->module == mod && ctx->scopeset[i]->phase == ph) { ctx->scope = ctx->scopeset[i]; return; }
    }
    if (!(sc = (genie__scope *)GENIE_MALLOC(sizeof *sc))) { ctx->scope = &ctx->no_scope; GENIE__OOM(ctx, fn); return; }
    sc->module = mod;
    sc->phase = ph;
    sc->ctx = ctx;
    ctx->scopeset[i] = sc;
    ctx->nscopeset++;
    ctx->scope = sc;
}

/* A new pending node with nin inputs to be set; refs 1 (its storage's). */
static genie__node *genie__node_new(genie_ctx *ctx, int op, int dtype, int64_t numel, int nin) {
    genie__node *n = GENIE__SLAB_NEW(genie__node, &ctx->nodes);
    if (!n) return NULL;
    n->refs = 1;
    n->op = (uint8_t)op;
    n->dtype = (uint8_t)dtype;
    n->cdt = (uint8_t)dtype;
    n->numel = numel;
    n->in = n->in_small;
    if (nin > 3) {
        n->in = (genie__input *)GENIE_MALLOC((size_t)nin * sizeof(genie__input));
        if (!n->in) { genie__slab_free(&ctx->nodes, n); return NULL; }
        memset(n->in, 0, (size_t)nin * sizeof(genie__input));
    }
    n->nin = nin;
    n->scope = ctx->scope;
    ctx->stats.nodes_created++;
    ctx->stats.nodes_live++;
    return n;
}
static void genie__node_set_in(genie__node *n, int i, genie__node *src, genie__vspec *v) {
    src->refs++;
    n->in[i].n = src;
    n->in[i].v = v; /* takes the caller's reference to v */
}

/* Room for one more pool entry (always, in a no_pool context); 0: out of memory. The
   caller asks before it makes the handle or tuple, so an entry is never lost: a
   pooled value outliving its pool would be a leak the user cannot see. */
static int genie__pool_room(genie_ctx *ctx) {
    return ctx->no_pool || genie__grow((void **)&ctx->pool, &ctx->cappool, ctx->npool + 1, sizeof(genie__pool_entry));
}
static void genie__pool_add(genie_ctx *ctx, void *p, int is_tuple) { /* after genie__pool_room */
    if (ctx->no_pool) return;
    ctx->pool[ctx->npool++] = (uintptr_t)p | (uintptr_t)(is_tuple != 0);
}

static void genie__storage_release(genie_ctx *ctx, genie__storage *s) {
    if (s && --s->refs == 0) {
        genie__node_release(ctx, s->ver);
        genie__slab_free(&ctx->storages, s);
    }
}
/* A handle on storage st (retained) read through v (reference taken). */
static genie_tensor *genie__handle_new(genie_ctx *ctx, genie__storage *st, genie__vspec *v, int op) {
    genie_tensor *t = genie__pool_room(ctx) ? GENIE__SLAB_NEW(genie_tensor, &ctx->handles) : NULL;
    if (!t) { genie__vspec_release(ctx, v); return (genie_tensor *)GENIE__OOM(ctx, genie__op_names[op]); }
    t->refs = 1;
    t->op = (uint8_t)op;
    t->self = ++ctx->handles_made;
    st->refs++;
    t->st = st;
    t->v = v;
    t->scope = ctx->scope;
    genie__pool_add(ctx, t, 0);
    return t;
}
/* The result of a node: a new storage whose version is n, seen through v. */
static genie_tensor *genie__result(genie_ctx *ctx, genie__node *n, genie__vspec *v) {
    genie__storage *st = GENIE__SLAB_NEW(genie__storage, &ctx->storages);
    genie_tensor *t;
    if (!st) {
        genie__node_release(ctx, n);
        genie__vspec_release(ctx, v);
        return (genie_tensor *)GENIE__OOM(ctx, genie__op_names[n->op]);
    }
    st->dtype = n->dtype;
    st->ver = n;
    t = genie__handle_new(ctx, st, v, n->op);
    if (!t) { genie__node_release(ctx, n); genie__slab_free(&ctx->storages, st); return NULL; }
    return t;
}
/* Is t dead (used after its pool was popped or its last reference released)? */
#define GENIE__CTX(t) ((t)->scope->ctx)
static int genie__dead(const genie_tensor *t) {
#if GENIE__ASAN
    if (__asan_address_is_poisoned(t)) return 1;
#endif
    return t->refs <= 0;
}
#define GENIE__LIVE(t) ((t) && !genie__dead(t))
static int genie__mine(genie_ctx *ctx, const char *fn, const genie_tensor *t); /* >>api: live and ours */
static void genie__handle_release(genie_tensor *t) {
    genie_ctx *ctx;
    if (!t || genie__dead(t) || --t->refs > 0) return;
    ctx = GENIE__CTX(t);
    genie__storage_release(ctx, t->st);
    genie__vspec_release(ctx, t->v);
    t->st = NULL;
    t->v = NULL;
#if GENIE__QUARANTINE /* never handed out again: every later use is caught */
    ctx->handles.live--;
#if GENIE__ASAN
    ASAN_POISON_MEMORY_REGION(t, sizeof *t);
#endif
#else
    genie__slab_free(&ctx->handles, t);
#endif
}

/* >>overlap --------------------------------------------------------------- */
enum { GENIE__OV_NO, GENIE__OV_YES, GENIE__OV_FULL, GENIE__OV_PARTIAL, GENIE__OV_TOO_HARD };

static int genie__internal_overlap(const genie__vspec *v) { /* ATen's has_internal_overlap */
    int i;
    if (genie__is_dense(v->ndim, v->shape, v->strides)) return GENIE__OV_NO;
    for (i = 0; i < v->ndim; i++)
        if (v->strides[i] == 0 && v->shape[i] > 1) return GENIE__OV_YES;
    return GENIE__OV_TOO_HARD;
}
static int genie__overlap_status(const genie_tensor *a, const genie_tensor *b) { /* get_overlap_status */
    int64_t na = genie__numel(a->v->ndim, a->v->shape), nb = genie__numel(b->v->ndim, b->v->shape);
    if (a == b) return GENIE__OV_FULL;
    if (na == 0 || nb == 0) return GENIE__OV_NO;
    if (!genie__is_dense(a->v->ndim, a->v->shape, a->v->strides) ||
        !genie__is_dense(b->v->ndim, b->v->shape, b->v->strides)) return GENIE__OV_TOO_HARD;
    if (a->st == b->st) {
        size_t sa = genie__dt_size[a->st->dtype], sb = genie__dt_size[b->st->dtype];
        int64_t ab = a->v->off * (int64_t)sa, ae = ab + na * (int64_t)sa;
        int64_t bb = b->v->off * (int64_t)sb, be = bb + nb * (int64_t)sb;
        if (ab == bb && ae == be)
            return (a->v->ndim == b->v->ndim && memcmp(a->v->strides, b->v->strides, (size_t)a->v->ndim * 8) == 0)
                       ? GENIE__OV_FULL : GENIE__OV_PARTIAL;
        if (ab < be && bb < ae) return GENIE__OV_PARTIAL;
    }
    return GENIE__OV_NO;
}
static int genie__cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}
/* Every element offset of v, sorted (exact overlap checks where ATen gives up). */
static int64_t *genie__offsets_sorted(const genie__vspec *v, int64_t *count) {
    int64_t n = genie__numel(v->ndim, v->shape), k, idx[GENIE__MAXD] = {0}, off = v->off;
    int64_t *o;
    int d;
    if (n < 0 || (uint64_t)n > SIZE_MAX / 8 || (uint64_t)n > (uint64_t)INT64_MAX / 8) return NULL; /* cannot be allocated */
    o = (int64_t *)GENIE_MALLOC((size_t)(n ? n : 1) * 8);
    if (!o) return NULL;
    for (k = 0; k < n; k++) {
        o[k] = off;
        for (d = v->ndim - 1; d >= 0; d--) { /* wrapping: past the last element it may leave int64 */
            off = (int64_t)((uint64_t)off + (uint64_t)v->strides[d]);
            if (++idx[d] < v->shape[d]) break;
            off = (int64_t)((uint64_t)off - (uint64_t)GENIE__WMUL(v->strides[d], v->shape[d]));
            idx[d] = 0;
        }
    }
    qsort(o, (size_t)n, 8, genie__cmp_i64);
    *count = n;
    return o;
}
/* Views with more elements than this are decided from their strides alone (an exact check
   sorts every offset: 8 bytes an element). */
#ifndef GENIE__OVERLAP_EXACT_MAX
#define GENIE__OVERLAP_EXACT_MAX ((int64_t)1 << 22)
#endif
/* Do two elements of v share a memory location? 1 yes, 0 no, -1 undecided (too many
   elements to sort, or out of memory). O(ndim log ndim) from the strides where they decide:
   dims of size > 1 ordered by |stride| never overlap when each |stride| exceeds the span
   of the dims below it (sum of |stride| * (size - 1)); a zero stride overlaps. Otherwise
   (e.g. [3, 3] strides [2, 3], whose offsets are all distinct) every offset is sorted,
   for at most GENIE__OVERLAP_EXACT_MAX elements. */
static int genie__really_self_overlaps(const genie__vspec *v) {
    int64_t st[GENIE__MAXD], sh[GENIE__MAXD], span = 0, n, i, *o;
    int d, k, m = 0, r = 0;
    if (genie__numel(v->ndim, v->shape) == 0) return 0;
    for (d = 0; d < v->ndim; d++) {
        int64_t a = v->strides[d] == INT64_MIN ? INT64_MAX : v->strides[d] < 0 ? -v->strides[d] : v->strides[d];
        if (v->shape[d] <= 1) continue;
        if (a == 0) return 1;
        for (k = m++; k > 0 && st[k - 1] > a; k--) st[k] = st[k - 1], sh[k] = sh[k - 1]; /* insertion by |stride| */
        st[k] = a, sh[k] = v->shape[d];
    }
    for (k = 0; k < m; k++) {
        int64_t reach;
        if (st[k] <= span || !genie__smul(st[k], sh[k] - 1, &reach) || !genie__sadd(span, reach, &span)) break;
    }
    if (k == m) return 0;
    n = genie__numel(v->ndim, v->shape);
    if (n > GENIE__OVERLAP_EXACT_MAX || !(o = genie__offsets_sorted(v, &n))) return -1;
    for (i = 1; i < n && !r; i++) r = o[i] == o[i - 1];
    GENIE_FREE(o);
    return r;
}

/* >>tuple ----------------------------------------------------------------- */
static genie_tuple *genie__tuple_new(genie_ctx *ctx, int n) {
    genie_tuple *t = GENIE__SLAB_NEW(genie_tuple, &ctx->tuple_shells);
    if (!t) return (genie_tuple *)GENIE__OOM(ctx, "genie_tuple");
    t->items = (genie_tensor **)GENIE_MALLOC((size_t)(n ? n : 1) * sizeof(genie_tensor *));
    if (!t->items) { genie__slab_free(&ctx->tuple_shells, t); return (genie_tuple *)GENIE__OOM(ctx, "genie_tuple"); }
    memset(t->items, 0, (size_t)(n ? n : 1) * sizeof(genie_tensor *));
    t->ctx = ctx;
    t->n = n;
    t->next = ctx->tuples;
    if (ctx->tuples) ctx->tuples->prev = t;
    ctx->tuples = t;
    return t;
}
static void genie__tuple_drop_items(genie_tuple *t) {
    int i;
    for (i = 0; i < t->n; i++) genie__handle_release(t->items[i]);
    t->n = 0;
}
static void genie__tuple_free(genie_tuple *t) {
    genie_ctx *ctx = t->ctx;
    genie__tuple_drop_items(t);
    if (t->prev) t->prev->next = t->next;
    else ctx->tuples = t->next;
    if (t->next) t->next->prev = t->prev;
    GENIE_FREE(t->items);
    t->items = NULL;
    t->n = 0;
    t->released = 2;
#if GENIE__QUARANTINE /* never handed out again: every later use is caught */
    ctx->tuple_shells.live--;
#else
    genie__slab_free(&ctx->tuple_shells, t);
#endif
}
/* A tuple of handles that the caller made (each owned by the tuple, not a pool). */
static genie_tuple *genie__tuple_finish(genie_ctx *ctx, genie_tuple *t) {
    int i;
    for (i = 0; i < t->n; i++)
        if (!t->items[i]) { genie__tuple_free(t); return NULL; }
    if (!genie__pool_room(ctx)) { genie__tuple_free(t); return (genie_tuple *)GENIE__OOM(ctx, "genie_tuple"); }
    genie__pool_add(ctx, t, 1);
    return t;
}

/* >>scope ----------------------------------------------------------------- */
/* Interned strings: module paths and phases are stored once per context. */
static uint64_t genie__hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}
/* s stored once per context; NULL when out of memory (an error for fn) */
static const char *genie__intern(genie_ctx *ctx, const char *s, const char *fn) {
    int64_t i, mask;
    if (!s || !*s) return "";
    if (ctx->ninterned * 2 >= ctx->capinterned) { /* rehash into a table twice the size */
        int64_t nc = ctx->capinterned ? ctx->capinterned * 2 : 64, j;
        char **t = (char **)GENIE_MALLOC((size_t)nc * sizeof(char *));
        if (!t) return (const char *)GENIE__OOM(ctx, fn);
        memset(t, 0, (size_t)nc * sizeof(char *));
        for (j = 0; j < ctx->capinterned; j++)
            if (ctx->interned[j]) {
                int64_t k = (int64_t)(genie__hash_str(ctx->interned[j]) & (uint64_t)(nc - 1));
                while (t[k]) k = (k + 1) & (nc - 1);
                t[k] = ctx->interned[j];
            }
        GENIE_FREE(ctx->interned);
        ctx->interned = t;
        ctx->capinterned = nc;
    }
    mask = ctx->capinterned - 1;
    for (i = (int64_t)(genie__hash_str(s) & (uint64_t)mask);; i = (i + 1) & mask) {
        if (!ctx->interned[i]) {
            size_t len = strlen(s);
            char *c = (char *)GENIE_MALLOC(len + 1);
            if (!c) return (const char *)GENIE__OOM(ctx, fn);
            memcpy(c, s, len + 1);
            ctx->interned[i] = c;
            ctx->ninterned++;
            return c;
        }
        if (strcmp(ctx->interned[i], s) == 0) return ctx->interned[i];
    }
}

/* Roles (genie_role): patterns recognised in the graph, whatever the scopes say.
   genie__roles runs over a list of nodes in topological order (a tape, or the
   subgraph a dump or genie_role walks) when a graph is realized, dumped or asked
   for its role, never at capture. Each node is tried as the END of a pattern,
   looking back through its inputs only; a pattern's nodes take its role unless
   they have one already (the first pattern found wins). Nodes that only copy or
   convert (contiguous, clone, to, reshape copies) are looked through; views are
   no nodes at all (they are the ViewSpecs on the edges). The patterns:
     attention  scaled_dot_product_attention; softmax(scores) @ v, the scores q @ k^T through scaling (mul/div),
                masks (add, masked_fill, where) and conversions; then the products
                that make q, k and v (through rope and rope-like arithmetic: neg, mul,
                add of two products, cat, copies, cache writes) and the product that reads
                the result (the output projection)
     mlp        prod(act(prod(x))) with act relu/gelu/silu/sigmoid/tanh or x*sigmoid(x);
                prod(act(prod(x)) * prod(x)) (SwiGLU, GeGLU); prod = matmul or linear,
                with a bias added or not
     norm       layer_norm, rms_norm; x * rsqrt(mean(x^2) + eps) and x / sqrt(...) (RMSNorm, and
                LayerNorm's (x - mean) * rsqrt(var + eps)); the weight and bias applied
     embedding  embedding, index_select of rows of a 2-D table, and the sum of two
     residual   a + f where f ends an attention or MLP block (shapes equal, no broadcast) */
static int genie__node_ninputs(const genie__node *n);
static genie__node *genie__node_input(const genie__node *n, int i);
static int genie__rl_copyish(const genie__node *x) {
    return !x->base && x->nin == 1 && genie__op_kinds[x->op] == GENIE__K_COPY && x->op != GENIE__OP_FLIP;
}
static genie__node *genie__rl_skip(genie__node *x) {
    int hops = 0;
    while (x && hops++ < 16 && genie__rl_copyish(x)) x = x->in[0].n;
    return x;
}
static genie__node *genie__rl_in(const genie__node *n, int i) { return i < n->nin ? genie__rl_skip(n->in[i].n) : NULL; }
/* x and the copies between it and the node it stands for take the role. */
static void genie__rl_mark(genie__node *x, int role) {
    int hops = 0;
    for (; x && hops < 17; hops++) {
        if (!x->role) x->role = (uint8_t)role;
        if (!genie__rl_copyish(x)) break;
        x = x->in[0].n;
    }
}
/* Distinct elements a view reads (broadcast dimensions count once). */
static int64_t genie__rl_distinct(const genie__vspec *v) {
    int64_t n = 1;
    int d;
    for (d = 0; v && d < v->ndim; d++)
        if (v->strides[d] != 0) n *= v->shape[d];
    return n;
}
static int genie__rl_binary(const genie__node *x, int op) { return x && x->op == op && x->nin == 2 && !x->has_scalar; }
/* A scalar factor: a scalar form, or an operand of one distinct element. */
static int genie__rl_scaled(const genie__node *x) {
    if (!x || (x->op != GENIE__OP_MUL && x->op != GENIE__OP_DIV)) return 0;
    return x->has_scalar || (x->nin == 2 && genie__rl_distinct(x->in[1].v) == 1);
}
/* A product: matmul or linear, or one plus a broadcast bias. Returns the product. */
static genie__node *genie__rl_prod(genie__node *x) {
    int s;
    if (!x) return NULL;
    if (genie__op_kinds[x->op] == GENIE__K_MATMUL) return x;
    if (genie__rl_binary(x, GENIE__OP_ADD))
        for (s = 0; s < 2; s++) {
            genie__node *p = genie__rl_in(x, s);
            if (p && genie__op_kinds[p->op] == GENIE__K_MATMUL && genie__rl_distinct(x->in[1 - s].v) < x->numel) return p;
        }
    return NULL;
}
static void genie__rl_mark_prod(genie__node *raw, int role) {
    genie__node *x = genie__rl_skip(raw), *p = genie__rl_prod(x);
    genie__rl_mark(raw, role);
    if (p && p != x) genie__rl_mark(x->in[0].n, role), genie__rl_mark(x->in[1].n, role);
}
static int genie__rl_is_act(int op) {
    return op == GENIE__OP_RELU || op == GENIE__OP_GELU || op == GENIE__OP_GELU_TANH || op == GENIE__OP_SILU ||
           op == GENIE__OP_SIGMOID || op == GENIE__OP_TANH;
}
/* act(prod) or p * sigmoid(p): the product's raw input edge owner, or NULL. */
static genie__node *genie__rl_act(genie__node *x) {
    int s;
    if (!x) return NULL;
    if (genie__rl_is_act(x->op) && x->nin == 1 && genie__rl_prod(genie__rl_in(x, 0))) return x;
    if (genie__rl_binary(x, GENIE__OP_MUL))
        for (s = 0; s < 2; s++) {
            genie__node *p = genie__rl_in(x, s), *g = genie__rl_in(x, 1 - s);
            if (g && g->op == GENIE__OP_SIGMOID && g->nin == 1 && genie__rl_in(g, 0) == p && genie__rl_prod(p)) return x;
        }
    return NULL;
}
static void genie__rl_mark_act(genie__node *a, int role) { /* a from genie__rl_act */
    int i;
    genie__rl_mark(a, role);
    for (i = 0; i < a->nin; i++) {
        genie__node *y = genie__rl_in(a, i);
        if (y && y->op == GENIE__OP_SIGMOID && y->nin == 1) genie__rl_mark(a->in[i].n, role);
        else genie__rl_mark_prod(a->in[i].n, role);
    }
}

/* The ending product of an MLP at n (n itself a product): marks it. */
static int genie__rl_mlp(genie__node *n) {
    genie__node *h = genie__rl_in(n, 0), *a;
    int s;
    if (!h) return 0;
    if ((a = genie__rl_act(h)) != NULL) {
        genie__rl_mark_act(a, GENIE_ROLE_MLP);
    } else if (genie__rl_binary(h, GENIE__OP_MUL)) { /* gated: act(prod) * prod */
        for (s = 0; s < 2; s++) {
            genie__node *g = genie__rl_in(h, s), *u = genie__rl_in(h, 1 - s);
            if ((a = genie__rl_act(g)) != NULL && genie__rl_prod(u)) break;
        }
        if (s == 2) return 0;
        genie__rl_mark(h, GENIE_ROLE_MLP);
        genie__rl_mark_act(a, GENIE_ROLE_MLP);
        genie__rl_mark_prod(h->in[1 - s].n, GENIE_ROLE_MLP);
    } else {
        return 0;
    }
    genie__rl_mark(n->in[0].n, GENIE_ROLE_MLP);
    genie__rl_mark(n, GENIE_ROLE_MLP);
    return 1;
}

/* The next node back from attention scores toward q @ k^T: through scaling,
   masks and conversions; NULL when x is none of these. */
static genie__node *genie__rl_score_back(genie__node *x, int *edge) {
    int s;
    *edge = 0;
    if (genie__rl_scaled(x) || ((x->op == GENIE__OP_ADD || x->op == GENIE__OP_SUB) && x->has_scalar) ||
        (x->op == GENIE__OP_MASKED_FILL && x->nin >= 1))
        return genie__rl_in(x, 0);
    if ((genie__rl_binary(x, GENIE__OP_ADD) || x->op == GENIE__OP_WHERE) && x->nin >= 2) {
        int lo = x->op == GENIE__OP_WHERE ? 1 : 0, best = lo;
        for (s = lo; s < x->nin; s++) {
            genie__node *y = genie__rl_in(x, s);
            if (y && genie__op_kinds[y->op] == GENIE__K_MATMUL) { best = s; break; }
            if (genie__rl_distinct(x->in[s].v) > genie__rl_distinct(x->in[best].v)) best = s;
        }
        *edge = best;
        return genie__rl_in(x, best);
    }
    return NULL;
}
/* The attention core ending at n (softmax(scores) @ v): its q @ k^T, or NULL. */
static genie__node *genie__rl_attn_core(genie__node *n) {
    genie__node *a, *x;
    int steps, e;
    if (n->op != GENIE__OP_MATMUL || n->nin != 2) return NULL;
    a = genie__rl_in(n, 0);
    if (!a || a->op != GENIE__OP_SOFTMAX || a->nin != 1) return NULL;
    for (x = genie__rl_in(a, 0), steps = 0; x && steps < 8; steps++) {
        if (genie__op_kinds[x->op] == GENIE__K_MATMUL) return x;
        x = genie__rl_score_back(x, &e);
    }
    return NULL;
}
/* Walk back from q, k or v (the raw edge src) through rope-like arithmetic and
   cache writes to the products that make them; marks what it passes. */
static void genie__rl_attn_inputs(genie__node *src) {
    genie__node *wl[32];
    int nw = 0, i;
    if (src) wl[nw++] = src;
    while (nw > 0) {
        genie__node *x = wl[--nw];
        int pass;
        if (!x || (x->role && x->role != GENIE_ROLE_ATTENTION)) continue;
        if (genie__rl_prod(genie__rl_skip(x))) { genie__rl_mark_prod(x, GENIE_ROLE_ATTENTION); continue; }
        pass = genie__rl_copyish(x) || x->op == GENIE__OP_NEG || x->op == GENIE__OP_CAT || x->op == GENIE__OP_COPY ||
               x->op == GENIE__OP_ROPE || x->op == GENIE__OP_INDEX_COPY ||
               genie__rl_scaled(x) || x->op == GENIE__OP_MUL ||
               ((x->op == GENIE__OP_ADD || x->op == GENIE__OP_SUB) && x->nin == 2 && !x->has_scalar &&
                genie__rl_in(x, 0) && genie__rl_in(x, 1) && genie__rl_in(x, 0)->op == GENIE__OP_MUL &&
                genie__rl_in(x, 1)->op == GENIE__OP_MUL);
        if (!pass || x->role) continue;
        x->role = GENIE_ROLE_ATTENTION;
        for (i = 0; i < genie__node_ninputs(x) && nw < 32; i++) wl[nw++] = genie__node_input(x, i);
    }
}
static int genie__rl_attention(genie__node *n) {
    genie__node *qk, *x;
    int e, steps;
    if (n->op == GENIE__OP_SDPA) { /* the fused operation */
        n->role = GENIE_ROLE_ATTENTION;
        for (e = 0; e < 3 && e < n->nin; e++) genie__rl_attn_inputs(n->in[e].n);
        if (n->nin > 3) genie__rl_mark(n->in[3].n, GENIE_ROLE_ATTENTION); /* a mask */
        return 1;
    }
    qk = genie__rl_attn_core(n);
    if (!qk) return 0;
    genie__rl_mark(n, GENIE_ROLE_ATTENTION);
    genie__rl_mark(n->in[0].n, GENIE_ROLE_ATTENTION);
    x = genie__rl_in(n, 0); /* the softmax */
    for (x = x->in[0].n, steps = 0; x && steps < 8; steps++) {
        genie__node *s = genie__rl_skip(x);
        genie__rl_mark(x, GENIE_ROLE_ATTENTION);
        if (s == qk) break;
        x = genie__rl_score_back(s, &e) ? s->in[e].n : NULL;
    }
    genie__rl_attn_inputs(qk->in[0].n);
    genie__rl_attn_inputs(qk->in[1].n);
    genie__rl_attn_inputs(n->in[1].n);
    return 1;
}

/* x^2: square(x), pow(x, 2), x * x: returns x, or NULL. */
static genie__node *genie__rl_sq(genie__node *p) {
    if (!p) return NULL;
    if (p->op == GENIE__OP_SQUARE && p->nin == 1) return genie__rl_in(p, 0);
    if (p->op == GENIE__OP_POW && p->has_scalar && p->a.f[0] == 2.0) return genie__rl_in(p, 0);
    if (genie__rl_binary(p, GENIE__OP_MUL) && genie__rl_in(p, 0) == genie__rl_in(p, 1)) return genie__rl_in(p, 0);
    return NULL;
}
/* 1/sqrt(mean(x^2) + eps) and relatives ending at r (div: r is the sqrt);
   marks the chain when found. */
static int genie__rl_invstd(genie__node *raw, int is_div) {
    genie__node *r = genie__rl_skip(raw), *y, *m;
    if (!r) return 0;
    if (is_div) {
        if (r->op != GENIE__OP_SQRT || r->nin != 1) return 0;
        y = genie__rl_in(r, 0);
    } else if (r->op == GENIE__OP_RSQRT && r->nin == 1) {
        y = genie__rl_in(r, 0);
    } else if (r->op == GENIE__OP_RECIPROCAL && r->nin == 1 && genie__rl_in(r, 0) && genie__rl_in(r, 0)->op == GENIE__OP_SQRT) {
        y = genie__rl_in(genie__rl_in(r, 0), 0);
    } else {
        return 0;
    }
    m = y;
    if (y && y->op == GENIE__OP_ADD && (y->has_scalar || (y->nin == 2 && genie__rl_distinct(y->in[1].v) == 1)))
        m = genie__rl_in(y, 0);
    if (!m || !((m->op == GENIE__OP_MEAN && m->nin == 1 && genie__rl_sq(genie__rl_in(m, 0))) || (m->op == GENIE__OP_VAR && m->nin == 1)))
        return 0;
    genie__rl_mark(raw, GENIE_ROLE_NORM);
    if (r->op == GENIE__OP_RECIPROCAL) genie__rl_mark(r->in[0].n, GENIE_ROLE_NORM);
    genie__rl_mark(genie__rl_in(r, 0) == y ? r->in[0].n : genie__rl_in(r, 0)->in[0].n, GENIE_ROLE_NORM);
    if (m != y) genie__rl_mark(y->in[0].n, GENIE_ROLE_NORM);
    if (m->op == GENIE__OP_MEAN) {
        genie__node *x = genie__rl_sq(genie__rl_in(m, 0));
        genie__rl_mark(m->in[0].n, GENIE_ROLE_NORM);
        if (x && genie__rl_binary(x, GENIE__OP_SUB) && genie__rl_in(x, 1) && genie__rl_in(x, 1)->op == GENIE__OP_MEAN) {
            genie__rl_mark(x, GENIE_ROLE_NORM); /* LayerNorm: (x - mean(x))^2 */
            genie__rl_mark(x->in[1].n, GENIE_ROLE_NORM);
        }
    }
    return 1;
}
static int genie__rl_norm(genie__node *n) {
    int s;
    if (genie__op_kinds[n->op] == GENIE__K_LAYER_NORM) { n->role = GENIE_ROLE_NORM; return 1; } /* layer_norm, rms_norm */
    if (n->nin != 2 || n->has_scalar) return 0;
    if (n->op == GENIE__OP_MUL || n->op == GENIE__OP_ADD) /* the weight or bias applied to a norm */
        for (s = 0; s < 2; s++) {
            genie__node *x = genie__rl_in(n, s);
            if (x && x->role == GENIE_ROLE_NORM && genie__rl_distinct(n->in[1 - s].v) < n->numel &&
                genie__rl_distinct(n->in[s].v) == n->numel) {
                genie__rl_mark(n->in[s].n, GENIE_ROLE_NORM);
                n->role = GENIE_ROLE_NORM;
                return 1;
            }
        }
    if (n->op == GENIE__OP_MUL) {
        for (s = 0; s < 2; s++)
            if (genie__rl_invstd(n->in[s].n, 0)) break;
        if (s == 2) return 0;
    } else if (n->op == GENIE__OP_DIV) {
        if (!genie__rl_invstd(n->in[1].n, 1)) return 0;
        s = 1;
    } else {
        return 0;
    }
    { /* LayerNorm's centred input */
        genie__node *c = genie__rl_in(n, 1 - s);
        if (genie__rl_binary(c, GENIE__OP_SUB) && genie__rl_in(c, 1) && genie__rl_in(c, 1)->op == GENIE__OP_MEAN) {
            genie__rl_mark(n->in[1 - s].n, GENIE_ROLE_NORM);
            genie__rl_mark(c->in[1].n, GENIE_ROLE_NORM);
        }
    }
    n->role = GENIE_ROLE_NORM;
    return 1;
}

static int genie__rl_embedding(genie__node *n) {
    genie__node *a, *b;
    if (n->op == GENIE__OP_EMBEDDING ||
        (n->op == GENIE__OP_INDEX_SELECT && n->nin == 2 && n->a.i[0] == 0 && n->in[0].v && n->in[0].v->ndim == 2)) {
        n->role = GENIE_ROLE_EMBEDDING;
        return 1;
    }
    if (!genie__rl_binary(n, GENIE__OP_ADD)) return 0;
    a = genie__rl_in(n, 0);
    b = genie__rl_in(n, 1);
    if (!a || !b || a->role != GENIE_ROLE_EMBEDDING || b->role != GENIE_ROLE_EMBEDDING) return 0;
    genie__rl_mark(n->in[0].n, GENIE_ROLE_EMBEDDING);
    genie__rl_mark(n->in[1].n, GENIE_ROLE_EMBEDDING);
    n->role = GENIE_ROLE_EMBEDDING;
    return 1;
}
static int genie__rl_residual(genie__node *n) {
    int s;
    if (n->op != GENIE__OP_ADD || n->nin != 2 || n->has_scalar) return 0;
    for (s = 0; s < 2; s++) {
        genie__node *f = genie__rl_in(n, s);
        if (f && (f->role == GENIE_ROLE_ATTENTION || f->role == GENIE_ROLE_MLP) && genie__rl_prod(f) &&
            genie__rl_distinct(n->in[0].v) == n->numel && genie__rl_distinct(n->in[1].v) == n->numel) {
            n->role = GENIE_ROLE_RESIDUAL;
            return 1;
        }
    }
    return 0;
}
/* The output projection: a product reading an attention result. */
static int genie__rl_attn_out(genie__node *n) {
    genie__node *x = genie__rl_in(n, 0);
    if (!x || x->role != GENIE_ROLE_ATTENTION || (x->op != GENIE__OP_SDPA && !genie__rl_attn_core(x))) return 0;
    genie__rl_mark(n->in[0].n, GENIE_ROLE_ATTENTION); /* the head merge between (a copy) */
    n->role = GENIE_ROLE_ATTENTION;
    return 1;
}

/* Find roles over nodes in topological order (inputs before the nodes reading them). */
static void genie__role_find(genie__node *n) {
    int kind = genie__op_kinds[n->op];
    if (n->role) return;
    if (n->nin < 2 ? kind != GENIE__K_LAYER_NORM : n->has_scalar) return; /* ends no pattern: most nodes */
    if (n->op == GENIE__OP_SDPA && genie__rl_attention(n)) return;
    if (kind == GENIE__K_MATMUL && (genie__rl_attention(n) || genie__rl_attn_out(n) || genie__rl_mlp(n))) return;
    if (genie__rl_norm(n) || genie__rl_embedding(n)) return;
    genie__rl_residual(n);
}

/* Work by phase and role: a row per phase seen (phases are interned). */
struct genie__phase_work {
    const char *phase;
    genie_work w[GENIE_ROLE_COUNT];
};
/* Floating-point operations of a node, as usually counted: 2 per multiply-add
   of a product, about one per element of elementwise work, a few per element
   of softmax and normalizations; 0 for copies, indexing and data. */
static uint64_t genie__node_flops(const genie__node *n) {
    int kind = genie__op_kinds[n->op], i;
    const genie__vspec *a;
    uint64_t out;
    if (kind != GENIE__K_MATMUL && kind != GENIE__K_CONV2D && kind != GENIE__K_UNARY && kind != GENIE__K_BINARY &&
        kind != GENIE__K_WHERE && kind != GENIE__K_REDUCE && kind != GENIE__K_SOFTMAX && kind != GENIE__K_LAYER_NORM)
        return 0;
    if (n->nin < 1 || !(a = n->in[0].v)) return 0;
    out = (uint64_t)(n->base && n->out ? genie__numel(n->out->ndim, n->out->shape) : n->numel);
    switch (kind) {
    case GENIE__K_MATMUL: return 2 * out * (uint64_t)a->shape[a->ndim - 1] + (n->nin > 2 ? out : 0);
    case GENIE__K_CONV2D: {
        const genie__vspec *w = n->nin > 1 ? n->in[1].v : NULL;
        uint64_t k = 1;
        for (i = 1; w && i < w->ndim; i++) k *= (uint64_t)w->shape[i];
        return 2 * out * k;
    }
    case GENIE__K_UNARY: case GENIE__K_BINARY: case GENIE__K_WHERE: return out;
    case GENIE__K_REDUCE: return (uint64_t)genie__numel(a->ndim, a->shape);
    case GENIE__K_SOFTMAX: return 5 * (uint64_t)genie__numel(a->ndim, a->shape);
    default: return 8 * (uint64_t)genie__numel(a->ndim, a->shape); /* layer_norm, rms_norm */
    }
}
/* Bytes a node moves as if it ran alone: the distinct elements of its inputs, its output. */
static uint64_t genie__node_bytes(const genie__node *n) {
    uint64_t b = (uint64_t)(n->base && n->out ? genie__numel(n->out->ndim, n->out->shape) : n->numel) * genie__dt_size[n->dtype];
    int i;
    for (i = 0; i < n->nin; i++)
        if (n->in[i].n && n->in[i].v) b += (uint64_t)genie__rl_distinct(n->in[i].v) * genie__dt_size[n->in[i].n->dtype];
    return b;
}
/* The work row of a phase ("" for none); NULL when out of memory. The row of
   the last phase seen is tried first (a tape mostly runs in one phase). */
static struct genie__phase_work *genie__phase_row(genie_ctx *ctx, const char *phase) {
    int64_t i;
    if (ctx->npwork && ctx->pwork[ctx->lastpw].phase == phase) return &ctx->pwork[ctx->lastpw];
    for (i = ctx->npwork - 1; i >= 0; i--)
        if (ctx->pwork[i].phase == phase || strcmp(ctx->pwork[i].phase, phase) == 0) break;
    if (i < 0) {
        if (!genie__grow((void **)&ctx->pwork, &ctx->cappwork, ctx->npwork + 1, sizeof(struct genie__phase_work))) return NULL;
        i = ctx->npwork++;
        memset(&ctx->pwork[i], 0, sizeof(struct genie__phase_work));
        ctx->pwork[i].phase = phase;
    }
    ctx->lastpw = i;
    return &ctx->pwork[i];
}
/* Count a computed node (measured before it runs: its inputs are still attached)
   in its phase's row; genie_get_stats sums the rows by role. */
static void genie__work_add(genie_ctx *ctx, const genie__node *n, uint64_t flops, uint64_t bytes, uint64_t ns) {
    struct genie__phase_work *row = genie__phase_row(ctx, n->scope->phase);
    genie_work *w;
    if (!row) return;
    w = &row->w[n->role < GENIE_ROLE_COUNT ? n->role : 0];
    w->nodes++, w->flops += flops, w->bytes += bytes, w->ns += ns;
}

/* Roles of the pending subgraph behind n roots (done ones are leaves), walked
   in post order (topological), iteratively. 0 when out of memory. */
static int genie__roles_walk(genie_ctx *ctx, int nroots, genie__node *const *roots) {
    genie__node **stack = NULL, **list = NULL;
    int *next = NULL;
    int64_t sp = 0, caps = 0, capn = 0, nl = 0, capl = 0, i;
    uint32_t ep = ++ctx->epoch;
    int k, ok = 1;
    for (k = 0; k < nroots && ok; k++) {
        genie__node *r = roots[k];
        if (!r || r->mark == ep) continue;
        r->mark = ep;
        if (!genie__grow((void **)&stack, &caps, sp + 1, sizeof(void *)) || !genie__grow((void **)&next, &capn, sp + 1, sizeof(int))) { ok = 0; break; }
        stack[sp] = r;
        next[sp++] = 0;
        while (sp > 0 && ok) {
            genie__node *top = stack[sp - 1];
            if (next[sp - 1] < genie__node_ninputs(top)) {
                genie__node *c = genie__node_input(top, next[sp - 1]++);
                if (c->mark == ep) continue;
                c->mark = ep;
                if (!genie__grow((void **)&stack, &caps, sp + 1, sizeof(void *)) || !genie__grow((void **)&next, &capn, sp + 1, sizeof(int))) { ok = 0; break; }
                stack[sp] = c;
                next[sp++] = 0;
            } else {
                if (!genie__grow((void **)&list, &capl, nl + 1, sizeof(void *))) { ok = 0; break; }
                list[nl++] = top;
                sp--;
            }
        }
    }
    for (i = 0; ok && i < nl; i++) genie__role_find(list[i]);
    GENIE_FREE(stack);
    GENIE_FREE(next);
    GENIE_FREE(list);
    return ok;
}

/* >>tape ------------------------------------------------------------------ */
/* Kernel parameters: the node (inputs, output view, arguments) and room for a
   data-dependent error message. Kernels are shaped (params, ith, nth): thread
   ith of nth does its share; this version's executor runs (0, 1). */
struct genie__tpool;
struct genie__mm_plan;
struct genie__fgroup;
/* A product fused into a later node through the GEMM's epilogue: n = [res +]
   act(prod) with prod a matmul/linear read by nothing else. */
typedef struct genie__epi_src {
    struct genie__node *prod;      /* the product (its inputs are read) */
    int act;                       /* 0 or the unary op applied */
    int act_last;                  /* 1: act(p + res), else act(p) + res */
    struct genie__node *res;       /* the residual added, or NULL */
    const struct genie__vspec *res_v;
} genie__epi_src;
typedef struct genie__kparams {
    genie__node *n;
    const struct genie__mm_plan *plan; /* packed products: the plan, its workspace and threads */
    const struct genie__fgroup *fg;    /* fused elementwise groups */
    const struct genie__epi_src *epi;  /* a product computed into n with an epilogue (n's inputs unused) */
    long next;                         /* chunks handed out (genie__take) */
    char *ws;
    struct genie__tpool *pool;
    char msg[256];
} genie__kparams;
typedef genie_result (*genie__kernel)(genie__kparams *p, int ith, int nth);
static genie__kernel genie__kernel_for(int kind);
static genie_result genie__k_index(genie__kparams *p, int ith, int nth);
static genie__kernel genie__fast_kernel(genie_ctx *ctx, genie__kparams *p, int *nth);
static genie_result genie__tpool_run(struct genie__tpool *pool, genie__kernel fn, genie__kparams *p, int nth);
static void genie__tpool_destroy(struct genie__tpool *pool);
static struct genie__tpool *genie__tpool_get(genie_ctx *ctx, int nth);
static int genie__tpool_size(const struct genie__tpool *pool);
static void genie__barrier(struct genie__tpool *pool, int nth);
static int genie__ctx_threads(const genie_ctx *ctx);
static int genie__ws_reserve(genie_ctx *ctx, size_t bytes);
static int genie__fusable(const genie__node *n);
static int genie__groupable(const genie__node *n, int cpu);
static void genie__exec_group(genie_ctx *ctx, struct genie__fgroup *g);

/* One tape entry (seed 003): the node, how many later entries read it, and how it runs
   (inside a group, as a group's root, as a product's epilogue, taking an input's buffer). */
typedef struct genie__tape_op { /* 64 bytes: each pass over a long tape reads a line an entry */
    genie__node *n;
    int32_t uses;              /* references from later nodes of this tape */
    int32_t take;              /* planned: the input whose dying buffer n's output takes, -1 */
    union {
        struct genie__fgroup *built; /* the group this node is the root of (planned now) */
        const char *kept;            /* or (fg_kept): as kept by the tape cache, bound when it runs */
    } fg;
    uint8_t inner;             /* computed inside a fused group (written only if readable later) */
    uint8_t fg_kept;
    genie__epi_src epi;        /* epi.prod: this node is a product with an epilogue */
} genie__tape_op;
GENIE__STATIC_ASSERT(tape_op_line, sizeof(genie__tape_op) <= 64);
/* The planner's view of a tape entry (genie__plan), apart: a tape-cache hit never needs it. */
typedef struct genie__plan_op {
    int64_t last, xpos;         /* the last position reading n; where n runs (a group's root's) */
    int64_t die_head, die_next; /* temporaries whose last reader runs here; the next of them */
    uint64_t counted, alloc_at; /* bytes of n's buffer in the bound; inner buffers made here */
} genie__plan_op;
static void genie__fgroup_mark(const struct genie__fgroup *g, genie__tape_op *tape);
static struct genie__fgroup *genie__fgroup_build(genie__node *r, const genie__tape_op *tape, int cpu);
static void genie__exec_epi(genie_ctx *ctx, genie__tape_op *t);
static int genie__epi_match(genie__tape_op *tape, genie__node *x);
static int genie__be_node(genie_ctx *ctx, genie__node *n, int take);
static int genie__be_group(genie_ctx *ctx, struct genie__fgroup *g);

/* Kernels that write every element of their (fresh) output need no zeroed buffer. */
static int genie__writes_all(int op) {
    int k = genie__op_kinds[op];
    return k == GENIE__K_MATMUL || k == GENIE__K_CONV2D || k == GENIE__K_ROPE || k == GENIE__K_ATTENTION ||
           k == GENIE__K_CUMSUM || k == GENIE__K_SCATTER;
}
static int genie__node_ninputs(const genie__node *n) { return n->nin + (n->base ? 1 : 0); }
/* Ask for the lines of a node a pass over a tape will read soon: a tape of 100,000
   nodes (18 MB) is out of cache, and each pass would otherwise wait at every node. */
static void genie__prefetch_node(const genie__node *n) {
    GENIE__PREFETCH(n);
    GENIE__PREFETCH((const char *)n + 64);
    GENIE__PREFETCH((const char *)n + 128);
}
static genie__node *genie__node_input(const genie__node *n, int i) { return i < n->nin ? n->in[i].n : n->base; }

/* May the node write into its base's buffer? Only when nothing else needs the
   old version: the base is referenced by this node alone (as base and as the
   same-view self input), and its buffer by the base alone, and it is ours. */
static int genie__can_reuse(const genie__node *n) {
    genie__node *b = n->base;
    int i, own = 1;
    if (!b->buf || b->buf->external || b->buf->refs != 1) return 0;
    for (i = 0; i < n->nin; i++)
        if (n->in[i].n == b) {
            if (!genie__vspec_equal(n->in[i].v, n->out)) return 0;
            own++;
        }
    return b->refs == own;
}

/* The buffer planner (issue 7, part 4).
   Which buffers may be recycled inside a tape: a value outlives the tape when
   anything outside it can still read it: a handle (its storage's version is the
   node: genie_data borrowers read through their handle, so they count here), a
   pending node outside the tape, or a root. All of these hold node references,
   so before the tape runs (the tape holding one reference on each of its nodes)
   a tape node is a temporary exactly when refs == 1 + the edges (inputs and
   base) from later tape nodes; its last reader is the last of those, and
   reference counting frees its buffer right after that reader ran
   (genie__node_drop_inputs). genie__plan finds them and, for each node, whether
   its output can be written into the buffer of an input that dies there:
     - an in-place write (node with a base): genie__can_reuse, decided when it
       runs, as before (the base's buffer when the old version dies there);
     - an elementwise kernel (unary, binary, where, masked_fill, tril/triu, a
       same-dtype copy) whose dying input has the output's dtype and size and is
       read only through exactly the output's view, a dense view of the whole
       buffer: every element is read before the same element is written, and
       every element is written, so no zeroing is needed (genie__can_take).
   Nothing else is in place: a value that outlives the tape keeps its buffer,
   and fused groups and product epilogues (>>fuse) take fresh blocks for the
   nodes they write (their inner nodes that nothing can read get none at all;
   the plan counts them where their group runs).
   Where the memory comes from: every buffer, temporary or not, comes from the
   context's cache of freed blocks by size class (>>memory), so there is no
   arena to pin: a buffer that outlives the tape is an ordinary block that goes
   back to the cache whenever its last reference goes, and a temporary goes back
   during the tape and serves a later node of its size class at once. Recycled
   memory holds old values: genie__exec zeroes every new output, whatever the
   block's origin, unless its kernel writes every element: the products
   (genie__writes_all) and elementwise kernels over a dense view of the whole
   buffer (genie__eltwise_whole; tests/test_planner.c runs 24 operations in a
   context full of dirty recycled blocks against a fresh one).
   Statistics: tape_bound_bytes is the most bytes that must be live at one step
   of the tape: the buffers of earlier tape nodes still to be read at or after
   the step or that outlive the tape, plus the step's output unless it takes
   the buffer of an input dying there (or of a base that was computed before the
   tape: counted as reusable, so the bound stays a lower bound). Buffers of
   values computed before the tape are not counted. tape_peak_bytes is what the
   run held at most in buffers it allocated, in block sizes (>= the bound; equal
   when every size is a class size and every in-place write reused its base). */

/* An elementwise kernel (one output element from the same element of each
   input, every element of its view written) over a dense view of its whole
   buffer, not an in-place write: it needs no zeroed buffer, and may write into
   a dying input read through the same view. */
static int genie__eltwise_whole(const genie__node *n) {
    const genie__vspec *o = n->out;
    int kind = genie__op_kinds[n->op];
    if (n->base || (kind != GENIE__K_UNARY && kind != GENIE__K_BINARY && kind != GENIE__K_WHERE &&
                    kind != GENIE__K_MASKED_FILL && kind != GENIE__K_TRI && kind != GENIE__K_COPY &&
                    kind != GENIE__K_FULL && kind != GENIE__K_ARANGE && kind != GENIE__K_RAND)) return 0;
    return o->off == 0 && genie__numel(o->ndim, o->shape) == n->numel && genie__is_dense(o->ndim, o->shape, o->strides);
}
/* Reductions, softmax and layer_norm write every element of a dense output
   (reference and fast kernels alike): no zeroed buffer either. */
static int genie__rowwise_whole(const genie__node *n) {
    const genie__vspec *o = n->out;
    int kind = genie__op_kinds[n->op];
    if (n->base || (kind != GENIE__K_REDUCE && kind != GENIE__K_SOFTMAX && kind != GENIE__K_LAYER_NORM)) return 0;
    return o->off == 0 && genie__numel(o->ndim, o->shape) == n->numel && genie__is_dense(o->ndim, o->shape, o->strides);
}
/* May n write its output in the buffer of input k (when k dies at n)? */
static int genie__can_take(const genie__node *n, int k) {
    const genie__node *x = n->in[k].n;
    int i;
    if (!x || x->dtype != n->dtype || x->numel != n->numel || n->numel == 0 || !genie__eltwise_whole(n)) return 0;
    for (i = 0; i < n->nin; i++)
        if (n->in[i].n == x && !genie__vspec_equal(n->in[i].v, n->out)) return 0;
    return 1;
}
/* When n runs: does input k die here, its buffer ours and unshared? */
static int genie__take_ok(const genie__node *n, int k) {
    const genie__node *x = n->in[k].n;
    int i, own = 0;
    if (x->state != GENIE__DONE || !x->buf || x->buf->external || x->buf->refs != 1) return 0;
    for (i = 0; i < n->nin; i++) own += n->in[i].n == x;
    return x->refs == own;
}

/* Plan the tape (its nodes marked ep and numbered by tix, each held once by the
   tape, fusion decided): where each node runs (an inner node of a fused group or
   product epilogue runs with its consumer, and has a buffer only when it
   outlives the tape), its last reader, its in-place take, and the liveness
   bound, stepping through the places where something runs. */
static int genie__plan(genie_ctx *ctx, genie__tape_op *tape, int64_t ntape, uint32_t ep) {
    uint64_t live = 0, bound = 0;
    int64_t i, c;
    int j, k;
    genie__plan_op *pl = (genie__plan_op *)GENIE_MALLOC((size_t)ntape * sizeof *pl);
#define GENIE__IN_TAPE(c) ((c) && (c)->mark == ep && (c)->state == GENIE__PENDING)
#define GENIE__TEMP(i) (tape[i].n->refs == tape[i].uses + 1)
    for (i = 0; i < ntape; i++) tape[i].take = -1;
    if (!pl) { /* no takes: each output gets a buffer of its own */
        ctx->stats.tape_bound_bytes = 0;
        return 0;
    }
    for (i = 0; i < ntape; i++) {
        pl[i].last = pl[i].die_head = pl[i].die_next = -1;
        pl[i].xpos = i;
        pl[i].counted = pl[i].alloc_at = 0;
    }
    for (i = ntape - 1; i >= 0; i--) /* an inner node runs where its (only) consumer runs */
        for (j = 0; j < genie__node_ninputs(tape[i].n); j++) {
            genie__node *x = genie__node_input(tape[i].n, j);
            if (GENIE__IN_TAPE(x) && tape[x->tix].inner) pl[x->tix].xpos = pl[i].xpos;
        }
    for (i = 0; i < ntape; i++)
        for (j = 0; j < genie__node_ninputs(tape[i].n); j++) {
            genie__node *x = genie__node_input(tape[i].n, j);
            if (GENIE__IN_TAPE(x) && pl[i].xpos > pl[x->tix].last) pl[x->tix].last = pl[i].xpos;
        }
    for (i = ntape - 1; i >= 0; i--) { /* temporaries by the place of their last reader */
        genie__plan_op *t = &pl[i];
        if (t->last >= 0 && GENIE__TEMP(i)) {
            t->die_next = pl[t->last].die_head;
            pl[t->last].die_head = i;
        }
        if (tape[i].inner && !GENIE__TEMP(i)) { /* a written inner node: made where its group runs */
            t->counted = (uint64_t)tape[i].n->numel * genie__dt_size[tape[i].n->dtype];
            pl[t->xpos].alloc_at += t->counted;
        }
    }
    for (i = 0; i < ntape; i++) {
        genie__node *n = tape[i].n, *donor = NULL;
        uint64_t bytes = (uint64_t)n->numel * genie__dt_size[n->dtype];
        if (tape[i].inner) continue;
        if (n->base) {
            genie__node *b = n->base;
            if (!GENIE__IN_TAPE(b)) bytes = 0; /* computed before: assumed reusable (a lower bound) */
            else if (GENIE__TEMP(b->tix) && pl[b->tix].last == i && !tape[b->tix].inner) {
                for (k = 0; k < n->nin; k++)
                    if (n->in[k].n == b && !genie__vspec_equal(n->in[k].v, n->out)) break;
                if (k == n->nin) donor = b;
            }
        } else if (!tape[i].fg.built && !tape[i].epi.prod) { /* genie__exec runs it */
            for (k = 0; k < n->nin && !donor; k++) {
                genie__node *x = n->in[k].n;
                if (GENIE__IN_TAPE(x) && !tape[x->tix].inner && GENIE__TEMP(x->tix) && pl[x->tix].last == i &&
                    genie__can_take(n, k)) {
                    donor = x;
                    tape[i].take = k;
                }
            }
        }
        if (donor) {
            pl[i].counted = pl[donor->tix].counted;
            pl[donor->tix].counted = 0;
        } else {
            pl[i].counted = bytes;
            live += bytes;
        }
        live += pl[i].alloc_at;
        if (live > bound) bound = live;
        for (c = pl[i].die_head; c >= 0; c = pl[c].die_next) { /* buffers freed after this place */
            live -= pl[c].counted;
            pl[c].counted = 0;
        }
    }
#undef GENIE__IN_TAPE
#undef GENIE__TEMP
    GENIE_FREE(pl);
    ctx->stats.tape_bound_bytes = bound;
    return 1;
}

static void genie__exec(genie_ctx *ctx, genie__node *n, int take) {
    genie__kparams p;
    size_t esz = genie__dt_size[n->dtype];
    int i, failed = 0;
    genie_result r;
    for (i = 0; i < genie__node_ninputs(n); i++) {
        genie__node *in = genie__node_input(n, i);
        GENIE_ASSERT(in->state != GENIE__PENDING); /* the tape is in topological order */
        if (in->state == GENIE__FAILED) { n->err_code = in->err_code; failed = 1; break; }
    }
    if (!failed && ctx->be && n->inplace != 2 && genie__be_node(ctx, n, take)) return; /* done on the device (or failed there) */
    if (!failed) {
        if (n->base && genie__can_reuse(n)) {
            n->buf = n->base->buf;
            if (n->buf->pk) genie__pk_drop(ctx, n->buf); /* about to be written */
            n->buf->refs++;
            ctx->stats.inplace_reused++;
        } else if (take >= 0 && genie__take_ok(n, take)) { /* planned: the input dies here */
            n->buf = n->in[take].n->buf;
            if (n->buf->pk) genie__pk_drop(ctx, n->buf);
            n->buf->refs++;
            ctx->stats.tape_inplace++;
        } else {
            n->buf = genie__buf_new(ctx, (size_t)n->numel * esz);
            if (!n->buf) {
                genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory for %lld elements",
                            genie__op_names[n->op], (long long)n->numel);
                n->err_code = (uint8_t)-GENIE_ERR_OOM;
                failed = 1;
            } else if (n->base) {
                memcpy(n->buf->data, n->base->buf->data, (size_t)n->numel * esz);
                ctx->stats.inplace_copied++;
            } else if (!genie__writes_all(n->op) && !genie__eltwise_whole(n) && !genie__rowwise_whole(n)) {
                memset(n->buf->data, 0, (size_t)n->numel * esz);
            }
        }
    }
    if (!failed) {
        genie__kernel fn;
        int nth = 1;
        GENIE_ASSERT(n->buf && n->out && genie__view_extent(n->out) <= n->numel); /* writes stay in the buffer */
        memset(&p, 0, sizeof p);
        p.n = n;
        if (genie__numel(n->out->ndim, n->out->shape) == 0) { /* nothing to write: no kernel loops */
            r = GENIE_OK;                                       /* over the other dims, however large, */
            if (n->op == GENIE__OP_INDEX_SELECT || n->op == GENIE__OP_EMBEDDING) /* but ATen checks */
                r = genie__k_index(&p, 0, 1); /* every index: a loop over the index tensor alone */
        } else {
            fn = n->inplace == 2 ? NULL : genie__fast_kernel(ctx, &p, &nth); /* 2: the reference's order decides */
            if (!fn) fn = genie__kernel_for(genie__op_kinds[n->op]);
            r = p.msg[0] ? GENIE_ERR_OOM : genie__tpool_run(p.pool, fn, &p, nth);
        }
        ctx->stats.nodes_executed++;
        n->buf->loc = GENIE__ON_HOST; /* a device copy of a reused buffer is stale now */
        if (r != GENIE_OK) {
            genie__fail(ctx, r, "%s", p.msg);
            n->err_code = (uint8_t)-r;
            genie__buf_release(ctx, n->buf);
            n->buf = NULL;
            failed = 1;
        }
    }
    n->state = (uint8_t)(failed ? GENIE__FAILED : GENIE__DONE);
    if (failed) ctx->stats.nodes_failed++;
    genie__node_drop_inputs(ctx, n);
}

/* ---- the tape cache (issue 7, part 5) ----
   A realize walks the graph into a tape, then plans it: fusion groups, product
   epilogues, in-place takes, the liveness bound. The plan depends only on the
   tape's structure, so it is kept under a key that spells that structure out
   (genie__tkey_build) and a 64-bit hash of it; a later tape with an equal key
   (compared in full, behind the hash) takes the plan and plans nothing.
   The key, per tape node: operation, dtypes, whether it has a scalar operand,
   whether anything beyond the tape can read it (a handle, a later realize: it
   decides what a group writes), its buffer size and output view, integer
   arguments of non-elementwise operations (dims, sizes), and each input as
   "node t of this tape" or "constant c" (numbered by first use, so the same
   constant read twice is told from two constants) with its dtype and view.
   Never scalar values (a decode step's position, a learning rate: rebound from
   the nodes when the plan is applied), never data or addresses. The context's
   CPU path is part of the key (the reference path fuses nothing).
   Groups are kept as templates: the group struct with its node pointers
   replaced on each use by tape positions (nodes[j]) and input slots (src[k] is
   input src_i of nodes[src_j]); scalar arguments are copied from the nodes.
   Memory: at most GENIE_TAPE_CACHE_BYTES (default 16 MiB) per context, least
   recently used entries evicted; a tape whose plan is bigger is not kept. */
#ifndef GENIE_TAPE_CACHE_BYTES
#define GENIE_TAPE_CACHE_BYTES (16u << 20)
#endif
typedef struct genie__tc_op {
    int32_t take, fg, prod, res; /* planned take; the group's record (byte offset) or -1; epilogue
                                    product (tape position) or -1 and the residual's input slot or -1 */
    int16_t act;
    uint8_t inner, act_last;
} genie__tc_op;
typedef struct genie__tc_entry {
    struct genie__tc_entry *next;
    uint64_t hash, bound, bytes;
    int64_t nkey, ntape;
    uint64_t *key;
    genie__tc_op *ops;
    char *fgs;                 /* the groups' compact records (ops[i].fg: a byte offset) */
} genie__tc_entry;
static size_t genie__tc_fg_bytes(const struct genie__fgroup *g);
static void genie__tc_fg_save(char *rec, const struct genie__fgroup *g);
static struct genie__fgroup *genie__tc_fg_bind(const char *rec, const genie__tape_op *tape, struct genie__fgroup *g);
static size_t genie__fgroup_size(void);

/* Monotonic nanoseconds for the statistics; 0 without a clock. */
static uint64_t genie__now_ns(void) {
#if defined(_WIN32) && !defined(GENIE_NO_THREADS)
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (uint64_t)((double)c.QuadPart * (1e9 / (double)f.QuadPart));
#elif defined(CLOCK_MONOTONIC)
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#else
    return 0;
#endif
}

static void genie__tc_entry_free(genie__tc_entry *e) {
    if (!e) return;
    GENIE_FREE(e->key);
    GENIE_FREE(e->ops);
    GENIE_FREE(e->fgs);
    GENIE_FREE(e);
}
static void genie__tc_flush(genie_ctx *ctx) {
    while (ctx->tcache) {
        genie__tc_entry *e = ctx->tcache;
        ctx->tcache = e->next;
        genie__tc_entry_free(e);
    }
    ctx->tc_bytes = 0;
}
/* A view in the key: packed (a word a dim) where every shape and stride fits in 32
   bits; the first word's bit 8 tells the two forms apart, so the key stays exact. */
#define GENIE__TK_VIEW(k, w, v)                                                                    \
    do {                                                                                           \
        int d_, p_ = (v)->off >= 0 && (v)->off < ((int64_t)1 << 54);                               \
        for (d_ = 0; p_ && d_ < (v)->ndim; d_++)                                                   \
            p_ = (v)->shape[d_] < ((int64_t)1 << 32) && (v)->strides[d_] == (int32_t)(v)->strides[d_]; \
        if (p_) { /* packed: ndim, 1, off in one word; a word a dim */                             \
            (k)[(w)++] = (uint64_t)(v)->ndim | (uint64_t)1 << 8 | (uint64_t)(v)->off << 9;         \
            for (d_ = 0; d_ < (v)->ndim; d_++)                                                     \
                (k)[(w)++] = (uint64_t)(v)->shape[d_] << 32 | (uint32_t)(int32_t)(v)->strides[d_]; \
        } else { /* ndim, 0; off; shape and stride words */                                        \
            (k)[(w)++] = (uint64_t)(v)->ndim;                                                      \
            (k)[(w)++] = (uint64_t)(v)->off;                                                       \
            for (d_ = 0; d_ < (v)->ndim; d_++) {                                                   \
                (k)[(w)++] = (uint64_t)(v)->shape[d_];                                             \
                (k)[(w)++] = (uint64_t)(v)->strides[d_];                                           \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* The tape's key into ctx->tkey; its length in words, -1 out of memory.
   Constants get numbers through a fresh epoch (their mark; tix holds the number).
   A view already in the key is not written again: an input read through its tape
   producer's own output view (the same vspec) says so by bit 62 of its reference,
   and an output view that is the first input's by bit 35 of the node's word. The
   key stays exact (every view can be read back from it); a tape that shares fewer
   vspecs than an equal one only misses. A chain's node is then 3 words, not 7. */
static int64_t genie__tkey_build(genie_ctx *ctx, const genie__tape_op *tape, int64_t ntape, uint32_t ep) {
    uint32_t cep = ++ctx->epoch;
    int64_t i, w = 0, nconst = 0;
    uint64_t *k = ctx->tkey;
    if (!k && !genie__grow((void **)&ctx->tkey, &ctx->captkey, 4096, sizeof(uint64_t))) return -1;
    k = ctx->tkey;
    k[w++] = (uint64_t)ctx->cpu;
    k[w++] = (uint64_t)ntape;
    for (i = 0; i < ntape; i++) {
        const genie__node *n = tape[i].n;
        int j, nin, kind;
        if (i + 8 < ntape) genie__prefetch_node(tape[i + 8].n); /* a long tape's nodes are out of cache */
        nin = genie__node_ninputs(n), kind = genie__op_kinds[n->op];
        int same_out = n->nin > 0 && n->out == n->in[0].v; /* the output view is the first input's */
        int64_t need = w + 8 + 4 * GENIE__MAXD + (int64_t)nin * (3 + 2 * GENIE__MAXD) + GENIE__NARGI;
        if (need > ctx->captkey) {
            if (!genie__grow((void **)&ctx->tkey, &ctx->captkey, need, sizeof(uint64_t))) return -1;
            k = ctx->tkey;
        }
        k[w++] = (uint64_t)n->op | (uint64_t)n->dtype << 16 | (uint64_t)n->cdt << 24 | (uint64_t)n->has_scalar << 32 |
                 (uint64_t)(n->refs != tape[i].uses + 1) << 33 | (uint64_t)(n->base != NULL) << 34 |
                 (uint64_t)same_out << 35 | (uint64_t)(uint32_t)nin << 40;
        k[w++] = (uint64_t)n->numel;
        if (!same_out) GENIE__TK_VIEW(k, w, n->out);
        if (kind != GENIE__K_UNARY && kind != GENIE__K_BINARY) {
            memcpy(k + w, n->a.i, sizeof n->a.i);
            w += (int64_t)(sizeof n->a.i / sizeof(uint64_t));
        }
        for (j = 0; j < nin; j++) {
            genie__node *x = genie__node_input(n, j);
            if (x->mark == ep && x->state == GENIE__PENDING) {
                int own = j < n->nin && n->in[j].v == x->out; /* x's output view: in the key */
                k[w++] = (uint64_t)x->tix | (uint64_t)own << 62;
                if (own) continue;
            } else {
                if (x->mark != cep) { x->mark = cep; x->tix = (uint32_t)nconst++; }
                k[w++] = (uint64_t)1 << 63 | (uint64_t)x->dtype << 32 | x->tix;
            }
            if (j < n->nin) GENIE__TK_VIEW(k, w, n->in[j].v);
        }
    }
    return w;
}
#undef GENIE__TK_VIEW
/* Four independent multiply-xor lanes (about a word per cycle), then mixed. */
static uint64_t genie__tkey_hash(const uint64_t *k, int64_t n) {
    uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull}, r;
    int64_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        h[0] = (h[0] ^ k[i]) * 0xff51afd7ed558ccdull;
        h[1] = (h[1] ^ k[i + 1]) * 0xc4ceb9fe1a85ec53ull;
        h[2] = (h[2] ^ k[i + 2]) * 0xff51afd7ed558ccdull;
        h[3] = (h[3] ^ k[i + 3]) * 0xc4ceb9fe1a85ec53ull;
    }
    for (; i < n; i++) h[i & 3] = (h[i & 3] ^ k[i]) * 0xff51afd7ed558ccdull;
    r = h[0] ^ (h[1] >> 29 | h[1] << 35) ^ (h[2] >> 17 | h[2] << 47) ^ (h[3] >> 41 | h[3] << 23) ^ (uint64_t)n;
    r = (r ^ (r >> 33)) * 0xff51afd7ed558ccdull;
    return r ^ (r >> 33);
}
/* The entry with this key (moved to the front), or NULL; *hash: the key's hash. The
   newest entry (a loop's step repeats it) is compared first, with no hash to compute. */
static genie__tc_entry *genie__tc_find(genie_ctx *ctx, const uint64_t *key, int64_t nkey, uint64_t *hash) {
    genie__tc_entry **pp, *newest = ctx->tcache;
    if (newest && newest->nkey == nkey && memcmp(newest->key, key, (size_t)nkey * sizeof(uint64_t)) == 0) {
        *hash = newest->hash;
        return newest;
    }
    *hash = genie__tkey_hash(key, nkey) & ctx->tc_mask;
    for (pp = &ctx->tcache; *pp; pp = &(*pp)->next) {
        genie__tc_entry *e = *pp;
        if (e->hash != *hash || e->nkey != nkey || memcmp(e->key, key, (size_t)nkey * sizeof(uint64_t)) != 0) continue;
        *pp = e->next;
        e->next = ctx->tcache;
        ctx->tcache = e;
        return e;
    }
    return NULL;
}
/* A loop's step realizes the newest entry's structure again, and its compute has
   evicted that entry and the key array since: ask for their first lines (16 KiB of
   each at most) before the walk, so that they arrive while it runs (the encoder
   block's tape cache hit: 0.70 -> 0.45 us, about 30 misses each of the key's build
   and comparison). Prefetches only: nothing is read or written here. */
static void genie__tc_prefetch(const genie_ctx *ctx) {
    const genie__tc_entry *e = ctx->tcache;
    size_t l, nk, no, nw;
    if (!e) return;
    nk = (size_t)e->nkey * 8, no = (size_t)e->ntape * sizeof(genie__tc_op), nw = (size_t)ctx->captkey * 8;
    nk = nk < 16384 ? nk : 16384, no = no < 16384 ? no : 16384, nw = nw < nk ? nw : nk;
    for (l = 0; l < nk; l += 64) GENIE__PREFETCH((const char *)e->key + l);
    for (l = 0; l < nw; l += 64) GENIE__PREFETCH_W((const char *)ctx->tkey + l);
    for (l = 0; l < no; l += 64) GENIE__PREFETCH((const char *)e->ops + l);
}
/* Apply a kept plan to this tape: groups as records, bound when they run (into
   the context's one scratch group), epilogues and takes copied. 0: no memory
   for the scratch group (the tape is then planned as usual). */
static int genie__tc_apply(genie_ctx *ctx, genie__tc_entry *e, genie__tape_op *tape, int64_t ntape) {
    int64_t i;
    if (e->fgs && !ctx->fg_scratch && !(ctx->fg_scratch = (struct genie__fgroup *)GENIE_MALLOC(genie__fgroup_size())))
        return 0;
    for (i = 0; i < ntape; i++) {
        const genie__tc_op *o = &e->ops[i];
        genie__tape_op *t = &tape[i];
        t->inner = o->inner;
        t->take = o->take;
        if (o->fg >= 0) t->fg.kept = e->fgs + o->fg, t->fg_kept = 1;
        if (o->prod >= 0) {
            const genie__node *rn = o->act_last ? t->n->in[0].n : t->n; /* the residual's reader: act(p + r)'s add */
            t->epi.prod = tape[o->prod].n;
            t->epi.act = o->act;
            t->epi.act_last = o->act_last;
            t->epi.res = o->res >= 0 ? rn->in[o->res].n : NULL;
            t->epi.res_v = o->res >= 0 ? rn->in[o->res].v : NULL;
        }
    }
    ctx->stats.tape_bound_bytes = e->bound;
    return 1;
}
/* Keep this tape's plan (after fusion and genie__plan); nothing on failure. */
static void genie__tc_store(genie_ctx *ctx, uint64_t hash, const uint64_t *key, int64_t nkey,
                            const genie__tape_op *tape, int64_t ntape) {
    genie__tc_entry *e, **pp;
    int64_t i;
    size_t nfgb = 0, at = 0;
    uint64_t bytes;
    for (i = 0; i < ntape; i++) nfgb += tape[i].fg.built ? genie__tc_fg_bytes(tape[i].fg.built) : 0;
    bytes = sizeof(genie__tc_entry) + (uint64_t)nkey * 8 + (uint64_t)ntape * sizeof(genie__tc_op) + nfgb;
    if (bytes > GENIE_TAPE_CACHE_BYTES) return;
    while (ctx->tcache && ctx->tc_bytes + bytes > GENIE_TAPE_CACHE_BYTES) { /* evict the least recent */
        for (pp = &ctx->tcache; (*pp)->next; pp = &(*pp)->next) {}
        ctx->tc_bytes -= (*pp)->bytes;
        genie__tc_entry_free(*pp);
        *pp = NULL;
    }
    if (!(e = (genie__tc_entry *)GENIE_MALLOC(sizeof *e))) return;
    memset(e, 0, sizeof *e);
    e->key = (uint64_t *)GENIE_MALLOC((size_t)nkey * 8);
    e->ops = (genie__tc_op *)GENIE_MALLOC((size_t)ntape * sizeof(genie__tc_op));
    e->fgs = nfgb ? (char *)GENIE_MALLOC(nfgb) : NULL;
    if (!e->key || !e->ops || (nfgb && !e->fgs)) { genie__tc_entry_free(e); return; }
    memcpy(e->key, key, (size_t)nkey * 8);
    e->hash = hash, e->nkey = nkey, e->ntape = ntape, e->bytes = bytes;
    e->bound = ctx->stats.tape_bound_bytes;
    for (i = 0; i < ntape; i++) {
        const genie__tape_op *t = &tape[i];
        genie__tc_op *o = &e->ops[i];
        int s;
        memset(o, 0, sizeof *o);
        o->inner = (uint8_t)t->inner;
        o->take = t->take;
        o->fg = o->prod = o->res = -1;
        if (t->fg.built) {
            genie__tc_fg_save(e->fgs + at, t->fg.built);
            o->fg = (int32_t)at;
            at += genie__tc_fg_bytes(t->fg.built);
        }
        if (t->epi.prod) {
            const genie__node *rn = t->epi.act_last ? t->n->in[0].n : t->n; /* the residual's reader */
            o->prod = (int32_t)t->epi.prod->tix;
            o->act = (int16_t)t->epi.act;
            o->act_last = (uint8_t)t->epi.act_last;
            for (s = 0; t->epi.res && s < rn->nin; s++)
                if (rn->in[s].n == t->epi.res && rn->in[s].v == t->epi.res_v) o->res = s;
        }
    }
    e->next = ctx->tcache;
    ctx->tcache = e;
    ctx->tc_bytes += bytes;
}

/* Realize nodes: walk back iteratively (explicit stack, no recursion) over
   what is not yet computed, in post order (a topological tape), then run it.
   Returns the first failure among the roots. */
/* Realize's arrays back to the context for the next realize, or freed where a nested
   realize gave its own back first, or where they hold more than 32 MiB (84 bytes a node
   at most, capacities doubled: a walk of up to 262,144 nodes is kept). */
#define GENIE__WALK_KEEP_BYTES ((uint64_t)32 << 20)
static void genie__walk_keep(genie_ctx *ctx, genie__node **stack, int64_t capstack, int *next, int64_t capnext,
                             genie__tape_op *tape, int64_t captape, genie__node **dfree, int64_t capfree) {
    if ((uint64_t)capstack * sizeof *stack + (uint64_t)capnext * sizeof *next + (uint64_t)captape * sizeof *tape +
        (uint64_t)capfree * sizeof *dfree > GENIE__WALK_KEEP_BYTES) {
        GENIE_FREE(stack);
        GENIE_FREE(next);
        GENIE_FREE(tape);
        GENIE_FREE(dfree);
        return;
    }
    if (ctx->wk_free) GENIE_FREE(dfree);
    else ctx->wk_free = dfree, ctx->capwk_free = capfree;
    if (ctx->wk_stack) GENIE_FREE(stack);
    else ctx->wk_stack = stack, ctx->capwk_stack = capstack;
    if (ctx->wk_next) GENIE_FREE(next);
    else ctx->wk_next = next, ctx->capwk_next = capnext;
    if (ctx->wk_tape) GENIE_FREE(tape);
    else ctx->wk_tape = tape, ctx->capwk_tape = captape;
}
static genie_result genie__realize_nodes(genie_ctx *ctx, int nroots, genie__node *const *roots) {
    genie__node **stack = ctx->wk_stack;
    int *next = ctx->wk_next;
    genie__tape_op *tape = ctx->wk_tape;
    genie__node **dfree = ctx->wk_free, **outer_free;
    int64_t sp = 0, capstack = ctx->capwk_stack, capnext = ctx->capwk_next, ntape = 0, captape = ctx->capwk_tape, i;
    int64_t capfree = ctx->capwk_free, had_free = capfree, outer_nfree; /* dfree: all NULL up to capfree */
    genie_result res = GENIE_OK;
    uint32_t ep = ++ctx->epoch;
    int k;
    ctx->wk_stack = NULL, ctx->wk_next = NULL, ctx->wk_tape = NULL; /* ours until the end (a nested */
    ctx->capwk_stack = ctx->capwk_next = ctx->capwk_tape = 0;        /* realize starts afresh) */
    ctx->wk_free = NULL, ctx->capwk_free = 0;
    genie__tc_prefetch(ctx);
    for (k = 0; k < nroots; k++) {
        genie__node *r = roots[k];
        if (r->state != GENIE__PENDING || r->mark == ep) continue;
        r->mark = ep;
        if (!genie__grow((void **)&stack, &capstack, sp + 1, sizeof(void *)) ||
            !genie__grow((void **)&next, &capnext, sp + 1, sizeof(int))) goto oom;
        stack[sp] = r;
        next[sp++] = 0;
        while (sp > 0) {
            genie__node *top = stack[sp - 1];
            if (next[sp - 1] < genie__node_ninputs(top)) {
                genie__node *c = genie__node_input(top, next[sp - 1]++);
                if (c->state != GENIE__PENDING || c->mark == ep) continue;
                c->mark = ep;
                { /* the walk is a pointer chase, but capture takes nodes from a slab's free
                     list, which runs through it in one direction: a chain's nodes lie a stride
                     apart, and the nodes 4 strides on are the walk's next ones */
                    intptr_t stride = (intptr_t)((uintptr_t)c - (uintptr_t)top);
                    if (stride >= -4 * (intptr_t)sizeof(genie__node) && stride <= 4 * (intptr_t)sizeof(genie__node)) {
                        uintptr_t ahead = (uintptr_t)c + (uintptr_t)(4 * stride); /* an address only: never read */
                        GENIE__PREFETCH((const void *)ahead);
                        GENIE__PREFETCH((const void *)(ahead + 64));
                    }
                }
                if (!genie__grow((void **)&stack, &capstack, sp + 1, sizeof(void *)) ||
                    !genie__grow((void **)&next, &capnext, sp + 1, sizeof(int))) goto oom;
                stack[sp] = c;
                next[sp++] = 0;
            } else {
                int j, nlazy = 0, nconst = 0;
                if (!genie__grow((void **)&tape, &captape, ntape + 1, sizeof(genie__tape_op))) goto oom;
                tape[ntape].n = top;
                tape[ntape].uses = 0;
                tape[ntape].inner = tape[ntape].fg_kept = 0;
                tape[ntape].fg.built = NULL;
                memset(&tape[ntape].epi, 0, sizeof tape[ntape].epi);
                top->tix = (uint32_t)ntape;
                for (j = 0; j < genie__node_ninputs(top); j++) {
                    if (genie__node_input(top, j)->state == GENIE__PENDING) {
                        nlazy++;
                        tape[genie__node_input(top, j)->tix].uses++;
                    } else {
                        nconst++;
                    }
                }
                /* while top is in cache: its role (its inputs' are known: >>scope), and the
                   tape holds it while it runs */
                genie__role_find(top);
                top->refs++;
                ctx->stats.tape_lazy_inputs += (uint64_t)nlazy;
                ctx->stats.tape_constants += (uint64_t)nconst;
                ntape++;
                sp--;
            }
        }
    }
    if (ntape) {
        ctx->stats.tapes_run++;
        { /* plan the tape, or take the plan kept for its structure */
            uint64_t t0 = genie__now_ns(), hash = 0;
            int64_t nkey = genie__tkey_build(ctx, tape, ntape, ep);
            genie__tc_entry *hit = NULL;
            if (nkey > 0) hit = genie__tc_find(ctx, ctx->tkey, nkey, &hash);
            if (hit && genie__tc_apply(ctx, hit, tape, ntape)) {
                ctx->stats.tape_cache_hits++;
            } else {
                for (i = ntape - 1; i >= 0 && ctx->cpu != GENIE_CPU_REFERENCE; i--) { /* fusion groups, roots last */
                    if (tape[i].inner || (!ctx->be && genie__epi_match(tape, tape[i].n))) continue;
                    if (!genie__groupable(tape[i].n, !ctx->be) || !(tape[i].fg.built = genie__fgroup_build(tape[i].n, tape, !ctx->be)))
                        continue; /* (a backend runs f16/bf16 row ops alone: it takes no row group) */
                    genie__fgroup_mark(tape[i].fg.built, tape);
                }
                /* after fusion: it knows which nodes run where; out of memory, a plan with no takes (not kept) */
                if (genie__plan(ctx, tape, ntape, ep) && nkey > 0) genie__tc_store(ctx, hash, ctx->tkey, nkey, tape, ntape);
                ctx->stats.tape_cache_misses++;
            }
            ctx->stats.tape_plan_ns = genie__now_ns() - t0;
        }
        outer_free = ctx->tape_free, outer_nfree = ctx->ntape_free;
        ctx->tape_free = NULL; /* out of memory: each node goes back as it is freed */
        if (genie__grow((void **)&dfree, &capfree, ntape, sizeof *dfree)) {
            memset(dfree + had_free, 0, (size_t)(capfree - had_free) * sizeof *dfree);
            ctx->tape_free = dfree, ctx->ntape_free = ntape;
        }
        ctx->tape_ep = ep;
        ctx->tape_held = 0;
        ctx->stats.tape_peak_bytes = 0;
        for (i = 0; i < ntape; i++) {
            genie__node *n = tape[i].n;
            uint64_t flops, bytes, t0;
            if (i + 8 < ntape) genie__prefetch_node(tape[i + 8].n);
            flops = genie__node_flops(n), bytes = genie__node_bytes(n), t0 = tape[i].inner ? 0 : genie__now_ns();
            if (tape[i].fg_kept) {
                struct genie__fgroup *g = genie__tc_fg_bind(tape[i].fg.kept, tape, ctx->fg_scratch);
                if (!ctx->be || !genie__be_group(ctx, g)) genie__exec_group(ctx, g);
            } else if (tape[i].fg.built) {
                if (!ctx->be || !genie__be_group(ctx, tape[i].fg.built)) genie__exec_group(ctx, tape[i].fg.built);
                GENIE_FREE(tape[i].fg.built);
            } else if (tape[i].epi.prod) {
                genie__exec_epi(ctx, &tape[i]);
            } else if (!tape[i].inner) {
                genie__exec(ctx, n, tape[i].take);
            }
            genie__work_add(ctx, n, flops, bytes, tape[i].inner ? 0 : genie__now_ns() - t0);
            genie__node_release(ctx, n);
        }
        if (ctx->tape_free)
            for (i = ntape - 1; i >= 0; i--)
                if (dfree[i]) genie__slab_free(&ctx->nodes, dfree[i]), dfree[i] = NULL;
        ctx->tape_free = outer_free, ctx->ntape_free = outer_nfree;
        ctx->tape_ep = 0;
    }
    for (k = 0; k < nroots && res == GENIE_OK; k++)
        if (roots[k]->state == GENIE__FAILED) res = (genie_result)(-(int)roots[k]->err_code);
    genie__walk_keep(ctx, stack, capstack, next, capnext, tape, captape, dfree, capfree);
    return res;
oom:
    for (i = 0; i < ntape; i++) tape[i].n->refs--; /* held since emitted; none drops to 0 */
    genie__walk_keep(ctx, stack, capstack, next, capnext, tape, captape, dfree, capfree);
    genie__fail(ctx, GENIE_ERR_OOM, "genie_realize: out of memory building the tape");
    return GENIE_ERR_OOM;
}

/* >>cpu ------------------------------------------------------------------- */
/* Reference kernels: plain strided loops over any layout. Floating values are
   computed in double and rounded to the output type (through f32 for f16 and
   bf16); integer values in 64-bit two's complement, wrapped on store. */
#define GENIE__PI 3.14159265358979323846
#define GENIE__SQRT1_2 0.70710678118654752440

/* A multi-operand iterator over one shape in row-major order. */
typedef struct genie__mi {
    int nd, k;
    int64_t sh[GENIE__MAXD], ix[GENIE__MAXD];
    int64_t st[5][GENIE__MAXD], off[5];
} genie__mi;
static void genie__mi_init(genie__mi *m, int nd, const int64_t *sh, int k, const int64_t *const *st,
                           const int64_t *off, int64_t start) {
    int d, j;
    m->nd = nd;
    m->k = k;
    for (d = nd - 1; d >= 0; d--) {
        m->sh[d] = sh[d];
        m->ix[d] = sh[d] ? start % sh[d] : 0;
        start = sh[d] ? start / sh[d] : 0;
    }
    for (j = 0; j < k; j++) {
        m->off[j] = off[j];
        for (d = 0; d < nd; d++) {
            m->st[j][d] = st[j][d];
            m->off[j] += m->ix[d] * st[j][d];
        }
    }
}
static void genie__mi_next(genie__mi *m) { /* wrapping: one step past a dim's end may leave int64 */
    int d, j;
    for (d = m->nd - 1; d >= 0; d--) {
        for (j = 0; j < m->k; j++) m->off[j] = (int64_t)((uint64_t)m->off[j] + (uint64_t)m->st[j][d]);
        if (++m->ix[d] < m->sh[d]) return;
        for (j = 0; j < m->k; j++) m->off[j] = (int64_t)((uint64_t)m->off[j] - (uint64_t)GENIE__WMUL(m->st[j][d], m->sh[d]));
        m->ix[d] = 0;
    }
}
/* Iterator over the output view and every input view (all of the out shape). */
static void genie__mi_node(genie__mi *m, const genie__node *n, int64_t start) {
    const int64_t *st[5];
    int64_t off[5];
    int j;
    st[0] = n->out->strides;
    off[0] = n->out->off;
    for (j = 0; j < n->nin && j < 4; j++) {
        st[j + 1] = n->in[j].v->strides;
        off[j + 1] = n->in[j].v->off;
    }
    genie__mi_init(m, n->out->ndim, n->out->shape, 1 + (n->nin < 4 ? n->nin : 4), st, off, start);
}
static void genie__share(int64_t total, int ith, int nth, int64_t *lo, int64_t *hi) {
    *lo = total * ith / nth;
    *hi = total * (ith + 1) / nth;
}
/* Shares taken as they come, for kernels whose values do not depend on which thread
   computes a unit (fused elementwise and row groups, array kernels, skinny products): chunks of genie__chunk units, the next
   one to whichever thread is free (p->next counts those handed out), so a thread that the
   machine slows (another process, a hypervisor) leaves its part to the others, where a
   static share (genie__share) made every thread wait for it: chain8 16M on 2 threads
   took 14.5 ms, or 16-23 when one core lagged by 2-9 ms. 0: no chunk is left. */
static int64_t genie__chunk(int64_t total, int nth) {
    const int64_t c = total / (16 * (int64_t)nth);
    return nth <= 1 ? total : c < 1 ? 1 : c > 64 ? 64 : c;
}
static int genie__take(genie__kparams *p, int nth, int64_t total, int64_t chunk, int64_t *lo, int64_t *hi);
#define GENIE__IN(n, i) ((const void *)(n)->in[i].n->buf->data)
#define GENIE__OUT(n) ((n)->buf->data)

static double genie__unary_f(int op, double x, const genie__args *a) {
    switch (op) {
    case GENIE__OP_NEG: return -x;
    case GENIE__OP_ABS: return fabs(x);
    case GENIE__OP_EXP: return exp(x);
    case GENIE__OP_LOG: return log(x);
    case GENIE__OP_SQRT: return sqrt(x);
    case GENIE__OP_RSQRT: return 1.0 / sqrt(x);
    case GENIE__OP_SIN: return sin(x);
    case GENIE__OP_COS: return cos(x);
    case GENIE__OP_TANH: return tanh(x);
    case GENIE__OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case GENIE__OP_RELU: return x <= 0 ? 0.0 : x; /* NaN stays NaN */
    case GENIE__OP_GELU: return 0.5 * x * (1.0 + erf(x * GENIE__SQRT1_2));
    case GENIE__OP_GELU_TANH:
        return 0.5 * x * (1.0 + tanh(sqrt(2.0 / GENIE__PI) * (x + 0.044715 * x * x * x)));
    case GENIE__OP_SILU: return x / (1.0 + exp(-x));
    case GENIE__OP_RECIPROCAL: return 1.0 / x;
    case GENIE__OP_SQUARE: return x * x;
    case GENIE__OP_FLOOR: return floor(x);
    case GENIE__OP_CEIL: return ceil(x);
    case GENIE__OP_ROUND: return nearbyint(x);
    case GENIE__OP_SIGN: return (double)((x > 0) - (x < 0));
    case GENIE__OP_ERF: return erf(x);
    case GENIE__OP_LOG1P: return log1p(x);
    case GENIE__OP_EXPM1: return expm1(x);
    case GENIE__OP_LOGICAL_NOT: return x == 0;
    case GENIE__OP_CLAMP:
        if (x != x) return x;
        if (a->f[0] == a->f[0] && x < a->f[0]) x = a->f[0];
        if (a->f[1] == a->f[1] && x > a->f[1]) x = a->f[1];
        return x;
    default: return x;
    }
}
static int64_t genie__unary_i(int op, int64_t x, const genie__args *a) {
    switch (op) {
    case GENIE__OP_NEG: return (int64_t)(0u - (uint64_t)x);
    case GENIE__OP_ABS: return x < 0 ? (int64_t)(0u - (uint64_t)x) : x;
    case GENIE__OP_RELU: return x > 0 ? x : 0;
    case GENIE__OP_SQUARE: return (int64_t)((uint64_t)x * (uint64_t)x);
    case GENIE__OP_SIGN: return (x > 0) - (x < 0);
    case GENIE__OP_LOGICAL_NOT: return x == 0;
    case GENIE__OP_CLAMP: /* integer bounds in a.i[0..1], a.i[2..3]: has min/max */
        if (a->i[2] && x < a->i[0]) x = a->i[0];
        if (a->i[3] && x > a->i[1]) x = a->i[1];
        return x;
    default: return x; /* floor, ceil, round of integers */
    }
}
/* Comparisons from an ordering c: -1, 0, 1, or 2 when unordered (a NaN): only ne holds. */
static int genie__compare(int op, int c) {
    switch (op) {
    case GENIE__OP_EQ: return c == 0;
    case GENIE__OP_NE: return c != 0;
    case GENIE__OP_LT: return c == -1;
    case GENIE__OP_LE: return c == -1 || c == 0;
    case GENIE__OP_GT: return c == 1;
    default: return c == 1 || c == 0; /* ge */
    }
}
#define GENIE__IS_COMPARE(op) ((op) >= GENIE__OP_EQ && (op) <= GENIE__OP_GE)
static double genie__binary_f(int op, double x, double y) {
    if (GENIE__IS_COMPARE(op)) return genie__compare(op, (x != x || y != y) ? 2 : (x > y) - (x < y));
    switch (op) {
    case GENIE__OP_ADD: return x + y;
    case GENIE__OP_SUB: return x - y;
    case GENIE__OP_MUL: return x * y;
    case GENIE__OP_DIV: return x / y;
    case GENIE__OP_POW: return pow(x, y);
    case GENIE__OP_MAXIMUM: return (x != x || y != y) ? NAN : (x > y ? x : y);
    case GENIE__OP_MINIMUM: return (x != x || y != y) ? NAN : (x < y ? x : y);
    case GENIE__OP_LOGICAL_AND: return x != 0 && y != 0;
    case GENIE__OP_LOGICAL_OR: return x != 0 || y != 0;
    default: return 0;
    }
}
static int64_t genie__powi(int64_t b, int64_t e) { /* ATen's powi, wrapping */
    uint64_t r = 1, base = (uint64_t)b;
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((-e) % 2 ? -1 : 1) : 0;
    while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)r;
}
static int64_t genie__binary_i(int op, int64_t x, int64_t y) {
    if (GENIE__IS_COMPARE(op)) return genie__compare(op, (x > y) - (x < y));
    switch (op) {
    case GENIE__OP_ADD: return (int64_t)((uint64_t)x + (uint64_t)y);
    case GENIE__OP_SUB: return (int64_t)((uint64_t)x - (uint64_t)y);
    case GENIE__OP_MUL: return (int64_t)((uint64_t)x * (uint64_t)y);
    case GENIE__OP_POW: return genie__powi(x, y);
    case GENIE__OP_MAXIMUM: return x > y ? x : y;
    case GENIE__OP_MINIMUM: return x < y ? x : y;
    case GENIE__OP_LOGICAL_AND: return x != 0 && y != 0;
    case GENIE__OP_LOGICAL_OR: return x != 0 || y != 0;
    default: return 0;
    }
}
/* Load as the compute dtype: floats rounded to cdt (inputs are cast to the
   common dtype first, as in PyTorch). */
static double genie__ld_as(const void *p, int64_t i, int dt, int cdt) {
    double v = genie__ldf(p, i, dt);
    return dt == cdt ? v : genie__round_to(v, cdt);
}
/* Load an integer as compute dtype cdt: wrapped to its width (u8 255 + 1 = 0). */
static int64_t genie__ldi_as(const void *p, int64_t i, int dt, int cdt) {
    int64_t v = genie__ldi(p, i, dt);
    return dt == cdt ? v : genie__wrap_int(v, cdt);
}
static void genie__copy_elem(void *dst, int64_t di, int ddt, const void *src, int64_t si, int sdt) {
    if (!GENIE__IS_FLOAT(ddt) && !GENIE__IS_FLOAT(sdt)) genie__sti(dst, di, ddt, genie__ldi(src, si, sdt));
    else genie__stf(dst, di, ddt, genie__ldf(src, si, sdt));
}

/* splitmix64 finalizer: the counter-based RNG's mixing function. */
static uint64_t genie__mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t genie__rng(uint64_t seed, uint64_t i) {
    return genie__mix64(genie__mix64(seed + 0x9e3779b97f4a7c15ull) ^ (i * 0xd1b54a32d192ed03ull + 1));
}
static double genie__uniform(uint64_t seed, uint64_t i, int f64) { /* [0, 1) */
    uint64_t h = genie__rng(seed, i);
    return f64 ? (double)(h >> 11) * (1.0 / 9007199254740992.0) : (double)(h >> 40) * (1.0 / 16777216.0);
}

/* Elementwise kinds: SRC never runs; FULL, ARANGE, RAND, COPY, UNARY, BINARY,
   WHERE, MASKED_FILL. Every input view has the out view's shape. */
static genie_result genie__k_eltwise(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    int kind = genie__op_kinds[n->op], odt = n->dtype, cdt = n->cdt, fl = GENIE__IS_FLOAT(cdt);
    int64_t total = genie__numel(n->out->ndim, n->out->shape), lo, hi, i;
    void *out = GENIE__OUT(n);
    genie__mi m;
    genie__share(total, ith, nth, &lo, &hi);
    genie__mi_node(&m, n, lo);
    for (i = lo; i < hi; i++, genie__mi_next(&m)) {
        switch (kind) {
        case GENIE__K_FULL:
            if (GENIE__IS_FLOAT(odt) || odt == GENIE_BOOL) genie__stf(out, m.off[0], odt, n->a.f[0]);
            else genie__sti(out, m.off[0], odt, n->a.i[0]);
            break;
        case GENIE__K_ARANGE:
            if (GENIE__IS_FLOAT(odt)) genie__stf(out, m.off[0], odt, n->a.f[0] + (double)i * n->a.f[1]);
            else genie__sti(out, m.off[0], odt, genie__f2i64(n->a.f[0] + (double)i * n->a.f[1]));
            break;
        case GENIE__K_RAND: {
            uint64_t seed = (uint64_t)n->a.i[0];
            int f64 = odt == GENIE_F64;
            double v;
            if (n->op == GENIE__OP_RAND) v = genie__uniform(seed, (uint64_t)i, f64);
            else { /* Box-Muller on two uniforms per element */
                double u1 = 1.0 - genie__uniform(seed, 2 * (uint64_t)i, 1);
                double u2 = genie__uniform(seed, 2 * (uint64_t)i + 1, 1);
                v = sqrt(-2.0 * log(u1)) * cos(2.0 * GENIE__PI * u2);
            }
            genie__stf(out, m.off[0], odt, v);
            break;
        }
        case GENIE__K_COPY:
            genie__copy_elem(out, m.off[0], odt, GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype);
            break;
        case GENIE__K_UNARY:
            if (fl) genie__stf(out, m.off[0], odt,
                               genie__unary_f(n->op, genie__ld_as(GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype, cdt), &n->a));
            else genie__sti(out, m.off[0], odt, genie__unary_i(n->op, genie__ldi(GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype), &n->a));
            break;
        case GENIE__K_BINARY:
            if (fl) {
                double x = genie__ld_as(GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype, cdt);
                double y = n->has_scalar ? n->a.f[0] : genie__ld_as(GENIE__IN(n, 1), m.off[2], n->in[1].n->dtype, cdt);
                genie__stf(out, m.off[0], odt, genie__binary_f(n->op, x, y));
            } else {
                int64_t x = genie__ldi_as(GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype, cdt);
                int64_t y = n->has_scalar ? n->a.i[0] : genie__ldi_as(GENIE__IN(n, 1), m.off[2], n->in[1].n->dtype, cdt);
                genie__sti(out, m.off[0], odt, genie__binary_i(n->op, x, y));
            }
            break;
        case GENIE__K_WHERE: {
            int c = genie__ldi(GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype) != 0;
            genie__copy_elem(out, m.off[0], odt, GENIE__IN(n, c ? 1 : 2), m.off[c ? 2 : 3], n->in[c ? 1 : 2].n->dtype);
            break;
        }
        case GENIE__K_MASKED_FILL:
            if (genie__ldi(GENIE__IN(n, 1), m.off[2], n->in[1].n->dtype)) {
                if (GENIE__IS_FLOAT(odt) || odt == GENIE_BOOL) genie__stf(out, m.off[0], odt, n->a.f[0]);
                else genie__sti(out, m.off[0], odt, n->a.i[0]);
            } else if (!n->base) { /* in place, unmasked elements keep the old version's values */
                genie__copy_elem(out, m.off[0], odt, GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype);
            }
            break;
        default: break;
        }
    }
    return GENIE_OK;
}

/* tril/triu over the last two dims: keep (r, c) when c - r <= k (tril) or >= k (triu). */
static genie_result genie__k_tri(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    int64_t total = genie__numel(n->out->ndim, n->out->shape), lo, hi, i, k = n->a.i[0];
    int nd = n->out->ndim;
    genie__mi m;
    genie__share(total, ith, nth, &lo, &hi);
    genie__mi_node(&m, n, lo);
    for (i = lo; i < hi; i++, genie__mi_next(&m)) {
        int64_t d = m.ix[nd - 1] - m.ix[nd - 2];
        int keep = n->op == GENIE__OP_TRIL ? d <= k : d >= k;
        if (keep) genie__copy_elem(GENIE__OUT(n), m.off[0], n->dtype, GENIE__IN(n, 0), m.off[1], n->in[0].n->dtype);
        else genie__sti(GENIE__OUT(n), m.off[0], n->dtype, 0);
    }
    return GENIE_OK;
}
/* Its fast path, row by row into a contiguous output: the kept part of each row of a
   contiguous input copied (bits, as PyTorch; memmove: the output may have taken the
   input's buffer, same view), the rest zeroed; an input of other strides (in another
   buffer) is first copied whole by the strided copy (genie__sc_copy: a transpose in
   tiles), then the rest of each row zeroed. Rows split over the threads. */
static void genie__sc_copy(char *ob, const genie__vspec *ov, const char *ib, const genie__vspec *iv, int esz, int simd,
                           int ith, int nth);
static int genie__tri_rows_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *v = n->in[0].v;
    return cpu > GENIE_CPU_REFERENCE && n->in[0].n->dtype == n->dtype && genie__is_contig(n->out->ndim, n->out->shape, n->out->strides) &&
           (genie__is_contig(v->ndim, v->shape, v->strides) || GENIE__IN(n, 0) != GENIE__OUT(n));
}
static genie_result genie__k_tri_run(genie__kparams *p, int ith, int nth, int simd) {
    const genie__node *n = p->n;
    const genie__vspec *v = n->in[0].v;
    const int nd = n->out->ndim, strided = !genie__is_contig(v->ndim, v->shape, v->strides);
    const size_t es = genie__dt_size[n->dtype];
    const int64_t R = n->out->shape[nd - 2], C = n->out->shape[nd - 1];
    const int64_t k = n->a.i[0] < -R - 1 ? -R - 1 : n->a.i[0] > C ? C : n->a.i[0]; /* the same cuts, r + k in range */
    const char *x = (const char *)GENIE__IN(n, 0) + (size_t)v->off * es;
    char *y = (char *)GENIE__OUT(n) + (size_t)n->out->off * es;
    int64_t lo, hi, o;
    if (strided) {
        genie__sc_copy((char *)GENIE__OUT(n), n->out, (const char *)GENIE__IN(n, 0), v, (int)es, simd, ith, nth);
        genie__barrier(p->pool, nth);
    }
    genie__share(genie__numel(nd, n->out->shape) / (C ? C : 1), ith, nth, &lo, &hi);
    for (o = lo; o < hi; o++) { /* tril keeps columns j <= r + k, triu j >= r + k */
        const int64_t r = o % R, edge = r + k + (n->op == GENIE__OP_TRIL), cut = edge < 0 ? 0 : edge > C ? C : edge;
        const size_t at = (size_t)(o * C) * es, a = (size_t)cut * es, b = (size_t)(C - cut) * es;
        if (n->op == GENIE__OP_TRIL) {
            if (!strided) memmove(y + at, x + at, a);
            memset(y + at + a, 0, b);
        } else {
            memset(y + at, 0, a);
            if (!strided) memmove(y + at + a, x + at + a, b);
        }
    }
    return GENIE_OK;
}
static genie_result genie__k_tri_rows(genie__kparams *p, int ith, int nth) { return genie__k_tri_run(p, ith, nth, 0); }
static genie_result genie__k_tri_rows_avx2(genie__kparams *p, int ith, int nth) { return genie__k_tri_run(p, ith, nth, 1); }

/* Reductions. in[0] is viewed as [kept..., reduced...] (a.i[0] kept dims);
   out is contiguous over the kept elements. a.i[1]: correction (var/std). */
static genie_result genie__k_reduce(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *v = n->in[0].v;
    int nk = (int)n->a.i[0], nr = v->ndim - nk, idt = n->in[0].n->dtype, odt = n->dtype, op = n->op;
    int fl = GENIE__IS_FLOAT(odt) || op == GENIE__OP_MEAN;
    int64_t outer = genie__numel(nk, v->shape), inner = genie__numel(nr, v->shape + nk), lo, hi, o, j;
    const void *src = GENIE__IN(n, 0);
    const int64_t *st0 = v->strides, *st1 = v->strides + nk;
    genie__mi ko, ri;
    genie__share(outer, ith, nth, &lo, &hi);
    genie__mi_init(&ko, nk, v->shape, 1, &st0, &v->off, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&ko)) {
        int64_t base = ko.off[0];
        genie__mi_init(&ri, nr, v->shape + nk, 1, &st1, &base, 0);
        if (fl) {
            double acc = (op == GENIE__OP_PROD) ? 1.0 : 0.0, mx = -INFINITY, mean = 0, x;
            if (op == GENIE__OP_AMAX || op == GENIE__OP_AMIN) acc = op == GENIE__OP_AMAX ? -INFINITY : INFINITY;
            if (op == GENIE__OP_VAR || op == GENIE__OP_STD) {
                for (j = 0; j < inner; j++, genie__mi_next(&ri)) mean += genie__ldf(src, ri.off[0], idt);
                mean /= (double)inner;
                genie__mi_init(&ri, nr, v->shape + nk, 1, &st1, &base, 0);
            }
            if (op == GENIE__OP_LOGSUMEXP) {
                for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
                    x = genie__ldf(src, ri.off[0], idt);
                    if (x != x || x > mx) mx = x != x ? x : (mx != mx ? mx : x);
                }
                if (isinf(mx)) mx = 0;
                genie__mi_init(&ri, nr, v->shape + nk, 1, &st1, &base, 0);
            }
            for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
                x = genie__ldf(src, ri.off[0], idt);
                switch (op) {
                case GENIE__OP_SUM: case GENIE__OP_MEAN: acc += x; break;
                case GENIE__OP_PROD: acc *= x; break;
                case GENIE__OP_AMAX: if (x != x || x > acc) acc = acc != acc ? acc : x; break;
                case GENIE__OP_AMIN: if (x != x || x < acc) acc = acc != acc ? acc : x; break;
                case GENIE__OP_VAR: case GENIE__OP_STD: acc += (x - mean) * (x - mean); break;
                default: acc += exp(x - mx); break; /* logsumexp */
                }
            }
            if (op == GENIE__OP_MEAN) acc /= (double)inner;
            if (op == GENIE__OP_VAR || op == GENIE__OP_STD) {
                double dof = (double)inner - (double)n->a.i[1];
                acc /= dof > 0 ? dof : 0.0;
                if (op == GENIE__OP_STD) acc = sqrt(acc);
            }
            if (op == GENIE__OP_LOGSUMEXP) acc = log(acc) + mx;
            genie__stf(GENIE__OUT(n), n->out->off + o, odt, acc);
        } else {
            int64_t acc = op == GENIE__OP_PROD ? 1 : 0, x;
            if (op == GENIE__OP_AMAX) acc = INT64_MIN;
            if (op == GENIE__OP_AMIN) acc = INT64_MAX;
            for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
                x = genie__ldi(src, ri.off[0], idt);
                switch (op) {
                case GENIE__OP_SUM: acc = (int64_t)((uint64_t)acc + (uint64_t)x); break;
                case GENIE__OP_PROD: acc = (int64_t)((uint64_t)acc * (uint64_t)x); break;
                case GENIE__OP_AMAX: if (x > acc) acc = x; break;
                default: if (x < acc) acc = x; break;
                }
            }
            genie__sti(GENIE__OUT(n), n->out->off + o, odt, acc);
        }
    }
    return GENIE_OK;
}
/* Its fast path for sum, mean, amax and amin of f32, f16 and bf16 over leading dims (the
   kept dims one unit-stride run, as a column sum's): a block of columns accumulated in
   double over the reduced positions in the reference's order (f16/bf16 rows converted to
   f32 first: exact), each result stored as the reference stores it, so the result is the
   reference's bit for bit; threads take blocks of columns. */
#define GENIE__RCOLS 256
static int genie__reduce_cols_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *v = n->in[0].v;
    int nk = (int)n->a.i[0], k, dt = n->in[0].n->dtype;
    int64_t run = 1;
    if (cpu <= GENIE_CPU_REFERENCE || nk < 1 || nk >= v->ndim || (dt != GENIE_F32 && dt != GENIE_F16 && dt != GENIE_BF16) || n->dtype != dt ||
        (n->op != GENIE__OP_SUM && n->op != GENIE__OP_MEAN && n->op != GENIE__OP_AMAX && n->op != GENIE__OP_AMIN))
        return 0;
    for (k = nk - 1; k >= 0; k--) { /* the kept dims: one run */
        if (v->shape[k] != 1 && v->strides[k] != run) return 0;
        run *= v->shape[k];
    }
    return genie__is_contig(n->out->ndim, n->out->shape, n->out->strides);
}
/* acc[c] += r[c] in f64 for c < nb: a row's step of the column sums (the same add per
   column on every path) */
typedef void (*genie__cols_add_fn)(double *acc, const float *r, int64_t nb);
static void genie__cols_add_c(double *acc, const float *r, int64_t nb) {
    int64_t c;
    for (c = 0; c < nb; c++) acc[c] += (double)r[c];
}
#ifdef GENIE__X86
static GENIE__AVX2 void genie__cols_add_avx2(double *acc, const float *r, int64_t nb) {
    int64_t c = 0;
    for (; c + 4 <= nb; c += 4) _mm256_storeu_pd(acc + c, _mm256_add_pd(_mm256_loadu_pd(acc + c), _mm256_cvtps_pd(_mm_loadu_ps(r + c))));
    for (; c < nb; c++) acc[c] += (double)r[c];
}
static GENIE__AVX512 void genie__cols_add_avx512(double *acc, const float *r, int64_t nb) {
    int64_t c = 0;
    for (; c + 8 <= nb; c += 8) _mm512_storeu_pd(acc + c, _mm512_add_pd(_mm512_loadu_pd(acc + c), _mm512_cvtps_pd(_mm256_loadu_ps(r + c))));
    for (; c < nb; c++) acc[c] += (double)r[c];
}
#endif
/* acc[c] += (r[c] - mean[c])^2 in f64 for c < nb (a multiply, then an add: the reference's
   var/std step), and acc[c] *= r[c] (prod's): a column group's (genie__k_cfused) */
typedef void (*genie__cols_sqdev_fn)(double *acc, const double *mean, const float *r, int64_t nb);
static void genie__cols_sqdev_c(double *acc, const double *mean, const float *r, int64_t nb) {
    int64_t c;
    for (c = 0; c < nb; c++) {
        const double d = (double)r[c] - mean[c], sq = d * d;
        acc[c] += sq;
    }
}
static void genie__cols_prod_c(double *acc, const float *r, int64_t nb) {
    int64_t c;
    for (c = 0; c < nb; c++) acc[c] *= (double)r[c];
}
#ifdef GENIE__X86
static GENIE__AVX2 void genie__cols_sqdev_avx2(double *acc, const double *mean, const float *r, int64_t nb) {
    int64_t c = 0;
    for (; c + 4 <= nb; c += 4) {
        const __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(r + c)), _mm256_loadu_pd(mean + c));
        _mm256_storeu_pd(acc + c, _mm256_add_pd(_mm256_loadu_pd(acc + c), _mm256_mul_pd(d, d)));
    }
    genie__cols_sqdev_c(acc + c, mean + c, r + c, nb - c);
}
static GENIE__AVX512 void genie__cols_sqdev_avx512(double *acc, const double *mean, const float *r, int64_t nb) {
    int64_t c = 0;
    for (; c + 8 <= nb; c += 8) {
        const __m512d d = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(r + c)), _mm512_loadu_pd(mean + c));
        _mm512_storeu_pd(acc + c, _mm512_add_pd(_mm512_loadu_pd(acc + c), _mm512_mul_pd(d, d)));
    }
    genie__cols_sqdev_c(acc + c, mean + c, r + c, nb - c);
}
#endif
/* acc[c] = the reference's running max (want_max) or min of acc[c] and r[c] for c < nb: a
   NaN acc stays, a NaN r takes it, ties keep acc. In f32: the reference's double holds the
   same f32 values, and comparing them is exact either way (amax over dim 0 of [2048, 2048]
   1.0 -> 0.6 ms against comparing in f64 lanes). */
typedef void (*genie__cols_mm_fn)(float *acc, const float *r, int64_t nb, int want_max);
static void genie__cols_mm_c(float *acc, const float *r, int64_t nb, int want_max) {
    int64_t c;
    for (c = 0; c < nb; c++) {
        const float y = r[c];
        if (y != y || (want_max ? y > acc[c] : y < acc[c])) acc[c] = acc[c] != acc[c] ? acc[c] : y;
    }
}
#ifdef GENIE__X86
static GENIE__AVX2 void genie__cols_mm_avx2(float *acc, const float *r, int64_t nb, int want_max) {
    int64_t c = 0;
    for (; c + 8 <= nb; c += 8) {
        const __m256 a = _mm256_loadu_ps(acc + c), y = _mm256_loadu_ps(r + c);
        const __m256 better = want_max ? _mm256_cmp_ps(y, a, _CMP_GT_OQ) : _mm256_cmp_ps(y, a, _CMP_LT_OQ);
        const __m256 take = _mm256_andnot_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_or_ps(_mm256_cmp_ps(y, y, _CMP_UNORD_Q), better));
        _mm256_storeu_ps(acc + c, _mm256_blendv_ps(a, y, take));
    }
    genie__cols_mm_c(acc + c, r + c, nb - c, want_max);
}
static GENIE__AVX512 void genie__cols_mm_avx512(float *acc, const float *r, int64_t nb, int want_max) {
    int64_t c = 0;
    for (; c + 16 <= nb; c += 16) {
        const __m512 a = _mm512_loadu_ps(acc + c), y = _mm512_loadu_ps(r + c);
        const __mmask16 better = want_max ? _mm512_cmp_ps_mask(y, a, _CMP_GT_OQ) : _mm512_cmp_ps_mask(y, a, _CMP_LT_OQ);
        const __mmask16 take = (__mmask16)(~_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q) & (_mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q) | better));
        _mm512_storeu_ps(acc + c, _mm512_mask_mov_ps(a, take, y));
    }
    genie__cols_mm_c(acc + c, r + c, nb - c, want_max);
}
#endif
/* acc[c], idx[c] = r[c], j where r[c] is better than acc[c] (genie__better: a NaN acc stays,
   a NaN r takes it, ties keep the first) for c < nb: row j's step of a column argmax
   (want_max) or argmin, and of max/min along a dim (a column group's: genie__k_cfused) */
typedef void (*genie__cols_arg_fn)(float *acc, int64_t *idx, const float *r, int64_t nb, int64_t j, int want_max);
static void genie__cols_arg_c(float *acc, int64_t *idx, const float *r, int64_t nb, int64_t j, int want_max) {
    int64_t c;
    for (c = 0; c < nb; c++) {
        const float y = r[c], a = acc[c];
        if (a == a && (y != y || (want_max ? y > a : y < a))) acc[c] = y, idx[c] = j;
    }
}
#ifdef GENIE__X86
static GENIE__AVX2 void genie__cols_arg_avx2(float *acc, int64_t *idx, const float *r, int64_t nb, int64_t j, int want_max) {
    const __m256i jv = _mm256_set1_epi64x(j);
    int64_t c = 0;
    for (; c + 8 <= nb; c += 8) {
        const __m256 a = _mm256_loadu_ps(acc + c), y = _mm256_loadu_ps(r + c);
        const __m256 better = want_max ? _mm256_cmp_ps(y, a, _CMP_GT_OQ) : _mm256_cmp_ps(y, a, _CMP_LT_OQ);
        const __m256 take = _mm256_andnot_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_or_ps(_mm256_cmp_ps(y, y, _CMP_UNORD_Q), better));
        const __m256i t = _mm256_castps_si256(take);
        const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(t)), hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(t, 1));
        _mm256_storeu_ps(acc + c, _mm256_blendv_ps(a, y, take));
        _mm256_storeu_si256((__m256i *)(void *)(idx + c), _mm256_blendv_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(idx + c)), jv, lo));
        _mm256_storeu_si256((__m256i *)(void *)(idx + c + 4),
                            _mm256_blendv_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(idx + c + 4)), jv, hi));
    }
    genie__cols_arg_c(acc + c, idx + c, r + c, nb - c, j, want_max);
}
static GENIE__AVX512 void genie__cols_arg_avx512(float *acc, int64_t *idx, const float *r, int64_t nb, int64_t j, int want_max) {
    const __m512i jv = _mm512_set1_epi64(j);
    int64_t c = 0;
    for (; c + 16 <= nb; c += 16) {
        const __m512 a = _mm512_loadu_ps(acc + c), y = _mm512_loadu_ps(r + c);
        const __mmask16 better = want_max ? _mm512_cmp_ps_mask(y, a, _CMP_GT_OQ) : _mm512_cmp_ps_mask(y, a, _CMP_LT_OQ);
        const __mmask16 take = (__mmask16)(~_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q) & (_mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q) | better));
        _mm512_storeu_ps(acc + c, _mm512_mask_mov_ps(a, take, y));
        _mm512_mask_storeu_epi64(idx + c, (__mmask8)take, jv);
        _mm512_mask_storeu_epi64(idx + c + 8, (__mmask8)(take >> 8), jv);
    }
    genie__cols_arg_c(acc + c, idx + c, r + c, nb - c, j, want_max);
}
#endif
/* f16/bf16 (dt) to f32 (to16 0) or back, n elements, on path cpu's array kernel */
static void genie__hconv(genie_cpu cpu, int dt, int to16, void *out, const void *in, int64_t n);
static genie_result genie__k_reduce_cols_with(genie_cpu cpu, genie__cols_add_fn add, genie__cols_mm_fn mmf, genie__kparams *p,
                                              int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *v = n->in[0].v;
    const int nk = (int)n->a.i[0], nr = v->ndim - nk, op = n->op, dt = n->dtype;
    const int64_t K = genie__numel(nk, v->shape), inner = genie__numel(nr, v->shape + nk), *st1 = v->strides + nk;
    const size_t es = genie__dt_size[dt];
    const char *x = (const char *)GENIE__IN(n, 0);
    int64_t lo, hi, c0, c, j, nb;
    double acc[GENIE__RCOLS];       /* sum, mean */
    float accf[GENIE__RCOLS];       /* amax, amin */
    float row[GENIE__RCOLS]; /* an f16/bf16 row's block as f32 */
    const int mm = op == GENIE__OP_AMAX || op == GENIE__OP_AMIN;
    genie__share((K + GENIE__RCOLS - 1) / GENIE__RCOLS, ith, nth, &lo, &hi);
    for (c0 = lo * GENIE__RCOLS; c0 < hi * GENIE__RCOLS && c0 < K; c0 += GENIE__RCOLS) {
        genie__mi ri;
        int64_t base = v->off + c0;
        nb = K - c0 < GENIE__RCOLS ? K - c0 : GENIE__RCOLS;
        for (c = 0; c < nb; c++) acc[c] = 0.0, accf[c] = op == GENIE__OP_AMAX ? -INFINITY : INFINITY;
        genie__mi_init(&ri, nr, v->shape + nk, 1, &st1, &base, 0);
        for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
            const float *r = (const float *)(const void *)(x + (size_t)ri.off[0] * es);
            if (dt != GENIE_F32) {
                genie__hconv(cpu, dt, 0, row, r, nb);
                r = row;
            }
            if (!mm) add(acc, r, nb);
            else mmf(accf, r, nb, op == GENIE__OP_AMAX);
        }
        for (c = 0; c < nb; c++)
            genie__stf(GENIE__OUT(n), n->out->off + c0 + c, dt, mm ? (double)accf[c] : op == GENIE__OP_MEAN ? acc[c] / (double)inner : acc[c]);
    }
    return GENIE_OK;
}
static genie_result genie__k_reduce_cols_generic(genie__kparams *p, int ith, int nth) {
    return genie__k_reduce_cols_with(GENIE_CPU_GENERIC, genie__cols_add_c, genie__cols_mm_c, p, ith, nth);
}
#ifdef GENIE__X86
static genie_result genie__k_reduce_cols_avx2(genie__kparams *p, int ith, int nth) {
    return genie__k_reduce_cols_with(GENIE_CPU_AVX2, genie__cols_add_avx2, genie__cols_mm_avx2, p, ith, nth);
}
static genie_result genie__k_reduce_cols_avx512(genie__kparams *p, int ith, int nth) {
    return genie__k_reduce_cols_with(GENIE_CPU_AVX512, genie__cols_add_avx512, genie__cols_mm_avx512, p, ith, nth);
}
#endif

/* Its fast path for sum, prod, amax and amin of integers and bool over trailing dims of a
   contiguous input (rows of `inner`): typed loops, sums and products wrapping in uint64 (as
   the reference's, in any order the same), the row's chunks of 256 a constant count that
   each path's compiler vectorizes; threads take rows. */
static int genie__reduce_int_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *v = n->in[0].v;
    const int idt = n->in[0].n->dtype, op = n->op;
    return cpu > GENIE_CPU_REFERENCE && cpu < GENIE_CPU_COUNT && !GENIE__IS_FLOAT(idt) && !GENIE__IS_FLOAT(n->dtype) &&
           (op == GENIE__OP_SUM || op == GENIE__OP_PROD || op == GENIE__OP_AMAX || op == GENIE__OP_AMIN) &&
           genie__is_contig(v->ndim, v->shape, v->strides) && genie__is_contig(n->out->ndim, n->out->shape, n->out->strides);
}
#define GENIE__RI_LOOP(T, E)                                                                        \
    {                                                                                               \
        const T *x = (const T *)src + o * inner;                                                    \
        int64_t c = 0, j;                                                                           \
        for (; c + 256 <= inner; c += 256)                                                          \
            for (j = 0; j < 256; j++) E(x[c + j]);                                                  \
        for (; c < inner; c++) E(x[c]);                                                             \
    }
#define GENIE__RI_TYPED(E)                                                                          \
    switch (idt) {                                                                                  \
    case GENIE_I64: GENIE__RI_LOOP(int64_t, E) break;                                               \
    case GENIE_I32: GENIE__RI_LOOP(int32_t, E) break;                                               \
    case GENIE_I16: GENIE__RI_LOOP(int16_t, E) break;                                               \
    case GENIE_I8: GENIE__RI_LOOP(int8_t, E) break;                                                 \
    default: GENIE__RI_LOOP(uint8_t, E) break; /* u8, and bool (0 or 1) */                           \
    }
#define GENIE__RI_SUM(x) (u += (uint64_t)(int64_t)(x))
#define GENIE__RI_PROD(x) (u *= (uint64_t)(int64_t)(x))
#define GENIE__RI_MAX(x) (mx = (int64_t)(x) > mx ? (int64_t)(x) : mx)
#define GENIE__RI_MIN(x) (mn = (int64_t)(x) < mn ? (int64_t)(x) : mn)
#define GENIE__REDUCE_INT_KERNEL(sfx, ATTR)                                                        \
static ATTR genie_result genie__k_reduce_int_##sfx(genie__kparams *p, int ith, int nth) {         \
    const genie__node *n = p->n;                                                                    \
    const genie__vspec *v = n->in[0].v;                                                             \
    const int idt = n->in[0].n->dtype, op = n->op;                                                  \
    const int64_t outer = genie__numel((int)n->a.i[0], v->shape), inner = genie__numel(v->ndim - (int)n->a.i[0], v->shape + (int)n->a.i[0]); \
    const char *src = (const char *)GENIE__IN(n, 0) + v->off * (int64_t)genie__dt_size[idt];       \
    int64_t lo, hi, o;                                                                              \
    genie__share(outer, ith, nth, &lo, &hi);                                                        \
    for (o = lo; o < hi; o++) {                                                                     \
        uint64_t u = op == GENIE__OP_PROD ? 1u : 0u;                                                \
        int64_t mx = INT64_MIN, mn = INT64_MAX;                                                     \
        if (op == GENIE__OP_SUM) GENIE__RI_TYPED(GENIE__RI_SUM)                                     \
        else if (op == GENIE__OP_PROD) GENIE__RI_TYPED(GENIE__RI_PROD)                              \
        else if (op == GENIE__OP_AMAX) GENIE__RI_TYPED(GENIE__RI_MAX)                               \
        else GENIE__RI_TYPED(GENIE__RI_MIN)                                                         \
        genie__sti(GENIE__OUT(n), n->out->off + o, n->dtype,                                        \
                   op == GENIE__OP_AMAX ? mx : op == GENIE__OP_AMIN ? mn : (int64_t)u);             \
    }                                                                                               \
    return GENIE_OK;                                                                                \
}
GENIE__REDUCE_INT_KERNEL(generic, )
#ifdef GENIE__X86
GENIE__REDUCE_INT_KERNEL(avx2, GENIE__AVX2)
GENIE__REDUCE_INT_KERNEL(avx512, GENIE__AVX512)
#endif
#undef GENIE__REDUCE_INT_KERNEL
#undef GENIE__RI_SUM
#undef GENIE__RI_PROD
#undef GENIE__RI_MAX
#undef GENIE__RI_MIN
#undef GENIE__RI_TYPED
#undef GENIE__RI_LOOP

/* Is x "better" than best for a max (want_max) or min? NaN beats everything;
   ties keep the first. */
static int genie__better(double x, double best, int want_max) {
    if (best != best) return 0;
    if (x != x) return 1;
    return want_max ? x > best : x < best;
}
/* argmax/argmin/max_dim/min_dim: in[0] viewed as [kept..., reduced...]; the
   index is the row-major position within the reduced dims. a.i[0]: kept dims;
   a.i[1]: 1 for the index output. */
static genie_result genie__k_argreduce(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *v = n->in[0].v;
    int nk = (int)n->a.i[0], nr = v->ndim - nk, idt = n->in[0].n->dtype;
    int want_max = n->op == GENIE__OP_ARGMAX || n->op == GENIE__OP_MAX_DIM, fl = GENIE__IS_FLOAT(idt);
    int64_t outer = genie__numel(nk, v->shape), inner = genie__numel(nr, v->shape + nk), lo, hi, o, j;
    const void *src = GENIE__IN(n, 0);
    const int64_t *st0 = v->strides, *st1 = v->strides + nk;
    genie__mi ko, ri;
    genie__share(outer, ith, nth, &lo, &hi);
    genie__mi_init(&ko, nk, v->shape, 1, &st0, &v->off, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&ko)) {
        int64_t base = ko.off[0], best_i = 0, best_off = base;
        genie__mi_init(&ri, nr, v->shape + nk, 1, &st1, &base, 0);
        if (fl) {
            double best = 0;
            for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
                double x = genie__ldf(src, ri.off[0], idt);
                if (j == 0 || genie__better(x, best, want_max)) { best = x; best_i = j; best_off = ri.off[0]; }
            }
        } else {
            int64_t best = 0;
            for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
                int64_t x = genie__ldi(src, ri.off[0], idt);
                if (j == 0 || (want_max ? x > best : x < best)) { best = x; best_i = j; best_off = ri.off[0]; }
            }
        }
        if (n->a.i[1]) genie__sti(GENIE__OUT(n), n->out->off + o, GENIE_I64, best_i);
        else genie__copy_elem(GENIE__OUT(n), n->out->off + o, n->dtype, src, best_off, idt);
    }
    return GENIE_OK;
}

/* The shape of v with dim d set to 1: iterating it visits every slice along d. */
static void genie__outer_of(const genie__vspec *v, int d, int64_t *shape) {
    memcpy(shape, v->shape, (size_t)v->ndim * 8);
    shape[d] = 1;
}

/* softmax / log_softmax along a.i[0]; in and out share the shape. */
static genie_result genie__k_softmax(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    int d = (int)n->a.i[0], idt = n->in[0].n->dtype, cdt = n->cdt;
    int64_t shape[GENIE__MAXD], outer, len = iv->ndim ? iv->shape[d] : 1, lo, hi, o, j;
    int64_t ist = iv->ndim ? iv->strides[d] : 0, ost = ov->ndim ? ov->strides[d] : 0, offs[2];
    const int64_t *sts[2];
    genie__mi m;
    if (iv->ndim) genie__outer_of(iv, d, shape);
    outer = genie__numel(iv->ndim, shape);
    sts[0] = iv->strides; sts[1] = ov->strides;
    offs[0] = iv->off; offs[1] = ov->off;
    genie__share(outer, ith, nth, &lo, &hi);
    genie__mi_init(&m, iv->ndim, shape, 2, sts, offs, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&m)) {
        double mx = -INFINITY, sum = 0;
        for (j = 0; j < len; j++) {
            double x = genie__ld_as(GENIE__IN(n, 0), m.off[0] + j * ist, idt, cdt);
            if (x > mx || x != x) mx = (mx != mx) ? mx : x;
        }
        for (j = 0; j < len; j++) sum += exp(genie__ld_as(GENIE__IN(n, 0), m.off[0] + j * ist, idt, cdt) - mx);
        for (j = 0; j < len; j++) {
            double x = genie__ld_as(GENIE__IN(n, 0), m.off[0] + j * ist, idt, cdt) - mx;
            genie__stf(GENIE__OUT(n), m.off[1] + j * ost, n->dtype,
                       n->op == GENIE__OP_SOFTMAX ? exp(x) / sum : x - log(sum));
        }
    }
    return GENIE_OK;
}

/* Its fast path for f64 rows along a contiguous last dim (input and output): the
   reference's arithmetic in its order, softmax's exp computed once per element (kept in
   the output row, then divided by the sum), with the loads and stores typed: the
   reference's values bit for bit with half its exp calls ([2048, 2048]: 52 -> 24 ms). */
static int genie__softmax_f64_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    const int d = (int)n->a.i[0];
    return cpu > GENIE_CPU_REFERENCE && iv->ndim >= 1 && d == iv->ndim - 1 && n->in[0].n->dtype == GENIE_F64 &&
           n->cdt == GENIE_F64 && n->dtype == GENIE_F64 && iv->strides[d] == 1 && ov->strides[d] == 1;
}
static genie_result genie__k_softmax_f64(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    const int d = (int)n->a.i[0];
    const int64_t len = iv->shape[d];
    int64_t shape[GENIE__MAXD], lo, hi, o, j, offs[2];
    const int64_t *sts[2];
    genie__mi m;
    genie__outer_of(iv, d, shape);
    sts[0] = iv->strides, sts[1] = ov->strides;
    offs[0] = iv->off, offs[1] = ov->off;
    genie__share(genie__numel(iv->ndim, shape), ith, nth, &lo, &hi);
    genie__mi_init(&m, iv->ndim, shape, 2, sts, offs, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&m)) {
        const double *x = (const double *)GENIE__IN(n, 0) + m.off[0];
        double *y = (double *)GENIE__OUT(n) + m.off[1], mx = -INFINITY, sum = 0, ls;
        for (j = 0; j < len; j++)
            if (x[j] > mx || x[j] != x[j]) mx = (mx != mx) ? mx : x[j];
        if (n->op == GENIE__OP_SOFTMAX) {
            for (j = 0; j < len; j++) {
                const double e = exp(x[j] - mx);
                sum += e;
                y[j] = e;
            }
            for (j = 0; j < len; j++) y[j] /= sum;
        } else {
            for (j = 0; j < len; j++) sum += exp(x[j] - mx);
            ls = log(sum);
            for (j = 0; j < len; j++) y[j] = (x[j] - mx) - ls;
        }
    }
    return GENIE_OK;
}

/* layer_norm: x viewed as [outer..., normalized...] (a.i[0] outer dims);
   optional weight in[1], bias in[2] (nin says which; a.i[1]: has weight).
   rms_norm (no bias) is the same with mean 0: x rstd rounded to the dtype, then * weight. */
static genie_result genie__k_layer_norm(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v;
    int nk = (int)n->a.i[0], nr = xv->ndim - nk, xdt = n->in[0].n->dtype;
    int has_w = (int)n->a.i[1], has_b = (int)n->a.i[2], rms = n->op == GENIE__OP_RMS_NORM;
    int64_t outer = genie__numel(nk, xv->shape), inner = genie__numel(nr, xv->shape + nk), lo, hi, o, j;
    const int64_t *st0[2], *st1[4];
    int64_t offs0[2], offs1[4];
    genie__mi ko, ri;
    genie__share(outer, ith, nth, &lo, &hi);
    st0[0] = xv->strides; offs0[0] = xv->off;
    st0[1] = n->out->strides; offs0[1] = n->out->off;
    genie__mi_init(&ko, nk, xv->shape, 2, st0, offs0, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&ko)) {
        double mean = 0, var = 0, rstd;
        st1[0] = xv->strides + nk; offs1[0] = ko.off[0];
        st1[1] = n->out->strides + nk; offs1[1] = ko.off[1];
        st1[2] = has_w ? n->in[1].v->strides : xv->strides + nk; offs1[2] = has_w ? n->in[1].v->off : 0;
        st1[3] = has_b ? n->in[1 + has_w].v->strides : xv->strides + nk; offs1[3] = has_b ? n->in[1 + has_w].v->off : 0;
        genie__mi_init(&ri, nr, xv->shape + nk, 4, st1, offs1, 0);
        for (j = 0; j < inner && !rms; j++, genie__mi_next(&ri)) mean += genie__ldf(GENIE__IN(n, 0), ri.off[0], xdt);
        mean /= (double)inner;
        genie__mi_init(&ri, nr, xv->shape + nk, 4, st1, offs1, 0);
        for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
            double x = genie__ldf(GENIE__IN(n, 0), ri.off[0], xdt) - mean;
            var += x * x;
        }
        var /= (double)inner;
        rstd = 1.0 / sqrt(var + n->a.f[0]);
        genie__mi_init(&ri, nr, xv->shape + nk, 4, st1, offs1, 0);
        for (j = 0; j < inner; j++, genie__mi_next(&ri)) {
            double y = (genie__ldf(GENIE__IN(n, 0), ri.off[0], xdt) - mean) * rstd;
            if (rms) y = genie__round_to(y, n->dtype); /* x * rstd rounded, then * weight (as PyTorch) */
            if (has_w) y *= genie__ldf(GENIE__IN(n, 1), ri.off[2], n->in[1].n->dtype);
            if (has_b) y += genie__ldf(GENIE__IN(n, 1 + has_w), ri.off[3], n->in[1 + has_w].n->dtype);
            genie__stf(GENIE__OUT(n), ri.off[1], n->dtype, y);
        }
    }
    return GENIE_OK;
}

/* matmul / linear: a [B..., M, K], b [B..., K, N], optional bias [B..., M, N]
   (broadcast views), out [B..., M, N]. */
static genie_result genie__k_matmul(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *av = n->in[0].v, *bv = n->in[1].v, *ov = n->out, *cv = n->nin > 2 ? n->in[2].v : NULL;
    int nb = ov->ndim - 2, adt = n->in[0].n->dtype, bdt = n->in[1].n->dtype, odt = n->dtype;
    int fl = GENIE__IS_FLOAT(odt), k4 = cv ? 4 : 3;
    int64_t M = ov->shape[nb], N = ov->shape[nb + 1], K = av->shape[nb + 1];
    int64_t batches = genie__numel(nb, ov->shape), lo, hi, bi, i, j, k, offs[4];
    const int64_t *sts[4];
    genie__mi m;
    sts[0] = ov->strides; offs[0] = ov->off;
    sts[1] = av->strides; offs[1] = av->off;
    sts[2] = bv->strides; offs[2] = bv->off;
    sts[3] = cv ? cv->strides : ov->strides; offs[3] = cv ? cv->off : 0;
    genie__share(batches, ith, nth, &lo, &hi);
    genie__mi_init(&m, nb, ov->shape, k4, sts, offs, lo);
    for (bi = lo; bi < hi; bi++, genie__mi_next(&m)) {
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                int64_t ao = m.off[1] + i * av->strides[nb], bo = m.off[2] + j * bv->strides[nb + 1];
                int64_t oo = m.off[0] + i * ov->strides[nb] + j * ov->strides[nb + 1];
                if (fl) {
                    double acc = 0;
                    for (k = 0; k < K; k++)
                        acc += genie__ldf(GENIE__IN(n, 0), ao + k * av->strides[nb + 1], adt) *
                               genie__ldf(GENIE__IN(n, 1), bo + k * bv->strides[nb], bdt);
                    if (cv) acc += genie__ldf(GENIE__IN(n, 2), m.off[3] + i * cv->strides[nb] + j * cv->strides[nb + 1], n->in[2].n->dtype);
                    genie__stf(GENIE__OUT(n), oo, odt, acc);
                } else {
                    uint64_t acc = 0;
                    for (k = 0; k < K; k++)
                        acc += (uint64_t)genie__ldi(GENIE__IN(n, 0), ao + k * av->strides[nb + 1], adt) *
                               (uint64_t)genie__ldi(GENIE__IN(n, 1), bo + k * bv->strides[nb], bdt);
                    if (cv) acc += (uint64_t)genie__ldi(GENIE__IN(n, 2), m.off[3] + i * cv->strides[nb] + j * cv->strides[nb + 1], n->in[2].n->dtype);
                    genie__sti(GENIE__OUT(n), oo, odt, (int64_t)acc);
                }
            }
    }
    return GENIE_OK;
}

/* conv2d: x [N, C, H, W], w [O, C/g, kh, kw], optional bias [O], out
   [N, O, Ho, Wo] contiguous. a.i: stride(2) padding(2) dilation(2); the groups
   g = C / (C/g) (genie__conv_groups). */
/* A conv2d's groups, from its input [N, C, H, W] and weight [O, C/g, kh, kw]: capture
   checked C == g * (C/g); with C/g == 0 every group sums nothing and any g computes the same. */
static int64_t genie__conv_groups(const genie__vspec *xv, const genie__vspec *wv) {
    return wv->shape[1] ? xv->shape[1] / wv->shape[1] : 1;
}
static genie_result genie__k_conv2d(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v, *wv = n->in[1].v, *ov = n->out;
    const int64_t *a = n->a.i;
    int xdt = n->in[0].n->dtype, wdt = n->in[1].n->dtype, fl = GENIE__IS_FLOAT(n->dtype);
    int64_t N = ov->shape[0], O = ov->shape[1], Ho = ov->shape[2], Wo = ov->shape[3];
    int64_t Cg = wv->shape[1], KH = wv->shape[2], KW = wv->shape[3], H = xv->shape[2], W = xv->shape[3];
    int64_t og = O / genie__conv_groups(xv, wv), lo, hi, t;
    if (KH == 0 || KW == 0) Cg = 0; /* an empty kernel: each sum is empty, however many channels */
    genie__share(N * O, ith, nth, &lo, &hi);
    for (t = lo; t < hi; t++) {
        int64_t b = t / O, oc = t % O, g = oc / og, y, x, c, ky, kx;
        for (y = 0; y < Ho; y++)
            for (x = 0; x < Wo; x++) {
                double acc = 0;
                uint64_t iacc = 0;
                for (c = 0; c < Cg; c++)
                    for (ky = 0; ky < KH; ky++)
                        for (kx = 0; kx < KW; kx++) {
                            int64_t iy = y * a[0] - a[2] + ky * a[4], ix = x * a[1] - a[3] + kx * a[5], xo, wo;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                            xo = xv->off + b * xv->strides[0] + (g * Cg + c) * xv->strides[1] + iy * xv->strides[2] + ix * xv->strides[3];
                            wo = wv->off + oc * wv->strides[0] + c * wv->strides[1] + ky * wv->strides[2] + kx * wv->strides[3];
                            if (fl) acc += genie__ldf(GENIE__IN(n, 0), xo, xdt) * genie__ldf(GENIE__IN(n, 1), wo, wdt);
                            else iacc += (uint64_t)genie__ldi(GENIE__IN(n, 0), xo, xdt) * (uint64_t)genie__ldi(GENIE__IN(n, 1), wo, wdt);
                        }
                if (n->nin > 2) {
                    const genie__vspec *bv = n->in[2].v;
                    if (fl) acc += genie__ldf(GENIE__IN(n, 2), bv->off + oc * bv->strides[0], n->in[2].n->dtype);
                    else iacc += (uint64_t)genie__ldi(GENIE__IN(n, 2), bv->off + oc * bv->strides[0], n->in[2].n->dtype);
                }
                {
                    int64_t oo = ov->off + b * ov->strides[0] + oc * ov->strides[1] + y * ov->strides[2] + x * ov->strides[3];
                    if (fl) genie__stf(GENIE__OUT(n), oo, n->dtype, acc);
                    else genie__sti(GENIE__OUT(n), oo, n->dtype, (int64_t)iacc);
                }
            }
    }
    return GENIE_OK;
}

/* cat/stack: each input lands in the out view narrowed along a.i[0]. */
static genie_result genie__k_cat(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    int d = (int)n->a.i[0], i;
    int64_t pos = 0, j;
    if (ith != 0) return GENIE_OK; /* runs whole on thread 0 */
    (void)nth;
    for (i = 0; i < n->nin; i++) {
        const genie__vspec *iv = n->in[i].v;
        int64_t total = genie__numel(iv->ndim, iv->shape), offs[2];
        const int64_t *sts[2];
        genie__mi m;
        if (iv->ndim == 0) continue; /* skipped legacy empty input */
        sts[0] = n->out->strides; offs[0] = n->out->off + pos * n->out->strides[d];
        sts[1] = iv->strides; offs[1] = iv->off;
        genie__mi_init(&m, iv->ndim, iv->shape, 2, sts, offs, 0);
        for (j = 0; j < total; j++, genie__mi_next(&m))
            genie__copy_elem(GENIE__OUT(n), m.off[0], n->dtype, GENIE__IN(n, i), m.off[1], n->in[i].n->dtype);
        pos += iv->shape[d];
    }
    return GENIE_OK;
}

/* index_select (a.i[0] dim; index 1-D or 0-dim), gather (a.i[0] dim; out has
   the index's shape), embedding (weight [V, D], out = indices.shape + [D]).
   Out-of-range indices are data-dependent errors, found here. */
static genie_result genie__k_index(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *tv = n->in[0].v, *xv = n->in[1].v, *ov = n->out;
    int xdt = n->in[1].n->dtype, d = (int)n->a.i[0], k;
    int64_t total = genie__numel(ov->ndim, ov->shape), lo, hi, i, offs[1];
    const int64_t *sts[1];
    genie__mi m;
    if (ith == 0 && n->op != GENIE__OP_GATHER) { /* ATen checks every index, even for an empty result */
        int64_t ni = genie__numel(xv->ndim, xv->shape), size = n->op == GENIE__OP_EMBEDDING ? tv->shape[0]
                                                               : tv->ndim ? tv->shape[d] : 1;
        const int64_t *xst = xv->strides;
        genie__mi_init(&m, xv->ndim, xv->shape, 1, &xst, &xv->off, 0);
        for (i = 0; i < ni; i++, genie__mi_next(&m)) {
            int64_t idx = genie__ldi(GENIE__IN(n, 1), m.off[0], xdt);
            if (idx < 0 || idx >= size) {
                snprintf(p->msg, sizeof p->msg, "genie_%s: index %lld is out of range for dimension %d with size %lld",
                         genie__op_names[n->op] + 6, (long long)idx, n->op == GENIE__OP_EMBEDDING ? 0 : d, (long long)size);
                return GENIE_ERR_INDEX;
            }
        }
    }
    genie__share(total, ith, nth, &lo, &hi);
    sts[0] = ov->strides;
    offs[0] = ov->off;
    genie__mi_init(&m, ov->ndim, ov->shape, 1, sts, offs, lo);
    for (i = lo; i < hi; i++, genie__mi_next(&m)) {
        int64_t idx, so = tv->off, xo = xv->off, size;
        if (n->op == GENIE__OP_EMBEDDING) {
            for (k = 0; k < xv->ndim; k++) xo += m.ix[k] * xv->strides[k];
            idx = genie__ldi(GENIE__IN(n, 1), xo, xdt);
            size = tv->shape[0];
            so = (int64_t)((uint64_t)so + (uint64_t)GENIE__WMUL(idx, tv->strides[0]) + (uint64_t)(m.ix[ov->ndim - 1] * tv->strides[1]));
        } else if (n->op == GENIE__OP_INDEX_SELECT) {
            if (xv->ndim) xo += m.ix[d] * xv->strides[0];
            idx = genie__ldi(GENIE__IN(n, 1), xo, xdt);
            size = tv->ndim ? tv->shape[d] : 1;
            for (k = 0; k < tv->ndim; k++) so = (int64_t)((uint64_t)so + (uint64_t)GENIE__WMUL(k == d ? idx : m.ix[k], tv->strides[k]));
        } else {
            for (k = 0; k < xv->ndim; k++) xo += m.ix[k] * xv->strides[k];
            idx = genie__ldi(GENIE__IN(n, 1), xo, xdt);
            size = tv->ndim ? tv->shape[d] : 1;
            for (k = 0; k < tv->ndim; k++) so = (int64_t)((uint64_t)so + (uint64_t)GENIE__WMUL(k == d ? idx : m.ix[k], tv->strides[k]));
        }
        if (idx < 0 || idx >= size) { /* (so wrapped for such an index: it is never used) */
            snprintf(p->msg, sizeof p->msg, "genie_%s: index %lld is out of range for dimension %d with size %lld",
                     genie__op_names[n->op] + 6, (long long)idx, n->op == GENIE__OP_EMBEDDING ? 0 : d, (long long)size);
            return GENIE_ERR_INDEX;
        }
        genie__copy_elem(GENIE__OUT(n), m.off[0], n->dtype, GENIE__IN(n, 0), so, n->in[0].n->dtype);
    }
    return GENIE_OK;
}
/* Its fast path for index_select and embedding over a contiguous source: whole
   rows (the dims after the indexed one) copied; every index is checked first,
   by every thread, so none copies before an error (the reference's message,
   written by thread 0). Threads share the (outer, index) rows. */
static int genie__index_rows_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *tv = n->in[0].v;
    return cpu > GENIE_CPU_REFERENCE && (n->op == GENIE__OP_INDEX_SELECT || n->op == GENIE__OP_EMBEDDING) && tv->ndim >= 1 &&
           n->in[0].n->dtype == n->dtype && genie__is_contig(tv->ndim, tv->shape, tv->strides) &&
           genie__is_contig(n->out->ndim, n->out->shape, n->out->strides);
}
static int64_t genie__index_at(const genie__node *n, int64_t i) { /* index i in row-major order */
    const genie__vspec *xv = n->in[1].v;
    int64_t off = xv->off;
    int k;
    for (k = xv->ndim - 1; k >= 0; k--) {
        off += (i % xv->shape[k]) * xv->strides[k];
        i /= xv->shape[k];
    }
    return genie__ldi(GENIE__IN(n, 1), off, n->in[1].n->dtype);
}
static genie_result genie__k_index_rows(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *tv = n->in[0].v, *xv = n->in[1].v;
    const int d = n->op == GENIE__OP_EMBEDDING ? 0 : (int)n->a.i[0];
    const size_t es = genie__dt_size[n->dtype];
    const int64_t S = tv->shape[d], inner = genie__numel(tv->ndim - d - 1, tv->shape + d + 1), ni = genie__numel(xv->ndim, xv->shape);
    const char *src = (const char *)GENIE__IN(n, 0) + (size_t)tv->off * es;
    char *out = (char *)GENIE__OUT(n) + (size_t)n->out->off * es;
    int64_t i, lo, hi, r;
    for (i = 0; i < ni; i++) {
        int64_t idx = genie__index_at(n, i);
        if (idx < 0 || idx >= S) {
            if (ith == 0)
                snprintf(p->msg, sizeof p->msg, "genie_%s: index %lld is out of range for dimension %d with size %lld",
                         genie__op_names[n->op] + 6, (long long)idx, n->op == GENIE__OP_EMBEDDING ? 0 : d, (long long)S);
            return GENIE_ERR_INDEX;
        }
    }
    genie__share(genie__numel(d, tv->shape) * ni, ith, nth, &lo, &hi);
    for (r = lo; r < hi; r++) {
        const int64_t o = r / ni, idx = genie__index_at(n, r % ni);
        memcpy(out + (size_t)(r * inner) * es, src + (size_t)((o * S + idx) * inner) * es, (size_t)inner * es);
    }
    return GENIE_OK;
}

/* Its fast path for gather: a contiguous source and i64 index of the same shape but
   at dim d, read as [A, S, B] and [A, K, B]: out[a, k, b] = t[a, index[a, k, b], b]
   (the element's bits). Every thread checks every index first, so none copies
   before an error (the reference's message for the first bad index, by thread 0). */
static int genie__gather_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *tv = n->in[0].v, *xv = n->in[1].v, *ov = n->out;
    const int d = (int)n->a.i[0];
    int k;
    if (cpu <= GENIE_CPU_REFERENCE || n->op != GENIE__OP_GATHER || tv->ndim < 1 || tv->ndim != xv->ndim ||
        n->in[0].n->dtype != n->dtype || n->in[1].n->dtype != GENIE_I64 || !genie__is_contig(tv->ndim, tv->shape, tv->strides) ||
        !genie__is_contig(xv->ndim, xv->shape, xv->strides) || !genie__is_contig(ov->ndim, ov->shape, ov->strides))
        return 0;
    for (k = 0; k < tv->ndim; k++)
        if (k != d && xv->shape[k] != tv->shape[k]) return 0;
    return 1;
}
#define GENIE__GATHER_RUN(T)                                                                      \
    for (e = lo; e < hi; e++) {                                                                   \
        ((T *)(void *)out)[e] = ((const T *)(const void *)src)[(a * S + ix[e]) * B + b];          \
        if (++b == B) { b = 0; if (++k == K) { k = 0; a++; } }                                    \
    }
static genie_result genie__k_gather(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *tv = n->in[0].v, *xv = n->in[1].v;
    const int d = (int)n->a.i[0];
    const size_t es = genie__dt_size[n->dtype];
    const int64_t S = tv->shape[d], K = xv->shape[d], B = genie__numel(tv->ndim - d - 1, tv->shape + d + 1);
    const int64_t ni = genie__numel(xv->ndim, xv->shape), *ix = (const int64_t *)GENIE__IN(n, 1) + xv->off;
    const char *src = (const char *)GENIE__IN(n, 0) + (size_t)tv->off * es;
    char *out = (char *)GENIE__OUT(n) + (size_t)n->out->off * es;
    int64_t e, lo, hi, a, k, b;
    for (e = 0; e < ni; e++)
        if (ix[e] < 0 || ix[e] >= S) {
            if (ith == 0)
                snprintf(p->msg, sizeof p->msg, "genie_gather: index %lld is out of range for dimension %d with size %lld",
                         (long long)ix[e], d, (long long)S);
            return GENIE_ERR_INDEX;
        }
    genie__share(ni, ith, nth, &lo, &hi);
    if (lo >= hi) return GENIE_OK;
    b = lo % B, k = lo / B % K, a = lo / B / K;
    switch (es) {
    case 1: GENIE__GATHER_RUN(uint8_t) break;
    case 2: GENIE__GATHER_RUN(uint16_t) break;
    case 4: GENIE__GATHER_RUN(uint32_t) break;
    default: GENIE__GATHER_RUN(uint64_t) break;
    }
    return GENIE_OK;
}
#undef GENIE__GATHER_RUN

/* Its fast path for scatter / scatter_add: self, index (i64) and src contiguous, index
   and src of one shape, equal to self's but at dim d, read as [A, S, B] (self, out) and
   [A, K, B]: out = self, then for every index position in order out[a, index[a, k, b], b]
   = src[a, k, b] (the element's bits: a signalling NaN stays one; not bool, whose bytes
   the reference makes 0 or 1), or += it (f32, f64: in the element's type, the reference's
   sum rounded once; i64, i32: wrapping). Every index is checked first (the reference's
   message for the first bad one). One thread, the reference's order. */
static int genie__scatter_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *sv = n->in[0].v, *xv = n->in[1].v, *cv = n->in[2].v, *ov = n->out;
    const int d = (int)n->a.i[0], dt = n->dtype;
    int k;
    if (cpu <= GENIE_CPU_REFERENCE || sv->ndim < 1 || sv->ndim != xv->ndim || xv->ndim != cv->ndim ||
        n->in[0].n->dtype != dt || n->in[2].n->dtype != dt || n->in[1].n->dtype != GENIE_I64 || dt == GENIE_BOOL ||
        (n->op == GENIE__OP_SCATTER_ADD && dt != GENIE_F32 && dt != GENIE_F64 && dt != GENIE_I64 && dt != GENIE_I32) ||
        !genie__is_contig(sv->ndim, sv->shape, sv->strides) || !genie__is_contig(xv->ndim, xv->shape, xv->strides) ||
        !genie__is_contig(cv->ndim, cv->shape, cv->strides) || !genie__is_contig(ov->ndim, ov->shape, ov->strides))
        return 0;
    for (k = 0; k < sv->ndim; k++)
        if (xv->shape[k] != cv->shape[k] || (k != d && xv->shape[k] != sv->shape[k])) return 0;
    return 1;
}
#define GENIE__SCATTER_RUN(T, OP)                                                                 \
    for (e = 0; e < ni; e++) {                                                                    \
        T *o = (T *)(void *)out + (a * S + ix[e]) * B + b;                                        \
        OP(*o, ((const T *)(const void *)src)[e]);                                                \
        if (++b == B) { b = 0; if (++k == K) { k = 0; a++; } }                                    \
    }
#define GENIE__SC_SET(o, v) ((o) = (v))
#define GENIE__SC_ADD(o, v) ((o) += (v))
#define GENIE__SC_WRAP(o, v) ((o) = (int64_t)((uint64_t)(o) + (uint64_t)(v)))
#define GENIE__SC_WRAP32(o, v) ((o) = (int32_t)((uint32_t)(o) + (uint32_t)(v)))
static genie_result genie__k_scatter_fast(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *sv = n->in[0].v, *xv = n->in[1].v;
    const int d = (int)n->a.i[0], dt = n->dtype;
    const size_t es = genie__dt_size[dt];
    const int64_t S = sv->shape[d], K = xv->shape[d], B = genie__numel(sv->ndim - d - 1, sv->shape + d + 1);
    const int64_t ni = genie__numel(xv->ndim, xv->shape), *ix = (const int64_t *)GENIE__IN(n, 1) + xv->off;
    const char *src = (const char *)GENIE__IN(n, 2) + (size_t)n->in[2].v->off * es;
    char *out = (char *)GENIE__OUT(n) + (size_t)n->out->off * es;
    int64_t e, a = 0, k = 0, b = 0;
    (void)nth;
    if (ith != 0) return GENIE_OK;
    memmove(out, (const char *)GENIE__IN(n, 0) + (size_t)sv->off * es, (size_t)genie__numel(sv->ndim, sv->shape) * es);
    for (e = 0; e < ni; e++)
        if (ix[e] < 0 || ix[e] >= S) {
            snprintf(p->msg, sizeof p->msg, "genie_%s: index %lld is out of bounds for dimension %d with size %lld",
                     genie__op_names[n->op] + 6, (long long)ix[e], d, (long long)S);
            return GENIE_ERR_INDEX;
        }
    if (n->op == GENIE__OP_SCATTER_ADD) {
        if (dt == GENIE_F32) GENIE__SCATTER_RUN(float, GENIE__SC_ADD)
        else if (dt == GENIE_F64) GENIE__SCATTER_RUN(double, GENIE__SC_ADD)
        else if (dt == GENIE_I64) GENIE__SCATTER_RUN(int64_t, GENIE__SC_WRAP)
        else GENIE__SCATTER_RUN(int32_t, GENIE__SC_WRAP32)
    } else {
        switch (es) {
        case 1: GENIE__SCATTER_RUN(uint8_t, GENIE__SC_SET) break;
        case 2: GENIE__SCATTER_RUN(uint16_t, GENIE__SC_SET) break;
        case 4: GENIE__SCATTER_RUN(uint32_t, GENIE__SC_SET) break;
        default: GENIE__SCATTER_RUN(uint64_t, GENIE__SC_SET) break;
        }
    }
    return GENIE_OK;
}
#undef GENIE__SC_SET
#undef GENIE__SC_ADD
#undef GENIE__SC_WRAP
#undef GENIE__SC_WRAP32
#undef GENIE__SCATTER_RUN

/* sort / topk along a.i[0]: a.i[1] descending (sort) or largest (topk), a.i[2]
   k (topk), a.i[3]: 1 for the index output. Stable; NaN is the largest. */
typedef struct genie__sortkey { double f; int64_t i, idx; } genie__sortkey;
static int genie__fcmp(double a, double b) {
    int an = a != a, bn = b != b;
    if (an || bn) return an - bn;
    return (a > b) - (a < b);
}
static int genie__sk_asc_f(const void *x, const void *y) {
    const genie__sortkey *a = (const genie__sortkey *)x, *b = (const genie__sortkey *)y;
    int c = genie__fcmp(a->f, b->f);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}
static int genie__sk_desc_f(const void *x, const void *y) {
    const genie__sortkey *a = (const genie__sortkey *)x, *b = (const genie__sortkey *)y;
    int c = genie__fcmp(b->f, a->f);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}
static int genie__sk_asc_i(const void *x, const void *y) {
    const genie__sortkey *a = (const genie__sortkey *)x, *b = (const genie__sortkey *)y;
    int c = (a->i > b->i) - (a->i < b->i);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}
static int genie__sk_desc_i(const void *x, const void *y) {
    const genie__sortkey *a = (const genie__sortkey *)x, *b = (const genie__sortkey *)y;
    int c = (b->i > a->i) - (b->i < a->i);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}
static genie_result genie__k_sort(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    int d = (int)n->a.i[0], idt = n->in[0].n->dtype, fl = GENIE__IS_FLOAT(idt), desc = (int)n->a.i[1];
    int64_t len = iv->ndim ? iv->shape[d] : 1, k = (n->op == GENIE__OP_TOPK && iv->ndim) ? n->a.i[2] : len;
    int64_t ist = iv->ndim ? iv->strides[d] : 0, ost = ov->ndim ? ov->strides[d] : 0;
    int64_t shape[GENIE__MAXD], outer, lo, hi, o, j, offs[2];
    const int64_t *sts[2];
    genie__sortkey *keys = (genie__sortkey *)GENIE_MALLOC((size_t)(len ? len : 1) * sizeof(genie__sortkey));
    genie__mi m;
    if (!keys) { snprintf(p->msg, sizeof p->msg, "%s: out of memory", genie__op_names[n->op]); return GENIE_ERR_OOM; }
    if (iv->ndim) genie__outer_of(iv, d, shape);
    outer = genie__numel(iv->ndim, shape);
    sts[0] = iv->strides; sts[1] = ov->strides;
    offs[0] = iv->off; offs[1] = ov->off;
    genie__share(outer, ith, nth, &lo, &hi);
    genie__mi_init(&m, iv->ndim, shape, 2, sts, offs, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&m)) {
        for (j = 0; j < len; j++) {
            keys[j].idx = j;
            if (fl) keys[j].f = genie__ldf(GENIE__IN(n, 0), m.off[0] + j * ist, idt);
            else keys[j].i = genie__ldi(GENIE__IN(n, 0), m.off[0] + j * ist, idt);
        }
        qsort(keys, (size_t)len, sizeof *keys,
              fl ? (desc ? genie__sk_desc_f : genie__sk_asc_f) : (desc ? genie__sk_desc_i : genie__sk_asc_i));
        for (j = 0; j < k; j++) {
            if (n->a.i[3]) genie__sti(GENIE__OUT(n), m.off[1] + j * ost, GENIE_I64, keys[j].idx);
            else genie__copy_elem(GENIE__OUT(n), m.off[1] + j * ost, n->dtype, GENIE__IN(n, 0),
                                  m.off[0] + keys[j].idx * ist, idt);
        }
    }
    GENIE_FREE(keys);
    return GENIE_OK;
}
/* Its fast path for integer and bool rows: each value as a 64-bit key (the sign bit
   flipped: an unsigned order; inverted when descending) beside its 32-bit index, sorted by
   a stable LSD radix sort over the key's bytes, all eight counted in one pass and a byte
   every key shares skipped (small values sort in one to three passes): the reference's
   order (ties by index), in O(len) instead of qsort's comparisons. Rows under 2^32. */
static int genie__sort_int_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *iv = n->in[0].v;
    return cpu > GENIE_CPU_REFERENCE && iv->ndim >= 1 && !GENIE__IS_FLOAT(n->in[0].n->dtype) &&
           iv->shape[(int)n->a.i[0]] < ((int64_t)1 << 32);
}
static genie_result genie__k_sort_int(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    const int d = (int)n->a.i[0], idt = n->in[0].n->dtype;
    const uint64_t flip = n->a.i[1] ? ~((uint64_t)1 << 63) : (uint64_t)1 << 63; /* descending: the order inverted too */
    const int64_t len = iv->shape[d], k = n->op == GENIE__OP_TOPK ? n->a.i[2] : len, ist = iv->strides[d], ost = ov->strides[d];
    int64_t shape[GENIE__MAXD], lo, hi, o, j, offs[2], (*cnt)[256];
    const int64_t *sts[2];
    char *mem = (char *)GENIE_MALLOC((size_t)len * 24 + 8 * 256 * sizeof(int64_t));
    uint64_t *ka, *kb, *kt;
    uint32_t *va, *vb, *vt;
    genie__mi m;
    int pass;
    if (!mem) { snprintf(p->msg, sizeof p->msg, "%s: out of memory", genie__op_names[n->op]); return GENIE_ERR_OOM; }
    cnt = (int64_t(*)[256])(void *)mem;
    genie__outer_of(iv, d, shape);
    sts[0] = iv->strides, sts[1] = ov->strides;
    offs[0] = iv->off, offs[1] = ov->off;
    genie__share(genie__numel(iv->ndim, shape), ith, nth, &lo, &hi);
    genie__mi_init(&m, iv->ndim, shape, 2, sts, offs, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&m)) {
        const int64_t *x64 = idt == GENIE_I64 ? (const int64_t *)GENIE__IN(n, 0) + m.off[0] : NULL;
        ka = (uint64_t *)(void *)(mem + 8 * 256 * sizeof(int64_t)), kb = ka + len;
        va = (uint32_t *)(void *)(kb + len), vb = va + len;
        memset(cnt, 0, 8 * 256 * sizeof(int64_t));
        for (j = 0; j < len; j++) {
            const uint64_t u = (uint64_t)(x64 ? x64[j * ist] : genie__ldi(GENIE__IN(n, 0), m.off[0] + j * ist, idt)) ^ flip;
            ka[j] = u;
            va[j] = (uint32_t)j;
            for (pass = 0; pass < 8; pass++) cnt[pass][(u >> 8 * pass) & 255]++;
        }
        for (pass = 0; pass < 8; pass++) { /* stable: equal keys keep their index order */
            const int sh = 8 * pass;
            int64_t sum = 0, c;
            if (cnt[pass][(ka[0] >> sh) & 255] == len) continue; /* one bucket: this byte orders nothing */
            for (c = 0; c < 256; c++) {
                const int64_t x = cnt[pass][c];
                cnt[pass][c] = sum;
                sum += x;
            }
            for (j = 0; j < len; j++) {
                const int64_t at = cnt[pass][(ka[j] >> sh) & 255]++;
                kb[at] = ka[j];
                vb[at] = va[j];
            }
            kt = ka, ka = kb, kb = kt;
            vt = va, va = vb, vb = vt;
        }
        for (j = 0; j < k; j++) {
            if (n->a.i[3]) ((int64_t *)GENIE__OUT(n))[m.off[1] + j * ost] = (int64_t)va[j];
            else genie__copy_elem(GENIE__OUT(n), m.off[1] + j * ost, n->dtype, GENIE__IN(n, 0), m.off[0] + (int64_t)va[j] * ist, idt);
        }
    }
    GENIE_FREE(mem);
    return GENIE_OK;
}
/* Its fast path for f32, f16 and bf16 rows: each value's order as a 32-bit key
   (its bits turned to an unsigned order; -0 as +0 and every NaN the largest, as
   genie__fcmp has them; inverted when descending), with its index below it, then
   a stable LSD radix sort over the key's four bytes: the reference's order (ties
   by index), in O(len) instead of qsort's comparisons. Rows under 2^32. */
static int genie__sort_fast_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *iv = n->in[0].v;
    int idt = n->in[0].n->dtype;
    return cpu > GENIE_CPU_REFERENCE && iv->ndim >= 1 && (idt == GENIE_F32 || idt == GENIE_F16 || idt == GENIE_BF16) &&
           iv->shape[(int)n->a.i[0]] < ((int64_t)1 << 32);
}
static genie_result genie__k_sort_fast(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    const int d = (int)n->a.i[0], idt = n->in[0].n->dtype, desc = (int)n->a.i[1];
    const int64_t len = iv->shape[d], k = n->op == GENIE__OP_TOPK ? n->a.i[2] : len, ist = iv->strides[d], ost = ov->strides[d];
    int64_t shape[GENIE__MAXD], lo, hi, o, j, offs[2], cnt[256];
    const int64_t *sts[2];
    uint64_t *a = (uint64_t *)GENIE_MALLOC((size_t)len * 2 * sizeof(uint64_t)), *b = a ? a + len : NULL, *t;
    genie__mi m;
    int pass;
    if (!a) { snprintf(p->msg, sizeof p->msg, "%s: out of memory", genie__op_names[n->op]); return GENIE_ERR_OOM; }
    genie__outer_of(iv, d, shape);
    sts[0] = iv->strides, sts[1] = ov->strides;
    offs[0] = iv->off, offs[1] = ov->off;
    genie__share(genie__numel(iv->ndim, shape), ith, nth, &lo, &hi);
    genie__mi_init(&m, iv->ndim, shape, 2, sts, offs, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&m)) {
        const float *x32 = idt == GENIE_F32 ? (const float *)GENIE__IN(n, 0) + m.off[0] : NULL;
        j = 0;
        if (x32 && ist == 1) /* contiguous f32: the same keys without branches, in chunks of 256 the
                                compiler vectorizes (topk(10) of each row of [2048, 2048]: 9.1 -> 6.0 ms) */
            for (; j + 256 <= len; j += 256) {
                const uint32_t dm = desc ? 0xffffffffu : 0u;
                int e;
                for (e = 0; e < 256; e++) {
                    const float f = x32[j + e];
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    u = f == 0 ? 0u : u;
                    u = f != f ? 0xffffffffu : u ^ ((0u - (u >> 31)) | 0x80000000u);
                    a[j + e] = (uint64_t)(u ^ dm) << 32 | (uint64_t)(j + e);
                }
            }
        for (; j < len; j++) {
            const float f = x32 ? x32[j * ist] : (float)genie__ldf(GENIE__IN(n, 0), m.off[0] + j * ist, idt);
            uint32_t u = f == 0 ? 0u : genie__f_bits(f);
            u = f != f ? 0xffffffffu : u >> 31 ? ~u : u | 0x80000000u;
            a[j] = (uint64_t)(desc ? ~u : u) << 32 | (uint64_t)j;
        }
        if (n->op == GENIE__OP_TOPK && k > 0 && k <= 256 && k * 16 <= len) { /* few of many (a sampling step's top 50):
            the k least keys (all distinct: the index breaks ties) in a max-heap, then popped into order */
            int64_t h = 0, i, c;
            uint64_t x;
            for (j = 0; j < len; j++) {
                if (h == k && a[j] >= b[0]) continue;
                if (h < k) { /* sift up */
                    for (i = h++, x = a[j]; i > 0 && b[(i - 1) / 2] < x; i = (i - 1) / 2) b[i] = b[(i - 1) / 2];
                } else { /* replace the largest, sift down */
                    for (i = 0, x = a[j]; (c = 2 * i + 1) < k; i = c) {
                        if (c + 1 < k && b[c + 1] > b[c]) c++;
                        if (b[c] <= x) break;
                        b[i] = b[c];
                    }
                }
                b[i] = x;
            }
            for (; h > 1; h--) { /* pop the largest to the end: ascending */
                x = b[h - 1];
                b[h - 1] = b[0];
                for (i = 0; (c = 2 * i + 1) < h - 1; i = c) {
                    if (c + 1 < h - 1 && b[c + 1] > b[c]) c++;
                    if (b[c] <= x) break;
                    b[i] = b[c];
                }
                b[i] = x;
            }
            t = a, a = b, b = t;
        } else
        for (pass = 0; pass < 4; pass++) { /* stable: equal keys keep their index order */
            const int sh = 32 + 8 * pass;
            int64_t sum = 0, c;
            memset(cnt, 0, sizeof cnt);
            for (j = 0; j < len; j++) cnt[(a[j] >> sh) & 255]++;
            if (cnt[(a[0] >> sh) & 255] == len) continue; /* one bucket: this byte orders nothing */
            for (c = 0; c < 256; c++) {
                int64_t x = cnt[c];
                cnt[c] = sum;
                sum += x;
            }
            for (j = 0; j < len; j++) b[cnt[(a[j] >> sh) & 255]++] = a[j];
            t = a, a = b, b = t;
        }
        for (j = 0; j < k; j++) {
            const int64_t idx = (int64_t)(uint32_t)a[j];
            if (n->a.i[3]) ((int64_t *)GENIE__OUT(n))[m.off[1] + j * ost] = idx;
            else if (x32 && n->dtype == GENIE_F32) ((float *)GENIE__OUT(n))[m.off[1] + j * ost] = (float)(double)x32[idx * ist]; /* as copy_elem */
            else genie__copy_elem(GENIE__OUT(n), m.off[1] + j * ost, n->dtype, GENIE__IN(n, 0), m.off[0] + idx * ist, idt);
        }
    }
    GENIE_FREE(a < b ? a : b);
    return GENIE_OK;
}

/* ---- transformer operations (v1): reference kernels ---- */
/* rope: x [..., T, D] (in[0]), integer positions [T] (in[1]); out contiguous, x's
   shape. a.i[0] rotary dims rd (even, <= D), a.i[1] interleaved, a.f[0] theta.
   Pair j < rd/2 turns by pos * theta^(-2j/rd): (j, j + rd/2), or (2j, 2j+1)
   when interleaved; features from rd on pass through. */
static genie_result genie__k_rope(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v, *pv = n->in[1].v, *ov = n->out;
    int nd = xv->ndim, xdt = n->in[0].n->dtype, il = (int)n->a.i[1];
    int64_t D = xv->shape[nd - 1], rd = n->a.i[0], h = rd / 2, xs = xv->strides[nd - 1], os = ov->strides[nd - 1];
    int64_t shape[GENIE__MAXD], rows, lo, hi, r, j, offs[2];
    const int64_t *sts[2];
    genie__mi m;
    memcpy(shape, xv->shape, (size_t)nd * 8);
    shape[nd - 1] = 1;
    rows = genie__numel(nd, shape);
    sts[0] = xv->strides; sts[1] = ov->strides;
    offs[0] = xv->off; offs[1] = ov->off;
    genie__share(rows, ith, nth, &lo, &hi);
    genie__mi_init(&m, nd, shape, 2, sts, offs, lo);
    for (r = lo; r < hi; r++, genie__mi_next(&m)) {
        double pos = (double)genie__ldi(GENIE__IN(n, 1), pv->off + m.ix[nd - 2] * pv->strides[0], n->in[1].n->dtype);
        for (j = 0; j < h; j++) {
            double ang = pos * pow(n->a.f[0], -2.0 * (double)j / (double)rd), c = cos(ang), s = sin(ang);
            int64_t a = il ? 2 * j : j, b = il ? 2 * j + 1 : j + h;
            double x0 = genie__ldf(GENIE__IN(n, 0), m.off[0] + a * xs, xdt), x1 = genie__ldf(GENIE__IN(n, 0), m.off[0] + b * xs, xdt);
            genie__stf(GENIE__OUT(n), m.off[1] + a * os, n->dtype, x0 * c - x1 * s);
            genie__stf(GENIE__OUT(n), m.off[1] + b * os, n->dtype, x1 * c + x0 * s);
        }
        for (j = rd; j < D; j++)
            genie__copy_elem(GENIE__OUT(n), m.off[1] + j * os, n->dtype, GENIE__IN(n, 0), m.off[0] + j * xs, xdt);
    }
    return GENIE_OK;
}

/* scaled_dot_product_attention: in[0] q [B.., Hq, L, E], in[1] k [B.., Hkv, S, E],
   in[2] v [B.., Hkv, S, Ev], optional in[3] mask [B.., Hq, L, S] (bool: true takes
   part; float: added), all views broadcast to these shapes at capture; a.i[0]
   the number of batch dims, a.i[1] causal (top-left: key j > row i is masked),
   a.f[0] the scale. out [B.., Hq, L, Ev] contiguous. Query head h reads
   key/value head h / (Hq / Hkv). A row that no key takes part in is 0 (as
   PyTorch's CPU kernels, not the NaN of a literal softmax). */
typedef struct genie__attn {
    int nb, qdt, kdt, vdt, mdt, odt, causal, has_mask;
    int64_t B, Hq, Hkv, G, L, S, E, Ev;
    const genie__vspec *v[4];
    const char *d[4];    /* the inputs' buffers (element 0) */
    char *o;
    double scale;
} genie__attn;
static void genie__attn_init(genie__attn *a, const genie__node *n) {
    int k, nb = (int)n->a.i[0];
    memset(a, 0, sizeof *a);
    a->nb = nb;
    a->has_mask = n->nin > 3;
    for (k = 0; k < n->nin && k < 4; k++) {
        a->v[k] = n->in[k].v;
        a->d[k] = (const char *)GENIE__IN(n, k);
    }
    a->qdt = n->in[0].n->dtype; a->kdt = n->in[1].n->dtype; a->vdt = n->in[2].n->dtype;
    a->mdt = a->has_mask ? (int)n->in[3].n->dtype : (int)GENIE_F32;
    a->odt = n->dtype;
    a->o = (char *)GENIE__OUT(n);
    a->B = genie__numel(nb, a->v[0]->shape);
    a->Hq = a->v[0]->shape[nb]; a->L = a->v[0]->shape[nb + 1]; a->E = a->v[0]->shape[nb + 2];
    a->Hkv = a->v[1]->shape[nb]; a->S = a->v[1]->shape[nb + 1]; a->Ev = a->v[2]->shape[nb + 2];
    a->G = a->Hkv > 0 ? a->Hq / a->Hkv : 1;
    a->causal = (int)n->a.i[1];
    a->scale = n->a.f[0];
}
/* Element offsets of batch b (row-major over the batch dims) in q, k, v, mask. */
static void genie__attn_batch(const genie__attn *a, int64_t b, int64_t off[4]) {
    int d, k;
    for (k = 0; k < 4; k++) off[k] = a->v[k] ? a->v[k]->off : 0;
    for (d = a->nb - 1; d >= 0; d--) {
        int64_t sz = a->v[0]->shape[d], ix = b % sz;
        b /= sz;
        for (k = 0; k < 4; k++)
            if (a->v[k]) off[k] += ix * a->v[k]->strides[d];
    }
}
/* Rows (b, h, i) in double: every score, its max, then the weighted sum of v. */
static genie_result genie__k_attention(genie__kparams *p, int ith, int nth) {
    genie__attn a;
    const genie__vspec *qv, *kv, *vv, *mv;
    int64_t rows, lo, hi, r, j, e, off[4], nb;
    double *sc, *acc;
    genie__attn_init(&a, p->n);
    qv = a.v[0]; kv = a.v[1]; vv = a.v[2]; mv = a.v[3];
    nb = a.nb;
    rows = a.B * a.Hq * a.L;
    sc = (double *)GENIE_MALLOC((size_t)(a.S + a.Ev + 1) * sizeof(double));
    if (!sc) { snprintf(p->msg, sizeof p->msg, "genie_scaled_dot_product_attention: out of memory"); return GENIE_ERR_OOM; }
    acc = sc + a.S;
    genie__share(rows, ith, nth, &lo, &hi);
    for (r = lo; r < hi; r++) {
        int64_t i = r % a.L, h = r / a.L % a.Hq, b = r / (a.L * a.Hq), qo, ko, vo, mo = 0, oo;
        double mx = -INFINITY, l = 0;
        genie__attn_batch(&a, b, off);
        qo = off[0] + h * qv->strides[nb] + i * qv->strides[nb + 1];
        ko = off[1] + h / a.G * kv->strides[nb];
        vo = off[2] + h / a.G * vv->strides[nb];
        if (a.has_mask) mo = off[3] + h * mv->strides[nb] + i * mv->strides[nb + 1];
        for (j = 0; j < a.S; j++) {
            double s = 0;
            if (a.causal && j > i) s = -INFINITY;
            else {
                for (e = 0; e < a.E; e++)
                    s += genie__ldf(a.d[0], qo + e * qv->strides[nb + 2], a.qdt) *
                         genie__ldf(a.d[1], ko + j * kv->strides[nb + 1] + e * kv->strides[nb + 2], a.kdt);
                s *= a.scale;
                if (a.has_mask) {
                    double mval = genie__ldf(a.d[3], mo + j * mv->strides[nb + 2], a.mdt);
                    if (a.mdt == GENIE_BOOL) s = mval != 0 ? s : -INFINITY;
                    else s += mval;
                }
            }
            sc[j] = s;
            if (s != s || s > mx) mx = mx != mx ? mx : s;
        }
        for (e = 0; e < a.Ev; e++) acc[e] = 0;
        if (mx != -INFINITY)
            for (j = 0; j < a.S; j++) {
                double w = exp(sc[j] - mx);
                l += w;
                for (e = 0; e < a.Ev; e++) acc[e] += w * genie__ldf(a.d[2], vo + j * vv->strides[nb + 1] + e * vv->strides[nb + 2], a.vdt);
            }
        oo = ((b * a.Hq + h) * a.L + i) * a.Ev;
        for (e = 0; e < a.Ev; e++) genie__stf(a.o, oo + e, a.odt, l == 0 ? 0.0 : acc[e] / l);
    }
    GENIE_FREE(sc);
    return GENIE_OK;
}

/* cumsum along a.i[0]: out contiguous, t's shape; floats summed in double and
   rounded at each output, integers and bool in i64 (wrapping). */
static genie_result genie__k_cumsum(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v, *ov = n->out;
    int d = (int)n->a.i[0], idt = n->in[0].n->dtype, fl = GENIE__IS_FLOAT(n->dtype);
    int64_t shape[GENIE__MAXD], outer, len = iv->ndim ? iv->shape[d] : 1, lo, hi, o, j, offs[2];
    int64_t ist = iv->ndim ? iv->strides[d] : 0, ost = ov->ndim ? ov->strides[d] : 0;
    const int64_t *sts[2];
    genie__mi m;
    if (iv->ndim) genie__outer_of(iv, d, shape);
    outer = genie__numel(iv->ndim, shape);
    sts[0] = iv->strides; sts[1] = ov->strides;
    offs[0] = iv->off; offs[1] = ov->off;
    genie__share(outer, ith, nth, &lo, &hi);
    genie__mi_init(&m, iv->ndim, shape, 2, sts, offs, lo);
    for (o = lo; o < hi; o++, genie__mi_next(&m)) {
        double acc = 0;
        uint64_t iacc = 0;
        for (j = 0; j < len; j++) {
            if (fl) {
                acc += genie__ldf(GENIE__IN(n, 0), m.off[0] + j * ist, idt);
                genie__stf(GENIE__OUT(n), m.off[1] + j * ost, n->dtype, acc);
            } else {
                iacc += (uint64_t)genie__ldi(GENIE__IN(n, 0), m.off[0] + j * ist, idt);
                genie__sti(GENIE__OUT(n), m.off[1] + j * ost, n->dtype, (int64_t)iacc);
            }
        }
    }
    return GENIE_OK;
}
/* Its fast path for f32 over contiguous input and output, viewed as [outer, len,
   inner]: blocks of up to 256 columns of inner carried in double down len, in
   the reference's order (its values bit for bit) and with unit-stride rows
   whatever dim is summed; threads take (outer, block) pairs. */
static int genie__cumsum_fast_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *iv = n->in[0].v;
    const int dt = n->dtype;
    return cpu > GENIE_CPU_REFERENCE && iv->ndim >= 1 && (dt == GENIE_F32 || dt == GENIE_F16 || dt == GENIE_BF16) &&
           n->in[0].n->dtype == dt && genie__is_contig(iv->ndim, iv->shape, iv->strides) &&
           genie__is_contig(n->out->ndim, n->out->shape, n->out->strides);
}
/* The kernel's body over elements of type T, LD(p) an element as double (exact) and ST(v) a
   double rounded to it (f16/bf16 through f32, as genie__stf). */
#define GENIE__CUMSUM_BODY(T, LD, ST)                                                              \
    const T *x = (const T *)GENIE__IN(n, 0) + iv->off;                                             \
    T *y = (T *)GENIE__OUT(n) + n->out->off;                                                       \
    if (inner == 1) { /* along the last dim: four rows' chains at once (each add waits for the last) */ \
        for (w = lo; w + 4 <= hi; w += 4) {                                                        \
            const T *x0 = x + w * len, *x1 = x0 + len, *x2 = x1 + len, *x3 = x2 + len;             \
            T *y0 = y + w * len, *y1 = y0 + len, *y2 = y1 + len, *y3 = y2 + len;                   \
            double a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                 \
            for (j = 0; j < len; j++) {                                                            \
                y0[j] = ST(a0 += LD(x0[j]));                                                       \
                y1[j] = ST(a1 += LD(x1[j]));                                                       \
                y2[j] = ST(a2 += LD(x2[j]));                                                       \
                y3[j] = ST(a3 += LD(x3[j]));                                                       \
            }                                                                                      \
        }                                                                                          \
        for (; w < hi; w++) {                                                                      \
            double a = 0;                                                                          \
            for (j = 0; j < len; j++) y[w * len + j] = ST(a += LD(x[w * len + j]));                \
        }                                                                                          \
        return GENIE_OK;                                                                           \
    }                                                                                              \
    for (w = lo; w < hi; w++) {                                                                    \
        const int64_t o = w / nblk, c0 = (w % nblk) * GENIE__RCOLS, nb = inner - c0 < GENIE__RCOLS ? inner - c0 : GENIE__RCOLS; \
        const T *xr = x + o * len * inner + c0;                                                    \
        T *yr = y + o * len * inner + c0;                                                          \
        for (c = 0; c < nb; c++) acc[c] = 0;                                                       \
        for (j = 0; j < len; j++, xr += inner, yr += inner)                                        \
            for (c = 0; c < nb; c++) yr[c] = ST(acc[c] += LD(xr[c]));                              \
    }                                                                                              \
    return GENIE_OK;
/* f16/bf16 rows [r0, r1) of len along the last dim: four rows' chains at once over f32 copies
   of a chunk of each row, the f32 results converted back, both on the path's array kernels.
   The reference's values (an element is exact in f32 and double; a sum is rounded to f32,
   then to the dtype, as genie__stf), without the conversions inside the chains' loop: bf16
   [2048, 2048] 4.5-4.8 -> 2.2 ms, near f32's 1.9 (PyTorch 3.8, which sums in f32). */
#define GENIE__CS_CHUNK 512
static void genie__cumsum_half_rows(genie_cpu cpu, int dt, const uint16_t *x, uint16_t *y, int64_t len, int64_t r0,
                                    int64_t r1) {
    float xf[4][GENIE__CS_CHUNK], yf[4][GENIE__CS_CHUNK];
    int64_t w, c0, j;
    int q;
    for (w = r0; w < r1; w += 4) {
        const int nr = r1 - w < 4 ? (int)(r1 - w) : 4;
        double a[4] = {0, 0, 0, 0};
        for (c0 = 0; c0 < len; c0 += GENIE__CS_CHUNK) {
            const int64_t nc = len - c0 < GENIE__CS_CHUNK ? len - c0 : GENIE__CS_CHUNK;
            for (q = 0; q < nr; q++) genie__hconv(cpu, dt, 0, xf[q], x + (w + q) * len + c0, nc);
            if (nr == 4) /* each add waits for the last: four chains */
                for (j = 0; j < nc; j++) {
                    yf[0][j] = (float)(a[0] += xf[0][j]);
                    yf[1][j] = (float)(a[1] += xf[1][j]);
                    yf[2][j] = (float)(a[2] += xf[2][j]);
                    yf[3][j] = (float)(a[3] += xf[3][j]);
                }
            else
                for (q = 0; q < nr; q++)
                    for (j = 0; j < nc; j++) yf[q][j] = (float)(a[q] += xf[q][j]);
            for (q = 0; q < nr; q++) genie__hconv(cpu, dt, 1, y + (w + q) * len + c0, yf[q], nc);
        }
    }
}
#define GENIE__CS_F32(v) ((double)(v))
#define GENIE__CS_TOF32(v) ((float)(v))
#define GENIE__CS_H(v) ((double)genie__h2f(v))
#define GENIE__CS_TOH(v) genie__f2h((float)(v))
#define GENIE__CS_BF(v) ((double)genie__bf2f(v))
#define GENIE__CS_TOBF(v) genie__f2bf((float)(v))
static genie_result genie__k_cumsum_with(genie_cpu cpu, genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const genie__vspec *iv = n->in[0].v;
    const int d = (int)n->a.i[0];
    const int64_t len = iv->shape[d], inner = genie__numel(iv->ndim - d - 1, iv->shape + d + 1);
    const int64_t nblk = (inner + GENIE__RCOLS - 1) / GENIE__RCOLS;
    int64_t lo, hi, w, j, c;
    double acc[GENIE__RCOLS];
    genie__share(genie__numel(d, iv->shape) * nblk, ith, nth, &lo, &hi);
    if (inner == 1 && (n->dtype == GENIE_F16 || n->dtype == GENIE_BF16)) {
        genie__cumsum_half_rows(cpu, n->dtype, (const uint16_t *)GENIE__IN(n, 0) + iv->off, (uint16_t *)GENIE__OUT(n) + n->out->off,
                                len, lo, hi);
        return GENIE_OK;
    }
    if (n->dtype == GENIE_F16) {
        GENIE__CUMSUM_BODY(uint16_t, GENIE__CS_H, GENIE__CS_TOH)
    } else if (n->dtype == GENIE_BF16) {
        GENIE__CUMSUM_BODY(uint16_t, GENIE__CS_BF, GENIE__CS_TOBF)
    } else {
        GENIE__CUMSUM_BODY(float, GENIE__CS_F32, GENIE__CS_TOF32)
    }
}
static genie_result genie__k_cumsum_fast_generic(genie__kparams *p, int ith, int nth) {
    return genie__k_cumsum_with(GENIE_CPU_GENERIC, p, ith, nth);
}
#ifdef GENIE__X86
static genie_result genie__k_cumsum_fast_avx2(genie__kparams *p, int ith, int nth) {
    return genie__k_cumsum_with(GENIE_CPU_AVX2, p, ith, nth);
}
static genie_result genie__k_cumsum_fast_avx512(genie__kparams *p, int ith, int nth) {
    return genie__k_cumsum_with(GENIE_CPU_AVX512, p, ith, nth);
}
#endif
#undef GENIE__CS_CHUNK
#undef GENIE__CS_F32
#undef GENIE__CS_TOF32
#undef GENIE__CS_H
#undef GENIE__CS_TOH
#undef GENIE__CS_BF
#undef GENIE__CS_TOBF
#undef GENIE__CUMSUM_BODY

/* Element k of a dims-long stride list of view v, 0 past its dims (a 0-dim
   view read as one element of any rank). */
static int64_t genie__st_or0(const genie__vspec *v, int k) { return k < v->ndim ? v->strides[k] : 0; }
/* scatter / scatter_add: in[0] self, in[1] index (i64), in[2] src, a.i[0] dim d;
   out contiguous, self's shape: self, then for every index position (row-major)
   out[pos with dim d = index[pos]] = src[pos] (or += src[pos]). One thread, in
   order: the last write wins (PyTorch leaves duplicates unspecified). */
static genie_result genie__k_scatter(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *sv = n->in[0].v, *xv = n->in[1].v, *cv = n->in[2].v, *ov = n->out;
    int d = (int)n->a.i[0], odt = n->dtype, xdt = n->in[1].n->dtype, cdt = n->in[2].n->dtype, nd, k;
    int64_t total = genie__numel(sv->ndim, sv->shape), ni = genie__numel(xv->ndim, xv->shape), i, offs[2], sts[2][GENIE__MAXD];
    int64_t size = ov->ndim ? ov->shape[d] : 1;
    const int64_t *stp[2];
    genie__mi m;
    (void)nth;
    if (ith != 0) return GENIE_OK;
    stp[0] = sv->strides; stp[1] = ov->strides;
    offs[0] = sv->off; offs[1] = ov->off;
    genie__mi_init(&m, sv->ndim, sv->shape, 2, stp, offs, 0);
    for (i = 0; i < total; i++, genie__mi_next(&m))
        genie__copy_elem(GENIE__OUT(n), m.off[1], odt, GENIE__IN(n, 0), m.off[0], n->in[0].n->dtype);
    nd = xv->ndim;
    for (k = 0; k < nd; k++) { sts[0][k] = xv->strides[k]; sts[1][k] = genie__st_or0(cv, k); }
    stp[0] = sts[0]; stp[1] = sts[1];
    offs[0] = xv->off; offs[1] = cv->off;
    genie__mi_init(&m, nd, xv->shape, 2, stp, offs, 0);
    for (i = 0; i < ni; i++, genie__mi_next(&m)) {
        int64_t idx = genie__ldi(GENIE__IN(n, 1), m.off[0], xdt), to = ov->off;
        if (idx < 0 || idx >= size) {
            snprintf(p->msg, sizeof p->msg, "genie_%s: index %lld is out of bounds for dimension %d with size %lld",
                     genie__op_names[n->op] + 6, (long long)idx, d, (long long)size);
            return GENIE_ERR_INDEX;
        }
        for (k = 0; k < (ov->ndim > nd ? ov->ndim : nd); k++)
            to += (k == d ? idx : k < nd ? m.ix[k] : 0) * genie__st_or0(ov, k);
        if (n->op == GENIE__OP_SCATTER)
            genie__copy_elem(GENIE__OUT(n), to, odt, GENIE__IN(n, 2), m.off[1], cdt);
        else if (GENIE__IS_FLOAT(odt))
            genie__stf(GENIE__OUT(n), to, odt, genie__ldf(GENIE__OUT(n), to, odt) + genie__ldf(GENIE__IN(n, 2), m.off[1], cdt));
        else
            genie__sti(GENIE__OUT(n), to, odt, (int64_t)((uint64_t)genie__ldi(GENIE__OUT(n), to, odt) +
                                                         (uint64_t)genie__ldi(GENIE__IN(n, 2), m.off[1], cdt)));
    }
    return GENIE_OK;
}

/* index_copy_ (in place): in[0] index (i64, <= 1-D), in[1] src, a.i[0] dim d;
   out is the destination's view over a copy of the old version: slice k of
   src along d goes to slice index[k]. Every index is checked first. */
static genie_result genie__ic_check(genie__kparams *p, int64_t size) {
    const genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v;
    int64_t ni = genie__numel(xv->ndim, xv->shape), k;
    for (k = 0; k < ni; k++) {
        int64_t idx = genie__ldi(GENIE__IN(n, 0), xv->off + (xv->ndim ? k * xv->strides[0] : 0), n->in[0].n->dtype);
        if (idx < 0 || idx >= size) {
            snprintf(p->msg, sizeof p->msg, "genie_index_copy_: index %lld is out of bounds for dimension %d with size %lld",
                     (long long)idx, (int)n->a.i[0], (long long)size);
            return GENIE_ERR_INDEX;
        }
    }
    return GENIE_OK;
}
static genie_result genie__k_index_copy(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v, *cv = n->in[1].v, *ov = n->out;
    int d = (int)n->a.i[0], nd = ov->ndim > cv->ndim ? ov->ndim : cv->ndim, k;
    int64_t size = ov->ndim ? ov->shape[d] : 1, ni = genie__numel(xv->ndim, xv->shape), shape[GENIE__MAXD], sts[2][GENIE__MAXD];
    int64_t slice, i, j, offs[2];
    const int64_t *stp[2];
    genie__mi m;
    genie_result r;
    (void)nth;
    if (ith != 0) return GENIE_OK;
    if ((r = genie__ic_check(p, size)) != GENIE_OK) return r;
    for (k = 0; k < nd; k++) { /* the slice: the larger view's shape with dim d of size 1 */
        shape[k] = k == d ? 1 : (ov->ndim > cv->ndim ? ov->shape[k] : cv->shape[k]);
        sts[0][k] = genie__st_or0(ov, k);
        sts[1][k] = genie__st_or0(cv, k);
    }
    slice = genie__numel(nd, shape);
    stp[0] = sts[0]; stp[1] = sts[1];
    for (j = 0; j < ni; j++) {
        int64_t idx = genie__ldi(GENIE__IN(n, 0), xv->off + (xv->ndim ? j * xv->strides[0] : 0), n->in[0].n->dtype);
        offs[0] = ov->off + idx * genie__st_or0(ov, d);
        offs[1] = cv->off + j * genie__st_or0(cv, d);
        genie__mi_init(&m, nd, shape, 2, stp, offs, 0);
        for (i = 0; i < slice; i++, genie__mi_next(&m))
            genie__copy_elem(GENIE__OUT(n), m.off[0], n->dtype, GENIE__IN(n, 1), m.off[1], n->in[1].n->dtype);
    }
    return GENIE_OK;
}

static genie_result genie__k_none(genie__kparams *p, int ith, int nth) {
    (void)ith; (void)nth;
    snprintf(p->msg, sizeof p->msg, "%s: no kernel", genie__op_names[p->n->op]);
    return GENIE_ERR_UNSUPPORTED;
}

static const genie__kernel genie__kernels[GENIE__K_COUNT] = {
    genie__k_none,       /* SRC: data is there from the start */
    genie__k_eltwise,    /* FULL */
    genie__k_eltwise,    /* ARANGE */
    genie__k_eltwise,    /* RAND */
    genie__k_eltwise,    /* COPY */
    genie__k_eltwise,    /* UNARY */
    genie__k_eltwise,    /* BINARY */
    genie__k_eltwise,    /* WHERE */
    genie__k_eltwise,    /* MASKED_FILL */
    genie__k_tri,        /* TRI */
    genie__k_reduce,     /* REDUCE */
    genie__k_argreduce,  /* ARGREDUCE */
    genie__k_softmax,    /* SOFTMAX */
    genie__k_layer_norm, /* LAYER_NORM */
    genie__k_matmul,     /* MATMUL */
    genie__k_conv2d,     /* CONV2D */
    genie__k_cat,        /* CAT */
    genie__k_index,      /* INDEX */
    genie__k_sort,       /* SORT */
    genie__k_rope,       /* ROPE */
    genie__k_attention,  /* ATTENTION */
    genie__k_cumsum,     /* CUMSUM */
    genie__k_scatter,    /* SCATTER */
    genie__k_index_copy, /* INDEX_COPY */
    genie__k_none,       /* VIEW: never a node */
};
static genie__kernel genie__kernel_for(int kind) { return genie__kernels[kind]; }

/* ---- fast reductions, softmax, layer_norm (issue 7) ----
   Row kernels for a contiguous f32 tensor viewed as [rows, len], the reduced
   or normalized dims the trailing ones: sum, mean, amax, amin, prod, var, std,
   logsumexp, argmax, argmin, max/min along a dim, softmax and log_softmax over
   the last dim, layer_norm and rms_norm (mean 0, no bias) over the trailing
   normalized dims; also sum, mean, var, std and logsumexp over every dim of a
   dense view (a transposed matrix), as one row in memory order. f32 rows that
   are not contiguous (softmax over another dim, a strided or sliced view whose
   row dims are one stride) are gathered into contiguous rows (genie__k_grows,
   below), with the same results as those rows. Anything else (other dtypes,
   rows over dims of several strides, empty rows) runs the reference kernels above.
   Threads take whole rows; a node under GENIE__ROWS_MIN_SHARED elements runs
   on the caller. Results do not depend on the thread count.
   Accuracy against the reference (which computes in double):
   - sum, mean, var, std, layer_norm's statistics: f64 accumulators in vector
     lanes (a conversion and an add per element: free at memory bandwidth), so
     only the final rounding to f32 differs: |err| <= 2^-24 |ref| + n 2^-52 sum|x|;
   - amax, amin, argmax, argmin, max/min: exact (NaN wins, the first on ties);
   - prod: the reference's sequential double product (reordering it would move
     where a double overflows or underflows), bit-identical, not vectorized;
   - softmax, log_softmax, logsumexp: x - max in f32 (as PyTorch), exp in f32 SIMD
     (genie__exp16_avx512: <= 1.07 ulp, genie__exp8_avx2: <= 0.93; expf on GENERIC), sums
     in f64 (SIMD: blocks of four vectors' exps added in f32 first): softmax |err| <= 2^-24 (24 + |x - max|) |ref| + 2^-147,
     log_softmax |err| <= 2^-22 |ref| + 2^-20, logsumexp |err| <= 2^-23 |ref| + 2^-20;
   - layer_norm (and var, std): the mean and variance in one f64 pass about x[0] (two passes,
     the mean's then the deviations', where x[0] lies over 32 deviations out: the shifted sums
     would lose more than 10 of f64's bits; genie__row_m2), (x - mean) * rstd in f64, rounded, then t * w + b
     in one f32 FMA: |err| <= 2^-23 (|ref| + |t w|) + the statistics' cancellation term.
   Outputs of GENIE__ROWS_NT_BYTES and more (softmax, log_softmax, layer_norm on
   AVX-512) are written with streaming stores: no read for ownership of lines that
   will not be read again soon. softmax computes exp once into a row on the stack
   (rows up to GENIE__SOFTMAX_ROW; longer ones store exp and rescale the output in
   cache), then scales that row while streaming it (computing exp twice to stream
   measured slower: 22-26 ms vs 25-40 ms for [4096, 4096]).
   The exp functions are self-contained per ISA so they can later be merged with
   the SIMD elementwise table (vmath). */
#define GENIE__ROWS_MIN_SHARED (1 << 16) /* elements below which a row kernel runs on the caller */
#define GENIE__ROWS_NT_BYTES (8 << 20)   /* outputs from which row ops stream their stores */
#define GENIE__SOFTMAX_ROW 4096          /* longest softmax row streamed from a stack row (16 KiB) */

typedef struct genie__rowk {
    double (*sum)(const float *x, int64_t n);                  /* sum x, in f64 */
    double (*sqdev)(const float *x, int64_t n, double mean);   /* sum (x - mean)^2, in f64 */
    float (*maxmin)(const float *x, int64_t n, int want_max);  /* NaN when the row has one */
    int64_t (*find)(const float *x, int64_t n, float v);       /* first x == v (first NaN if v is NaN) */
    double (*sumexp)(const float *x, float *y, int64_t n, float mx); /* sum exp(x - mx); y = exp(x - mx) unless NULL;
                                                                      mx >= every x (or NaN: exp's domain) */
    void (*scale)(const float *x, float *y, int64_t n, float s, int nt); /* y = x * s (x may be y) */
    /* nt: the output is large (GENIE__ROWS_NT_BYTES): store it past the caches where the path can */
    void (*subsub)(const float *x, float *y, int64_t n, float a, float b, int nt); /* y = (x - a) - b */
    void (*norm)(const float *x, float *y, int64_t n, double mean, double rstd, const float *w, const float *b, int nt);
    double (*sumsq)(const float *x, int64_t n, double c, double *s1); /* sum (x - c)^2 and *s1 = sum (x - c), in f64 */
    /* sumexp(x, t, n, mx) while the previous row's exps tp[n] go out scaled, yp = tp * sp streamed:
       a large softmax's rows pipelined (genie__k_rows), its stores beside this row's arithmetic */
    double (*sumexp_scale)(const float *x, float *t, int64_t n, float mx, const float *tp, float *yp, float sp);
} genie__rowk;

/* GENERIC: plain C, the same arithmetic as the SIMD paths. */
static double genie__rsum_c(const float *x, int64_t n) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) { s0 += x[j]; s1 += x[j + 1]; s2 += x[j + 2]; s3 += x[j + 3]; }
    for (; j < n; j++) s0 += x[j];
    return (s0 + s1) + (s2 + s3);
}
static double genie__rsqdev_c(const float *x, int64_t n, double mean) {
    double s0 = 0, s1 = 0;
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
        double d0 = x[j] - mean, d1 = x[j + 1] - mean;
        s0 += d0 * d0;
        s1 += d1 * d1;
    }
    for (; j < n; j++) s0 += (x[j] - mean) * (x[j] - mean);
    return s0 + s1;
}
static double genie__rsumsq_c(const float *x, int64_t n, double c, double *s1) {
    double a0 = 0, a1 = 0, q0 = 0, q1 = 0;
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
        const double d0 = x[j] - c, d1 = x[j + 1] - c;
        a0 += d0, a1 += d1;
        q0 += d0 * d0, q1 += d1 * d1;
    }
    for (; j < n; j++) a0 += x[j] - c, q0 += (x[j] - c) * (x[j] - c);
    *s1 = a0 + a1;
    return q0 + q1;
}
static float genie__rmax_c(const float *x, int64_t n, int want_max) {
    float m = x[0];
    int64_t j;
    for (j = 0; j < n; j++) {
        if (x[j] != x[j]) return x[j];
        if (want_max ? x[j] > m : x[j] < m) m = x[j];
    }
    return m;
}
static int64_t genie__rfind_c(const float *x, int64_t n, float v) {
    int64_t j;
    for (j = 0; j < n; j++)
        if (v != v ? x[j] != x[j] : x[j] == v) return j;
    return 0;
}
static double genie__rsumexp_c(const float *x, float *y, int64_t n, float mx) {
    double s = 0;
    int64_t j;
    for (j = 0; j < n; j++) {
        float e = expf(x[j] - mx);
        if (y) y[j] = e;
        s += e;
    }
    return s;
}
static void genie__rscale_c(const float *x, float *y, int64_t n, float s, int nt) {
    int64_t j;
    (void)nt;
    for (j = 0; j < n; j++) y[j] = x[j] * s;
}
static double genie__rsumexp_scale_c(const float *x, float *t, int64_t n, float mx, const float *tp, float *yp, float sp) {
    genie__rscale_c(tp, yp, n, sp, 1);
    return genie__rsumexp_c(x, t, n, mx);
}
static void genie__rsubsub_c(const float *x, float *y, int64_t n, float a, float b, int nt) {
    int64_t j;
    (void)nt;
    for (j = 0; j < n; j++) y[j] = (x[j] - a) - b;
}
/* t = (x - mean) * rstd rounded to f32, then t * w + b rounded once. */
static void genie__rnorm_c(const float *x, float *y, int64_t n, double mean, double rstd, const float *w, const float *b,
                           int nt) {
    int64_t j;
    (void)nt;
    for (j = 0; j < n; j++) {
        double t = (float)((x[j] - mean) * rstd);
        if (w) t *= w[j];
        if (b) t += b[j];
        y[j] = (float)t;
    }
}

#ifdef GENIE__X86
/* The same target attributes as >>gemm's (an identical redefinition there is allowed). */
#define GENIE__AVX2 __attribute__((target("avx2,fma,f16c")))
#define GENIE__AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
/* 2^(j/16), j = 0..15, rounded to f32 (genie__exp16_avx512's table; decimal, as C++ before 17
   has no hexadecimal floating constants: each is the f32 0x1.0b5586p+0, ... exactly) */
static const float genie__exp2_16[16] = {1.0f,        1.04427378f, 1.09050773f, 1.13878863f, 1.18920712f, 1.24185781f,
                                         1.29683955f, 1.35425555f, 1.41421356f, 1.47682615f, 1.54221083f, 1.61049033f,
                                         1.68179283f, 1.75625216f, 1.83400809f, 1.91520656f};
/* expf, 16 lanes, of x <= 0 or NaN (x minus the row's max: every caller's argument):
   k = round(x 16 / ln2) by adding 1.5 2^23 (whose low mantissa bits are then k mod 16),
   r = x - k ln2/16 (ln2/16 in two parts: k's 12 bits times the high one exact), |r| <=
   ln2/32, e^r - 1 = r + r^2/2 + r^3/6 (truncation 2^-27 relative), times 2^((k mod 16)/16)
   from a 16-entry table (one permute) and 2^floor(k/16) by scalef (gradual underflow to 0).
   Eight multiplies and FMAs a vector where Cephes' degree-5 polynomial over |r| <= ln2/2
   took eleven: the pass is FMA-bound on double-pumped AVX-512 (Zen 4, softmax's sumexp
   over 16M in L1: 3.8 -> 3.0 ms). No clamps: x below -103.97 (-inf too, where r is NaN)
   gives +0 by the final mask, NaN stays NaN. Measured over every f32 in [-104, 0]: <= 1.07
   ulp. */
static GENIE__AVX512 __m512 genie__exp16_avx512(__m512 x) {
    const __m512 sh = _mm512_set1_ps(12582912.0f); /* 1.5 2^23 */
    const __m512 kb = _mm512_fmadd_ps(x, _mm512_set1_ps(23.083120654223414f), sh), k = _mm512_sub_ps(kb, sh);
    const __m512 t = _mm512_permutexvar_ps(_mm512_castps_si512(kb), _mm512_loadu_ps(genie__exp2_16));
    __m512 r, p;
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.0433197021484375f), x); /* ln2/16 to 12 bits: 0x1.62ep-5 */
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.99663656e-06f), r);     /* the rest: 0x1.0bfbe8p-19 */
    p = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 6), r, _mm512_set1_ps(0.5f));
    p = _mm512_mul_ps(_mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f)), r);
    p = _mm512_fmadd_ps(t, p, t);
    /* x < -150 ln2: exp(x) rounds to +0. Those lanes are masked out, not scaled: a
       result that underflows costs a microcode assist (~150 cycles a vector), which
       made a causally masked softmax (-inf) 8x slower than an unmasked one */
    return _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-103.972076f), _CMP_NLT_UQ), p,
                                  _mm512_mul_ps(k, _mm512_set1_ps(0.0625f)));
}
/* expf, 8 lanes, of x <= 0 or NaN, the same way with an 8-entry table (one vpermps) and
   e^r - 1 to degree 4 over |r| <= ln2/16 (truncation 2^-29): k = round(x 8 / ln2) from x
   clamped to -104 (NaN and -inf too: the integer work below sees finite k only), r = x - k
   ln2/8 (ln2/8 to 12 bits: k's 11 bits times it exact); the table's 2^((k mod 8)/8) times
   2^(floor(k/8) + 64) by adding to its exponent (kb's bits hold k in their low 23: shifted
   left 20, the magic constant's bits leave, and the low 23 cleared, floor(k/8) << 23 is left),
   then e^r - 1 in one FMA, and 2^-64 (a normal result exact; a subnormal one rounded a
   second time). Lanes below -103.97 are cleared, NaN stays NaN. Nine multiplies and FMAs
   where Cephes' degree-5 polynomial and two scalings took twelve and a rounding, conversion
   and five integer operations: 0.39 -> 0.25 ns an element (Zen 4). Measured over every f32
   in [-104, 0]: <= 0.93 ulp (Cephes': 1.01). */
static GENIE__AVX2 __inline__ __attribute__((always_inline)) __m256 genie__exp8_avx2(__m256 x) {
    const __m256 sh = _mm256_set1_ps(12582912.0f); /* 1.5 2^23 */
    const __m256 kb = _mm256_fmadd_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)), _mm256_set1_ps(11.5415602f), sh);
    const __m256 k = _mm256_sub_ps(kb, sh);
    const __m256 t = _mm256_permutevar8x32_ps(_mm256_setr_ps(genie__exp2_16[0], genie__exp2_16[2], genie__exp2_16[4],
                                                             genie__exp2_16[6], genie__exp2_16[8], genie__exp2_16[10],
                                                             genie__exp2_16[12], genie__exp2_16[14]),
                                              _mm256_castps_si256(kb));
    const __m256i e = _mm256_and_si256(_mm256_slli_epi32(_mm256_castps_si256(kb), 20), _mm256_set1_epi32((int)0xFF800000u));
    const __m256 ts = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(t), _mm256_add_epi32(e, _mm256_set1_epi32(64 << 23))));
    __m256 r, p;
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.086639404296875f), x); /* ln2/8 to 12 bits: 0x1.62ep-4 */
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(3.99327291e-06f), r);     /* the rest: 0x1.0bfbe8p-18 */
    p = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 24), r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_mul_ps(_mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f)), r);
    p = _mm256_mul_ps(_mm256_fmadd_ps(ts, p, ts), _mm256_set1_ps(5.42101086e-20f)); /* 2^-64 */
    return _mm256_and_ps(p, _mm256_cmp_ps(x, _mm256_set1_ps(-103.972076f), _CMP_NLT_UQ));
}

/* acc[c] += exp(r[c] - m[c]) for c < nb: exp in f32 as the row kernels' rsumexp (expf; the
   path's exp of x <= 0), summed in f64: a column logsumexp's second pass (genie__k_cfused;
   m[c] >= every r[c] of its column, or NaN, or a +inf column's 0, whose sum is not used) */
typedef void (*genie__cols_sumexp_fn)(double *acc, const float *m, const float *r, int64_t nb);
static void genie__cols_sumexp_c(double *acc, const float *m, const float *r, int64_t nb) {
    int64_t c;
    for (c = 0; c < nb; c++) acc[c] += (double)expf(r[c] - m[c]);
}
#ifdef GENIE__X86
static GENIE__AVX2 void genie__cols_sumexp_avx2(double *acc, const float *m, const float *r, int64_t nb) {
    int64_t c = 0;
    for (; c + 8 <= nb; c += 8) {
        const __m256 e = genie__exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(r + c), _mm256_loadu_ps(m + c)));
        _mm256_storeu_pd(acc + c, _mm256_add_pd(_mm256_loadu_pd(acc + c), _mm256_cvtps_pd(_mm256_castps256_ps128(e))));
        _mm256_storeu_pd(acc + c + 4, _mm256_add_pd(_mm256_loadu_pd(acc + c + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1))));
    }
    genie__cols_sumexp_c(acc + c, m + c, r + c, nb - c);
}
static GENIE__AVX512 void genie__cols_sumexp_avx512(double *acc, const float *m, const float *r, int64_t nb) {
    int64_t c = 0;
    for (; c + 16 <= nb; c += 16) {
        const __m512 e = genie__exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(r + c), _mm512_loadu_ps(m + c)));
        _mm512_storeu_pd(acc + c, _mm512_add_pd(_mm512_loadu_pd(acc + c), _mm512_cvtps_pd(_mm512_castps512_ps256(e))));
        _mm512_storeu_pd(acc + c + 8, _mm512_add_pd(_mm512_loadu_pd(acc + c + 8), _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1))));
    }
    genie__cols_sumexp_c(acc + c, m + c, r + c, nb - c);
}
#endif

/* AVX-512: f64 sums 8 lanes at a time, f32 work 16 lanes with a masked tail. */
static GENIE__AVX512 __mmask16 genie__tail16(int64_t left) {
    return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}
static GENIE__AVX512 double genie__rsum_avx512(const float *x, int64_t n) {
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    int64_t j = 0;
    double s;
    for (; j + 32 <= n; j += 32) {
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(x + j)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 8)));
        a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 16)));
        a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 24)));
    }
    for (; j + 8 <= n; j += 8) a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(x + j)));
    s = _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
    for (; j < n; j++) s += x[j];
    return s;
}
static GENIE__AVX512 double genie__rsqdev_avx512(const float *x, int64_t n, double mean) {
    const __m512d m = _mm512_set1_pd(mean);
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, d0, d1;
    int64_t j = 0;
    double s;
    for (; j + 16 <= n; j += 16) {
        d0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j)), m);
        d1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j + 8)), m);
        _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0); /* as rsumexp */
        a0 = _mm512_fmadd_pd(d0, d0, a0);
        a1 = _mm512_fmadd_pd(d1, d1, a1);
    }
    s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    for (; j < n; j++) s += (x[j] - mean) * (x[j] - mean);
    return s;
}
static GENIE__AVX512 double genie__rsumsq_avx512(const float *x, int64_t n, double c, double *s1) {
    const __m512d m = _mm512_set1_pd(c);
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, q0 = a0, q1 = a0, d0, d1;
    int64_t j = 0;
    double s, q;
    for (; j + 16 <= n; j += 16) {
        d0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j)), m);
        d1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j + 8)), m);
        _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0); /* as rsumexp */
        a0 = _mm512_add_pd(a0, d0);
        a1 = _mm512_add_pd(a1, d1);
        q0 = _mm512_fmadd_pd(d0, d0, q0);
        q1 = _mm512_fmadd_pd(d1, d1, q1);
    }
    s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    q = _mm512_reduce_add_pd(_mm512_add_pd(q0, q1));
    for (; j < n; j++) s += x[j] - c, q += (x[j] - c) * (x[j] - c);
    *s1 = s;
    return q;
}
/* max of x (want_max) or of -x, NaN tracked apart: max_ps drops NaNs. */
static GENIE__AVX512 float genie__rmax_avx512(const float *x, int64_t n, int want_max) {
    const __m512 neg = _mm512_set1_ps(want_max ? 0.0f : -0.0f);
    __m512 m0 = _mm512_xor_ps(_mm512_set1_ps(x[0]), neg), m1 = m0;
    __mmask16 nan = 0;
    int64_t j = 0;
    float m;
    for (; j + 32 <= n; j += 32) {
        __m512 v0 = _mm512_xor_ps(_mm512_loadu_ps(x + j), neg), v1 = _mm512_xor_ps(_mm512_loadu_ps(x + j + 16), neg);
        m0 = _mm512_max_ps(m0, v0);
        m1 = _mm512_max_ps(m1, v1);
        nan = (__mmask16)(nan | _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q));
    }
    for (; j < n; j += 16) {
        __mmask16 t = genie__tail16(n - j);
        __m512 v = _mm512_xor_ps(_mm512_mask_loadu_ps(m0, t, x + j), neg);
        v = _mm512_mask_mov_ps(m0, t, v);
        m0 = _mm512_max_ps(m0, v);
        nan = (__mmask16)(nan | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
    }
    if (nan) return NAN;
    m = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
    return want_max ? m : -m;
}
static GENIE__AVX512 int64_t genie__rfind_avx512(const float *x, int64_t n, float v) {
    const __m512 vv = _mm512_set1_ps(v);
    int64_t j;
    for (j = 0; j < n; j += 16) {
        __mmask16 t = genie__tail16(n - j), hit;
        __m512 a = _mm512_maskz_loadu_ps(t, x + j);
        hit = v != v ? _mm512_mask_cmp_ps_mask(t, a, a, _CMP_UNORD_Q) : _mm512_mask_cmp_ps_mask(t, a, vv, _CMP_EQ_OQ);
        if (hit) return j + __builtin_ctz(hit);
    }
    return 0;
}
/* Elements before y's next 64-byte boundary (streamed stores start there), at most n. */
static GENIE__AVX512 int64_t genie__nt_head(const float *y, int64_t n) {
    int64_t h = (int64_t)((64 - ((uintptr_t)y & 63)) & 63) / 4;
    return h < n ? h : n;
}
/* Whole blocks of 64: four vectors' exps added in f32 (pairwise: the block's sum within
   2^-23 relative, as its terms are >= 0) before one conversion to the f64 lanes. The
   conversions of every vector were a fifth of the pass, which is compute-bound on
   double-pumped AVX-512 (Zen 4, [4096, 4096] softmax in cache: 0.54 -> 0.36 ns an element). */
/* y: the exps stored (softmax's row on the stack; the next row prefetched into L2, where this
   row and its exps fill L1: a 1-thread softmax of [4096, 4096] 3% faster), or not (into L1);
   tp: the previous row's exps streamed out meanwhile, yp = tp * sp (genie__k_rows' pipelined
   softmax), or NULL; inlined for each, so the loop tests neither */
static GENIE__AVX512 __inline__ __attribute__((always_inline)) double genie__rsumexp_y_avx512(const float *x, float *y, int64_t n,
                                                                                       float mx, const int st, const float *tp,
                                                                                       float *yp, float sp) {
    const __m512 m = _mm512_set1_ps(mx), sv = _mm512_set1_ps(sp);
    __m512d a0 = _mm512_setzero_pd(), a1 = a0;
    int64_t j = 0, c = 0;
    if (tp) { /* the previous row streamed 64 at a time beside the exps: its head up to yp's line first */
        c = genie__nt_head(yp, n);
        if (c) _mm512_mask_storeu_ps(yp, (__mmask16)((1u << c) - 1u), _mm512_mul_ps(_mm512_maskz_loadu_ps((__mmask16)((1u << c) - 1u), tp), sv));
    }
    for (; j + 64 <= n; j += 64) {
        __m512 e0 = genie__exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + j), m));
        __m512 e1 = genie__exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + j + 16), m));
        __m512 e2 = genie__exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + j + 32), m));
        __m512 e3 = genie__exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + j + 48), m));
        if (st) { /* the next row's four lines, as below */
            _mm512_storeu_ps(y + j, e0);
            _mm512_storeu_ps(y + j + 16, e1);
            _mm512_storeu_ps(y + j + 32, e2);
            _mm512_storeu_ps(y + j + 48, e3);
            _mm_prefetch((const char *)(x + n + j), _MM_HINT_T1);
            _mm_prefetch((const char *)(x + n + j + 16), _MM_HINT_T1);
            _mm_prefetch((const char *)(x + n + j + 32), _MM_HINT_T1);
            _mm_prefetch((const char *)(x + n + j + 48), _MM_HINT_T1);
        } else {
            _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0);
            _mm_prefetch((const char *)(x + n + j + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(x + n + j + 32), _MM_HINT_T0);
            _mm_prefetch((const char *)(x + n + j + 48), _MM_HINT_T0);
        }
        if (tp && c + 64 <= n) {
            _mm512_stream_ps(yp + c, _mm512_mul_ps(_mm512_loadu_ps(tp + c), sv));
            _mm512_stream_ps(yp + c + 16, _mm512_mul_ps(_mm512_loadu_ps(tp + c + 16), sv));
            _mm512_stream_ps(yp + c + 32, _mm512_mul_ps(_mm512_loadu_ps(tp + c + 32), sv));
            _mm512_stream_ps(yp + c + 48, _mm512_mul_ps(_mm512_loadu_ps(tp + c + 48), sv));
            c += 64;
        }
        e0 = _mm512_add_ps(_mm512_add_ps(e0, e1), _mm512_add_ps(e2, e3));
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(e0)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(e0, 1)));
    }
    if (tp) { /* the rest of the previous row */
        for (; c < n; c += 16) {
            const __mmask16 t = genie__tail16(n - c);
            const __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(t, tp + c), sv);
            if (t == 0xFFFF) _mm512_stream_ps(yp + c, v);
            else _mm512_mask_storeu_ps(yp + c, t, v);
        }
        _mm_sfence();
    }
    for (; j < n; j += 16) {
        __mmask16 t = genie__tail16(n - j);
        __m512 e = _mm512_maskz_mov_ps(t, genie__exp16_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(t, x + j), m)));
        _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0); /* the next row (if any: a prefetch never
                                                                 faults) into cache while this one computes */
        if (st) _mm512_mask_storeu_ps(y + j, t, e);
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1)));
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
}
static GENIE__AVX512 double genie__rsumexp_avx512(const float *x, float *y, int64_t n, float mx) {
    return y ? genie__rsumexp_y_avx512(x, y, n, mx, 1, NULL, NULL, 0) : genie__rsumexp_y_avx512(x, NULL, n, mx, 0, NULL, NULL, 0);
}
static GENIE__AVX512 double genie__rsumexp_scale_avx512(const float *x, float *t, int64_t n, float mx, const float *tp, float *yp,
                                                       float sp) {
    return genie__rsumexp_y_avx512(x, t, n, mx, 1, tp, yp, sp);
}
/* Streamed stores: a masked head up to y's 64-byte boundary, full aligned
   vectors with movntps (no read for ownership of the output's lines), a masked
   tail, then sfence so the stores are visible before the job ends. */
#define GENIE__NT_LOOP(VALUE)                                                                      \
    {                                                                                              \
        int64_t j = 0, h = nt ? genie__nt_head(y, n) : 0;                                          \
        for (; j < n; j += 16) {                                                                   \
            __mmask16 t = j == 0 && h ? (__mmask16)((1u << h) - 1u) : genie__tail16(n - j);        \
            __m512 xv = _mm512_maskz_loadu_ps(t, x + j), v;                                        \
            VALUE                                                                                  \
            if (nt && t == 0xFFFF) _mm512_stream_ps(y + j, v);                                     \
            else _mm512_mask_storeu_ps(y + j, t, v);                                               \
            if (j == 0 && h) j = h - 16;                                                           \
        }                                                                                          \
        if (nt) _mm_sfence();                                                                      \
    }
static GENIE__AVX512 void genie__rscale_avx512(const float *x, float *y, int64_t n, float s, int nt) {
    const __m512 sv = _mm512_set1_ps(s);
    GENIE__NT_LOOP(v = _mm512_mul_ps(xv, sv);)
}
static GENIE__AVX512 void genie__rsubsub_avx512(const float *x, float *y, int64_t n, float a, float b, int nt) {
    const __m512 av = _mm512_set1_ps(a), bv = _mm512_set1_ps(b);
    GENIE__NT_LOOP(v = _mm512_sub_ps(_mm512_sub_ps(xv, av), bv);)
}
/* (x - mean) rstd in f64, rounded, then the weight and bias in one f32 FMA: 16 lanes under
   mask t (the head up to y's line, the tail) */
static GENIE__AVX512 __m512 genie__rnorm16_avx512(const float *x, __mmask16 t, __m512d m, __m512d r, const float *w,
                                                 const float *b) {
    const __m512 xv = _mm512_maskz_loadu_ps(t, x);
    const __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(xv)), m), r));
    const __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_sub_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(xv, 1)), m), r));
    const __m512 v = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
    if (w && b) return _mm512_fmadd_ps(v, _mm512_maskz_loadu_ps(t, w), _mm512_maskz_loadu_ps(t, b));
    if (w) return _mm512_mul_ps(v, _mm512_maskz_loadu_ps(t, w));
    if (b) return _mm512_add_ps(v, _mm512_maskz_loadu_ps(t, b));
    return v;
}
/* The whole vectors in two halves of 8, each loaded, converted and stored on its own: the
   512-bit extract and insert of genie__rnorm16_avx512 took a fifth of the pass (Zen 4, a
   row in L1: 3.3 -> 2.6 ms for 16M); the same operations, so the same values. */
static GENIE__AVX512 void genie__rnorm_avx512(const float *x, float *y, int64_t n, double mean, double rstd,
                                             const float *w, const float *b, int nt) {
    const __m512d m = _mm512_set1_pd(mean), r = _mm512_set1_pd(rstd);
    const int64_t h = nt ? genie__nt_head(y, n) : 0;
    int64_t j;
    if (h) {
        const __mmask16 t = (__mmask16)((1u << h) - 1u);
        _mm512_mask_storeu_ps(y, t, genie__rnorm16_avx512(x, t, m, r, w, b));
    }
    for (j = h; j + 16 <= n; j += 16) {
        __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j)), m), r));
        __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j + 8)), m), r));
        if (w && b) {
            lo = _mm256_fmadd_ps(lo, _mm256_loadu_ps(w + j), _mm256_loadu_ps(b + j));
            hi = _mm256_fmadd_ps(hi, _mm256_loadu_ps(w + j + 8), _mm256_loadu_ps(b + j + 8));
        } else if (w) {
            lo = _mm256_mul_ps(lo, _mm256_loadu_ps(w + j));
            hi = _mm256_mul_ps(hi, _mm256_loadu_ps(w + j + 8));
        } else if (b) {
            lo = _mm256_add_ps(lo, _mm256_loadu_ps(b + j));
            hi = _mm256_add_ps(hi, _mm256_loadu_ps(b + j + 8));
        }
        if (nt) { /* a whole line at once (two streamed halves: slower) */
            _mm512_stream_ps(y + j, _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1));
        } else {
            _mm256_storeu_ps(y + j, lo);
            _mm256_storeu_ps(y + j + 8, hi);
        }
    }
    if (j < n) {
        const __mmask16 t = genie__tail16(n - j);
        _mm512_mask_storeu_ps(y + j, t, genie__rnorm16_avx512(x + j, t, m, r, w ? w + j : NULL, b ? b + j : NULL));
    }
    if (nt) _mm_sfence();
}

/* AVX2: full vectors, then a scalar tail (a masked one where exp is needed). */
static GENIE__AVX2 double genie__hsum_pd_avx2(__m256d v) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
static GENIE__AVX2 double genie__rsum_avx2(const float *x, int64_t n) {
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    int64_t j = 0;
    double s;
    for (; j + 16 <= n; j += 16) {
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(x + j)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(x + j + 4)));
        a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_loadu_ps(x + j + 8)));
        a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_loadu_ps(x + j + 12)));
    }
    s = genie__hsum_pd_avx2(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
    for (; j < n; j++) s += x[j];
    return s;
}
static GENIE__AVX2 double genie__rsqdev_avx2(const float *x, int64_t n, double mean) {
    const __m256d m = _mm256_set1_pd(mean);
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, d0, d1;
    int64_t j = 0;
    double s;
    for (; j + 8 <= n; j += 8) {
        d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j)), m);
        d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j + 4)), m);
        _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0); /* as rsumexp */
        a0 = _mm256_fmadd_pd(d0, d0, a0);
        a1 = _mm256_fmadd_pd(d1, d1, a1);
    }
    s = genie__hsum_pd_avx2(_mm256_add_pd(a0, a1));
    for (; j < n; j++) s += (x[j] - mean) * (x[j] - mean);
    return s;
}
static GENIE__AVX2 double genie__rsumsq_avx2(const float *x, int64_t n, double c, double *s1) {
    const __m256d m = _mm256_set1_pd(c);
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, q0 = a0, q1 = a0, d0, d1;
    int64_t j = 0;
    double s, q;
    for (; j + 8 <= n; j += 8) {
        d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j)), m);
        d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j + 4)), m);
        _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0); /* as rsumexp */
        a0 = _mm256_add_pd(a0, d0);
        a1 = _mm256_add_pd(a1, d1);
        q0 = _mm256_fmadd_pd(d0, d0, q0);
        q1 = _mm256_fmadd_pd(d1, d1, q1);
    }
    s = genie__hsum_pd_avx2(_mm256_add_pd(a0, a1));
    q = genie__hsum_pd_avx2(_mm256_add_pd(q0, q1));
    for (; j < n; j++) s += x[j] - c, q += (x[j] - c) * (x[j] - c);
    *s1 = s;
    return q;
}
static GENIE__AVX2 float genie__rmax_avx2(const float *x, int64_t n, int want_max) {
    const __m256 neg = _mm256_set1_ps(want_max ? 0.0f : -0.0f);
    __m256 m0 = _mm256_xor_ps(_mm256_set1_ps(x[0]), neg), m1 = m0, nan = _mm256_setzero_ps();
    __m128 h;
    int64_t j = 0;
    float m;
    for (; j + 16 <= n; j += 16) {
        __m256 v0 = _mm256_xor_ps(_mm256_loadu_ps(x + j), neg), v1 = _mm256_xor_ps(_mm256_loadu_ps(x + j + 8), neg);
        m0 = _mm256_max_ps(m0, v0);
        m1 = _mm256_max_ps(m1, v1);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v0, v1, _CMP_UNORD_Q));
    }
    m0 = _mm256_max_ps(m0, m1);
    h = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    m = _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
    if (_mm256_movemask_ps(nan)) return NAN;
    for (; j < n; j++) {
        float v = want_max ? x[j] : -x[j];
        if (v != v) return NAN;
        if (v > m) m = v;
    }
    return want_max ? m : -m;
}
static GENIE__AVX2 int64_t genie__rfind_avx2(const float *x, int64_t n, float v) {
    const __m256 vv = _mm256_set1_ps(v);
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 a = _mm256_loadu_ps(x + j);
        int hit = _mm256_movemask_ps(v != v ? _mm256_cmp_ps(a, a, _CMP_UNORD_Q) : _mm256_cmp_ps(a, vv, _CMP_EQ_OQ));
        if (hit) return j + __builtin_ctz((unsigned)hit);
    }
    for (; j < n; j++)
        if (v != v ? x[j] != x[j] : x[j] == v) return j;
    return 0;
}
/* Elements before y's next 32-byte boundary where nt (AVX2's streamed stores start there), at most n. */
static int64_t genie__nt8_head(const float *y, int64_t n, int nt) {
    int64_t h = nt ? (int64_t)((32 - ((uintptr_t)y & 31)) & 31) / 4 : 0;
    return h < n ? h : n;
}
/* As genie__rsumexp_y_avx512: inlined for y stored or not, and for a previous row streamed out or not */
static GENIE__AVX2 __inline__ __attribute__((always_inline)) double genie__rsumexp_y_avx2(const float *x, float *y, int64_t n,
                                                                                   float mx, const int st, const float *tp,
                                                                                   float *yp, float sp) {
    const __m256 m = _mm256_set1_ps(mx), sv = _mm256_set1_ps(sp);
    __m256d a0 = _mm256_setzero_pd(), a1 = a0;
    const int64_t h = tp ? genie__nt8_head(yp, n, 1) : 0;
    int64_t j = 0, c = 0;
    for (; c < h; c++) yp[c] = tp[c] * sp; /* the previous row streamed 32 at a time beside the exps: its head
                                              up to yp's 32 bytes first */
    for (; j + 32 <= n; j += 32) { /* four vectors' exps added in f32 first */
        __m256 e0 = genie__exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j), m));
        __m256 e1 = genie__exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 8), m));
        __m256 e2 = genie__exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 16), m));
        __m256 e3 = genie__exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 24), m));
        if (st) {
            _mm256_storeu_ps(y + j, e0);
            _mm256_storeu_ps(y + j + 8, e1);
            _mm256_storeu_ps(y + j + 16, e2);
            _mm256_storeu_ps(y + j + 24, e3);
            _mm_prefetch((const char *)(x + n + j), _MM_HINT_T1);
            _mm_prefetch((const char *)(x + n + j + 16), _MM_HINT_T1);
        } else {
            _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0);
            _mm_prefetch((const char *)(x + n + j + 16), _MM_HINT_T0);
        }
        if (tp && c + 32 <= n) {
            _mm256_stream_ps(yp + c, _mm256_mul_ps(_mm256_loadu_ps(tp + c), sv));
            _mm256_stream_ps(yp + c + 8, _mm256_mul_ps(_mm256_loadu_ps(tp + c + 8), sv));
            _mm256_stream_ps(yp + c + 16, _mm256_mul_ps(_mm256_loadu_ps(tp + c + 16), sv));
            _mm256_stream_ps(yp + c + 24, _mm256_mul_ps(_mm256_loadu_ps(tp + c + 24), sv));
            c += 32;
        }
        e0 = _mm256_add_ps(_mm256_add_ps(e0, e1), _mm256_add_ps(e2, e3));
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(e0)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(e0, 1)));
    }
    if (tp) { /* the rest of the previous row */
        for (; c + 8 <= n; c += 8) _mm256_stream_ps(yp + c, _mm256_mul_ps(_mm256_loadu_ps(tp + c), sv));
        for (; c < n; c++) yp[c] = tp[c] * sp;
        _mm_sfence();
    }
    for (; j < n; j += 8) {
        __m256 e;
        _mm_prefetch((const char *)(x + n + j), _MM_HINT_T0);
        if (n - j >= 8) {
            e = genie__exp8_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j), m));
            if (st) _mm256_storeu_ps(y + j, e);
        } else { /* the tail: masked lanes load 0 and are cleared after exp */
            __m256i t = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - j)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            e = genie__exp8_avx2(_mm256_sub_ps(_mm256_maskload_ps(x + j, t), m));
            e = _mm256_and_ps(e, _mm256_castsi256_ps(t));
            if (st) _mm256_maskstore_ps(y + j, t, e);
        }
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    return genie__hsum_pd_avx2(_mm256_add_pd(a0, a1));
}
static GENIE__AVX2 double genie__rsumexp_avx2(const float *x, float *y, int64_t n, float mx) {
    return y ? genie__rsumexp_y_avx2(x, y, n, mx, 1, NULL, NULL, 0) : genie__rsumexp_y_avx2(x, NULL, n, mx, 0, NULL, NULL, 0);
}
static GENIE__AVX2 double genie__rsumexp_scale_avx2(const float *x, float *t, int64_t n, float mx, const float *tp, float *yp,
                                                   float sp) {
    return genie__rsumexp_y_avx2(x, t, n, mx, 1, tp, yp, sp);
}
/* Streamed stores as AVX-512's (GENIE__NT_LOOP): elements up to y's 32-byte boundary
   (genie__nt8_head) and the tail by the scalar form (the same values), whole vectors by movntps
   when nt. */
#define GENIE__NT8_LOOP(VALUE, SCALAR)                                                             \
    {                                                                                              \
        int64_t j = 0, h = genie__nt8_head(y, n, nt);                                              \
        for (; j < h; j++) SCALAR                                                                  \
        for (; j + 8 <= n; j += 8) {                                                               \
            const __m256 xv = _mm256_loadu_ps(x + j);                                              \
            __m256 v;                                                                              \
            VALUE                                                                                  \
            if (nt) _mm256_stream_ps(y + j, v);                                                    \
            else _mm256_storeu_ps(y + j, v);                                                       \
        }                                                                                          \
        for (; j < n; j++) SCALAR                                                                  \
        if (nt) _mm_sfence();                                                                      \
    }
static GENIE__AVX2 void genie__rscale_avx2(const float *x, float *y, int64_t n, float s, int nt) {
    const __m256 sv = _mm256_set1_ps(s);
    GENIE__NT8_LOOP(v = _mm256_mul_ps(xv, sv);, y[j] = x[j] * s;)
}
static GENIE__AVX2 void genie__rsubsub_avx2(const float *x, float *y, int64_t n, float a, float b, int nt) {
    const __m256 av = _mm256_set1_ps(a), bv = _mm256_set1_ps(b);
    GENIE__NT8_LOOP(v = _mm256_sub_ps(_mm256_sub_ps(xv, av), bv);, y[j] = (x[j] - a) - b;)
}
static GENIE__AVX2 void genie__rnorm_avx2(const float *x, float *y, int64_t n, double mean, double rstd,
                                         const float *w, const float *b, int nt) {
    const __m256d m = _mm256_set1_pd(mean), r = _mm256_set1_pd(rstd);
    const int64_t h = genie__nt8_head(y, n, nt);
    int64_t j;
    genie__rnorm_c(x, y, h, mean, rstd, w, b, 0);
    for (j = h; j + 8 <= n; j += 8) {
        __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j)), m), r));
        __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j + 4)), m), r));
        __m256 v = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
        if (w && b) v = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + j), _mm256_loadu_ps(b + j));
        else if (w) v = _mm256_mul_ps(v, _mm256_loadu_ps(w + j));
        else if (b) v = _mm256_add_ps(v, _mm256_loadu_ps(b + j));
        if (nt) _mm256_stream_ps(y + j, v);
        else _mm256_storeu_ps(y + j, v);
    }
    if (j < n) genie__rnorm_c(x + j, y + j, n - j, mean, rstd, w ? w + j : NULL, b ? b + j : NULL, 0);
    if (nt) _mm_sfence();
}
#endif /* GENIE__X86 */

#define GENIE__ROWK(s) {genie__rsum_##s, genie__rsqdev_##s, genie__rmax_##s, genie__rfind_##s, \
                        genie__rsumexp_##s, genie__rscale_##s, genie__rsubsub_##s, genie__rnorm_##s, genie__rsumsq_##s, \
                        genie__rsumexp_scale_##s}
static const genie__rowk genie__rowks[GENIE_CPU_COUNT] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* AUTO */
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* REFERENCE */
    GENIE__ROWK(c),
#ifdef GENIE__X86
    GENIE__ROWK(avx2),
    GENIE__ROWK(avx512),
#endif
};

/* May node n be computed by a row kernel, its input read as [rows, len] in
   row-major order (row o: the values of in[0]'s view from o * len on)? f32
   reductions over trailing dims (k = a.i[0] leading dims kept), argreduce,
   softmax/log_softmax over the last dim, layer_norm (weight and bias
   contiguous f32); a contiguous output (element or row o at out->off + o * olen).
   Whether in[0] itself is contiguous is the caller's question (a row group
   computes it in row order: >>fuse). */
static int genie__row_centre(const genie__node *n, int64_t *rows, int64_t *len) {
    const genie__vspec *v;
    int kind = genie__op_kinds[n->op], k, i, dt;
    if (n->base || n->nin < 1 || n->numel == 0 || !genie__is_contig(n->out->ndim, n->out->shape, n->out->strides)) return 0;
    dt = n->in[0].n->dtype; /* f32, or f16/bf16 converted a row at a time (genie__k_rows) */
    if (dt != GENIE_F32 && dt != GENIE_F16 && dt != GENIE_BF16) return 0;
    v = n->in[0].v;
    switch (kind) {
    case GENIE__K_REDUCE:
        if (n->nin != 1 || n->dtype != dt) return 0;
        k = (int)n->a.i[0];
        break;
    case GENIE__K_ARGREDUCE:
        if (n->nin != 1 || n->dtype != (n->a.i[1] ? GENIE_I64 : dt)) return 0;
        k = (int)n->a.i[0];
        break;
    case GENIE__K_SOFTMAX:
        if (n->nin != 1 || n->dtype != dt || n->cdt != dt || v->ndim < 1 || n->a.i[0] != v->ndim - 1) return 0;
        k = v->ndim - 1;
        break;
    case GENIE__K_LAYER_NORM: /* weight and bias of x's dtype or f32 */
        if (n->dtype != dt) return 0;
        for (i = 1; i < n->nin; i++)
            if ((n->in[i].n->dtype != GENIE_F32 && n->in[i].n->dtype != dt) ||
                !genie__is_contig(n->in[i].v->ndim, n->in[i].v->shape, n->in[i].v->strides)) return 0;
        k = (int)n->a.i[0];
        break;
    default: return 0;
    }
    *rows = genie__numel(k, v->shape);
    *len = genie__numel(v->ndim - k, v->shape + k);
    return *rows > 0 && *len > 0;
}
/* Does node n have a row kernel on its own? A row op over a contiguous input. */
#define GENIE__ROWS_HALF_MAX (1 << 20) /* longest f16/bf16 row (four f32 rows a thread: 16 MiB; a vocabulary's
                                          logits, 128K-256K, take 2-4 MiB) */
static int genie__rows_plan(const genie__node *n, int64_t *rows, int64_t *len) {
    const genie__vspec *v = n->nin >= 1 ? n->in[0].v : NULL;
    if (!v || !genie__row_centre(n, rows, len)) return 0;
    if (n->in[0].n->dtype != GENIE_F32 && *len > GENIE__ROWS_HALF_MAX) return 0;
    if (genie__is_contig(v->ndim, v->shape, v->strides)) return 1;
    /* a sum-like reduction over every dim of a dense view (a transposed matrix): one
       row, its elements in memory order (the SIMD sums reorder anyway); not amax/amin
       (the first zero or NaN in index order) or prod (the reference's order, exactly) */
    return *rows == 1 && (n->op == GENIE__OP_SUM || n->op == GENIE__OP_MEAN || n->op == GENIE__OP_VAR ||
                          n->op == GENIE__OP_STD || n->op == GENIE__OP_LOGSUMEXP) &&
           genie__is_dense(v->ndim, v->shape, v->strides);
}

/* A row's mean (*mean) and sum of squared deviations, in one f64 pass about c = x[0]: the
   sums s1 of x - c and s2 of its squares, mean c + d (d = s1 / len), s2 - s1 d, where d^2
   <= 1024 times the variance (the shift costs the f64 sums 10 bits at most: x[0] lies no
   further than 32 deviations out); else, and for inf or NaN, two passes (the mean's, then
   the deviations'). */
static double genie__row_m2(const genie__rowk *rk, const float *x, int64_t len, double *mean) {
    const double c = x[0];
    double s1, s2 = rk->sumsq(x, len, c, &s1), d = s1 / (double)len, m2 = s2 - s1 * d;
    if (d * d * (double)len <= 1024.0 * m2) {
        *mean = c + d;
        return m2;
    }
    *mean = rk->sum(x, len) / (double)len;
    return rk->sqdev(x, len, *mean);
}
/* One row x[len] of row op `op` (arguments a) with the path's primitives: a
   reduction's value, or an argreduce's index, returned; softmax, log_softmax
   and layer_norm (weight w, bias b, or NULL) write y[len] (nt: stream it). */
static double genie__row_run(const genie__rowk *rk, int op, const genie__args *a, const float *x, int64_t len, float *y,
                             const float *w, const float *b, int nt) {
    double r = 0, mean, dof;
    int64_t j;
    float m;
    switch (op) {
    case GENIE__OP_SUM: return rk->sum(x, len);
    case GENIE__OP_MEAN: return rk->sum(x, len) / (double)len;
    case GENIE__OP_AMAX: case GENIE__OP_AMIN: /* zeros and NaNs: the first one's bits, as the reference */
        m = rk->maxmin(x, len, op == GENIE__OP_AMAX);
        return (m == 0 || m != m) ? x[rk->find(x, len, m)] : m;
    case GENIE__OP_PROD:
        r = 1;
        for (j = 0; j < len; j++) r *= x[j];
        return r;
    case GENIE__OP_VAR: case GENIE__OP_STD:
        dof = (double)len - (double)a->i[1];
        r = genie__row_m2(rk, x, len, &mean) / (dof > 0 ? dof : 0.0);
        return op == GENIE__OP_STD ? sqrt(r) : r;
    case GENIE__OP_LOGSUMEXP:
        m = rk->maxmin(x, len, 1);
        if (m == INFINITY) return INFINITY; /* sumexp needs m >= every x; exp(inf) sums to inf */
        if (m == -INFINITY) m = 0;          /* every x is -inf: log(0) */
        return log(rk->sumexp(x, NULL, len, m)) + m;
    case GENIE__OP_SOFTMAX:
        m = rk->maxmin(x, len, 1);
        if (nt && len <= GENIE__SOFTMAX_ROW) { /* exp into a row in L1, then scale it while streaming */
            float t[GENIE__SOFTMAX_ROW];
            rk->scale(t, y, len, (float)(1.0 / rk->sumexp(x, t, len, m)), 1);
        } else {
            rk->scale(y, y, len, (float)(1.0 / rk->sumexp(x, y, len, m)), 0);
        }
        return 0;
    case GENIE__OP_LOG_SOFTMAX:
        m = rk->maxmin(x, len, 1);
        rk->subsub(x, y, len, m, (float)log(rk->sumexp(x, NULL, len, m)), nt);
        return 0;
    case GENIE__OP_LAYER_NORM:
        r = genie__row_m2(rk, x, len, &mean) / (double)len;
        rk->norm(x, y, len, mean, 1.0 / sqrt(r + a->f[0]), w, b, nt);
        return 0;
    case GENIE__OP_RMS_NORM: /* layer_norm about 0: x / sqrt(mean(x^2) + eps) * w */
        r = rk->sqdev(x, len, 0.0) / (double)len;
        rk->norm(x, y, len, 0.0, 1.0 / sqrt(r + a->f[0]), w, b, nt);
        return 0;
    default: /* argmax, argmin, max/min along a dim: the index */
        m = rk->maxmin(x, len, op == GENIE__OP_ARGMAX || op == GENIE__OP_MAX_DIM);
        return (double)rk->find(x, len, m);
    }
}

static void genie__fround(genie_cpu cpu, int cdt, float *x, int64_t n);
/* f32 rows a thread of an f16/bf16 row op in the workspace (x, y, weight, bias), each a
   multiple of 16 floats */
static int64_t genie__rows_half_cap(int64_t len) { return (len + 15) & ~(int64_t)15; }
/* A weight or bias of a layer_norm row kernel as f32: in place, or converted into buf. */
static const float *genie__rows_param(genie_cpu cpu, const genie__node *n, int i, float *buf, int64_t len) {
    const genie__node *w = n->in[i].n;
    if (w->dtype == GENIE_F32) return (const float *)w->buf->data + n->in[i].v->off;
    genie__hconv(cpu, w->dtype, 0, buf, (const char *)w->buf->data + n->in[i].v->off * 2, len);
    return buf;
}
/* The two stack rows of a pipelined softmax (genie__k_rows, genie__k_rfused) in tb[GENIE__PIPE_TB]:
   1 and 3 KiB past `by` (the rows they pass beside) modulo 4 KiB. 16 KiB apart, a load 4 KiB
   from a pending store (this row's exps, the previous ones read back) waited on it, and runs
   were bimodal. */
#define GENIE__PIPE_TB (2 * GENIE__SOFTMAX_ROW + 1536)
static void genie__pipe_rows(float *tb, const void *by, float **t2) {
    t2[0] = (float *)(void *)((char *)tb + (((uintptr_t)by + 1024 - (uintptr_t)tb) & 4095));
    t2[1] = t2[0] + GENIE__SOFTMAX_ROW + 512;
}
/* Rows [lo, hi) of this thread's share, row by row with the path's primitives. f16/bf16
   rows are converted to f32 in the workspace (p->ws), computed, and rounded back (rms_norm:
   x * rstd rounded to the dtype before the weight, as the reference). */
static genie_result genie__k_rows(const genie__rowk *rk, genie_cpu cpu, genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    int kind = genie__op_kinds[n->op], has_w = (int)n->a.i[1], has_b = (int)n->a.i[2], dt = n->in[0].n->dtype;
    int64_t rows = 0, len = 0, lo, hi, o, j, cap;
    const float *x0 = (const float *)GENIE__IN(n, 0) + n->in[0].v->off, *w = NULL, *b = NULL;
    const uint16_t *h0 = (const uint16_t *)GENIE__IN(n, 0) + n->in[0].v->off;
    float *xb = NULL, *yb = NULL;
    char *out = (char *)GENIE__OUT(n);
    const int half = dt != GENIE_F32, rows_out = kind == GENIE__K_SOFTMAX || kind == GENIE__K_LAYER_NORM;
    const int rms_w = half && n->op == GENIE__OP_RMS_NORM && has_w;
    int nt;
    genie__rows_plan(n, &rows, &len);
    cap = genie__rows_half_cap(len);
    nt = !half && rows * len >= GENIE__ROWS_NT_BYTES / 4; /* log_softmax and layer_norm: the output as large as the input */
    if (half) {
        xb = (float *)(void *)p->ws + (size_t)ith * 4 * (size_t)cap;
        yb = xb + cap;
    }
    if (kind == GENIE__K_LAYER_NORM) {
        w = has_w ? (half ? genie__rows_param(cpu, n, 1, yb + cap, len) : (const float *)GENIE__IN(n, 1) + n->in[1].v->off) : NULL;
        b = has_b ? (half ? genie__rows_param(cpu, n, 1 + has_w, yb + 2 * cap, len)
                          : (const float *)GENIE__IN(n, 1 + has_w) + n->in[1 + has_w].v->off) : NULL;
    }
    genie__share(rows, ith, nth, &lo, &hi);
    if (n->op == GENIE__OP_SOFTMAX && nt && len <= GENIE__SOFTMAX_ROW && rk->sumexp_scale) {
        /* Pipelined rows: row o's exps into one stack row while row o - 1's, scaled, stream out
           of the other, so the output's stores overlap the arithmetic (a row at a time, the
           scaling pass did nothing but store: [4096, 4096], 1 thread, Zen 4, six alternating runs
           of a driver: AVX-512 6.4-7.1 -> 4.6-5.1 ms, AVX2 9.3-10.4 -> 7.8-8.5). The same values
           as genie__row_run. */
        float tb[GENIE__PIPE_TB], *t2[2], *y0 = (float *)out + n->out->off, sp = 0;
        genie__pipe_rows(tb, x0, t2);
        for (o = lo; o < hi; o++) {
            const float *x = x0 + o * len;
            const float m = rk->maxmin(x, len, 1);
            const double s = o > lo ? rk->sumexp_scale(x, t2[o & 1], len, m, t2[(o - 1) & 1], y0 + (o - 1) * len, sp)
                                    : rk->sumexp(x, t2[o & 1], len, m);
            sp = (float)(1.0 / s);
        }
        if (hi > lo) rk->scale(t2[(hi - 1) & 1], y0 + (hi - 1) * len, len, sp, 1);
        return GENIE_OK;
    }
    if (n->op == GENIE__OP_PROD && !half) /* eight rows' products at once, each row's in the reference's
                                              order (one row waited on each multiply: 3.1 ms for [2048, 2048]) */
        for (; lo + 8 <= hi; lo += 8) {
            double r8[8] = {1, 1, 1, 1, 1, 1, 1, 1};
            int q;
            for (j = 0; j < len; j++)
                for (q = 0; q < 8; q++) r8[q] *= x0[(lo + q) * len + j];
            for (q = 0; q < 8; q++) ((float *)out)[n->out->off + lo + q] = (float)r8[q];
        }
    for (o = lo; o < hi; o++) {
        const float *x = x0 + o * len;
        float *y = (float *)out + n->out->off + o * len;
        double r;
        if (half) {
            if (o + 1 < hi) /* the next row into L2 while this one computes (its kernels prefetch the f32 row) */
                for (j = 0; j < len; j += 32) GENIE__PREFETCH_L2(h0 + (o + 1) * len + j);
            genie__hconv(cpu, dt, 0, xb, h0 + o * len, len);
            x = xb;
            y = yb;
        }
        r = genie__row_run(rk, n->op, &n->a, x, len, y, rms_w ? NULL : w, b, nt);
        if (half && rows_out) {
            if (rms_w) {
                genie__fround(cpu, dt, yb, len);
                for (j = 0; j < len; j++) yb[j] *= w[j]; /* exact: two f16/bf16 values */
            }
            genie__hconv(cpu, dt, 1, (uint16_t *)(void *)out + n->out->off + o * len, yb, len);
        } else if (kind == GENIE__K_REDUCE) {
            if (half) genie__stf(out, n->out->off + o, dt, r);
            else ((float *)out)[n->out->off + o] = (float)r;
        } else if (kind == GENIE__K_ARGREDUCE) {
            j = (int64_t)r;
            if (n->a.i[1]) ((int64_t *)out)[n->out->off + o] = j;
            else if (half) ((uint16_t *)(void *)out)[n->out->off + o] = h0[o * len + j];
            else ((float *)out)[n->out->off + o] = x[j];
        }
    }
    return GENIE_OK;
}
static genie_result genie__k_rows_c(genie__kparams *p, int ith, int nth) {
    return genie__k_rows(&genie__rowks[GENIE_CPU_GENERIC], GENIE_CPU_GENERIC, p, ith, nth);
}
#ifdef GENIE__X86
static genie_result genie__k_rows_avx2(genie__kparams *p, int ith, int nth) {
    return genie__k_rows(&genie__rowks[GENIE_CPU_AVX2], GENIE_CPU_AVX2, p, ith, nth);
}
static genie_result genie__k_rows_avx512(genie__kparams *p, int ith, int nth) {
    return genie__k_rows(&genie__rowks[GENIE_CPU_AVX512], GENIE_CPU_AVX512, p, ith, nth);
}
#endif
/* The row kernel for node n on the context's path, and its threads; NULL:
   the reference (GENIE_CPU_REFERENCE, or the node does not qualify). */
static genie__kernel genie__fast_rowwise(genie_ctx *ctx, genie__kparams *p, int *nth) {
    genie__kernel fn = genie__k_rows_c;
    int64_t rows, len;
    if (p->epi || p->fg || ctx->cpu <= GENIE_CPU_REFERENCE || ctx->cpu >= GENIE_CPU_COUNT || !genie__rowks[ctx->cpu].sum ||
        !genie__rows_plan(p->n, &rows, &len)) return NULL;
#ifdef GENIE__X86
    if (ctx->cpu == GENIE_CPU_AVX2) fn = genie__k_rows_avx2;
    if (ctx->cpu == GENIE_CPU_AVX512) fn = genie__k_rows_avx512;
#endif
    p->pool = genie__tpool_get(ctx, rows > 1 && rows * len >= GENIE__ROWS_MIN_SHARED ? genie__ctx_threads(ctx) : 1);
    *nth = genie__tpool_size(p->pool);
    if (*nth > rows) *nth = (int)rows;
    if (p->n->in[0].n->dtype != GENIE_F32) { /* f16/bf16: four f32 rows a thread; without them, the reference */
        if (!genie__ws_reserve(ctx, (size_t)*nth * 4 * (size_t)genie__rows_half_cap(len) * sizeof(float))) {
            p->pool = NULL;
            *nth = 1;
            return NULL;
        }
        p->ws = ctx->ws;
    }
    return fn;
}
/* Rows that are not contiguous: softmax or log_softmax over a dim other than the
   last, a reduction or layer_norm of a strided view (a transpose, a slice). Row
   o's element j is x[xo(o) + j xs] (a row-shaped output's y[yo(o) + j ys]); the
   offsets step through the row shape (the view's shape without the row's dims,
   in its order: the outputs' order) by xst and yst. f32 in and out.
   A reduction's reduced dims that are no one run (a channel's statistics over
   [N, C, H, W]: N, then H x W) are segments: the row is nseg = numel(sshape)
   runs of slen elements at stride xs, run s at xo(o) + the offset of position s of
   sshape (strides sst), gathered a row at a time, in order (the row-major index
   within the reduced dims: an argreduce's). */
#define GENIE__GROWS 16 /* rows gathered at a time: with rows one element apart, each j a line */
#define GENIE__GROWS_MAX (1 << 20) /* longest gathered row (a thread's block: 64 MiB at most) */
#define GENIE__SEG_MIN 16          /* shortest segment of a segmented row (shorter: the reference) */
typedef struct genie__grows {
    int nd, snd, blk;        /* blk: rows a block (GENIE__GROWS; segmented: 1, the row in L2) */
    int64_t shape[GENIE__MAXD], xst[GENIE__MAXD], yst[GENIE__MAXD], sshape[GENIE__MAXD], sst[GENIE__MAXD];
    int64_t rows, len, xs, ys, slen;
} genie__grows;
/* Dims [k0, k1) of v as one run of stride *s (dims of size 1 skipped): 0 if they are not one. */
static int genie__dims_run(const genie__vspec *v, int k0, int k1, int64_t *s) {
    int64_t want = 0;
    int k, first = 1;
    *s = 1;
    for (k = k1 - 1; k >= k0; k--) {
        if (v->shape[k] == 1) continue;
        if (first) *s = v->strides[k];
        else if (v->strides[k] != want) return 0;
        want = v->strides[k] * v->shape[k];
        first = 0;
    }
    return 1;
}
/* f32 rows of unit stride (and unit-stride output rows) run in place: no gathering. */
static int genie__grows_direct(const genie__node *n, const genie__grows *g) {
    const int kind = genie__op_kinds[n->op];
    return g->xs == 1 && !g->snd && n->in[0].n->dtype == GENIE_F32 && ((kind != GENIE__K_SOFTMAX && kind != GENIE__K_LAYER_NORM) || g->ys == 1);
}
static int64_t genie__grows_cap(int64_t len);
/* Does segmented row g of n run in place (genie__grows_segsum, genie__grows_segmm): sum,
   mean, var, std, amax or amin of unit-stride segments (f16/bf16 a segment at a time
   converted to f32 in the workspace)? */
static int genie__grows_segsum_ok(const genie__node *n, const genie__grows *g) {
    return g->snd && g->xs == 1 &&
           (n->op == GENIE__OP_SUM || n->op == GENIE__OP_MEAN || n->op == GENIE__OP_VAR || n->op == GENIE__OP_STD ||
            n->op == GENIE__OP_AMAX || n->op == GENIE__OP_AMIN);
}
/* Floats of a thread's workspace: a block of gathered rows (xb), for a row-shaped result
   its rows (yb), and f16/bf16 layer_norm's weight and bias as f32; none in place. */
static int64_t genie__grows_ws(const genie__node *n, const genie__grows *g) {
    const int kind = genie__op_kinds[n->op];
    const int64_t blk = g->rows < g->blk ? g->rows : g->blk;
    if (genie__grows_direct(n, g)) return 0;
    if (genie__grows_segsum_ok(n, g)) return n->in[0].n->dtype == GENIE_F32 ? 0 : genie__grows_cap(g->slen); /* a segment */
    return blk * genie__grows_cap(g->len) * (kind == GENIE__K_SOFTMAX || kind == GENIE__K_LAYER_NORM ? 2 : 1) +
           (kind == GENIE__K_LAYER_NORM && n->in[0].n->dtype != GENIE_F32 ? 2 * genie__grows_cap(g->len) : 0);
}
static int genie__grows_plan(const genie__node *n, genie__grows *g) {
    const genie__vspec *v = n->nin >= 1 ? n->in[0].v : NULL;
    int kind = genie__op_kinds[n->op], k = 0, i;
    int64_t rows, len;
    const int dt = n->nin >= 1 ? (int)n->in[0].n->dtype : (int)GENIE_F32;
    if (!v || n->base || n->numel == 0 || v->ndim < 1 || (dt != GENIE_F32 && dt != GENIE_F16 && dt != GENIE_BF16) ||
        !genie__is_contig(n->out->ndim, n->out->shape, n->out->strides) || genie__rows_plan(n, &rows, &len)) return 0;
    switch (kind) {
    case GENIE__K_REDUCE: case GENIE__K_ARGREDUCE:
        if (n->nin != 1 || n->dtype != (kind == GENIE__K_ARGREDUCE && n->a.i[1] ? GENIE_I64 : dt)) return 0;
        k = (int)n->a.i[0];
        break;
    case GENIE__K_SOFTMAX:
        if (n->nin != 1 || n->dtype != dt || n->cdt != dt) return 0;
        break;
    case GENIE__K_LAYER_NORM: /* weight and bias of x's dtype or f32, contiguous */
        if (n->dtype != dt) return 0;
        for (i = 1; i < n->nin; i++)
            if ((n->in[i].n->dtype != GENIE_F32 && n->in[i].n->dtype != dt) ||
                !genie__is_contig(n->in[i].v->ndim, n->in[i].v->shape, n->in[i].v->strides))
                return 0;
        k = (int)n->a.i[0];
        break;
    default: return 0;
    }
    g->snd = 0, g->blk = GENIE__GROWS;
    if (kind == GENIE__K_SOFTMAX) { /* the row along dim d; the rows: every dim, d of size 1 */
        const int d = (int)n->a.i[0];
        g->nd = v->ndim;
        memcpy(g->shape, v->shape, (size_t)v->ndim * 8);
        memcpy(g->xst, v->strides, (size_t)v->ndim * 8);
        memcpy(g->yst, n->out->strides, (size_t)v->ndim * 8);
        g->shape[d] = 1;
        g->len = v->shape[d], g->xs = v->strides[d], g->ys = n->out->strides[d];
    } else { /* the row: dims [k, ndim); the rows: dims [0, k) (the output contiguous over them) */
        if (k < 0 || k >= v->ndim) return 0;
        if (!genie__dims_run(v, k, v->ndim, &g->xs)) { /* segments: [k, s) iterated, [s, ndim) the longest run */
            int s = k + 1;
            if (kind == GENIE__K_LAYER_NORM) return 0;
            while (!genie__dims_run(v, s, v->ndim, &g->xs)) s++; /* one dim is a run: s < ndim */
            g->snd = s - k, g->blk = genie__grows_segsum_ok(n, g) ? GENIE__GROWS : 1; /* else a gathered row, in L2 */
            memcpy(g->sshape, v->shape + k, (size_t)(s - k) * 8);
            memcpy(g->sst, v->strides + k, (size_t)(s - k) * 8);
            g->slen = genie__numel(v->ndim - s, v->shape + s);
            if (g->slen < GENIE__SEG_MIN) return 0;
        }
        g->nd = k;
        memcpy(g->shape, v->shape, (size_t)k * 8);
        memcpy(g->xst, v->strides, (size_t)k * 8);
        genie__contig_strides(k, g->shape, g->yst);
        for (i = 0; i < k; i++) g->yst[i] *= kind == GENIE__K_LAYER_NORM ? genie__numel(v->ndim - k, v->shape + k) : 1;
        g->len = genie__numel(v->ndim - k, v->shape + k), g->ys = 1;
        if (!g->snd) g->slen = g->len;
    }
    g->rows = genie__numel(g->nd, g->shape);
    return g->rows > 0 && g->len > 0 && (genie__grows_direct(n, g) || g->len <= GENIE__GROWS_MAX);
}
/* A gathered row's floats: a line more than a multiple of 16, so that the rows of a block
   (written a column at a time) fall in different cache sets (rows 8 KiB apart share one). */
static int64_t genie__grows_cap(int64_t len) { return genie__rows_half_cap(len) + 16; }
/* The offset of element j of the row at x0 (segments: segment j / slen, then j % slen along the run). */
static int64_t genie__grows_at(const genie__grows *g, int64_t x0, int64_t j) {
    int64_t s = j / g->slen;
    int d;
    for (d = g->snd - 1; d >= 0; d--) {
        x0 += s % g->sshape[d] * g->sst[d];
        s /= g->sshape[d];
    }
    return x0 + j % g->slen * g->xs;
}
/* Over the unit-stride segments of rows xo[0, nr) (f32 in place, f16/bf16 each converted
   into buf: genie__as_f32): r[i] = the sum of row i's x and
   (m2 not NULL: var, std) m2[i] its squared deviations from its mean, in f64, segment by
   segment in place: each segment's about its own mean (one pass: genie__row_m2), combined with the running ones as
   Chan, Golub and LeVeque's pairwise update (no second pass over memory, and no
   cancellation: every term is >= 0). Segment s of every row, then segment s + 1: a block
   of adjacent rows (channels) reads memory in order (a row at a time hopped a stride per
   segment: [64, 64, 56, 56] mean 2.8 -> 1.3 ms, 1 thread). Each row's in its own order
   whatever the block: the same results on any threads. */
/* Elements [off, off + n) of src (dtype dt) as f32: in place, or (f16/bf16) converted into buf (exact). */
static const float *genie__as_f32(genie_cpu cpu, int dt, const void *src, int64_t off, int64_t n, float *buf) {
    if (dt == GENIE_F32) return (const float *)src + off;
    genie__hconv(cpu, dt, 0, buf, (const uint16_t *)src + off, n);
    return buf;
}
static void genie__grows_segsum(const genie__rowk *rk, genie_cpu cpu, const genie__grows *g, int dt, const void *src, float *buf,
                                const int64_t *xo, int64_t nr, double *r, double *m2) {
    const int64_t *sst = g->sst, nseg = g->len / g->slen, zero = 0;
    const double nb = (double)g->slen;
    genie__mi m;
    int64_t s, i;
    for (i = 0; i < nr; i++) r[i] = 0;
    genie__mi_init(&m, g->snd, g->sshape, 1, &sst, &zero, 0);
    for (s = 0; s < nseg; s++, genie__mi_next(&m))
        for (i = 0; i < nr; i++) {
            const float *x = genie__as_f32(cpu, dt, src, xo[i] + m.off[0], g->slen, buf);
            if (m2) { /* the segment's mean and squared deviations in one pass (genie__row_m2) */
                double mb;
                const double q = genie__row_m2(rk, x, g->slen, &mb), na = (double)s * nb, d = mb - (s ? r[i] / na : 0.0);
                m2[i] = s ? m2[i] + q + d * d * (na * nb / (na + nb)) : q;
                r[i] += mb * nb;
            } else {
                r[i] += rk->sum(x, g->slen);
            }
        }
}
/* amax (want_max) or amin of the unit-stride segments of rows xo[0, nr) in place, as
   genie__grows_segsum goes: best[i] each segment's extreme combined as the reference
   (the first NaN stays, ties keep the first), at[i] the offset of the segment it came from; a zero's
   or NaN's bits are then its first one's there (earlier segments hold none). */
static void genie__grows_segmm(const genie__rowk *rk, genie_cpu cpu, const genie__grows *g, int dt, const void *src, float *buf,
                               const int64_t *xo, int64_t nr, int want_max, float *best) {
    const int64_t *sst = g->sst, nseg = g->len / g->slen, zero = 0;
    int64_t at[GENIE__GROWS], s, i;
    genie__mi m;
    genie__mi_init(&m, g->snd, g->sshape, 1, &sst, &zero, 0);
    for (s = 0; s < nseg; s++, genie__mi_next(&m))
        for (i = 0; i < nr; i++) {
            const float *x = genie__as_f32(cpu, dt, src, xo[i] + m.off[0], g->slen, buf), v = rk->maxmin(x, g->slen, want_max);
            if (!s || (best[i] == best[i] && (v != v || (want_max ? v > best[i] : v < best[i])))) best[i] = v, at[i] = xo[i] + m.off[0];
        }
    for (i = 0; i < nr; i++)
        if (best[i] == 0 || best[i] != best[i]) {
            const float *x = genie__as_f32(cpu, dt, src, at[i], g->slen, buf);
            best[i] = x[rk->find(x, g->slen, best[i])];
        }
}
/* Gather segmented row x0 (f32 or f16/bf16 of dtype dt) into the f32 row x: one run at a time. */
static void genie__grows_segs(genie_cpu cpu, const genie__grows *g, int dt, const void *src, int64_t x0, float *x) {
    const int64_t *sst = g->sst;
    genie__mi m;
    int64_t s, j;
    genie__mi_init(&m, g->snd, g->sshape, 1, &sst, &x0, 0);
    for (s = 0; s < g->len / g->slen; s++, genie__mi_next(&m), x += g->slen) {
        const float *a = (const float *)src + m.off[0];
        const uint16_t *h = (const uint16_t *)src + m.off[0];
        if (dt != GENIE_F32 && g->xs == 1) genie__hconv(cpu, dt, 0, x, h, g->slen);
        else if (dt != GENIE_F32)
            for (j = 0; j < g->slen; j++) x[j] = dt == GENIE_BF16 ? genie__bf2f(h[j * g->xs]) : genie__h2f(h[j * g->xs]);
        else if (g->xs == 1) memcpy(x, a, (size_t)g->slen * sizeof(float));
        else
            for (j = 0; j < g->slen; j++) x[j] = a[j * g->xs];
    }
}
/* Threads take blocks of g.blk rows. Unit-stride f32 rows run in place; others
   are gathered into f32 rows in the workspace (p->ws: genie__grows_ws floats a thread;
   f16/bf16 converted exactly), run with the path's primitives (the values and order of a
   contiguous row: the same results bit for bit) and a row-shaped result scattered back
   (f16/bf16 rounded once; rms_norm's x rstd rounded before its weight, as genie__k_rows). */
static genie_result genie__k_grows(const genie__rowk *rk, genie_cpu cpu, genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const int kind = genie__op_kinds[n->op], rows_out = kind == GENIE__K_SOFTMAX || kind == GENIE__K_LAYER_NORM;
    const int dt = n->in[0].n->dtype, half = dt != GENIE_F32;
    const float *x0 = (const float *)GENIE__IN(n, 0), *w = NULL, *b = NULL;
    const uint16_t *h0 = (const uint16_t *)GENIE__IN(n, 0);
    float *y0 = (float *)GENIE__OUT(n), *xb, *yb;
    uint16_t *hy = (uint16_t *)GENIE__OUT(n);
    genie__grows g;
    genie__mi m;
    const int64_t *sts[2];
    int64_t offs[2], cap, lo, hi, blk, i, j, xo[GENIE__GROWS], yo[GENIE__GROWS];
    int direct, nt, segsum, rms_w = 0;
    if (!genie__grows_plan(n, &g)) { /* checked by genie__fast_grows */
        snprintf(p->msg, sizeof p->msg, "%s: gathered rows: the view changed", genie__op_names[n->op]);
        return GENIE_ERR_UNSUPPORTED;
    }
    cap = genie__grows_cap(g.len);
    direct = genie__grows_direct(n, &g);
    xb = yb = NULL; /* in place: no workspace (p->ws may be NULL) */
    if (!direct && genie__grows_ws(n, &g) > 0) {
        xb = (float *)(void *)p->ws + (size_t)ith * (size_t)genie__grows_ws(n, &g);
        yb = rows_out ? xb + (g.rows < g.blk ? g.rows : g.blk) * cap : xb; /* (a reduction's: unused) */
    }
    nt = direct && rows_out && g.rows * g.len >= GENIE__ROWS_NT_BYTES / 4;
    segsum = genie__grows_segsum_ok(n, &g);
    if (kind == GENIE__K_LAYER_NORM) {
        const int has_w = (int)n->a.i[1], has_b = (int)n->a.i[2];
        float *pb = half ? yb + (g.rows < g.blk ? g.rows : g.blk) * cap : NULL; /* f16/bf16: f32 weight, bias */
        w = !has_w ? NULL : half ? genie__rows_param(cpu, n, 1, pb, g.len) : (const float *)GENIE__IN(n, 1) + n->in[1].v->off;
        b = !has_b ? NULL : half ? genie__rows_param(cpu, n, 1 + has_w, pb + cap, g.len)
                                 : (const float *)GENIE__IN(n, 1 + has_w) + n->in[1 + has_w].v->off;
        rms_w = half && n->op == GENIE__OP_RMS_NORM && has_w;
    }
    sts[0] = g.xst, sts[1] = g.yst;
    offs[0] = n->in[0].v->off, offs[1] = n->out->off;
    genie__share((g.rows + g.blk - 1) / g.blk, ith, nth, &lo, &hi);
    genie__mi_init(&m, g.nd, g.shape, 2, sts, offs, lo * g.blk);
    for (blk = lo; blk < hi; blk++) {
        const int64_t r0 = blk * g.blk, nr = g.rows - r0 < g.blk ? g.rows - r0 : g.blk;
        for (i = 0; i < nr; i++, genie__mi_next(&m)) xo[i] = m.off[0], yo[i] = m.off[1];
        if (segsum) { /* the rows' sums (and squared deviations) or extremes, segment by segment */
            const int op = n->op, two = op == GENIE__OP_VAR || op == GENIE__OP_STD;
            double r[GENIE__GROWS], m2[GENIE__GROWS], dof = (double)g.len - (double)n->a.i[1];
            const void *src = half ? (const void *)h0 : (const void *)x0;
            float mm[GENIE__GROWS];
            if (op == GENIE__OP_AMAX || op == GENIE__OP_AMIN) {
                genie__grows_segmm(rk, cpu, &g, dt, src, xb, xo, nr, op == GENIE__OP_AMAX, mm);
                for (i = 0; i < nr; i++) genie__stf(y0, n->out->off + r0 + i, dt, (double)mm[i]); /* f16/bf16: exact */
                continue;
            }
            genie__grows_segsum(rk, cpu, &g, dt, src, xb, xo, nr, r, two ? m2 : NULL);
            for (i = 0; i < nr; i++) { /* rounded once from f64, as the reference stores it */
                double v = op == GENIE__OP_SUM ? r[i] : op == GENIE__OP_MEAN ? r[i] / (double)g.len : m2[i] / (dof > 0 ? dof : 0.0);
                if (op == GENIE__OP_STD) v = sqrt(v);
                if (half) genie__stf(y0, n->out->off + r0 + i, dt, v);
                else y0[n->out->off + r0 + i] = (float)v;
            }
            continue;
        }
        if (g.snd)
            for (i = 0; i < nr; i++) genie__grows_segs(cpu, &g, dt, half ? (const void *)h0 : (const void *)x0, xo[i], xb + i * cap);
        else if (!direct && g.xs == 1)
            for (i = 0; i < nr; i++) {
                if (half) genie__hconv(cpu, dt, 0, xb + i * cap, h0 + xo[i], g.len);
                else memcpy(xb + i * cap, x0 + xo[i], (size_t)g.len * sizeof(float));
            }
        else if (!direct && half) /* j outer: rows one element apart read a line at each j */
            for (j = 0; j < g.len; j++)
                for (i = 0; i < nr; i++) xb[i * cap + j] = dt == GENIE_BF16 ? genie__bf2f(h0[xo[i] + j * g.xs]) : genie__h2f(h0[xo[i] + j * g.xs]);
        else if (!direct)
            for (j = 0; j < g.len; j++)
                for (i = 0; i < nr; i++) xb[i * cap + j] = x0[xo[i] + j * g.xs];
        for (i = 0; i < nr; i++) {
            const float *x = direct ? x0 + xo[i] : xb + i * cap;
            float *y = direct ? y0 + yo[i] : yb + i * cap;
            const double r = genie__row_run(rk, n->op, &n->a, x, g.len, y, rms_w ? NULL : w, b, nt);
            const int64_t o = n->out->off + r0 + i;
            if (kind == GENIE__K_REDUCE && half) genie__stf(y0, o, dt, r);
            else if (kind == GENIE__K_REDUCE) y0[o] = (float)r;
            else if (kind == GENIE__K_ARGREDUCE && n->a.i[1]) ((int64_t *)(void *)y0)[o] = (int64_t)r;
            else if (kind == GENIE__K_ARGREDUCE && half) hy[o] = h0[genie__grows_at(&g, xo[i], (int64_t)r)];
            else if (kind == GENIE__K_ARGREDUCE) y0[o] = x[(int64_t)r];
            if (rms_w) {
                genie__fround(cpu, dt, y, g.len);
                for (j = 0; j < g.len; j++) y[j] *= w[j]; /* exact: two f16/bf16 values */
            }
        }
        if (rows_out && half && g.ys == 1)
            for (i = 0; i < nr; i++) genie__hconv(cpu, dt, 1, hy + yo[i], yb + i * cap, g.len);
        else if (rows_out && half)
            for (j = 0; j < g.len; j++)
                for (i = 0; i < nr; i++)
                    hy[yo[i] + j * g.ys] = dt == GENIE_BF16 ? genie__f2bf(yb[i * cap + j]) : genie__f2h(yb[i * cap + j]);
        else if (rows_out && !direct && g.ys == 1)
            for (i = 0; i < nr; i++) memcpy(y0 + yo[i], yb + i * cap, (size_t)g.len * sizeof(float));
        else if (rows_out && !direct)
            for (j = 0; j < g.len; j++)
                for (i = 0; i < nr; i++) y0[yo[i] + j * g.ys] = yb[i * cap + j];
    }
    return GENIE_OK;
}
static genie_result genie__k_grows_c(genie__kparams *p, int ith, int nth) {
    return genie__k_grows(&genie__rowks[GENIE_CPU_GENERIC], GENIE_CPU_GENERIC, p, ith, nth);
}
#ifdef GENIE__X86
static genie_result genie__k_grows_avx2(genie__kparams *p, int ith, int nth) {
    return genie__k_grows(&genie__rowks[GENIE_CPU_AVX2], GENIE_CPU_AVX2, p, ith, nth);
}
static genie_result genie__k_grows_avx512(genie__kparams *p, int ith, int nth) {
    return genie__k_grows(&genie__rowks[GENIE_CPU_AVX512], GENIE_CPU_AVX512, p, ith, nth);
}
#endif
/* The gathered-row kernel for node n, its threads and workspace; NULL: the reference. */
static genie__kernel genie__fast_grows(genie_ctx *ctx, genie__kparams *p, int *nth) {
    genie__kernel fn = genie__k_grows_c;
    genie__grows g;
    if (p->epi || p->fg || ctx->cpu <= GENIE_CPU_REFERENCE || ctx->cpu >= GENIE_CPU_COUNT || !genie__rowks[ctx->cpu].sum ||
        !genie__grows_plan(p->n, &g)) return NULL;
#ifdef GENIE__X86
    if (ctx->cpu == GENIE_CPU_AVX2) fn = genie__k_grows_avx2;
    if (ctx->cpu == GENIE_CPU_AVX512) fn = genie__k_grows_avx512;
#endif
    p->pool = genie__tpool_get(ctx, g.rows > 1 && g.rows * g.len >= GENIE__ROWS_MIN_SHARED ? genie__ctx_threads(ctx) : 1);
    *nth = genie__tpool_size(p->pool);
    if (*nth > (g.rows + g.blk - 1) / g.blk) *nth = (int)((g.rows + g.blk - 1) / g.blk);
    if (genie__grows_ws(p->n, &g) > 0) {
        if (!genie__ws_reserve(ctx, (size_t)*nth * (size_t)genie__grows_ws(p->n, &g) * sizeof(float))) {
            p->pool = NULL;
            *nth = 1;
            return NULL;
        }
        p->ws = ctx->ws;
    }
    return fn;
}
/* argmax/argmin over every dim of a dense view that is not contiguous (x.t(), a permuted
   tensor): index order is not memory order, so the extreme is found in memory order (any
   order finds it, NaN where there is one), then the least index holding it (a zero: either
   sign; a NaN: any NaN), the reference's first one. Along a run of the unit-stride dim the
   index grows with the address, so a run's first match is its only candidate. f16/bf16 a
   tile at a time in f32 (exact). Threads split the memory; their partials meet in the
   workspace (nth floats, flags and indices) after a barrier. */
#define GENIE__ADTILE 512 /* elements a tile */
static int genie__argdense_ok(const genie__node *n, genie_cpu cpu) {
    const genie__vspec *v = n->nin == 1 ? n->in[0].v : NULL;
    const int dt = v ? (int)n->in[0].n->dtype : -1;
    return v && !n->base && cpu >= GENIE_CPU_GENERIC && cpu < GENIE_CPU_COUNT && genie__op_kinds[n->op] == GENIE__K_ARGREDUCE &&
           n->a.i[1] && n->a.i[0] == 0 && n->dtype == GENIE_I64 && (dt == GENIE_F32 || dt == GENIE_F16 || dt == GENIE_BF16) &&
           genie__numel(v->ndim, v->shape) > 1 && !genie__is_contig(v->ndim, v->shape, v->strides) &&
           genie__is_dense(v->ndim, v->shape, v->strides);
}
static genie_result genie__k_argdense(const genie__rowk *rk, genie_cpu cpu, genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *v = n->in[0].v;
    const int dt = n->in[0].n->dtype, want_max = n->op == GENIE__OP_ARGMAX;
    const int64_t total = genie__numel(v->ndim, v->shape);
    const char *x0 = (const char *)GENIE__IN(n, 0) + (size_t)v->off * genie__dt_size[dt];
    float *part = (float *)(void *)p->ws, t[GENIE__ADTILE], m = 0, g = 0;
    int64_t *at = (int64_t *)(void *)(p->ws + 8 * (size_t)nth), lst[GENIE__MAXD], lo, hi, e, c, run = 1, best = INT64_MAX;
    int8_t *has = (int8_t *)(p->ws + 16 * (size_t)nth);
    int ord[GENIE__MAXD], nd = 0, d, k, any = 0;
    genie__contig_strides(v->ndim, v->shape, lst);
    for (d = 0; d < v->ndim; d++) /* the dims by stride, descending (size 1 left out) */
        if (v->shape[d] > 1) {
            for (k = nd++; k > 0 && v->strides[ord[k - 1]] < v->strides[d]; k--) ord[k] = ord[k - 1];
            ord[k] = d;
        }
    run = v->shape[ord[nd - 1]]; /* the unit-stride dim's */
    genie__share(total, ith, nth, &lo, &hi);
    for (e = lo; e < hi; e += c) { /* the extreme, in memory order */
        const float *x;
        float y;
        c = hi - e < GENIE__ADTILE ? hi - e : GENIE__ADTILE;
        x = genie__as_f32(cpu, dt, x0, e, c, t);
        y = rk->maxmin(x, c, want_max);
        if (!any || (m == m && (y != y || (want_max ? y > m : y < m)))) m = y;
        any = 1;
    }
    part[ith] = m, has[ith] = (int8_t)any;
    genie__barrier(p->pool, nth);
    for (k = 0, any = 0; k < nth; k++) /* the same on every thread */
        if (has[k] && (!any || (g == g && (part[k] != part[k] || (want_max ? part[k] > g : part[k] < g))))) g = part[k], any = 1;
    genie__share(total / run, ith, nth, &lo, &hi); /* now by runs: a run's first match */
    for (e = lo * run; e < hi * run; e += run) {
        int64_t j, f;
        for (j = 0; j < run; j += c) {
            const float *x;
            c = run - j < GENIE__ADTILE ? run - j : GENIE__ADTILE;
            x = genie__as_f32(cpu, dt, x0, e + j, c, t);
            f = rk->find(x, c, g);
            if (g != g ? x[f] != x[f] : x[f] == g) {
                int64_t pos = e + j + f, idx = 0;
                for (d = 0; d < nd; d++) {
                    idx += pos / v->strides[ord[d]] * lst[ord[d]];
                    pos %= v->strides[ord[d]];
                }
                if (idx < best) best = idx;
                break;
            }
        }
    }
    at[ith] = best;
    genie__barrier(p->pool, nth);
    if (ith == 0) {
        for (k = 1; k < nth; k++) best = at[k] < best ? at[k] : best;
        ((int64_t *)GENIE__OUT(n))[n->out->off] = best;
    }
    return GENIE_OK;
}
static genie_result genie__k_argdense_c(genie__kparams *p, int ith, int nth) {
    return genie__k_argdense(&genie__rowks[GENIE_CPU_GENERIC], GENIE_CPU_GENERIC, p, ith, nth);
}
#ifdef GENIE__X86
static genie_result genie__k_argdense_avx2(genie__kparams *p, int ith, int nth) {
    return genie__k_argdense(&genie__rowks[GENIE_CPU_AVX2], GENIE_CPU_AVX2, p, ith, nth);
}
static genie_result genie__k_argdense_avx512(genie__kparams *p, int ith, int nth) {
    return genie__k_argdense(&genie__rowks[GENIE_CPU_AVX512], GENIE_CPU_AVX512, p, ith, nth);
}
#endif
/* The dense argreduce kernel for node n, its threads and workspace; NULL: another kernel. */
static genie__kernel genie__fast_argdense(genie_ctx *ctx, genie__kparams *p, int *nth) {
    genie__kernel fn = genie__k_argdense_c;
    if (p->epi || p->fg || !p->n->buf || !genie__argdense_ok(p->n, ctx->cpu) || !genie__rowks[ctx->cpu].sum) return NULL;
#ifdef GENIE__X86
    if (ctx->cpu == GENIE_CPU_AVX2) fn = genie__k_argdense_avx2;
    if (ctx->cpu == GENIE_CPU_AVX512) fn = genie__k_argdense_avx512;
#endif
    p->pool = genie__tpool_get(ctx, p->n->in[0].n->numel >= GENIE__ROWS_MIN_SHARED ? genie__ctx_threads(ctx) : 1);
    *nth = genie__tpool_size(p->pool);
    if (!genie__ws_reserve(ctx, (size_t)*nth * 24)) {
        p->pool = NULL;
        *nth = 1;
        return NULL;
    }
    p->ws = ctx->ws;
    return fn;
}
/* ---- end of fast reductions, softmax, layer_norm ---- */
/* ---- array kernels for elementwise operations (contiguous f32) ----
   One kernel per operation and path, all of the shape
       f(void *out, const void *a, const void *b, int64_t n)
   over n elements of dense arrays (out may be a itself; nothing else may overlap):
     unary          out f32[n] = op(a f32[n]); b unused, except
       CLAMP        b = const float[2]: min, max (NaN: no bound)
       LOGICAL_NOT  out is bool (u8)
     binary, three forms: X (a f32[n] op b f32[n]), X_VS (a f32[n] op *(const double *)b),
       X_SV (*(const double *)b op a f32[n]); EQ..LOGICAL_OR write bool (u8)
     conversions    H2F, BF2F: f16/bf16[n] -> f32[n] (a NaN made quiet, as the reference's
                    copy through double); F2H, F2BF: f32[n] -> f16/bf16[n]
   Every kernel returns what the reference gives (genie__unary_f / genie__binary_f
   in double, rounded to f32; genie__f2h / f2bf), bit for bit for
   the exact operations (everything but the list below; NaN as NaN, its payload
   aside), and within a stated bound for the transcendental ones:
     GENERIC  every kernel is a plain C loop over the reference's own formula:
              exact (0 ulp) everywhere.
     AVX2, AVX512  exp log log1p expm1 tanh sigmoid silu erf gelu gelu_tanh run on f32
              vectors (16 or 8 lanes, GENIE__VM_MATHF): range reduction in f32 with
              FMA and Cody-Waite constants, fitted polynomials, 2^k by scalef or in
              two exponent steps (subnormal results rounded once), the tails done
              without cancellation (erfc-like forms for gelu's and gelu_tanh's x < 0,
              x^2 and gelu_tanh's argument in two floats). Bounds from the reference,
              measured over every f32 input on AVX-512 (make test-vmath-all checks
              them on each path):
              exp log log1p expm1 erf <= 1 ulp; tanh sigmoid <= 2; silu <= 3; gelu
              gelu_tanh <= 4 ulp where the reference is exact to 1e-3 ulp (x >= -5)
              and <= 3 ulp everywhere from an erfc / logistic oracle in double.
              Where the reference itself cancels, 1 + erf(x/sqrt2) in gelu and
              1 + tanh(u) in gelu_tanh for x < -5, the kernels are more exact than
              the reference, and within 1e-14 of it in absolute terms.
              rsqrt runs on f64 vectors (exact); sin and cos reduce |x| <= 2^18 by
              pi/2 in f64 vectors (<= 1 ulp, measured 0 over every f32 in
              [2^15, 2^18)); a block with a larger lane (or inf, NaN) goes to libm.
              pow runs on f64 vectors (genie__P_dpow) and is exact: a lane whose
              f32 rounding the vector leaves open, or a special operand, takes
              libm's pow. The rest are exact f32 vector instructions (IEEE
              add/sub/mul/div/sqrt give the same f32 as the reference's
              double-then-round). */
typedef void (*genie__vfn)(void *out, const void *a, const void *b, int64_t n);

#define GENIE__VU_LIST(X, P)                                                                      \
    X(P, NEG) X(P, ABS) X(P, EXP) X(P, LOG) X(P, SQRT) X(P, RSQRT) X(P, SIN) X(P, COS) X(P, TANH) \
    X(P, SIGMOID) X(P, RELU) X(P, GELU) X(P, GELU_TANH) X(P, SILU) X(P, RECIPROCAL) X(P, SQUARE)  \
    X(P, FLOOR) X(P, CEIL) X(P, ROUND) X(P, SIGN) X(P, ERF) X(P, LOG1P) X(P, EXPM1) X(P, CLAMP)   \
    X(P, LOGICAL_NOT)
#define GENIE__VB_LIST(X, P) /* binary, f32 out */ \
    X(P, ADD) X(P, SUB) X(P, MUL) X(P, DIV) X(P, POW) X(P, MAXIMUM) X(P, MINIMUM)
#define GENIE__VC_LIST(X, P) /* binary, bool out */ \
    X(P, EQ) X(P, NE) X(P, LT) X(P, LE) X(P, GT) X(P, GE) X(P, LOGICAL_AND) X(P, LOGICAL_OR)
#define GENIE__VX_LIST(X, P) \
    X(P, H2F) X(P, F2H) X(P, BF2F) X(P, F2BF) X(P, RH) X(P, RBF) X(P, B2F) X(P, SEL) X(P, SELS) X(P, POWH) X(P, POWK)
/* RH, RBF: f32[n] -> f32[n] rounded to f16/bf16 and back (F2H then H2F, F2BF then BF2F, bit
   for bit): an f16/bf16 op's value in a group's f32 register, in one pass over it. */
/* B2F: bool (uint8) -> f32 0 or 1; SEL: out = a != 0 ? b : out (b f32[n]), SELS: the
   same with one f32 *b (where and masked_fill blend into out, which holds the other value);
   POWH: x ** 0.5, the reference's pow: on the SIMD paths the correctly rounded sqrt, +0 for
   -0 and +inf for -inf (an f32's square root is never within glibc pow's 0.52 ulp of f64 of
   an f32 rounding boundary, so rounding either to f32 gives the same value);
   POWK: x ** e for e in 3, 4, -2, -0.5 and 1.5 (b: the f64 e), the reference's pow: on the
   SIMD paths in f64 from the f32 x (x * x exact), rounded at most twice before the rounding
   to f32, pow's values at the specials; every f32 input gives the reference's value (make
   test-vmath-all, bound 0) */

enum genie__vop {
#define GENIE__X1(P, o) GENIE__V_##o,
#define GENIE__X3(P, o) GENIE__V_##o, GENIE__V_##o##_VS, GENIE__V_##o##_SV,
    GENIE__VU_LIST(GENIE__X1, _) GENIE__VB_LIST(GENIE__X3, _) GENIE__VC_LIST(GENIE__X3, _)
    GENIE__VX_LIST(GENIE__X1, _)
#undef GENIE__X1
#undef GENIE__X3
    GENIE__V_COUNT
};

/* ---- GENERIC: the reference's formulas over contiguous arrays ---- */
#define GENIE__VG_U(P, o)                                                                \
    static void genie__vg_##o(void *out, const void *a, const void *b, int64_t n) {     \
        float *y = (float *)out;                                                         \
        const float *x = (const float *)a;                                               \
        genie__args ar;                                                                  \
        int64_t i;                                                                       \
        memset(&ar, 0, sizeof ar);                                                       \
        if (GENIE__OP_##o == GENIE__OP_CLAMP) {                                          \
            ar.f[0] = ((const float *)b)[0];                                             \
            ar.f[1] = ((const float *)b)[1];                                             \
        }                                                                                \
        if (GENIE__OP_##o == GENIE__OP_LOGICAL_NOT)                                      \
            for (i = 0; i < n; i++) ((uint8_t *)out)[i] = x[i] == 0;                     \
        else                                                                             \
            for (i = 0; i < n; i++) y[i] = (float)genie__unary_f(GENIE__OP_##o, x[i], &ar); \
    }
#define GENIE__VG_B(P, o)                                                                          \
    static void genie__vg_##o(void *out, const void *a, const void *b, int64_t n) {               \
        const float *x = (const float *)a, *z = (const float *)b;                                  \
        int64_t i;                                                                                 \
        for (i = 0; i < n; i++) P(out, i, genie__binary_f(GENIE__OP_##o, x[i], z[i]));             \
    }                                                                                              \
    static void genie__vg_##o##_vs(void *out, const void *a, const void *b, int64_t n) {          \
        const float *x = (const float *)a;                                                         \
        double s = *(const double *)b;                                                             \
        int64_t i;                                                                                 \
        for (i = 0; i < n; i++) P(out, i, genie__binary_f(GENIE__OP_##o, x[i], s));                \
    }                                                                                              \
    static void genie__vg_##o##_sv(void *out, const void *a, const void *b, int64_t n) {          \
        const float *x = (const float *)a;                                                         \
        double s = *(const double *)b;                                                             \
        int64_t i;                                                                                 \
        for (i = 0; i < n; i++) P(out, i, genie__binary_f(GENIE__OP_##o, s, x[i]));                \
    }
#define GENIE__VG_STF(out, i, v) (((float *)(out))[i] = (float)(v))
#define GENIE__VG_STB(out, i, v) (((uint8_t *)(out))[i] = (uint8_t)((v) != 0))
GENIE__VU_LIST(GENIE__VG_U, _)
GENIE__VB_LIST(GENIE__VG_B, GENIE__VG_STF)
GENIE__VC_LIST(GENIE__VG_B, GENIE__VG_STB)
/* f16/bf16 -> f32 as the reference copies them (through double): a NaN comes out quiet */
static float genie__v_quiet(float f) { return f == f ? f : genie__bits_f(genie__f_bits(f) | 0x400000u); }
static void genie__vg_H2F(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((float *)out)[i] = genie__v_quiet(genie__h2f(((const uint16_t *)a)[i]));
}
static void genie__vg_F2H(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((uint16_t *)out)[i] = genie__f2h(((const float *)a)[i]);
}
static void genie__vg_BF2F(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((float *)out)[i] = genie__v_quiet(genie__bf2f(((const uint16_t *)a)[i]));
}
static void genie__vg_F2BF(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((uint16_t *)out)[i] = genie__f2bf(((const float *)a)[i]);
}
static void genie__vg_RH(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((float *)out)[i] = genie__v_quiet(genie__h2f(genie__f2h(((const float *)a)[i])));
}
static void genie__vg_RBF(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((float *)out)[i] = genie__v_quiet(genie__bf2f(genie__f2bf(((const float *)a)[i])));
}
static void genie__vg_B2F(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((float *)out)[i] = ((const uint8_t *)a)[i] != 0;
}
static void genie__vg_SEL(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (((const float *)a)[i] != 0) ((float *)out)[i] = ((const float *)b)[i];
}
static void genie__vg_SELS(void *out, const void *a, const void *b, int64_t n) {
    const float v = *(const float *)b;
    int64_t i;
    for (i = 0; i < n; i++)
        if (((const float *)a)[i] != 0) ((float *)out)[i] = v;
}
static void genie__vg_POWH(void *out, const void *a, const void *b, int64_t n) {
    int64_t i;
    (void)b;
    for (i = 0; i < n; i++) ((float *)out)[i] = (float)genie__binary_f(GENIE__OP_POW, ((const float *)a)[i], 0.5);
}
static void genie__vg_POWK(void *out, const void *a, const void *b, int64_t n) {
    const double e = *(const double *)b;
    int64_t i;
    for (i = 0; i < n; i++) ((float *)out)[i] = (float)genie__binary_f(GENIE__OP_POW, ((const float *)a)[i], e);
}

#ifdef GENIE__X86
/* Can s be used as an f32 operand (the result is then the same as in double)? */
static int genie__v_f32_exact(double s) {
    if (s != s) return 0;
    if (s == INFINITY || s == -INFINITY) return 1;
    return fabs(s) <= FLT_MAX && (double)(float)s == s;
}

/* Inlined into every kernel loop (the helpers of GENIE__VM_MATHF), so constants stay in registers. */
#define GENIE__VINL __inline__ __attribute__((always_inline))
/* coefficient j of the piecewise table tab (rows of 8, see below) for the piece in idx's low bits */
#define GENIE__FPC(tab, j, idx) GENIE__FPERM(GENIE__FTBL((tab)[j]), idx)

/* ---- SIMD paths: one body, two instantiations ----
   GENIE__F is an f32 vector of GENIE__FL lanes, GENIE__FM its compare mask,
   GENIE__D an f64 vector of GENIE__DL lanes (GENIE__DM its mask); the macros
   below are defined for AVX-512, the bodies instantiated, then redefined for
   AVX2. The transcendental functions run on f32 vectors (GENIE__VM_MATHF);
   rsqrt, sin and cos on f64 vectors (GENIE__VM_MATH). */

/* Coefficients of the piecewise polynomials of erf and gelu (GENIE__VM_MATHF): row 0 the
   centre of each piece, row 1 + j the coefficient of v^j, v = |x| - centre; column i:
   piece i (erf: |x| in [1/2 + i/2, 1 + i/2), piece 7 the constant 1 above 4; gelu: the
   pieces [0, 1/2, 1, 2, 3, 5, 7, 11, 15) rotated so that piece j is at column (j + 6) % 8,
   the low 3 bits of its index (see genie__P_fgelu)). Fitted by Lawson's weighted least
   squares in double against mpmath (erf: absolute, gelu: relative error). */
static const float genie__vm_erf_tab[9][8] = {
    {0.75f, 1.25f, 1.75f, 2.25f, 2.75f, 3.25f, 3.75f, 4.25f}, /* centres */
    {0.711155653f, 0.92290014f, 0.986671686f, 0.998537302f, 0.999899387f, 0.999995708f, 0.999999881f, 1.0f},
    {0.642931044f, 0.236521125f, 0.0527749956f, 0.00714231934f, 0.00058627734f, 2.9189001e-05f, 8.81426217e-07f, 0.0f},
    {-0.482198149f, -0.295651734f, -0.092356205f, -0.0160701573f, -0.00161226734f, -9.48693341e-05f, -3.30607077e-06f, 0.0f},
    {0.0267881546f, 0.167535931f, 0.0901574343f, 0.0217244942f, 0.00276037655f, 0.000195813991f, 7.97066241e-06f, 0.0f},
    {0.150675759f, -0.00613205275f, -0.0481054895f, -0.0190882534f, -0.00325771305f, -0.000286169525f, -1.37854195e-05f, 0.0f},
    {-0.0532107688f, -0.0471879542f, 0.00661702687f, 0.0106606707f, 0.00275641237f, 0.00031358542f, 1.83193588e-05f, 0.0f},
    {-0.0265842304f, 0.0205979217f, 0.00904912595f, -0.00277959416f, -0.00166782236f, -0.000273757527f, -2.06923232e-05f, 0.0f},
    {0.0178274028f, 0.0037579129f, -0.00591978757f, -0.000727111299f, 0.000634699303f, 0.00017399354f, 1.72425589e-05f, 0.0f},
};
static const float genie__vm_gelu_tab[10][8] = {
    {1.5f, 2.5f, 4.0f, 6.0f, 9.0f, 13.0f, 0.25f, 0.75f}, /* centres */
    {0.41156134f, 0.28266266f, 0.188821286f, 0.129558623f, 0.0875975788f, 0.0610188283f, 0.828064203f, 0.60046494f},
    {-0.180542558f, -0.091227904f, -0.0425994284f, -0.0205327887f, -0.0095063597f, -0.00463978387f, -0.590868533f, -0.347535878f},
    {0.0703737512f, 0.0272964519f, 0.0092117805f, 0.00318094762f, 0.00102016376f, 0.000350818969f, 0.340173542f, 0.169906512f},
    {-0.0249940827f, -0.00766226882f, -0.00191747688f, -0.000482369709f, -0.000108299741f, -2.63792172e-05f, -0.168608427f, -0.0733686686f},
    {0.00822069217f, 0.00203520199f, 0.000385512947f, 7.16854265e-05f, 1.13760943e-05f, 1.97273198e-06f, 0.0745053515f, 0.0287200026f},
    {-0.00253111054f, -0.000514698855f, -7.49338506e-05f, -1.04443461e-05f, -1.17913441e-06f, -1.46616941e-07f, -0.0299937744f, -0.0103650996f},
    {0.000736781163f, 0.000124657236f, 1.41781056e-05f, 1.49543496e-06f, 1.21424392e-07f, 1.08487077e-08f, 0.0111675831f, 0.00349089224f},
    {-0.000211720253f, -2.98301056e-05f, -2.80501263e-06f, -2.19698293e-07f, -1.36132199e-08f, -8.38759617e-10f, -0.00394246308f, -0.00112026383f},
    {5.54620638e-05f, 6.66503638e-06f, 4.98994268e-07f, 3.03132985e-08f, 1.37000233e-09f, 6.13594245e-11f, 0.00128591654f, 0.000335383869f},
};

/* Phi(x), the normal distribution function, for gelu on arrays whose elements are all >= -1
   (genie__P_fgelu_pos, genie__vP_GELU): row 0 the centre of each piece, row 1 + j the coefficient of v^j,
   v = x - centre; the pieces [0, 1), [1, 2), [2, 4), [4, 6), -, -, [-1, -1/2), [-1/2, 0) at
   columns 0-7, the low 3 bits of the exponent and first mantissa bit of x + 2 (columns 4
   and 5 never: x is clamped below 6). Degree 8, fitted by Lawson's weighted least squares
   in double to the relative error (at most 1.5e-8, on [2, 4)). The AVX2 path's: AVX-512
   takes genie__vm_phi16_tab below. */
static const float genie__vm_phi_tab[10][8] = {
    {0.5f, 1.5f, 3.0f, 5.0f, 5.0f, 5.0f, -0.75f, -0.25f}, /* centres */
    {0.691462457f, 0.933192790f, 0.998650074f, 0.999999702f, 0.999999702f, 0.999999702f, 0.226627350f, 0.401293665f},
    {0.352065325f, 0.129517600f, 0.00443197554f, 1.47575793e-06f, 1.47575793e-06f, 1.47575793e-06f, 0.301137418f, 0.386668116f},
    {-0.0880163088f, -0.0971382111f, -0.00664745830f, -3.70706584e-06f, -3.70706584e-06f, -3.70706584e-06f, 0.112926535f, 0.0483335145f},
    {-0.0440080874f, 0.0269826502f, 0.00590731669f, 6.09318158e-06f, 6.09318158e-06f, 6.09318158e-06f, -0.0219579432f, -0.0604168847f},
    {0.0201698560f, 0.00607148698f, -0.00332611869f, -6.88114596e-06f, -6.88114596e-06f, -6.88114596e-06f, -0.0229381863f, -0.0118316477f},
    {0.00458297832f, -0.00586611778f, 0.00111503317f, 5.39596022e-06f, 5.39596022e-06f, 5.39596022e-06f, -0.000146669860f, 0.00847040024f},
    {-0.00306603685f, 0.000654371106f, -0.000105185551f, -3.85940075e-06f, -3.85940075e-06f, -3.85940075e-06f, 0.00303952419f, 0.00193058245f},
    {-0.000319606101f, 0.000543571718f, -9.50798203e-05f, 2.86898967e-06f, 2.86898967e-06f, 2.86898967e-06f, 0.000335230579f, -0.000927679648f},
    {0.000327802845f, -0.000161723539f, 3.77662509e-05f, -1.10161363e-06f, -1.10161363e-06f, -1.10161363e-06f, -0.000287450006f, -0.000234771753f},
};

/* The same Phi on AVX-512, whose permute picks from 16 lanes (genie__z_fgelu_pos16): row 0 the
   centre, row 1 + j the coefficient of v^j; 12 pieces of half the width, [-1, 0) by quarters,
   [0, 2) by halves, [2, 6) by units, at columns 12-15, 0-3, 4-7: bits 21-24 of x + 2 (its
   exponent's low 2 bits and first 2 mantissa bits; 8-11 never: x is clamped below 6). Degree
   6: two FMAs and permutes fewer, the array kernel in L1 0.30 -> 0.245 ns an element, chain8
   in cache 1.02-1.05 -> 0.955-0.966. Fitted by Lawson's weighted least squares to the
   relative error (below 1e-7 evaluated in f32; the constant rounded first, the others
   refitted to it); every f32 in [-1, 7]: within 2 ulp of x Phi(x) in double (2.7M of 2.15G
   at 2, 259K before). */
static const float genie__vm_phi16_tab[8][16] = {
    {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 4.5f, 5.5f, 5.5f, 5.5f, 5.5f, 5.5f, -0.875f, -0.625f, -0.375f, -0.125f},
    {0.598706305f, 0.77337265f, 0.894350231f, 0.959940851f, 0.993790329f, 0.999767363f, 0.999996603f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 0.190786958f, 0.265985519f, 0.353830248f, 0.450261772f},
    {0.386668116f, 0.301137447f, 0.182649091f, 0.086277321f, 0.017527895f, 0.000872682664f, 1.60005839e-05f, 1.07855726e-07f, 1.07855726e-07f, 1.07855726e-07f, 1.07855726e-07f, 1.07855726e-07f, 0.272055f, 0.328160942f, 0.37185511f, 0.395837694f},
    {-0.0483277515f, -0.112927198f, -0.114156783f, -0.0754948184f, -0.0219101254f, -0.00152673875f, -3.59825171e-05f, -1.65402423e-06f, -1.65402423e-06f, -1.65402423e-06f, -1.65402423e-06f, -1.65402423e-06f, 0.119018801f, 0.102561533f, 0.0697066709f, 0.024743706f},
    {-0.0604136959f, -0.0219583996f, 0.0171224214f, 0.0296575595f, 0.0153508512f, 0.00163590349f, 5.07409677e-05f, 5.13123496e-07f, 5.13123496e-07f, 5.13123496e-07f, 5.13123496e-07f, 5.13123496e-07f, -0.0106321787f, -0.0333196186f, -0.0532717742f, -0.0649398118f},
    {0.0115918042f, 0.0229641404f, 0.0137169519f, -0.000301453198f, -0.00593719585f, -0.00118158967f, -5.13844243e-05f, 1.37948118e-05f, 1.37948118e-05f, 1.37948118e-05f, 1.37948118e-05f, 1.37948118e-05f, -0.0213186387f, -0.0241133533f, -0.0139820101f, -0.00678573875f},
    {0.00835956726f, -0.000120768957f, -0.00592627097f, -0.00429653982f, 0.000555039849f, 0.000584842928f, 4.31408153e-05f, 7.89235514e-07f, 7.89235514e-07f, 7.89235514e-07f, 7.89235514e-07f, 7.89235514e-07f, -0.00187312649f, 0.00146594958f, 0.00765409553f, 0.0093838824f},
    {0.000579899002f, -0.00327966665f, -0.000989528256f, 0.000326637848f, 0.000528842327f, -0.00016727492f, -2.39569454e-05f, -3.91203284e-05f, -3.91203284e-05f, -3.91203284e-05f, -3.91203284e-05f, -3.91203284e-05f, -0.0312785059f, 0.0766424313f, -0.10471233f, 0.0270718578f},
};

/* f32 vector functions (x: GENIE__FL lanes). Error bounds are those measured by
   tests/test_vmath.c and the exhaustive check (make test-vmath-all) against the
   reference. */
#define GENIE__VM_MATHF(P, ATTR)                                                                   \
    /* 2^k for integer-valued k in [-126, 127]: the low bits of k + 2^23 + 127 shifted into the exponent */ \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fpow2(GENIE__F k) {                              \
        return GENIE__FSHL(GENIE__FADD(k, GENIE__F1(8388735.0f)), 23);                             \
    }                                                                                              \
    /* k = round(x / ln2) and r = x - k ln2, ln2 in Cody and Waite's two parts (k ln2hi and        \
       x - k ln2hi exact for |k| < 2^15); |r| <= ln2/2 + 2^-20 */                                  \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fk(GENIE__F x) {                                 \
        return GENIE__FRND(GENIE__FMUL(x, GENIE__F1(1.44269502f)), _MM_FROUND_TO_NEAREST_INT);     \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fred(GENIE__F x, GENIE__F k) {                   \
        return GENIE__FFNMA(k, GENIE__F1(-2.12194442e-4f), GENIE__FFNMA(k, GENIE__F1(0.693359375f), x)); \
    }                                                                                              \
    /* expm1(r) for |r| <= 0.347: r + r^2 (1/2 + r P(r)), P of degree 4 fitted to the relative     \
       error (< 2^-31 before rounding) */                                                          \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fexpm1r(GENIE__F r) {                            \
        GENIE__F p = GENIE__FFMA(GENIE__F1(0.000198240989f), r, GENIE__F1(0.00139333436f));        \
        p = GENIE__FFMA(p, r, GENIE__F1(0.00833342038f));                                          \
        p = GENIE__FFMA(p, r, GENIE__F1(0.0416664816f));                                           \
        p = GENIE__FFMA(p, r, GENIE__F1(0.166666657f));                                            \
        p = GENIE__FFMA(p, r, GENIE__F1(0.5f));                                                    \
        return GENIE__FFMA(GENIE__FMUL(r, r), p, r);                                               \
    }                                                                                              \
    /* exp: (1 + expm1(r)) 2^k on x clamped to 89 (NaN kept); below -150 ln2, where exp            \
       rounds to +0, exp(0) and then +0: no result underflows (a microcode assist) */              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fexp(GENIE__F x) {                               \
        GENIE__FM z = GENIE__FCMP(x, GENIE__F1(-103.972076f), _CMP_LT_OQ);                         \
        GENIE__F c = GENIE__FSEL(z, GENIE__F1(0.0f), GENIE__FMINV(GENIE__F1(89.0f), x));           \
        GENIE__F k = genie__##P##_fk(c);                                                           \
        GENIE__F p = genie__##P##_fexpm1r(genie__##P##_fred(c, k));                                \
        return GENIE__FSEL(z, GENIE__F1(0.0f), GENIE__FSCALE(GENIE__FADD(p, GENIE__F1(1.0f)), k)); \
    }                                                                                              \
    /* exp for x >= -86 (not NaN; k >= -124, a normal result): (2 + 2p) 2^(k - 1), 2^(k - 1)      \
       normal up to k = 128; exp's value */                                                       \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fexp_mid(GENIE__F x) {                           \
        GENIE__F c = GENIE__FMINV(GENIE__F1(89.0f), x);                                            \
        GENIE__F k = genie__##P##_fk(c);                                                           \
        GENIE__F p = genie__##P##_fexpm1r(genie__##P##_fred(c, k));                                \
        return GENIE__FMUL(GENIE__FFMA(p, GENIE__F1(2.0f), GENIE__F1(2.0f)),                       \
                           GENIE__FSHL(GENIE__FADD(k, GENIE__F1(8388734.0f)), 23));                \
    }                                                                                              \
    /* expm1: 2^k p + (2^k - 1) (one rounding; exact p for k = 0) on x clamped to [-30, 89];       \
       above 64 the -1 is below half an ulp and the result is exp's */                             \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fexpm1(GENIE__F x) {                             \
        GENIE__F c = GENIE__FMAXV(GENIE__F1(-30.0f), GENIE__FMINV(GENIE__F1(89.0f), x));           \
        GENIE__F k = genie__##P##_fk(c);                                                           \
        GENIE__F p = genie__##P##_fexpm1r(genie__##P##_fred(c, k));                                \
        GENIE__F s = genie__##P##_fpow2(GENIE__FMINV(GENIE__F1(100.0f), k));                       \
        return GENIE__FSEL(GENIE__FCMP(x, GENIE__F1(64.0f), _CMP_GT_OQ), GENIE__FSCALE(GENIE__FADD(p, GENIE__F1(1.0f)), k), \
                           GENIE__FFMA(s, p, GENIE__FSUB(s, GENIE__F1(1.0f))));                    \
    }                                                                                              \
    /* expm1 for x <= 64 (not NaN): expm1's value without its exp branch */                       \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fexpm1_mid(GENIE__F x) {                         \
        GENIE__F c = GENIE__FMAXV(GENIE__F1(-30.0f), x);                                           \
        GENIE__F k = genie__##P##_fk(c);                                                           \
        GENIE__F p = genie__##P##_fexpm1r(genie__##P##_fred(c, k));                                \
        GENIE__F s = genie__##P##_fpow2(k);                                                        \
        return GENIE__FFMA(s, p, GENIE__FSUB(s, GENIE__F1(1.0f)));                                 \
    }                                                                                              \
    /* tanh: t / (t + 2) with t = expm1(2|x|) (|x| clamped to 10, where tanh is 1 in f32), signed */ \
    static ATTR GENIE__VINL GENIE__F genie__##P##_ftanh(GENIE__F x) {                              \
        GENIE__F a = GENIE__FMINV(GENIE__F1(10.0f), GENIE__FANDN(GENIE__F1(-0.0f), x));            \
        GENIE__F k, p, s, t;                                                                       \
        a = GENIE__FADD(a, a);                                                                     \
        k = genie__##P##_fk(a);                                                                    \
        p = genie__##P##_fexpm1r(genie__##P##_fred(a, k));                                         \
        s = genie__##P##_fpow2(k);                                                                 \
        t = GENIE__FFMA(s, p, GENIE__FSUB(s, GENIE__F1(1.0f)));                                    \
        return GENIE__FOR(GENIE__FDIV(t, GENIE__FADD(t, GENIE__F1(2.0f))), GENIE__FAND(x, GENIE__F1(-0.0f))); \
    }                                                                                              \
    /* n sigmoid(w) = n / (1 + exp(-w)), w = wh + wl (|wl| <= ulp(wh)). With e = exp(-|w|) =       \
       (1 + p) 2^k, k <= 0: n / (1 + e) for w >= 0, and n (1 + p) / (1 + e) 2^k for w < 0, the     \
       power of two applied last (subnormal results rounded once); 1 + e = p 2^k + (1 + 2^k)       \
       (exact 1 + 2^k for k >= -24). |w| is clamped to 110 (k >= -159); beyond, the result         \
       is n for w > 110 and n times 0 for w < -110 (below f32's least subnormal for                \
       |n| < 2^40; NaN for an infinite n, as the reference's inf / inf), so the quotient           \
       only sees finite n. lo: wl is not 0. mid: every w < 0 lane has w >= -87, so 2^k is normal  \
       (k >= -126) and q 2^k rounded once, as scalef: 2^k by the exponent's bits, |w| clamped to  \
       87 (1 + e is 1 beyond), the same values. */                                                \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flogistic(GENIE__F n, GENIE__F wh, GENIE__F wl, int lo, int mid) { \
        GENIE__FM neg = GENIE__FCMP(wh, GENIE__F1(0.0f), _CMP_LT_OQ);                              \
        GENIE__F h = GENIE__FOR(wh, GENIE__F1(-0.0f)); /* -|wh| */                                 \
        GENIE__F c = GENIE__FMAXV(GENIE__F1(mid ? -87.0f : -110.0f), h);                           \
        GENIE__F k = genie__##P##_fk(c), r = genie__##P##_fred(c, k), p, s, q;                     \
        if (lo) r = GENIE__FADD(r, GENIE__FXOR(wl, GENIE__FANDN(wh, GENIE__F1(-0.0f))));           \
        p = genie__##P##_fexpm1r(r);                                                               \
        s = mid ? genie__##P##_fpow2(k) : GENIE__FSCALE(GENIE__F1(1.0f), k);                       \
        q = GENIE__FDIV(GENIE__FSEL(neg, GENIE__FFMA(n, p, n), n), GENIE__FFMA(p, s, GENIE__FADD(s, GENIE__F1(1.0f)))); \
        q = GENIE__FSEL(neg, mid ? GENIE__FMUL(q, s) : GENIE__FSCALE(q, k), q);                    \
        if (mid) return q;                                                                         \
        return GENIE__FSEL(GENIE__FCMP(h, GENIE__F1(-110.0f), _CMP_LT_OQ), GENIE__FSEL(neg, GENIE__FMUL(n, GENIE__F1(0.0f)), n), q); \
    }                                                                                              \
    /* n sigmoid(x) = n / (1 + exp(-x)) for x >= -80 (not NaN): exp(-x) of x clamped to 80          \
       (above, 1 + exp(-x) rounds to 1) lies in [e^-80, e^80], (1 + p) 2^k with a normal 2^k, so  \
       nothing over- or underflows and nothing is masked: a third fewer operations than the      \
       general form. An array whose elements are all >= -80 takes it (genie__vP_SILU, _SIGMOID) */ \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flogistic_mid(GENIE__F n, GENIE__F x) {          \
        GENIE__F c = GENIE__FMAXV(GENIE__F1(-80.0f), GENIE__FXOR(x, GENIE__F1(-0.0f)));            \
        GENIE__F k = genie__##P##_fk(c), s = genie__##P##_fpow2(k);                                \
        GENIE__F p = genie__##P##_fexpm1r(genie__##P##_fred(c, k));                                \
        return GENIE__FDIV(n, GENIE__FADD(GENIE__FFMA(p, s, s), GENIE__F1(1.0f)));                \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fsigmoid(GENIE__F x) {                           \
        return genie__##P##_flogistic(GENIE__F1(1.0f), x, x, 0, 0);                                \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fsilu(GENIE__F x) {                              \
        return genie__##P##_flogistic(x, x, x, 0, 0);                                              \
    }                                                                                              \
    /* gelu_tanh: 0.5 x (1 + tanh(u)) = x sigmoid(2u), 2u = x (c1 + c2 x^2) (c1 = 2 sqrt(2/pi),    \
       c2 = 0.044715 c1) formed in two floats (x^2 exact by FMA, the sum by TwoSum) on x           \
       clamped to [-20, 20] (|2u| > 110 there). mid: x >= -9 (2u >= -67) */                       \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fgelu_tanh_f(GENIE__F x, int mid) {              \
        GENIE__F c = GENIE__FMAXV(GENIE__F1(-20.0f), GENIE__FMINV(GENIE__F1(20.0f), x));           \
        GENIE__F sh = GENIE__FMUL(c, c), sl = GENIE__FFMS(c, c, sh);                               \
        GENIE__F th = GENIE__FMUL(GENIE__F1(0.0713548139f), sh), tl, ah, bb, al, wh;               \
        tl = GENIE__FFMS(GENIE__F1(0.0713548139f), sh, th);                                        \
        tl = GENIE__FFMA(GENIE__F1(0.0713548139f), sl, GENIE__FFMA(GENIE__F1(2.39883247e-09f), sh, tl)); \
        ah = GENIE__FADD(GENIE__F1(1.59576917f), th);                                              \
        bb = GENIE__FSUB(ah, GENIE__F1(1.59576917f));                                              \
        al = GENIE__FADD(GENIE__FSUB(GENIE__F1(1.59576917f), GENIE__FSUB(ah, bb)), GENIE__FSUB(th, bb)); \
        al = GENIE__FADD(al, GENIE__FADD(tl, GENIE__F1(-4.53406805e-08f)));                        \
        wh = GENIE__FMUL(c, ah);                                                                   \
        return genie__##P##_flogistic(x, wh, GENIE__FFMA(c, al, GENIE__FFMS(c, ah, wh)), 1, mid);  \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fgelu_tanh(GENIE__F x) {                         \
        return genie__##P##_fgelu_tanh_f(x, 0);                                                    \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fgelu_tanh_mid(GENIE__F x) {                     \
        return genie__##P##_fgelu_tanh_f(x, 1);                                                    \
    }                                                                                              \
    /* erf: x P(x^2) for |x| < 1/2 (P of degree 4, relative error < 2^-29); else erf(|x|) by       \
       pieces of width 1/2 on [1/2, 4) (degree 7, absolute error < 2^-30) and 1 above 4, signed */ \
    static ATTR GENIE__VINL GENIE__F genie__##P##_ferf(GENIE__F x) {                               \
        GENIE__F a = GENIE__FANDN(GENIE__F1(-0.0f), x), s = GENIE__FMUL(x, x), p, c, idx;          \
        p = GENIE__FFMA(GENIE__F1(0.00471797492f), s, GENIE__F1(-0.026757177f));                   \
        p = GENIE__FFMA(p, s, GENIE__F1(0.112828225f));                                            \
        p = GENIE__FFMA(p, s, GENIE__F1(-0.376126081f));                                           \
        s = GENIE__FFMA(x, GENIE__FFMA(p, s, GENIE__F1(0.128379167f)), x); /* x + x (P - 1): x exact */ \
        c = GENIE__FMINV(GENIE__F1(4.25f), GENIE__FMAXV(GENIE__F1(0.5f), a));                      \
        idx = GENIE__FADD(GENIE__FFMA(c, GENIE__F1(2.0f), GENIE__F1(-1.5f)), GENIE__F1(12582912.0f)); /* round(2c - 3/2) */ \
        c = GENIE__FSUB(c, GENIE__FPC(genie__vm_erf_tab, 0, idx));                                 \
        p = GENIE__FFMA(GENIE__FPC(genie__vm_erf_tab, 8, idx), c, GENIE__FPC(genie__vm_erf_tab, 7, idx)); \
        p = GENIE__FFMA(p, c, GENIE__FPC(genie__vm_erf_tab, 6, idx));                              \
        p = GENIE__FFMA(p, c, GENIE__FPC(genie__vm_erf_tab, 5, idx));                              \
        p = GENIE__FFMA(p, c, GENIE__FPC(genie__vm_erf_tab, 4, idx));                              \
        p = GENIE__FFMA(p, c, GENIE__FPC(genie__vm_erf_tab, 3, idx));                              \
        p = GENIE__FFMA(p, c, GENIE__FPC(genie__vm_erf_tab, 2, idx));                              \
        c = GENIE__FFMA(p, c, GENIE__FPC(genie__vm_erf_tab, 1, idx));                              \
        c = GENIE__FOR(GENIE__FMINV(GENIE__F1(1.0f), c), GENIE__FAND(x, GENIE__F1(-0.0f)));        \
        return GENIE__FSEL(GENIE__FCMP(a, GENIE__F1(0.5f), _CMP_LT_OQ), s, c);                     \
    }                                                                                              \
    /* gelu for x >= -1 (not NaN): x Phi(x), Phi by pieces (genie__vm_phi_tab) on x clamped     \
       below 6 (above, Phi rounds to 1 and the result is x): no exp, half the operations of the  \
       general form below. Within 2 ulp of the reference over 16M inputs in [-1, 7). AVX-512    \
       runs genie__z_fgelu_pos16 instead (16-lane permutes: twice the pieces, degree 6) */        \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fgelu_pos(GENIE__F x) {                          \
        GENIE__F a = GENIE__FMINV(GENIE__F1(5.99999952f), x), q;                                   \
        const GENIE__F idx = GENIE__FSHR(GENIE__FADD(a, GENIE__F1(2.0f)), 22);                     \
        a = GENIE__FSUB(a, GENIE__FPC(genie__vm_phi_tab, 0, idx));                                 \
        q = GENIE__FFMA(GENIE__FPC(genie__vm_phi_tab, 9, idx), a, GENIE__FPC(genie__vm_phi_tab, 8, idx)); \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 7, idx));                              \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 6, idx));                              \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 5, idx));                              \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 4, idx));                              \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 3, idx));                              \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 2, idx));                              \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_phi_tab, 1, idx));                              \
        return GENIE__FMUL(x, q);                                                                  \
    }                                                                                              \
    /* gelu: x Phi(x), Phi(x) = 1 - E for x >= 0 and E for x < 0, E = erfc(|x|/sqrt2)/2 =          \
       exp(-x^2/2) Q(|x|)/2 with x^2 exact in two floats (FMA) and Q = erfcx(|x|/sqrt2) in         \
       pieces on [0, 1/2, 1, 2, 3, 5, 7, 11, 15) (index: the exponent and first mantissa bit       \
       of |x| + 1; degree 8, relative error < 2^-28); x < 0: x E, the power of two of exp          \
       applied last. |x| clamped to 14.75; x < -14.75 (results below f32's least subnormal)        \
       gives x times 0 (NaN for -inf, as the reference). An array whose elements are all >= -1  \
       takes genie__P_fgelu_pos instead (genie__vP_GELU) */                                       \
    static ATTR GENIE__VINL GENIE__F genie__##P##_fgelu(GENIE__F x) {                              \
        GENIE__F a = GENIE__FMINV(GENIE__F1(14.75f), GENIE__FANDN(GENIE__F1(-0.0f), x));           \
        GENIE__F sh = GENIE__FMUL(a, a), sl = GENIE__FFMS(a, a, sh), k, p, idx, q;                 \
        sh = GENIE__FMUL(sh, GENIE__F1(-0.5f));                                                    \
        k = genie__##P##_fk(sh);                                                                   \
        p = genie__##P##_fexpm1r(GENIE__FFMA(sl, GENIE__F1(-0.5f), genie__##P##_fred(sh, k)));     \
        idx = GENIE__FSHR(GENIE__FADD(a, GENIE__F1(1.0f)), 22);                                    \
        a = GENIE__FSUB(a, GENIE__FPC(genie__vm_gelu_tab, 0, idx));                                \
        q = GENIE__FFMA(GENIE__FPC(genie__vm_gelu_tab, 9, idx), a, GENIE__FPC(genie__vm_gelu_tab, 8, idx)); \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 7, idx));                             \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 6, idx));                             \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 5, idx));                             \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 4, idx));                             \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 3, idx));                             \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 2, idx));                             \
        q = GENIE__FFMA(q, a, GENIE__FPC(genie__vm_gelu_tab, 1, idx));                             \
        q = GENIE__FMUL(GENIE__FFMA(q, p, q), GENIE__F1(0.5f)); /* E / 2^k */                      \
        q = GENIE__FSEL(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_LT_OQ), GENIE__FSCALE(GENIE__FMUL(x, q), k), \
                        GENIE__FMUL(x, GENIE__FSUB(GENIE__F1(1.0f), GENIE__FSCALE(q, k))));        \
        return GENIE__FSEL(GENIE__FCMP(x, GENIE__F1(-14.75f), _CMP_LT_OQ), GENIE__FMUL(x, GENIE__F1(0.0f)), q); \
    }                                                                                              \
    /* log(u) + c for u > 0 finite (subnormal u scaled by 2^23 first): u = 2^k m, m in             \
       [sqrt(1/2), sqrt2), f = m - 1 exact, log1p(f) = f + f^2 (-1/2 + f P(f)) (P of degree 7,     \
       relative error < 2^-27), plus k ln2 in two parts. norm: u is normal (no lane scaled) */     \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flogc_f(GENIE__F u, GENIE__F c, int norm) {      \
        GENIE__FM sub = GENIE__FCMP(u, GENIE__F1(1.17549435e-38f), _CMP_LT_OQ), big;               \
        GENIE__F k, m, f, p;                                                                       \
        if (!norm) u = GENIE__FSEL(sub, GENIE__FMUL(u, GENIE__F1(8388608.0f)), u);                 \
        k = GENIE__FSUB(GENIE__FOR(GENIE__FSHR(u, 23), GENIE__F1(8388608.0f)), GENIE__F1(8388735.0f)); \
        if (!norm) k = GENIE__FSEL(sub, GENIE__FSUB(k, GENIE__F1(23.0f)), k);                      \
        m = GENIE__FOR(GENIE__FAND(u, GENIE__FBITS(0x007fffff)), GENIE__F1(1.0f));                 \
        big = GENIE__FCMP(m, GENIE__F1(1.41421354f), _CMP_GT_OQ);                                  \
        m = GENIE__FSEL(big, GENIE__FMUL(m, GENIE__F1(0.5f)), m);                                  \
        k = GENIE__FSEL(big, GENIE__FADD(k, GENIE__F1(1.0f)), k);                                  \
        f = GENIE__FSUB(m, GENIE__F1(1.0f));                                                       \
        p = GENIE__FFMA(GENIE__F1(-0.0763571635f), f, GENIE__F1(0.127634287f));                    \
        p = GENIE__FFMA(p, f, GENIE__F1(-0.131606072f));                                           \
        p = GENIE__FFMA(p, f, GENIE__F1(0.142015412f));                                            \
        p = GENIE__FFMA(p, f, GENIE__F1(-0.166232944f));                                           \
        p = GENIE__FFMA(p, f, GENIE__F1(0.200012341f));                                            \
        p = GENIE__FFMA(p, f, GENIE__F1(-0.250008225f));                                           \
        p = GENIE__FFMA(p, f, GENIE__F1(0.333333313f));                                            \
        p = GENIE__FFMA(p, f, GENIE__F1(-0.5f));                                                   \
        p = GENIE__FADD(GENIE__FFMA(GENIE__FMUL(f, f), p, f), c);                                  \
        return GENIE__FFMA(k, GENIE__F1(0.693359375f), GENIE__FFMA(k, GENIE__F1(-2.12194442e-4f), p)); \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flogc(GENIE__F u, GENIE__F c) {                  \
        return genie__##P##_flogc_f(u, c, 0);                                                      \
    }                                                                                              \
    /* log for x in [FLT_MIN, FLT_MAX]: no scaling, no special values */                          \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flog_mid(GENIE__F x) {                           \
        return genie__##P##_flogc_f(x, GENIE__F1(0.0f), 1);                                        \
    }                                                                                              \
    /* log's special values by u: +inf, 0 -> -inf, negative -> NaN, NaN kept */                    \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flogfix(GENIE__F u, GENIE__F r) {                \
        r = GENIE__FSEL(GENIE__FCMP(u, GENIE__F1(INFINITY), _CMP_EQ_OQ), u, r);                    \
        r = GENIE__FSEL(GENIE__FCMP(u, GENIE__F1(0.0f), _CMP_EQ_OQ), GENIE__F1(-INFINITY), r);     \
        r = GENIE__FSEL(GENIE__FCMP(u, GENIE__F1(0.0f), _CMP_LT_OQ), GENIE__F1(NAN), r);           \
        return GENIE__FSEL(GENIE__FCMP(u, u, _CMP_UNORD_Q), u, r);                                 \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flog(GENIE__F x) {                               \
        return genie__##P##_flogfix(x, genie__##P##_flogc(x, GENIE__F1(0.0f)));                    \
    }                                                                                              \
    /* log1p: log(u) + c / u, u = 1 + x rounded and c its rounding error (TwoSum's order);         \
       mid: x in [-1 + 2^-24, FLT_MAX] (u normal and finite): no scaling, no special values */    \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flog1p_f(GENIE__F x, int mid) {                  \
        GENIE__F u = GENIE__FADD(x, GENIE__F1(1.0f));                                              \
        GENIE__F c = GENIE__FSEL(GENIE__FCMP(GENIE__FANDN(GENIE__F1(-0.0f), x), GENIE__F1(1.0f), _CMP_LT_OQ), \
                                 GENIE__FSUB(x, GENIE__FSUB(u, GENIE__F1(1.0f))),                  \
                                 GENIE__FSUB(GENIE__F1(1.0f), GENIE__FSUB(u, x)));                 \
        if (mid) return genie__##P##_flogc_f(u, GENIE__FDIV(c, u), 1);                             \
        return genie__##P##_flogfix(u, genie__##P##_flogc(u, GENIE__FDIV(c, u)));                  \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flog1p(GENIE__F x) {                             \
        return genie__##P##_flog1p_f(x, 0);                                                        \
    }                                                                                              \
    static ATTR GENIE__VINL GENIE__F genie__##P##_flog1p_mid(GENIE__F x) {                         \
        return genie__##P##_flog1p_f(x, 1);                                                        \
    }

/* f64 vector functions: 1 / sqrt(x) (exact after rounding to f32), sin and cos */
#define GENIE__VM_MATH(P, ATTR)                                                                       \
    static ATTR GENIE__D genie__##P##_rsqrt(GENIE__D x) {                                           \
        return GENIE__DDIV(GENIE__D1(1.0), GENIE__DSQRT(x));                                        \
    }                                                                                               \
    /* sin x (cosine: cos x) for |x| <= 2^18: x = k pi/2 + r, pi/2 in fdlibm's three 33-bit        \
       parts (r exact to 2^-52 relative for f32 x), Taylor of sin to r^15 and cos to r^16 on        \
       |r| <= pi/4 (relative error < 2^-50), quadrant k mod 4 from k's integer bits */              \
    static ATTR GENIE__D genie__##P##_sincos(GENIE__D x, int cosine) {                              \
        GENIE__D k = GENIE__DRINT(GENIE__DMUL(x, GENIE__D1(0.63661977236758134308)));               \
        GENIE__D r = GENIE__DFMA(k, GENIE__D1(-1.57079632673412561417e+00), x), r2, s, c;           \
        GENIE__I q = GENIE__D2I(GENIE__DADD(k, GENIE__D1(6755399441055744.0)));                     \
        r = GENIE__DFMA(k, GENIE__D1(-6.07710050630396597660e-11), r);                              \
        r = GENIE__DFMA(k, GENIE__D1(-2.02226624871116645580e-21), r);                              \
        r2 = GENIE__DMUL(r, r);                                                                     \
        s = GENIE__DFMA(GENIE__D1(-7.6471637318198164e-13), r2, GENIE__D1(1.6059043836821613e-10)); \
        s = GENIE__DFMA(s, r2, GENIE__D1(-2.505210838544172e-08));                                  \
        s = GENIE__DFMA(s, r2, GENIE__D1(2.7557319223985893e-06));                                  \
        s = GENIE__DFMA(s, r2, GENIE__D1(-0.00019841269841269841));                                 \
        s = GENIE__DFMA(s, r2, GENIE__D1(0.0083333333333333332));                                   \
        s = GENIE__DFMA(s, r2, GENIE__D1(-0.16666666666666666));                                    \
        s = GENIE__DFMA(GENIE__DMUL(s, r2), r, r);                                                  \
        c = GENIE__DFMA(GENIE__D1(4.7794773323873853e-14), r2, GENIE__D1(-1.1470745597729725e-11)); \
        c = GENIE__DFMA(c, r2, GENIE__D1(2.08767569878681e-09));                                    \
        c = GENIE__DFMA(c, r2, GENIE__D1(-2.7557319223985888e-07));                                 \
        c = GENIE__DFMA(c, r2, GENIE__D1(2.4801587301587302e-05));                                  \
        c = GENIE__DFMA(c, r2, GENIE__D1(-0.0013888888888888889));                                  \
        c = GENIE__DFMA(c, r2, GENIE__D1(0.041666666666666664));                                    \
        c = GENIE__DFMA(c, r2, GENIE__D1(-0.5));                                                    \
        c = GENIE__DFMA(c, r2, GENIE__D1(1.0));                                                     \
        if (cosine) q = GENIE__IADD(q, GENIE__I1(1));                                               \
        s = GENIE__DSEL(GENIE__ITEST(q, GENIE__I1(1)), c, s);                                       \
        return GENIE__DXOR(s, GENIE__I2D(GENIE__ISHL(GENIE__IAND(q, GENIE__I1(2)), 62)));          \
    }                                                                                               \
    /* pow(x, y) where the reference's f32 (libm's double pow, rounded) is decided: |x| = 2^k m,   \
       m in [sqrt(1/2), sqrt2), log m = 2 atanh(s), s = (m - 1)/(m + 1), Taylor to s^19           \
       (relative error < 2^-54); t = y log2|x|; 2^t = 2^n e^v, n = rint(t), v = (t - n) ln2,       \
       Taylor to v^12 (< 2^-52). The result is within 2^-43 relative (2^10 f64 ulps) of the true  \
       pow for |t| <= 128, so it rounds to the reference's f32 unless it lies within 2^14 ulps of  \
       a midpoint between two f32 values (2^-14 of results). *bad marks those lanes, and the      \
       ones where |x| is 0, a subnormal f64, infinite or NaN, x < 0 with y not an integer, or t    \
       outside (-125, 127.5) (results near f32's ends): the caller takes libm's pow there. */    \
    static ATTR GENIE__VINL GENIE__D genie__##P##_dpow(GENIE__D x, GENIE__D y, GENIE__DM *bad) {                 \
        GENIE__D ax = GENIE__DABS(x), yh = GENIE__DMUL(y, GENIE__D1(0.5)), k, m, f, s, z, z2, z4, p, q, t, n, r, c; \
        GENIE__DM neg = GENIE__DCMP(x, GENIE__D1(0.0), _CMP_LT_OQ), big;                             \
        GENIE__I b = GENIE__D2I(ax), w;                                                             \
        k = GENIE__DSUB(GENIE__I2D(GENIE__IOR(GENIE__ISHR(b, 52), GENIE__I1(0x4330000000000000))),   \
                        GENIE__D1(4503599627371519.0)); /* the biased exponent - 1023 */             \
        m = GENIE__I2D(GENIE__IOR(GENIE__IAND(b, GENIE__I1(0x000FFFFFFFFFFFFF)), GENIE__I1(0x3FF0000000000000))); \
        big = GENIE__DCMP(m, GENIE__D1(1.4142135623730951), _CMP_GT_OQ);                             \
        m = GENIE__DSEL(big, GENIE__DMUL(m, GENIE__D1(0.5)), m);                                     \
        k = GENIE__DSEL(big, GENIE__DADD(k, GENIE__D1(1.0)), k);                                     \
        f = GENIE__DSUB(m, GENIE__D1(1.0));                                                          \
        s = GENIE__DDIV(f, GENIE__DADD(f, GENIE__D1(2.0)));                                          \
        z = GENIE__DMUL(s, s);                                                                      \
        /* Estrin's scheme: a chain of 4 products, not Horner's 8 (a vector's latency, not the \
           units, bounded this loop) */                                                         \
        z2 = GENIE__DMUL(z, z), z4 = GENIE__DMUL(z2, z2);                                         \
        p = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 9), z, GENIE__D1(1.0 / 7)), z2, GENIE__DFMA(GENIE__D1(1.0 / 5), z, GENIE__D1(1.0 / 3))); \
        q = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 17), z, GENIE__D1(1.0 / 15)), z2, GENIE__DFMA(GENIE__D1(1.0 / 13), z, GENIE__D1(1.0 / 11))); \
        p = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 19), z4, q), z4, p);                           \
        s = GENIE__DADD(s, s);                                                                      \
        p = GENIE__DFMA(GENIE__DMUL(s, z), p, s); /* log m */                                        \
        t = GENIE__DMUL(y, GENIE__DFMA(p, GENIE__D1(1.4426950408889634), k));                        \
        n = GENIE__DRINT(t);                                                                        \
        z = GENIE__DMUL(GENIE__DSUB(t, n), GENIE__D1(0.69314718055994531)); /* t - n exact */        \
        z2 = GENIE__DMUL(z, z), z4 = GENIE__DMUL(z2, z2);                                         \
        p = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 6), z, GENIE__D1(0.5)), z2, GENIE__DADD(z, GENIE__D1(1.0))); \
        q = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 5040), z, GENIE__D1(1.0 / 720)), z2, GENIE__DFMA(GENIE__D1(1.0 / 120), z, GENIE__D1(1.0 / 24))); \
        p = GENIE__DFMA(q, z4, p);                                                                 \
        q = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 39916800), z, GENIE__D1(1.0 / 3628800)), z2, GENIE__DFMA(GENIE__D1(1.0 / 362880), z, GENIE__D1(1.0 / 40320))); \
        p = GENIE__DFMA(GENIE__DFMA(GENIE__D1(1.0 / 479001600), z4, q), GENIE__DMUL(z4, z4), p);  \
        r = GENIE__DMUL(p, GENIE__I2D(GENIE__ISHL(GENIE__IADD(GENIE__D2I(GENIE__DADD(n, GENIE__D1(6755399441055744.0))), \
                                                               GENIE__I1(1023)), 52))); /* p 2^n */  \
        r = GENIE__DSEL(neg, GENIE__DSEL(GENIE__DCMP(GENIE__DRINT(yh), yh, _CMP_NEQ_UQ), GENIE__DXOR(r, GENIE__D1(-0.0)), r), r); \
        /* the lanes taken: c < 1. w: the low 29 bits (those f32 drops) + 2^28 + 2^14, mod 2^29,  \
           below 2^15 within 2^14 of the midpoint 2^28 */                                          \
        w = GENIE__IAND(GENIE__IADD(GENIE__D2I(r), GENIE__I1(0x10004000)), GENIE__I1(0x1FFFFFFF));  \
        c = GENIE__DMUL(GENIE__DABS(GENIE__DSUB(t, GENIE__D1(1.25))), GENIE__D1(1.0 / 126.25));      \
        c = GENIE__DSEL(GENIE__DCMP(GENIE__DSUB(GENIE__I2D(GENIE__IOR(w, GENIE__I1(0x4330000000000000))), \
                                                GENIE__D1(4503599627370496.0)), GENIE__D1(32768.0), _CMP_LT_OQ), \
                        GENIE__D1(NAN), c);                                                          \
        c = GENIE__DSEL(GENIE__DCMP(ax, GENIE__D1(2.2250738585072014e-308), _CMP_LT_OQ), GENIE__D1(NAN), c); \
        c = GENIE__DSEL(GENIE__DCMP(ax, GENIE__D1(1.7976931348623157e308), _CMP_NLE_UQ), GENIE__D1(NAN), c); \
        c = GENIE__DSEL(neg, GENIE__DSEL(GENIE__DCMP(GENIE__DRINT(y), y, _CMP_EQ_OQ), c, GENIE__D1(NAN)), c); \
        *bad = GENIE__DCMP(c, GENIE__D1(1.0), _CMP_NLT_UQ);                                          \
        return r;                                                                                   \
    }

/* Unary operations exact in f32 vectors: X(P, name, expression of x). */
#define GENIE__VF_LIST(X, P)                                                                        \
    X(P, NEG, GENIE__FXOR(x, GENIE__F1(-0.0f)))                                                     \
    X(P, ABS, GENIE__FANDN(GENIE__F1(-0.0f), x))                                                    \
    X(P, SQRT, GENIE__FSQRT(x))                                                                     \
    X(P, RELU, GENIE__FSEL(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_LE_OQ), GENIE__F1(0.0f), x))       \
    X(P, RECIPROCAL, GENIE__FDIV(GENIE__F1(1.0f), x))                                               \
    X(P, SQUARE, GENIE__FMUL(x, x))                                                                 \
    X(P, FLOOR, GENIE__FRND(x, _MM_FROUND_TO_NEG_INF))                                              \
    X(P, CEIL, GENIE__FRND(x, _MM_FROUND_TO_POS_INF))                                               \
    X(P, ROUND, GENIE__FRND(x, _MM_FROUND_TO_NEAREST_INT))                                          \
    X(P, SIGN, GENIE__FSEL(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_GT_OQ), GENIE__F1(1.0f),            \
                           GENIE__FSEL(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_LT_OQ), GENIE__F1(-1.0f), \
                                       GENIE__F1(0.0f))))                                            \
    X(P, CLAMP, GENIE__FSEL(GENIE__FCMP(GENIE__FSEL(GENIE__FCMP(x, lo, _CMP_LT_OQ), lo, x), hi, _CMP_GT_OQ), hi, \
                            GENIE__FSEL(GENIE__FCMP(x, lo, _CMP_LT_OQ), lo, x)))
/* Unary operations on f32 vector functions: X(P, name, expression of x). */
#define GENIE__VT_LIST(X, P)                                                                        \
    X(P, TANH, genie__##P##_ftanh(x)) X(P, ERF, genie__##P##_ferf(x))
/* Unary operations on f64 vectors: X(P, name, function). */
#define GENIE__VD_LIST(X, P) X(P, RSQRT, rsqrt)
/* Binary operations in f32 vectors, f32 out: X(P, name, expression of x, z). */
#define GENIE__VBF_LIST(X, P)                                                                       \
    X(P, ADD, GENIE__FADD(x, z)) X(P, SUB, GENIE__FSUB(x, z)) X(P, MUL, GENIE__FMUL(x, z))           \
    X(P, DIV, GENIE__FDIV(x, z))                                                                    \
    X(P, MAXIMUM, GENIE__FSEL(GENIE__FCMP(x, z, _CMP_UNORD_Q), GENIE__F1(NAN), GENIE__FMAXV(x, z)))  \
    X(P, MINIMUM, GENIE__FSEL(GENIE__FCMP(x, z, _CMP_UNORD_Q), GENIE__F1(NAN), GENIE__FMINV(x, z)))
/* ... bool out: X(P, name, mask expression of x, z). */
#define GENIE__VBC_LIST(X, P)                                                                       \
    X(P, EQ, GENIE__FCMP(x, z, _CMP_EQ_OQ)) X(P, NE, GENIE__FCMP(x, z, _CMP_NEQ_UQ))                \
    X(P, LT, GENIE__FCMP(x, z, _CMP_LT_OQ)) X(P, LE, GENIE__FCMP(x, z, _CMP_LE_OQ))                 \
    X(P, GT, GENIE__FCMP(x, z, _CMP_GT_OQ)) X(P, GE, GENIE__FCMP(x, z, _CMP_GE_OQ))                 \
    X(P, LOGICAL_AND, GENIE__MAND(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_NEQ_UQ),                     \
                                  GENIE__FCMP(z, GENIE__F1(0.0f), _CMP_NEQ_UQ)))                    \
    X(P, LOGICAL_OR, GENIE__MOR(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_NEQ_UQ),                       \
                                GENIE__FCMP(z, GENIE__F1(0.0f), _CMP_NEQ_UQ)))

/* Loops: whole vectors, then the tail through a zeroed local block. */
#define GENIE__VS_ULOOP(EXPR) /* y[0, n) = EXPR of x = xp[0, n), i from 0; t: a vector's floats */ \
    for (; i + GENIE__FL <= n; i += GENIE__FL) {                                                    \
        GENIE__F x = GENIE__FLD(xp + i);                                                            \
        GENIE__FST(y + i, EXPR);                                                                    \
    }                                                                                               \
    if (i < n) {                                                                                    \
        GENIE__F x;                                                                                 \
        memset(t, 0, sizeof t);                                                                     \
        memcpy(t, xp + i, (size_t)(n - i) * 4);                                                     \
        x = GENIE__FLD(t);                                                                          \
        GENIE__FST(t, EXPR);                                                                        \
        memcpy(y + i, t, (size_t)(n - i) * 4);                                                      \
    }
#define GENIE__VS_UF(P, o, EXPR)                                                                    \
    static GENIE__VATTR void genie__v##P##_##o(void *out, const void *a, const void *b, int64_t n) { \
        float *y = (float *)out, t[GENIE__FL];                                                      \
        const float *xp = (const float *)a;                                                         \
        int clamp_ = GENIE__V_##o == GENIE__V_CLAMP;                                                \
        GENIE__F lo = GENIE__F1(clamp_ ? ((const float *)b)[0] : 0.0f);                             \
        GENIE__F hi = GENIE__F1(clamp_ ? ((const float *)b)[1] : 0.0f);                             \
        int64_t i = 0;                                                                              \
        GENIE__VS_ULOOP(EXPR)                                                                       \
        (void)lo; (void)hi;                                                                         \
    }
/* Operations with a cheaper form on a range: an array whose elements all lie in [LO, HI]
   (none NaN) runs FAST, any other GEN; one loop a call, so that each keeps its constants in
   registers (a choice per vector made randn's gelu 28% slower, 0.62 -> 0.79 ns an element).
   The check stops at the first vector with a lane outside (or NaN).
   gelu, [-1, inf] (a relu's or a square's output; a chunk of real activations rarely is): in
   cache, 1 thread, AVX-512, relu then gelu 0.82 -> 0.42 ns an element, randn's unchanged.
   silu and sigmoid, [-80, inf] (real activations are): silu 0.40 -> 0.29 ns an element, sigmoid
   0.40 -> 0.29, chain8 in cache 1.13 -> 1.02 (with vdivps, GENIE__FDIV).
   log [FLT_MIN, FLT_MAX], log1p [-1 + 2^-24, FLT_MAX]: no scaling of subnormals, no special
   values; AVX-512 log 0.46 -> 0.36 ns an element, log1p 0.55 -> 0.42.
   On AVX2 only (EVERY 0; GENIE__FSCALE_EMU: scalef is nine operations there), exp [-86, inf],
   expm1 [-inf, 64], gelu_tanh [-9, inf]: 2^k by the exponent's bits, no results that are
   subnormal or overflow 2^k; exp 0.43 -> 0.31 ns an element, gelu_tanh 1.07 -> 0.94 (on
   AVX-512 the check cost exp more than it saved: 0.22 -> 0.25).
   Every FAST form gives the general form's values bit for bit on its range. */
#define GENIE__VS_SPLIT(P, o, LO, HI, FAST, GEN, EVERY)                                             \
    static GENIE__VATTR void genie__v##P##_##o(void *out, const void *a, const void *b, int64_t n) { \
        float *y = (float *)out, t[GENIE__FL];                                                      \
        const float *xp = (const float *)a;                                                         \
        int64_t i = 0;                                                                              \
        int in = (EVERY) || GENIE__FSCALE_EMU; /* else no check: GEN */                             \
        (void)b;                                                                                    \
        for (; in && i + GENIE__FL <= n; i += GENIE__FL) {                                          \
            GENIE__F v_ = GENIE__FLD(xp + i);                                                       \
            in = GENIE__FALL(GENIE__MAND(GENIE__FCMP(v_, GENIE__F1(LO), _CMP_GE_OQ),                \
                                         GENIE__FCMP(v_, GENIE__F1(HI), _CMP_LE_OQ)));              \
        }                                                                                           \
        for (; in && i < n; i++) in = xp[i] >= (LO) && xp[i] <= (HI);                               \
        i = 0;                                                                                      \
        if (in) {                                                                                   \
            GENIE__VS_ULOOP(FAST)                                                                   \
        } else {                                                                                    \
            GENIE__VS_ULOOP(GEN)                                                                    \
        }                                                                                           \
    }
/* X(P, name, LO, HI, FAST, GEN, EVERY) */
#define GENIE__VSPLIT_LIST(X, P)                                                                    \
    X(P, GELU, -1.0f, INFINITY, GENIE__FGELU_POS(P, x), genie__##P##_fgelu(x), 1)                   \
    X(P, SILU, -80.0f, INFINITY, genie__##P##_flogistic_mid(x, x), genie__##P##_fsilu(x), 1)        \
    X(P, SIGMOID, -80.0f, INFINITY, genie__##P##_flogistic_mid(GENIE__F1(1.0f), x), genie__##P##_fsigmoid(x), 1) \
    X(P, LOG, 1.17549435e-38f, 3.40282347e+38f, genie__##P##_flog_mid(x), genie__##P##_flog(x), 1)  \
    X(P, LOG1P, -0.99999994f, 3.40282347e+38f, genie__##P##_flog1p_mid(x), genie__##P##_flog1p(x), 1) \
    X(P, EXP, -86.0f, INFINITY, genie__##P##_fexp_mid(x), genie__##P##_fexp(x), 0)                  \
    X(P, EXPM1, -INFINITY, 64.0f, genie__##P##_fexpm1_mid(x), genie__##P##_fexpm1(x), 0)            \
    X(P, GELU_TANH, -9.0f, INFINITY, genie__##P##_fgelu_tanh_mid(x), genie__##P##_fgelu_tanh(x), 0)
#define GENIE__VS_UD(P, o, fn)                                                                      \
    static GENIE__VATTR void genie__v##P##_##o(void *out, const void *a, const void *b, int64_t n) { \
        float *y = (float *)out, t[GENIE__DL];                                                      \
        const float *xp = (const float *)a;                                                         \
        int64_t i = 0;                                                                              \
        (void)b;                                                                                    \
        for (; i + GENIE__DL <= n; i += GENIE__DL) GENIE__DST(y + i, genie__##P##_##fn(GENIE__DLD(xp + i))); \
        if (i < n) {                                                                                \
            memset(t, 0, sizeof t);                                                                 \
            memcpy(t, xp + i, (size_t)(n - i) * 4);                                                 \
            GENIE__DST(t, genie__##P##_##fn(GENIE__DLD(t)));                                        \
            memcpy(y + i, t, (size_t)(n - i) * 4);                                                  \
        }                                                                                           \
    }
/* binary: LD_X / LD_Z load an operand (vector or broadcast), ST stores a result */
#define GENIE__VS_BLOOP(EXPR, LDX, LDZ, ST, TAILX, TAILZ, OSZ)                                      \
    for (; i + GENIE__FL <= n; i += GENIE__FL) {                                                    \
        GENIE__F x = LDX(xp + i), z = LDZ(zp + i);                                                  \
        ST((char *)out + i * OSZ, EXPR);                                                            \
    }                                                                                               \
    if (i < n) {                                                                                    \
        float tx[GENIE__FL], tz[GENIE__FL];                                                         \
        char to[GENIE__FL * 4];                                                                     \
        GENIE__F x, z;                                                                              \
        memset(tx, 0, sizeof tx);                                                                   \
        memset(tz, 0, sizeof tz);                                                                   \
        if (TAILX) memcpy(tx, xp + i, (size_t)(n - i) * 4);                                         \
        if (TAILZ) memcpy(tz, zp + i, (size_t)(n - i) * 4);                                         \
        x = LDX(TAILX ? tx : xp);                                                                   \
        z = LDZ(TAILZ ? tz : zp);                                                                   \
        ST(to, EXPR);                                                                               \
        memcpy((char *)out + i * OSZ, to, (size_t)(n - i) * OSZ);                                   \
    }
#define GENIE__VS_SPLAT(p) sv /* the broadcast operand: p is never formed */
#define GENIE__VS_B(P, o, EXPR, ST, OSZ)                                                            \
    static GENIE__VATTR void genie__v##P##_##o(void *out, const void *a, const void *b, int64_t n) { \
        const float *xp = (const float *)a, *zp = (const float *)b;                                 \
        int64_t i = 0;                                                                              \
        GENIE__VS_BLOOP(EXPR, GENIE__FLD, GENIE__FLD, ST, 1, 1, OSZ)                                \
    }                                                                                               \
    static GENIE__VATTR void genie__v##P##_##o##_vs(void *out, const void *a, const void *b, int64_t n) { \
        const float *xp = (const float *)a;                                                         \
        float s;                                                                                    \
        const float *zp = &s;                                                                       \
        GENIE__F sv;                                                                                \
        int64_t i = 0;                                                                              \
        if (!genie__v_f32_exact(*(const double *)b)) { genie__vg_##o##_vs(out, a, b, n); return; }   \
        s = (float)*(const double *)b;                                                              \
        sv = GENIE__F1(s);                                                                          \
        GENIE__VS_BLOOP(EXPR, GENIE__FLD, GENIE__VS_SPLAT, ST, 1, 0, OSZ)                           \
    }                                                                                               \
    static GENIE__VATTR void genie__v##P##_##o##_sv(void *out, const void *a, const void *b, int64_t n) { \
        const float *zp = (const float *)a;                                                         \
        float s;                                                                                    \
        const float *xp = &s;                                                                       \
        GENIE__F sv;                                                                                \
        int64_t i = 0;                                                                              \
        if (!genie__v_f32_exact(*(const double *)b)) { genie__vg_##o##_sv(out, a, b, n); return; }   \
        s = (float)*(const double *)b;                                                              \
        sv = GENIE__F1(s);                                                                          \
        GENIE__VS_BLOOP(EXPR, GENIE__VS_SPLAT, GENIE__FLD, ST, 0, 1, OSZ)                           \
    }
/* The xp + i / zp + i of a broadcast operand are never read: index 0 is. */
#define GENIE__VS_BF(P, o, EXPR) GENIE__VS_B(P, o, EXPR, GENIE__FSTC, 4)
#define GENIE__VS_BC(P, o, EXPR) GENIE__VS_B(P, o, EXPR, GENIE__MST, 1)
/* sin, cos: blocks with a lane beyond 2^18 (or inf, NaN) are done by libm, as the reference */
#define GENIE__VS_TRIG(P, o, COSINE, libm)                                                          \
    static GENIE__VATTR void genie__v##P##_##o(void *out, const void *a, const void *b, int64_t n) { \
        float *y = (float *)out, t[GENIE__DL];                                                      \
        const float *xp = (const float *)a;                                                         \
        int64_t i, j, m;                                                                            \
        (void)b;                                                                                    \
        for (i = 0; i < n; i += GENIE__DL) {                                                        \
            GENIE__D x, r;                                                                          \
            m = n - i < GENIE__DL ? n - i : GENIE__DL;                                              \
            if (m == GENIE__DL) x = GENIE__DLD(xp + i);                                             \
            else {                                                                                  \
                memset(t, 0, sizeof t);                                                             \
                memcpy(t, xp + i, (size_t)m * 4);                                                   \
                x = GENIE__DLD(t);                                                                  \
            }                                                                                       \
            if (GENIE__DANY(GENIE__DCMP(GENIE__DABS(x), GENIE__D1(262144.0), _CMP_NLE_UQ))) {       \
                for (j = i; j < i + m; j++) y[j] = (float)libm((double)xp[j]);                      \
                continue;                                                                           \
            }                                                                                       \
            r = genie__##P##_sincos(x, COSINE);                                                     \
            if (!COSINE) r = GENIE__DSEL(GENIE__DCMP(x, GENIE__D1(0.0), _CMP_EQ_OQ), x, r); /* -0 */ \
            if (m == GENIE__DL) GENIE__DST(y + i, r);                                               \
            else {                                                                                  \
                GENIE__DST(t, r);                                                                   \
                memcpy(y + i, t, (size_t)m * 4);                                                    \
            }                                                                                       \
        }                                                                                           \
    }
/* pow in f64 lanes (genie__P_dpow), exact: the lanes dpow does not take, and the tail, run
   libm's pow, as the reference; their inputs are read before the vector's store (out may be
   an input). LDX/LDY load a vector at i, XS/YS give element j (a the array, s the scalar). */
#define GENIE__VS_POWLOOP(P, LDX, LDY, XS, YS)                                                      \
    for (i = 0; i + GENIE__DL <= n; i += GENIE__DL) {                                               \
        GENIE__DM bad;                                                                              \
        GENIE__D r = genie__##P##_dpow(LDX, LDY, &bad);                                             \
        const int bits = GENIE__DBITS(bad);                                                         \
        float fix[GENIE__DL];                                                                       \
        for (j = i; bits && j < i + GENIE__DL; j++)                                                 \
            if (bits >> (j - i) & 1) fix[j - i] = (float)genie__binary_f(GENIE__OP_POW, XS, YS);    \
        GENIE__DST(y + i, r);                                                                       \
        for (j = i; bits && j < i + GENIE__DL; j++)                                                 \
            if (bits >> (j - i) & 1) y[j] = fix[j - i];                                             \
    }                                                                                               \
    for (j = i; j < n; j++) y[j] = (float)genie__binary_f(GENIE__OP_POW, XS, YS);
#define GENIE__VS_POW(P)                                                                            \
    static GENIE__VATTR void genie__v##P##_POW(void *out, const void *a, const void *b, int64_t n) { \
        const float *xp = (const float *)a, *zp = (const float *)b;                                 \
        float *y = (float *)out;                                                                    \
        int64_t i, j;                                                                               \
        GENIE__VS_POWLOOP(P, GENIE__DLD(xp + i), GENIE__DLD(zp + i), xp[j], zp[j])                  \
    }                                                                                               \
    static GENIE__VATTR void genie__v##P##_POW_vs(void *out, const void *a, const void *b, int64_t n) { \
        const float *xp = (const float *)a;                                                         \
        const double s = *(const double *)b;                                                        \
        float *y = (float *)out;                                                                    \
        int64_t i, j;                                                                               \
        GENIE__VS_POWLOOP(P, GENIE__DLD(xp + i), GENIE__D1(s), xp[j], s)                            \
    }                                                                                               \
    static GENIE__VATTR void genie__v##P##_POW_sv(void *out, const void *a, const void *b, int64_t n) { \
        const float *zp = (const float *)a;                                                         \
        const double s = *(const double *)b;                                                        \
        float *y = (float *)out;                                                                    \
        int64_t i, j;                                                                               \
        GENIE__VS_POWLOOP(P, GENIE__D1(s), GENIE__DLD(zp + i), s, zp[j])                            \
    }
#define GENIE__VS_LNOT(P)                                                                           \
    static GENIE__VATTR void genie__v##P##_LOGICAL_NOT(void *out, const void *a, const void *b, int64_t n) { \
        const float *xp = (const float *)a, *zp = (const float *)a;                                 \
        int64_t i = 0;                                                                              \
        (void)b;                                                                                    \
        GENIE__VS_BLOOP(GENIE__MAND(GENIE__FCMP(x, GENIE__F1(0.0f), _CMP_EQ_OQ), GENIE__FCMP(z, GENIE__F1(0.0f), _CMP_EQ_OQ)), GENIE__FLD, GENIE__FLD, GENIE__MST, 1, 1, 1) \
    }
#define GENIE__VS_ALL(P)                                                                            \
    GENIE__VM_MATHF(P, GENIE__VATTR)                                                                \
    GENIE__VM_MATH(P, GENIE__VATTR)                                                                 \
    GENIE__VF_LIST(GENIE__VS_UF, P)                                                                 \
    GENIE__VT_LIST(GENIE__VS_UF, P)                                                                 \
    GENIE__VSPLIT_LIST(GENIE__VS_SPLIT, P)                                                          \
    GENIE__VD_LIST(GENIE__VS_UD, P)                                                                 \
    GENIE__VBF_LIST(GENIE__VS_BF, P)                                                                \
    GENIE__VBC_LIST(GENIE__VS_BC, P)                                                                \
    GENIE__VS_TRIG(P, SIN, 0, sin) GENIE__VS_TRIG(P, COS, 1, cos) GENIE__VS_POW(P) GENIE__VS_LNOT(P)

/* AVX-512: f32 x 16 (masks __mmask16), f64 x 8. Masked forms with every lane set stand
   for the plain intrinsics that fill their pass-through with _mm512_undefined_*(),
   which GCC 12 reports as used uninitialized when C++ is compiled with -O2 -Wall. */
#define GENIE__VATTR GENIE__AVX512
#define GENIE__F __m512
#define GENIE__FL 16
#define GENIE__F1(c) _mm512_set1_ps(c)
#define GENIE__FLD(p) _mm512_loadu_ps(p)
#define GENIE__FST(p, v) _mm512_storeu_ps(p, v)
#define GENIE__FSTC(p, v) _mm512_storeu_ps((float *)(void *)(p), v)
#define GENIE__FADD(a, b) _mm512_add_ps(a, b)
#define GENIE__FSUB(a, b) _mm512_sub_ps(a, b)
#define GENIE__FMUL(a, b) _mm512_mul_ps(a, b)
/* vdivps, correctly rounded; on Zen 4 faster in the vector functions than rcp14 with a Newton
   step and a residual correction (6 FMA-pipe operations; its divider runs beside them):
   tanh 0.36 -> 0.29 ns an element, silu's mid form 0.36 -> 0.29 */
#define GENIE__FDIV(a, b) _mm512_div_ps(a, b)
#define GENIE__FSQRT(a) _mm512_mask_sqrt_ps(a, (__mmask16)-1, a)
#define GENIE__FXOR(a, b) _mm512_xor_ps(a, b)
#define GENIE__FANDN(a, b) _mm512_andnot_ps(a, b)
#define GENIE__FMAXV(a, b) _mm512_mask_max_ps(a, (__mmask16)-1, a, b) /* a > b ? a : b */
#define GENIE__FMINV(a, b) _mm512_mask_min_ps(a, (__mmask16)-1, a, b) /* a < b ? a : b */
#define GENIE__FCMP(a, b, pr) _mm512_cmp_ps_mask(a, b, pr)
#define GENIE__FSEL(m, a, b) _mm512_mask_blend_ps(m, b, a) /* m ? a : b */
#define GENIE__FRND(a, mode) _mm512_mask_roundscale_ps(a, (__mmask16)-1, a, (mode) | _MM_FROUND_NO_EXC)
#define GENIE__FFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define GENIE__FFNMA(a, b, c) _mm512_fnmadd_ps(a, b, c) /* c - a b */
#define GENIE__FFMS(a, b, c) _mm512_fmsub_ps(a, b, c)   /* a b - c */
#define GENIE__FAND(a, b) _mm512_and_ps(a, b)
#define GENIE__FOR(a, b) _mm512_or_ps(a, b)
#define GENIE__FBITS(u) _mm512_castsi512_ps(_mm512_set1_epi32((int)(u)))
#define GENIE__FSHL(a, k) _mm512_castsi512_ps(_mm512_maskz_slli_epi32((__mmask16)-1, _mm512_castps_si512(a), k))
#define GENIE__FSHR(a, k) _mm512_castsi512_ps(_mm512_maskz_srli_epi32((__mmask16)-1, _mm512_castps_si512(a), k))
#define GENIE__FTBL(p) _mm512_maskz_broadcast_f32x8((__mmask16)-1, _mm256_loadu_ps(p)) /* 8 floats, twice */
#define GENIE__FPERM(t, i) _mm512_maskz_permutexvar_ps((__mmask16)-1, _mm512_castps_si512(i), t) /* t[i & 15] */
#define GENIE__FM __mmask16
#define GENIE__FALL(m) ((m) == (__mmask16)0xFFFF) /* every lane's compare true */
#define GENIE__FSCALE(y, k) _mm512_maskz_scalef_ps((__mmask16)-1, y, k) /* y 2^k (integer k), rounded once */
#define GENIE__FSCALE_EMU 0
#define GENIE__MAND(a, b) ((__mmask16)((a) & (b)))
#define GENIE__MOR(a, b) ((__mmask16)((a) | (b)))
#define GENIE__MST(p, m) _mm_storeu_si128((__m128i *)(void *)(p), _mm_maskz_mov_epi8(m, _mm_set1_epi8(1)))
#define GENIE__D __m512d
#define GENIE__DM __mmask8
#define GENIE__I __m512i
#define GENIE__DL 8
#define GENIE__DLD(p) _mm512_mask_cvtps_pd(_mm512_setzero_pd(), (__mmask8)-1, _mm256_loadu_ps(p))
#define GENIE__DST(p, v) _mm256_storeu_ps(p, _mm512_mask_cvtpd_ps(_mm256_setzero_ps(), (__mmask8)-1, v))
#define GENIE__D1(c) _mm512_set1_pd(c)
#define GENIE__DADD(a, b) _mm512_add_pd(a, b)
#define GENIE__DSUB(a, b) _mm512_sub_pd(a, b)
#define GENIE__DMUL(a, b) _mm512_mul_pd(a, b)
#define GENIE__DDIV(a, b) _mm512_div_pd(a, b)
#define GENIE__DSQRT(a) _mm512_mask_sqrt_pd(a, (__mmask8)-1, a)
#define GENIE__DFMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define GENIE__DFNMA(a, b, c) _mm512_fnmadd_pd(a, b, c) /* c - a b */
#define GENIE__DMIN(a, b) _mm512_mask_min_pd(a, (__mmask8)-1, a, b)
#define GENIE__DMAX(a, b) _mm512_mask_max_pd(a, (__mmask8)-1, a, b)
#define GENIE__DAND(a, b) _mm512_and_pd(a, b)
#define GENIE__DOR(a, b) _mm512_or_pd(a, b)
#define GENIE__DXOR(a, b) _mm512_xor_pd(a, b)
#define GENIE__DABS(a) _mm512_andnot_pd(_mm512_set1_pd(-0.0), a)
#define GENIE__DCMP(a, b, pr) _mm512_cmp_pd_mask(a, b, pr)
#define GENIE__DSEL(m, a, b) _mm512_mask_blend_pd(m, b, a)
#define GENIE__DRINT(a) _mm512_mask_roundscale_pd(a, (__mmask8)-1, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define GENIE__D2I(a) _mm512_castpd_si512(a)
#define GENIE__I2D(a) _mm512_castsi512_pd(a)
#define GENIE__I1(c) _mm512_set1_epi64(c)
#define GENIE__IADD(a, b) _mm512_add_epi64(a, b)
#define GENIE__IAND(a, b) _mm512_and_si512(a, b)
#define GENIE__IOR(a, b) _mm512_or_si512(a, b)
#define GENIE__ISHL(a, k) _mm512_mask_slli_epi64(a, (__mmask8)-1, a, k)
#define GENIE__ISHR(a, k) _mm512_mask_srli_epi64(a, (__mmask8)-1, a, k)
#define GENIE__ITEST(a, b) _mm512_test_epi64_mask(a, b) /* (a & b) != 0 */
#define GENIE__DANY(m) ((m) != 0)
#define GENIE__DBITS(m) ((int)(m)) /* lane l's bit at 1 << l */
/* gelu for x >= -1 (not NaN), as genie__P_fgelu_pos on genie__vm_phi16_tab */
static GENIE__AVX512 GENIE__VINL __m512 genie__z_fgelu_pos16(__m512 x) {
    __m512 a = GENIE__FMINV(GENIE__F1(5.99999952f), x), q;
    const __m512 idx = GENIE__FSHR(GENIE__FADD(a, GENIE__F1(2.0f)), 21);
#define GENIE__PHI16(j) GENIE__FPERM(_mm512_loadu_ps(genie__vm_phi16_tab[j]), idx)
    a = GENIE__FSUB(a, GENIE__PHI16(0));
    q = GENIE__FFMA(GENIE__PHI16(7), a, GENIE__PHI16(6));
    q = GENIE__FFMA(q, a, GENIE__PHI16(5));
    q = GENIE__FFMA(q, a, GENIE__PHI16(4));
    q = GENIE__FFMA(q, a, GENIE__PHI16(3));
    q = GENIE__FFMA(q, a, GENIE__PHI16(2));
    q = GENIE__FFMA(q, a, GENIE__PHI16(1));
#undef GENIE__PHI16
    return GENIE__FMUL(x, q);
}
#define GENIE__FGELU_POS(P, x) genie__z_fgelu_pos16(x)
GENIE__VS_ALL(z)
#undef GENIE__FGELU_POS
#undef GENIE__VATTR
#undef GENIE__F
#undef GENIE__FL
#undef GENIE__F1
#undef GENIE__FLD
#undef GENIE__FST
#undef GENIE__FSTC
#undef GENIE__FADD
#undef GENIE__FSUB
#undef GENIE__FMUL
#undef GENIE__FDIV
#undef GENIE__FSQRT
#undef GENIE__FXOR
#undef GENIE__FANDN
#undef GENIE__FMAXV
#undef GENIE__FMINV
#undef GENIE__FCMP
#undef GENIE__FSEL
#undef GENIE__FRND
#undef GENIE__FFMA
#undef GENIE__FFNMA
#undef GENIE__FFMS
#undef GENIE__FAND
#undef GENIE__FOR
#undef GENIE__FBITS
#undef GENIE__FSHL
#undef GENIE__FSHR
#undef GENIE__FTBL
#undef GENIE__FPERM
#undef GENIE__FM
#undef GENIE__FALL
#undef GENIE__FSCALE
#undef GENIE__FSCALE_EMU
#undef GENIE__MAND
#undef GENIE__MOR
#undef GENIE__MST
#undef GENIE__D
#undef GENIE__DM
#undef GENIE__I
#undef GENIE__DL
#undef GENIE__DLD
#undef GENIE__DST
#undef GENIE__D1
#undef GENIE__DADD
#undef GENIE__DSUB
#undef GENIE__DMUL
#undef GENIE__DDIV
#undef GENIE__DSQRT
#undef GENIE__DFMA
#undef GENIE__DFNMA
#undef GENIE__DMIN
#undef GENIE__DMAX
#undef GENIE__DAND
#undef GENIE__DOR
#undef GENIE__DXOR
#undef GENIE__DABS
#undef GENIE__DCMP
#undef GENIE__DSEL
#undef GENIE__DRINT
#undef GENIE__D2I
#undef GENIE__I2D
#undef GENIE__I1
#undef GENIE__IADD
#undef GENIE__IAND
#undef GENIE__IOR
#undef GENIE__ISHL
#undef GENIE__ISHR
#undef GENIE__ITEST
#undef GENIE__DANY
#undef GENIE__DBITS

/* AVX2 + FMA (+ F16C): f32 x 8, f64 x 4, masks are vectors */
#define GENIE__VATTR GENIE__AVX2
#define GENIE__F __m256
#define GENIE__FL 8
#define GENIE__F1(c) _mm256_set1_ps(c)
#define GENIE__FLD(p) _mm256_loadu_ps(p)
#define GENIE__FST(p, v) _mm256_storeu_ps(p, v)
#define GENIE__FSTC(p, v) _mm256_storeu_ps((float *)(void *)(p), v)
#define GENIE__FADD(a, b) _mm256_add_ps(a, b)
#define GENIE__FSUB(a, b) _mm256_sub_ps(a, b)
#define GENIE__FMUL(a, b) _mm256_mul_ps(a, b)
#define GENIE__FDIV(a, b) _mm256_div_ps(a, b)
#define GENIE__FSQRT(a) _mm256_sqrt_ps(a)
#define GENIE__FXOR(a, b) _mm256_xor_ps(a, b)
#define GENIE__FANDN(a, b) _mm256_andnot_ps(a, b)
#define GENIE__FMAXV(a, b) _mm256_max_ps(a, b)
#define GENIE__FMINV(a, b) _mm256_min_ps(a, b)
#define GENIE__FCMP(a, b, pr) _mm256_cmp_ps(a, b, pr)
#define GENIE__FSEL(m, a, b) _mm256_blendv_ps(b, a, m)
#define GENIE__FRND(a, mode) _mm256_round_ps(a, (mode) | _MM_FROUND_NO_EXC)
#define GENIE__FFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define GENIE__FFNMA(a, b, c) _mm256_fnmadd_ps(a, b, c)
#define GENIE__FFMS(a, b, c) _mm256_fmsub_ps(a, b, c)
#define GENIE__FAND(a, b) _mm256_and_ps(a, b)
#define GENIE__FOR(a, b) _mm256_or_ps(a, b)
#define GENIE__FBITS(u) _mm256_castsi256_ps(_mm256_set1_epi32((int)(u)))
#define GENIE__FSHL(a, k) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(a), k))
#define GENIE__FSHR(a, k) _mm256_castsi256_ps(_mm256_srli_epi32(_mm256_castps_si256(a), k))
#define GENIE__FTBL(p) _mm256_loadu_ps(p)
#define GENIE__FPERM(t, i) _mm256_permutevar8x32_ps(t, _mm256_castps_si256(i)) /* t[i & 7] */
#define GENIE__FM __m256
#define GENIE__FALL(m) (_mm256_movemask_ps(m) == 0xFF) /* every lane's compare true */
#define GENIE__FSCALE(y, k) genie__y_fscale(y, k)
#define GENIE__FSCALE_EMU 1
#define GENIE__MAND(a, b) _mm256_and_ps(a, b)
#define GENIE__MOR(a, b) _mm256_or_ps(a, b)
/* 8 compare lanes (all ones or zero) -> 8 bytes of 1 or 0: two saturating packs */
#define GENIE__MST(p, m)                                                                             \
    { const __m256i m_ = _mm256_castps_si256(m);                                                     \
      const __m128i w_ = _mm_packs_epi32(_mm256_castsi256_si128(m_), _mm256_extracti128_si256(m_, 1)); \
      _mm_storel_epi64((__m128i *)(void *)(p), _mm_and_si128(_mm_packs_epi16(w_, w_), _mm_set1_epi8(1))); }
#define GENIE__D __m256d
#define GENIE__DM __m256d
#define GENIE__I __m256i
#define GENIE__DL 4
#define GENIE__DLD(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define GENIE__DST(p, v) _mm_storeu_ps(p, _mm256_cvtpd_ps(v))
#define GENIE__D1(c) _mm256_set1_pd(c)
#define GENIE__DADD(a, b) _mm256_add_pd(a, b)
#define GENIE__DSUB(a, b) _mm256_sub_pd(a, b)
#define GENIE__DMUL(a, b) _mm256_mul_pd(a, b)
#define GENIE__DDIV(a, b) _mm256_div_pd(a, b)
#define GENIE__DSQRT(a) _mm256_sqrt_pd(a)
#define GENIE__DFMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define GENIE__DFNMA(a, b, c) _mm256_fnmadd_pd(a, b, c)
#define GENIE__DMIN(a, b) _mm256_min_pd(a, b)
#define GENIE__DMAX(a, b) _mm256_max_pd(a, b)
#define GENIE__DAND(a, b) _mm256_and_pd(a, b)
#define GENIE__DOR(a, b) _mm256_or_pd(a, b)
#define GENIE__DXOR(a, b) _mm256_xor_pd(a, b)
#define GENIE__DABS(a) _mm256_andnot_pd(_mm256_set1_pd(-0.0), a)
#define GENIE__DCMP(a, b, pr) _mm256_cmp_pd(a, b, pr)
#define GENIE__DSEL(m, a, b) _mm256_blendv_pd(b, a, m)
#define GENIE__DRINT(a) _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define GENIE__D2I(a) _mm256_castpd_si256(a)
#define GENIE__I2D(a) _mm256_castsi256_pd(a)
#define GENIE__I1(c) _mm256_set1_epi64x(c)
#define GENIE__IADD(a, b) _mm256_add_epi64(a, b)
#define GENIE__IAND(a, b) _mm256_and_si256(a, b)
#define GENIE__IOR(a, b) _mm256_or_si256(a, b)
#define GENIE__ISHL(a, k) _mm256_slli_epi64(a, k)
#define GENIE__ISHR(a, k) _mm256_srli_epi64(a, k)
#define GENIE__ITEST(a, b) _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(a, b), b)) /* b one bit */
#define GENIE__DANY(m) (_mm256_movemask_pd(m) != 0)
#define GENIE__DBITS(m) _mm256_movemask_pd(m)
/* y 2^k for integer-valued k in [-252, 254] as y 2^floor(k/2) 2^ceil(k/2): both factors
   normal, so a result in the subnormal range is rounded once, at the last product */
static GENIE__AVX2 GENIE__VINL __m256 genie__y_fscale(__m256 y, __m256 k) {
    __m256 k1 = _mm256_round_ps(_mm256_mul_ps(k, _mm256_set1_ps(0.5f)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m256 k2 = _mm256_sub_ps(k, k1);
    k1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(_mm256_add_ps(k1, _mm256_set1_ps(8388735.0f))), 23));
    k2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(_mm256_add_ps(k2, _mm256_set1_ps(8388735.0f))), 23));
    return _mm256_mul_ps(_mm256_mul_ps(y, k1), k2);
}
#define GENIE__FGELU_POS(P, x) genie__y_fgelu_pos(x)
GENIE__VS_ALL(y)
#undef GENIE__FGELU_POS
#undef GENIE__VATTR
#undef GENIE__F
#undef GENIE__FL
#undef GENIE__F1
#undef GENIE__FLD
#undef GENIE__FST
#undef GENIE__FSTC
#undef GENIE__FADD
#undef GENIE__FSUB
#undef GENIE__FMUL
#undef GENIE__FDIV
#undef GENIE__FSQRT
#undef GENIE__FXOR
#undef GENIE__FANDN
#undef GENIE__FMAXV
#undef GENIE__FMINV
#undef GENIE__FCMP
#undef GENIE__FSEL
#undef GENIE__FRND
#undef GENIE__FFMA
#undef GENIE__FFNMA
#undef GENIE__FFMS
#undef GENIE__FAND
#undef GENIE__FOR
#undef GENIE__FBITS
#undef GENIE__FSHL
#undef GENIE__FSHR
#undef GENIE__FTBL
#undef GENIE__FPERM
#undef GENIE__FM
#undef GENIE__FALL
#undef GENIE__FSCALE
#undef GENIE__FSCALE_EMU
#undef GENIE__MAND
#undef GENIE__MOR
#undef GENIE__MST
#undef GENIE__D
#undef GENIE__DM
#undef GENIE__I
#undef GENIE__DL
#undef GENIE__DLD
#undef GENIE__DST
#undef GENIE__D1
#undef GENIE__DADD
#undef GENIE__DSUB
#undef GENIE__DMUL
#undef GENIE__DDIV
#undef GENIE__DSQRT
#undef GENIE__DFMA
#undef GENIE__DFNMA
#undef GENIE__DMIN
#undef GENIE__DMAX
#undef GENIE__DAND
#undef GENIE__DOR
#undef GENIE__DXOR
#undef GENIE__DABS
#undef GENIE__DCMP
#undef GENIE__DSEL
#undef GENIE__DRINT
#undef GENIE__D2I
#undef GENIE__I2D
#undef GENIE__I1
#undef GENIE__IADD
#undef GENIE__IAND
#undef GENIE__IOR
#undef GENIE__ISHL
#undef GENIE__ISHR
#undef GENIE__ITEST
#undef GENIE__DANY
#undef GENIE__DBITS

/* f16 / bf16 <-> f32 in registers, bit for bit as genie__h2f / f2h / bf2f / f2bf.
   f16/bf16 -> f32 makes a NaN quiet, as the reference's copy through double does.
   vcvtph2ps / vcvtps2ph (F16C, which the AVX2 path requires and AVX-512F includes)
   round to nearest even; f32 -> f16 NaN lanes (rare) are redone by genie__f2h, which
   drops the payload. bf16 by integer shifts, NaN made quiet. */
static GENIE__AVX2 void genie__vy_H2F(void *out, const void *a, const void *b, int64_t n) {
    const uint16_t *h = (const uint16_t *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 8 <= n; i += 8) /* vcvtph2ps keeps NaN payloads and makes them quiet, as the reference */
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(h + i))));
    for (; i < n; i++) y[i] = genie__v_quiet(genie__h2f(h[i]));
}
static GENIE__AVX2 void genie__vy_F2H(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    uint16_t *h = (uint16_t *)out;
    int64_t i = 0, j;
    (void)b;
    for (; i + 8 <= n; i += 8) { /* NaN lanes redone from the vector (out may be a) */
        __m256 v = _mm256_loadu_ps(x + i);
        _mm_storeu_si128((__m128i *)(void *)(h + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {
            float t[8];
            _mm256_storeu_ps(t, v);
            for (j = 0; j < 8; j++) h[i + j] = genie__f2h(t[j]);
        }
    }
    for (; i < n; i++) h[i] = genie__f2h(x[i]);
}
static GENIE__AVX2 void genie__vy_BF2F(void *out, const void *a, const void *b, int64_t n) {
    const uint16_t *h = (const uint16_t *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(h + i))), 16);
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
        _mm256_storeu_si256((__m256i *)(void *)(y + i), _mm256_or_si256(v, _mm256_and_si256(nan, _mm256_set1_epi32(0x400000))));
    }
    for (; i < n; i++) y[i] = genie__v_quiet(genie__bf2f(h[i]));
}
static GENIE__AVX2 void genie__vy_F2BF(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    uint16_t *h = (uint16_t *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256i u = _mm256_castps_si256(v);
        __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
        __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
        __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40)); /* NaN: quiet */
        r = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(r), _mm256_castsi256_ps(q),
                                                 _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
        _mm_storeu_si128((__m128i *)(void *)(h + i),
                         _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
    }
    for (; i < n; i++) h[i] = genie__f2bf(x[i]);
}
static GENIE__AVX2 void genie__vy_RH(void *out, const void *a, const void *b, int64_t n) { /* vcvtps2ph, vcvtph2ps */
    const float *x = (const float *)a;
    float *y = (float *)out, t[8];
    int64_t i = 0, j;
    (void)b;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
        if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) { /* a NaN lane: as F2H redoes it (out may be x) */
            _mm256_storeu_ps(t, v);
            for (j = 0; j < 8; j++) y[i + j] = genie__v_quiet(genie__h2f(genie__f2h(t[j])));
        } else {
            _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
        }
    }
    for (; i < n; i++) y[i] = genie__v_quiet(genie__h2f(genie__f2h(x[i])));
}
static GENIE__AVX2 void genie__vy_RBF(void *out, const void *a, const void *b, int64_t n) { /* F2BF's rounding, in place */
    const float *x = (const float *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256i u = _mm256_castps_si256(v), hi = _mm256_set1_epi32((int)0xffff0000u);
        __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
        __m256i r = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), hi);
        __m256i q = _mm256_or_si256(_mm256_and_si256(u, hi), _mm256_set1_epi32(0x400000)); /* NaN: quiet */
        _mm256_storeu_ps(y + i, _mm256_blendv_ps(_mm256_castsi256_ps(r), _mm256_castsi256_ps(q), _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
    }
    for (; i < n; i++) y[i] = genie__v_quiet(genie__bf2f(genie__f2bf(x[i])));
}
static GENIE__AVX2 void genie__vy_B2F(void *out, const void *a, const void *b, int64_t n) {
    const uint8_t *m = (const uint8_t *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(m + i)));
        __m256i nz = _mm256_xor_si256(_mm256_cmpeq_epi32(v, _mm256_setzero_si256()), _mm256_set1_epi32(-1));
        _mm256_storeu_ps(y + i, _mm256_and_ps(_mm256_castsi256_ps(nz), _mm256_set1_ps(1.0f)));
    }
    for (; i < n; i++) y[i] = m[i] != 0;
}
static GENIE__AVX2 void genie__vy_SEL(void *out, const void *a, const void *b, int64_t n) {
    const float *c = (const float *)a, *v = (const float *)b;
    float *y = (float *)out;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 k = _mm256_cmp_ps(_mm256_loadu_ps(c + i), _mm256_setzero_ps(), _CMP_NEQ_UQ);
        _mm256_storeu_ps(y + i, _mm256_blendv_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(v + i), k));
    }
    for (; i < n; i++)
        if (c[i] != 0) y[i] = v[i];
}
static GENIE__AVX2 void genie__vy_SELS(void *out, const void *a, const void *b, int64_t n) {
    const float *c = (const float *)a;
    float *y = (float *)out;
    const __m256 s = _mm256_set1_ps(*(const float *)b);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 k = _mm256_cmp_ps(_mm256_loadu_ps(c + i), _mm256_setzero_ps(), _CMP_NEQ_UQ);
        _mm256_storeu_ps(y + i, _mm256_blendv_ps(_mm256_loadu_ps(y + i), s, k));
    }
    for (; i < n; i++)
        if (c[i] != 0) y[i] = *(const float *)b;
}
static GENIE__AVX2 void genie__vy_POWH(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i), r = _mm256_add_ps(_mm256_sqrt_ps(v), _mm256_setzero_ps()); /* -0 -> +0 */
        _mm256_storeu_ps(y + i, _mm256_blendv_ps(r, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(v, _mm256_set1_ps(-INFINITY), _CMP_EQ_OQ)));
    }
    for (; i < n; i++) y[i] = x[i] == -INFINITY ? INFINITY : sqrtf(x[i]) + 0.0f;
}
/* x ** e of POWK on f64 lanes d (k: genie__powk_code(e)) */
#define GENIE__POWK_BODY(V, SET1, MUL, DIV, SQRT, SEL_EQ)                                          \
    switch (k) {                                                                                   \
    case 3: r = MUL(MUL(d, d), d); break;                                                          \
    case 4: r = MUL(d, d), r = MUL(r, r); break;                                                   \
    case -2: r = DIV(SET1(1.0), MUL(d, d)); break;                                                 \
    case -1: /* -0.5: +inf at either zero, +0 at -inf */                                           \
        r = DIV(SET1(1.0), SQRT(d));                                                               \
        r = SEL_EQ(d, SET1(0.0), SET1(INFINITY), r);                                               \
        r = SEL_EQ(d, SET1(-INFINITY), SET1(0.0), r);                                              \
        break;                                                                                     \
    default: r = SEL_EQ(d, SET1(-INFINITY), SET1(INFINITY), MUL(d, SQRT(d))); break; /* 1: 1.5 */  \
    }
static int genie__powk_code(double e) { /* 0: not a POWK exponent (the generic loop) */
    return e == 3.0 ? 3 : e == 4.0 ? 4 : e == -2.0 ? -2 : e == -0.5 ? -1 : e == 1.5 ? 1 : 0;
}
#define GENIE__Y_SEL_EQ(d, v, t, f) _mm256_blendv_pd(f, t, _mm256_cmp_pd(d, v, _CMP_EQ_OQ))
static GENIE__AVX2 __m256d genie__powk_y(__m256d d, int k) {
    __m256d r;
    GENIE__POWK_BODY(__m256d, _mm256_set1_pd, _mm256_mul_pd, _mm256_div_pd, _mm256_sqrt_pd, GENIE__Y_SEL_EQ)
    return r;
}
#undef GENIE__Y_SEL_EQ
static GENIE__AVX2 void genie__vy_POWK(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    float *y = (float *)out;
    const int k = genie__powk_code(*(const double *)b);
    int64_t i = 0;
    for (; i + 8 <= n && k; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m128 lo = _mm256_cvtpd_ps(genie__powk_y(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), k));
        const __m128 hi = _mm256_cvtpd_ps(genie__powk_y(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), k));
        _mm256_storeu_ps(y + i, _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1));
    }
    if (i < n) genie__vg_POWK(y + i, x + i, b, n - i);
}
/* The masked forms (all lanes) name their pass-through operand; the plain ones fill it
   with _mm512_undefined_*(), which GCC 12 reports as uninitialized in C++ at -O2. */
#define GENIE__Z_SLLI32(a, k) _mm512_mask_slli_epi32(a, (__mmask16)-1, a, k)
#define GENIE__Z_SRLI32(a, k) _mm512_mask_srli_epi32(a, (__mmask16)-1, a, k)
static GENIE__AVX512 void genie__vz_H2F(void *out, const void *a, const void *b, int64_t n) {
    const uint16_t *h = (const uint16_t *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 16 <= n; i += 16) /* vcvtph2ps keeps NaN payloads and makes them quiet, as the reference */
        _mm512_storeu_ps(y + i, _mm512_mask_cvtph_ps(_mm512_setzero_ps(), (__mmask16)-1, _mm256_loadu_si256((const __m256i *)(const void *)(h + i))));
    for (; i < n; i++) y[i] = genie__v_quiet(genie__h2f(h[i]));
}
static GENIE__AVX512 void genie__vz_F2H(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    uint16_t *h = (uint16_t *)out;
    int64_t i = 0, j;
    (void)b;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        _mm256_storeu_si256((__m256i *)(void *)(h + i), _mm512_mask_cvtps_ph(_mm256_setzero_si256(), (__mmask16)-1, v, _MM_FROUND_TO_NEAREST_INT));
        if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)) { /* NaN lanes redone from the vector (out may be a) */
            float t[16];
            _mm512_storeu_ps(t, v);
            for (j = 0; j < 16; j++) h[i + j] = genie__f2h(t[j]);
        }
    }
    for (; i < n; i++) h[i] = genie__f2h(x[i]);
}
static GENIE__AVX512 void genie__vz_BF2F(void *out, const void *a, const void *b, int64_t n) {
    const uint16_t *h = (const uint16_t *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 16 <= n; i += 16) {
        __m512i v = GENIE__Z_SLLI32(_mm512_maskz_cvtepu16_epi32((__mmask16)-1, _mm256_loadu_si256((const __m256i *)(const void *)(h + i))), 16);
        __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
        _mm512_storeu_si512((void *)(y + i), _mm512_mask_or_epi32(v, nan, v, _mm512_set1_epi32(0x400000)));
    }
    for (; i < n; i++) y[i] = genie__v_quiet(genie__bf2f(h[i]));
}
static GENIE__AVX512 void genie__vz_F2BF(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    uint16_t *h = (uint16_t *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m512i u = _mm512_castps_si512(v);
        __m512i odd = _mm512_and_si512(GENIE__Z_SRLI32(u, 16), _mm512_set1_epi32(1));
        __m512i r = GENIE__Z_SRLI32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd), 16);
        __m512i q = _mm512_or_si512(GENIE__Z_SRLI32(u, 16), _mm512_set1_epi32(0x40));
        r = _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), r, q);
        _mm256_storeu_si256((__m256i *)(void *)(h + i), _mm512_mask_cvtepi32_epi16(_mm256_setzero_si256(), (__mmask16)-1, r));
    }
    for (; i < n; i++) h[i] = genie__f2bf(x[i]);
}
static GENIE__AVX512 void genie__vz_RH(void *out, const void *a, const void *b, int64_t n) { /* vcvtps2ph, vcvtph2ps */
    const float *x = (const float *)a;
    float *y = (float *)out, t[16];
    int64_t i = 0, j;
    (void)b;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m256i h = _mm512_mask_cvtps_ph(_mm256_setzero_si256(), (__mmask16)-1, v, _MM_FROUND_TO_NEAREST_INT);
        if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)) { /* a NaN lane: as F2H redoes it (out may be x) */
            _mm512_storeu_ps(t, v);
            for (j = 0; j < 16; j++) y[i + j] = genie__v_quiet(genie__h2f(genie__f2h(t[j])));
        } else {
            _mm512_storeu_ps(y + i, _mm512_mask_cvtph_ps(_mm512_setzero_ps(), (__mmask16)-1, h));
        }
    }
    for (; i < n; i++) y[i] = genie__v_quiet(genie__h2f(genie__f2h(x[i])));
}
static GENIE__AVX512 void genie__vz_RBF(void *out, const void *a, const void *b, int64_t n) { /* F2BF's rounding, in place */
    const float *x = (const float *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m512i u = _mm512_castps_si512(v), hi = _mm512_set1_epi32((int)0xffff0000u);
        __m512i odd = _mm512_and_si512(GENIE__Z_SRLI32(u, 16), _mm512_set1_epi32(1));
        __m512i r = _mm512_and_si512(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd), hi);
        __m512i q = _mm512_or_si512(_mm512_and_si512(u, hi), _mm512_set1_epi32(0x400000)); /* NaN: quiet */
        _mm512_storeu_si512((void *)(y + i), _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), r, q));
    }
    for (; i < n; i++) y[i] = genie__v_quiet(genie__bf2f(genie__f2bf(x[i])));
}
static GENIE__AVX512 void genie__vz_B2F(void *out, const void *a, const void *b, int64_t n) {
    const uint8_t *m = (const uint8_t *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i + 16 <= n; i += 16) {
        __m512i v = _mm512_maskz_cvtepu8_epi32((__mmask16)-1, _mm_loadu_si128((const __m128i *)(const void *)(m + i)));
        _mm512_storeu_ps(y + i, _mm512_maskz_mov_ps(_mm512_test_epi32_mask(v, v), _mm512_set1_ps(1.0f)));
    }
    for (; i < n; i++) y[i] = m[i] != 0;
}
static GENIE__AVX512 void genie__vz_SEL(void *out, const void *a, const void *b, int64_t n) {
    const float *c = (const float *)a, *v = (const float *)b;
    float *y = (float *)out;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_mask_storeu_ps(y + i, _mm512_cmp_ps_mask(_mm512_loadu_ps(c + i), _mm512_setzero_ps(), _CMP_NEQ_UQ), _mm512_loadu_ps(v + i));
    for (; i < n; i++)
        if (c[i] != 0) y[i] = v[i];
}
static GENIE__AVX512 void genie__vz_SELS(void *out, const void *a, const void *b, int64_t n) {
    const float *c = (const float *)a;
    float *y = (float *)out;
    const __m512 s = _mm512_set1_ps(*(const float *)b);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_mask_storeu_ps(y + i, _mm512_cmp_ps_mask(_mm512_loadu_ps(c + i), _mm512_setzero_ps(), _CMP_NEQ_UQ), s);
    for (; i < n; i++)
        if (c[i] != 0) y[i] = *(const float *)b;
}
static GENIE__AVX512 void genie__vz_POWH(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    float *y = (float *)out;
    int64_t i = 0;
    (void)b;
    for (; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(m, x + i), r = _mm512_add_ps(_mm512_sqrt_ps(v), _mm512_setzero_ps()); /* -0 -> +0 */
        _mm512_mask_storeu_ps(y + i, m, _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(v, _mm512_set1_ps(-INFINITY), _CMP_EQ_OQ),
                                                           _mm512_set1_ps(INFINITY)));
    }
}
#define GENIE__Z_SEL_EQ(d, v, t, f) _mm512_mask_mov_pd(f, _mm512_cmp_pd_mask(d, v, _CMP_EQ_OQ), t)
static GENIE__AVX512 __m512d genie__powk_z(__m512d d, int k) {
    __m512d r;
    GENIE__POWK_BODY(__m512d, _mm512_set1_pd, _mm512_mul_pd, _mm512_div_pd, _mm512_sqrt_pd, GENIE__Z_SEL_EQ)
    return r;
}
#undef GENIE__Z_SEL_EQ
static GENIE__AVX512 void genie__vz_POWK(void *out, const void *a, const void *b, int64_t n) {
    const float *x = (const float *)a;
    float *y = (float *)out;
    const int k = genie__powk_code(*(const double *)b);
    int64_t i = 0;
    if (!k) {
        genie__vg_POWK(out, a, b, n);
        return;
    }
    for (; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        const __m256 lo = _mm512_cvtpd_ps(genie__powk_z(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), k));
        const __m256 hi = _mm512_cvtpd_ps(genie__powk_z(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), k));
        _mm512_mask_storeu_ps(y + i, m, _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1)));
    }
}
#undef GENIE__POWK_BODY
#undef GENIE__Z_SLLI32
#undef GENIE__Z_SRLI32
#endif /* GENIE__X86 */

/* The table: [path][operation], NULL where a path has no kernel. */
#define GENIE__VE1(P, o) genie__v##P##_##o,
#define GENIE__VE3(P, o) genie__v##P##_##o, genie__v##P##_##o##_vs, genie__v##P##_##o##_sv,
#define GENIE__VROW(P) \
    { GENIE__VU_LIST(GENIE__VE1, P) GENIE__VB_LIST(GENIE__VE3, P) GENIE__VC_LIST(GENIE__VE3, P) GENIE__VX_LIST(GENIE__VE1, P) }
static const genie__vfn genie__vops[GENIE_CPU_COUNT][GENIE__V_COUNT] = {
    {0}, /* AUTO */
    {0}, /* REFERENCE: the strided kernels */
    GENIE__VROW(g),
#ifdef GENIE__X86
    GENIE__VROW(y),
    GENIE__VROW(z),
#else
    {0}, {0},
#endif
};
/* The path's array kernel converting f16/bf16 (dt) to f32 (to16 0) or f32 to dt
   (to16 1), bit for bit as genie__h2f / f2h / bf2f / f2bf; NULL for another dtype
   or path. */
static genie__vfn genie__fconv(genie_cpu cpu, int dt, int to16) {
    if (cpu < GENIE_CPU_GENERIC || cpu >= GENIE_CPU_COUNT || (dt != GENIE_F16 && dt != GENIE_BF16)) return NULL;
    return genie__vops[cpu][dt == GENIE_F16 ? (to16 ? GENIE__V_F2H : GENIE__V_H2F) : (to16 ? GENIE__V_F2BF : GENIE__V_BF2F)];
}
/* f16/bf16 dt[n] <-> f32[n] (to16: f32 -> dt), on the path's array kernel or element by element. */
static void genie__hconv(genie_cpu cpu, int dt, int to16, void *out, const void *in, int64_t n) {
    const genie__vfn fn = genie__fconv(cpu, dt, to16);
    int64_t e;
    if (fn) fn(out, in, NULL, n);
    else if (to16)
        for (e = 0; e < n; e++) ((uint16_t *)out)[e] = dt == GENIE_F16 ? genie__f2h(((const float *)in)[e]) : genie__f2bf(((const float *)in)[e]);
    else
        for (e = 0; e < n; e++) ((float *)out)[e] = (float)genie__ldf(in, e, dt);
}
/* x[0, n) rounded to f16/bf16 cdt and back (f32 cdt: unchanged), in registers: the path's
   RH/RBF kernel, or (another path) through f16/bf16 a tile at a time. */
#define GENIE__HROUND_TILE 512
static void genie__fround(genie_cpu cpu, int cdt, float *x, int64_t n) {
    uint16_t h[GENIE__HROUND_TILE];
    int64_t e, c;
    if (cdt != GENIE_F16 && cdt != GENIE_BF16) return;
    if (cpu >= GENIE_CPU_GENERIC && cpu < GENIE_CPU_COUNT) {
        genie__vops[cpu][cdt == GENIE_F16 ? GENIE__V_RH : GENIE__V_RBF](x, x, NULL, n);
        return;
    }
    for (e = 0; e < n; e += c) {
        c = n - e < GENIE__HROUND_TILE ? n - e : GENIE__HROUND_TILE;
        genie__hconv(cpu, cdt, 1, h, x + e, c);
        genie__hconv(cpu, cdt, 0, x + e, h, c);
    }
}
#undef GENIE__VE1
#undef GENIE__VE3
#undef GENIE__VROW
GENIE__STATIC_ASSERT(vops_paths, GENIE_CPU_GENERIC == 2 && GENIE_CPU_AVX2 == 3 && GENIE_CPU_AVX512 == 4 &&
                                     GENIE_CPU_COUNT == 5);

/* ---- the executor's use: elementwise nodes over dense operands ----
   A node runs on an array kernel when its out view is dense (it covers
   [off, off + numel) in some order of dims, no negative strides) and every
   input is read through the same strides (or, for a binary op, is one value
   broadcast: all strides 0), with f32 operands (bool out for comparisons and
   logical ops; f16/bf16 <-> f32 for copies). Threads take chunks of 512-element
   units as they come (genie__take); below GENIE__V_MIN_SHARED elements a node stays
   on the calling thread. */
#define GENIE__V_MIN_SHARED (1 << 16)
typedef struct genie__vjob {
    genie__vfn fn;
    char *o;
    const char *a, *b; /* b: an array (bstep 1) or a pointer into the job (bstep 0) */
    int64_t n;
    int osz, isz, bstep;
    double s;
    float bounds[2];
} genie__vjob;
static int genie__v_dense(const genie__vspec *v) {
    int64_t sh[GENIE__MAXD], st[GENIE__MAXD], expect = 1;
    int k = 0, d, i;
    for (d = 0; d < v->ndim; d++) {
        if (v->shape[d] == 1) continue;
        if (v->strides[d] <= 0) return 0;
        for (i = k; i > 0 && st[i - 1] > v->strides[d]; i--) { st[i] = st[i - 1]; sh[i] = sh[i - 1]; }
        st[i] = v->strides[d];
        sh[i] = v->shape[d];
        k++;
    }
    for (i = 0; i < k; i++) {
        if (st[i] != expect) return 0;
        expect *= sh[i];
    }
    return 1;
}
static int genie__v_same(const genie__vspec *o, const genie__vspec *v) {
    int d;
    if (v->ndim != o->ndim) return 0;
    for (d = 0; d < o->ndim; d++)
        if (v->shape[d] != o->shape[d] || (o->shape[d] != 1 && v->strides[d] != o->strides[d])) return 0;
    return 1;
}
static int genie__v_bcast(const genie__vspec *v) {
    int d;
    for (d = 0; d < v->ndim; d++)
        if (v->shape[d] != 1 && v->strides[d] != 0) return 0;
    return 1;
}
static int genie__v_unary_id(int op) {
    switch (op) {
#define GENIE__X1(P, o) case GENIE__OP_##o: return GENIE__V_##o;
    GENIE__VU_LIST(GENIE__X1, _)
    GENIE__VB_LIST(GENIE__X1, _)
    GENIE__VC_LIST(GENIE__X1, _)
#undef GENIE__X1
    default: return -1;
    }
}
/* pow(x, e) for an exponent the reference's libm pow gives exactly as a unary
   kernel does: 2 (x * x: exact in double, one rounding), -1 (1 / x, correctly
   rounded both ways), 0.5 (POWH), 3, 4, -2, -0.5 and 1.5 (POWK, which takes e as its
   operand b); the unary's id, else -1 (pow itself, libm a lane). */
static int genie__pow_unary(double e) {
    return e == 2.0 ? GENIE__V_SQUARE : e == -1.0 ? GENIE__V_RECIPROCAL : e == 0.5 ? GENIE__V_POWH
         : e == 3.0 || e == 4.0 || e == -2.0 || e == -0.5 || e == 1.5 ? GENIE__V_POWK : -1;
}
/* Fill j for node n on path cpu: 1 if an array kernel runs it, else 0. */
static int genie__v_setup(const genie__node *n, genie_cpu cpu, genie__vjob *j) {
    int kind = genie__op_kinds[n->op], id = genie__v_unary_id(n->op), bool_out, idt;
    const genie__vspec *ov = n->out;
    memset(j, 0, sizeof *j);
    if (cpu < GENIE_CPU_GENERIC || cpu >= GENIE_CPU_COUNT || !n->buf || !genie__v_dense(ov)) return 0;
    j->n = genie__numel(ov->ndim, ov->shape);
    if (j->n <= 0 || n->nin < 1) return 0;
    idt = n->in[0].n->dtype;
    j->o = (char *)GENIE__OUT(n) + ov->off * (int64_t)genie__dt_size[n->dtype];
    j->osz = (int)genie__dt_size[n->dtype];
    j->isz = (int)genie__dt_size[idt];
    j->a = (const char *)GENIE__IN(n, 0) + n->in[0].v->off * (int64_t)j->isz;
    if (kind == GENIE__K_COPY) {
        if (n->nin != 1 || !genie__v_same(ov, n->in[0].v)) return 0;
        if (idt == GENIE_F16 && n->dtype == GENIE_F32) id = GENIE__V_H2F;
        else if (idt == GENIE_BF16 && n->dtype == GENIE_F32) id = GENIE__V_BF2F;
        else if (idt == GENIE_F32 && n->dtype == GENIE_F16) id = GENIE__V_F2H;
        else if (idt == GENIE_F32 && n->dtype == GENIE_BF16) id = GENIE__V_F2BF;
        else return 0;
    } else if (kind == GENIE__K_UNARY || kind == GENIE__K_BINARY) {
        bool_out = GENIE__IS_COMPARE(n->op) || n->op == GENIE__OP_LOGICAL_AND || n->op == GENIE__OP_LOGICAL_OR ||
                   n->op == GENIE__OP_LOGICAL_NOT;
        if (id < 0 || idt != GENIE_F32 || n->dtype != (bool_out ? GENIE_BOOL : GENIE_F32)) return 0;
        if (n->cdt != GENIE_F32 && !(n->cdt == GENIE_F64 && bool_out)) return 0; /* logical ops: f64, exact */
        if (kind == GENIE__K_UNARY) {
            if (n->nin != 1 || !genie__v_same(ov, n->in[0].v)) return 0;
            if (n->op == GENIE__OP_CLAMP) {
                j->bounds[0] = (float)n->a.f[0]; /* f32 values or NaN (clamp rounded them) */
                j->bounds[1] = (float)n->a.f[1];
                j->b = (const char *)j->bounds;
            }
        } else if (n->has_scalar) {
            if (n->nin != 1 || !genie__v_same(ov, n->in[0].v)) return 0;
            j->s = n->a.f[0];
            j->b = (const char *)&j->s;
            id = n->op == GENIE__OP_POW && genie__pow_unary(j->s) >= 0 ? genie__pow_unary(j->s) : id + 1; /* X_VS */
        } else {
            const genie__vspec *va = n->in[0].v, *vb = n->in[1].v;
            if (n->nin != 2 || n->in[1].n->dtype != GENIE_F32) return 0;
            if (genie__v_same(ov, va) && genie__v_same(ov, vb)) {
                j->b = (const char *)GENIE__IN(n, 1) + vb->off * 4;
                j->bstep = 1;
            } else if (genie__v_same(ov, va) && genie__v_bcast(vb)) {
                j->s = ((const float *)GENIE__IN(n, 1))[vb->off];
                j->b = (const char *)&j->s;
                id += 1;
            } else if (genie__v_bcast(va) && genie__v_same(ov, vb)) {
                j->s = ((const float *)GENIE__IN(n, 0))[va->off];
                j->b = (const char *)&j->s;
                j->a = (const char *)GENIE__IN(n, 1) + vb->off * 4;
                id += 2; /* X_SV */
            } else return 0;
        }
    } else return 0;
    j->fn = genie__vops[cpu][id];
    return j->fn != NULL;
}
static genie_result genie__k_vrun(genie__kparams *p, int ith, int nth, genie_cpu cpu) {
    genie__vjob j;
    int64_t lo, hi, units, chunk;
    (void)ith;
    if (!genie__v_setup(p->n, cpu, &j)) return GENIE_ERR_UNSUPPORTED; /* not reached: checked when picked */
    units = (j.n + 511) / 512, chunk = genie__chunk(units, nth); /* chunks of 512-element units (genie__take) */
    while (genie__take(p, nth, units, chunk, &lo, &hi)) {
        lo *= 512;
        hi = hi * 512 < j.n ? hi * 512 : j.n;
        j.fn(j.o + lo * j.osz, j.a + lo * j.isz, j.bstep ? j.b + lo * 4 : j.b, hi - lo);
    }
    return GENIE_OK;
}
static genie_result genie__k_v_generic(genie__kparams *p, int ith, int nth) { return genie__k_vrun(p, ith, nth, GENIE_CPU_GENERIC); }
static genie_result genie__k_v_avx2(genie__kparams *p, int ith, int nth) { return genie__k_vrun(p, ith, nth, GENIE_CPU_AVX2); }
static genie_result genie__k_v_avx512(genie__kparams *p, int ith, int nth) { return genie__k_vrun(p, ith, nth, GENIE_CPU_AVX512); }

/* f64, i64, i32, i16, i8 and u8 unary and binary ops (arithmetic, comparisons, logical, math
   functions) computed in their own dtype, over a dense output and operands read in
   its order (or one value, or the scalar): the reference's values (its own scalar
   functions; IEEE doubles and wrapping integers are the same either way) without its
   iterator and per-element dtype switches (add of two i64 [2048, 2048]: 54 ms there). */
static int genie__typed_ok(const genie__node *n, genie_cpu cpu) {
    const int cdt = n->cdt, kind = genie__op_kinds[n->op];
    const int bool_out = GENIE__IS_COMPARE(n->op) || n->op == GENIE__OP_LOGICAL_AND || n->op == GENIE__OP_LOGICAL_OR ||
                         n->op == GENIE__OP_LOGICAL_NOT;
    int k;
    if (cpu < GENIE_CPU_GENERIC || cpu >= GENIE_CPU_COUNT || !n->buf || (kind != GENIE__K_BINARY && kind != GENIE__K_UNARY) ||
        (cdt != GENIE_F64 && cdt != GENIE_I64 && cdt != GENIE_I32 && cdt != GENIE_I16 && cdt != GENIE_I8 && cdt != GENIE_U8) ||
        n->dtype != (bool_out ? GENIE_BOOL : cdt) ||
        n->nin != (kind == GENIE__K_UNARY || n->has_scalar ? 1 : 2) || (n->has_scalar && cdt != GENIE_F64) ||
        !genie__v_dense(n->out))
        return 0;
    for (k = 0; k < n->nin; k++)
        if (n->in[k].n->dtype != cdt || (!genie__v_same(n->out, n->in[k].v) && !genie__v_bcast(n->in[k].v))) return 0;
    return 1;
}
/* A chunk at a time: operands loaded (narrower integers widened to i64) into u and v,
   the op over the chunk (each loop tight: the op and dtype switches are outside), the
   results stored (integers wrapped to their dtype, as genie__sti stores them). */
#define GENIE__TY_CHUNK 256
#define GENIE__TY_WIDEN(T)                                                                          \
    {                                                                                               \
        const T *s = (const T *)(const void *)x + c0 * step;                                        \
        if (step) for (j = 0; j < m; j++) ((int64_t *)d)[j] = s[j];                                 \
        else for (j = 0; j < m; j++) ((int64_t *)d)[j] = s[0];                                      \
    }
static void genie__ty_load(void *d, const char *x, int dt, int64_t c0, int64_t m, int64_t step) {
    int64_t j;
    if (dt == GENIE_I32) GENIE__TY_WIDEN(int32_t)
    else if (dt == GENIE_I16) GENIE__TY_WIDEN(int16_t)
    else if (dt == GENIE_I8) GENIE__TY_WIDEN(int8_t)
    else if (dt == GENIE_U8) GENIE__TY_WIDEN(uint8_t)
    else if (step) {
        memcpy(d, x + c0 * 8, (size_t)m * 8);
    } else {
        for (j = 0; j < m; j++) memcpy((char *)d + j * 8, x, 8);
    }
}
#define GENIE__TY_OPS(r, u, v, m, j, other)                                    \
    switch (op) {                                                              \
    case GENIE__OP_EQ: for (j = 0; j < m; j++) r[j] = u[j] == v[j]; break;     \
    case GENIE__OP_NE: for (j = 0; j < m; j++) r[j] = u[j] != v[j]; break;     \
    case GENIE__OP_LT: for (j = 0; j < m; j++) r[j] = u[j] < v[j]; break;      \
    case GENIE__OP_LE: for (j = 0; j < m; j++) r[j] = u[j] <= v[j]; break;     \
    case GENIE__OP_GT: for (j = 0; j < m; j++) r[j] = u[j] > v[j]; break;      \
    case GENIE__OP_GE: for (j = 0; j < m; j++) r[j] = u[j] >= v[j]; break;     \
    default: other;                                                            \
    }
static genie_result genie__k_typed(genie__kparams *p, int ith, int nth) {
    const genie__node *n = p->n;
    const int cdt = n->cdt, odt = n->dtype, op = n->op;
    const size_t es = genie__dt_size[cdt];
    const char *a = (const char *)GENIE__IN(n, 0) + n->in[0].v->off * (int64_t)es;
    const char *b = n->nin < 2 ? NULL : (const char *)GENIE__IN(n, 1) + n->in[1].v->off * (int64_t)es; /* NULL: unary or the scalar */
    const int64_t as = genie__v_same(n->out, n->in[0].v), bs = b && genie__v_same(n->out, n->in[1].v); /* 0: one value */
    char *o = (char *)GENIE__OUT(n) + n->out->off * (int64_t)genie__dt_size[odt];
    int64_t lo, hi, c0, m, j;
    genie__share(genie__numel(n->out->ndim, n->out->shape), ith, nth, &lo, &hi);
    for (c0 = lo; c0 < hi; c0 += m) {
        m = hi - c0 < GENIE__TY_CHUNK ? hi - c0 : GENIE__TY_CHUNK;
        if (!b && !n->has_scalar) { /* unary: the reference's scalar function */
            if (cdt == GENIE_F64) {
                double u[GENIE__TY_CHUNK];
                genie__ty_load(u, a, cdt, c0, m, as);
                for (j = 0; j < m; j++) u[j] = genie__unary_f(op, u[j], &n->a);
                if (odt == GENIE_BOOL) for (j = 0; j < m; j++) ((uint8_t *)o)[c0 + j] = u[j] != 0;
                else memcpy(o + c0 * 8, u, (size_t)m * 8);
            } else {
                int64_t u[GENIE__TY_CHUNK];
                genie__ty_load(u, a, cdt, c0, m, as);
                for (j = 0; j < m; j++) genie__sti(o, c0 + j, odt, genie__unary_i(op, u[j], &n->a));
            }
        } else if (cdt == GENIE_F64) { /* comparisons with NaN are false but for ne: as genie__binary_f */
            double u[GENIE__TY_CHUNK], v[GENIE__TY_CHUNK], r[GENIE__TY_CHUNK];
            genie__ty_load(u, a, cdt, c0, m, as);
            genie__ty_load(v, b ? b : (const char *)&n->a.f[0], cdt, c0, m, bs);
            GENIE__TY_OPS(r, u, v, m, j,
                          if (op == GENIE__OP_ADD) for (j = 0; j < m; j++) r[j] = u[j] + v[j];
                          else if (op == GENIE__OP_SUB) for (j = 0; j < m; j++) r[j] = u[j] - v[j];
                          else if (op == GENIE__OP_MUL) for (j = 0; j < m; j++) r[j] = u[j] * v[j];
                          else for (j = 0; j < m; j++) r[j] = genie__binary_f(op, u[j], v[j]))
            if (odt == GENIE_BOOL) for (j = 0; j < m; j++) ((uint8_t *)o)[c0 + j] = r[j] != 0;
            else memcpy(o + c0 * 8, r, (size_t)m * 8);
        } else { /* integers wrap: the arithmetic in uint64 */
            int64_t u[GENIE__TY_CHUNK], v[GENIE__TY_CHUNK];
            uint64_t r[GENIE__TY_CHUNK];
            genie__ty_load(u, a, cdt, c0, m, as);
            if (b) genie__ty_load(v, b, cdt, c0, m, bs);
            else for (j = 0; j < m; j++) v[j] = n->a.i[0];
            GENIE__TY_OPS(r, u, v, m, j,
                          if (op == GENIE__OP_ADD) for (j = 0; j < m; j++) r[j] = (uint64_t)u[j] + (uint64_t)v[j];
                          else if (op == GENIE__OP_SUB) for (j = 0; j < m; j++) r[j] = (uint64_t)u[j] - (uint64_t)v[j];
                          else if (op == GENIE__OP_MUL) for (j = 0; j < m; j++) r[j] = (uint64_t)u[j] * (uint64_t)v[j];
                          else for (j = 0; j < m; j++) r[j] = (uint64_t)genie__binary_i(op, u[j], v[j]))
            if (odt == GENIE_BOOL) for (j = 0; j < m; j++) ((uint8_t *)o)[c0 + j] = r[j] != 0;
            else if (odt == GENIE_I64) memcpy(o + c0 * 8, r, (size_t)m * 8);
            else if (odt == GENIE_I32) for (j = 0; j < m; j++) ((int32_t *)(void *)o)[c0 + j] = (int32_t)(uint32_t)r[j];
            else if (odt == GENIE_I16) for (j = 0; j < m; j++) ((int16_t *)(void *)o)[c0 + j] = (int16_t)(uint16_t)r[j];
            else if (odt == GENIE_I8) for (j = 0; j < m; j++) ((int8_t *)(void *)o)[c0 + j] = (int8_t)(uint8_t)r[j];
            else for (j = 0; j < m; j++) ((uint8_t *)o)[c0 + j] = (uint8_t)r[j];
        }
    }
    return GENIE_OK;
}
/* A lone conversion to another dtype (to_dtype, clone, contiguous, copy_) of a dense input
   laid out as its dense output, in another buffer: a chunk loaded as double (a float dtype
   on either side: genie__stf(genie__ldf)'s values) or as i64 (integers and bool on both:
   genie__sti(genie__ldi)'s), then stored, each loop tight. (f32, f16 and bf16 among
   themselves convert in fused groups.) */
static int genie__cvt_ok(const genie__node *n, genie_cpu cpu) {
    const int op = n->op;
    return cpu >= GENIE_CPU_GENERIC && cpu < GENIE_CPU_COUNT && n->buf && n->nin == 1 &&
           (op == GENIE__OP_TO || op == GENIE__OP_CLONE || op == GENIE__OP_CONTIGUOUS || op == GENIE__OP_COPY) &&
           n->in[0].n->dtype != n->dtype && genie__v_dense(n->out) && genie__v_same(n->out, n->in[0].v) &&
           GENIE__IN(n, 0) != GENIE__OUT(n);
}
/* The loops run over chunks: a whole chunk's count is a constant where the helpers are
   inlined, so each path's compiler vectorizes them (its target attribute); f16 and bf16
   convert through f32 rows by the path's array conversion (genie__hconv). */
#if defined(__GNUC__) || defined(__clang__)
#define GENIE__CV_INL __inline__ __attribute__((always_inline))
#else
#define GENIE__CV_INL
#endif
#define GENIE__CV_LD(T, E) { const T *s = (const T *)(const void *)x + c0; for (j = 0; j < m; j++) u[j] = E; }
#define GENIE__CV_ST(T, E) { T *d = (T *)(void *)y + c0; for (j = 0; j < m; j++) d[j] = E; }
static GENIE__CV_INL void genie__cvt_ld_f(double *u, float *f, const char *x, int dt, int64_t c0, int64_t m, genie_cpu cpu) {
    int64_t j;
    switch (dt) {
    case GENIE_F32: GENIE__CV_LD(float, s[j]) break;
    case GENIE_F64: GENIE__CV_LD(double, s[j]) break;
    case GENIE_F16: case GENIE_BF16:
        genie__hconv(cpu, dt, 0, f, (const uint16_t *)(const void *)x + c0, m);
        for (j = 0; j < m; j++) u[j] = f[j];
        break;
    case GENIE_I64: GENIE__CV_LD(int64_t, (double)s[j]) break;
    case GENIE_I32: GENIE__CV_LD(int32_t, s[j]) break;
    case GENIE_I16: GENIE__CV_LD(int16_t, s[j]) break;
    case GENIE_I8: GENIE__CV_LD(int8_t, s[j]) break;
    case GENIE_U8: GENIE__CV_LD(uint8_t, s[j]) break;
    default: GENIE__CV_LD(uint8_t, s[j] != 0) break;
    }
}
static GENIE__CV_INL void genie__cvt_st_f(char *y, float *f, int dt, const double *u, int64_t c0, int64_t m, genie_cpu cpu) {
    int64_t j;
    switch (dt) {
    case GENIE_F32: GENIE__CV_ST(float, (float)u[j]) break;
    case GENIE_F64: GENIE__CV_ST(double, u[j]) break;
    case GENIE_F16: case GENIE_BF16:
        for (j = 0; j < m; j++) f[j] = (float)u[j];
        genie__hconv(cpu, dt, 1, (uint16_t *)(void *)y + c0, f, m);
        break;
    case GENIE_I64: GENIE__CV_ST(int64_t, genie__f2i64(u[j])) break;
    case GENIE_I32: GENIE__CV_ST(int32_t, (int32_t)genie__f2i32(u[j])) break;
    case GENIE_I16: GENIE__CV_ST(int16_t, (int16_t)(uint16_t)(uint64_t)genie__f2i32(u[j])) break;
    case GENIE_I8: GENIE__CV_ST(int8_t, (int8_t)(uint8_t)(uint64_t)genie__f2i32(u[j])) break;
    case GENIE_U8: GENIE__CV_ST(uint8_t, (uint8_t)(uint64_t)genie__f2i32(u[j])) break;
    default: GENIE__CV_ST(uint8_t, u[j] != 0) break;
    }
}
static GENIE__CV_INL void genie__cvt_ld_i(int64_t *u, const char *x, int dt, int64_t c0, int64_t m) {
    int64_t j;
    switch (dt) {
    case GENIE_I64: GENIE__CV_LD(int64_t, s[j]) break;
    case GENIE_I32: GENIE__CV_LD(int32_t, s[j]) break;
    case GENIE_I16: GENIE__CV_LD(int16_t, s[j]) break;
    case GENIE_I8: GENIE__CV_LD(int8_t, s[j]) break;
    case GENIE_U8: GENIE__CV_LD(uint8_t, s[j]) break;
    default: GENIE__CV_LD(uint8_t, s[j] != 0) break;
    }
}
static GENIE__CV_INL void genie__cvt_st_i(char *y, int dt, const int64_t *u, int64_t c0, int64_t m) {
    int64_t j;
    switch (dt) {
    case GENIE_I64: GENIE__CV_ST(int64_t, u[j]) break;
    case GENIE_I32: GENIE__CV_ST(int32_t, (int32_t)(uint32_t)(uint64_t)u[j]) break;
    case GENIE_I16: GENIE__CV_ST(int16_t, (int16_t)(uint16_t)(uint64_t)u[j]) break;
    case GENIE_I8: GENIE__CV_ST(int8_t, (int8_t)(uint8_t)(uint64_t)u[j]) break;
    case GENIE_U8: GENIE__CV_ST(uint8_t, (uint8_t)(uint64_t)u[j]) break;
    default: GENIE__CV_ST(uint8_t, u[j] != 0) break;
    }
}
#undef GENIE__CV_LD
#undef GENIE__CV_ST
/* chunk [c0, c0 + m) of the node's conversion (m a constant for whole chunks) */
#define GENIE__CVT_CHUNK(m)                                                                        \
    do {                                                                                           \
        if (fl) {                                                                                  \
            genie__cvt_ld_f(u, f, x, sdt, c0, m, cpu);                                             \
            genie__cvt_st_f(y, f, odt, u, c0, m, cpu);                                             \
        } else {                                                                                   \
            genie__cvt_ld_i(v, x, sdt, c0, m);                                                     \
            genie__cvt_st_i(y, odt, v, c0, m);                                                     \
        }                                                                                          \
    } while (0)
#define GENIE__CVT_KERNEL(sfx, ATTR, CPU)                                                         \
static ATTR genie_result genie__k_cvt_##sfx(genie__kparams *p, int ith, int nth) {                 \
    const genie__node *n = p->n;                                                                   \
    const int sdt = n->in[0].n->dtype, odt = n->dtype, fl = GENIE__IS_FLOAT(sdt) || GENIE__IS_FLOAT(odt); \
    const char *x = (const char *)GENIE__IN(n, 0) + n->in[0].v->off * (int64_t)genie__dt_size[sdt]; \
    char *y = (char *)GENIE__OUT(n) + n->out->off * (int64_t)genie__dt_size[odt];                  \
    const genie_cpu cpu = CPU;                                                                     \
    double u[GENIE__TY_CHUNK];                                                                     \
    float f[GENIE__TY_CHUNK];                                                                      \
    int64_t v[GENIE__TY_CHUNK], lo, hi, c0;                                                        \
    genie__share(genie__numel(n->out->ndim, n->out->shape), ith, nth, &lo, &hi);                   \
    for (c0 = lo; c0 + GENIE__TY_CHUNK <= hi; c0 += GENIE__TY_CHUNK) GENIE__CVT_CHUNK(GENIE__TY_CHUNK); \
    if (c0 < hi) GENIE__CVT_CHUNK(hi - c0);                                                        \
    return GENIE_OK;                                                                               \
}
GENIE__CVT_KERNEL(generic, , GENIE_CPU_GENERIC)
#ifdef GENIE__X86
GENIE__CVT_KERNEL(avx2, GENIE__AVX2, GENIE_CPU_AVX2)
GENIE__CVT_KERNEL(avx512, GENIE__AVX512, GENIE_CPU_AVX512)
#endif
#undef GENIE__CVT_KERNEL
#undef GENIE__CVT_CHUNK
#undef GENIE__TY_OPS
#undef GENIE__TY_WIDEN

/* ---- strided copies: one dtype, any two views of one shape ----
   For a copy that runs alone (copy_ into a slice of a cache, a flip,
   contiguous() of a transpose) or a fill (zeros, full: one value, strides 0).
   The dims are merged where both views run on; then runs along the last merged
   dim are memmove'd where both step by one element (memset for zero bytes), a
   reversed run of 4-byte elements (a flip) on AVX2 goes 8 at a time reversed in a
   register ([2048, 2048] f32 along dim 1: 3.4 -> 1.3 ms), else copied in an element
   loop of the dtype's size. Bits are copied as
   stored: the reference's copy through double gives the same bits, but for a
   signaling NaN, which it makes quiet; PyTorch's copy (a memcpy) keeps it, as
   this does. Threads take ranges of runs (of elements when there is one run).
   The reference is genie__k_eltwise's K_COPY and K_FULL. */
static int genie__sc_merge(const genie__vspec *o, const genie__vspec *v, int64_t *sh, int64_t *so, int64_t *si) {
    int d, k = 0;
    for (d = 0; d < o->ndim; d++) {
        const int64_t vs = v ? v->strides[d] : 0; /* no v: a fill */
        if (o->shape[d] == 1) continue;
        if (k > 0 && so[k - 1] == o->strides[d] * o->shape[d] && si[k - 1] == vs * o->shape[d]) {
            sh[k - 1] *= o->shape[d]; /* runs on in both: one dim */
            so[k - 1] = o->strides[d];
            si[k - 1] = vs;
            continue;
        }
        sh[k] = o->shape[d];
        so[k] = o->strides[d];
        si[k++] = vs;
    }
    if (k == 0) sh[k] = so[k] = si[k] = 1, k = 1;
    return k;
}
#define GENIE__SC_LOOP(T)                                                              \
    for (k = 0; k < len; k++) memcpy(o + k * so * (int64_t)sizeof(T), i + k * si * (int64_t)sizeof(T), sizeof(T))
#ifdef GENIE__X86
/* o[k] = i[-k] for k < len, 4-byte elements (a flip's run): 8 at a time, reversed in a register */
static GENIE__AVX2 void genie__sc_rev4_avx2(char *o, const char *i, int64_t len) {
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    int64_t k = 0;
    for (; k + 8 <= len; k += 8)
        _mm256_storeu_si256((__m256i *)(void *)(o + 4 * k),
                            _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(i - 4 * (k + 7))), rev));
    for (; k < len; k++) memcpy(o + 4 * k, i - 4 * k, 4);
}
#endif
static void genie__sc_run(char *o, int64_t so, const char *i, int64_t si, int64_t len, int esz, int simd) {
    int64_t k;
    static const char zero[8] = {0};
#ifdef GENIE__X86
    if (simd && so == 1 && si == -1 && esz == 4) {
        genie__sc_rev4_avx2(o, i, len);
        return;
    }
#else
    (void)simd;
#endif
    if (so == 1 && si == 1) memmove(o, i, (size_t)(len * esz));
    else if (so == 1 && si == 0 && memcmp(i, zero, (size_t)esz) == 0) memset(o, 0, (size_t)(len * esz));
    else if (esz == 4) GENIE__SC_LOOP(uint32_t);
    else if (esz == 2) GENIE__SC_LOOP(uint16_t);
    else if (esz == 8) GENIE__SC_LOOP(uint64_t);
    else GENIE__SC_LOOP(uint8_t);
}
#undef GENIE__SC_LOOP
/* The transposing path: one view steps by one along b = nd-1 and the other along
   dim a, so runs along either would touch a line per element; the (a, b) plane
   goes in 16x16 tiles instead (a tile's lines stay in L1), the other dims outside.
   f32 on AVX2 and up goes through the GEMM's 8x8 register transposes (pack_t:
   dst[k w + r] = src[r ld + k]) over strips of 256 rows r (AVX-512's 16-row pack, faster
   in the GEMM, measured 26 ms against 19 for a [4096, 4096] transpose here). Threads take units
   (outer index, row of tiles or strip). */
#define GENIE__SC_T 16
#define GENIE__SC_STRIP 256
#ifdef GENIE__X86
static GENIE__AVX2 void genie__pack_t_s_avx2(const void *srcp, int64_t ld, int64_t rows, int64_t kc, int w, void *dstp);
#endif
#define GENIE__SC_TILE(T)                                                                         \
    for (x = a0; x < a1; x++)                                                                     \
        for (y = b0; y < b1; y++)                                                                 \
            memcpy(ot + (x * so[a] + y * so[b]) * (int64_t)sizeof(T), it + (x * si[a] + y * si[b]) * (int64_t)sizeof(T), sizeof(T))
static void genie__sc_tiles(char *o, const char *i, int esz, int nd, int a, const int64_t *sh, const int64_t *so,
                            const int64_t *si, int simd, int ith, int nth) {
    int64_t osh[GENIE__MAXD], oso[GENIE__MAXD], osi[GENIE__MAXD], off[2] = {0, 0}, lo, hi, u, nb;
    const int64_t *st[2];
    const int b = nd - 1, rd = so[b] == 1 ? b : a, kd = rd == b ? a : b; /* pack_t's r and k dims */
    int d, k = 0;
    genie__mi m;
    simd = simd && esz == 4 && so[kd] > 0 && so[kd] <= INT_MAX; /* w is an int */
    nb = simd ? (sh[rd] + GENIE__SC_STRIP - 1) / GENIE__SC_STRIP : (sh[a] + GENIE__SC_T - 1) / GENIE__SC_T;
    for (d = 0; d < b; d++)
        if (d != a) osh[k] = sh[d], oso[k] = so[d], osi[k++] = si[d];
    genie__share(genie__numel(k, osh) * nb, ith, nth, &lo, &hi);
    st[0] = oso;
    st[1] = osi;
    genie__mi_init(&m, k, osh, 2, st, off, lo / nb);
    for (u = lo; u < hi; u++) {
        char *ot = o + m.off[0] * esz;
        const char *it = i + m.off[1] * esz;
        int64_t a0, a1, b0, b1, x, y;
        if (u > lo && u % nb == 0) {
            genie__mi_next(&m);
            ot = o + m.off[0] * esz;
            it = i + m.off[1] * esz;
        }
#ifdef GENIE__X86
        if (simd) {
            const int64_t r0 = u % nb * GENIE__SC_STRIP, nr = GENIE__SC_STRIP < sh[rd] - r0 ? GENIE__SC_STRIP : sh[rd] - r0;
            genie__pack_t_s_avx2(it + r0 * si[rd] * esz, si[rd], nr, sh[kd], (int)so[kd], ot + r0 * esz);
            continue;
        }
#endif
        a0 = u % nb * GENIE__SC_T;
        a1 = a0 + GENIE__SC_T < sh[a] ? a0 + GENIE__SC_T : sh[a];
        for (b0 = 0; b0 < sh[b]; b0 += GENIE__SC_T) {
            b1 = b0 + GENIE__SC_T < sh[b] ? b0 + GENIE__SC_T : sh[b];
            if (esz == 4) GENIE__SC_TILE(uint32_t);
            else if (esz == 2) GENIE__SC_TILE(uint16_t);
            else if (esz == 8) GENIE__SC_TILE(uint64_t);
            else GENIE__SC_TILE(uint8_t);
        }
    }
}
#undef GENIE__SC_TILE
/* The dim a < nd-1 to tile with the last (see genie__sc_tiles), or -1: runs are fine. */
static int genie__sc_tile_dim(int nd, const int64_t *so, const int64_t *si) {
    int d;
    if ((so[nd - 1] == 1) == (si[nd - 1] == 1)) return -1; /* both step by one, or neither does */
    for (d = nd - 2; d >= 0; d--)
        if ((so[nd - 1] == 1 ? si[d] : so[d]) == 1) return d;
    return -1;
}
/* View iv of the buffer at ib copied to view ov of the buffer at ob (the same
   shape, esz-byte elements; iv NULL: the value at ib filled), as strided runs:
   thread ith of nth's share. */
static void genie__sc_copy(char *ob, const genie__vspec *ov, const char *ib, const genie__vspec *iv, int esz, int simd,
                           int ith, int nth) {
    int64_t sh[GENIE__MAXD], so[GENIE__MAXD], si[GENIE__MAXD], off[2] = {0, 0}, runs, lo, hi, r;
    const int64_t *st[2];
    int nd = genie__sc_merge(ov, iv, sh, so, si), a;
    char *o = ob + ov->off * (int64_t)esz;
    const char *i = iv ? ib + iv->off * (int64_t)esz : ib;
    genie__mi m;
    if (nd == 1) { /* one run: threads take pieces of it */
        genie__share(sh[0], ith, nth, &lo, &hi);
        genie__sc_run(o + lo * so[0] * esz, so[0], i + lo * si[0] * esz, si[0], hi - lo, esz, simd);
        return;
    }
    if (iv && (a = genie__sc_tile_dim(nd, so, si)) >= 0) {
        genie__sc_tiles(o, i, esz, nd, a, sh, so, si, simd, ith, nth);
        return;
    }
    runs = genie__numel(nd - 1, sh);
    genie__share(runs, ith, nth, &lo, &hi);
    st[0] = so;
    st[1] = si;
    genie__mi_init(&m, nd - 1, sh, 2, st, off, lo);
    for (r = lo; r < hi; r++, genie__mi_next(&m))
        genie__sc_run(o + m.off[0] * esz, so[nd - 1], i + m.off[1] * esz, si[nd - 1], sh[nd - 1], esz, simd);
}
static genie_result genie__k_scopy_run(genie__kparams *p, int ith, int nth, int simd) {
    const genie__node *n = p->n;
    const int esz = (int)genie__dt_size[n->dtype], fill = genie__op_kinds[n->op] == GENIE__K_FULL;
    unsigned char val[8] = {0}; /* a fill's value, stored as the reference stores it */
    if (fill && (GENIE__IS_FLOAT(n->dtype) || n->dtype == GENIE_BOOL)) genie__stf(val, 0, n->dtype, n->a.f[0]);
    else if (fill) genie__sti(val, 0, n->dtype, n->a.i[0]);
    genie__sc_copy((char *)GENIE__OUT(n), n->out, fill ? (const char *)val : (const char *)GENIE__IN(n, 0), fill ? NULL : n->in[0].v,
                   esz, simd, ith, nth);
    return GENIE_OK;
}
/* cat and stack: each input of the output's dtype copied as strided runs into its
   slice of the output (threads share every input's runs); another dtype converts
   element by element, on thread 0. */
static genie_result genie__k_cat_run(genie__kparams *p, int ith, int nth, int simd) {
    const genie__node *n = p->n;
    const int d = (int)n->a.i[0], esz = (int)genie__dt_size[n->dtype];
    int64_t pos = 0, j;
    int i;
    for (i = 0; i < n->nin; i++) {
        const genie__vspec *iv = n->in[i].v;
        genie__vspec ov;
        if (iv->ndim == 0) continue; /* a skipped legacy empty input */
        ov = *n->out;
        ov.shape[d] = iv->shape[d];
        ov.off = n->out->off + pos * n->out->strides[d];
        if (n->in[i].n->dtype == n->dtype) {
            if (genie__numel(iv->ndim, iv->shape) > 0) genie__sc_copy((char *)GENIE__OUT(n), &ov, (const char *)GENIE__IN(n, i), iv, esz, simd, ith, nth);
        } else if (ith == 0) {
            int64_t total = genie__numel(iv->ndim, iv->shape), offs[2];
            const int64_t *sts[2];
            genie__mi m;
            sts[0] = ov.strides, offs[0] = ov.off;
            sts[1] = iv->strides, offs[1] = iv->off;
            genie__mi_init(&m, iv->ndim, iv->shape, 2, sts, offs, 0);
            for (j = 0; j < total; j++, genie__mi_next(&m))
                genie__copy_elem(GENIE__OUT(n), m.off[0], n->dtype, GENIE__IN(n, i), m.off[1], n->in[i].n->dtype);
        }
        pos += iv->shape[d];
    }
    return GENIE_OK;
}
static genie_result genie__k_cat_fast(genie__kparams *p, int ith, int nth) { return genie__k_cat_run(p, ith, nth, 0); }
static genie_result genie__k_cat_avx2(genie__kparams *p, int ith, int nth) { return genie__k_cat_run(p, ith, nth, 1); }
static genie_result genie__k_scopy(genie__kparams *p, int ith, int nth) { return genie__k_scopy_run(p, ith, nth, 0); }
static genie_result genie__k_scopy_avx2(genie__kparams *p, int ith, int nth) { return genie__k_scopy_run(p, ith, nth, 1); }
/* A lone fill, or same-dtype copy, on a SIMD path runs as strided runs; not a copy
   that reads the buffer it writes through another view (the reference's order decides). */
static int genie__sc_ok(const genie__node *n, genie_cpu cpu) {
    if (cpu < GENIE_CPU_GENERIC || !n->buf) return 0;
    if (genie__op_kinds[n->op] == GENIE__K_FULL) return n->nin == 0;
    return genie__op_kinds[n->op] == GENIE__K_COPY && n->nin == 1 && n->in[0].n->dtype == n->dtype &&
           (GENIE__IN(n, 0) != GENIE__OUT(n) || genie__vspec_equal(n->in[0].v, n->out));
}

/* The array kernel for an elementwise node on ctx's path, or NULL (the reference). */
static genie__kernel genie__v_fast_kernel(genie_ctx *ctx, genie__kparams *p, int *nth) {
    genie__vjob j;
    *nth = 1;
    if (!genie__v_setup(p->n, ctx->cpu, &j)) {
        const int typed = genie__typed_ok(p->n, ctx->cpu), cvt = !typed && genie__cvt_ok(p->n, ctx->cpu);
        if (!typed && !cvt && !genie__sc_ok(p->n, ctx->cpu)) return NULL;
        if (genie__numel(p->n->out->ndim, p->n->out->shape) >= GENIE__V_MIN_SHARED) {
            p->pool = genie__tpool_get(ctx, genie__ctx_threads(ctx));
            *nth = genie__tpool_size(p->pool);
        }
        if (cvt) return GENIE__BY_PATH(ctx->cpu, genie__k_cvt);
        return typed ? genie__k_typed : ctx->cpu >= GENIE_CPU_AVX2 ? genie__k_scopy_avx2 : genie__k_scopy;
    }
    if (j.n >= GENIE__V_MIN_SHARED) {
        p->pool = genie__tpool_get(ctx, genie__ctx_threads(ctx));
        *nth = genie__tpool_size(p->pool);
    }
    return ctx->cpu == GENIE_CPU_AVX512 ? genie__k_v_avx512 : ctx->cpu == GENIE_CPU_AVX2 ? genie__k_v_avx2
                                                                                          : genie__k_v_generic;
}

/* >>gemm ------------------------------------------------------------------ */
/* Run-time CPU dispatch: which micro-kernel paths this CPU (and its OS) runs. */
static const char *const genie__cpu_names[] = {
#define GENIE__X(name, short_name) short_name,
    GENIE_CPU_LIST(GENIE__X)
#undef GENIE__X
};
GENIE__STATIC_ASSERT(cpu_names, sizeof(genie__cpu_names) / sizeof(genie__cpu_names[0]) == GENIE_CPU_COUNT);

#ifdef GENIE__X86
/* F16C (CPUID.1:ECX bit 29; every AVX2 CPU made has it): clang 14's __builtin_cpu_supports
   does not know the name, and <cpuid.h>'s __cpuid macro breaks mingw's <intrin.h> included
   after genie, so the instruction itself (leaf 1 exists on every CPU with AVX2) */
static int genie__cpu_f16c(void) {
    unsigned a = 1, b, c = 0, d;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    (void)b, (void)d;
    return (int)((c >> 29) & 1u);
}
#endif
static int genie__cpu_runs(genie_cpu path) {
    switch (path) {
    case GENIE_CPU_REFERENCE: case GENIE_CPU_GENERIC: return 1;
#ifdef GENIE__X86
    case GENIE_CPU_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && genie__cpu_f16c();
    case GENIE_CPU_AVX512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                  __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
    default: return 0;
    }
}
/* The AVX-512 path's bf16 products use vdpbf16ps where the CPU has it (x86-64: an i386
   build may move the packed pairs through x87 registers, which quiets NaN-like pairs). */
static int genie__bf16dp_runs(void) {
#if defined(GENIE__X86) && defined(__x86_64__)
    return __builtin_cpu_supports("avx512bf16") != 0;
#else
    return 0;
#endif
}
/* The path for a request: AUTO reads GENIE_CPU, then takes the best; a path
   the CPU cannot run falls back to the best one below it. */
static genie_cpu genie__cpu_pick(genie_cpu want) {
    int p;
    if (want <= GENIE_CPU_AUTO || want >= GENIE_CPU_COUNT) {
        const char *env = getenv("GENIE_CPU");
        want = (genie_cpu)(GENIE_CPU_COUNT - 1);
        for (p = 1; env && p < GENIE_CPU_COUNT; p++)
            if (strcmp(env, genie__cpu_names[p]) == 0) want = (genie_cpu)p;
    }
    for (p = want; p > GENIE_CPU_GENERIC; p--)
        if (genie__cpu_runs((genie_cpu)p)) break;
    return (genie_cpu)p;
}

#define GENIE__MIN(a, b) ((a) < (b) ? (a) : (b))
#define GENIE__MAX(a, b) ((a) > (b) ? (a) : (b))
/* Element i of a packed operand as float/double: bf16 and f16 without the general switch. */
#define GENIE__LD_CVT(p, i, dt)                                                       \
    ((dt) == GENIE_BF16 ? (double)genie__bf2f(((const uint16_t *)(p))[i])             \
     : (dt) == GENIE_F16 ? (double)genie__h2f(((const uint16_t *)(p))[i]) : genie__ldf(p, i, dt))
static int64_t genie__round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* ---- micro-kernels ----
   A micro-kernel computes one MR x NR tile of C (row stride ldc, unit column
   stride) from packed panels: a [kc][MR] (MR rows of A, k-major) and b [kc][NR]
   (NR columns of B, k-major). acc = 0 writes the tile without reading C (beta = 0);
   acc = 1 adds to it. The SIMD kernels hold the tile in MR x 2 vector registers:
   each k broadcasts MR values of a and multiplies two vectors of b.
   pf (or NULL): source lines of the next panel of B to bring into L2 meanwhile,
   one every 4 steps of k: lines [0, lpr) of rows [r0, r1) of p (rows ld bytes
   apart). A product of few rows packs each panel from memory just before its
   use; this streams the next one in behind the arithmetic (GPT-2 prefill: the
   pack from 19% to 10% of the time, 230 -> 213 ms on one core). */
typedef struct genie__ukpf {
    const char *p;
    int64_t ld, r0, r1, lpr;
} genie__ukpf;
typedef void (*genie__ukr)(int64_t kc, const void *a, const void *b, void *c, int64_t ldc, int acc, const genie__ukpf *pf);

#define GENIE__R3(X) X(0) X(1) X(2)
#define GENIE__R4(X) GENIE__R3(X) X(3)
#define GENIE__R6(X) GENIE__R4(X) X(4) X(5)
#define GENIE__R8(X) GENIE__R6(X) X(6) X(7)
#define GENIE__R12(X) GENIE__R6(X) X(6) X(7) X(8) X(9) X(10) X(11)
#define GENIE__CAT3_(a, b, c) a##b##c
#define GENIE__CAT3(a, b, c) GENIE__CAT3_(a, b, c)
#define GENIE__VOP(op) GENIE__CAT3(GENIE__VP, op, GENIE__VS) /* _mm512_ op _ps */
#define GENIE__UK_DECL(i) GENIE__V c##i##0 = GENIE__VOP(setzero)(), c##i##1 = GENIE__VOP(setzero)();
#define GENIE__UK_PREFETCH(i) /* the C rows this tile adds to, while it computes */     \
    _mm_prefetch((const char *)(c + (i) * ldc), _MM_HINT_T0);                             \
    _mm_prefetch((const char *)(c + (i) * ldc + 2 * GENIE__VL - 1), _MM_HINT_T0);
#define GENIE__UK_STEP(i)                                          \
    { GENIE__V ai = GENIE__VOP(set1)(a[i]);                        \
      c##i##0 = GENIE__VOP(fmadd)(ai, b0, c##i##0);                \
      c##i##1 = GENIE__VOP(fmadd)(ai, b1, c##i##1); }
#define GENIE__UK_STORE(i)                                                               \
    { GENIE__T *ci = c + (i) * ldc;                                                      \
      if (acc) { c##i##0 = GENIE__VOP(add)(c##i##0, GENIE__VOP(loadu)(ci));              \
                 c##i##1 = GENIE__VOP(add)(c##i##1, GENIE__VOP(loadu)(ci + GENIE__VL)); } \
      GENIE__VOP(storeu)(ci, c##i##0); GENIE__VOP(storeu)(ci + GENIE__VL, c##i##1); }
#define GENIE__UK_BODY(ROWS, MR)                                                         \
    { const GENIE__T *a = (const GENIE__T *)ap, *b = (const GENIE__T *)bp;               \
      GENIE__T *c = (GENIE__T *)cp; int64_t k, pr = pf ? pf->r0 : 0, pe = pf ? pf->r1 : 0, pl = 0; \
      ROWS(GENIE__UK_DECL)                                                               \
      if (acc) { ROWS(GENIE__UK_PREFETCH) }                                              \
      for (k = 0; k < kc; k++, a += MR, b += 2 * GENIE__VL) {                            \
          GENIE__V b0 = GENIE__VOP(loadu)(b), b1 = GENIE__VOP(loadu)(b + GENIE__VL);     \
          if ((k & 3) == 0 && pr < pe) {                                                 \
              _mm_prefetch(pf->p + pr * pf->ld + pl * 64, _MM_HINT_T1);                  \
              if (++pl == pf->lpr) pl = 0, pr++; }                                       \
          ROWS(GENIE__UK_STEP) }                                                         \
      ROWS(GENIE__UK_STORE) }

/* Portable kernels: plain C over a local tile (the compiler may vectorize). */
#define GENIE__UK_GENERIC(name, T, MR, NR)                                                 \
    static void name(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc, \
                     const genie__ukpf *pf) {                                              \
        const T *a = (const T *)ap, *b = (const T *)bp; T *c = (T *)cp, t[MR * NR];        \
        int64_t k; int i, j;                                                               \
        (void)pf;                                                                          \
        for (i = 0; i < MR * NR; i++) t[i] = 0;                                            \
        for (k = 0; k < kc; k++, a += MR, b += NR)                                         \
            for (i = 0; i < MR; i++)                                                       \
                for (j = 0; j < NR; j++) t[i * NR + j] += a[i] * b[j];                     \
        for (i = 0; i < MR; i++)                                                           \
            for (j = 0; j < NR; j++) c[i * ldc + j] = (acc ? c[i * ldc + j] : 0) + t[i * NR + j]; \
    }
GENIE__UK_GENERIC(genie__uk_s_generic, float, 4, 16)
GENIE__UK_GENERIC(genie__uk_d_generic, double, 4, 8)

#ifdef GENIE__X86
#define GENIE__T float
#define GENIE__V __m256
#define GENIE__VP _mm256_
#define GENIE__VS _ps
#define GENIE__VL 8
static GENIE__AVX2 void genie__uk_s_avx2(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R6, 6)
static GENIE__AVX2 void genie__uk_s_avx2_h(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R3, 3)
static GENIE__AVX2 void genie__uk_s_avx2_t(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R4, 4)
#undef GENIE__T
#undef GENIE__V
#undef GENIE__VP
#undef GENIE__VS
#undef GENIE__VL
#define GENIE__T float
#define GENIE__V __m512
#define GENIE__VP _mm512_
#define GENIE__VS _ps
#define GENIE__VL 16
static GENIE__AVX512 void genie__uk_s_avx512(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R12, 12)
static GENIE__AVX512 void genie__uk_s_avx512_h(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R6, 6)
static GENIE__AVX512 void genie__uk_s_avx512_t(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R8, 8)
#undef GENIE__T
#undef GENIE__V
#undef GENIE__VP
#undef GENIE__VS
#undef GENIE__VL
#define GENIE__T double
#define GENIE__V __m256d
#define GENIE__VP _mm256_
#define GENIE__VS _pd
#define GENIE__VL 4
static GENIE__AVX2 void genie__uk_d_avx2(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R6, 6)
static GENIE__AVX2 void genie__uk_d_avx2_h(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R3, 3)
static GENIE__AVX2 void genie__uk_d_avx2_t(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R4, 4)
#undef GENIE__T
#undef GENIE__V
#undef GENIE__VP
#undef GENIE__VS
#undef GENIE__VL
#define GENIE__T double
#define GENIE__V __m512d
#define GENIE__VP _mm512_
#define GENIE__VS _pd
#define GENIE__VL 8
static GENIE__AVX512 void genie__uk_d_avx512(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R12, 12)
static GENIE__AVX512 void genie__uk_d_avx512_h(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R6, 6)
static GENIE__AVX512 void genie__uk_d_avx512_t(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc, int acc,
                                     const genie__ukpf *pf)
    GENIE__UK_BODY(GENIE__R8, 8)
#undef GENIE__T
#undef GENIE__V
#undef GENIE__VP
#undef GENIE__VS
#undef GENIE__VL
/* bf16 x bf16 on AVX512_BF16 (vdpbf16ps): the panels hold pairs of bf16 along k, one
   32-bit element each (k even in the low half; an odd K's last pair has a zero high
   half): a [kp][MR], b [kp][NR], kp = ceil(kc / 2), C f32. Each step adds both products
   of a pair: twice the f32 kernel's multiply-adds per instruction. The products are
   exact in f32, each addition rounded (the order within a pair is the hardware's);
   subnormal inputs and sums are read and written as zero (the instruction's DAZ/FTZ,
   as oneDNN's bf16 products in PyTorch). */
#define GENIE__AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,avx512bf16")))
#define GENIE__UKB_STEP(i)                                                    \
    { const __m512bh ai = (__m512bh)_mm512_set1_epi32((int)a[i]);            \
      c##i##0 = _mm512_dpbf16_ps(c##i##0, ai, b0);                            \
      c##i##1 = _mm512_dpbf16_ps(c##i##1, ai, b1); }
#define GENIE__UKB_BODY(ROWS, MR)                                                                  \
    { const uint32_t *a = (const uint32_t *)ap, *b = (const uint32_t *)bp;                         \
      float *c = (float *)cp; int64_t k, pr = pf ? pf->r0 : 0, pe = pf ? pf->r1 : 0, pl = 0;      \
      ROWS(GENIE__UK_DECL)                                                                         \
      if (acc) { ROWS(GENIE__UK_PREFETCH) }                                                        \
      for (k = 0; k < kc; k++, a += MR, b += 32) {                                                 \
          const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + 16); \
          if ((k & 3) == 0 && pr < pe) {                                                           \
              _mm_prefetch(pf->p + pr * pf->ld + pl * 64, _MM_HINT_T1);                            \
              if (++pl == pf->lpr) pl = 0, pr++; }                                                 \
          ROWS(GENIE__UKB_STEP) }                                                                  \
      ROWS(GENIE__UK_STORE) }
#define GENIE__T float
#define GENIE__V __m512
#define GENIE__VP _mm512_
#define GENIE__VS _ps
#define GENIE__VL 16
static GENIE__AVX512BF16 void genie__uk_bh_avx512(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc,
                                                  int acc, const genie__ukpf *pf)
    GENIE__UKB_BODY(GENIE__R12, 12)
static GENIE__AVX512BF16 void genie__uk_bh_avx512_h(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc,
                                                    int acc, const genie__ukpf *pf)
    GENIE__UKB_BODY(GENIE__R6, 6)
static GENIE__AVX512BF16 void genie__uk_bh_avx512_t(int64_t kc, const void *ap, const void *bp, void *cp, int64_t ldc,
                                                    int acc, const genie__ukpf *pf)
    GENIE__UKB_BODY(GENIE__R8, 8)
#undef GENIE__T
#undef GENIE__V
#undef GENIE__VP
#undef GENIE__VS
#undef GENIE__VL
/* dst[k*w + r] = src[r*ld + k] for r < rows, k < kc: the transposing copy that
   packs row-major A (and a linear weight as B) into k-major panels; 8x8 and 4x4
   register transposes, the rest scalar. The 8x8 blocks go k-major, so the 8 rows
   of dst they share are finished while in L1. Row-major blocks wrote 32 bytes of
   each line of a 64 KiB panel per pass, in four passes: 25-30% slower here. */
static GENIE__AVX2 void genie__pack_t_s_avx2(const void *srcp, int64_t ld, int64_t rows, int64_t kc, int w, void *dstp) {
    const float *src = (const float *)srcp;
    float *dst = (float *)dstp;
    const int64_t r8 = rows / 8 * 8, k8 = kc / 8 * 8;
    int64_t r, k;
    for (k = 0; k < k8; k += 8)
        for (r = 0; r < r8; r += 8) {
            const float *s = src + r * ld + k;
            float *d = dst + k * w + r;
            __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + ld), r2 = _mm256_loadu_ps(s + 2 * ld),
                   r3 = _mm256_loadu_ps(s + 3 * ld), r4 = _mm256_loadu_ps(s + 4 * ld), r5 = _mm256_loadu_ps(s + 5 * ld),
                   r6 = _mm256_loadu_ps(s + 6 * ld), r7 = _mm256_loadu_ps(s + 7 * ld);
            __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
                   t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
                   t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE), u2 = _mm256_shuffle_ps(t1, t3, 0x44),
                   u3 = _mm256_shuffle_ps(t1, t3, 0xEE), u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
                   u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
            _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(d + w, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(d + 2 * w, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(d + 3 * w, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(d + 4 * w, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(d + 5 * w, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(d + 6 * w, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(d + 7 * w, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    for (r = 0; r < r8; r++) /* the k tail of those rows */
        for (k = k8; k < kc; k++) dst[k * w + r] = src[r * ld + k];
    r = r8;
    for (; r + 4 <= rows; r += 4) {
        const float *s = src + r * ld;
        for (k = 0; k + 4 <= kc; k += 4) {
            __m128 r0 = _mm_loadu_ps(s + k), r1 = _mm_loadu_ps(s + ld + k), r2 = _mm_loadu_ps(s + 2 * ld + k),
                   r3 = _mm_loadu_ps(s + 3 * ld + k);
            __m128 t0 = _mm_unpacklo_ps(r0, r1), t1 = _mm_unpackhi_ps(r0, r1), t2 = _mm_unpacklo_ps(r2, r3), t3 = _mm_unpackhi_ps(r2, r3);
            float *d = dst + k * w + r;
            _mm_storeu_ps(d, _mm_movelh_ps(t0, t2));
            _mm_storeu_ps(d + w, _mm_movehl_ps(t2, t0));
            _mm_storeu_ps(d + 2 * w, _mm_movelh_ps(t1, t3));
            _mm_storeu_ps(d + 3 * w, _mm_movehl_ps(t3, t1));
        }
        for (; k < kc; k++) {
            int i;
            for (i = 0; i < 4; i++) dst[k * w + r + i] = s[i * ld + k];
        }
    }
    for (; r < rows; r++)
        for (k = 0; k < kc; k++) dst[k * w + r] = src[r * ld + k];
}
/* The same pack for AVX-512: 16 rows x 8 k a block, two rows a register (rows r and r+4
   of each 8), so the last step's 128-bit lane shuffle leaves 16 rows of one k in order;
   1.6 us a 32 x 384 panel from L1 here against the 8 x 8 blocks' 2.5 us (a prefill packs
   every weight once). A block of 16 rows at a time, along k: 16 streams that each read on
   along a row, where k outside swept every row of the panel (up to 2048, each a new line
   and page) per 8 k. Weights come from memory: bench-llm's 1-thread prefill packed at
   3.7 GB/s (8% of it), now 7.3 (5%): 510 -> 533 tokens/s (2 threads 950-1010 -> 1015-1050).
   Rows past the last 16 and the k tail go as in the AVX2 pack (whose 8-row blocks gained
   nothing from the same order). */
static GENIE__AVX512 void genie__pack_t_s_avx512(const void *srcp, int64_t ld, int64_t rows, int64_t kc, int w, void *dstp) {
    const float *src = (const float *)srcp;
    float *dst = (float *)dstp;
    const int64_t r16 = rows / 16 * 16, k8 = kc / 8 * 8;
    int64_t r, k;
#define GENIE__LD2(a, b) \
    _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(s + (a) * ld)), _mm256_loadu_ps(s + (b) * ld), 1)
    for (r = 0; r < r16; r += 16)
        for (k = 0; k < k8; k += 8) {
            const float *s = src + r * ld + k;
            float *d = dst + k * w + r;
            __m512 z0 = GENIE__LD2(0, 4), z1 = GENIE__LD2(1, 5), z2 = GENIE__LD2(2, 6), z3 = GENIE__LD2(3, 7),
                   z4 = GENIE__LD2(8, 12), z5 = GENIE__LD2(9, 13), z6 = GENIE__LD2(10, 14), z7 = GENIE__LD2(11, 15);
            /* lanes of t: (k0, k1) or (k2, k3) of two rows, lane 1 the same at k + 4 */
            __m512 t0 = _mm512_unpacklo_ps(z0, z1), t1 = _mm512_unpackhi_ps(z0, z1), t2 = _mm512_unpacklo_ps(z2, z3),
                   t3 = _mm512_unpackhi_ps(z2, z3), t4 = _mm512_unpacklo_ps(z4, z5), t5 = _mm512_unpackhi_ps(z4, z5),
                   t6 = _mm512_unpacklo_ps(z6, z7), t7 = _mm512_unpackhi_ps(z6, z7);
            /* lanes of u: one k of four rows (u0 k0 and k4: rows 0-3, 0-3, 4-7, 4-7 by lane) */
            __m512 u0 = _mm512_shuffle_ps(t0, t2, 0x44), u1 = _mm512_shuffle_ps(t0, t2, 0xEE),
                   u2 = _mm512_shuffle_ps(t1, t3, 0x44), u3 = _mm512_shuffle_ps(t1, t3, 0xEE),
                   u4 = _mm512_shuffle_ps(t4, t6, 0x44), u5 = _mm512_shuffle_ps(t4, t6, 0xEE),
                   u6 = _mm512_shuffle_ps(t5, t7, 0x44), u7 = _mm512_shuffle_ps(t5, t7, 0xEE);
            _mm512_storeu_ps(d, _mm512_shuffle_f32x4(u0, u4, 0x88));
            _mm512_storeu_ps(d + w, _mm512_shuffle_f32x4(u1, u5, 0x88));
            _mm512_storeu_ps(d + 2 * w, _mm512_shuffle_f32x4(u2, u6, 0x88));
            _mm512_storeu_ps(d + 3 * w, _mm512_shuffle_f32x4(u3, u7, 0x88));
            _mm512_storeu_ps(d + 4 * w, _mm512_shuffle_f32x4(u0, u4, 0xDD));
            _mm512_storeu_ps(d + 5 * w, _mm512_shuffle_f32x4(u1, u5, 0xDD));
            _mm512_storeu_ps(d + 6 * w, _mm512_shuffle_f32x4(u2, u6, 0xDD));
            _mm512_storeu_ps(d + 7 * w, _mm512_shuffle_f32x4(u3, u7, 0xDD));
        }
#undef GENIE__LD2
    for (r = 0; r < r16; r++) /* the k tail of those rows */
        for (k = k8; k < kc; k++) dst[k * w + r] = src[r * ld + k];
    if (r16 < rows) genie__pack_t_s_avx2(src + r16 * ld, ld, rows - r16, kc, w, dst + r16);
}
/* One packed step of bf16 pairs from two rows of B along j (r1 NULL: zeros):
   d[j] = r0[j] | r1[j] << 16 for j < n, 0 for n <= j < nr (nr a multiple of 16). */
static GENIE__AVX512 void genie__pairs_avx512(const uint16_t *r0, const uint16_t *r1, int64_t n, int nr, uint32_t *d) {
    int j;
    for (j = 0; j < nr; j += 16) {
        const __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : n > j ? (__mmask16)((1u << (n - j)) - 1u) : (__mmask16)0;
        __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r0 + j));
        if (r1) v = _mm512_or_si512(v, _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r1 + j)), 16));
        _mm512_storeu_si512(d + j, v);
    }
}
#endif /* GENIE__X86 */

/* ---- skinny products: M <= 16, unpacked, at memory bandwidth ----
   dot:  C[i, j] = sum_k A[i, k] B[k, j] with k contiguous in both (a decode step's
         x @ W^T: each row of the weight is read once, as stored);
   axpy: C[i, :] = sum_k A[i, k] B[k, :] with B's and C's rows contiguous.
   Rows of C are done one at a time; the strip of B they share stays in L2. */
typedef void (*genie__dot_fn)(const void *a, const void *b, int64_t ldb, int64_t n, int64_t K, void *c, int64_t csc);
typedef void (*genie__axpy_fn)(const void *a, int64_t csa, const void *b, int64_t ldb, int64_t n, int64_t K, void *c);
/* doth: dot of an f32 row a with f16/bf16 (dt) rows of B, into f32 c[n] */
typedef void (*genie__doth_fn)(const float *a, const uint16_t *b, int64_t ldb, int64_t n, int64_t K, float *c, int dt);
/* doth4: doth for four f32 rows of A (lda apart) into four rows of c (ldc apart, contiguous) */
typedef void (*genie__doth4_fn)(const float *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t n, int64_t K, float *c,
                                int64_t ldc, int dt);
/* dot4: dot for four rows of A (lda apart) into four rows of C (ldc apart) */
typedef void (*genie__dot4_fn)(const void *a, int64_t lda, const void *b, int64_t ldb, int64_t n, int64_t K, void *c,
                               int64_t ldc, int64_t csc);
#define GENIE__SKINNY_GENERIC(T, sfx)                                                                 \
static void genie__dot_##sfx##_generic(const void *ap, const void *bp, int64_t ldb, int64_t n, int64_t K, \
                                       void *cp, int64_t csc) {                                       \
    const T *a = (const T *)ap, *b = (const T *)bp;                                                   \
    T *c = (T *)cp;                                                                                   \
    int64_t j, k;                                                                                     \
    for (j = 0; j < n; j++) {                                                                         \
        T s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                                             \
        const T *bj = b + j * ldb;                                                                    \
        for (k = 0; k + 4 <= K; k += 4) {                                                             \
            s0 += a[k] * bj[k]; s1 += a[k + 1] * bj[k + 1];                                           \
            s2 += a[k + 2] * bj[k + 2]; s3 += a[k + 3] * bj[k + 3];                                   \
        }                                                                                             \
        for (; k < K; k++) s0 += a[k] * bj[k];                                                        \
        c[j * csc] = (s0 + s1) + (s2 + s3);                                                           \
    }                                                                                                 \
}                                                                                                     \
static void genie__axpy_##sfx##_generic(const void *ap, int64_t csa, const void *bp, int64_t ldb,     \
                                        int64_t n, int64_t K, void *cp) {                             \
    const T *a = (const T *)ap, *b = (const T *)bp;                                                   \
    T *c = (T *)cp;                                                                                   \
    int64_t j, k;                                                                                     \
    for (j = 0; j < n; j++) c[j] = 0;                                                                 \
    for (k = 0; k < K; k++) {                                                                         \
        T ak = a[k * csa];                                                                            \
        const T *bk = b + k * ldb;                                                                    \
        for (j = 0; j < n; j++) c[j] += ak * bk[j];                                                   \
    }                                                                                                 \
}
GENIE__SKINNY_GENERIC(float, s)
GENIE__SKINNY_GENERIC(double, d)

#ifdef GENIE__X86
/* dot: one row of B at a time, one vector accumulator, the k tail masked (AVX-512) or
   scalar (AVX2); axpy: 4 vectors of a row of C at a time. */
/* The weight streams from memory as one stream: once a line, the line GENIE__PF_AHEAD bytes
   on is asked into L1. Rows one after the other (ldb == K) are one run of memory; other rows
   ask for the same k enough rows on. [1, 768] x [3072, 768]^T streamed at 27-30 GB/s when
   four rows were summed at once with the next group prefetched, 33-38 one row at a time like
   this (one core reads about 37); [1, 4096] x [4096, 4096]^T 26-30 -> 36-39: short interleaved
   rows keep restarting the hardware's streams. Rows' chains overlap out of order, so a weight
   in L1 or L2 is not slower. */
#define GENIE__PF_AHEAD 4096
/* bytes from a row's element k to the element prefetched for it (rows of K elements of esz bytes, ld apart) */
static int64_t genie__pf_ahead(int64_t K, int64_t ld, int64_t esz) {
    const int64_t row = GENIE__MAX(K, 1) * esz;
    return ld == K ? GENIE__PF_AHEAD : (GENIE__PF_AHEAD + row - 1) / row * ld * esz;
}
/* The body of dot over rows of B of element type TB, LOADB(p) and LOADBT(p) (the lanes of
   `tail`) giving 16 f32 lanes of them (a, b, ldb, n, K, c, csc in scope; whole steps load
   unmasked: see dot4). */
#define GENIE__DOT_BODY(TB, LOADB, LOADBT)                                                          \
    const __mmask16 tail = (__mmask16)((1u << (K & 15)) - 1u);                                   \
    const int64_t pf = genie__pf_ahead(K, ldb, (int64_t)sizeof(TB));                             \
    int64_t j, k;                                                                                \
    for (j = 0; j < n; j++) {                                                                    \
        const TB *b0 = b + j * ldb;                                                              \
        __m512 s0 = _mm512_setzero_ps();                                                         \
        for (k = 0; k + 16 <= K; k += 16) {                                                      \
            if (k % (64 / (int64_t)sizeof(TB)) == 0)                                             \
                _mm_prefetch((const char *)((uintptr_t)(b0 + k) + (uintptr_t)pf), _MM_HINT_T0);  \
            s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + k), LOADB(b0 + k), s0);                     \
        }                                                                                        \
        if (tail) s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, a + k), LOADBT(b0 + k), s0); \
        c[j * csc] = _mm512_reduce_add_ps(s0);                                                   \
    }
#define GENIE__LDB_ST(p) _mm512_maskz_loadu_ps(tail, p)
static GENIE__AVX512 void genie__dot_s_avx512(const void *ap, const void *bp, int64_t ldb, int64_t n, int64_t K,
                                             void *cp, int64_t csc) {
    const float *a = (const float *)ap, *b = (const float *)bp;
    float *c = (float *)cp;
    GENIE__DOT_BODY(float, _mm512_loadu_ps, GENIE__LDB_ST)
}
/* dot4: four rows of A at once (a at rows lda apart), four columns at a time: 16
   accumulators, each B vector loaded once for four rows (one row at a time, the loads
   bound the FMAs: 42 GFLOP/s at any row count here). Each accumulator sees the FMAs of
   genie__dot_s_avx512 in its order: the same results. Leftover columns: dot per row.
   The body over rows of B of element type TB, LOADB(p) and LOADBT(p) (the lanes of `tail`)
   giving 16 f32 lanes of them (a0..a3, b, ldb, n, K, c, ldc, csc in scope); DOT1(r, j): row
   r's columns from j on. Whole steps load unmasked (masked loads with every lane set, not folded into
   the FMAs, halved the speed of four rows here). */
#define GENIE__DOT4_BODY(TB, LOADB, LOADBT, DOT1)                                                \
    const __mmask16 tail = (__mmask16)((1u << (K & 15)) - 1u);                                   \
    const int64_t pf = genie__pf_ahead(K, ldb, (int64_t)sizeof(TB));                             \
    int64_t j = 0, k, r;                                                                         \
    for (; j + 4 <= n; j += 4) {                                                                 \
        const TB *b0 = b + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;              \
        __m512 s[4][4];                                                                          \
        for (r = 0; r < 4; r++) s[r][0] = s[r][1] = s[r][2] = s[r][3] = _mm512_setzero_ps();     \
        for (k = 0; k + 16 <= K; k += 16) {                                                      \
            if (k % (64 / (int64_t)sizeof(TB)) == 0) {                                           \
                _mm_prefetch((const char *)((uintptr_t)(b0 + k) + (uintptr_t)pf), _MM_HINT_T0);  \
                _mm_prefetch((const char *)((uintptr_t)(b1 + k) + (uintptr_t)pf), _MM_HINT_T0);  \
                _mm_prefetch((const char *)((uintptr_t)(b2 + k) + (uintptr_t)pf), _MM_HINT_T0);  \
                _mm_prefetch((const char *)((uintptr_t)(b3 + k) + (uintptr_t)pf), _MM_HINT_T0);  \
            }                                                                                    \
            GENIE__DOT4_STEP(_mm512_loadu_ps, LOADB)                                             \
        }                                                                                        \
        if (tail) GENIE__DOT4_STEP(GENIE__LDB_ST, LOADBT)                                        \
        for (r = 0; r < 4; r++) {                                                                \
            c[r * ldc + j * csc] = _mm512_reduce_add_ps(s[r][0]);                                \
            c[r * ldc + (j + 1) * csc] = _mm512_reduce_add_ps(s[r][1]);                          \
            c[r * ldc + (j + 2) * csc] = _mm512_reduce_add_ps(s[r][2]);                          \
            c[r * ldc + (j + 3) * csc] = _mm512_reduce_add_ps(s[r][3]);                          \
        }                                                                                        \
    }                                                                                            \
    if (j < n)                                                                                   \
        for (r = 0; r < 4; r++) DOT1(r, j);
#define GENIE__DOT4_STEP(LOADX, LOADB)                                                           \
    {                                                                                            \
        const __m512 x0 = LOADX(a0 + k), x1 = LOADX(a1 + k), x2 = LOADX(a2 + k), x3 = LOADX(a3 + k); \
        __m512 y = LOADB(b0 + k);                                                                \
        s[0][0] = _mm512_fmadd_ps(x0, y, s[0][0]); s[1][0] = _mm512_fmadd_ps(x1, y, s[1][0]);    \
        s[2][0] = _mm512_fmadd_ps(x2, y, s[2][0]); s[3][0] = _mm512_fmadd_ps(x3, y, s[3][0]);    \
        y = LOADB(b1 + k);                                                                       \
        s[0][1] = _mm512_fmadd_ps(x0, y, s[0][1]); s[1][1] = _mm512_fmadd_ps(x1, y, s[1][1]);    \
        s[2][1] = _mm512_fmadd_ps(x2, y, s[2][1]); s[3][1] = _mm512_fmadd_ps(x3, y, s[3][1]);    \
        y = LOADB(b2 + k);                                                                       \
        s[0][2] = _mm512_fmadd_ps(x0, y, s[0][2]); s[1][2] = _mm512_fmadd_ps(x1, y, s[1][2]);    \
        s[2][2] = _mm512_fmadd_ps(x2, y, s[2][2]); s[3][2] = _mm512_fmadd_ps(x3, y, s[3][2]);    \
        y = LOADB(b3 + k);                                                                       \
        s[0][3] = _mm512_fmadd_ps(x0, y, s[0][3]); s[1][3] = _mm512_fmadd_ps(x1, y, s[1][3]);    \
        s[2][3] = _mm512_fmadd_ps(x2, y, s[2][3]); s[3][3] = _mm512_fmadd_ps(x3, y, s[3][3]);    \
    }
static GENIE__AVX512 void genie__dot4_s_avx512(const void *ap, int64_t lda, const void *bp, int64_t ldb, int64_t n, int64_t K,
                                              void *cp, int64_t ldc, int64_t csc) {
    const float *a = (const float *)ap, *b = (const float *)bp, *a0 = a, *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    float *c = (float *)cp;
#define GENIE__DOT1_S(r, j) genie__dot_s_avx512(a + (r) * lda, b + (j) * ldb, ldb, n - (j), K, c + (r) * ldc + (j) * csc, csc)
    GENIE__DOT4_BODY(float, _mm512_loadu_ps, GENIE__LDB_ST, GENIE__DOT1_S)
#undef GENIE__DOT1_S
}
/* dot_h: dot with f16/bf16 rows of B (a linear's half-precision weight, read at half the
   bytes) and an f32 row a (the row of A converted), into f32 c[n] (contiguous): B
   converted in registers (bf16: a shift; f16: vcvtph2ps, exact), then the FMAs of dot. */
static GENIE__AVX512 __m512 genie__h16_avx512(const uint16_t *p, __mmask16 m, int dt) {
    const __m256i h = _mm256_maskz_loadu_epi16(m, p);
    return dt == GENIE_BF16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16))
                            : _mm512_mask_cvtph_ps(_mm512_setzero_ps(), (__mmask16)-1, h);
}
static GENIE__AVX512 __m512 genie__h16u_avx512(const uint16_t *p, int dt) { /* all 16 lanes */
    const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)p);
    return dt == GENIE_BF16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
}
static GENIE__AVX512 void genie__doth_avx512(const float *a, const uint16_t *b, int64_t ldb, int64_t n, int64_t K, float *c,
                                            int dt) {
    const int64_t csc = 1;
#define GENIE__LDB_HU(p) genie__h16u_avx512(p, dt)
#define GENIE__LDB_HT(p) genie__h16_avx512(p, tail, dt)
    GENIE__DOT_BODY(uint16_t, GENIE__LDB_HU, GENIE__LDB_HT)
#undef GENIE__LDB_HU
#undef GENIE__LDB_HT
}
/* doth4: doth for four f32 rows of A (lda apart) into four rows of c (ldc apart): each
   vector of B converted once for four rows; each row's sums are doth's. */
static GENIE__AVX512 void genie__doth4_avx512(const float *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t n,
                                             int64_t K, float *c, int64_t ldc, int dt) {
    const float *a0 = a, *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const int64_t csc = 1;
#define GENIE__LDB_HU(p) genie__h16u_avx512(p, dt)
#define GENIE__LDB_HT(p) genie__h16_avx512(p, tail, dt)
#define GENIE__DOT1_H(r, j) genie__doth_avx512(a + (r) * lda, b + (j) * ldb, ldb, n - (j), K, c + (r) * ldc + (j), dt)
    GENIE__DOT4_BODY(uint16_t, GENIE__LDB_HU, GENIE__LDB_HT, GENIE__DOT1_H)
#undef GENIE__DOT1_H
#undef GENIE__LDB_HU
#undef GENIE__LDB_HT
}
/* dot_bh: bf16 rows of A and B (both along k) on AVX512_BF16, summed as the packed bf16
   kernel sums them: 32 k a step as 16 pairs (vdpbf16ps), the k tail zero-filled; four
   columns at a time, one accumulator each, the leftover columns one at a time (the same
   sums), the weight prefetched as dot's. dotbh4: four rows of A (lda apart) into four rows of c (ldc apart), each vector
   of B loaded once for them; each row's sums are dotbh's. c is f32, contiguous. */
#define GENIE__BH_LU(p) ((__m512bh)_mm512_loadu_si512((const void *)(p)))
#define GENIE__BH_LT(p) ((__m512bh)_mm512_maskz_loadu_epi16(tail, p))
#define GENIE__BH_MASKS const __mmask32 tail = (__mmask32)(((uint64_t)1 << (K & 31)) - 1u)
static GENIE__AVX512BF16 void genie__dotbh_avx512(const uint16_t *a, const uint16_t *b, int64_t ldb, int64_t n, int64_t K,
                                                  float *c) {
    GENIE__BH_MASKS;
    const int64_t pf = genie__pf_ahead(K, ldb, 2);
    int64_t j, k;
    for (j = 0; j < n; j++) {
        const uint16_t *b0 = b + j * ldb;
        __m512 s0 = _mm512_setzero_ps();
        for (k = 0; k + 32 <= K; k += 32) {
            _mm_prefetch((const char *)((uintptr_t)(b0 + k) + (uintptr_t)pf), _MM_HINT_T0);
            s0 = _mm512_dpbf16_ps(s0, GENIE__BH_LU(a + k), GENIE__BH_LU(b0 + k));
        }
        if (tail) s0 = _mm512_dpbf16_ps(s0, GENIE__BH_LT(a + k), GENIE__BH_LT(b0 + k));
        c[j] = _mm512_reduce_add_ps(s0);
    }
}
static GENIE__AVX512BF16 void genie__dotbh4_avx512(const uint16_t *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t n,
                                                   int64_t K, float *c, int64_t ldc) {
    const uint16_t *a0 = a, *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    GENIE__BH_MASKS;
    const int64_t pf = genie__pf_ahead(K, ldb, 2);
    int64_t j = 0, k, r;
    for (; j + 4 <= n; j += 4) {
        const uint16_t *b0 = b + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
        __m512 s[4][4];
        for (r = 0; r < 4; r++) s[r][0] = s[r][1] = s[r][2] = s[r][3] = _mm512_setzero_ps();
#define GENIE__BH4_STEP(LD)                                                                       \
    {                                                                                             \
        const __m512bh x0 = LD(a0 + k), x1 = LD(a1 + k), x2 = LD(a2 + k), x3 = LD(a3 + k);        \
        const __m512bh y0 = LD(b0 + k), y1 = LD(b1 + k), y2 = LD(b2 + k), y3 = LD(b3 + k);        \
        s[0][0] = _mm512_dpbf16_ps(s[0][0], x0, y0); s[1][0] = _mm512_dpbf16_ps(s[1][0], x1, y0); \
        s[2][0] = _mm512_dpbf16_ps(s[2][0], x2, y0); s[3][0] = _mm512_dpbf16_ps(s[3][0], x3, y0); \
        s[0][1] = _mm512_dpbf16_ps(s[0][1], x0, y1); s[1][1] = _mm512_dpbf16_ps(s[1][1], x1, y1); \
        s[2][1] = _mm512_dpbf16_ps(s[2][1], x2, y1); s[3][1] = _mm512_dpbf16_ps(s[3][1], x3, y1); \
        s[0][2] = _mm512_dpbf16_ps(s[0][2], x0, y2); s[1][2] = _mm512_dpbf16_ps(s[1][2], x1, y2); \
        s[2][2] = _mm512_dpbf16_ps(s[2][2], x2, y2); s[3][2] = _mm512_dpbf16_ps(s[3][2], x3, y2); \
        s[0][3] = _mm512_dpbf16_ps(s[0][3], x0, y3); s[1][3] = _mm512_dpbf16_ps(s[1][3], x1, y3); \
        s[2][3] = _mm512_dpbf16_ps(s[2][3], x2, y3); s[3][3] = _mm512_dpbf16_ps(s[3][3], x3, y3); \
    }
        for (k = 0; k + 32 <= K; k += 32) {
            _mm_prefetch((const char *)((uintptr_t)(b0 + k) + (uintptr_t)pf), _MM_HINT_T0);
            _mm_prefetch((const char *)((uintptr_t)(b1 + k) + (uintptr_t)pf), _MM_HINT_T0);
            _mm_prefetch((const char *)((uintptr_t)(b2 + k) + (uintptr_t)pf), _MM_HINT_T0);
            _mm_prefetch((const char *)((uintptr_t)(b3 + k) + (uintptr_t)pf), _MM_HINT_T0);
            GENIE__BH4_STEP(GENIE__BH_LU)
        }
        if (tail) GENIE__BH4_STEP(GENIE__BH_LT)
#undef GENIE__BH4_STEP
        for (r = 0; r < 4; r++) {
            c[r * ldc + j] = _mm512_reduce_add_ps(s[r][0]);
            c[r * ldc + j + 1] = _mm512_reduce_add_ps(s[r][1]);
            c[r * ldc + j + 2] = _mm512_reduce_add_ps(s[r][2]);
            c[r * ldc + j + 3] = _mm512_reduce_add_ps(s[r][3]);
        }
    }
    if (j < n)
        for (r = 0; r < 4; r++) genie__dotbh_avx512(a + r * lda, b + j * ldb, ldb, n - j, K, c + r * ldc + j);
}
#undef GENIE__BH_MASKS
#undef GENIE__BH_LU
#undef GENIE__BH_LT
#undef GENIE__DOT4_STEP
#undef GENIE__DOT4_BODY
#undef GENIE__LDB_ST
#undef GENIE__DOT_BODY
/* axpy: C's row in L1 (blocks of 2048 columns) += four rows of B at a time, streamed. */
#define GENIE__AXPY_BODY(V, VL, SET1, LOAD, STORE, FMA)                                    \
    const float *a = (const float *)ap, *b = (const float *)bp;                                 \
    float *c = (float *)cp;                                                                      \
    int64_t j0, j, k;                                                                            \
    for (j0 = 0; j0 < n; j0 += 2048) {                                                           \
        const int64_t jn = GENIE__MIN(n - j0, 2048), jv = jn / VL * VL;                          \
        float *cj = c + j0;                                                                      \
        memset(cj, 0, (size_t)jn * sizeof(float));                                               \
        for (k = 0; k + 4 <= K; k += 4) {                                                        \
            const float *b0 = b + k * ldb + j0, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;  \
            const float x0 = a[k * csa], x1 = a[(k + 1) * csa], x2 = a[(k + 2) * csa], x3 = a[(k + 3) * csa]; \
            const V v0 = SET1(x0), v1 = SET1(x1), v2 = SET1(x2), v3 = SET1(x3);                  \
            for (j = 0; j < jv; j += VL) {                                                       \
                V t = FMA(v0, LOAD(b0 + j), LOAD(cj + j));                                       \
                t = FMA(v1, LOAD(b1 + j), t);                                                    \
                t = FMA(v2, LOAD(b2 + j), t);                                                    \
                STORE(cj + j, FMA(v3, LOAD(b3 + j), t));                                         \
            }                                                                                    \
            for (j = jv; j < jn; j++) cj[j] += x0 * b0[j] + x1 * b1[j] + x2 * b2[j] + x3 * b3[j]; \
        }                                                                                        \
        for (; k < K; k++) {                                                                     \
            const float x = a[k * csa], *bk = b + k * ldb + j0;                                  \
            for (j = 0; j < jn; j++) cj[j] += x * bk[j];                                         \
        }                                                                                        \
    }
static GENIE__AVX512 void genie__axpy_s_avx512(const void *ap, int64_t csa, const void *bp, int64_t ldb, int64_t n,
                                              int64_t K, void *cp) {
    GENIE__AXPY_BODY(__m512, 16, _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_fmadd_ps)
}
static GENIE__AVX2 void genie__axpy_s_avx2(const void *ap, int64_t csa, const void *bp, int64_t ldb, int64_t n,
                                          int64_t K, void *cp) {
    GENIE__AXPY_BODY(__m256, 8, _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_fmadd_ps)
}
static GENIE__AVX2 float genie__hsum_avx2(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static GENIE__AVX2 void genie__dot_s_avx2(const void *ap, const void *bp, int64_t ldb, int64_t n, int64_t K,
                                         void *cp, int64_t csc) {
    const float *a = (const float *)ap, *b = (const float *)bp;
    float *c = (float *)cp;
    int64_t j = 0, k;
    for (; j < n; j++) {
        const float *b0 = b + j * ldb;
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        float t = 0;
        for (k = 0; k + 16 <= K; k += 16) {
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b0 + k), s0);
            s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8), _mm256_loadu_ps(b0 + k + 8), s1);
        }
        for (; k < K; k++) t += a[k] * b0[k];
        c[j * csc] = genie__hsum_avx2(_mm256_add_ps(s0, s1)) + t;
    }
}
/* dot_h on AVX2: each row of B converted into an f32 row on the stack by
   the path's array conversion (2048 at a time), then dot: the weight is read at half the
   bytes, where the packed product converted and wrote all of it first. */
static GENIE__AVX2 void genie__doth_avx2(const float *a, const uint16_t *b, int64_t ldb, int64_t n, int64_t K, float *c,
                                        int dt) {
    float row[2048], part;
    int64_t j, k0, kk;
    for (j = 0; j < n; j++) {
        float s = 0;
        for (k0 = 0; k0 < K; k0 += kk) {
            kk = K - k0 < 2048 ? K - k0 : 2048;
            if (dt == GENIE_BF16) genie__vy_BF2F(row, b + j * ldb + k0, NULL, kk);
            else genie__vy_H2F(row, b + j * ldb + k0, NULL, kk);
            genie__dot_s_avx2(a + k0, row, 0, 1, kk, &part, 1);
            s += part;
        }
        c[j] = s;
    }
}
/* A short copy (im2col runs) without a call into memcpy. */
static GENIE__AVX512 void genie__copy_s_avx512(void *dp, const void *sp, int64_t n) {
    float *d = (float *)dp;
    const float *s = (const float *)sp;
    for (; n >= 16; n -= 16, d += 16, s += 16) _mm512_storeu_ps(d, _mm512_loadu_ps(s));
    if (n > 0) {
        const __mmask16 m = (__mmask16)((1u << n) - 1u);
        _mm512_mask_storeu_ps(d, m, _mm512_maskz_loadu_ps(m, s));
    }
}
#endif /* GENIE__X86 */

/* Block sizes of each micro-kernel, one table: [path][0 f32, 1 f64].
   MR x NR register tile; KC the depth of packed panels (a kc x NR panel of B
   stays in L1); MC rows of A per packed block (L2); NC columns of B (L3).
   A product with M <= MC packs each panel of B just before its use, and the
   panel stays in L1 for every row. AVX-512 f32's MC is 132 rows (11 panels of A,
   270 KiB), which puts a 128-token prefill there: 125 -> 135 GFLOP/s at
   M = 128, large products unchanged. */
typedef void (*genie__pack_t)(const void *src, int64_t ld, int64_t rows, int64_t kc, int w, void *dst);
typedef struct genie__gemm_kern {
    genie__ukr uk, uk_h, uk_t; /* MR rows; MR/2 and 2MR/3 rows for a short last panel of A (or NULL) */
    genie__pack_t pack_t; /* SIMD transposing copy for packing (NULL: scalar loops) */
    void (*copy)(void *dst, const void *src, int64_t n); /* short copies (NULL: memcpy) */
    genie__dot_fn dot;    /* skinny products */
    genie__axpy_fn axpy;
    int mr, nr, kc, mc, nc;
    genie_cpu cpu; /* the path (its f16/bf16 array conversions, genie__hconv) */
    genie__dot4_fn dot4; /* skinny products of four rows and more (or NULL: dot row by row) */
    genie__doth_fn doth; /* skinny products of f16/bf16 (or NULL: packed) */
    genie__doth4_fn doth4; /* doth of four rows and more, up to GENIE__SKINNY (or NULL: up to 4 rows, by doth) */
} genie__gemm_kern;
#define GENIE__KERN_NONE {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, GENIE_CPU_AUTO, 0, 0, 0}
static const genie__gemm_kern genie__gemm_kerns[GENIE_CPU_COUNT][2] = {
    {GENIE__KERN_NONE, GENIE__KERN_NONE}, /* AUTO */
    {GENIE__KERN_NONE, GENIE__KERN_NONE}, /* REFERENCE: no packed kernel */
    {{genie__uk_s_generic, 0, 0, 0, 0, genie__dot_s_generic, genie__axpy_s_generic, 4, 16, 256, 128, 2048, GENIE_CPU_GENERIC, 0, 0, 0},
     {genie__uk_d_generic, 0, 0, 0, 0, genie__dot_d_generic, genie__axpy_d_generic, 4, 8, 256, 128, 2048, GENIE_CPU_GENERIC, 0, 0, 0}},
#ifdef GENIE__X86
    {{genie__uk_s_avx2, genie__uk_s_avx2_h, genie__uk_s_avx2_t, genie__pack_t_s_avx2, 0, genie__dot_s_avx2, genie__axpy_s_avx2, 6, 16, 512, 96, 2048, GENIE_CPU_AVX2, 0, genie__doth_avx2, 0},
     {genie__uk_d_avx2, genie__uk_d_avx2_h, genie__uk_d_avx2_t, 0, 0, genie__dot_d_generic, genie__axpy_d_generic, 6, 8, 256, 96, 2048, GENIE_CPU_AVX2, 0, 0, 0}},
    {{genie__uk_s_avx512, genie__uk_s_avx512_h, genie__uk_s_avx512_t, genie__pack_t_s_avx512, genie__copy_s_avx512, genie__dot_s_avx512, genie__axpy_s_avx512, 12, 32, 512, 132, 2048, GENIE_CPU_AVX512, genie__dot4_s_avx512, genie__doth_avx512, genie__doth4_avx512},
     {genie__uk_d_avx512, genie__uk_d_avx512_h, genie__uk_d_avx512_t, 0, 0, genie__dot_d_generic, genie__axpy_d_generic, 12, 16, 256, 96, 2048, GENIE_CPU_AVX512, 0, 0, 0}},
#else
    {GENIE__KERN_NONE, GENIE__KERN_NONE}, {GENIE__KERN_NONE, GENIE__KERN_NONE},
#endif
};
#ifdef GENIE__X86
/* bf16 x bf16 products where the CPU has AVX512_BF16 (genie__mm_plan_node): kc counts k,
   two to a packed step, so a panel of B has the f32 kernel's bytes */
static const genie__gemm_kern genie__gemm_kern_bh = {genie__uk_bh_avx512, genie__uk_bh_avx512_h, genie__uk_bh_avx512_t,
                                                     genie__pack_t_s_avx512, 0, 0, 0, 12, 32, 1024, 132, 2048,
                                                     GENIE_CPU_AVX512, 0, 0, 0};
#endif
#define GENIE__MAX_MR 12
/* One block of A holds all of M: B is packed panel by panel just before use. */
#define GENIE__GEMM_JIT(kr, M) ((M) <= (kr)->mc)
/* Rows of a packed panel of A holding m rows: MR/2 or 2MR/3 when such a kernel fits, else
   MR; and the kernel for a panel of w rows. A 128-token prefill's last panel has 8 rows:
   AVX-512's 12-row kernel computed 4 rows of padding there (3% of its products). */
#define GENIE__PANEL_ROWS(kr, m)                                        \
    ((kr)->uk_h && 2 * (m) <= (kr)->mr       ? (kr)->mr / 2             \
     : (kr)->uk_t && 3 * (m) <= 2 * (kr)->mr ? 2 * (kr)->mr / 3 : (kr)->mr)
#define GENIE__PANEL_UK(kr, w) ((w) == (kr)->mr ? (kr)->uk : 2 * (w) == (kr)->mr ? (kr)->uk_h : (kr)->uk_t)
#define GENIE__MAX_NR 32

/* ---- the product: packing, epilogue, the five loops ----
   C = A B over strided operands: A[i, k] at a[i*rsa + k*csa] (elements of adt),
   B[k, j] at b[k*rsb + j*csb] or, for conv2d, the im2col of one image read while
   packing (cb); C[i, j] at c[i*rsc + j*csc] in the compute type (f32 or f64; f16
   and bf16 operands are converted while packing). Strides may be 0 or negative. */
typedef struct genie__conv_b { /* B[(c, ky, kx), (y, x)] = x[c, y*sy - py + ky*dy, x*sx - px + kx*dx], 0 outside */
    const char *x;
    int dt;
    int64_t s1, s2, s3, H, W, KH, KW, Wo, sy, sx, py, px, dy, dx;
} genie__conv_b;
/* Epilogue on a finished tile: C = act(C + bias) + res (bias and res read at
   element (i, j) through their strides; NULL: none; act: 0 or a unary op). */
typedef struct genie__epi {
    const char *bias, *res;
    int bias_dt, res_dt, act, act_last; /* act_last: the residual added before act */
    genie_cpu cpu;           /* f32 activations run on this path's array kernels */
    int64_t bias_rs, bias_cs, res_rs, res_cs;
} genie__epi;
typedef struct genie__gemm {
    int64_t M, N, K;
    const char *a, *b;
    int64_t rsa, csa, rsb, csb, rsc, csc;
    int adt, bdt;
    const genie__conv_b *cb;
    char *c;
    genie__epi epi;
    const void *bpk; /* B already packed (the pack cache): panel j of k-block q at
                        bpk + (q * bnp + j) * NR * KP(kcb), or NULL: packed as it runs */
    int64_t bnp;     /* with bpk: B's panels in a k-block */
} genie__gemm;

/* The source of the panel of B that a thread packs after panel jr of its share
   [.., phi) in block (jc, pc) (blocks ncb wide, kcb deep), as rows of lines
   (genie__ukpf, rows [0, r1)): weight rows (B = W^T, rsb 1) or rows of B (csb 1).
   0: no next panel, or one read through im2col or other strides. */
static int genie__gemm_next(const genie__gemm *g, const genie__gemm_kern *kr, int64_t jc, int64_t ncb, int64_t pc,
                            int64_t kcb, int64_t jr, int64_t phi, int ith, int nth, genie__ukpf *pf) {
    const int64_t es = (int64_t)genie__dt_size[g->bdt], nr = kr->nr;
    int64_t j0, n, k0 = pc, kc, lo, hi;
    if (g->cb || (g->rsb != 1 && g->csb != 1)) return 0;
    if (jr + 1 < phi) {
        j0 = jc + (jr + 1) * nr;
    } else { /* the first panel of this thread's share in the next block */
        if (pc + kcb < g->K) k0 = pc + kcb;
        else if ((jc += ncb) < g->N) k0 = 0;
        else return 0;
        genie__share(ncb / nr, ith, nth, &lo, &hi); /* as the driver shares a block's panels */
        hi = GENIE__MIN(hi, (GENIE__MIN(g->N - jc, ncb) + nr - 1) / nr);
        if (lo >= hi) return 0;
        j0 = jc + lo * nr;
    }
    n = GENIE__MIN(nr, g->N - j0);
    kc = GENIE__MIN(kcb, g->K - k0);
    if (g->rsb == 1) {
        pf->p = g->b + (j0 * g->csb + k0) * es, pf->ld = g->csb * es, pf->r1 = n, pf->lpr = kc * es;
    } else {
        pf->p = g->b + (k0 * g->rsb + j0) * es, pf->ld = g->rsb * es, pf->r1 = kc, pf->lpr = n * es;
    }
    /* lines per row: one more where rows do not start on a line */
    pf->lpr = (pf->lpr + 63) / 64 + ((((uintptr_t)pf->p | (uintptr_t)pf->ld) & 63) ? 1 : 0);
    pf->r0 = 0;
    return 1;
}

/* Rows [0, rows) of an f16/bf16 dt matrix (row i at src + i ld, kc long) as an f32
   panel dst[k w + i]: 16 rows x 256 at a time converted into f32 rows on the stack by
   the path's array conversion (the values of genie__h2f / bf2f), then transposed by
   pack_t. Element by element, the conversion took 2.8 ms of an 8.3 ms bf16 linear of
   [512, 1024] x [1024, 1024] (f16: 6.9 of 12.4). */
static void genie__pack_half_rows(const genie__gemm_kern *kr, int dt, const uint16_t *src, int64_t ld, int64_t rows,
                                  int64_t kc, int w, float *dst) {
    float tmp[16 * 256];
    int64_t r0, k0, r, k;
    for (r0 = 0; r0 < rows; r0 += 16)
        for (k0 = 0; k0 < kc; k0 += 256) {
            const int64_t nr = GENIE__MIN(16, rows - r0), nk = GENIE__MIN(256, kc - k0);
            for (r = 0; r < nr; r++) genie__hconv(kr->cpu, dt, 0, tmp + r * nk, src + (r0 + r) * ld + k0, nk);
            if (kr->pack_t) kr->pack_t(tmp, nk, nr, nk, w, dst + k0 * w + r0);
            else
                for (r = 0; r < nr; r++)
                    for (k = 0; k < nk; k++) dst[(k0 + k) * w + r0 + r] = tmp[r * nk + k];
        }
}
#define GENIE__GEMM_FNS(T, sfx, DT)                                                                  \
/* Pack A[i0 : i0+mc, k0 : k0+kc] as panels [kc][mr] (rows past mc are 0). */                      \
static void genie__pack_a_##sfx(const genie__gemm *g, int64_t i0, int64_t mc, int64_t k0, int64_t kc, \
                                const genie__gemm_kern *kr, T *dst) {                               \
    const int mr = kr->mr;                                                                          \
    int64_t p, i, k;                                                                                \
    for (p = 0; p < mc; p += mr, dst += kc * mr) {                                                  \
        const int64_t m = GENIE__MIN(mc - p, mr), w = GENIE__PANEL_ROWS(kr, m);                     \
        if (g->adt == DT && g->csa == 1 && kr->pack_t) {                                            \
            kr->pack_t((const T *)g->a + (i0 + p) * g->rsa + k0, g->rsa, m, kc, (int)w, dst);           \
        } else if (g->adt == DT && g->csa == 1) {                                                   \
            for (i = 0; i < m; i++) {                                                               \
                const T *s = (const T *)g->a + (i0 + p + i) * g->rsa + k0;                          \
                for (k = 0; k < kc; k++) dst[k * w + i] = s[k];                                    \
            }                                                                                       \
        } else if (g->adt == DT && g->rsa == 1) {                                                   \
            for (k = 0; k < kc; k++) {                                                              \
                const T *s = (const T *)g->a + (k0 + k) * g->csa + i0 + p;                          \
                for (i = 0; i < m; i++) dst[k * w + i] = s[i];                                     \
            }                                                                                       \
        } else if (DT == GENIE_F32 && (g->adt == GENIE_F16 || g->adt == GENIE_BF16) && g->csa == 1) { \
            genie__pack_half_rows(kr, g->adt, (const uint16_t *)(const void *)g->a + (i0 + p) * g->rsa + k0, g->rsa, m, kc, \
                                  (int)w, (float *)(void *)dst);                                    \
        } else {                                                                                    \
            for (i = 0; i < m; i++)                                                                 \
                for (k = 0; k < kc; k++)                                                            \
                    dst[k * w + i] = (T)GENIE__LD_CVT(g->a, (i0 + p + i) * g->rsa + (k0 + k) * g->csa, g->adt); \
        }                                                                                           \
        for (i = m; i < w; i++)                                                                    \
            for (k = 0; k < kc; k++) dst[k * w + i] = 0;                                           \
    }                                                                                               \
}                                                                                                   \
/* Pack the n <= nr columns j0.. of B[k0 : k0+kc, :] as one panel [kc][nr]. */                      \
static void genie__pack_b_##sfx(const genie__gemm *g, int64_t k0, int64_t kc, int64_t j0, int64_t n, \
                                const genie__gemm_kern *kr, T *dst) {                               \
    const int nr = kr->nr;                                                                          \
    int64_t j, k;                                                                                   \
    if (g->cb) { /* im2col: per k, runs of output pixels along x, each a strided row segment */  \
        const genie__conv_b *cb = g->cb;                                                            \
        const int64_t KW = cb->KW, khw = cb->KH * KW, Wo = cb->Wo, sx = cb->sx, s3 = cb->s3;        \
        const int64_t y0 = j0 / Wo, x0 = j0 % Wo; /* the panel's first output pixel */              \
        int64_t ch = k0 / khw, ky = k0 % khw / KW, kx = k0 % KW; /* k0 as (c, ky, kx), then counted */ \
        for (k = 0; k < kc; k++) {                                                                  \
            const int64_t ix0 = kx * cb->dx - cb->px, iy0 = ky * cb->dy - cb->py;                   \
            const int64_t xlo = ix0 >= 0 ? 0 : sx == 1 ? -ix0 : (sx - 1 - ix0) / sx; /* ix >= 0 */ \
            const int64_t xhi = cb->W - 1 - ix0 < 0 ? 0 : sx == 1 ? cb->W - ix0 : (cb->W - 1 - ix0) / sx + 1; /* ix < W */ \
            int64_t y = y0, x = x0;                                                                 \
            T *d = dst + k * nr;                                                                    \
            for (j = 0; j < n;) {                                                                   \
                const int64_t run = GENIE__MIN(n - j, Wo - x), iy = y * cb->sy + iy0;               \
                int64_t vlo = x > xlo ? x : xlo, vhi = GENIE__MIN(x + run, xhi), e;                 \
                if (iy < 0 || iy >= cb->H || vhi < vlo) vlo = vhi = x;                              \
                for (e = x; e < vlo; e++) d[j + e - x] = 0;                                         \
                if (cb->dt == DT) {                                                                 \
                    const T *src = (const T *)cb->x;                                                \
                    const int64_t base = ch * cb->s1 + iy * cb->s2 + ix0 * s3;                      \
                    if (sx * s3 == 1 && kr->copy) kr->copy(d + j + vlo - x, src + base + vlo, vhi - vlo); \
                    else if (sx * s3 == 1) memcpy(d + j + vlo - x, src + base + vlo, (size_t)(vhi - vlo) * sizeof(T)); \
                    else for (e = vlo; e < vhi; e++) d[j + e - x] = src[base + e * sx * s3];        \
                } else {                                                                            \
                    for (e = vlo; e < vhi; e++)                                                     \
                        d[j + e - x] = (T)genie__ldf(cb->x, ch * cb->s1 + iy * cb->s2 + (e * sx + ix0) * s3, cb->dt); \
                }                                                                                   \
                for (e = vhi; e < x + run; e++) d[j + e - x] = 0;                                   \
                j += run;                                                                           \
                x += run;                                                                           \
                if (x == Wo) { x = 0; y++; }                                                        \
            }                                                                                       \
            for (; j < nr; j++) d[j] = 0;                                                           \
            if (++kx == KW && (kx = 0, ++ky == cb->KH)) { ky = 0; ch++; }                           \
        }                                                                                           \
        return;                                                                                     \
    }                                                                                               \
    if (g->csb == 1 && (g->bdt == DT || g->bdt == GENIE_BF16 || g->bdt == GENIE_F16)) {             \
        for (k = 0; k < kc; k++) {                                                                  \
            if (g->bdt == DT) {                                                                     \
                memcpy(dst + k * nr, (const T *)g->b + (k0 + k) * g->rsb + j0, (size_t)n * sizeof(T)); \
            } else if (DT == GENIE_F32) {                                                           \
                genie__hconv(kr->cpu, g->bdt, 0, dst + k * nr, (const uint16_t *)(const void *)g->b + (k0 + k) * g->rsb + j0, n); \
            } else {                                                                                \
                for (j = 0; j < n; j++) dst[k * nr + j] = (T)GENIE__LD_CVT(g->b, (k0 + k) * g->rsb + j0 + j, g->bdt); \
            }                                                                                       \
            for (j = n; j < nr; j++) dst[k * nr + j] = 0;                                           \
        }                                                                                           \
        return;                                                                                     \
    }                                                                                               \
    if (g->bdt == DT && g->rsb == 1 && kr->pack_t) {                                                \
        kr->pack_t((const T *)g->b + j0 * g->csb + k0, g->csb, n, kc, nr, dst);                     \
        j = n;                                                                                      \
    } else if (DT == GENIE_F32 && (g->bdt == GENIE_F16 || g->bdt == GENIE_BF16) && g->rsb == 1) {     \
        genie__pack_half_rows(kr, g->bdt, (const uint16_t *)(const void *)g->b + j0 * g->csb + k0, g->csb, n, kc, nr, \
                              (float *)(void *)dst);                                                \
        j = n;                                                                                      \
    } else {                                                                                        \
        j = 0;                                                                                      \
    }                                                                                               \
    for (; j < n; j++) {                                                                            \
        if (g->bdt == DT && g->rsb == 1) {                                                          \
            const T *s = (const T *)g->b + (j0 + j) * g->csb + k0;                                  \
            for (k = 0; k < kc; k++) dst[k * nr + j] = s[k];                                        \
        } else {                                                                                    \
            for (k = 0; k < kc; k++)                                                                \
                dst[k * nr + j] = (T)GENIE__LD_CVT(g->b, (k0 + k) * g->rsb + (j0 + j) * g->csb, g->bdt); \
        }                                                                                           \
    }                                                                                               \
    for (; j < nr; j++)                                                                             \
        for (k = 0; k < kc; k++) dst[k * nr + j] = 0;                                               \
}                                                                                                   \
/* The epilogue on the m x n block at C[i0, j0] (c points to it). */                                \
static void genie__epi_##sfx(const genie__epi *e, T *c, int64_t rsc, int64_t csc, int64_t i0,      \
                             int64_t j0, int64_t m, int64_t n) {                                    \
    /* f32 rows add contiguous f32 bias and residual rows on the path's array kernel */          \
    const genie__vfn vadd = sizeof(T) == 4 && csc == 1 && e->cpu >= GENIE_CPU_GENERIC && e->cpu < GENIE_CPU_COUNT \
                                ? genie__vops[e->cpu][genie__v_unary_id(GENIE__OP_ADD)] : NULL;     \
    int64_t i, j;                                                                                   \
    int ph;                                                                                         \
    for (i = 0; i < m; i++) {                                                                       \
        T *row = c + i * rsc;                                                                       \
        if (e->bias) {                                                                              \
            int64_t bo = (i0 + i) * e->bias_rs + j0 * e->bias_cs;                                   \
            if (e->bias_cs == 0) {                                                                  \
                const T bv = (T)genie__ldf(e->bias, bo, e->bias_dt);                                \
                if (csc == 1)                                                                       \
                    for (j = 0; j < n; j++) row[j] += bv;                                           \
                else                                                                                \
                    for (j = 0; j < n; j++) row[j * csc] += bv;                                     \
            } else if (e->bias_dt == DT && e->bias_cs == 1 && csc == 1) {                           \
                const T *bp = (const T *)e->bias + bo;                                              \
                if (vadd) vadd(row, row, bp, n);                                                    \
                else for (j = 0; j < n; j++) row[j] += bp[j];                                       \
            } else {                                                                                \
                for (j = 0; j < n; j++) row[j * csc] += (T)genie__ldf(e->bias, bo + j * e->bias_cs, e->bias_dt); \
            }                                                                                       \
        }                                                                                           \
        for (ph = 0; ph < 2; ph++) { /* act then the residual, or (act_last) the other way */          \
            if (ph == !!e->act_last) {                                                              \
                if (e->act && sizeof(T) == 4 && csc == 1 && e->cpu >= GENIE_CPU_GENERIC &&          \
                    genie__vops[e->cpu][genie__v_unary_id(e->act)])                                 \
                    genie__vops[e->cpu][genie__v_unary_id(e->act)](row, row, NULL, n);              \
                else if (e->act)                                                                    \
                    for (j = 0; j < n; j++) row[j * csc] = (T)genie__unary_f(e->act, row[j * csc], NULL); \
            } else if (e->res && vadd && e->res_dt == DT && e->res_cs == 1) {                       \
                vadd(row, row, (const T *)e->res + (i0 + i) * e->res_rs + j0, n);                   \
            } else if (e->res) {                                                                    \
                for (j = 0; j < n; j++)                                                             \
                    row[j * csc] += (T)genie__ldf(e->res, (i0 + i) * e->res_rs + (j0 + j) * e->res_cs, e->res_dt); \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
}
/* Thread ith of nth computes its share of one product. With N wide enough, each
   thread takes its own NR panels of B (packs and reads only those: no waiting,
   nothing shared) and all rows of A; else the threads pack each kc x nc block of
   B together, wait, and each packs its own rows of A and runs the micro-kernel
   over them. bbuf: KC x NC shared; abuf: MC x KC of this thread.
   When all of M is one block of A (M <= MC), B's panels are used once each:
   then every thread packs A whole and each panel of B just before its use, while
   it is in L1 (bbuf: one KC x NR panel per thread), and no thread waits.
   C is T; packed panels hold P, each KU consecutive k (1, or 2 for bf16 pairs:
   a block of kc k is KP(kc) packed steps, and blocks start at multiples of KU);
   pack_a/pack_b_##sfx pack, genie__epi_##esfx finishes blocks of GENIE__EPI_PANELS panels. */
#define GENIE__KP(kc, KU) (((kc) + (KU) - 1) / (KU))
/* The epilogue (bias, activation, residual) runs on a thread's rows of each group of this many
   finished panels (256 f32 columns on AVX-512: a block in L2), a call a row: per micro-tile, a
   call per row of 32 columns took 3.6% of the encoder block (1 thread, Zen 4) */
#define GENIE__EPI_PANELS 8
#define GENIE__GEMM_DRIVER(T, P, sfx, esfx, KU)                                                     \
static void genie__gemm_##sfx(const genie__gemm *g, const genie__gemm_kern *kr, P *bbuf, P *abuf,   \
                              struct genie__tpool *pool, int ith, int nth) {                         \
    const int mr = kr->mr, nr = kr->nr;                                                             \
    const int64_t M = g->M, N = g->N, K = g->K, npm = (M + mr - 1) / mr;                            \
    const int jit = GENIE__GEMM_JIT(kr, M);                                                         \
    /* threads split N when it has panels enough (each packs and reads only its own panels of B:   \
       no barrier, nothing shared between cores' caches), else M (sharing each block of B) */     \
    const int split_m = !jit && npm >= 2 * nth && (N + nr - 1) / nr < 8 * nth;                      \
    const int epi = g->epi.bias || g->epi.act || g->epi.res;                                        \
    /* blocks of equal size: K = 576 is two blocks of 288, not 512 and 64 */                      \
    const int64_t nkb = (K + kr->kc - 1) / kr->kc, kcb = nkb ? genie__round_up((K + nkb - 1) / nkb, KU) : KU; \
    const int64_t nnb = (N + kr->nc - 1) / kr->nc, ncb = nnb ? genie__round_up((N + nnb - 1) / nnb, nr) : 1; \
    int64_t mlo = 0, mhi = M, jc, pc, ic, ir, jr, jg, plo, phi;                                     \
    T tile[GENIE__MAX_MR * GENIE__MAX_NR];                                                          \
    if (split_m) {                                                                                  \
        genie__share(npm, ith, nth, &mlo, &mhi);                                                    \
        mlo *= mr;                                                                                  \
        mhi = GENIE__MIN(mhi * mr, M);                                                              \
    }                                                                                               \
    for (jc = 0; jc < N; jc += ncb) {                                                               \
        const int64_t nc = GENIE__MIN(N - jc, ncb), npn = (nc + nr - 1) / nr;                      \
        for (pc = 0; pc == 0 || pc < K; pc += kcb) {                                                \
            /* a panel's slot in bbuf is sized for the widest block (pstep), not this block's kp: \
               without a barrier between blocks a thread still reading block k's panel must not    \
               meet one packing block k+1's (K = 513: blocks of 257 and 256 rows) */               \
            const int64_t kc = GENIE__MIN(K - pc, kcb), kp = GENIE__KP(kc, KU), pstep = nr * GENIE__KP(kcb, KU); \
            const int first = pc == 0, last = pc + kc >= K;                                         \
            /* shares of a full block's panels, cut to this block's: a thread's slots stay the  \
               same in every block of columns (a last block of fewer panels would otherwise     \
               move the shares, and a thread packing its first slot there met one still         \
               reading that slot in the block before: N = 2090, 66 and 65 panels of 16) */        \
            genie__share(ncb / nr, ith, nth, &plo, &phi);                                           \
            phi = GENIE__MIN(phi, npn), plo = GENIE__MIN(plo, phi);                                 \
            for (jr = plo; jr < phi && !jit; jr++)                                                  \
                genie__pack_b_##sfx(g, pc, kc, jc + jr * nr, GENIE__MIN(nr, nc - jr * nr), kr, bbuf + jr * pstep); \
            if (split_m) genie__barrier(pool, nth);                                                 \
            if (split_m) { plo = 0; phi = npn; }                                                    \
            for (ic = mlo; ic < mhi; ic += kr->mc) {                                                \
                const int64_t mc = GENIE__MIN(mhi - ic, kr->mc);                                    \
                genie__pack_a_##sfx(g, ic, mc, pc, kc, kr, abuf);                                   \
                for (jg = jr = plo; jr < phi; jr++) {                                               \
                    const int64_t j0 = jc + jr * nr, n = GENIE__MIN(nr, N - j0);                    \
                    const P *bp = g->bpk ? (const P *)g->bpk + (pc / kcb * g->bnp + j0 / nr) * pstep \
                                  : jit  ? bbuf + (int64_t)ith * pstep : bbuf + jr * pstep;          \
                    genie__ukpf nx = {NULL, 0, 0, 0, 0}, pf; /* JIT: the next panel's source, a share per call */ \
                    int pfn = 0;                                                                    \
                    if (g->bpk && jr + 1 < phi) { /* kept panels: the next one, kp rows of NR */   \
                        nx.p = (const char *)(bp + pstep), nx.ld = nr * (int64_t)sizeof(P);          \
                        nx.r1 = kp, nx.lpr = (nx.ld + 63) / 64, pfn = 1;                            \
                    } else if (jit && !g->bpk) {                                                    \
                        pfn = genie__gemm_next(g, kr, jc, ncb, pc, kcb, jr, phi, ith, nth, &nx);    \
                        genie__pack_b_##sfx(g, pc, kc, j0, n, kr, (P *)bp);                         \
                    }                                                                               \
                    for (ir = 0; ir < mc; ir += mr) {                                               \
                        const int64_t m = GENIE__MIN(mr, mc - ir), i0 = ic + ir, nq = (mc + mr - 1) / mr; \
                        const genie__ukr uk = GENIE__PANEL_UK(kr, GENIE__PANEL_ROWS(kr, m));        \
                        T *cp = (T *)g->c + i0 * g->rsc + j0 * g->csc;                              \
                        pf = nx;                                                                    \
                        pf.r0 = ir / mr * nx.r1 / nq;                                               \
                        pf.r1 = (ir / mr + 1) * nx.r1 / nq;                                         \
                        if (m == GENIE__PANEL_ROWS(kr, m) && n == nr && g->csc == 1) {              \
                            uk(kp, abuf + ir * kp, bp, cp, g->rsc, !first, pfn ? &pf : NULL);       \
                        } else {                                                                    \
                            int64_t i, j;                                                           \
                            uk(kp, abuf + ir * kp, bp, tile, nr, 0, pfn ? &pf : NULL);              \
                            for (i = 0; i < m; i++)                                                 \
                                for (j = 0; j < n; j++)                                             \
                                    cp[i * g->rsc + j * g->csc] = (first ? 0 : cp[i * g->rsc + j * g->csc]) + tile[i * nr + j]; \
                        }                                                                           \
                    }                                                                               \
                    if (last && epi && (jr + 1 - jg == GENIE__EPI_PANELS || jr + 1 == phi)) {       \
                        const int64_t e0 = jc + jg * nr, e1 = GENIE__MIN(N, jc + (jr + 1) * nr);    \
                        genie__epi_##esfx(&g->epi, (T *)g->c + ic * g->rsc + e0 * g->csc, g->rsc, g->csc, ic, e0, mc, e1 - e0); \
                        jg = jr + 1;                                                                \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
            if (split_m) genie__barrier(pool, nth); /* before the next block of B overwrites bbuf */ \
        }                                                                                           \
    }                                                                                               \
}
GENIE__GEMM_FNS(float, s, GENIE_F32)
GENIE__GEMM_DRIVER(float, float, s, s, 1)
GENIE__GEMM_FNS(double, d, GENIE_F64)
GENIE__GEMM_DRIVER(double, double, d, d, 1)

#ifdef GENIE__X86
/* Rows [0, rows) of a bf16 matrix (element k of row r at src[r rs + k ks]) as a panel of
   pairs [kp][w], kp = ceil(kc / 2), rows past `rows` zero. Unit ks, even rs and a 4-byte
   aligned start: the whole pairs by the 32-bit transposing copy (pack_t). */
static void genie__pack_pairs(const genie__gemm_kern *kr, const uint16_t *src, int64_t rs, int64_t ks, int64_t rows,
                              int64_t kc, int w, uint32_t *dst) {
    const int64_t kp = (kc + 1) / 2;
    int64_t r, q, q0 = 0;
    if (ks == 1 && rs % 2 == 0 && ((uintptr_t)src & 3) == 0 && kc >= 2) {
        kr->pack_t(src, rs / 2, rows, kc / 2, w, dst);
        q0 = kc / 2;
    }
    for (r = 0; r < rows; r++)
        for (q = q0; q < kp; q++) {
            const uint32_t lo = src[r * rs + 2 * q * ks], hi = 2 * q + 1 < kc ? src[r * rs + (2 * q + 1) * ks] : 0u;
            dst[q * w + r] = lo | hi << 16;
        }
    for (r = rows; r < w; r++)
        for (q = 0; q < kp; q++) dst[q * w + r] = 0;
}
/* Pack A[i0 : i0+mc, k0 : k0+kc] (bf16) as panels of pairs [kp][w] (rows past mc 0). */
static void genie__pack_a_bh(const genie__gemm *g, int64_t i0, int64_t mc, int64_t k0, int64_t kc,
                             const genie__gemm_kern *kr, uint32_t *dst) {
    const uint16_t *a = (const uint16_t *)(const void *)g->a;
    int64_t p;
    for (p = 0; p < mc; p += kr->mr, dst += GENIE__KP(kc, 2) * kr->mr) {
        const int64_t m = GENIE__MIN(mc - p, kr->mr);
        genie__pack_pairs(kr, a + (i0 + p) * g->rsa + k0 * g->csa, g->rsa, g->csa, m, kc, (int)GENIE__PANEL_ROWS(kr, m), dst);
    }
}
/* Pack the n <= nr columns j0.. of B[k0 : k0+kc, :] (bf16) as one panel of pairs [kp][nr]:
   rows of B along j two at a time, else columns as A's rows. (conv2d's im2col stays on the
   f32 kernel: packing through f32 and pairing took 10% longer than the f32 product.) */
static void genie__pack_b_bh(const genie__gemm *g, int64_t k0, int64_t kc, int64_t j0, int64_t n,
                             const genie__gemm_kern *kr, uint32_t *dst) {
    const uint16_t *b = (const uint16_t *)(const void *)g->b + k0 * g->rsb + j0 * g->csb;
    int64_t q;
    if (g->csb == 1)
        for (q = 0; q < GENIE__KP(kc, 2); q++)
            genie__pairs_avx512(b + 2 * q * g->rsb, 2 * q + 1 < kc ? b + (2 * q + 1) * g->rsb : NULL, n, kr->nr,
                                dst + q * kr->nr);
    else
        genie__pack_pairs(kr, b, g->csb, g->rsb, n, kc, kr->nr, dst);
}
GENIE__GEMM_DRIVER(float, uint32_t, bh, s, 2)
#endif

/* ---- node kernels: a node's products ----
   matmul/linear: one product per batch; conv2d: one per image and group, with B
   the im2col of the image (implicit: read while packing). Batch dims in which B
   is broadcast (stride 0) fold into M when A's and C's line up with it, so B is
   packed once for all of them; a product whose C runs down its columns is
   computed transposed (C^T = B^T A^T), so the micro-kernel stores rows. */
typedef struct genie__mm_plan {
    const genie__gemm_kern *kr;
    genie__gemm g;          /* batch 0's product */
    genie__conv_b cb;       /* conv2d: batch 0's image */
    int f64, half, coop, nb;
    int bin;                /* the input B is (1; 0 when computed transposed) */
    int bh;                 /* bf16 x bf16 as bf16 pairs (vdpbf16ps): packed on genie__gemm_kern_bh, or skinny 3 by dotbh */
    int skinny;             /* 0 packed; 1 dot, 2 axpy (unpacked, M <= 16); 3 dot of f16/bf16 (rows of A as f32, or bf16 pairs: bh) */
    int64_t batches, bshape[GENIE__MAXD], bst[5][GENIE__MAXD]; /* batch strides: a, b or cb.x, residual, bias, out */
    char *out;              /* the result; with half (f16/bf16) C goes to an f32 workspace first */
    int odt;
    int64_t ors, ocs;
    size_t bsz, asz, csz;   /* workspace of a thread: B block (one, shared, when coop), A block, f32 C */
} genie__mm_plan;

/* Dims [0, nd] merge into dim nd with one stride (size-1 dims do not count):
   each stride is the next size times the next stride. */
static int genie__merges(int nd, const int64_t *shape, const int64_t *st, int64_t *merged) {
    int d, q = -1;
    *merged = st[nd];
    for (d = nd; d >= 0; d--) {
        if (shape[d] == 1) continue;
        if (q >= 0 && st[d] != shape[q] * st[q]) return 0;
        if (q < 0) *merged = st[d];
        q = d;
    }
    return 1;
}
static void genie__gemm_transpose(genie__gemm *g) {
    genie__gemm t = *g;
    t.M = g->N; t.N = g->M;
    t.a = g->b; t.adt = g->bdt; t.rsa = g->csb; t.csa = g->rsb;
    t.b = g->a; t.bdt = g->adt; t.rsb = g->csa; t.csb = g->rsa;
    t.rsc = g->csc; t.csc = g->rsc;
    t.epi.bias_rs = g->epi.bias_cs; t.epi.bias_cs = g->epi.bias_rs;
    t.epi.res_rs = g->epi.res_cs; t.epi.res_cs = g->epi.res_rs;
    *g = t;
}
#define GENIE__VDATA(n, i) \
    ((const char *)(n)->in[i].n->buf->data + (n)->in[i].v->off * (int64_t)genie__dt_size[(n)->in[i].n->dtype])

static void genie__mm_plan_matmul(genie__mm_plan *pl, const genie__node *n, const genie__epi_src *es) {
    const genie__vspec *av = n->in[0].v, *bv = n->in[1].v, *ov = n->out, *cv = n->nin > 2 ? n->in[2].v : NULL;
    const genie__vspec *rv = es && es->res ? es->res_v : NULL;
    int nb = ov->ndim - 2, i, fold = 1;
    genie__gemm *g = &pl->g;
    int64_t sh[GENIE__MAXD], st[GENIE__MAXD], ra, ro, rc = 0, rr = 0;
    g->M = ov->shape[nb]; g->N = ov->shape[nb + 1]; g->K = av->shape[nb + 1];
    pl->bin = 1;
    g->a = GENIE__VDATA(n, 0); g->adt = n->in[0].n->dtype; g->rsa = av->strides[nb]; g->csa = av->strides[nb + 1];
    g->b = GENIE__VDATA(n, 1); g->bdt = n->in[1].n->dtype; g->rsb = bv->strides[nb]; g->csb = bv->strides[nb + 1];
    pl->ors = ov->strides[nb];
    pl->ocs = ov->strides[nb + 1];
    if (cv) {
        g->epi.bias = GENIE__VDATA(n, 2);
        g->epi.bias_dt = n->in[2].n->dtype;
        g->epi.bias_rs = cv->strides[nb];
        g->epi.bias_cs = cv->strides[nb + 1];
    }
    if (rv) { /* the residual: an input of the consumer, read through its view of [B.., M, N] */
        g->epi.res = (const char *)es->res->buf->data + rv->off * (int64_t)genie__dt_size[es->res->dtype];
        g->epi.res_dt = es->res->dtype;
        g->epi.res_rs = rv->strides[nb];
        g->epi.res_cs = rv->strides[nb + 1];
    }
    g->epi.act = es ? es->act : 0;
    g->epi.act_last = es ? es->act_last : 0;
    pl->nb = nb;
    for (i = 0; i < nb; i++) {
        pl->bshape[i] = ov->shape[i];
        pl->bst[0][i] = av->strides[i];
        pl->bst[1][i] = bv->strides[i];
        pl->bst[2][i] = rv ? rv->strides[i] : 0;
        pl->bst[3][i] = cv ? cv->strides[i] : 0;
        pl->bst[4][i] = ov->strides[i];
    }
    if (pl->ocs != 1 && pl->ors == 1) { /* C runs down its columns: compute C^T = B^T A^T */
        int64_t t = pl->ors;
        pl->ors = pl->ocs;
        pl->ocs = t;
        genie__gemm_transpose(g);
        pl->bin = 0;
        for (i = 0; i < nb; i++) { t = pl->bst[0][i]; pl->bst[0][i] = pl->bst[1][i]; pl->bst[1][i] = t; }
    }
    if (nb <= 0) return;
    memcpy(sh, pl->bshape, (size_t)nb * 8);
    sh[nb] = g->M;
    for (i = 0; i < nb; i++) fold &= pl->bshape[i] == 1 || pl->bst[1][i] == 0;
    memcpy(st, pl->bst[0], (size_t)nb * 8); st[nb] = g->rsa;
    fold = fold && genie__merges(nb, sh, st, &ra);
    memcpy(st, pl->bst[4], (size_t)nb * 8); st[nb] = pl->ors;
    fold = fold && genie__merges(nb, sh, st, &ro);
    memcpy(st, pl->bst[3], (size_t)nb * 8); st[nb] = g->epi.bias_rs;
    fold = fold && (!cv || genie__merges(nb, sh, st, &rc));
    memcpy(st, pl->bst[2], (size_t)nb * 8); st[nb] = g->epi.res_rs;
    fold = fold && (!rv || genie__merges(nb, sh, st, &rr));
    if (fold) { /* B broadcast over the batches: one product of M * batches rows */
        g->M *= genie__numel(nb, pl->bshape);
        g->rsa = ra;
        pl->ors = ro;
        g->epi.bias_rs = rc;
        g->epi.res_rs = rr;
        pl->nb = 0;
    }
}
/* conv2d: x [N, C, H, W], w [O, C/g, kh, kw] (unit stride over (c, ky, kx) flattened),
   bias [O], out [N, O, Ho, Wo] contiguous, and an epilogue's residual (es) read over out's
   shape with (Ho, Wo) as one dim. 0: a layout does not fit (genie__conv_gemm_ok). */
static int genie__conv_gemm_ok(const genie__node *n, const genie__vspec *rv) {
    const genie__vspec *wv = n->in[1].v, *ov = n->out;
    int64_t wk, rk;
    return genie__merges(2, wv->shape + 1, wv->strides + 1, &wk) && (wk == 1 || wv->shape[1] * wv->shape[2] * wv->shape[3] <= 1) &&
           ov->strides[2] == ov->shape[3] * ov->strides[3] && (!rv || genie__merges(1, rv->shape + 2, rv->strides + 2, &rk));
}
static int genie__mm_plan_conv(genie__mm_plan *pl, const genie__node *n, const genie__epi_src *es) {
    const genie__vspec *xv = n->in[0].v, *wv = n->in[1].v, *ov = n->out, *bv = n->nin > 2 ? n->in[2].v : NULL;
    const genie__vspec *rv = es && es->res ? es->res_v : NULL;
    const int64_t *a = n->a.i;
    genie__gemm *g = &pl->g;
    genie__conv_b *cb = &pl->cb;
    int64_t groups = genie__conv_groups(xv, wv), og = ov->shape[1] / groups, Cg = wv->shape[1], rk = 0;
    if (!genie__conv_gemm_ok(n, rv)) return 0;
    g->M = og; g->N = ov->shape[2] * ov->shape[3]; g->K = Cg * wv->shape[2] * wv->shape[3];
    g->a = GENIE__VDATA(n, 1); g->adt = n->in[1].n->dtype; g->rsa = wv->strides[0]; g->csa = 1;
    cb->x = GENIE__VDATA(n, 0); cb->dt = n->in[0].n->dtype;
    cb->s1 = xv->strides[1]; cb->s2 = xv->strides[2]; cb->s3 = xv->strides[3];
    cb->H = xv->shape[2]; cb->W = xv->shape[3]; cb->KH = wv->shape[2]; cb->KW = wv->shape[3]; cb->Wo = ov->shape[3];
    cb->sy = a[0]; cb->sx = a[1]; cb->py = a[2]; cb->px = a[3]; cb->dy = a[4]; cb->dx = a[5];
    g->cb = cb;
    pl->ors = ov->strides[1];
    pl->ocs = ov->strides[3];
    if (bv) {
        g->epi.bias = GENIE__VDATA(n, 2);
        g->epi.bias_dt = n->in[2].n->dtype;
        g->epi.bias_rs = bv->strides[0];
    }
    if (rv) { /* the residual: rows its channels, columns (Ho, Wo) merged */
        genie__merges(1, rv->shape + 2, rv->strides + 2, &rk);
        g->epi.res = (const char *)es->res->buf->data + rv->off * (int64_t)genie__dt_size[es->res->dtype];
        g->epi.res_dt = es->res->dtype;
        g->epi.res_rs = rv->strides[1];
        g->epi.res_cs = rk;
    }
    g->epi.act = es ? es->act : 0;
    g->epi.act_last = es ? es->act_last : 0;
    pl->nb = 2; /* (image, group) */
    pl->bshape[0] = ov->shape[0]; pl->bshape[1] = groups;
    pl->bst[0][0] = 0; pl->bst[0][1] = og * wv->strides[0];
    pl->bst[1][0] = xv->strides[0]; pl->bst[1][1] = Cg * xv->strides[1];
    pl->bst[2][0] = rv ? rv->strides[0] : 0; pl->bst[2][1] = rv ? og * rv->strides[1] : 0;
    pl->bst[3][0] = 0; pl->bst[3][1] = bv ? og * bv->strides[0] : 0;
    pl->bst[4][0] = ov->strides[0]; pl->bst[4][1] = og * ov->strides[1];
    return 1;
}
/* Skinny products take the unpacked kernels: M <= 16 (or N <= 16, computed
   transposed), operands of the compute dtype with k contiguous in both (dot)
   or rows of B and C contiguous (axpy). Returns the form, 0: packed. */
#define GENIE__SKINNY 16
static int genie__mm_form(const genie__gemm *g, int cdt, int64_t csc) {
    if (g->M > GENIE__SKINNY || g->adt != cdt || g->bdt != cdt) return 0;
    if (g->csa == 1 && g->rsb == 1) return 1;
    if (g->csb == 1 && csc == 1) return 2;
    return 0;
}
static int genie__mm_skinny(genie__mm_plan *pl) {
    int cdt = pl->f64 ? GENIE_F64 : GENIE_F32, form = genie__mm_form(&pl->g, cdt, pl->ocs), i;
    if (!form && pl->g.M > GENIE__SKINNY && pl->g.N <= GENIE__SKINNY) {
        genie__gemm t = pl->g;
        genie__gemm_transpose(&t);
        if ((form = genie__mm_form(&t, cdt, pl->ors)) != 0) {
            int64_t x = pl->ors;
            pl->g = t;
            pl->ors = pl->ocs;
            pl->ocs = x;
            for (i = 0; i < pl->nb; i++) { x = pl->bst[0][i]; pl->bst[0][i] = pl->bst[1][i]; pl->bst[1][i] = x; }
        }
    }
    return form;
}
/* Plan a matmul/linear/conv2d node for nth threads on path cpu; 0: no packed
   kernel fits (integers, the reference path, odd conv weights). */
static int genie__mm_plan_node(genie__mm_plan *pl, const genie__node *n, const genie__node *o,
                               const genie__epi_src *es, genie_cpu cpu, int nth) {
    const genie__gemm_kern *kr;
    int64_t kc, nc, mc;
    size_t esz;
    memset(pl, 0, sizeof *pl);
    if (n->dtype != GENIE_F32 && n->dtype != GENIE_F64 && n->dtype != GENIE_F16 && n->dtype != GENIE_BF16) return 0;
    pl->f64 = n->dtype == GENIE_F64;
    kr = pl->kr = &genie__gemm_kerns[cpu][pl->f64];
    if (!kr->uk) return 0;
    pl->half = !pl->f64 && n->dtype != GENIE_F32;
    pl->odt = n->dtype;
    pl->out = (char *)GENIE__OUT(o) + o->out->off * (int64_t)genie__dt_size[n->dtype];
    if (genie__op_kinds[n->op] == GENIE__K_CONV2D) {
        if (!genie__mm_plan_conv(pl, n, es)) return 0;
    } else {
        genie__mm_plan_matmul(pl, n, es);
    }
    pl->batches = genie__numel(pl->nb, pl->bshape);
    pl->g.epi.cpu = cpu;
    if (!pl->half && !pl->g.cb) pl->skinny = genie__mm_skinny(pl);
    { /* f16/bf16 dot (skinny 3): rows of A converted, B converted in registers; bf16 on
         AVX512_BF16 from 4 rows: bf16 pairs of both, nothing converted. Past the row counts
         below the packed product is faster ([M, 4096] by [4096, 4096]^T, AMD EPYC, 1 thread:
         doth4 at M = 12 2.9 ms, packed 5.0; bf16 pairs at M = 16 2.9, packed 3.8) */
        int bhdot = 0;
#ifdef GENIE__X86
        bhdot = n->dtype == GENIE_BF16 && cpu == GENIE_CPU_AVX512 && genie__bf16dp_runs();
#endif
        if (pl->half && !pl->g.cb && kr->doth && pl->g.M <= (!kr->doth4 ? 4 : bhdot ? GENIE__SKINNY : 12) && pl->g.adt == n->dtype &&
            pl->g.bdt == n->dtype && pl->g.csa == 1 && pl->g.rsb == 1)
            pl->skinny = 3, pl->bh = bhdot && pl->g.M >= 4;
    }
#ifdef GENIE__X86
    if (pl->half && !pl->skinny && !pl->g.cb && pl->g.adt == GENIE_BF16 && pl->g.bdt == GENIE_BF16 &&
        cpu == GENIE_CPU_AVX512 && genie__bf16dp_runs())
        pl->bh = 1, kr = pl->kr = &genie__gemm_kern_bh; /* bf16 pairs, vdpbf16ps */
#endif
    if (pl->half) {
        pl->g.rsc = pl->g.N;
        pl->g.csc = 1;
    } else {
        pl->g.c = pl->out;
        pl->g.rsc = pl->ors;
        pl->g.csc = pl->ocs;
    }
    /* threads share each product, unless there are enough small ones to deal out */
    pl->coop = nth > 1 && !(pl->batches >= 2 * nth && pl->g.M * pl->g.N * pl->g.K <= 192 * 192 * 192 && !pl->g.cb);
    esz = pl->f64 ? 8 : pl->bh ? 2 : 4; /* bf16 pairs: 4 bytes a step of two k */
    kc = pl->g.K < kr->kc ? (pl->g.K > 0 ? pl->g.K : 1) : kr->kc;
    if (pl->bh) kc = genie__round_up(kc, 2);
    nc = GENIE__MIN(kr->nc, genie__round_up(pl->g.N, kr->nr));
    mc = GENIE__MIN(kr->mc, genie__round_up(pl->g.M, kr->mr));
    pl->bsz = (size_t)genie__round_up((GENIE__GEMM_JIT(kr, pl->g.M) ? nth * kr->nr : nc) * kc * (int64_t)esz, 64);
    pl->asz = (size_t)genie__round_up(kc * mc * (int64_t)esz, 64);
    pl->csz = pl->half ? (size_t)genie__round_up(pl->g.M * pl->g.N * 4, 64) : 0;
    return 1;
}
/* ---- the pack cache ----
   A product of M <= MC rows packs each panel of B as it runs (genie__gemm's JIT): for a
   weight that outlives the tape the same packing every step, 1/M of the work (the encoder
   block: 5-9%). The cache keeps such a B in that layout, hung on the weight's buffer
   (genie__buf.pk, a list of up to GENIE__PK_KEYS keys, newest first: q, k and v sliced
   from one buffer, or one weight read in two layouts, are keys of their own): the first
   tape that reads a key marks it (no panels); a later tape, within the context's budget,
   packs its panels once, and every product with that key reads them. A buffer's bytes
   change only when it is freed (genie__buf_free_now) or a value takes it to write into
   (genie__exec's in-place reuse and planned takes): both drop its list. A weight written
   in place every step is marked and dropped in turn, never packed (packing it within the
   tape that marked it would pack once a step, into fresh pages); one made anew every step
   is never seen by two tapes. genie_from_blob memory is kept only when it is a
   safetensors mapping (genie's own, never written); the caller may write other blobs. */
#define GENIE__PK_KEYS 4
typedef struct genie__pk {
    struct genie__pk *next;      /* the buffer's next older key */
    const char *b;               /* the key: B's first element, layout, kernel */
    const genie__gemm_kern *kr;
    int64_t rsb, csb, K, N;
    uint32_t ep;                 /* the tape that marked it */
    void *raw;                   /* NULL: marked, nothing packed */
    float *panels;               /* in raw, 64-byte aligned: genie__gemm.bpk's layout */
    size_t bytes;
} genie__pk;
static void genie__pk_free(genie_ctx *ctx, genie__pk *e) {
    if (e->raw) {
        GENIE_FREE(e->raw);
        ctx->stats.pack_cache_bytes -= e->bytes;
    }
    GENIE_FREE(e);
}
static void genie__pk_drop(genie_ctx *ctx, genie__buf *b) {
    genie__pk *e = b->pk, *next;
    b->pk = NULL;
    for (; e; e = next) {
        next = e->next;
        genie__pk_free(ctx, e);
    }
}
static void genie__stmap_deleter(void *data, void *user); /* >>io: safetensors */
/* Node n's planned product reads B from the cache (pl->g.bpk) when it is an f32 product
   of one block of A, one batch, and B a constant of this tape in genie's own memory that
   an earlier tape marked with this key. Out of memory or budget: B is packed as it runs,
   as without the cache. */
static void genie__pk_bind(genie_ctx *ctx, genie__mm_plan *pl, const genie__node *n) {
    const genie__gemm_kern *kr = pl->kr;
    genie__gemm *g = &pl->g;
    const genie__node *x = n->in[pl->bin].n;
    genie__buf *b = x->buf;
    genie__pk *e, **pe;
    int64_t nkb, kcb, np, q, j;
    int keys = 0;
    size_t bytes;
    if (!ctx->pk_cap || !ctx->tape_ep || pl->f64 || pl->half || pl->bh || pl->skinny || g->cb || pl->nb ||
        g->bdt != GENIE_F32 || !GENIE__GEMM_JIT(kr, g->M) || g->K <= 0 || g->N <= 0 || x->mark == ctx->tape_ep ||
        !b || (b->external && b->deleter != genie__stmap_deleter))
        return; /* x->mark: computed by this tape */
    for (pe = &b->pk; (e = *pe) != NULL; pe = &e->next, keys++)
        if (e->b == g->b && e->kr == kr && e->rsb == g->rsb && e->csb == g->csb && e->K == g->K && e->N == g->N) break;
    if (!e) { /* a new key: a mark (the list full: in place of its oldest) */
        if (keys == GENIE__PK_KEYS) {
            for (pe = &b->pk; (*pe)->next; pe = &(*pe)->next) {}
            genie__pk_free(ctx, *pe);
            *pe = NULL;
        }
        if (!(e = (genie__pk *)GENIE_MALLOC(sizeof *e))) return;
        memset(e, 0, sizeof *e);
        e->b = g->b, e->kr = kr, e->rsb = g->rsb, e->csb = g->csb, e->K = g->K, e->N = g->N, e->ep = ctx->tape_ep;
        e->next = b->pk;
        b->pk = e;
        return;
    }
    /* k-blocks and panels as genie__gemm_s makes them */
    nkb = (g->K + kr->kc - 1) / kr->kc, kcb = (g->K + nkb - 1) / nkb, np = (g->N + kr->nr - 1) / kr->nr;
    if (!e->raw) {
        if (e->ep == ctx->tape_ep) return; /* marked by this tape */
        bytes = (size_t)(nkb * np * kcb * kr->nr) * sizeof(float);
        if (bytes > ctx->pk_cap || ctx->stats.pack_cache_bytes > ctx->pk_cap - bytes || !(e->raw = GENIE_MALLOC(bytes + 64))) return;
        e->panels = (float *)(void *)(((uintptr_t)e->raw + 63) & ~(uintptr_t)63);
        e->bytes = bytes;
        for (q = 0; q < nkb; q++)
            for (j = 0; j < np; j++)
                genie__pack_b_s(g, q * kcb, GENIE__MIN(kcb, g->K - q * kcb), j * kr->nr, GENIE__MIN(kr->nr, g->N - j * kr->nr),
                                kr, e->panels + (q * np + j) * kr->nr * kcb);
        ctx->stats.pack_cache_bytes += bytes;
        ctx->stats.pack_cache_packs++;
    } else {
        ctx->stats.pack_cache_hits++;
    }
    g->bpk = e->panels;
    g->bnp = np;
}
/* The f16/bf16 skinny product (skinny 3): columns of a strip, which the rows of C take in
   turn (with doth4: B's strip of up to 256 KiB stays in L2 for them), and the bytes of a
   thread's workspace: the M rows of A as f32, then the strip's rows of C (four with doth4). */
static int64_t genie__doth_strip(const genie__mm_plan *pl) {
    return pl->kr->doth4 && pl->g.M > 1 ? GENIE__MAX(16, (int64_t)(256 << 10) / (GENIE__MAX(pl->g.K, 1) * 2) / 16 * 16)
                                        : genie__round_up(pl->g.N, 16);
}
static size_t genie__doth_ws(const genie__mm_plan *pl) {
    const int64_t rows = pl->kr->doth4 && pl->g.M >= 4 ? 4 : 1;
    return (size_t)(pl->g.M * genie__round_up(pl->g.K, 16) + rows * genie__doth_strip(pl) + 16) * sizeof(float);
}
static size_t genie__mm_ws_bytes(const genie__mm_plan *pl, int nth) {
    if (pl->skinny == 3) return (size_t)nth * genie__doth_ws(pl);
    if (pl->skinny) return 0;
    return pl->coop ? pl->bsz + (size_t)nth * pl->asz + pl->csz : (size_t)nth * (pl->bsz + pl->asz + pl->csz);
}
/* Batch bi's product: the plan's with every pointer moved to its batch. */
static void genie__mm_setup(const genie__mm_plan *pl, int64_t bi, genie__gemm *g, genie__conv_b *cb, char **out) {
    int64_t off[5] = {0, 0, 0, 0, 0};
    int d, j;
    for (d = pl->nb - 1; d >= 0; d--) {
        int64_t ix = bi % pl->bshape[d];
        bi /= pl->bshape[d];
        for (j = 0; j < 5; j++) off[j] += ix * pl->bst[j][d];
    }
    *g = pl->g;
    *cb = pl->cb;
    g->a += off[0] * (int64_t)genie__dt_size[g->adt];
    if (g->cb) {
        cb->x += off[1] * (int64_t)genie__dt_size[cb->dt];
        g->cb = cb;
    } else {
        g->b += off[1] * (int64_t)genie__dt_size[g->bdt];
    }
    if (g->epi.bias) g->epi.bias += off[3] * (int64_t)genie__dt_size[g->epi.bias_dt];
    if (g->epi.res) g->epi.res += off[2] * (int64_t)genie__dt_size[g->epi.res_dt];
    *out = pl->out + off[4] * (int64_t)genie__dt_size[pl->odt];
    if (!pl->half) g->c = *out;
}
/* Rows [lo, hi) of the f32 workspace C [M, N] into the f16/bf16 result. */
static void genie__mm_store_half(const genie__mm_plan *pl, const genie__gemm *g, char *out, int64_t lo, int64_t hi) {
    const float *c = (const float *)g->c;
    int64_t i, j;
    for (i = lo; i < hi; i++)
        if (pl->ocs == 1) /* a row at a time by the path's conversion (genie__f2h / f2bf's values) */
            genie__hconv(pl->kr->cpu, pl->odt, 1, (uint16_t *)(void *)out + i * pl->ors, c + i * g->N, g->N);
        else
            for (j = 0; j < g->N; j++) genie__stf(out, i * pl->ors + j * pl->ocs, pl->odt, c[i * g->N + j]);
}
static void genie__mm_run(const genie__mm_plan *pl, const genie__gemm *g, char *bb, char *ab, struct genie__tpool *pool,
                          int ith, int nth) {
    if (pl->f64) genie__gemm_d(g, pl->kr, (double *)bb, (double *)ab, pool, ith, nth);
#ifdef GENIE__X86
    else if (pl->bh) genie__gemm_bh(g, pl->kr, (uint32_t *)(void *)bb, (uint32_t *)(void *)ab, pool, ith, nth);
#endif
    else genie__gemm_s(g, pl->kr, (float *)bb, (float *)ab, pool, ith, nth);
}
/* The packed kernel of matmul, linear and conv2d: p->plan, workspace p->ws. */
static genie_result genie__k_gemm(genie__kparams *p, int ith, int nth) {
    const genie__mm_plan *pl = p->plan;
    genie__gemm g;
    genie__conv_b cb;
    char *out;
    int64_t bi, lo, hi;
    if (pl->skinny == 3) { /* f16/bf16: the rows of A as f32 in the workspace; over strips of columns,
                              four rows at a time by doth4 (else one by doth) into f32 rows of C
                              there, the epilogue on them, rounded into the result */
        const genie__gemm_kern *kr = pl->kr;
        const int64_t lx = genie__round_up(pl->g.K, 16), strip = genie__doth_strip(pl);
        float *xa = (float *)(void *)(p->ws + (size_t)ith * genie__doth_ws(pl)), *cw = xa + pl->g.M * lx;
        for (bi = 0; bi < pl->batches; bi++) {
            int64_t i, j, r, rows, c0, c1;
            genie__mm_setup(pl, bi, &g, &cb, &out);
            genie__share((g.N + 15) / 16, ith, nth, &lo, &hi);
            lo *= 16;
            hi = GENIE__MIN(hi * 16, g.N);
            if (lo >= hi) continue;
            for (i = 0; i < g.M && !pl->bh; i++)
                genie__hconv(kr->cpu, pl->odt, 0, xa + i * lx, (const uint16_t *)(const void *)g.a + i * g.rsa, g.K);
            for (c0 = lo; c0 < hi; c0 = c1) {
                const uint16_t *bs = (const uint16_t *)(const void *)g.b + c0 * g.csb;
                c1 = hi - c0 > strip ? c0 + strip : hi;
                for (i = 0; i < g.M; i += rows) {
                    rows = kr->doth4 && i + 4 <= g.M ? 4 : 1;
#ifdef GENIE__X86
                    if (pl->bh) {
                        const uint16_t *ai = (const uint16_t *)(const void *)g.a + i * g.rsa;
                        if (rows == 4) genie__dotbh4_avx512(ai, g.rsa, bs, g.csb, c1 - c0, g.K, cw, strip);
                        else genie__dotbh_avx512(ai, bs, g.csb, c1 - c0, g.K, cw);
                    } else
#endif
                    if (rows == 4) kr->doth4(xa + i * lx, lx, bs, g.csb, c1 - c0, g.K, cw, strip, pl->odt);
                    else kr->doth(xa + i * lx, bs, g.csb, c1 - c0, g.K, cw, pl->odt);
                    for (r = 0; r < rows; r++) {
                        float *cr = cw + r * strip;
                        if (g.epi.bias || g.epi.act || g.epi.res) genie__epi_s(&g.epi, cr, 0, 1, i + r, c0, 1, c1 - c0);
                        if (pl->ocs == 1) genie__hconv(kr->cpu, pl->odt, 1, (uint16_t *)(void *)out + (i + r) * pl->ors + c0, cr, c1 - c0);
                        else
                            for (j = c0; j < c1; j++) genie__stf(out, (i + r) * pl->ors + j * pl->ocs, pl->odt, cr[j - c0]);
                    }
                }
            }
        }
    } else if (pl->skinny) { /* threads take columns of every product; the rows of C take a strip of
                         columns (a strip of B of up to 256 KiB, in L2) in turn, so that B streams
                         from memory once: row by row over all its columns, 8 rows of [1024, 1024]
                         read it 8 times (0.40 ms, one row 0.056) */
        const genie__gemm_kern *kr = pl->kr;
        size_t esz = pl->f64 ? 8 : 4;
        const int64_t strip = pl->g.M > 1 ? GENIE__MAX(16, (int64_t)(256 << 10) / (GENIE__MAX(pl->g.K, 1) * (int64_t)esz) / 16 * 16)
                                          : INT64_MAX;
        /* units of 16 columns of every product, in chunks as threads come free (genie__take:
           a decode step's products are memory-bound, and a lagging core held the other) */
        const int64_t ucols = (pl->g.N + 15) / 16, units = pl->batches * ucols, chunk = genie__chunk(units, nth);
        int64_t u, u1;
        while (genie__take(p, nth, units, chunk, &u, &u1)) {
            for (; u < u1; u = (bi + 1) * ucols) { /* the chunk's part in product bi */
                int64_t i, c0, c1;
                bi = u / ucols;
                genie__mm_setup(pl, bi, &g, &cb, &out);
                lo = (u - bi * ucols) * 16;
                hi = GENIE__MIN((GENIE__MIN(u1, (bi + 1) * ucols) - bi * ucols) * 16, g.N);
                for (c0 = lo; c0 < hi; c0 = c1) {
                    c1 = hi - c0 > strip ? c0 + strip : hi;
                    for (i = 0; i < g.M; i++) {
                        const char *ai = g.a + i * g.rsa * (int64_t)esz;
                        char *ci = g.c + (i * g.rsc + c0 * g.csc) * (int64_t)esz;
                        const int in4 = pl->skinny == 1 && kr->dot4 && i / 4 * 4 + 4 <= g.M; /* in a group of four rows */
                        if (in4 && i % 4 == 0) /* the group's four rows now; their epilogues at their turns */
                            kr->dot4(ai, g.rsa, g.b + c0 * g.csb * (int64_t)esz, g.csb, c1 - c0, g.K, ci, g.rsc, g.csc);
                        else if (!in4 && pl->skinny == 1) kr->dot(ai, g.b + c0 * g.csb * (int64_t)esz, g.csb, c1 - c0, g.K, ci, g.csc);
                        else if (pl->skinny == 2) kr->axpy(ai, g.csa, g.b + c0 * (int64_t)esz, g.rsb, c1 - c0, g.K, ci);
                        if (g.epi.bias || g.epi.act || g.epi.res) {
                            if (pl->f64) genie__epi_d(&g.epi, (double *)ci, g.rsc, g.csc, i, c0, 1, c1 - c0);
                            else genie__epi_s(&g.epi, (float *)ci, g.rsc, g.csc, i, c0, 1, c1 - c0);
                        }
                    }
                }
            }
        }
    } else if (pl->coop) {
        char *bb = p->ws, *ab = p->ws + pl->bsz + (size_t)ith * pl->asz, *cw = p->ws + pl->bsz + (size_t)nth * pl->asz;
        for (bi = 0; bi < pl->batches; bi++) {
            genie__mm_setup(pl, bi, &g, &cb, &out);
            if (pl->half) g.c = cw;
            genie__mm_run(pl, &g, bb, ab, p->pool, ith, nth);
            if (pl->half) { /* every thread's columns are in the workspace before rows are converted */
                genie__barrier(p->pool, nth);
                genie__share(g.M, ith, nth, &lo, &hi);
                genie__mm_store_half(pl, &g, out, lo, hi);
                genie__barrier(p->pool, nth);
            }
        }
    } else {
        char *bb = p->ws + (size_t)ith * (pl->bsz + pl->asz + pl->csz), *ab = bb + pl->bsz, *cw = ab + pl->asz;
        genie__share(pl->batches, ith, nth, &lo, &hi);
        for (bi = lo; bi < hi; bi++) {
            genie__mm_setup(pl, bi, &g, &cb, &out);
            if (pl->half) g.c = cw;
            genie__mm_run(pl, &g, bb, ab, NULL, 0, 1);
            if (pl->half) genie__mm_store_half(pl, &g, out, 0, g.M);
        }
    }
    return GENIE_OK;
}

/* The fast kernel for a node, if it has one: plans it, sizes the threads
   (small work stays on the caller) and the workspace. NULL: the reference.
   Out of memory for the workspace leaves a message in p->msg. */
#define GENIE__MIN_SHARED_WORK (1 << 18) /* multiply-adds below which a product runs on the caller */
#define GENIE__MIN_SHARED_ELEMS (1 << 16) /* elements below which an elementwise pass runs on the caller */
/* The kernel workspace holds at least bytes (64-byte aligned); 0: out of memory. */
static int genie__ws_reserve(genie_ctx *ctx, size_t bytes) {
    char *raw;
    if (bytes <= ctx->ws_size) return 1;
    if (!(raw = (char *)GENIE_MALLOC(bytes + 64))) return 0;
    GENIE_FREE(ctx->ws_raw);
    ctx->ws_raw = raw;
    ctx->ws = (char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    ctx->ws_size = bytes;
    return 1;
}
/* ---- transformer operations (v1): fast kernels ----
   scaled_dot_product_attention, fused (flash-attention style): a task is one
   batch, one key/value head and a tile of query positions, its rows the G =
   Hq/Hkv query heads that share the head times lt positions (so K and V are
   read once for the group: grouped-query decode reads them once per step).
   For each tile of GENIE__ATT_BC keys it computes the scores of its rows, masks
   them, and folds them into a running max m, sum l and output O per row (online
   softmax: O and l are rescaled by exp(m_old - m_new)); the [L, S] scores are
   never formed. Extra memory per thread: O(rows x (BC + E + Ev)), ~200 KiB at
   E = Ev = 64 on AVX-512 (96 rows). Rows of more than four: the GEMM micro-kernel on
   packed tiles (Q scaled once per task, K^T and V per key tile, P = exp(S - m)
   per tile; bf16 q and k on AVX512_BF16: Q and K^T as bf16 pairs, S scaled after); four or fewer (decode): the skinny dot/axpy kernels reading K and
   V in place. exp, max and rescaling are the row kernels' (genie__rowks), so
   compute is f32 (f16/bf16 inputs converted while packing), sums of exp in
   f64. Causal tiles stop at the tile's last position. Tasks are dealt
   round-robin (causal tiles grow along L); with fewer tasks than threads (a
   decode step of few batch x key/value heads) the keys of a task are split
   into whole tiles over the threads and each row combines its splits'
   (m, l, O) after a barrier (flash-decoding). Against the double-precision
   reference (tests/test_llmops.c): f32 |f - r| <= 8e-7 (1 + |r|) measured at
   E <= 128, S <= 1000 (asserted: 4e-6). */
#define GENIE__ATT_BC 128 /* keys per tile: a multiple of every path's NR */
typedef struct genie__attplan {
    genie__attn a;
    const genie__gemm_kern *kr;
    const genie__rowk *rk;
    genie__vfn vadd;
    int dot;                      /* 1: rows one at a time on the dot/axpy kernels */
    const genie__gemm_kern *kbh;  /* bf16 q and k on AVX512_BF16: Q K^T on bf16 pairs, scaled after (or NULL) */
    int64_t lt, nlt, ntask, R, Rp, EvP; /* positions per task, tasks along L, tasks; rows (padded to MR); Ev padded to NR */
    size_t o_qp, o_kp, o_vp, o_sc, o_pp, o_o, o_tmp, o_m, o_l, per_thread; /* workspace of a thread (bytes) */
    size_t p_m, p_l, part;        /* a split's partial rows: O at 0, m at p_m, l at p_l; part bytes in all */
} genie__attplan;
static void genie__att_plan(genie__attplan *pl, const genie__node *n, genie_cpu cpu) {
    const genie__gemm_kern *kr = &genie__gemm_kerns[cpu][0];
    const int64_t br = 8 * (int64_t)kr->mr, BC = GENIE__ATT_BC;
    int64_t E, sz = 0;
    memset(pl, 0, sizeof *pl);
    genie__attn_init(&pl->a, n);
    pl->kr = kr;
    pl->rk = &genie__rowks[cpu];
    pl->vadd = genie__vops[cpu][GENIE__V_ADD];
    pl->lt = pl->a.G >= br ? 1 : br / pl->a.G;
    if (pl->lt > pl->a.L) pl->lt = pl->a.L > 0 ? pl->a.L : 1;
    pl->nlt = (pl->a.L + pl->lt - 1) / pl->lt;
    pl->ntask = pl->a.B * pl->a.Hkv * pl->nlt;
    pl->R = pl->a.G * pl->lt;
    pl->dot = pl->R <= 4;
#ifdef GENIE__X86
    if (!pl->dot && cpu == GENIE_CPU_AVX512 && pl->a.qdt == GENIE_BF16 && pl->a.kdt == GENIE_BF16 && genie__bf16dp_runs())
        pl->kbh = &genie__gemm_kern_bh; /* the same MR x NR as the f32 kernel */
#endif
    pl->Rp = genie__round_up(pl->R, kr->mr);
    pl->EvP = genie__round_up(pl->a.Ev > 0 ? pl->a.Ev : 1, kr->nr);
    E = pl->a.E > 0 ? pl->a.E : 1;
#define GENIE__ATT_BUF(field, floats) pl->field = (size_t)sz; sz += genie__round_up((floats) * 4, 64);
    GENIE__ATT_BUF(o_qp, pl->Rp * E)
    GENIE__ATT_BUF(o_kp, BC * E)
    GENIE__ATT_BUF(o_vp, BC * pl->EvP)
    GENIE__ATT_BUF(o_sc, pl->Rp * BC)
    GENIE__ATT_BUF(o_pp, pl->Rp * BC)
    GENIE__ATT_BUF(o_o, pl->Rp * pl->EvP)
    GENIE__ATT_BUF(o_tmp, pl->EvP)
    GENIE__ATT_BUF(o_m, pl->Rp)
    GENIE__ATT_BUF(o_l, 2 * pl->Rp)
    pl->per_thread = (size_t)sz;
#undef GENIE__ATT_BUF
    pl->p_m = (size_t)genie__round_up(pl->Rp * pl->EvP * 4, 64);
    pl->p_l = pl->p_m + (size_t)genie__round_up(pl->Rp * 4, 64);
    pl->part = pl->p_l + (size_t)genie__round_up(pl->Rp * 8, 64);
}
/* One row's scores s[0..bc) for keys j0.. (position i, mask row at moff):
   mask them, then p = exp(s - m_new) in place; O's row and l scale by
   exp(m_old - m_new). A row with no key taking part yet keeps p = 0. */
static void genie__att_row(const genie__attplan *pl, float *s, int64_t bc, int64_t j0, int64_t i, int64_t moff,
                           float *m, double *l, float *orow) {
    const genie__attn *a = &pl->a;
    const genie__rowk *rk = pl->rk;
    float mt, mold = *m, mnew, alpha;
    int64_t j;
    if (a->causal && i + 1 - j0 < bc)
        for (j = i + 1 - j0 > 0 ? i + 1 - j0 : 0; j < bc; j++) s[j] = -INFINITY;
    if (a->has_mask) {
        int64_t ms = a->v[3]->strides[a->nb + 2], mo = moff + j0 * ms;
        if (a->mdt == GENIE_BOOL) {
            const uint8_t *mb = (const uint8_t *)a->d[3] + mo;
            for (j = 0; j < bc; j++)
                if (!mb[j * ms]) s[j] = -INFINITY;
        } else if (a->mdt == GENIE_F32) {
            const float *mf = (const float *)a->d[3] + mo;
            for (j = 0; j < bc; j++) s[j] += mf[j * ms];
        } else {
            for (j = 0; j < bc; j++) s[j] += (float)genie__ldf(a->d[3], mo + j * ms, a->mdt);
        }
    }
    mt = rk->maxmin(s, bc, 1); /* NaN if the tile has one */
    mnew = (mold != mold || mt < mold) ? mold : mt;
    if (mnew == -INFINITY) { memset(s, 0, (size_t)bc * sizeof(float)); return; }
    alpha = mold == -INFINITY ? 0.0f : expf(mold - mnew);
    *l = *l * (double)alpha + rk->sumexp(s, s, bc, mnew);
    if (alpha != 1.0f) rk->scale(orow, orow, a->Ev, alpha, 0);
    *m = mnew;
}
/* Task t: batch b, key/value head hk, positions [i0, i0 + lt); row r is query
   head hk*G + r/lt at position i0 + r%lt. ws: this thread's workspace. */
/* Row r of task t, its output scaled by 1/l (0 when no key took part), in the output's dtype. */
static void genie__att_store(const genie__attplan *pl, int64_t t, int64_t r, const float *orow, double l) {
    const genie__attn *a = &pl->a;
    const int64_t it = t % pl->nlt, hk = t / pl->nlt % a->Hkv, b = t / (pl->nlt * a->Hkv), i0 = it * pl->lt;
    const int64_t lt = GENIE__MIN(pl->lt, a->L - i0), h = hk * a->G + r / lt, i = i0 + r % lt;
    const int64_t oo = ((b * a->Hq + h) * a->L + i) * a->Ev;
    const float inv = l == 0 ? 0.0f : (float)(1.0 / l);
    int64_t e;
    if (a->odt == GENIE_F32)
        for (e = 0; e < a->Ev; e++) ((float *)(void *)a->o)[oo + e] = orow[e] * inv;
    else { /* f16/bf16: scaled in f32, rounded by the path's array conversion */
        float buf[256];
        int64_t e0, ne;
        for (e0 = 0; e0 < a->Ev; e0 += ne) {
            ne = GENIE__MIN(256, a->Ev - e0);
            for (e = 0; e < ne; e++) buf[e] = orow[e0 + e] * inv;
            genie__hconv(pl->kr->cpu, a->odt, 1, (uint16_t *)(void *)a->o + oo + e0, buf, ne);
        }
    }
}
/* Keys [jlo, jhi) of task t. part NULL: the rows are final and stored; else
   their O (unscaled), m and l go to part (a split of the keys, combined later). */
static void genie__att_task(const genie__attplan *pl, char *ws, int64_t t, int64_t jlo, int64_t jhi, char *part) {
    const genie__attn *a = &pl->a;
    const genie__gemm_kern *kr = pl->kr;
    const genie__vspec *qv = a->v[0], *kv = a->v[1], *vv = a->v[2], *mv = a->v[3];
    const int mr = kr->mr, nr = kr->nr, nb = a->nb;
    const int64_t BC = GENIE__ATT_BC, E = a->E, Ev = a->Ev, EvP = pl->EvP;
    float *qp = (float *)(ws + pl->o_qp), *kp = (float *)(ws + pl->o_kp), *vp = (float *)(ws + pl->o_vp);
    float *sc = (float *)(ws + pl->o_sc), *pp = (float *)(ws + pl->o_pp), *o = (float *)(ws + pl->o_o);
    float *tmp = (float *)(ws + pl->o_tmp), *m = (float *)(ws + pl->o_m);
    double *l = (double *)(void *)(ws + pl->o_l);
    const int64_t it = t % pl->nlt, hk = t / pl->nlt % a->Hkv, b = t / (pl->nlt * a->Hkv), i0 = it * pl->lt;
    const int64_t lt = GENIE__MIN(pl->lt, a->L - i0), R = a->G * lt;
    const int64_t ks = kv->strides[nb + 1], kc = kv->strides[nb + 2], vs = vv->strides[nb + 1], vc = vv->strides[nb + 2];
    const int kf32 = a->kdt == GENIE_F32 && kc == 1, vf32 = a->vdt == GENIE_F32 && vc == 1;
    /* f16/bf16 rows of K and V (contiguous along E): converted by the path's array conversion */
    const int khalf = (a->kdt == GENIE_F16 || a->kdt == GENIE_BF16) && kc == 1;
    const int vhalf = (a->vdt == GENIE_F16 || a->vdt == GENIE_BF16) && vc == 1;
    const uint16_t *kh = (const uint16_t *)(const void *)a->d[1], *vh = (const uint16_t *)(const void *)a->d[2];
    int64_t off[4], kb, vb, send, j0, r, e, c, k;
    genie__attn_batch(a, b, off);
    kb = off[1] + hk * kv->strides[nb];
    vb = off[2] + hk * vv->strides[nb];
    for (r = 0; r < (pl->dot ? R : pl->Rp); r++) { /* Q scaled: rows (dot) or MR-row panels [E][MR] */
        float *dst = pl->dot ? qp + r * E : qp + r / mr * E * mr + r % mr;
        const int64_t step = pl->dot ? 1 : mr;
        if (pl->kbh) { /* bf16 pairs, unscaled: panels [KP(E)][MR] */
            uint32_t *dp = (uint32_t *)(void *)qp + r / mr * GENIE__KP(E, 2) * mr + r % mr;
            const uint16_t *qh = (const uint16_t *)(const void *)a->d[0];
            const int64_t qe = qv->strides[nb + 2];
            int64_t qo = off[0] + (hk * a->G + r / lt) * qv->strides[nb] + (i0 + r % lt) * qv->strides[nb + 1];
            for (e = 0; e < E; e += 2)
                dp[e / 2 * mr] = r >= R ? 0u : (uint32_t)qh[qo + e * qe] | (e + 1 < E ? (uint32_t)qh[qo + (e + 1) * qe] << 16 : 0u);
        } else if (r < R) {
            int64_t qo = off[0] + (hk * a->G + r / lt) * qv->strides[nb] + (i0 + r % lt) * qv->strides[nb + 1];
            for (e = 0; e < E; e++) dst[e * step] = (float)(a->scale * genie__ldf(a->d[0], qo + e * qv->strides[nb + 2], a->qdt));
        } else {
            for (e = 0; e < E; e++) dst[e * step] = 0;
        }
        m[r] = -INFINITY;
        l[r] = 0;
    }
    memset(o, 0, (size_t)pl->Rp * (size_t)EvP * sizeof(float));
    send = a->causal ? GENIE__MIN(jhi, i0 + lt) : jhi; /* keys past the last position are masked for every row */
    for (j0 = jlo; j0 < send; j0 += BC) {
        const int64_t bc = GENIE__MIN(BC, send - j0);
        if (pl->dot) {
            const float *kt = kp, *vt = vp;
            int64_t ldk = E, ldv = Ev;
            if (kf32) {
                kt = (const float *)(const void *)a->d[1] + kb + j0 * ks;
                ldk = ks;
            } else if (khalf) { /* K tile converted to f32 rows [bc][E] */
                for (k = 0; k < bc; k++) genie__hconv(kr->cpu, a->kdt, 0, kp + k * E, kh + kb + (j0 + k) * ks, E);
            } else {
                for (k = 0; k < bc; k++)
                    for (e = 0; e < E; e++) kp[k * E + e] = (float)genie__ldf(a->d[1], kb + (j0 + k) * ks + e * kc, a->kdt);
            }
            for (r = 0; r < R; r++) kr->dot(qp + r * E, kt, ldk, bc, E, sc + r * BC, 1);
            for (r = 0; r < R; r++) {
                int64_t h = hk * a->G + r / lt, i = i0 + r % lt;
                genie__att_row(pl, sc + r * BC, bc, j0, i, a->has_mask ? off[3] + h * mv->strides[nb] + i * mv->strides[nb + 1] : 0,
                               m + r, l + r, o + r * EvP);
            }
            if (vf32) {
                vt = (const float *)(const void *)a->d[2] + vb + j0 * vs;
                ldv = vs;
            } else if (vhalf) {
                for (k = 0; k < bc; k++) genie__hconv(kr->cpu, a->vdt, 0, vp + k * Ev, vh + vb + (j0 + k) * vs, Ev);
            } else {
                for (k = 0; k < bc; k++)
                    for (e = 0; e < Ev; e++) vp[k * Ev + e] = (float)genie__ldf(a->d[2], vb + (j0 + k) * vs + e * vc, a->vdt);
            }
            for (r = 0; r < R; r++) {
                kr->axpy(sc + r * BC, 1, vt, ldv, Ev, bc, tmp);
                pl->vadd(o + r * EvP, o + r * EvP, tmp, Ev);
            }
            continue;
        }
        for (c = 0; c * nr < bc; c++) { /* K^T panels [E][NR] (bf16 pairs: [KP(E)][NR]) */
            const int64_t nn = GENIE__MIN(nr, bc - c * nr), row0 = kb + (j0 + c * nr) * ks;
            float *dst = kp + c * E * nr;
#ifdef GENIE__X86
            if (pl->kbh) {
                genie__pack_pairs(pl->kbh, kh + row0, ks, kc, nn, E, nr, (uint32_t *)(void *)kp + c * GENIE__KP(E, 2) * nr);
                continue;
            }
#endif
            if (kf32 && kr->pack_t) kr->pack_t((const float *)(const void *)a->d[1] + row0, ks, nn, E, nr, dst);
            else if (khalf) genie__pack_half_rows(kr, a->kdt, kh + row0, ks, nn, E, nr, dst);
            else
                for (k = 0; k < nn; k++)
                    for (e = 0; e < E; e++) dst[e * nr + k] = (float)genie__ldf(a->d[1], row0 + k * ks + e * kc, a->kdt);
            for (k = nn; k < nr; k++)
                for (e = 0; e < E; e++) dst[e * nr + k] = 0;
        }
        for (r = 0; r < R; r += mr)
            for (c = 0; c * nr < bc; c++) {
                if (pl->kbh) pl->kbh->uk(GENIE__KP(E, 2), (const uint32_t *)(const void *)qp + r / mr * GENIE__KP(E, 2) * mr,
                                         (const uint32_t *)(const void *)kp + c * GENIE__KP(E, 2) * nr, sc + r * BC + c * nr, BC, 0, NULL);
                else kr->uk(E, qp + r / mr * E * mr, kp + c * E * nr, sc + r * BC + c * nr, BC, 0, NULL);
            }
        for (r = 0; r < R; r++) {
            int64_t h = hk * a->G + r / lt, i = i0 + r % lt;
            if (pl->kbh) pl->rk->scale(sc + r * BC, sc + r * BC, bc, (float)a->scale, 0);
            genie__att_row(pl, sc + r * BC, bc, j0, i, a->has_mask ? off[3] + h * mv->strides[nb] + i * mv->strides[nb + 1] : 0,
                           m + r, l + r, o + r * EvP);
        }
        for (r = 0; r < R; r += mr) { /* P panels [bc][MR] */
            const int64_t rows = GENIE__MIN(mr, R - r);
            float *dst = pp + r / mr * bc * mr;
            if (kr->pack_t) kr->pack_t(sc + r * BC, BC, rows, bc, mr, dst);
            else
                for (k = 0; k < bc; k++)
                    for (e = 0; e < rows; e++) dst[k * mr + e] = sc[(r + e) * BC + k];
            for (k = 0; k < bc; k++)
                for (e = rows; e < mr; e++) dst[k * mr + e] = 0;
        }
        for (c = 0; c * nr < Ev; c++) { /* V panels [bc][NR] */
            const int64_t cols = GENIE__MIN(nr, Ev - c * nr);
            float *dst = vp + c * bc * nr;
            for (k = 0; k < bc; k++) {
                const int64_t row = vb + (j0 + k) * vs + c * nr * vc;
                if (vf32) memcpy(dst + k * nr, (const float *)(const void *)a->d[2] + row, (size_t)cols * sizeof(float));
                else if (vhalf) genie__hconv(kr->cpu, a->vdt, 0, dst + k * nr, vh + row, cols);
                else
                    for (e = 0; e < cols; e++) dst[k * nr + e] = (float)genie__ldf(a->d[2], row + e * vc, a->vdt);
                for (e = cols; e < nr; e++) dst[k * nr + e] = 0;
            }
        }
        for (r = 0; r < R; r += mr)
            for (c = 0; c * nr < Ev; c++) kr->uk(bc, pp + r / mr * bc * mr, vp + c * bc * nr, o + r * EvP + c * nr, EvP, 1, NULL);
    }
    if (part) { /* the split's partial rows: O [Rp][EvP], m [Rp], l [Rp] */
        memcpy(part, o, (size_t)R * (size_t)EvP * sizeof(float));
        memcpy(part + pl->p_m, m, (size_t)R * sizeof(float));
        memcpy(part + pl->p_l, l, (size_t)R * sizeof(double));
        return;
    }
    for (r = 0; r < R; r++) genie__att_store(pl, t, r, o + r * EvP, l[r]);
}
/* Splits of the keys when there are fewer tasks than threads (a decode step with
   few batch x key/value heads): each split a whole number of key tiles. */
static int64_t genie__att_splits(const genie__attplan *pl, int nth) {
    int64_t s = pl->ntask > 0 ? (nth + pl->ntask - 1) / pl->ntask : 1, tiles = (pl->a.S + GENIE__ATT_BC - 1) / GENIE__ATT_BC;
    if (pl->ntask >= nth || tiles < 2) return 1;
    return s < tiles ? s : tiles;
}
static genie_result genie__k_att(genie__kparams *p, int ith, int nth, genie_cpu cpu) {
    genie__attplan pl;
    int64_t t, ns, chunk, lo, hi, x;
    char *ws, *parts;
    genie__att_plan(&pl, p->n, cpu);
    ws = p->ws + (size_t)ith * pl.per_thread;
    ns = genie__att_splits(&pl, nth);
    if (ns <= 1) {
        for (t = ith; t < pl.ntask; t += nth) genie__att_task(&pl, ws, t, 0, pl.a.S, NULL);
        return GENIE_OK;
    }
    /* flash-decoding: (task, split) items, then each row combines its splits:
       M = max m_s, O = sum exp(m_s - M) O_s / sum exp(m_s - M) l_s */
    parts = p->ws + (size_t)nth * pl.per_thread;
    chunk = ((pl.a.S + GENIE__ATT_BC - 1) / GENIE__ATT_BC + ns - 1) / ns * GENIE__ATT_BC;
    for (x = ith; x < pl.ntask * ns; x += nth)
        genie__att_task(&pl, ws, x / ns, x % ns * chunk, GENIE__MIN(pl.a.S, (x % ns + 1) * chunk), parts + (size_t)x * pl.part);
    genie__barrier(p->pool, nth);
    genie__share(pl.ntask * pl.R, ith, nth, &lo, &hi);
    for (x = lo; x < hi; x++) {
        const int64_t r = x % pl.R, t0 = x / pl.R, i0 = t0 % pl.nlt * pl.lt;
        float *acc = (float *)(void *)(ws + pl.o_o), mx = -INFINITY;
        double l = 0;
        int64_t sp, e;
        if (r >= pl.a.G * GENIE__MIN(pl.lt, pl.a.L - i0)) continue; /* a short last tile */
        for (sp = 0; sp < ns; sp++) {
            float ms = *(const float *)(const void *)(parts + (size_t)(t0 * ns + sp) * pl.part + pl.p_m + (size_t)r * sizeof(float));
            if (ms != ms || ms > mx) mx = mx != mx ? mx : ms;
        }
        for (e = 0; e < pl.a.Ev; e++) acc[e] = 0;
        for (sp = 0; sp < ns && mx != -INFINITY; sp++) {
            const char *q = parts + (size_t)(t0 * ns + sp) * pl.part;
            const float ms = *(const float *)(const void *)(q + pl.p_m + (size_t)r * sizeof(float));
            const float w = ms == -INFINITY ? 0.0f : expf(ms - mx);
            const float *os = (const float *)(const void *)q + r * pl.EvP;
            l += w * *(const double *)(const void *)(q + pl.p_l + (size_t)r * sizeof(double));
            for (e = 0; e < pl.a.Ev; e++) acc[e] += w * os[e];
        }
        genie__att_store(&pl, t0, r, acc, l);
    }
    return GENIE_OK;
}
static genie_result genie__k_att_c(genie__kparams *p, int ith, int nth) { return genie__k_att(p, ith, nth, GENIE_CPU_GENERIC); }
static genie_result genie__k_att_avx2(genie__kparams *p, int ith, int nth) { return genie__k_att(p, ith, nth, GENIE_CPU_AVX2); }
static genie_result genie__k_att_avx512(genie__kparams *p, int ith, int nth) { return genie__k_att(p, ith, nth, GENIE_CPU_AVX512); }

/* rope's fast path: a table of cos and sin [T][rd/2] (f32 from double angles; threads
   share positions, then rows), then each row rotated in f32. x may be any view (q or k
   transposed from [T, H, D] to [H, T, D]) of f32, f16 or bf16: a row that is not
   contiguous f32 is loaded into an f32 row of the thread's workspace (f16/bf16:
   exactly), rotated into a second one and stored (f16/bf16: rounded once, as the
   reference rounds its double result; the f32 arithmetic moves a near tie at most). */
static int64_t genie__rope_table(const genie__node *n) { /* floats of the cos and sin table */
    const genie__vspec *xv = n->in[0].v;
    return 2 * xv->shape[xv->ndim - 2] * (n->a.i[0] / 2);
}
static int64_t genie__rope_row(const genie__node *n) { /* floats of a thread's row (a line's multiple) */
    const genie__vspec *xv = n->in[0].v;
    return (xv->shape[xv->ndim - 1] + 15) & ~(int64_t)15;
}
static genie_result genie__k_rope_with(genie_cpu cpu, genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v, *pv = n->in[1].v;
    const int nd = xv->ndim, il = (int)n->a.i[1], dt = n->dtype;
    const int64_t D = xv->shape[nd - 1], T = xv->shape[nd - 2], rd = n->a.i[0], h = rd / 2, xs = xv->strides[nd - 1];
    const int64_t rows = genie__numel(nd - 1, xv->shape), W = genie__rope_row(n);
    float *cs = (float *)(void *)p->ws, *sn = cs + T * h, *xb = cs + genie__rope_table(n) + (size_t)ith * 2 * W, *yb = xb + W;
    const int direct = dt == GENIE_F32 && xs == 1;
    const char *x = (const char *)GENIE__IN(n, 0);
    char *y = (char *)GENIE__OUT(n) + (size_t)n->out->off * genie__dt_size[dt];
    int64_t lo, hi, t, j, r, off0 = xv->off;
    const int64_t *sts = xv->strides;
    genie__mi m;
    genie__share(T, ith, nth, &lo, &hi);
    for (t = lo; t < hi; t++) {
        double pos = (double)genie__ldi(GENIE__IN(n, 1), pv->off + t * pv->strides[0], n->in[1].n->dtype);
        for (j = 0; j < h; j++) {
            double ang = pos * pow(n->a.f[0], -2.0 * (double)j / (double)rd);
            cs[t * h + j] = (float)cos(ang);
            sn[t * h + j] = (float)sin(ang);
        }
    }
    genie__barrier(p->pool, nth);
    genie__share(rows, ith, nth, &lo, &hi);
    genie__mi_init(&m, nd - 1, xv->shape, 1, &sts, &off0, lo);
    for (r = lo; r < hi; r++, genie__mi_next(&m)) {
        const int64_t tr = nd >= 2 ? m.ix[nd - 2] : 0;
        const float *xr = (const float *)(const void *)x + m.off[0], *c = cs + tr * h, *s = sn + tr * h;
        float *yr = direct ? (float *)(void *)y + r * D : yb;
        if (!direct) { /* the row as f32 in xb */
            if (dt == GENIE_F32)
                for (j = 0; j < D; j++) xb[j] = xr[j * xs];
            else if (xs == 1)
                genie__hconv(cpu, dt, 0, xb, (const uint16_t *)(const void *)x + m.off[0], D);
            else {
                uint16_t *hb = (uint16_t *)(void *)yb; /* yb is free until the rotation */
                for (j = 0; j < D; j++) hb[j] = ((const uint16_t *)(const void *)x)[m.off[0] + j * xs];
                genie__hconv(cpu, dt, 0, xb, hb, D);
            }
            xr = xb;
        }
        if (il)
            for (j = 0; j < h; j++) {
                const float x0 = xr[2 * j], x1 = xr[2 * j + 1];
                yr[2 * j] = x0 * c[j] - x1 * s[j];
                yr[2 * j + 1] = x1 * c[j] + x0 * s[j];
            }
        else
            for (j = 0; j < h; j++) {
                const float x0 = xr[j], x1 = xr[j + h];
                yr[j] = x0 * c[j] - x1 * s[j];
                yr[j + h] = x1 * c[j] + x0 * s[j];
            }
        if (rd < D) memcpy(yr + rd, xr + rd, (size_t)(D - rd) * sizeof(float));
        if (dt == GENIE_F32 && !direct) memcpy((float *)(void *)y + r * D, yb, (size_t)D * sizeof(float));
        else if (dt != GENIE_F32) genie__hconv(cpu, dt, 1, (uint16_t *)(void *)y + r * D, yb, D);
    }
    return GENIE_OK;
}
static genie_result genie__k_rope_fast(genie__kparams *p, int ith, int nth) { return genie__k_rope_with(GENIE_CPU_GENERIC, p, ith, nth); }
#ifdef GENIE__X86
static genie_result genie__k_rope_avx2(genie__kparams *p, int ith, int nth) { return genie__k_rope_with(GENIE_CPU_AVX2, p, ith, nth); }
static genie_result genie__k_rope_avx512(genie__kparams *p, int ith, int nth) { return genie__k_rope_with(GENIE_CPU_AVX512, p, ith, nth); }
#endif

/* index_copy_ where the dims after d are one dense block in both the
   destination and the source (a KV cache written at positions): one memcpy
   per (outer position, index). */
static int genie__ic_inner(const genie__node *n, int64_t *inner) {
    const genie__vspec *ov = n->out, *cv = n->in[1].v;
    int d = (int)n->a.i[0], k;
    int64_t expect = 1;
    if (ov->ndim == 0 || ov->ndim != cv->ndim || n->dtype != n->in[1].n->dtype) return 0;
    for (k = ov->ndim - 1; k > d; k--) {
        if (ov->shape[k] == 1) continue;
        if (ov->strides[k] != expect || cv->strides[k] != expect) return 0;
        expect *= ov->shape[k];
    }
    *inner = expect;
    return 1;
}
static genie_result genie__k_index_copy_fast(genie__kparams *p, int ith, int nth) {
    genie__node *n = p->n;
    const genie__vspec *xv = n->in[0].v, *cv = n->in[1].v, *ov = n->out;
    const int d = (int)n->a.i[0];
    const size_t esz = genie__dt_size[n->dtype];
    int64_t inner = 1, ni = genie__numel(xv->ndim, xv->shape), outer = genie__numel(d, ov->shape), o, j, offs[2];
    const int64_t *stp[2];
    genie__mi m;
    genie_result r;
    (void)nth;
    if (ith != 0) return GENIE_OK;
    if ((r = genie__ic_check(p, ov->shape[d])) != GENIE_OK) return r;
    genie__ic_inner(n, &inner);
    stp[0] = ov->strides; stp[1] = cv->strides;
    offs[0] = ov->off; offs[1] = cv->off;
    genie__mi_init(&m, d, ov->shape, 2, stp, offs, 0);
    for (o = 0; o < outer; o++, genie__mi_next(&m))
        for (j = 0; j < ni; j++) {
            int64_t idx = genie__ldi(GENIE__IN(n, 0), xv->off + (xv->ndim ? j * xv->strides[0] : 0), n->in[0].n->dtype);
            memcpy((char *)GENIE__OUT(n) + (size_t)(m.off[0] + idx * ov->strides[d]) * esz,
                   (const char *)GENIE__IN(n, 1) + (size_t)(m.off[1] + j * cv->strides[d]) * esz, (size_t)inner * esz);
        }
    return GENIE_OK;
}

/* The fast kernel of a transformer operation on ctx's path, its threads and
   workspace; NULL: the reference (the reference path, other dtypes, layouts). */
static genie__kernel genie__llm_fast_kernel(genie_ctx *ctx, genie__kparams *p, int *nth) {
    const genie__node *n = p->n;
    int kind = genie__op_kinds[n->op];
    genie_cpu cpu = ctx->cpu;
    *nth = 1;
    if (cpu < GENIE_CPU_GENERIC || cpu >= GENIE_CPU_COUNT || !genie__rowks[cpu].sum || n->numel == 0) return NULL;
    if (kind == GENIE__K_INDEX_COPY) {
        int64_t inner;
        return genie__ic_inner(n, &inner) ? genie__k_index_copy_fast : NULL;
    }
    if (kind == GENIE__K_ROPE) {
        const genie__vspec *xv = n->in[0].v;
        if ((n->dtype != GENIE_F32 && n->dtype != GENIE_F16 && n->dtype != GENIE_BF16) || n->in[0].n->dtype != n->dtype ||
            xv->ndim < 2 || !genie__is_contig(n->out->ndim, n->out->shape, n->out->strides)) return NULL;
        p->pool = genie__tpool_get(ctx, n->numel >= GENIE__MIN_SHARED_ELEMS ? genie__ctx_threads(ctx) : 1);
        *nth = genie__tpool_size(p->pool);
        if (!genie__ws_reserve(ctx, (size_t)(genie__rope_table(n) + 2 * genie__rope_row(n) * *nth + 2) * sizeof(float))) goto oom;
        p->ws = ctx->ws;
#ifdef GENIE__X86
        if (cpu == GENIE_CPU_AVX512) return genie__k_rope_avx512;
        if (cpu == GENIE_CPU_AVX2) return genie__k_rope_avx2;
#endif
        return genie__k_rope_fast;
    }
    if (kind == GENIE__K_ATTENTION) {
        genie__attplan pl;
        int64_t work, splits;
        if (n->dtype != GENIE_F32 && n->dtype != GENIE_F16 && n->dtype != GENIE_BF16) return NULL;
        genie__att_plan(&pl, n, cpu);
        if (!pl.kr->uk || !pl.vadd || pl.ntask <= 0) return NULL;
        work = pl.a.B * pl.a.Hq * pl.a.L * pl.a.S * (pl.a.E + pl.a.Ev);
        p->pool = genie__tpool_get(ctx, work >= GENIE__MIN_SHARED_WORK ? genie__ctx_threads(ctx) : 1);
        *nth = genie__tpool_size(p->pool);
        if (*nth > pl.ntask * ((pl.a.S + GENIE__ATT_BC - 1) / GENIE__ATT_BC)) /* at most a task per key tile */
            *nth = (int)(pl.ntask > 0 && pl.a.S > 0 ? GENIE__MIN(*nth, pl.ntask * ((pl.a.S + GENIE__ATT_BC - 1) / GENIE__ATT_BC)) : 1);
        splits = genie__att_splits(&pl, *nth);
        if (!genie__ws_reserve(ctx, pl.per_thread * (size_t)*nth + (splits > 1 ? (size_t)(pl.ntask * splits) * pl.part : 0))) goto oom;
        p->ws = ctx->ws;
#ifdef GENIE__X86
        if (cpu == GENIE_CPU_AVX512) return genie__k_att_avx512;
        if (cpu == GENIE_CPU_AVX2) return genie__k_att_avx2;
#endif
        return genie__k_att_c;
    }
    return NULL;
oom:
    snprintf(p->msg, sizeof p->msg, "%s: out of memory for the kernel's workspace", genie__op_names[n->op]);
    *nth = 1;
    return NULL;
}

/* fn, on the context's threads when work (elements) is large enough to share. */
static genie__kernel genie__shared_kernel(genie_ctx *ctx, genie__kparams *p, int *nth, int64_t work, genie__kernel fn) {
    if (work >= GENIE__V_MIN_SHARED) {
        p->pool = genie__tpool_get(ctx, genie__ctx_threads(ctx));
        *nth = genie__tpool_size(p->pool);
    }
    return fn;
}
static genie__kernel genie__fast_kernel(genie_ctx *ctx, genie__kparams *p, int *nth) {
    const genie__node *n = p->epi ? p->epi->prod : p->n; /* the product; p->n receives it */
    int kind = genie__op_kinds[n->op];
    int64_t depth;
    genie__kernel fn;
    *nth = 1;
    if ((fn = genie__fast_rowwise(ctx, p, nth)) != NULL) return fn;
    if (kind == GENIE__K_ATTENTION || kind == GENIE__K_ROPE || kind == GENIE__K_INDEX_COPY) return genie__llm_fast_kernel(ctx, p, nth);
    if (kind == GENIE__K_UNARY || kind == GENIE__K_BINARY || kind == GENIE__K_COPY || kind == GENIE__K_FULL)
        return genie__v_fast_kernel(ctx, p, nth);
    if (kind == GENIE__K_CAT && !p->epi && n->buf && ctx->cpu >= GENIE_CPU_GENERIC)
        return genie__shared_kernel(ctx, p, nth, n->numel, ctx->cpu >= GENIE_CPU_AVX2 ? genie__k_cat_avx2 : genie__k_cat_fast);
    if (kind == GENIE__K_REDUCE && !p->epi && n->buf && genie__reduce_int_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->in[0].n->numel, GENIE__BY_PATH(ctx->cpu, genie__k_reduce_int));
    if (kind == GENIE__K_REDUCE && !p->epi && n->buf && genie__reduce_cols_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->in[0].n->numel, GENIE__BY_PATH(ctx->cpu, genie__k_reduce_cols));
    if ((kind == GENIE__K_REDUCE || kind == GENIE__K_ARGREDUCE || kind == GENIE__K_SOFTMAX || kind == GENIE__K_LAYER_NORM) &&
        n->buf && (fn = genie__fast_grows(ctx, p, nth)) != NULL) return fn;
    if (kind == GENIE__K_ARGREDUCE && (fn = genie__fast_argdense(ctx, p, nth)) != NULL) return fn;
    if (kind == GENIE__K_SOFTMAX && !p->epi && n->buf && genie__softmax_f64_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->numel, genie__k_softmax_f64);
    if (kind == GENIE__K_CUMSUM && !p->epi && n->buf && genie__cumsum_fast_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->numel, GENIE__BY_PATH(ctx->cpu, genie__k_cumsum_fast));
    if (kind == GENIE__K_SORT && !p->epi && n->buf && genie__sort_fast_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->in[0].n->numel, genie__k_sort_fast);
    if (kind == GENIE__K_SORT && !p->epi && n->buf && genie__sort_int_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->in[0].n->numel, genie__k_sort_int);
    if (kind == GENIE__K_INDEX && !p->epi && n->buf && genie__index_rows_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->numel, genie__k_index_rows);
    if (kind == GENIE__K_INDEX && !p->epi && n->buf && genie__gather_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->numel, genie__k_gather);
    if (kind == GENIE__K_SCATTER && !p->epi && n->buf && genie__scatter_ok(n, ctx->cpu)) return genie__k_scatter_fast;
    if (kind == GENIE__K_TRI && !p->epi && n->buf && genie__tri_rows_ok(n, ctx->cpu))
        return genie__shared_kernel(ctx, p, nth, n->numel, ctx->cpu >= GENIE_CPU_AVX2 ? genie__k_tri_rows_avx2 : genie__k_tri_rows);
    if ((kind != GENIE__K_MATMUL && kind != GENIE__K_CONV2D) || ctx->cpu == GENIE_CPU_REFERENCE || n->numel == 0) return NULL;
    if (!ctx->mm_plan && !(ctx->mm_plan = (genie__mm_plan *)GENIE_MALLOC(sizeof(genie__mm_plan)))) goto oom;
    depth = kind == GENIE__K_CONV2D ? genie__numel(3, n->in[1].v->shape + 1) : n->in[0].v->shape[n->in[0].v->ndim - 1];
    p->pool = genie__tpool_get(ctx, n->numel * depth >= GENIE__MIN_SHARED_WORK ? genie__ctx_threads(ctx) : 1);
    *nth = genie__tpool_size(p->pool);
    if (!genie__mm_plan_node(ctx->mm_plan, n, p->n, p->epi, ctx->cpu, *nth)) {
        *nth = 1;
        p->pool = NULL;
        return NULL;
    }
    if (!genie__ws_reserve(ctx, genie__mm_ws_bytes(ctx->mm_plan, *nth))) goto oom;
    genie__pk_bind(ctx, ctx->mm_plan, n);
    p->plan = ctx->mm_plan;
    p->ws = ctx->ws;
    return genie__k_gemm;
oom:
    snprintf(p->msg, sizeof p->msg, "%s: out of memory for the product's workspace", genie__op_names[n->op]);
    *nth = 1;
    return NULL;
}

/* >>threads --------------------------------------------------------------- */
/* A pool per context: persistent workers started on first need. A job runs
   fn(p, ith, nth) on the caller (ith 0) and nth-1 workers; workers spin a
   while before sleeping, so the kernels of one tape wake them cheaply. Jobs too
   small to share run on the caller alone: no wake-up, no barrier. */
#if defined(_MSC_VER)
#define GENIE__LOAD(x) _InterlockedOr((volatile long *)(x), 0)
#define GENIE__STORE(x, v) _InterlockedExchange((volatile long *)(x), (v))
#define GENIE__ADD(x, v) _InterlockedExchangeAdd((volatile long *)(x), (v)) /* returns the old value */
#define GENIE__PAUSE() YieldProcessor()
#else
#define GENIE__LOAD(x) __atomic_load_n(x, __ATOMIC_ACQUIRE)
#define GENIE__STORE(x, v) __atomic_store_n(x, v, __ATOMIC_RELEASE)
#define GENIE__ADD(x, v) __atomic_fetch_add(x, v, __ATOMIC_ACQ_REL)
#ifdef GENIE__X86
#define GENIE__PAUSE() __builtin_ia32_pause()
#else
#define GENIE__PAUSE() ((void)0)
#endif
#endif
#define GENIE__SPINS 20000 /* pause loops (~1 ms) before a worker sleeps */

static int genie__ncpu(void) {
#if defined(GENIE_NO_THREADS)
    return 1;
#elif defined(_WIN32)
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (int)si.dwNumberOfProcessors;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
#endif
}
/* The threads a context runs with: n_threads, 0 = all cores. */
#define GENIE__MAX_THREADS 256 /* more asked for (genie_set_num_threads(ctx, INT_MAX)) is this many */
static int genie__ctx_threads(const genie_ctx *ctx) {
    int n = ctx->n_threads ? ctx->n_threads : genie__ncpu();
#ifdef GENIE_NO_THREADS
    n = 1;
#endif
    return n < 1 ? 1 : n > GENIE__MAX_THREADS ? GENIE__MAX_THREADS : n;
}

#ifdef GENIE_NO_THREADS
struct genie__tpool { int unused; };
static void genie__barrier(struct genie__tpool *pool, int nth) { (void)pool; (void)nth; }
static struct genie__tpool *genie__tpool_get(genie_ctx *ctx, int nth) { (void)ctx; (void)nth; return NULL; }
static void genie__tpool_destroy(struct genie__tpool *pool) { (void)pool; }
static genie_result genie__tpool_run(struct genie__tpool *pool, genie__kernel fn, genie__kparams *p, int nth) {
    (void)pool; (void)nth;
    return fn(p, 0, 1);
}
static int genie__tpool_size(const struct genie__tpool *pool) { (void)pool; return 1; }
#else
#ifdef _WIN32
typedef HANDLE genie__thread;
typedef SRWLOCK genie__mutex;
typedef CONDITION_VARIABLE genie__cond;
#define genie__mutex_init(m) InitializeSRWLock(m)
#define genie__mutex_destroy(m) ((void)(m))
#define genie__lock(m) AcquireSRWLockExclusive(m)
#define genie__unlock(m) ReleaseSRWLockExclusive(m)
#define genie__cond_init(c) InitializeConditionVariable(c)
#define genie__cond_destroy(c) ((void)(c))
#define genie__cond_wait(c, m) SleepConditionVariableSRW(c, m, INFINITE, 0)
#define genie__cond_broadcast(c) WakeAllConditionVariable(c)
#define genie__yield() SwitchToThread()
#else
typedef pthread_t genie__thread;
typedef pthread_mutex_t genie__mutex;
typedef pthread_cond_t genie__cond;
#define genie__mutex_init(m) pthread_mutex_init(m, NULL)
#define genie__mutex_destroy(m) pthread_mutex_destroy(m)
#define genie__lock(m) pthread_mutex_lock(m)
#define genie__unlock(m) pthread_mutex_unlock(m)
#define genie__cond_init(c) pthread_cond_init(c, NULL)
#define genie__cond_destroy(c) pthread_cond_destroy(c)
#define genie__cond_wait(c, m) pthread_cond_wait(c, m)
#define genie__cond_broadcast(c) pthread_cond_broadcast(c)
#define genie__yield() sched_yield()
#endif

/* Windows starts a thread with the default floating-point state, not its creator's as POSIX
   threads do: workers take the pool creator's x87 control word and MXCSR, so a kernel gives
   the same numbers on every thread (mingw's libm sin/cos of |x| >= 2^63 follow the x87
   precision, which the CRT sets to 64 bits on the main thread only). */
#if defined(_WIN32) && defined(GENIE__X86)
#define GENIE__FPENV 1
typedef struct genie__fpenv { unsigned short cw; unsigned int csr; } genie__fpenv;
static void genie__fpenv_get(genie__fpenv *e) {
    __asm__ __volatile__("fnstcw %0" : "=m"(e->cw));
    e->csr = __builtin_ia32_stmxcsr();
}
static void genie__fpenv_set(const genie__fpenv *e) {
    __asm__ __volatile__("fldcw %0" : : "m"(e->cw));
    __builtin_ia32_ldmxcsr(e->csr);
}
#endif

typedef struct genie__worker {
    struct genie__tpool *pool;
    int ith;
} genie__worker;
struct genie__tpool {
    int nworkers;
    genie__thread *th;
    genie__worker *w;
    genie__mutex mu;
    genie__cond wake, done;
    int gen, stop, pending;    /* atomics: job generation, shutdown, workers still in the job */
    int bar_count, bar_gen;    /* atomics: the barrier */
    int nth;                   /* threads in the current job */
    genie__kernel fn;
    genie__kparams *p;
#ifdef GENIE__FPENV
    genie__fpenv fpenv;        /* the creator's floating-point state, for the workers */
#endif
};

/* All nth threads of a job meet here (sense by generation). */
static void genie__barrier(struct genie__tpool *pool, int nth) {
    int g, spins = 0;
    if (nth <= 1 || !pool) return;
    g = GENIE__LOAD(&pool->bar_gen);
    if (GENIE__ADD(&pool->bar_count, 1) == nth - 1) {
        GENIE__STORE(&pool->bar_count, 0);
        GENIE__ADD(&pool->bar_gen, 1);
        return;
    }
    while (GENIE__LOAD(&pool->bar_gen) == g) {
        if (++spins < GENIE__SPINS) GENIE__PAUSE();
        else genie__yield();
    }
}
#ifdef _WIN32
static DWORD WINAPI genie__worker_main(LPVOID arg) {
#else
static void *genie__worker_main(void *arg) {
#endif
    genie__worker *w = (genie__worker *)arg;
    struct genie__tpool *pool = w->pool;
    int seen = 0;
#ifdef GENIE__FPENV
    genie__fpenv_set(&pool->fpenv);
#endif
    for (;;) {
        int g, spins = 0;
        while ((g = GENIE__LOAD(&pool->gen)) == seen && !GENIE__LOAD(&pool->stop)) {
            if (++spins < GENIE__SPINS) {
                GENIE__PAUSE();
                continue;
            }
            genie__lock(&pool->mu);
            while (GENIE__LOAD(&pool->gen) == seen && !GENIE__LOAD(&pool->stop)) genie__cond_wait(&pool->wake, &pool->mu);
            genie__unlock(&pool->mu);
        }
        if (GENIE__LOAD(&pool->stop)) break;
        seen = g;
        if (w->ith < pool->nth) pool->fn(pool->p, w->ith, pool->nth);
        if (GENIE__ADD(&pool->pending, -1) == 1) {
            genie__lock(&pool->mu);
            genie__cond_broadcast(&pool->done);
            genie__unlock(&pool->mu);
        }
    }
    return 0;
}
static void genie__tpool_destroy(struct genie__tpool *pool) {
    int i;
    if (!pool) return;
    genie__lock(&pool->mu);
    GENIE__STORE(&pool->stop, 1);
    genie__cond_broadcast(&pool->wake);
    genie__unlock(&pool->mu);
    for (i = 0; i < pool->nworkers; i++) {
#ifdef _WIN32
        WaitForSingleObject(pool->th[i], INFINITE);
        CloseHandle(pool->th[i]);
#else
        pthread_join(pool->th[i], NULL);
#endif
    }
    genie__cond_destroy(&pool->wake);
    genie__cond_destroy(&pool->done);
    genie__mutex_destroy(&pool->mu);
    GENIE_FREE(pool->th);
    GENIE_FREE(pool->w);
    GENIE_FREE(pool);
}
/* The context's pool with nth - 1 workers, started now if needed; NULL when
   nth is 1 or threads cannot be had (the caller then runs alone). */
static struct genie__tpool *genie__tpool_get(genie_ctx *ctx, int nth) {
    struct genie__tpool *pool = ctx->tpool;
    int i;
    if (nth <= 1) return NULL;
    if (pool && pool->nworkers == nth - 1) return pool;
    genie__tpool_destroy(pool);
    ctx->tpool = NULL;
    pool = (struct genie__tpool *)GENIE_MALLOC(sizeof *pool);
    if (!pool) return NULL;
    memset(pool, 0, sizeof *pool);
    pool->th = (genie__thread *)GENIE_MALLOC(sizeof(genie__thread) * (size_t)(nth - 1));
    pool->w = (genie__worker *)GENIE_MALLOC(sizeof(genie__worker) * (size_t)(nth - 1));
    if (!pool->th || !pool->w) {
        GENIE_FREE(pool->th);
        GENIE_FREE(pool->w);
        GENIE_FREE(pool);
        return NULL;
    }
    genie__mutex_init(&pool->mu);
    genie__cond_init(&pool->wake);
    genie__cond_init(&pool->done);
#ifdef GENIE__FPENV
    genie__fpenv_get(&pool->fpenv);
#endif
    for (i = 0; i < nth - 1; i++) {
        pool->w[i].pool = pool;
        pool->w[i].ith = i + 1;
#ifdef _WIN32
        pool->th[i] = CreateThread(NULL, 0, genie__worker_main, &pool->w[i], 0, NULL);
        if (!pool->th[i]) break;
#else
        if (pthread_create(&pool->th[i], NULL, genie__worker_main, &pool->w[i]) != 0) break;
#endif
        pool->nworkers++;
    }
    if (pool->nworkers == 0) {
        genie__tpool_destroy(pool);
        return NULL;
    }
    ctx->tpool = pool;
    return pool;
}
static int genie__tpool_size(const struct genie__tpool *pool) { return pool ? pool->nworkers + 1 : 1; }
/* Run fn on min(nth, 1 + workers) threads and wait for all of them; returns
   the caller's result (kernels that fail do so on thread 0). */
static genie_result genie__tpool_run(struct genie__tpool *pool, genie__kernel fn, genie__kparams *p, int nth) {
    genie_result r;
    int spins = 0;
    if (!pool || nth <= 1) return fn(p, 0, 1);
    pool->fn = fn;
    pool->p = p;
    pool->nth = nth;
    GENIE__STORE(&pool->pending, pool->nworkers);
    genie__lock(&pool->mu);
    GENIE__ADD(&pool->gen, 1);
    genie__cond_broadcast(&pool->wake);
    genie__unlock(&pool->mu);
    r = fn(p, 0, nth);
    while (GENIE__LOAD(&pool->pending) > 0) {
        if (++spins < GENIE__SPINS) {
            GENIE__PAUSE();
            continue;
        }
        genie__lock(&pool->mu);
        while (GENIE__LOAD(&pool->pending) > 0) genie__cond_wait(&pool->done, &pool->mu);
        genie__unlock(&pool->mu);
    }
    return r;
}
#endif /* GENIE_NO_THREADS */

/* >>fuse ------------------------------------------------------------------ */
/* Fusion groups as data. A group is a tree of elementwise f32 nodes over one
   iteration space, each inner node read in this tape only by its consumer in
   the group: it runs as one pass over tiles. The root is written, and so is an
   inner node that a live handle or a later realize can still read (references
   beyond the tape's); one that nothing can read is never written. The IR is
   plain data: inputs (a buffer read through a view over the space), ops (each
   fills a tile register from its operands), and the outputs' views; the CPU
   executes it tile by tile, and another backend can generate a kernel from
   the same struct.
   Row groups: a row op (genie__row_centre: an f32 reduction over trailing
   dims, argreduce, softmax, log_softmax, layer_norm) is the centre of a group
   of three parts, in ops[] order:
     ops[0, row)        the prologue: elementwise over space 0 (shape[], the
                        row op's input, rows of len elements in row-major
                        order), the last one the row op's input;
     ops[row]           the row op: x its input (a register of the prologue, or
                        an input of space 0), y and z layer_norm's weight and
                        bias (inputs of space 2: len contiguous elements) or
                        GENIE__FNONE; its value is written like any node's;
     ops[row + 1, nops) the epilogue: elementwise over space 1 (oshape[], the
                        row op's output: [rows] for reductions, [rows, len]
                        otherwise), operand `row` the row op's value.
   An argreduce (int64 indices) takes a prologue only. The CPU runs a block of
   rows at a time: the prologue tile by tile into a row register, the row op on
   each row (the row kernels' primitives), then the epilogue tile by tile over
   the block's outputs: one pass over memory for the whole group.
   Column groups (col, the CPU's only): the centre is a sum, mean, amax, amin,
   prod, var, std, logsumexp or argreduce (a prologue only, as in row groups) whose
   kept dims end in a unit-stride run (genie__col_centre); space 0 is
   [outer, rows, len]: the kept dims before the run, the reduced ones, the run
   (the centre's input view with its dims so ordered), space 1 the [outer, len]
   results. The CPU runs a block of kept positions at a time down all rows:
   each row's segment computed by the prologue and added to the block's
   accumulators as the column kernel adds them, then the epilogue over the
   block's results.
   Segmented groups (col 2, the CPU's only): the centre is a reduction or argreduce
   (as a column group's) whose reduced dims are several runs (genie__seg_centre) and
   whose input the prologue computes; space 0 is the centre's input view (rows: the kept
   positions, len: the reduced ones), dims merged where every view allows
   (genie__fgroup_merge0); outer: the runs' length. The CPU runs a block of rows
   down the runs (genie__k_sfused), then the epilogue over the block's results. Node
   pointers are only in root, nodes[] and src[], scalars only in ops[].a, so a
   cached group is rebound by rewriting those. */
#define GENIE__FMAX_OPS 32   /* ops of a group (a longer chain is several groups) */
GENIE__STATIC_ASSERT(fmax_ops_bits, GENIE__FMAX_OPS <= 32); /* genie__fpass keeps a bit an op */
#define GENIE__FMAX_IN 16    /* distinct inputs of a group */
#define GENIE__FTILE 512     /* elements of a tile: a register of a group fits L1 */
#define GENIE__FSCALAR INT16_MIN
#define GENIE__FNONE INT16_MAX /* no operand */
#define GENIE__FROW_MAX (1 << 16) /* longest row of a row group (two row registers a thread, four with f16/bf16
                                     layer_norm weights: 512 KiB or 1 MiB) */
typedef struct genie__fin {  /* element i of its space at data[off + sum_d idx_d * st[d]] */
    const char *data;
    int dt, contig;          /* contig: st are the space's row-major strides */
    int sp;                  /* its space: 0, 1 (a row group's output), 2 (a row operand: data[off + j], j < len) */
    int ldt;                 /* an input's: the dtype it is loaded as (its readers' compute dtype: a wider value
                                rounded to it, as the reference loads it) */
    int64_t off, st[GENIE__MAXD];
} genie__fin;
typedef struct genie__fop {
    uint16_t op;
    int16_t x, y, z;         /* operands: >= 0 the register of op x; < 0 input -1-x; y may be GENIE__FSCALAR; z: row ops only */
    uint8_t vb;              /* vk's operand b: 0 none, 1 y, 2 &a.f[0] (the scalar, pow's exponent) */
    uint8_t dt;              /* its node's dtype: the value's, held in f32 (rounded to dt where g->rnd says) */
    genie__vfn vk;           /* the array kernel that runs it on the group's path, set as the group runs
                                (genie__fop_bind); NULL: genie__fop_run's general forms */
    genie__args a;           /* the scalar (f[0]) and clamp's bounds; a row op's arguments */
} genie__fop;
typedef struct genie__fgroup {
    int nd, nin, nops, cdt;  /* cdt: the root's compute dtype (genie__fdt); registers hold f32 */
    uint32_t rnd;            /* bit j: op j's value is rounded to ops[j].dt in its register (genie__fgroup_rnd) */
    genie_cpu cpu;           /* the path whose array kernels run the ops (set when it runs) */
    int64_t shape[GENIE__MAXD], total; /* space 0 */
    int row, ond;            /* row groups: ops[row] is the row op (-1: none); space 1 is oshape[ond] */
    int col;                 /* 1: a column group, space 0 as [outer, rows reduced, len kept]; 2: segmented */
    int64_t outer;
    int64_t oshape[GENIE__MAXD], ototal, rows, len; /* row groups: space 0 as [rows, len] */
    genie__fin in[GENIE__FMAX_IN];
    genie__fop ops[GENIE__FMAX_OPS];
    genie__fin out[GENIE__FMAX_OPS]; /* where op j's value is written (buffer set when it runs) */
    uint8_t written[GENIE__FMAX_OPS]; /* 1: op j's node is readable after the tape */
    genie__node *root;
    genie__node *nodes[GENIE__FMAX_OPS]; /* ops[j] computes nodes[j] */
    genie__node *src[GENIE__FMAX_IN];    /* in[k] reads src[k]'s value */
} genie__fgroup;

/* May n be computed inside a group? A float unary/binary computed in its own
   dtype (f32, or f16/bf16 held in f32 and rounded after every op), out of place;
   where and masked_fill of those dtypes (the bool operand loaded as 0 or 1); or a
   clone, contiguous or dtype conversion between those dtypes (the value itself,
   rounded to the narrower dtype where a later op of the group reads it). */
static int genie__fusable(const genie__node *n) {
    int k = genie__op_kinds[n->op];
#define GENIE__FDT(t) ((t) == GENIE_F32 || (t) == GENIE_F16 || (t) == GENIE_BF16)
    if (n->base || n->numel <= 0 || !GENIE__FDT(n->dtype)) return 0;
    if (n->op == GENIE__OP_TO || n->op == GENIE__OP_CLONE || n->op == GENIE__OP_CONTIGUOUS)
        return n->nin == 1 && GENIE__FDT(n->in[0].n->dtype);
    if (n->op == GENIE__OP_WHERE) /* where(cond, a, b): a bool condition */
        return n->nin == 3 && n->in[0].n->dtype == GENIE_BOOL && GENIE__FDT(n->in[1].n->dtype) && GENIE__FDT(n->in[2].n->dtype);
    if (n->op == GENIE__OP_MASKED_FILL) /* masked_fill(t, mask, v) */
        return n->nin == 2 && n->in[1].n->dtype == GENIE_BOOL;
    return (k == GENIE__K_UNARY || k == GENIE__K_BINARY) && n->cdt == n->dtype;
#undef GENIE__FDT
}
/* The dtype n's value is computed in inside a group: a narrowing conversion's
   (f32 to f16/bf16, f16 <-> bf16) is its input's, rounded to its own (by the store,
   or in its register where a later op reads it); every other node's is its own. */
static int genie__fdt(const genie__node *n) {
    int x = genie__op_kinds[n->op] == GENIE__K_COPY ? n->in[0].n->dtype : n->dtype;
    return x == n->dtype || x == GENIE_F32 || (x == GENIE_F16 && n->dtype == GENIE_BF16) ||
                   (x == GENIE_BF16 && n->dtype == GENIE_F16) ? x : n->dtype;
}
/* May n be the centre of a row group: a row op whose rows fit the row registers? Rows
   of f32, or (half) of f16/bf16 computed in f32 and rounded once, as genie__k_rows does.
   Not a reduction whose reduced dims are several runs (segmented rows, genie__grows_plan):
   the group gathered its rows a tile at a time, slower alone than the segmented kernel and
   its epilogue apart ([16, 64, 56, 56] var over (0, 2, 3) then rsqrt(v + eps): 1.2 -> 0.5 ms). */
static int genie__row_groupable(const genie__node *n, int64_t *rows, int64_t *len, int half) {
    const int kind = genie__op_kinds[n->op];
    int64_t xs;
    return n->nin >= 1 && (half || n->in[0].n->dtype == GENIE_F32) && genie__row_centre(n, rows, len) && *len <= GENIE__FROW_MAX &&
           ((kind != GENIE__K_REDUCE && kind != GENIE__K_ARGREDUCE) ||
            genie__dims_run(n->in[0].v, (int)n->a.i[0], n->in[0].v->ndim, &xs));
}
/* A reduction's kept dims (the first nk of its input view v) end in a unit-stride run:
   the kept dims before it are outer, each position of them a column problem of its own.
   Returns how many are outer. */
static int genie__col_outer(const genie__vspec *v, int nk) {
    int64_t run = 1;
    int k;
    for (k = nk - 1; k >= 0 && (v->shape[k] == 1 || v->strides[k] == run); k--) run *= v->shape[k];
    return k + 1;
}
/* May n be the centre of a column group: a sum, mean, amax, amin, prod, var, std, logsumexp
   or argreduce of f32/f16/bf16 whose kept dims end in a unit-stride run (genie__col_outer) of
   at least GENIE__COL_MIN elements, a contiguous output? rows: the reduced positions, len: the run's. */
#define GENIE__COL_MIN 16 /* fewest kept positions of a column group (fewer: a call a row and position) */
static int genie__col_centre(const genie__node *n, int64_t *rows, int64_t *len) {
    const genie__vspec *v = n->nin == 1 ? n->in[0].v : NULL;
    const int op = n->op, nk = (int)n->a.i[0], arg = genie__op_kinds[op] == GENIE__K_ARGREDUCE;
    int dt, no;
    if (!v || n->base || n->numel <= 0 || nk < 1 || nk >= v->ndim ||
        (op != GENIE__OP_SUM && op != GENIE__OP_MEAN && op != GENIE__OP_AMAX && op != GENIE__OP_AMIN &&
         op != GENIE__OP_PROD && op != GENIE__OP_VAR && op != GENIE__OP_STD && op != GENIE__OP_LOGSUMEXP && !arg))
        return 0;
    dt = n->in[0].n->dtype;
    if ((dt != GENIE_F32 && dt != GENIE_F16 && dt != GENIE_BF16) || n->dtype != (arg && n->a.i[1] ? GENIE_I64 : dt) ||
        !genie__is_contig(n->out->ndim, n->out->shape, n->out->strides))
        return 0;
    no = genie__col_outer(v, nk);
    *len = genie__numel(nk - no, v->shape + no);
    *rows = genie__numel(v->ndim - nk, v->shape + nk);
    return *rows > 0 && *len >= GENIE__COL_MIN;
}
/* A reduction's reduced dims (from nk on, of view v) as segments (genie__grows_plan): the
   length of the longest unit-stride run they end in, 0 if they are one run or end in none. */
static int64_t genie__seg_run(const genie__vspec *v, int nk) {
    int64_t xs;
    int s = nk + 1;
    if (nk < 0 || nk >= v->ndim || genie__dims_run(v, nk, v->ndim, &xs)) return 0;
    while (!genie__dims_run(v, s, v->ndim, &xs)) s++; /* one dim is a run: s < ndim */
    return xs == 1 ? genie__numel(v->ndim - s, v->shape + s) : 0;
}
/* May n be the centre of a segmented group: a sum, mean, amax, amin, prod, var, std,
   logsumexp or argreduce of f32/f16/bf16 whose reduced dims are several runs (a channel's
   statistics over (0, 2, 3) of [N, C, H, W]) of at least GENIE__SEG_MIN elements, a
   contiguous output? (Alone only prod, logsumexp and the argreductions: genie__fgroup_build.)
   rows: the kept positions, len: the reduced ones. */
static int genie__seg_centre(const genie__node *n, int64_t *rows, int64_t *len) {
    const genie__vspec *v = n->nin == 1 ? n->in[0].v : NULL;
    const int op = n->op, nk = (int)n->a.i[0], arg = genie__op_kinds[op] == GENIE__K_ARGREDUCE;
    int dt;
    if (!v || n->base || n->numel <= 0 ||
        (op != GENIE__OP_SUM && op != GENIE__OP_MEAN && op != GENIE__OP_AMAX && op != GENIE__OP_AMIN && op != GENIE__OP_PROD &&
         op != GENIE__OP_VAR && op != GENIE__OP_STD && op != GENIE__OP_LOGSUMEXP && !arg))
        return 0;
    dt = n->in[0].n->dtype;
    if ((dt != GENIE_F32 && dt != GENIE_F16 && dt != GENIE_BF16) || n->dtype != (arg ? GENIE_I64 : dt) ||
        !genie__is_contig(n->out->ndim, n->out->shape, n->out->strides) || genie__seg_run(v, nk) < GENIE__SEG_MIN)
        return 0;
    *rows = genie__numel(nk, v->shape);
    *len = genie__numel(v->ndim - nk, v->shape + nk);
    return *rows > 0 && *len > 0;
}
/* May n be a group's centre, and of which kind (*col): where the CPU runs the group (cpu),
   a column group (1) where n reduces leading dims as above, a segmented group (2) where its
   reduced dims are several runs, else a row group (0; cpu: f16/bf16 rows too). */
static int genie__centre_of(const genie__node *n, int64_t *rows, int64_t *len, int *col, int cpu) {
    *col = cpu && genie__col_centre(n, rows, len);
    if (!*col && cpu && genie__seg_centre(n, rows, len)) *col = 2;
    return *col || genie__row_groupable(n, rows, len, cpu);
}
/* May n root a group: elementwise, or a row op (the centre of a row or column group)? */
static int genie__groupable(const genie__node *n, int cpu) {
    int64_t rows, len;
    int col;
    return genie__fusable(n) || genie__centre_of(n, &rows, &len, &col, cpu);
}
/* Is pending p read by c through its own output view, of c's dtype (a conversion
   reads any), and by no other node of this tape? */
static int genie__reads_only(const genie__node *p, const genie__node *c, const genie__tape_op *tape) {
    int i, uses = 0;
    if (p->state != GENIE__PENDING || (p->dtype != c->dtype && genie__op_kinds[c->op] != GENIE__K_COPY)) return 0;
    for (i = 0; i < c->nin; i++)
        if (c->in[i].n == p) {
            if (!genie__vspec_equal(c->in[i].v, p->out)) return 0;
            uses++;
        }
    return uses > 0 && tape[p->tix].uses == uses;
}
/* Does producer p join consumer c's group: fusable, and read only by c as above? */
static int genie__fuses_into(const genie__node *p, const genie__node *c, const genie__tape_op *tape) {
    return genie__fusable(p) && genie__reads_only(p, c, tape);
}
/* Is v the view o with its dims permuted: v's dim i o's dim perm[i] (a size-1 dim's
   stride free)? */
static int genie__view_perm(const genie__vspec *v, const genie__vspec *o, int *perm) {
    unsigned used = 0;
    int i, d;
    if (v->ndim != o->ndim || v->off != o->off) return 0;
    for (i = 0; i < v->ndim; i++) {
        for (d = 0; d < o->ndim; d++)
            if (!(used >> d & 1) && v->shape[i] == o->shape[d] && (v->shape[i] == 1 || v->strides[i] == o->strides[d])) break;
        if (d == o->ndim) return 0;
        used |= 1u << d;
        perm[i] = d;
    }
    return 1;
}
/* Does row op c take its input's producer p as its prologue: elementwise, read
   once in this tape, by c as in[0] through p's view permuted, *perm as genie__view_perm's
   (a row group's centre: only dims of size 1 moved, as a reduction over (0, 2, 3) of
   [N, 1, H, W] keeps dim 1 first, the rows in memory order still)? */
static int genie__prologue_into(const genie__node *p, const genie__node *c, const genie__tape_op *tape, int col, int *perm) {
    int i, last = -1;
    if (!genie__fusable(p) || p->state != GENIE__PENDING || c->in[0].n != p || tape[p->tix].uses != 1 ||
        !genie__view_perm(c->in[0].v, p->out, perm))
        return 0;
    for (i = 0; i < c->in[0].v->ndim && !col; i++)
        if (c->in[0].v->shape[i] != 1) {
            if (perm[i] < last) return 0;
            last = perm[i];
        }
    return 1;
}
/* Where element idx of space sp (0 or 1) lives in a view laid over it (dims permuted by perm). */
static void genie__fin_set(genie__fin *f, const genie__fgroup *g, int sp, const int *perm, const void *data, int dt,
                           const genie__vspec *v) {
    const int nd = sp ? g->ond : g->nd;
    const int64_t *shape = sp ? g->oshape : g->shape;
    int d;
    int64_t run = 1;
    f->data = (const char *)data;
    f->dt = f->ldt = dt;
    f->sp = sp;
    f->off = v->off;
    f->contig = 1;
    for (d = nd - 1; d >= 0; d--) {
        f->st[d] = v->strides[perm[d]];
        if (shape[d] != 1 && f->st[d] != run) f->contig = 0;
        run *= shape[d];
    }
}
/* The input slot of (node, view) over space sp loaded as ldt, added if new; -1 when the group is full. */
static int genie__fgroup_input(genie__fgroup *g, int sp, const int *perm, genie__node *n, const genie__vspec *v,
                               const genie__vspec **views, int ldt) {
    int k;
    for (k = 0; k < g->nin; k++)
        if (g->src[k] == n && g->in[k].sp == sp && g->in[k].ldt == ldt && genie__vspec_equal(views[k], v)) return k;
    if (g->nin == GENIE__FMAX_IN) return -1;
    g->src[k] = n;
    views[k] = v;
    if (sp == 2) { /* a row operand: contiguous (genie__row_centre) */
        g->in[k].dt = n->dtype;
        g->in[k].sp = 2;
        g->in[k].contig = 1;
        g->in[k].off = v->off;
    } else {
        genie__fin_set(&g->in[k], g, sp, perm, NULL, n->dtype, v);
    }
    g->in[k].ldt = ldt;
    return g->nin++;
}
/* The operand of node n's input i, computing op j of space sp: the register
   of an earlier op of the same space that computes it, else an input slot,
   loaded as n computes (a conversion: as the value is; a row op: f32). */
static int genie__fgroup_operand(genie__fgroup *g, int j, int sp, const int *perm, const genie__node *n, int i,
                                 const genie__vspec **views, int16_t *opnd) {
    const int ldt = j == g->row ? (int)GENIE_F32 : genie__op_kinds[n->op] == GENIE__K_COPY ? (int)n->in[i].n->dtype : (int)n->dtype;
    int k, first = sp == 1 ? g->row : 0, slot;
    for (k = j - 1; k >= first && k >= 0; k--)
        if (g->nodes[k] == n->in[i].n && genie__vspec_equal(n->in[i].v, g->nodes[k]->out)) {
            *opnd = (int16_t)k;
            return 1;
        }
    slot = genie__fgroup_input(g, sp, perm, n->in[i].n, n->in[i].v, views, ldt);
    *opnd = (int16_t)(-1 - slot);
    return slot >= 0;
}
/* g->rnd: the ops whose value is rounded to their f16/bf16 dtype in the register,
   where a later op reads it or it is not written (a value only stored is rounded by
   its store); a conversion only where it narrows (f32 to f16/bf16, f16 <-> bf16:
   a value already of its dtype is kept as it is). ops[].dt set. */
static void genie__fgroup_rnd(genie__fgroup *g) {
    uint32_t read = 0, rnd = 0;
    int j;
    for (j = 0; j < g->nops; j++) {
        const genie__fop *o = &g->ops[j];
        if (o->x >= 0) read |= 1u << o->x;
        if (o->y >= 0 && o->y != GENIE__FNONE) read |= 1u << o->y;
        if (o->z >= 0 && o->z != GENIE__FNONE) read |= 1u << o->z;
    }
    for (j = 0; j < g->nops; j++) {
        const genie__fop *o = &g->ops[j];
        int xdt = o->x >= 0 ? g->ops[o->x].dt : g->in[-1 - o->x].dt;
        if ((o->dt != GENIE_F16 && o->dt != GENIE_BF16) || (!(read >> j & 1) && g->written[j])) continue;
        if (genie__op_kinds[o->op] == GENIE__K_COPY && xdt == o->dt) continue;
        rnd |= 1u << j;
    }
    g->rnd = rnd;
}
/* May no array kernel run elementwise n alone (genie__v_setup): f16/bf16 values, or a
   layout other than a dense output read by its operands in the same order (or one
   broadcast value)? Such a node runs as a group of one, not on the reference kernel. */
static int genie__lone_group(const genie__node *n) {
    int i;
    if (n->op == GENIE__OP_WHERE || n->op == GENIE__OP_MASKED_FILL) return 1; /* no array kernel */
    if (genie__op_kinds[n->op] == GENIE__K_COPY) /* same dtype: the strided copy; f32 <-> f16/bf16 in place: array kernels */
        return n->in[0].n->dtype != n->dtype && !(genie__v_dense(n->out) && genie__v_same(n->out, n->in[0].v) &&
                                                  (n->dtype == GENIE_F32 || n->in[0].n->dtype == GENIE_F32));
    if (n->dtype == GENIE_F16 || n->dtype == GENIE_BF16 || !genie__v_dense(n->out)) return 1;
    for (i = 0; i < n->nin; i++)
        if (n->in[i].n->dtype == GENIE_F16 || n->in[i].n->dtype == GENIE_BF16 ||
            (!genie__v_same(n->out, n->in[i].v) && !(n->nin == 2 && genie__v_bcast(n->in[i].v)))) return 1;
    return 0;
}
/* Merge adjacent dims of space 0 where every view of it (inputs and written values) steps
   through both as one (d's stride = d + 1's x its size, or either of size 1): fewer, longer
   runs for genie__fin_load. Element idx of the space keeps its place in every view; for a
   kernel that walks space 0 by its linear index (a segmented group's: [N, C, H, W] read by
   channel merges H and W, runs of H x W, not of W). */
static void genie__fgroup_merge0(genie__fgroup *g) {
    int d, e, k, ok;
    for (d = g->nd - 2; d >= 0; d--) {
        const int64_t a = g->shape[d], b = g->shape[d + 1];
        for (k = 0, ok = 1; k < g->nin + g->nops && ok; k++) {
            const genie__fin *f = k < g->nin ? &g->in[k] : &g->out[k - g->nin];
            if ((k < g->nin || g->written[k - g->nin]) && f->sp == 0) ok = a == 1 || b == 1 || f->st[d] == f->st[d + 1] * b;
        }
        if (!ok) continue;
        for (k = 0; k < g->nin + g->nops; k++) {
            genie__fin *f = k < g->nin ? &g->in[k] : &g->out[k - g->nin];
            if ((k >= g->nin && !g->written[k - g->nin]) || f->sp != 0) continue;
            if (b != 1) f->st[d] = f->st[d + 1]; /* (b == 1: d's own) */
            for (e = d + 1; e + 1 < g->nd; e++) f->st[e] = f->st[e + 1];
        }
        g->shape[d] = a * b;
        for (e = d + 1; e + 1 < g->nd; e++) g->shape[e] = g->shape[e + 1];
        g->nd--;
    }
}
/* Build the group rooted at r: its inner producers breadth first from the
   root (reversed, producers come before consumers); the first row op met (or
   r itself) becomes the centre, its input's producers its prologue (cpu: the CPU
   runs the group; an f16/bf16 row op or a column reduction may be one). NULL: r has
   no inner producer and an array or row kernel runs it alone, or out of memory.
   Spaces are laid over each node's view by a permutation of its dims: perm for the
   elementwise nodes of space 0 (the root's memory order; a column group's prologue:
   reduced dims first), cperm for a column centre's input view, identity for space 1. */
static genie__fgroup *genie__fgroup_build(genie__node *r, const genie__tape_op *tape, int cpu) {
    genie__fgroup *g;
    genie__node *q[GENIE__FMAX_OPS], *pq[GENIE__FMAX_OPS], *c = NULL; /* the root's tree, the prologue, the centre */
    const genie__vspec *views[GENIE__FMAX_IN];
    int perm[GENIE__MAXD], cperm[GENIE__MAXD], ident[GENIE__MAXD], vperm[GENIE__MAXD], nq = 1, np = 0, head, j, i, d, col = 0, pcol;
    int64_t rows = 0, len = 0;
    q[0] = r;
    if (!genie__fusable(r)) { /* a segmented centre alone: prod, logsumexp and the argreductions (the others run
                                 in place on their own kernel, genie__k_grows, which gathers these rows) */
        if (!genie__centre_of(r, &rows, &len, &col, cpu) ||
            (col == 2 && !genie__prologue_into(r->in[0].n, r, tape, col, vperm) && r->op != GENIE__OP_PROD &&
             r->op != GENIE__OP_LOGSUMEXP && genie__op_kinds[r->op] != GENIE__K_ARGREDUCE))
            return NULL;
        c = r;
    }
    for (head = 0; head < nq; head++) {
        if (q[head] == c) continue; /* its input: the prologue */
        for (i = 0; i < q[head]->nin && nq < GENIE__FMAX_OPS; i++) {
            genie__node *pn = q[head]->in[i].n;
            int seen = 0;
            for (j = 0; j < nq; j++) seen |= q[j] == pn;
            if (seen) continue;
            if (genie__fuses_into(pn, q[head], tape)) q[nq++] = pn;
            else if (!c && genie__op_kinds[pn->op] != GENIE__K_ARGREDUCE && genie__centre_of(pn, &rows, &len, &pcol, cpu) &&
                     genie__reads_only(pn, q[head], tape) && (pcol != 2 || genie__prologue_into(pn->in[0].n, pn, tape, pcol, vperm)))
                q[nq++] = c = pn, col = pcol; /* (rows, len: the last call's) */
        }
    }
    if (c && nq < GENIE__FMAX_OPS && genie__prologue_into(c->in[0].n, c, tape, col, vperm)) {
        pq[np++] = c->in[0].n;
        for (head = 0; head < np; head++)
            for (i = 0; i < pq[head]->nin && nq + np < GENIE__FMAX_OPS; i++) {
                genie__node *pn = pq[head]->in[i].n;
                int seen = 0;
                for (j = 0; j < np; j++) seen |= pq[j] == pn;
                if (!seen && genie__fuses_into(pn, pq[head], tape)) pq[np++] = pn;
            }
    }
    /* a lone op runs on its array kernel where one takes it, else here (f16/bf16 converted in
       registers, strided and row-broadcast operands read through their views); a lone row op
       on its row kernel, a lone column reduction here (its rows streamed: genie__k_cfused) */
    if ((nq + np < 2 && (c ? !col : !genie__lone_group(r))) || !(g = (genie__fgroup *)GENIE_MALLOC(sizeof(genie__fgroup))))
        return NULL;
    memset(g, 0, sizeof *g);
    g->root = r;
    g->row = -1;
    for (d = 0; d < GENIE__MAXD; d++) perm[d] = cperm[d] = ident[d] = d;
    if (c) { /* spaces in row-major order: the rows are the centre's */
        const genie__vspec *v = c->in[0].v;
        g->cdt = GENIE_F32;
        g->nd = v->ndim;
        g->col = col;
        if (col == 2) { /* the centre's input view, [kept..., reduced...]; the prologue's view permuted to it; outer: the run */
            for (d = 0; d < v->ndim; d++) perm[d] = np ? vperm[d] : d;
            g->outer = genie__seg_run(v, (int)c->a.i[0]);
        } else if (col) { /* [outer kept..., reduced..., kept run...] of the centre's input view; the prologue's view permuted to it */
            const int nk = (int)c->a.i[0], nr = v->ndim - nk, no = genie__col_outer(v, nk);
            for (d = 0; d < v->ndim; d++) cperm[d] = d < no ? d : d < no + nr ? nk + d - no : d - nr;
            for (d = 0; d < v->ndim; d++) perm[d] = np ? vperm[cperm[d]] : cperm[d];
            g->outer = genie__numel(no, v->shape);
        } else if (np) { /* the centre's input view; the prologue's, its dims of size 1 moved, permuted to it */
            for (d = 0; d < v->ndim; d++) perm[d] = vperm[d];
        }
        for (d = 0; d < v->ndim; d++) g->shape[d] = v->shape[cperm[d]];
        g->ond = c->out->ndim;
        memcpy(g->oshape, c->out->shape, sizeof g->oshape);
        g->ototal = genie__numel(g->ond, g->oshape);
        g->rows = rows;
        g->len = len;
    } else {
        g->cdt = genie__fdt(r);
        g->nd = r->out->ndim;
        for (d = 0; d < g->nd; d++) perm[d] = d;
        for (d = 1; d < g->nd; d++) { /* the root's memory order: strides descending, stable */
            int x = perm[d], e = d;
            for (; e > 0 && r->out->strides[perm[e - 1]] < r->out->strides[x]; e--) perm[e] = perm[e - 1];
            perm[e] = x;
        }
        for (d = 0; d < g->nd; d++) g->shape[d] = r->out->shape[perm[d]];
    }
    g->total = genie__numel(g->nd, g->shape);
    g->nops = nq + np;
    for (j = 0; j < np; j++) g->nodes[j] = pq[np - 1 - j];
    if (c) {
        g->row = np;
        g->nodes[np] = c;
    }
    for (i = nq - 1, j = np + (c != NULL); i >= 0; i--)
        if (q[i] != c) g->nodes[j++] = q[i];
    for (j = 0; j < g->nops; j++) {
        genie__node *n = g->nodes[j];
        genie__fop *o = &g->ops[j];
        int sp = g->row >= 0 && j > g->row, ok = 1;
        int16_t opnd[3] = {0, 0, 0};
        o->op = n->op;
        o->dt = (uint8_t)n->dtype;
        o->a = n->a;
        o->z = GENIE__FNONE;
        if (j == g->row) {
            int hw = genie__op_kinds[n->op] == GENIE__K_LAYER_NORM && n->a.i[1];
            int hb = genie__op_kinds[n->op] == GENIE__K_LAYER_NORM && n->a.i[2];
            if (np) o->x = (int16_t)(np - 1); /* the prologue's value (read through a permuted view) */
            else ok = genie__fgroup_operand(g, j, 0, cperm, n, 0, views, &o->x);
            o->y = o->z = GENIE__FNONE;
            if (ok && hw) ok = genie__fgroup_operand(g, j, 2, ident, n, 1, views, &o->y);
            if (ok && hb) ok = genie__fgroup_operand(g, j, 2, ident, n, 1 + hw, views, &o->z);
        } else {
            for (i = 0; i < n->nin && i < 3 && ok; i++)
                ok = genie__fgroup_operand(g, j, sp, sp ? ident : perm, n, i, views, &opnd[i]);
            o->x = opnd[0];
            o->y = genie__op_kinds[n->op] == GENIE__K_BINARY ? (n->has_scalar ? GENIE__FSCALAR : opnd[1]) : opnd[0];
            if (n->op == GENIE__OP_WHERE || n->op == GENIE__OP_MASKED_FILL) o->y = opnd[1];
            if (n->op == GENIE__OP_WHERE) o->z = opnd[2];
        }
        if (!ok) { GENIE_FREE(g); return NULL; }
    }
    for (j = 0; j < g->nops; j++) { /* the root, and inner nodes still readable after the tape */
        genie__node *n = g->nodes[j];
        g->written[j] = j == g->nops - 1 || n->refs > 1 + tape[n->tix].uses;
        if (g->written[j])
            genie__fin_set(&g->out[j], g, g->row >= 0 && j >= g->row, g->row >= 0 && j >= g->row ? ident : perm, NULL, n->dtype, n->out);
    }
    genie__fgroup_rnd(g);
    if (g->col == 2) genie__fgroup_merge0(g);
    return g;
}
/* Every node of the group but its root is inner: never run on its own. */
static void genie__fgroup_mark(const genie__fgroup *g, genie__tape_op *tape) {
    int j;
    for (j = 0; j + 1 < g->nops; j++) tape[g->nodes[j]->tix].inner = 1;
}
/* A group kept by the tape cache, compact (a 32-op group in about 0.5 KB, not
   the struct's 8): a header, the inputs' views, per op (op, operands, written,
   tape position of its node), the written ops' views, and where each input
   comes from: src[k] is input src_i[k] of nodes[src_j[k]]. genie__tc_fg_bind
   rebuilds the group around this tape's nodes (and their scalars). */
typedef struct genie__tc_fgh {
    int32_t nd, nin, nops, cdt, row, ond, col, pad;
    int64_t shape[GENIE__MAXD], total, oshape[GENIE__MAXD], ototal, rows, len, outer;
} genie__tc_fgh;
typedef struct genie__tc_fop {
    uint16_t op;
    int16_t x, y, z;
    uint8_t written, pad;
    int32_t node;
} genie__tc_fop;
#define GENIE__AL8(b) (((b) + 7) & ~(size_t)7)
static size_t genie__tc_fg_bytes(const genie__fgroup *g) {
    int j, nw = 0;
    for (j = 0; j < g->nops; j++) nw += g->written[j];
    return sizeof(genie__tc_fgh) + (size_t)g->nin * sizeof(genie__fin) + GENIE__AL8((size_t)g->nops * sizeof(genie__tc_fop)) +
           (size_t)nw * sizeof(genie__fin) + GENIE__AL8((size_t)g->nin * 4);
}
static void genie__tc_fg_save(char *rec, const genie__fgroup *g) {
    genie__tc_fgh *h = (genie__tc_fgh *)(void *)rec;
    genie__fin *in = (genie__fin *)(void *)(h + 1), *out;
    genie__tc_fop *op = (genie__tc_fop *)(void *)(in + g->nin);
    int16_t *src;
    int j, k, i, nw = 0;
    h->nd = g->nd, h->nin = g->nin, h->nops = g->nops, h->cdt = g->cdt, h->row = g->row, h->ond = g->ond;
    h->col = g->col, h->pad = 0, h->outer = g->outer;
    memcpy(h->shape, g->shape, sizeof h->shape);
    memcpy(h->oshape, g->oshape, sizeof h->oshape);
    h->total = g->total, h->ototal = g->ototal, h->rows = g->rows, h->len = g->len;
    memcpy(in, g->in, (size_t)g->nin * sizeof(genie__fin));
    out = (genie__fin *)(void *)((char *)op + GENIE__AL8((size_t)g->nops * sizeof(genie__tc_fop)));
    for (j = 0; j < g->nops; j++) {
        op[j].op = g->ops[j].op, op[j].x = g->ops[j].x, op[j].y = g->ops[j].y, op[j].z = g->ops[j].z;
        op[j].written = g->written[j], op[j].pad = 0;
        op[j].node = (int32_t)g->nodes[j]->tix;
        if (g->written[j]) out[nw++] = g->out[j];
    }
    src = (int16_t *)(void *)(out + nw);
    for (k = 0; k < g->nin; k++) {
        src[2 * k] = src[2 * k + 1] = -1;
        for (j = 0; j < g->nops && src[2 * k] < 0; j++)
            for (i = 0; i < g->nodes[j]->nin; i++)
                if (g->nodes[j]->in[i].n == g->src[k]) { src[2 * k] = (int16_t)j, src[2 * k + 1] = (int16_t)i; break; }
        GENIE_ASSERT(src[2 * k] >= 0);
    }
}
static size_t genie__fgroup_size(void) { return sizeof(genie__fgroup); }
static genie__fgroup *genie__tc_fg_bind(const char *rec, const genie__tape_op *tape, genie__fgroup *g) {
    const genie__tc_fgh *h = (const genie__tc_fgh *)(const void *)rec;
    const genie__fin *in = (const genie__fin *)(const void *)(h + 1), *out;
    const genie__tc_fop *op = (const genie__tc_fop *)(const void *)(in + h->nin);
    const int16_t *src;
    int j, k, nw = 0;
    g->nd = h->nd, g->nin = h->nin, g->nops = h->nops, g->cdt = h->cdt, g->row = h->row, g->ond = h->ond;
    g->col = h->col, g->outer = h->outer;
    memcpy(g->shape, h->shape, sizeof g->shape);
    memcpy(g->oshape, h->oshape, sizeof g->oshape);
    g->total = h->total, g->ototal = h->ototal, g->rows = h->rows, g->len = h->len;
    memcpy(g->in, in, (size_t)h->nin * sizeof(genie__fin));
    out = (const genie__fin *)(const void *)((const char *)op + GENIE__AL8((size_t)h->nops * sizeof(genie__tc_fop)));
    for (j = 0; j < h->nops; j++) {
        genie__node *n = tape[op[j].node].n;
        g->nodes[j] = n;
        g->ops[j].op = op[j].op, g->ops[j].x = op[j].x, g->ops[j].y = op[j].y, g->ops[j].z = op[j].z;
        g->ops[j].dt = (uint8_t)n->dtype; /* in the key */
        g->ops[j].a = n->a; /* scalars are not in the key */
        g->written[j] = op[j].written;
        if (op[j].written) g->out[j] = out[nw++];
    }
    g->root = g->nodes[h->nops - 1];
    src = (const int16_t *)(const void *)(out + nw);
    for (k = 0; k < h->nin; k++) g->src[k] = g->nodes[src[2 * k]]->in[src[2 * k + 1]].n;
    genie__fgroup_rnd(g);
    return g;
}
#undef GENIE__AL8
/* Elements [start, start + n) of f's space: load an input as f32 (as the
   reference loads it: rounded to its readers' compute dtype, f->ldt), store an
   output. f16/bf16 values loaded as their own dtype or as f32 convert on the
   path's array kernels. */
static void genie__fin_load(const genie__fin *f, const genie__fgroup *g, int64_t start, int64_t n, float *dst) {
    const int nd = f->sp ? g->ond : g->nd;
    const int64_t *shape = f->sp ? g->oshape : g->shape;
    const genie__vfn up = f->dt == f->ldt || f->ldt == GENIE_F32 ? genie__fconv(g->cpu, f->dt, 0) : NULL; /* f16/bf16 -> f32: exact */
    int64_t e;
    if (f->contig && f->dt == GENIE_F32 && f->ldt == GENIE_F32) {
        memcpy(dst, (const float *)f->data + f->off + start, (size_t)n * 4);
    } else if (f->contig && up) {
        up(dst, (const uint16_t *)f->data + f->off + start, NULL, n);
    } else if (((f->dt == GENIE_F32 && f->ldt == GENIE_F32) || up) && nd >= 1) {
        /* runs along the last dim: copied (converted), (stride 0: a broadcast row) filled, or
           gathered at their stride (a transposed input: no index step per element) */
        const size_t es = genie__dt_size[f->dt];
        const int64_t s = f->st[nd - 1];
        uint16_t h[GENIE__FTILE];
        for (e = 0; e < n;) {
            int64_t pos = start + e, j = pos % shape[nd - 1], run = GENIE__MIN(shape[nd - 1] - j, n - e), off = f->off, r;
            const char *x;
            int d;
            for (d = nd - 1; d >= 0; d--) {
                off += (pos % shape[d]) * f->st[d];
                pos /= shape[d];
            }
            x = (const char *)f->data + (size_t)off * es;
            if (!s) {
                float v;
                if (up) up(&v, x, NULL, 1);
                else memcpy(&v, x, 4);
                for (r = 0; r < run; r++) dst[e + r] = v;
            } else if (s == 1) {
                if (up) up(dst + e, x, NULL, run);
                else memcpy(dst + e, x, (size_t)run * 4);
            } else if (up) { /* through h, a tile at a time */
                int64_t c0, c;
                for (c0 = 0; c0 < run; c0 += c) {
                    c = GENIE__MIN(run - c0, GENIE__FTILE);
                    for (r = 0; r < c; r++) h[r] = ((const uint16_t *)(const void *)x)[(c0 + r) * s];
                    up(dst + e + c0, h, NULL, c);
                }
            } else {
                for (r = 0; r < run; r++) dst[e + r] = ((const float *)(const void *)x)[r * s];
            }
            e += run;
        }
    } else if (f->dt == GENIE_BOOL && nd >= 1 && g->cpu >= GENIE_CPU_GENERIC && g->cpu < GENIE_CPU_COUNT) {
        /* a mask, as 0 or 1: runs along the last dim (stride 0: a broadcast) */
        const int64_t s = f->st[nd - 1];
        for (e = 0; e < n;) {
            int64_t pos = start + e, run = GENIE__MIN(shape[nd - 1] - pos % shape[nd - 1], n - e), off = f->off, r;
            const uint8_t *x;
            int d;
            for (d = nd - 1; d >= 0; d--) {
                off += (pos % shape[d]) * f->st[d];
                pos /= shape[d];
            }
            x = (const uint8_t *)f->data + off;
            if (s == 1)
                genie__vops[g->cpu][GENIE__V_B2F](dst + e, x, NULL, run);
            else
                for (r = 0; r < run; r++) dst[e + r] = (float)(x[r * s] != 0);
            e += run;
        }
    } else if (f->contig) {
        for (e = 0; e < n; e++) dst[e] = (float)genie__ld_as(f->data, f->off + start + e, f->dt, f->ldt);
    } else {
        genie__mi m;
        const int64_t *st[1];
        st[0] = f->st;
        genie__mi_init(&m, nd, shape, 1, st, &f->off, start);
        for (e = 0; e < n; e++, genie__mi_next(&m)) dst[e] = (float)genie__ld_as(f->data, m.off[0], f->dt, f->ldt);
    }
}
static void genie__fout_store(const genie__fin *f, const genie__fgroup *g, int64_t start, int64_t n, const float *src) {
    char *data = (char *)f->data;
    const int nd = f->sp ? g->ond : g->nd;
    const int64_t *shape = f->sp ? g->oshape : g->shape;
    const genie__vfn down = genie__fconv(g->cpu, f->dt, 1);
    int64_t e;
    if (f->contig && f->dt == GENIE_F32) {
        memcpy((float *)data + f->off + start, src, (size_t)n * 4);
    } else if (f->contig && down) {
        down((uint16_t *)(void *)data + f->off + start, src, NULL, n);
    } else if (f->contig) {
        for (e = 0; e < n; e++) genie__stf(data, f->off + start + e, f->dt, src[e]);
    } else if ((f->dt == GENIE_F32 || down) && nd >= 1) {
        /* runs along the last dim (as genie__fin_load's): copied (converted), or scattered at
           their stride (a value held through a permuted view: no index step per element) */
        const size_t es = genie__dt_size[f->dt];
        const int64_t s = f->st[nd - 1];
        uint16_t h[GENIE__FTILE];
        for (e = 0; e < n;) {
            int64_t pos = start + e, j = pos % shape[nd - 1], run = GENIE__MIN(shape[nd - 1] - j, n - e), off = f->off, r;
            char *y;
            int d;
            for (d = nd - 1; d >= 0; d--) {
                off += (pos % shape[d]) * f->st[d];
                pos /= shape[d];
            }
            y = data + (size_t)off * es;
            if (s == 1 && down) {
                down(y, src + e, NULL, run);
            } else if (s == 1) {
                memcpy(y, src + e, (size_t)run * 4);
            } else if (down) { /* through h, a tile at a time */
                int64_t c0, c;
                for (c0 = 0; c0 < run; c0 += c) {
                    c = GENIE__MIN(run - c0, GENIE__FTILE);
                    down(h, src + e + c0, NULL, c);
                    for (r = 0; r < c; r++) ((uint16_t *)(void *)y)[(c0 + r) * s] = h[r];
                }
            } else {
                for (r = 0; r < run; r++) ((float *)(void *)y)[r * s] = src[e + r];
            }
            e += run;
        }
    } else {
        genie__mi m;
        const int64_t *st[1];
        st[0] = f->st;
        genie__mi_init(&m, nd, shape, 1, st, &f->off, start);
        for (e = 0; e < n; e++, genie__mi_next(&m)) genie__stf(data, m.off[0], f->dt, src[e]);
    }
}
/* Resolve o's array kernel on path cpu once per run of its group, not once per tile:
   the switches that find it, run between the kernels' loops, mispredicted on every
   tile (15% of an 8-op chain in cache). Pow's exponent is a scalar (rebound on a tape
   cache hit), so this runs after binding. */
static void genie__fop_bind(genie__fop *o, genie_cpu cpu) {
    const int kind = genie__op_kinds[o->op], scalar = o->y == GENIE__FSCALAR;
    const int pu = o->op == GENIE__OP_POW && scalar ? genie__pow_unary(o->a.f[0]) : -1;
    const int unary = kind == GENIE__K_UNARY || pu >= 0, id = pu >= 0 ? pu : genie__v_unary_id(o->op);
    o->vk = NULL;
    o->vb = 0;
    if (kind == GENIE__K_COPY || o->op == GENIE__OP_WHERE || o->op == GENIE__OP_MASKED_FILL || o->op == GENIE__OP_CLAMP ||
        cpu < GENIE_CPU_GENERIC || cpu >= GENIE_CPU_COUNT || id < 0)
        return;
    o->vk = genie__vops[cpu][id + (unary || !scalar ? 0 : 1)];
    o->vb = (uint8_t)(pu >= 0 || (!unary && scalar) ? 2 : unary ? 0 : 1);
}
/* One op over a tile: out = op(x, y) (y NULL: the scalar; where: x ? y : z;
   masked_fill: y ? the scalar : x), rounded to dt where `round` (g->rnd: a value
   only stored is rounded by its store); on the path's array kernel (genie__vops)
   where it has one, else element by element. */
static void genie__fop_run(const genie__fop *o, int dt, int round, genie_cpu cpu, float *out, const float *x, const float *y,
                           const float *z, int64_t n) {
    if (o->vk) { /* the common case: no branch on the op */
        o->vk(out, x, o->vb == 1 ? (const void *)y : o->vb == 2 ? (const void *)&o->a.f[0] : NULL, n);
        if (round) genie__fround(cpu, dt, out, n);
        return;
    }
    {
    const int pu = o->op == GENIE__OP_POW && !y ? genie__pow_unary(o->a.f[0]) : -1; /* x ** 2, x ** -1 */
    const int unary = genie__op_kinds[o->op] == GENIE__K_UNARY || pu >= 0, id = pu >= 0 ? pu : genie__v_unary_id(o->op);
    const genie__vfn fn = cpu >= GENIE_CPU_GENERIC && cpu < GENIE_CPU_COUNT && id >= 0 ? genie__vops[cpu][id + (unary || y ? 0 : 1)] : NULL;
    int64_t e;
    if (genie__op_kinds[o->op] == GENIE__K_COPY) { /* clone, contiguous, to: the value (stored converted) */
        if (out != x) memcpy(out, x, (size_t)n * sizeof(float));
    } else if (o->op == GENIE__OP_WHERE || o->op == GENIE__OP_MASKED_FILL) { /* x ? y : z; y ? v : x */
        const genie__vfn sel = cpu >= GENIE_CPU_GENERIC && cpu < GENIE_CPU_COUNT ? genie__vops[cpu][o->op == GENIE__OP_WHERE ? GENIE__V_SEL : GENIE__V_SELS] : NULL;
        const float v = (float)o->a.f[0], *keep = o->op == GENIE__OP_WHERE ? z : x, *c = o->op == GENIE__OP_WHERE ? x : y;
        if (!sel) {
            for (e = 0; e < n; e++) out[e] = c[e] != 0 ? (o->op == GENIE__OP_WHERE ? y[e] : v) : keep[e];
        } else { /* out is a register or a group's output, never y or c (a group takes no input's buffer: genie__plan) */
            if (out != keep) memcpy(out, keep, (size_t)n * sizeof(float));
            sel(out, c, o->op == GENIE__OP_WHERE ? (const void *)y : (const void *)&v, n);
        }
    } else if (fn) {
        if (unary) {
            float bounds[2];
            bounds[0] = (float)o->a.f[0];
            bounds[1] = (float)o->a.f[1];
            fn(out, x, o->op == GENIE__OP_CLAMP ? (const void *)bounds : pu >= 0 ? (const void *)&o->a.f[0] : NULL, n);
        } else if (y) {
            fn(out, x, y, n);
        } else {
            double sc = o->a.f[0];
            fn(out, x, &sc, n);
        }
    } else if (genie__op_kinds[o->op] == GENIE__K_UNARY)
        for (e = 0; e < n; e++) out[e] = (float)genie__unary_f(o->op, x[e], &o->a);
    else if (y)
        for (e = 0; e < n; e++) out[e] = (float)genie__binary_f(o->op, x[e], y[e]);
    else
        for (e = 0; e < n; e++) out[e] = (float)genie__binary_f(o->op, x[e], o->a.f[0]);
    if (round) genie__fround(cpu, dt, out, n);
    }
}
/* Ops [j0, j1), all of space sp, over its elements [start, start + n) (n <=
   GENIE__FTILE). Contiguous f32 inputs are read in place and a written op with
   a contiguous f32 output computes into it; other inputs are loaded into their
   registers, other ops computed into theirs (op jx into xdst) and the written
   ones stored. rowv: the row op's values there (operand g->row). */
static void genie__fpass(const genie__fgroup *g, int sp, int j0, int j1, float *regs, float *opr, const float *rowv,
                         int64_t start, int64_t n, int jx, float *xdst) {
    const float *ip[GENIE__FMAX_IN];
    float *op[GENIE__FMAX_OPS];
    int j, k;
    for (k = 0; k < g->nin; k++) {
        const genie__fin *f = &g->in[k];
        if (f->sp != sp) continue;
        if (f->contig && f->dt == GENIE_F32 && f->ldt == GENIE_F32) { /* (an f32 value an f16/bf16 op reads: loaded rounded) */
            ip[k] = (const float *)f->data + f->off + start;
        } else {
            genie__fin_load(f, g, start, n, regs + (size_t)k * GENIE__FTILE);
            ip[k] = regs + (size_t)k * GENIE__FTILE;
        }
    }
    for (j = j0; j < j1; j++) {
        const genie__fop *o = &g->ops[j];
        const genie__fin *f = &g->out[j];
        const float *x, *y, *z;
        op[j] = j == jx ? xdst : g->written[j] && f->contig && f->dt == GENIE_F32 ? (float *)f->data + f->off + start
                                                                                 : opr + (size_t)j * GENIE__FTILE;
        x = o->x < 0 ? ip[-1 - o->x] : o->x == g->row ? rowv : op[o->x];
        y = o->y == GENIE__FSCALAR ? NULL : o->y < 0 ? ip[-1 - o->y] : o->y == g->row ? rowv : op[o->y];
        z = o->z == GENIE__FNONE ? NULL : o->z < 0 ? ip[-1 - o->z] : o->z == g->row ? rowv : op[o->z];
        if (genie__op_kinds[o->op] == GENIE__K_COPY && op[j] == opr + (size_t)j * GENIE__FTILE && !(g->rnd >> j & 1)) {
            op[j] = (float *)(uintptr_t)x; /* a copy or conversion in a register: its operand's (of its dtype, or wider
                                              and only stored) */
            continue;
        }
        genie__fop_run(o, o->dt, g->rnd >> j & 1, g->cpu, op[j], x, y, z, n);
    }
    for (j = j0; j < j1; j++)
        if (g->written[j] && (j == jx || !g->out[j].contig || g->out[j].dt != GENIE_F32)) genie__fout_store(&g->out[j], g, start, n, op[j]);
}
/* 2-D blocks. A pass over runs of the last dim reads an input transposed in the
   last two dims (stride 1 along rows, not along the last dim) a row's stride apart,
   each element on another line and page: x.t() + y on [2048, 2048] took 26 ms, x + y
   1.8 ms. An f32 elementwise group with such an input takes blocks of GENIE__FTR
   rows x GENIE__FTC columns of its space instead, as tiles in row-major order: each
   input's block loaded row by row, a transposed f32 one column by column (a column
   is GENIE__FTR consecutive floats: a line), the ops run on the tile as on any
   (elementwise: the order of a tile's elements is free), the written values
   stored row by row. */
#define GENIE__FTR 16
#define GENIE__FTC (GENIE__FTILE / GENIE__FTR)
static int genie__fin_transposed(const genie__fin *f, int nd) {
    return f->sp == 0 && f->dt == GENIE_F32 && f->st[nd - 2] == 1 && f->st[nd - 1] != 1 && f->st[nd - 1] != 0;
}
static int genie__fblocked(const genie__fgroup *g) {
    int k;
    if (g->row >= 0 || g->cdt != GENIE_F32 || g->rnd || g->nd < 2 || g->shape[g->nd - 2] < GENIE__FTR ||
        g->shape[g->nd - 1] < GENIE__FTC)
        return 0;
    for (k = 0; k < g->nin; k++)
        if (genie__fin_transposed(&g->in[k], g->nd)) return 1;
    return 0;
}
/* The block of nr x nc elements from flat index `base` of space 0 (rows C apart). */
static void genie__fpass_block(const genie__fgroup *g, float *regs, float *opr, int64_t base, int64_t nr, int64_t nc) {
    const int nd = g->nd;
    const int64_t C = g->shape[nd - 1], c0 = base % C; /* the block's first column */
    const float *ip[GENIE__FMAX_IN];
    float *op[GENIE__FMAX_OPS];
    int64_t r, c;
    int j, k;
    for (k = 0; k < g->nin; k++) {
        const genie__fin *f = &g->in[k];
        float *d = regs + (size_t)k * GENIE__FTILE;
        ip[k] = d;
        if (genie__fin_transposed(f, nd)) {
            const int64_t s = f->st[nd - 1];
            int64_t off = f->off, pos = base;
            const float *x;
            int dd;
            for (dd = nd - 1; dd >= 0; dd--) {
                off += (pos % g->shape[dd]) * f->st[dd];
                pos /= g->shape[dd];
            }
            x = (const float *)f->data + off;
            for (c = nc; c < nc + GENIE__FTC && c0 + c < C; c++) /* the next block's columns, a line */
                GENIE__PREFETCH(x + c * s);                     /* each: their misses overlap this block's */
            for (c = 0; c < nc; c++)
                for (r = 0; r < nr; r++) d[r * nc + c] = x[c * s + r];
        } else {
            for (r = 0; r < nr; r++) genie__fin_load(f, g, base + r * C, nc, d + r * nc);
        }
    }
    for (j = 0; j < g->nops; j++) {
        const genie__fop *o = &g->ops[j];
        const float *x = o->x < 0 ? ip[-1 - o->x] : op[o->x];
        const float *y = o->y == GENIE__FSCALAR ? NULL : o->y < 0 ? ip[-1 - o->y] : op[o->y];
        const float *z = o->z == GENIE__FNONE ? NULL : o->z < 0 ? ip[-1 - o->z] : op[o->z];
        op[j] = opr + (size_t)j * GENIE__FTILE;
        if (genie__op_kinds[o->op] == GENIE__K_COPY) {
            op[j] = (float *)(uintptr_t)x; /* a copy in a register: its operand's */
            continue;
        }
        genie__fop_run(o, o->dt, 0, g->cpu, op[j], x, y, z, nr * nc); /* f32 values (genie__fblocked) */
    }
    for (j = 0; j < g->nops; j++)
        if (g->written[j])
            for (r = 0; r < nr; r++) genie__fout_store(&g->out[j], g, base + r * C, nc, op[j] + r * nc);
}

/* A row group's row registers (input rows, output rows): a block's worth, 64-byte multiples. */
static int64_t genie__frow_cap(const genie__fgroup *g) {
    int64_t c = g->len > GENIE__FTILE ? g->len : GENIE__FTILE;
    return (c + 15) & ~(int64_t)15;
}
/* A row group's f16/bf16 layer_norm weight or bias: converted into a row register of its own. */
static int genie__frow_half_wb(const genie__fgroup *g) {
    const genie__fop *ro = g->row >= 0 ? &g->ops[g->row] : NULL;
    return ro && ((ro->y != GENIE__FNONE && g->in[-1 - ro->y].dt != GENIE_F32) ||
                  (ro->z != GENIE__FNONE && g->in[-1 - ro->z].dt != GENIE_F32));
}
#define GENIE__CFW 8192 /* widest block of a column group (its f64 sums: 64 KiB, deviations 64 more) */
static size_t genie__fgroup_ws_bytes(const genie__fgroup *g) {
    const size_t rregs = g->row < 0 || g->col ? 0 : genie__frow_half_wb(g) ? 4 : 2; /* x, y rows (and w, b) */
    const size_t cregs = g->col ? GENIE__FTILE + 5 * GENIE__CFW : 0; /* a segment, results, f64 sums and deviations */
    return ((size_t)(g->nin + g->nops) * GENIE__FTILE + rregs * (size_t)genie__frow_cap(g) + cregs) * 4;
}
static int genie__take(genie__kparams *p, int nth, int64_t total, int64_t chunk, int64_t *lo, int64_t *hi) {
    const int64_t c = nth > 1 ? (int64_t)GENIE__ADD(&p->next, 1) : (int64_t)p->next++; /* alone: all at once */
    *lo = c * chunk;
    *hi = GENIE__MIN(total, *lo + chunk);
    return *lo < total;
}
/* The fused kernel: threads take chunks of whole tiles (genie__take); registers live in the workspace.
   The tile two ahead is prefetched while this one computes: the hardware
   prefetcher alone leaves a compute-heavy chain waiting on each tile's first
   loads (the 8-op chain: 33.5 -> 31.6 ms on 16M floats). */
static genie_result genie__k_fused(genie__kparams *p, int ith, int nth) {
    const genie__fgroup *g = p->fg;
    float *regs = (float *)(p->ws + (size_t)ith * genie__fgroup_ws_bytes(g)), *ops = regs + (size_t)g->nin * GENIE__FTILE;
    int64_t lo, hi, t;
    if (genie__fblocked(g)) { /* blocks along the last dim, then down the rows; no prefetch (the
                                 transposed reads run along lines, the others along rows) */
        const int64_t R = g->shape[g->nd - 2], C = g->shape[g->nd - 1];
        const int64_t rb = (R + GENIE__FTR - 1) / GENIE__FTR, cb = (C + GENIE__FTC - 1) / GENIE__FTC;
        genie__share(g->total / (R * C) * rb * cb, ith, nth, &lo, &hi);
        for (t = lo; t < hi; t++) {
            const int64_t o = t / (rb * cb), r0 = t % (rb * cb) / cb * GENIE__FTR, c0 = t % cb * GENIE__FTC;
            genie__fpass_block(g, regs, ops, o * R * C + r0 * C + c0, GENIE__MIN(GENIE__FTR, R - r0),
                               GENIE__MIN(GENIE__FTC, C - c0));
        }
        return GENIE_OK;
    }
    /* Tiles in order; the contiguous operands' lines 4 tiles ahead are asked for into L2
       (written here: GCC drops a call that only prefetches). Into L1 (2 tiles ahead for
       inputs, 4 for outputs, as before) they stalled the pass on Zen 4, whose L1 the tiles
       and the ops' registers fill: chain8 16M, 1 thread, interleaved A/B: L1 43.7 ms, none
       30.7, L2 4 or 8 tiles ahead 27.7-28.0 against none's 29.5-30.9 (2 threads 14.7-14.8
       against 15.5-16.0). */
    const int64_t ntiles = (g->total + GENIE__FTILE - 1) / GENIE__FTILE, chunk = genie__chunk(ntiles, nth);
    while (genie__take(p, nth, ntiles, chunk, &lo, &hi)) {
        for (t = lo; t < hi; t++) {
            const int64_t start = t * GENIE__FTILE, ahead = start + 4 * GENIE__FTILE;
            int k;
            for (k = 0; k < g->nin + g->nops && t + 4 < hi; k++) {
                const genie__fin *f = k < g->nin ? &g->in[k] : &g->out[k - g->nin];
                const char *b;
                size_t es, l;
                if ((k >= g->nin && !g->written[k - g->nin]) || f->sp != 0 || !f->contig) continue; /* out: written only */
                es = genie__dt_size[f->dt];
                b = (const char *)f->data + (size_t)(f->off + ahead) * es;
                for (l = 0; l < GENIE__FTILE * es; l += 64) GENIE__PREFETCH_L2(b + l);
            }
            genie__fpass(g, 0, 0, g->nops, regs, ops, NULL, start, GENIE__MIN(GENIE__FTILE, g->total - start), -1, NULL);
        }
    }
    return GENIE_OK;
}
/* Rows [i0, i1) of the row op's input, row-major: read in place (a contiguous
   f32 input), loaded, or computed by the prologue tile by tile into xrow. Before each
   tile, the contiguous inputs' lines of the same tile in the next block are asked
   for into L2: the row op's own next-row prefetch reads the workspace row in a group, so
   without this the inputs' lines were asked for by nothing. Into L2, not L1: a next
   row's lines in L1 (2 x 16 KiB) evicted the block's workspace row. bench-rowwise's groups
   over [4096, 4096], 1 thread, Zen 4: softmax(x * 0.125 + m) 18.8-20.3 -> 14.9-16.6 ms,
   logsumexp(x * 0.5) + 1 9.5-10.8 -> 7.3-7.6, layer_norm(x + m) * w + b 27.0 -> 23.8
   (into L1: 3-10% slower).
   The loop is written here: GCC drops a call to a function that only prefetches. */
static const float *genie__frows_in(const genie__fgroup *g, float *regs, float *opr, float *xrow, int64_t i0, int64_t i1) {
    const genie__fop *ro = &g->ops[g->row];
    const int64_t s0 = i0 * g->len, s1 = i1 * g->len;
    int64_t c, n;
    if (ro->x < 0) {
        const genie__fin *f = &g->in[-1 - ro->x];
        if (f->contig && f->dt == GENIE_F32) return (const float *)f->data + f->off + s0;
        if (f->contig && s1 + (s1 - s0) <= g->total) { /* f16/bf16 rows: the next block's lines, as below */
            const int64_t es = (int64_t)genie__dt_size[f->dt];
            const char *b = (const char *)f->data + (size_t)(f->off + s1) * (size_t)es;
            int64_t l;
            for (l = 0; l < (s1 - s0) * es; l += 64) GENIE__PREFETCH_L2(b + l);
        }
        genie__fin_load(f, g, s0, s1 - s0, xrow);
        return xrow;
    }
    for (c = s0; c < s1; c += n) {
        int k;
        n = GENIE__MIN(GENIE__FTILE, s1 - c);
        for (k = 0; k < g->nin && c + (s1 - s0) + n <= g->total; k++) {
            const genie__fin *f = &g->in[k];
            const int64_t es = (int64_t)genie__dt_size[f->dt];
            const char *b;
            int64_t l;
            if (f->sp != 0 || !f->contig) continue; /* others: not at c */
            b = (const char *)f->data + (size_t)(f->off + c + (s1 - s0)) * (size_t)es;
            for (l = 0; l < n * es; l += 64) GENIE__PREFETCH_L2(b + l);
        }
        genie__fpass(g, 0, 0, g->row, regs, opr, NULL, c, n, ro->x, xrow + (c - s0));
    }
    return xrow;
}
/* The row group kernel: threads take blocks of rows (a reduction's block fills
   a tile of outputs, a row-shaped op's a tile of inputs, or one row); each
   block: its input rows, the row op row by row into the output rows (the row
   op's own buffer when it is written contiguously in f32, else a register), the
   epilogue over the block's outputs. f16/bf16 rows are loaded into f32, computed
   there (weight and bias converted once) and rounded once: by the store, and in the
   register before an epilogue reads it. Results do not depend on the threads. */
static genie_result genie__k_rfused(genie__kparams *p, int ith, int nth) {
    const genie__fgroup *g = p->fg;
    const genie__fop *ro = &g->ops[g->row];
    const int kind = genie__op_kinds[ro->op], scalar = kind == GENIE__K_REDUCE || kind == GENIE__K_ARGREDUCE;
    const genie__rowk *rk = g->cpu > GENIE_CPU_REFERENCE && g->cpu < GENIE_CPU_COUNT && genie__rowks[g->cpu].sum
                                ? &genie__rowks[g->cpu] : &genie__rowks[GENIE_CPU_GENERIC];
    const int64_t len = g->len, olen = scalar ? 1 : len, cap = genie__frow_cap(g);
    const int64_t ib = len >= GENIE__FTILE ? 1 : GENIE__FTILE / len, ob = scalar ? GENIE__FTILE : ib;
    float *regs = (float *)(p->ws + (size_t)ith * genie__fgroup_ws_bytes(g)), *opr = regs + (size_t)g->nin * GENIE__FTILE;
    float *xrow = opr + (size_t)g->nops * GENIE__FTILE, *yrow = xrow + cap;
    const genie__fin *rout = g->written[g->row] ? &g->out[g->row] : NULL;
    const int direct = rout && rout->contig && rout->dt == GENIE_F32 && kind != GENIE__K_ARGREDUCE;
    const int nt = direct && g->nops == g->row + 1 && g->rows * len >= GENIE__ROWS_NT_BYTES / 4;
    const float *w = NULL, *b = NULL;
    const int64_t nblk = (g->rows + ob - 1) / ob, chunk = genie__chunk(nblk, nth);
    const int rnd = g->nops > g->row + 1 && (g->rnd >> g->row & 1); /* an f16/bf16 row value the epilogue reads */
    const int rms_w = ro->op == GENIE__OP_RMS_NORM && ro->y != GENIE__FNONE && (ro->dt == GENIE_F16 || ro->dt == GENIE_BF16);
    /* a large softmax (the root, streamed): its rows pipelined as genie__k_rows', across a take's blocks */
    const int pipe = ro->op == GENIE__OP_SOFTMAX && nt && len <= GENIE__SOFTMAX_ROW && rk->sumexp_scale;
    float tb[GENIE__PIPE_TB], *t2[2] = {tb, tb}, *yq = NULL, sq = 0; /* yq: the row waiting to go out, */
    int64_t lo, hi, blk, i0, i1, o, c, n, j;                            /* its exps in t2[tq] */
    int tq = 0;
    if (pipe) genie__pipe_rows(tb, rout->data, t2); /* beside the output's rows (the input may be a workspace row) */
    if (ro->y != GENIE__FNONE || ro->z != GENIE__FNONE) { /* layer_norm's weight, bias: f32 in place, else converted */
        float *wb = yrow + cap;
        const genie__fin *fw = ro->y != GENIE__FNONE ? &g->in[-1 - ro->y] : NULL, *fb = ro->z != GENIE__FNONE ? &g->in[-1 - ro->z] : NULL;
        if (fw && fw->dt == GENIE_F32) w = (const float *)fw->data + fw->off;
        else if (fw) genie__fin_load(fw, g, 0, len, wb), w = wb;
        if (fb && fb->dt == GENIE_F32) b = (const float *)fb->data + fb->off;
        else if (fb) genie__fin_load(fb, g, 0, len, wb + cap), b = wb + cap;
    }
    while (genie__take(p, nth, nblk, chunk, &lo, &hi)) {
        for (blk = lo; blk < hi; blk++) {
            const int64_t r0 = blk * ob, r1 = GENIE__MIN(g->rows, r0 + ob);
            float *y0 = direct ? (float *)rout->data + rout->off + r0 * olen : yrow;
            for (i0 = r0; i0 < r1; i0 = i1) {
                const float *xs;
                i1 = GENIE__MIN(r1, i0 + ib);
                xs = genie__frows_in(g, regs, opr, xrow, i0, i1);
                for (o = i0; o < i1; o++) {
                    const float *x = xs + (o - i0) * len;
                    double r;
                    if (pipe) { /* this row's exps while the previous one streams out */
                        const float m = rk->maxmin(x, len, 1);
                        const double se = yq ? rk->sumexp_scale(x, t2[o & 1], len, m, t2[(o - 1) & 1], yq, sq)
                                             : rk->sumexp(x, t2[o & 1], len, m);
                        yq = y0 + (o - r0) * olen, sq = (float)(1.0 / se), tq = (int)(o & 1);
                        continue;
                    }
                    r = genie__row_run(rk, ro->op, &ro->a, x, len, y0 + (o - r0) * olen, rms_w ? NULL : w, b, nt);
                    if (rms_w) { /* x * rstd rounded to the dtype before the weight, as genie__k_rows */
                        float *yo = y0 + (o - r0) * olen;
                        genie__fround(g->cpu, ro->dt, yo, len);
                        for (j = 0; j < len; j++) yo[j] *= w[j];
                    }
                    if (kind == GENIE__K_REDUCE) {
                        y0[o - r0] = (float)r;
                    } else if (kind == GENIE__K_ARGREDUCE) { /* the root: written in place */
                        if (ro->a.i[1]) ((int64_t *)rout->data)[rout->off + o] = (int64_t)r;
                        else genie__stf((void *)(uintptr_t)rout->data, rout->off + o, rout->dt, x[(int64_t)r]); /* a value */
                    }
                }
            }
            if (rnd) genie__fround(g->cpu, ro->dt, yrow, (r1 - r0) * olen); /* not direct: f16/bf16 */
            if (rout && !direct && kind != GENIE__K_ARGREDUCE) genie__fout_store(rout, g, r0 * olen, (r1 - r0) * olen, yrow);
            for (c = r0 * olen; c < r1 * olen; c += n) {
                n = GENIE__MIN(GENIE__FTILE, r1 * olen - c);
                genie__fpass(g, 1, g->row + 1, g->nops, regs, opr, y0 + (c - r0 * olen), c, n, -1, NULL);
            }
        }
        if (yq) { /* the take's last row (the next take's rows are elsewhere) */
            rk->scale(t2[tq], yq, len, sq, 1);
            yq = NULL;
        }
    }
    return GENIE_OK;
}
/* The column sums' adds and comparisons of path cpu (genie__k_reduce_cols's). */
static void genie__cols_fns(genie_cpu cpu, genie__cols_add_fn *add, genie__cols_mm_fn *mm, genie__cols_sqdev_fn *sq,
                            genie__cols_arg_fn *arg, genie__cols_sumexp_fn *se) {
    *add = genie__cols_add_c, *mm = genie__cols_mm_c, *sq = genie__cols_sqdev_c, *arg = genie__cols_arg_c, *se = genie__cols_sumexp_c;
#ifdef GENIE__X86
    if (cpu == GENIE_CPU_AVX512)
        *add = genie__cols_add_avx512, *mm = genie__cols_mm_avx512, *sq = genie__cols_sqdev_avx512, *arg = genie__cols_arg_avx512,
        *se = genie__cols_sumexp_avx512;
    if (cpu == GENIE_CPU_AVX2)
        *add = genie__cols_add_avx2, *mm = genie__cols_mm_avx2, *sq = genie__cols_sqdev_avx2, *arg = genie__cols_arg_avx2,
        *se = genie__cols_sumexp_avx2;
#endif
}
/* The column group kernel: threads take blocks of up to GENIE__CFW kept positions of
   one outer position, about a thread's share, each with its accumulators in the
   workspace (L2); a block
   goes down all rows, each row's segment a tile at a time (where the block is the whole
   row and short, whole rows to a tile) read in place (a contiguous f32 input), loaded,
   or computed by the prologue, and added to the accumulators as genie__k_reduce_cols adds
   them (f64 sums, f32 comparisons, row by row; prod's f64 products, and var's and std's
   squared deviations from the means in a second pass, the prologue computed again, as
   genie__k_reduce computes them; logsumexp's maxima, then its sums of f32 exp(x - max) in
   f64 in a second pass, as the row kernel's; an argreduce's best values and their rows). A row's segment is long enough for the
   hardware to stream it: blocks of 256 (the column kernel's) read 1 KiB a row and took
   sum(x * m, 0) over [4096, 4096] to 20.8 ms, slower than the unfused 16.3. Each result
   is rounded once from its accumulator to the centre's dtype, as the column kernel
   stores it, then written and read by the epilogue. Its results bit for bit: a column's
   sum is added in row order whatever the block and the threads. */
static int64_t genie__cfw(const genie__fgroup *g, int nth) {
    const int64_t w = g->outer >= nth ? g->len : (g->len + nth - 1) / nth;
    return GENIE__MIN(GENIE__CFW, (w + 15) & ~(int64_t)15);
}
static genie_result genie__k_cfused(genie__kparams *p, int ith, int nth) {
    const genie__fgroup *g = p->fg;
    const genie__fop *ro = &g->ops[g->row];
    const int op = ro->op, arg = genie__op_kinds[op] == GENIE__K_ARGREDUCE, lse = op == GENIE__OP_LOGSUMEXP;
    const int mm = op == GENIE__OP_AMAX || op == GENIE__OP_AMIN || lse; /* logsumexp: the maxima first */
    const int want_max = op == GENIE__OP_AMAX || lse || op == GENIE__OP_ARGMAX || op == GENIE__OP_MAX_DIM;
    const int two = op == GENIE__OP_VAR || op == GENIE__OP_STD || lse; /* var, std: the means, then the squared deviations;
                                                                          logsumexp: the maxima, then sum exp(x - max) */
    const int64_t R = g->rows, K = g->len, W = genie__cfw(g, nth), cb = (K + W - 1) / W, nblk = g->outer * cb;
    const int64_t chunk = genie__chunk(nblk, nth);
    const genie__fin *f = ro->x < 0 ? &g->in[-1 - ro->x] : NULL, *rout = g->written[g->row] ? &g->out[g->row] : NULL;
    const int inplace = f && f->contig && f->dt == GENIE_F32 && f->ldt == GENIE_F32;
    float *regs = (float *)(p->ws + (size_t)ith * genie__fgroup_ws_bytes(g)), *opr = regs + (size_t)g->nin * GENIE__FTILE;
    float *seg = opr + (size_t)g->nops * GENIE__FTILE, *y = seg + GENIE__FTILE, *accf = y + GENIE__CFW;
    double *acc = (double *)(void *)accf, *dev = acc + GENIE__CFW; /* sums (accf: comparisons), squared deviations */
    int64_t *idx = (int64_t *)(void *)dev;                          /* an argreduce's indices */
    genie__cols_add_fn add;
    genie__cols_mm_fn mmf;
    genie__cols_sqdev_fn sqdev;
    genie__cols_arg_fn argf;
    genie__cols_sumexp_fn sumexp;
    int64_t lo, hi, blk, r, r1, i, c, t, n;
    int pass;
    genie__cols_fns(g->cpu, &add, &mmf, &sqdev, &argf, &sumexp);
    while (genie__take(p, nth, nblk, chunk, &lo, &hi)) {
        for (blk = lo; blk < hi; blk++) {
            const int64_t a = blk / cb, c0 = blk % cb * W, nb = GENIE__MIN(W, K - c0), o0 = a * K + c0; /* o0: its first result */
            const int64_t m = nb == K && 2 * K <= GENIE__FTILE ? GENIE__FTILE / K : 1; /* rows a tile */
            for (c = 0; c < nb; c++) {
                if (mm || arg) accf[c] = want_max ? -INFINITY : INFINITY; /* (an argreduce: row 0 ties or beats it) */
                else acc[c] = op == GENIE__OP_PROD ? 1.0 : 0.0;
                if (arg) idx[c] = 0;
                else if (!mm || lse) dev[c] = 0.0;
            }
            for (pass = 0; pass <= two; pass++) {
                for (r = 0; r < R; r = r1) {
                    r1 = GENIE__MIN(R, r + m);
                    for (t = 0; t < nb; t += n) {
                        const int64_t s0 = (a * R + r) * K + c0 + t;
                        const float *x = seg;
                        int k;
                        n = m > 1 ? (r1 - r) * K : GENIE__MIN(GENIE__FTILE, nb - t);
                        for (k = 0; k < g->nin && r1 < R; k++) { /* the next rows' lines of this tile, into L2 */
                            const genie__fin *fk = &g->in[k];
                            const int64_t es = (int64_t)genie__dt_size[fk->dt], ahead = s0 + (r1 - r) * K;
                            const char *b = (const char *)fk->data + (size_t)(fk->off + ahead) * (size_t)es;
                            int64_t l;
                            if (fk->sp != 0 || !fk->contig) continue;
                            for (l = 0; l < GENIE__MIN(n, (R - r1) * K) * es; l += 64) GENIE__PREFETCH_L2(b + l);
                        }
                        if (inplace) x = (const float *)f->data + f->off + s0;
                        else if (f) genie__fin_load(f, g, s0, n, seg);
                        else genie__fpass(g, 0, 0, g->row, regs, opr, NULL, s0, n, ro->x, seg);
                        if (m > 1) n = nb;
                        for (i = 0; i < r1 - r; i++) {
                            if (pass && lse) sumexp(dev + t, accf + t, x + i * K, n);
                            else if (pass) sqdev(dev + t, acc + t, x + i * K, n);
                            else if (mm) mmf(accf + t, x + i * K, n, want_max);
                            else if (arg) argf(accf + t, idx + t, x + i * K, n, r + i, want_max);
                            else if (op == GENIE__OP_PROD) genie__cols_prod_c(acc + t, x + i * K, n);
                            else add(acc + t, x + i * K, n);
                        }
                    }
                }
                if (two && !pass)
                    for (c = 0; c < nb; c++) {
                        if (lse) accf[c] = accf[c] == -INFINITY ? 0.0f : accf[c]; /* as the reference (+inf: below) */
                        else acc[c] /= (double)R;                          /* the means */
                    }
            }
            if (arg) { /* the root, no epilogue: the indices, or (max/min along a dim) the values */
                for (c = 0; c < nb; c++) {
                    if (ro->a.i[1]) ((int64_t *)(void *)(uintptr_t)rout->data)[rout->off + o0 + c] = idx[c];
                    else genie__stf((void *)(uintptr_t)rout->data, rout->off + o0 + c, rout->dt, accf[c]);
                }
                continue;
            }
            for (c = 0; c < nb; c++) {
                double v = lse ? (accf[c] == INFINITY ? INFINITY : log(dev[c]) + accf[c]) : mm ? (double)accf[c] : op == GENIE__OP_MEAN ? acc[c] / (double)R : acc[c], dof;
                uint16_t h;
                if (two && !lse) { /* as the reference: the deviations over R - correction (0: inf or NaN) */
                    dof = (double)R - (double)ro->a.i[1];
                    v = dev[c] / (dof > 0 ? dof : 0.0);
                    if (op == GENIE__OP_STD) v = sqrt(v);
                }
                if (ro->dt == GENIE_F32) {
                    y[c] = (float)v;
                } else { /* f16/bf16: rounded from the f64 value, as the reference stores it */
                    genie__stf(&h, 0, ro->dt, v);
                    y[c] = (float)genie__ldf(&h, 0, ro->dt);
                }
            }
            for (t = 0; t < nb; t += n) {
                n = GENIE__MIN(GENIE__FTILE, nb - t);
                if (rout) genie__fout_store(rout, g, o0 + t, n, y + t);
                if (g->nops > g->row + 1) genie__fpass(g, 1, g->row + 1, g->nops, regs, opr, y + t, o0 + t, n, -1, NULL);
            }
        }
    }
    return GENIE_OK;
}
/* The segmented group kernel's results for rows [r0, r0 + nr) from their accumulators (r, m2:
   sums, deviations or logsumexp's s and m; best, at: the extremes and their places): an
   argreduce's indices written (the root, no epilogue), else the values rounded once to the
   centre's dtype, written and read by the epilogue. */
static void genie__sfused_emit(const genie__fgroup *g, float *regs, float *opr, int64_t r0, int64_t nr, const double *r,
                               const double *m2, const float *best, const int64_t *at) {
    const genie__fop *ro = &g->ops[g->row];
    const int op = ro->op, lse = op == GENIE__OP_LOGSUMEXP;
    const int mm = op == GENIE__OP_AMAX || op == GENIE__OP_AMIN;
    const genie__fin *rout = g->written[g->row] ? &g->out[g->row] : NULL;
    float y[GENIE__GROWS];
    int64_t i;
    if (genie__op_kinds[op] == GENIE__K_ARGREDUCE) { /* (max/min along one dim, the values, never segments) */
        for (i = 0; i < nr; i++) ((int64_t *)(void *)(uintptr_t)rout->data)[rout->off + r0 + i] = at[i];
        return;
    }
    for (i = 0; i < nr; i++) {
        const double dof = (double)g->len - (double)ro->a.i[1];
        double v = lse ? (m2[i] != m2[i] || isinf(m2[i]) ? m2[i] : log(r[i]) + m2[i]) /* (every x -inf: -inf) */
                 : mm ? (double)best[i] : op == GENIE__OP_SUM || op == GENIE__OP_PROD ? r[i]
                 : op == GENIE__OP_MEAN ? r[i] / (double)g->len : m2[i] / (dof > 0 ? dof : 0.0);
        uint16_t h;
        if (op == GENIE__OP_STD) v = sqrt(v);
        if (ro->dt == GENIE_F32) {
            y[i] = (float)v;
        } else { /* f16/bf16: rounded from the f64 value, as the reference stores it */
            genie__stf(&h, 0, ro->dt, v);
            y[i] = (float)genie__ldf(&h, 0, ro->dt);
        }
    }
    if (rout) genie__fout_store(rout, g, r0, nr, y);
    if (g->nops > g->row + 1) genie__fpass(g, 1, g->row + 1, g->nops, regs, opr, y, r0, nr, -1, NULL);
}
/* Chunks of segments a segmented group of a single block (16 rows or fewer: a few channels,
   or one, the reduction of everything) splits into, from 64K elements, so that its threads
   share it (genie__k_sfused): 64, or one a segment where there are fewer; 0: blocks of rows.
   Never on the threads: so the values do not depend on them. prod does not split (the
   reference's order, bit for bit). */
#define GENIE__SEG_CHUNKS 64
static int64_t genie__sfused_chunks(const genie__fgroup *g) {
    return g->ops[g->row].op != GENIE__OP_PROD && g->rows <= GENIE__GROWS && g->total >= GENIE__ROWS_MIN_SHARED
               ? GENIE__MIN(g->len / g->outer, GENIE__SEG_CHUNKS) : 0;
}
/* A chunk's accumulators, one row's (genie__k_sfused's split) */
typedef struct {
    double r, m2; /* sums, deviations; logsumexp: s, m */
    float best;   /* the extreme */
    int64_t at;   /* its place */
} genie__seg_acc;
/* The segmented group kernel (col 2): threads take blocks of GENIE__GROWS rows (kept
   positions, adjacent channels); a block goes down the segments, segment s of each of its
   rows before segment s + 1 (memory in order, as genie__grows_segsum), each segment (outer:
   its length, a run of space 0's linear index: row i's segment s is [i len + s outer, + outer))
   computed by the prologue a tile at a time (a lone centre's f32 input read in place) and
   folded into the row's accumulators as the segmented kernel folds its segments (f64 sums,
   Chan's update for var and std, the extremes as the reference compares them, a zero's or
   NaN's bits its first one's); prod multiplies in f64 in the reference's order; logsumexp
   is online, one pass: a tile's maximum v and sum exp(x - v), merged into the row's (m, s)
   by rescaling the smaller side's sum (a tile of -inf adds nothing, +inf or a NaN decides
   the row); an argreduce keeps the first extreme's place in its row (a later tile's only
   where strictly beyond, or the first NaN). Then genie__sfused_emit. A single block
   (genie__sfused_chunks) is split by segments instead: threads take chunks of them as they
   come, each chunk's accumulators kept in the workspace after the threads' registers, then
   after a barrier thread 0 folds the chunks in their order by the same rules (Chan's for
   the deviations, the counts the chunks'), so every thread count gives one result. */
static genie_result genie__k_sfused(genie__kparams *p, int ith, int nth) {
    const genie__fgroup *g = p->fg;
    const genie__fop *ro = &g->ops[g->row];
    const genie__rowk *rk = &genie__rowks[g->cpu];
    const int op = ro->op, two = op == GENIE__OP_VAR || op == GENIE__OP_STD, lse = op == GENIE__OP_LOGSUMEXP;
    const int arg = genie__op_kinds[op] == GENIE__K_ARGREDUCE, mm = op == GENIE__OP_AMAX || op == GENIE__OP_AMIN || arg;
    const int want_max = op == GENIE__OP_AMAX || op == GENIE__OP_ARGMAX;
    const int64_t R = g->rows, L = g->len, S = g->outer, nseg = L / S, nblk = (R + GENIE__GROWS - 1) / GENIE__GROWS;
    const int64_t nck = genie__sfused_chunks(g), chunk = nck ? 1 : genie__chunk(nblk, nth);
    const genie__fin *fx = ro->x < 0 ? &g->in[-1 - ro->x] : NULL; /* a lone centre's input */
    const int direct = fx && fx->dt == GENIE_F32 && fx->ldt == GENIE_F32 && fx->st[g->nd - 1] == 1; /* its tiles in place */
    float *regs = (float *)(p->ws + (size_t)ith * genie__fgroup_ws_bytes(g)), *opr = regs + (size_t)g->nin * GENIE__FTILE;
    float *seg = opr + (size_t)g->nops * GENIE__FTILE, best[GENIE__GROWS];
    genie__seg_acc *acc = (genie__seg_acc *)(void *)(p->ws + (size_t)nth * genie__fgroup_ws_bytes(g)); /* chunk c's row i:
                                                                                                         c GROWS + i */
    double r[GENIE__GROWS], m2[GENIE__GROWS]; /* logsumexp: s, m */
    int64_t at[GENIE__GROWS], lo, hi, blk, sg, i, t, n, j, c;
    while (genie__take(p, nth, nck ? nck : nblk, chunk, &lo, &hi)) {
        for (blk = nck ? 0 : lo; blk < (nck ? 1 : hi); blk++) {
            const int64_t r0 = blk * GENIE__GROWS, nr = GENIE__MIN(GENIE__GROWS, R - r0);
            const int64_t s0 = nck ? nseg * lo / nck : 0, s1 = nck ? nseg * hi / nck : nseg, base = s0 * S;
            for (i = 0; i < nr; i++) r[i] = op == GENIE__OP_PROD ? 1.0 : 0.0, m2[i] = lse ? -INFINITY : 0.0, best[i] = 0, at[i] = 0;
            for (sg = s0; sg < s1; sg++)
                for (i = 0; i < nr; i++)
                    for (t = 0; t < S; t += n) {
                        const int64_t first = sg * S + t; /* the tile's place in its row; first - base in its chunk */
                        const float *x = seg;
                        int k;
                        n = GENIE__MIN(GENIE__FTILE, S - t);
                        for (k = 0; k < g->nin; k++) { /* 4 tiles on in memory into L2 (the next channel's segment follows) */
                            const genie__fin *fk = &g->in[k];
                            const int64_t es = (int64_t)genie__dt_size[fk->dt];
                            int64_t off = fk->off, pos = (r0 + i) * L + first, l;
                            int d;
                            if (fk->sp != 0 || fk->st[g->nd - 1] != 1) continue;
                            for (d = g->nd - 1; d >= 0; d--) {
                                off += pos % g->shape[d] * fk->st[d];
                                pos /= g->shape[d];
                            }
                            for (l = 0; l < n * es; l += 64) GENIE__PREFETCH_L2(fk->data + (off + 4 * GENIE__FTILE) * es + l);
                            if (fk == fx && direct) x = (const float *)(const void *)fk->data + off; /* the tile in place */
                        }
                        if (!fx) genie__fpass(g, 0, 0, g->row, regs, opr, NULL, (r0 + i) * L + first, n, ro->x, seg);
                        else if (!direct) genie__fin_load(fx, g, (r0 + i) * L + first, n, seg);
                        if (lse) {
                            const float v = rk->maxmin(x, n, 1); /* NaN where the tile has one */
                            if (v != v || (v == INFINITY && m2[i] == m2[i])) {
                                m2[i] = v; /* the row's result, unless a NaN follows an inf */
                            } else if (m2[i] == m2[i] && m2[i] != INFINITY && v != -INFINITY) {
                                const double e = rk->sumexp(x, NULL, n, v);
                                if (v > m2[i]) r[i] = r[i] * exp(m2[i] - v) + e, m2[i] = v; /* (m -inf: r is 0) */
                                else r[i] += e * exp((double)v - m2[i]);
                            }
                        } else if (mm) {
                            const float v = rk->maxmin(x, n, want_max);
                            if (first == base || (best[i] == best[i] && (v != v || (want_max ? v > best[i] : v < best[i])))) {
                                const int64_t f = arg || v == 0 || v != v ? rk->find(x, n, v) : 0;
                                best[i] = v == 0 || v != v ? x[f] : v;
                                at[i] = first + f;
                            }
                        } else if (op == GENIE__OP_PROD) {
                            for (j = 0; j < n; j++) r[i] *= x[j]; /* the reference's order, one multiply waited on */
                        } else {
                            const double nb = (double)n, na = (double)(first - base);
                            if (two) { /* one pass, as genie__grows_segsum */
                                double mb;
                                const double q = genie__row_m2(rk, x, n, &mb), d = mb - (na > 0 ? r[i] / na : 0.0);
                                m2[i] = na > 0 ? m2[i] + q + d * d * (na * nb / (na + nb)) : q;
                                r[i] += mb * nb;
                            } else {
                                r[i] += rk->sum(x, n);
                            }
                        }
                    }
            if (nck) { /* this chunk's accumulators, folded below */
                for (i = 0; i < nr; i++) {
                    genie__seg_acc *a = &acc[lo * GENIE__GROWS + i];
                    a->r = r[i], a->m2 = m2[i], a->best = best[i], a->at = at[i];
                }
                continue;
            }
            genie__sfused_emit(g, regs, opr, r0, nr, r, m2, best, at);
        }
    }
    if (!nck) return GENIE_OK;
    genie__barrier(p->pool, nth);
    if (ith) return GENIE_OK;
    for (i = 0; i < R; i++) { /* the chunks in their order, as one thread folds the tiles */
        double na = (double)(nseg / nck * S); /* chunk 0's elements a row (chunk c: segments [nseg c / nck, nseg (c + 1) / nck)) */
        r[i] = acc[i].r, m2[i] = acc[i].m2, best[i] = acc[i].best, at[i] = acc[i].at;
        for (c = 1; c < nck; c++) {
            const genie__seg_acc *a = &acc[c * GENIE__GROWS + i];
            const double nb = (double)((nseg * (c + 1) / nck - nseg * c / nck) * S);
            if (mm) {
                if (best[i] == best[i] && (a->best != a->best || (want_max ? a->best > best[i] : a->best < best[i])))
                    best[i] = a->best, at[i] = a->at;
            } else if (lse) { /* a chunk's (m, s) as a tile's (v, e) */
                if (a->m2 != a->m2 || (a->m2 == INFINITY && m2[i] == m2[i])) {
                    m2[i] = a->m2;
                } else if (m2[i] == m2[i] && m2[i] != INFINITY && a->m2 != -INFINITY) {
                    if (a->m2 > m2[i]) r[i] = r[i] * exp(m2[i] - a->m2) + a->r, m2[i] = a->m2;
                    else r[i] += a->r * exp(a->m2 - m2[i]);
                }
            } else {
                if (two) {
                    const double d = a->r / nb - r[i] / na;
                    m2[i] = m2[i] + a->m2 + d * d * (na * nb / (na + nb));
                }
                r[i] += a->r;
            }
            na += nb;
        }
    }
    genie__sfused_emit(g, regs, opr, 0, R, r, m2, best, at);
    return GENIE_OK;
}
/* Run a group at its root's place in the tape: buffers for the written nodes,
   the kernel over the threads; then each written node is done and drops its
   inputs, and the inner nodes nothing can read, never written, are freed with
   them. A failed input fails every written node. */
static void genie__exec_group(genie_ctx *ctx, genie__fgroup *g) {
    genie__kparams p;
    int k, j, nth, share;
    uint8_t err = 0;
    for (k = 0; k < g->nin && !err; k++)
        if (g->src[k]->state == GENIE__FAILED) err = g->src[k]->err_code;
    if (err) { /* one node at a time: only what is computed from the failed value fails */
        for (j = 0; j < g->nops; j++) genie__exec(ctx, g->nodes[j], -1);
        return;
    }
    memset(&p, 0, sizeof p);
    p.n = g->root;
    p.fg = g;
    share = g->col == 2 ? (g->rows > GENIE__GROWS || genie__sfused_chunks(g)) && g->total >= GENIE__ROWS_MIN_SHARED
            : g->col    ? (g->len >= 32 || g->outer > 1) && g->total >= GENIE__ROWS_MIN_SHARED
            : g->row >= 0 ? g->rows > 1 && g->total >= GENIE__ROWS_MIN_SHARED : g->total >= GENIE__MIN_SHARED_ELEMS;
    p.pool = genie__tpool_get(ctx, share ? genie__ctx_threads(ctx) : 1);
    nth = genie__tpool_size(p.pool);
    for (j = 0; j < g->nops && !err; j++) {
        genie__node *n = g->nodes[j];
        size_t bytes = (size_t)n->numel * genie__dt_size[n->dtype];
        if (!g->written[j]) continue;
        if (!(n->buf = genie__buf_new(ctx, bytes))) {
            genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory for %lld elements", genie__op_names[n->op], (long long)n->numel);
            err = (uint8_t)-GENIE_ERR_OOM;
            break;
        }
        if (!g->out[j].contig || (g->out[j].sp ? g->ototal : g->total) != n->numel) memset(n->buf->data, 0, bytes);
        g->out[j].data = (const char *)n->buf->data;
    }
    if (!err && !genie__ws_reserve(ctx, (size_t)nth * genie__fgroup_ws_bytes(g) +
                                            (g->col == 2 ? (size_t)genie__sfused_chunks(g) * GENIE__GROWS * sizeof(genie__seg_acc) : 0))) {
        genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory for a fused pass", genie__op_names[g->root->op]);
        err = (uint8_t)-GENIE_ERR_OOM;
    }
    if (!err) {
        for (k = 0; k < g->nin; k++) g->in[k].data = (const char *)g->src[k]->buf->data;
        g->cpu = ctx->cpu;
        for (j = 0; j < g->nops; j++) genie__fop_bind(&g->ops[j], g->cpu);
        p.ws = ctx->ws;
        genie__tpool_run(p.pool, g->col == 2 ? genie__k_sfused : g->col ? genie__k_cfused : g->row >= 0 ? genie__k_rfused : genie__k_fused,
                         &p, nth);
        ctx->stats.nodes_executed += (uint64_t)g->nops;
        ctx->stats.fused_groups++;
        ctx->stats.fused_nodes += (uint64_t)g->nops;
    }
    for (j = g->nops - 1; j >= 0; j--) { /* consumers first: a written producer outlives its drop */
        genie__node *n = g->nodes[j];
        if (!g->written[j]) continue;
        n->state = (uint8_t)(err ? GENIE__FAILED : GENIE__DONE);
        if (err) {
            n->err_code = err;
            genie__buf_release(ctx, n->buf);
            n->buf = NULL;
            ctx->stats.nodes_failed++;
        }
        genie__node_drop_inputs(ctx, n);
    }
}

/* ---- products with an epilogue ----
   x = act(p), x = p + r, x = act(p) + r, x = act(p + r), with p a matmul/linear or a conv2d (f32
   or f64) that nothing else reads (no handle, no other node) and x read through
   p's own layout: x is computed by the GEMM, act and the residual applied to each
   finished tile; p and act(p) are never written. A conv2d's residual is read with
   its (Ho, Wo) as one dim (genie__conv_gemm_ok), its bias is its own. */
static int genie__epi_prod(const genie__node *p, const genie__vspec *rv) { /* p pending (its inputs are read) */
    return genie__op_kinds[p->op] == GENIE__K_MATMUL || (genie__op_kinds[p->op] == GENIE__K_CONV2D && genie__conv_gemm_ok(p, rv));
}
static int genie__epi_act(int op) {
    return op == GENIE__OP_RELU || op == GENIE__OP_GELU || op == GENIE__OP_GELU_TANH || op == GENIE__OP_SILU ||
           op == GENIE__OP_SIGMOID || op == GENIE__OP_TANH;
}
/* May consumer c take producer p (read as c's input i) into its epilogue? */
static int genie__epi_takes(const genie__tape_op *tape, const genie__node *p, const genie__node *c, int i) {
    return p->state == GENIE__PENDING && !p->base && tape[p->tix].uses == 1 && p->refs == 2 &&
           (p->dtype == GENIE_F32 || p->dtype == GENIE_F64) && c->dtype == p->dtype && c->cdt == p->dtype &&
           !c->base && genie__vspec_equal(c->in[i].v, p->out) && genie__vspec_equal(c->out, p->out);
}
/* Match x against the forms above; on a match, x's tape entry gets the
   epilogue and the nodes it absorbs become inner. */
static int genie__epi_match(genie__tape_op *tape, genie__node *x) {
    genie__epi_src *e = &tape[x->tix].epi;
    int s;
    if (genie__epi_act(x->op) && x->nin == 1) {
        genie__node *p = x->in[0].n;
        if (genie__epi_takes(tape, p, x, 0) && genie__epi_prod(p, NULL)) { /* (pending first: a done node's inputs are gone) */
            e->prod = p;
            e->act = x->op;
            tape[p->tix].inner = 1;
            return 1;
        }
        /* act(p + r): a residual block's relu(conv2d(x) + x) */
        if (p->op != GENIE__OP_ADD || !genie__epi_takes(tape, p, x, 0) || p->nin != 2 || p->has_scalar || p->in[0].n == p->in[1].n)
            return 0;
        for (s = 0; s < 2; s++) {
            genie__node *q = p->in[s].n;
            if (!genie__epi_takes(tape, q, p, s) || !genie__epi_prod(q, p->in[1 - s].v)) continue;
            e->prod = q;
            e->act = x->op;
            e->act_last = 1;
            e->res = p->in[1 - s].n;
            e->res_v = p->in[1 - s].v;
            tape[q->tix].inner = tape[p->tix].inner = 1;
            return 1;
        }
        return 0;
    }
    if (x->op != GENIE__OP_ADD || x->nin != 2 || x->has_scalar || x->in[0].n == x->in[1].n) return 0;
    for (s = 0; s < 2; s++) {
        genie__node *p = x->in[s].n, *r = x->in[1 - s].n;
        if (!genie__epi_takes(tape, p, x, s)) continue;
        if (genie__epi_prod(p, x->in[1 - s].v)) {
            e->prod = p;
        } else if (genie__epi_act(p->op) && p->nin == 1 && genie__epi_takes(tape, p->in[0].n, p, 0) &&
                   genie__epi_prod(p->in[0].n, x->in[1 - s].v)) {
            e->prod = p->in[0].n;
            e->act = p->op;
            tape[p->tix].inner = 1;
        } else {
            continue;
        }
        e->res = r;
        e->res_v = x->in[1 - s].v;
        tape[e->prod->tix].inner = 1;
        return 1;
    }
    return 0;
}
/* Run x = epilogue(product) at x's place in the tape. */
static void genie__exec_epi(genie_ctx *ctx, genie__tape_op *t) {
    genie__node *x = t->n, *prod = t->epi.prod;
    genie__kparams p;
    genie__kernel fn;
    int i, nth = 1;
    uint8_t err = 0;
    for (i = 0; i < prod->nin && !err; i++)
        if (prod->in[i].n->state == GENIE__FAILED) err = prod->in[i].n->err_code;
    if (!err && t->epi.res && t->epi.res->state == GENIE__FAILED) err = t->epi.res->err_code;
    if (!err && !(x->buf = genie__buf_new(ctx, (size_t)x->numel * genie__dt_size[x->dtype]))) {
        genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory for %lld elements", genie__op_names[x->op], (long long)x->numel);
        err = (uint8_t)-GENIE_ERR_OOM;
    }
    if (!err && genie__numel(x->out->ndim, x->out->shape) > 0) { /* an empty result runs no kernel */
        memset(&p, 0, sizeof p);
        p.n = x;
        p.epi = &t->epi;
        fn = genie__fast_kernel(ctx, &p, &nth);
        if (!fn) {
            genie__fail(ctx, GENIE_ERR_OOM, "%s", p.msg[0] ? p.msg : "genie: no kernel for a fused product");
            err = (uint8_t)-GENIE_ERR_OOM;
        } else {
            genie__tpool_run(p.pool, fn, &p, nth);
            i = 2 + (t->epi.act && t->epi.res);
            ctx->stats.nodes_executed += (uint64_t)i;
            ctx->stats.fused_groups++;
            ctx->stats.fused_nodes += (uint64_t)i;
        }
    }
    x->state = (uint8_t)(err ? GENIE__FAILED : GENIE__DONE);
    if (err) {
        x->err_code = err;
        genie__buf_release(ctx, x->buf);
        x->buf = NULL;
        ctx->stats.nodes_failed++;
    }
    genie__node_drop_inputs(ctx, x);
}

/* >>backend --------------------------------------------------------------- */
/* The backend table. A context may select one backend (genie_ctx_desc.backend)
   besides the built-in CPU executor. The tape stays the same: fusion and the
   buffer planner decide as for the CPU (product epilogues excepted: they are
   the CPU GEMM's), and at each step genie__exec asks the backend whether it
   supports the node (genie__exec_group: the group); when it does, the backend
   computes it on its device, else the CPU executor does (a fallback, counted).
   Buffers: a genie__buf keeps its host block and, once a backend touched it, a
   device block of the same size class (b->dev); b->loc says which copies hold
   the current bytes. Device blocks ride along with their buffers through the
   context's cache, so the CPU planner's liveness governs device memory too,
   and the cache is the device's caching pool. Bytes move only where the tape
   needs them: host -> device before a backend step reads a buffer whose bytes
   are on the host, device -> host before a CPU step reads one whose bytes are
   on the device; a result stays on the device until read, and genie_read and
   genie_item bring back only the bytes of the view read (genie_data the whole
   buffer). With no backend every hook is one test of ctx->be. */
#define GENIE__MAX_BACKENDS 8
static const genie_backend *genie__backends[GENIE__MAX_BACKENDS];

GENIEDEF genie_result genie_backend_register(const genie_backend *be) {
    int i;
    if (!be || !be->name || !be->name[0] || !be->init || !be->destroy || !be->supports || !be->run || !be->alloc ||
        !be->free || !be->copy_in || !be->copy_out)
        return GENIE_ERR_INVALID_ARG;
    for (i = 0; i < GENIE__MAX_BACKENDS; i++)
        if (!genie__backends[i] || strcmp(genie__backends[i]->name, be->name) == 0) {
            genie__backends[i] = be;
            return GENIE_OK;
        }
    return GENIE_ERR_OOM;
}
GENIEDEF const char *genie_backend_name(const genie_ctx *ctx) { return ctx && ctx->be ? ctx->be->name : "cpu"; }

/* Select desc's backend in a new context: on failure the context keeps
   GENIE_ERR_BACKEND with the reason and runs on the CPU. */
static void genie__be_select(genie_ctx *ctx, const char *name) {
    char msg[GENIE_BACKEND_MSG];
    genie_result r;
    int i;
    if (!name || !name[0] || strcmp(name, "cpu") == 0) return;
    for (i = 0; i < GENIE__MAX_BACKENDS && genie__backends[i]; i++)
        if (strcmp(genie__backends[i]->name, name) == 0) break;
    if (i == GENIE__MAX_BACKENDS || !genie__backends[i]) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "genie_ctx_create: no backend named \"%s\" is registered (is its file linked?); "
                    "running on the CPU", name);
        return;
    }
    msg[0] = 0;
    r = genie__backends[i]->init(&ctx->be_state, msg);
    if (r != GENIE_OK) {
        genie__fail(ctx, r == GENIE_ERR_OOM ? r : GENIE_ERR_BACKEND, "genie_ctx_create: backend \"%s\": %s; running on the CPU",
                    name, msg[0] ? msg : genie_result_string(r));
        ctx->be_state = NULL;
        return;
    }
    ctx->be = genie__backends[i];
}

/* The device block of b, made if it has none: on failure the cache (host and
   device blocks) is emptied and the allocation tried once more. */
static genie_result genie__be_alloc(genie_ctx *ctx, genie__buf *b, const char *what) {
    char msg[GENIE_BACKEND_MSG];
    genie_result r;
    if (b->dev) return GENIE_OK;
    msg[0] = 0;
    r = ctx->be->alloc(ctx->be_state, b, msg);
    if (r != GENIE_OK && ctx->stats.cache_bytes) {
        genie__cache_flush(ctx);
        msg[0] = 0;
        r = ctx->be->alloc(ctx->be_state, b, msg);
    }
    if (r != GENIE_OK) genie__fail(ctx, r, "%s: %s", what, msg[0] ? msg : genie_result_string(r));
    return r;
}
/* b's current bytes on the device (a host -> device copy when only the host has them). */
static genie_result genie__be_to_dev(genie_ctx *ctx, genie__buf *b, const char *what) {
    char msg[GENIE_BACKEND_MSG];
    genie_result r;
    if (b->loc & GENIE__ON_DEV) return GENIE_OK;
    if ((r = genie__be_alloc(ctx, b, what)) != GENIE_OK) return r;
    msg[0] = 0;
    if ((r = ctx->be->copy_in(ctx->be_state, b, msg)) != GENIE_OK) {
        genie__fail(ctx, r, "%s: %s", what, msg);
        return r;
    }
    b->loc |= GENIE__ON_DEV;
    ctx->stats.copies_to_device++;
    ctx->stats.bytes_to_device += b->bytes;
    return GENIE_OK;
}
/* Bytes [lo, hi) of b current on the host; whole: the host copy is current after. */
static genie_result genie__be_to_host(genie_ctx *ctx, genie__buf *b, size_t lo, size_t hi, const char *what) {
    char msg[GENIE_BACKEND_MSG];
    genie_result r;
    if (!ctx->be || (b->loc & GENIE__ON_HOST) || hi <= lo) return GENIE_OK;
    msg[0] = 0;
    if ((r = ctx->be->copy_out(ctx->be_state, b, lo, hi, msg)) != GENIE_OK) {
        genie__fail(ctx, r, "%s: %s", what, msg);
        return r;
    }
    if (lo == 0 && hi >= b->bytes) b->loc |= GENIE__ON_HOST;
    ctx->stats.copies_to_host++;
    ctx->stats.bytes_to_host += hi - lo;
    return GENIE_OK;
}
/* The bytes of view v of a value with buffer b and dtype dt, current on the host. */
static genie_result genie__be_view_to_host(genie_ctx *ctx, genie__buf *b, int dt, const genie__vspec *v, const char *what) {
    int64_t ext = genie__view_extent(v);
    if (!ctx->be || (b->loc & GENIE__ON_HOST) || ext <= v->off) return GENIE_OK;
    return genie__be_to_host(ctx, b, (size_t)v->off * genie__dt_size[dt], (size_t)ext * genie__dt_size[dt], what);
}
/* A node failed at its place in the tape: as genie__exec does. */
static void genie__be_fail_node(genie_ctx *ctx, genie__node *n, genie_result r) {
    n->err_code = (uint8_t)-r;
    genie__buf_release(ctx, n->buf);
    n->buf = NULL;
    n->state = GENIE__FAILED;
    ctx->stats.nodes_failed++;
    genie__node_drop_inputs(ctx, n);
}
/* Run n (its inputs computed, none failed) on the backend: 1 when done there
   (or failed), 0 when the CPU executor runs it (its inputs now on the host). */
static int genie__be_node(genie_ctx *ctx, genie__node *n, int take) {
    const char *fn = genie__op_names[n->op];
    char msg[GENIE_BACKEND_MSG];
    genie_result r = GENIE_OK;
    int i;
    if (n->base || !ctx->be->supports(ctx->be_state, n, NULL)) {
        ctx->stats.backend_fallbacks++;
        for (i = 0; i < genie__node_ninputs(n) && r == GENIE_OK; i++)
            r = genie__be_to_host(ctx, genie__node_input(n, i)->buf, 0, genie__node_input(n, i)->buf->bytes, fn);
        if (r == GENIE_OK) return 0;
        genie__be_fail_node(ctx, n, r);
        return 1;
    }
    for (i = 0; i < n->nin && r == GENIE_OK; i++) r = genie__be_to_dev(ctx, n->in[i].n->buf, fn);
    if (r == GENIE_OK) {
        if (take >= 0 && genie__take_ok(n, take)) { /* planned: the input dies here */
            n->buf = n->in[take].n->buf;
            if (n->buf->pk) genie__pk_drop(ctx, n->buf);
            n->buf->refs++;
            ctx->stats.tape_inplace++;
        } else if (!(n->buf = genie__buf_new(ctx, (size_t)n->numel * genie__dt_size[n->dtype]))) {
            r = GENIE_ERR_OOM;
            genie__fail(ctx, r, "%s: out of memory for %lld elements", fn, (long long)n->numel);
        }
    }
    if (r == GENIE_OK) r = genie__be_alloc(ctx, n->buf, fn);
    if (r == GENIE_OK) {
        msg[0] = 0;
        if ((r = ctx->be->run(ctx->be_state, n, NULL, msg)) != GENIE_OK) genie__fail(ctx, r, "%s: %s", fn, msg);
    }
    if (r != GENIE_OK) {
        genie__be_fail_node(ctx, n, r);
        return 1;
    }
    n->buf->loc = GENIE__ON_DEV;
    n->state = GENIE__DONE;
    ctx->stats.nodes_executed++;
    ctx->stats.backend_nodes++;
    genie__node_drop_inputs(ctx, n);
    return 1;
}
/* Run the fused group g on the backend: 1 when done there (or failed), 0 when
   the CPU executor runs it (its inputs now on the host). */
static int genie__be_group(genie_ctx *ctx, genie__fgroup *g) {
    const char *fn = genie__op_names[g->root->op];
    char msg[GENIE_BACKEND_MSG];
    genie_result r = GENIE_OK;
    int k, j;
    for (k = 0; k < g->nin && r == GENIE_OK; k++)
        if (g->src[k]->state == GENIE__FAILED) return 0; /* the CPU executor fails the group as usual */
    if (g->row >= 0 || !ctx->be->supports(ctx->be_state, g->root, g)) { /* row groups: the CPU's (for now) */
        ctx->stats.backend_fallbacks += (uint64_t)g->nops;
        for (k = 0; k < g->nin && r == GENIE_OK; k++) r = genie__be_to_host(ctx, g->src[k]->buf, 0, g->src[k]->buf->bytes, fn);
        if (r == GENIE_OK) return 0;
    }
    for (k = 0; k < g->nin && r == GENIE_OK; k++) r = genie__be_to_dev(ctx, g->src[k]->buf, fn);
    for (j = 0; j < g->nops && r == GENIE_OK; j++) {
        genie__node *n = g->nodes[j];
        if (!g->written[j]) continue;
        if (!(n->buf = genie__buf_new(ctx, (size_t)n->numel * genie__dt_size[n->dtype]))) {
            r = GENIE_ERR_OOM;
            genie__fail(ctx, r, "%s: out of memory for %lld elements", genie__op_names[n->op], (long long)n->numel);
        } else {
            r = genie__be_alloc(ctx, n->buf, fn);
        }
    }
    if (r == GENIE_OK) {
        msg[0] = 0;
        if ((r = ctx->be->run(ctx->be_state, g->root, g, msg)) != GENIE_OK) genie__fail(ctx, r, "%s (fused): %s", fn, msg);
    }
    if (r == GENIE_OK) {
        ctx->stats.nodes_executed += (uint64_t)g->nops;
        ctx->stats.fused_groups++;
        ctx->stats.fused_nodes += (uint64_t)g->nops;
        ctx->stats.backend_nodes += (uint64_t)g->nops;
    }
    for (j = g->nops - 1; j >= 0; j--) { /* as genie__exec_group: consumers first */
        genie__node *n = g->nodes[j];
        if (!g->written[j]) continue;
        if (r != GENIE_OK) {
            genie__be_fail_node(ctx, n, r);
            continue;
        }
        n->buf->loc = GENIE__ON_DEV;
        n->state = GENIE__DONE;
        genie__node_drop_inputs(ctx, n);
    }
    return 1;
}

/* >>dump ------------------------------------------------------------------ */
static const char *const genie__role_names[] = {
#define GENIE__X(id, name) name,
    GENIE_ROLE_LIST(GENIE__X)
#undef GENIE__X
};
GENIE__STATIC_ASSERT(role_names, sizeof(genie__role_names) / sizeof(genie__role_names[0]) == GENIE_ROLE_COUNT);
/* Fill colours of the roles in the dump (by genie_role_id; NONE unused). */
static const char *const genie__role_colors[] = {"#ffffff", "#f7b6b2", "#a9d4f5", "#b9e8a7", "#f8e2a0", "#d8c4ef"};
GENIE__STATIC_ASSERT(role_colors, sizeof(genie__role_colors) / sizeof(genie__role_colors[0]) == GENIE_ROLE_COUNT);
GENIEDEF const char *genie_role_name(genie_role_id role) {
    return (int)role > 0 && (int)role < GENIE_ROLE_COUNT ? genie__role_names[role] : "";
}
GENIEDEF const char *genie_role(const genie_tensor *t) {
    genie__node *n;
    if (!GENIE__LIVE(t) || !t->st->ver) return "";
    n = t->st->ver;
    if (!n->role && n->state == GENIE__PENDING) genie__roles_walk(GENIE__CTX(t), 1, &n);
    return genie_role_name((genie_role_id)n->role);
}
/* role: NULL all, "" none, else by name; phase likewise. */
GENIEDEF genie_work genie_work_of(const genie_ctx *ctx, const char *phase, const char *role) {
    genie_work w;
    int64_t i;
    int r;
    memset(&w, 0, sizeof w);
    if (!ctx) return w;
    for (i = 0; i < ctx->npwork; i++) {
        if (phase && strcmp(phase, ctx->pwork[i].phase) != 0) continue;
        for (r = 0; r < GENIE_ROLE_COUNT; r++) {
            const genie_work *x = &ctx->pwork[i].w[r];
            if (role && strcmp(role, genie__role_names[r]) != 0) continue;
            w.nodes += x->nodes, w.flops += x->flops, w.bytes += x->bytes, w.ns += x->ns;
        }
    }
    return w;
}
GENIEDEF genie_result genie_dump_dot(genie_ctx *ctx, int n, genie_tensor *const *roots, FILE *out) {
    genie__node **list = NULL, **stack = NULL;
    int64_t nl = 0, capl = 0, sp = 0, caps = 0, i, j;
    uint32_t ep;
    char sb[200];
    int k;
    unsigned roles_seen = 0;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (!out || n < 0 || (n > 0 && !roots)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "genie_dump_dot: NULL output or roots");
        return GENIE_ERR_INVALID_ARG;
    }
    ep = ++ctx->epoch;
    for (k = 0; k < n; k++) {
        genie__node *r;
        if (!roots[k]) continue;
        if (!genie__mine(ctx, "genie_dump_dot", roots[k])) { GENIE_FREE(stack); GENIE_FREE(list); return GENIE_ERR_INVALID_ARG; }
        r = roots[k]->st->ver;
        if (r->mark == ep) continue;
        r->mark = ep;
        if (!genie__grow((void **)&stack, &caps, sp + 1, sizeof(void *))) goto oom;
        stack[sp++] = r;
        while (sp > 0) {
            genie__node *m = stack[--sp];
            if (!genie__grow((void **)&list, &capl, nl + 1, sizeof(void *))) goto oom;
            list[nl++] = m;
            for (j = 0; j < genie__node_ninputs(m); j++) {
                genie__node *c = genie__node_input(m, (int)j);
                if (c->mark == ep) continue;
                c->mark = ep;
                if (!genie__grow((void **)&stack, &caps, sp + 1, sizeof(void *))) goto oom;
                stack[sp++] = c;
            }
        }
    }
    { /* roles first: they colour the nodes */
        genie__node **rn = (genie__node **)GENIE_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(void *));
        int nr = 0;
        for (k = 0; rn && k < n; k++)
            if (roots[k]) rn[nr++] = roots[k]->st->ver;
        if (!rn || !genie__roles_walk(ctx, nr, rn)) { GENIE_FREE(rn); goto oom; }
        GENIE_FREE(rn);
    }
    fprintf(out, "digraph genie {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for (i = 0; i < nl; i++) { /* one cluster per module path, in order of first appearance */
        const char *mod = list[i]->scope->module;
        int first = 1;
        for (j = 0; j < i && first; j++) first = list[j]->scope->module != mod;
        if (!first) continue;
        if (*mod) fprintf(out, "  subgraph \"cluster_%s\" {\n    label=\"%s\";\n", mod, mod);
        for (j = i; j < nl; j++) {
            genie__node *m = list[j];
            if (m->scope->module != mod) continue;
            int role = m->role < GENIE_ROLE_COUNT ? m->role : 0;
            roles_seen |= 1u << role;
            fprintf(out, "    \"n%p\" [label=\"%s\\n%s %s\\n%s%s%s%s%s\"", (void *)m,
                    m->inplace ? genie__op_inplace_names[m->op] : genie__op_names[m->op],
                    genie__fmt_shape(sb, m->out ? m->out->ndim : 1, m->out ? m->out->shape : &m->numel),
                    genie__dt_names[m->dtype],
                    m->state == GENIE__DONE ? "materialized" : m->state == GENIE__FAILED ? "FAILED" : "pending",
                    *m->scope->phase ? "\\nphase " : "", m->scope->phase,
                    role ? "\\nrole " : "", genie_role_name((genie_role_id)role));
            if (role) fprintf(out, ", style=filled, fillcolor=\"%s\"%s", genie__role_colors[role], m->state == GENIE__DONE ? ", penwidth=2" : "");
            else if (m->state == GENIE__DONE) fprintf(out, ", style=filled, fillcolor=\"#dde8ff\"");
            fprintf(out, "];\n");
        }
        if (*mod) fprintf(out, "  }\n");
    }
    if (roles_seen & ~1u) { /* a legend of the roles present */
        fprintf(out, "  subgraph \"cluster_legend\" {\n    label=\"roles\";\n");
        for (k = 1; k < GENIE_ROLE_COUNT; k++)
            if (roles_seen & (1u << k))
                fprintf(out, "    \"legend_%s\" [label=\"%s\", style=filled, fillcolor=\"%s\"];\n", genie_role_name((genie_role_id)k),
                        genie_role_name((genie_role_id)k), genie__role_colors[k]);
        fprintf(out, "  }\n");
    }
    for (i = 0; i < nl; i++)
        for (j = 0; j < genie__node_ninputs(list[i]); j++)
            fprintf(out, "  \"n%p\" -> \"n%p\"%s;\n", (void *)genie__node_input(list[i], (int)j), (void *)list[i],
                    j >= list[i]->nin ? " [style=dashed, label=\"old version\"]" : "");
    for (k = 0; k < n; k++) {
        const genie_tensor *t = roots[k];
        char st[200];
        if (!t) continue;
        fprintf(out, "  \"t%d\" [shape=ellipse, label=\"%s\\n%s strides %s +%lld\"];\n  \"n%p\" -> \"t%d\";\n", k,
                t->inplace ? genie__op_inplace_names[t->op] : genie__op_names[t->op],
                genie__fmt_shape(sb, t->v->ndim, t->v->shape), genie__fmt_shape(st, t->v->ndim, t->v->strides),
                (long long)t->v->off, (void *)t->st->ver, k);
    }
    fprintf(out, "}\n");
    GENIE_FREE(list);
    GENIE_FREE(stack);
    return GENIE_OK;
oom:
    GENIE_FREE(list);
    GENIE_FREE(stack);
    genie__fail(ctx, GENIE_ERR_OOM, "genie_dump_dot: out of memory");
    return GENIE_ERR_OOM;
}

GENIEDEF genie_stats genie_get_stats(const genie_ctx *ctx) {
    genie_stats s;
    int64_t i;
    int r;
    memset(&s, 0, sizeof s);
    if (!ctx) return s;
    s = ctx->stats;
    for (i = 0; i < ctx->npwork; i++) /* work by role: the phases' rows summed */
        for (r = 0; r < GENIE_ROLE_COUNT; r++) {
            const genie_work *x = &ctx->pwork[i].w[r];
            s.work_by_role[r].nodes += x->nodes, s.work_by_role[r].flops += x->flops;
            s.work_by_role[r].bytes += x->bytes, s.work_by_role[r].ns += x->ns;
        }
    return s;
}

/* >>io -------------------------------------------------------------------- */
/* safetensors files (huggingface/safetensors, its format.md): an 8-byte
   little-endian u64 N, N bytes of UTF-8 JSON starting with '{' (trailing
   spaces allowed), then the data. The header maps each tensor name to
   {"dtype", "shape", "data_offsets": [begin, end]} (bytes from the start of
   the data, row-major, little-endian); "__metadata__" is a string -> string
   map. The file is untrusted: N is at most 100,000,000 (as the reference
   implementation) and no more than the file holds; keys are unique at every
   level; offsets cover the data exactly (no hole, no overlap, nothing after
   the last tensor, as the reference's MetadataIncompleteBuffer check); each
   tensor's byte size is numel * element size without overflow. Only the
   structure safetensors defines is accepted (a tensor entry with another key
   is an error), so the reader is not a general JSON parser: it nests at most
   three levels by construction and recurses nowhere.
   Tensors are zero-copy views (genie_from_blob) of a reference-counted
   mapping (mmap, MapViewOfFile, or one GENIE_MALLOC'd copy of the file with
   GENIE_NO_MMAP or elsewhere); a tensor whose bytes are not aligned to its
   element size (another writer's layout) is copied instead. */

/* dtypes in files: X(name, genie dtype or -1 when genie has none, bytes). The
   first rows are genie's dtypes in enum order. */
#define GENIE__ST_DTYPE_LIST(X)                                                                  \
    X("F32", GENIE_F32, 4) X("F64", GENIE_F64, 8) X("F16", GENIE_F16, 2) X("BF16", GENIE_BF16, 2) \
    X("I64", GENIE_I64, 8) X("I32", GENIE_I32, 4) X("I16", GENIE_I16, 2) X("I8", GENIE_I8, 1)     \
    X("U8", GENIE_U8, 1) X("BOOL", GENIE_BOOL, 1) X("U16", -1, 2) X("U32", -1, 4) X("U64", -1, 8)  \
    X("F8_E4M3", -1, 1) X("F8_E5M2", -1, 1)
static const char *const genie__st_dt_names[] = {
#define GENIE__X(name, dt, size) name,
    GENIE__ST_DTYPE_LIST(GENIE__X)
#undef GENIE__X
};
static const signed char genie__st_dt_genie[] = {
#define GENIE__X(name, dt, size) (signed char)(dt),
    GENIE__ST_DTYPE_LIST(GENIE__X)
#undef GENIE__X
};
static const unsigned char genie__st_dt_size[] = {
#define GENIE__X(name, dt, size) size,
    GENIE__ST_DTYPE_LIST(GENIE__X)
#undef GENIE__X
};
#define GENIE__ST_NDT ((int)sizeof(genie__st_dt_size))
GENIE__STATIC_ASSERT(st_dtypes, GENIE__ST_NDT >= GENIE_DTYPE_COUNT);
#define GENIE__ST_MAX_HEADER 100000000

static int genie__little_endian(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The length (1-4) of the valid UTF-8 sequence (RFC 3629: no overlong forms,
   no surrogates, at most U+10FFFF) at p, or 0. */
static int genie__utf8_seq(const unsigned char *p, const unsigned char *end) {
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    int n, i;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (end - p < n) return 0;
    for (i = 1; i < n; i++) {
        if (p[i] < lo || p[i] > hi) return 0;
        lo = 0x80;
        hi = 0xBF;
    }
    return n;
}
static int genie__utf8_valid(const char *s) {
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        int n = genie__utf8_seq(p, end);
        if (!n) return 0;
        p += n;
    }
    return 1;
}

/* ---- the mapping: shared by the open file and every tensor reading it ---- */
typedef struct genie__stmap {
    int32_t refs;          /* the open file's own, plus one per tensor reading it */
    int mapped;            /* 1: a file mapping; 0: GENIE_MALLOC'd (or NULL) */
    unsigned char *base;
    size_t size;
} genie__stmap;

#if defined(GENIE_NO_MMAP)
#define GENIE__MMAP 0
#elif defined(_WIN32)
#define GENIE__MMAP 2
#elif defined(__unix__) || defined(__unix) || defined(__APPLE__)
#define GENIE__MMAP 1
#else
#define GENIE__MMAP 0
#endif

static void genie__stmap_unref(genie__stmap *m) {
    if (!m || --m->refs > 0) return;
    if (m->base) {
#if GENIE__MMAP == 1
        if (m->mapped) munmap(m->base, m->size);
#elif GENIE__MMAP == 2
        if (m->mapped) UnmapViewOfFile(m->base);
#endif
        if (!m->mapped) GENIE_FREE(m->base);
    }
    GENIE_FREE(m);
}
/* genie_from_blob's deleter: a tensor lets go of the mapping. */
static void genie__stmap_deleter(void *data, void *user) {
    (void)data;
    genie__stmap_unref((genie__stmap *)user);
}

/* The whole file at path, mapped read-only (or read into memory); NULL and the
   context's error on failure. */
static genie__stmap *genie__stmap_load(genie_ctx *ctx, const char *fn, const char *path) {
    genie__stmap *m = (genie__stmap *)GENIE_MALLOC(sizeof(genie__stmap));
    if (!m) return (genie__stmap *)genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path);
    memset(m, 0, sizeof *m);
    m->refs = 1;
#if GENIE__MMAP == 1
    {
        struct stat sb;
#if defined(O_NONBLOCK) && defined(O_CLOEXEC)
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block: it is refused below */
#else
        int fd = open(path, O_RDONLY);
#endif
        if (fd < 0) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: cannot open: %s", fn, path, strerror(errno));
            GENIE_FREE(m);
            return NULL;
        }
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > (uint64_t)SIZE_MAX) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: not a regular file that fits in memory", fn, path);
            close(fd);
            GENIE_FREE(m);
            return NULL;
        }
        m->size = (size_t)sb.st_size;
        if (m->size > 0) {
            void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: cannot map: %s", fn, path, strerror(errno));
                close(fd);
                GENIE_FREE(m);
                return NULL;
            }
            m->base = (unsigned char *)p;
            m->mapped = 1;
        }
        close(fd);
    }
#elif GENIE__MMAP == 2
    {
        LARGE_INTEGER li;
        HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: cannot open (Windows error %lu)", fn, path,
                        (unsigned long)GetLastError());
            GENIE_FREE(m);
            return NULL;
        }
        if (!GetFileSizeEx(h, &li) || li.QuadPart < 0 || (uint64_t)li.QuadPart > (uint64_t)SIZE_MAX) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: not a regular file that fits in memory", fn, path);
            CloseHandle(h);
            GENIE_FREE(m);
            return NULL;
        }
        m->size = (size_t)li.QuadPart;
        if (m->size > 0) {
            HANDLE fm = CreateFileMappingA(h, NULL, PAGE_READONLY, 0, 0, NULL);
            void *p = fm ? MapViewOfFile(fm, FILE_MAP_READ, 0, 0, 0) : NULL;
            if (fm) CloseHandle(fm); /* the view keeps the mapping */
            if (!p) {
                genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: cannot map (Windows error %lu)", fn, path,
                            (unsigned long)GetLastError());
                CloseHandle(h);
                GENIE_FREE(m);
                return NULL;
            }
            m->base = (unsigned char *)p;
            m->mapped = 1;
        }
        CloseHandle(h);
    }
#else
    {
        size_t cap = 0;
        FILE *f = fopen(path, "rb");
        if (!f) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: cannot open: %s", fn, path, strerror(errno));
            GENIE_FREE(m);
            return NULL;
        }
        if (fseek(f, 0, SEEK_END) == 0) { /* the size, when the stream tells it: one buffer, one more byte to see the end */
            long end = ftell(f);
            if (end >= 0 && (unsigned long)end < (unsigned long)(SIZE_MAX / 2)) cap = (size_t)end + 1;
            if (fseek(f, 0, SEEK_SET) != 0) cap = 0;
        }
        if (cap) {
            m->base = (unsigned char *)GENIE_MALLOC(cap);
            if (!m->base) {
                fclose(f);
                genie__stmap_unref(m);
                return (genie__stmap *)genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path);
            }
        }
        for (;;) { /* read to the end, doubling the buffer if the file grew */
            size_t got;
            if (m->size == cap) {
                size_t nc = cap ? cap * 2 : 65536;
                unsigned char *q = nc > cap ? (unsigned char *)GENIE_REALLOC(m->base, nc) : NULL;
                if (!q) {
                    fclose(f);
                    genie__stmap_unref(m);
                    return (genie__stmap *)genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path);
                }
                m->base = q;
                cap = nc;
            }
            got = fread(m->base + m->size, 1, cap - m->size, f);
            m->size += got;
            if (got == 0) break;
        }
        if (ferror(f)) {
            genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: read error: %s", fn, path, strerror(errno));
            fclose(f);
            genie__stmap_unref(m);
            return NULL;
        }
        fclose(f);
    }
#endif
    return m;
}

/* ---- the header reader ---- */
typedef struct genie__st_entry {
    const char *name;        /* in the arena */
    int dt;                  /* row of GENIE__ST_DTYPE_LIST */
    int ndim;                /* may exceed GENIE__MAXD: shape keeps the first ones; get refuses it */
    int64_t shape[GENIE__MAXD];
    int64_t numel;           /* -1: the product overflows int64 */
    int64_t begin, end;
} genie__st_entry;

struct genie_safetensors {
    genie_ctx *ctx;
    genie__stmap *map;
    char *path;
    char *arena;                  /* every decoded string, NUL-terminated */
    const unsigned char *data;    /* the data: file bytes 8 + N .. end */
    int64_t data_len;
    genie__st_entry *e;           /* sorted by name (bytes) */
    int64_t n, cap;
    const char **meta;            /* key, value pairs sorted by key */
    int64_t nmeta, capmeta;
};

/* A cursor over the header. Decoded strings go to the arena, which N + 1
   bytes always hold: a string never decodes longer than its quoted form. */
typedef struct genie__jr {
    const unsigned char *p, *start, *end;
    char *arena;
    size_t used, cap;
    genie_result code;
    const char *tensor;  /* the entry being read, for messages */
    char err[200];
} genie__jr;

static int genie__jr_fail(genie__jr *r, genie_result code, const char *fmt, ...) {
    if (!r->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, sizeof r->err, fmt, ap);
        va_end(ap);
        r->code = code;
    }
    return 0;
}
static long long genie__jr_at(const genie__jr *r) { return (long long)(r->p - r->start); }
static int genie__jr_peek(genie__jr *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
    return r->p < r->end ? *r->p : -1;
}
static int genie__jr_expect(genie__jr *r, int c) {
    if (genie__jr_peek(r) == c) { r->p++; return 1; }
    return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "expected '%c' at byte %lld of the header", c, genie__jr_at(r));
}
static int genie__jr_hex4(genie__jr *r, unsigned *out) {
    int i;
    *out = 0;
    if (r->end - r->p < 4) return 0;
    for (i = 0; i < 4; i++) {
        int c = r->p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return 0;
        *out = *out * 16 + (unsigned)d;
    }
    r->p += 4;
    return 1;
}
/* A JSON string into *out, its escapes (\uXXXX, surrogate pairs too) decoded to UTF-8.
   Raw bytes must be valid UTF-8 without control characters or NUL. */
static int genie__jr_string(genie__jr *r, const char **out) {
    char *o;
    if (genie__jr_peek(r) != '"')
        return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "expected a string at byte %lld of the header", genie__jr_at(r));
    r->p++;
    o = r->arena + r->used;
    *out = o;
    for (;;) {
        unsigned c;
        if (r->p >= r->end) return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "unterminated string in the header");
        c = *r->p;
        if (c == '"') { r->p++; break; }
        if (c < 0x20)
            return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "control character in a string at byte %lld of the header",
                                  genie__jr_at(r));
        if (c == '\\') {
            unsigned cp;
            r->p++;
            c = r->p < r->end ? *r->p++ : 0;
            switch (c) {
            case '"': case '\\': case '/': *o++ = (char)c; continue;
            case 'b': *o++ = '\b'; continue;
            case 'f': *o++ = '\f'; continue;
            case 'n': *o++ = '\n'; continue;
            case 'r': *o++ = '\r'; continue;
            case 't': *o++ = '\t'; continue;
            case 'u': break;
            default:
                return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "bad escape in a string at byte %lld of the header",
                                      genie__jr_at(r));
            }
            if (!genie__jr_hex4(r, &cp))
                return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "bad \\u escape at byte %lld of the header", genie__jr_at(r));
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') cp = 0xFFFFFFFFu;
                else {
                    r->p += 2;
                    if (!genie__jr_hex4(r, &lo) || lo < 0xDC00 || lo > 0xDFFF) cp = 0xFFFFFFFFu;
                    else cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) cp = 0xFFFFFFFFu;
            if (cp == 0xFFFFFFFFu)
                return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "unpaired surrogate in a \\u escape at byte %lld of the header",
                                      genie__jr_at(r));
            if (cp == 0)
                return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "\\u0000 in a string at byte %lld of the header",
                                      genie__jr_at(r));
            if (cp < 0x80) *o++ = (char)cp;
            else if (cp < 0x800) {
                *o++ = (char)(0xC0 | (cp >> 6));
                *o++ = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *o++ = (char)(0xE0 | (cp >> 12));
                *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *o++ = (char)(0x80 | (cp & 0x3F));
            } else {
                *o++ = (char)(0xF0 | (cp >> 18));
                *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
                *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *o++ = (char)(0x80 | (cp & 0x3F));
            }
        } else {
            int n = genie__utf8_seq(r->p, r->end), i;
            if (!n)
                return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "invalid UTF-8 at byte %lld of the header", genie__jr_at(r));
            for (i = 0; i < n; i++) *o++ = (char)*r->p++;
        }
    }
    *o++ = 0;
    r->used = (size_t)(o - r->arena);
    GENIE_ASSERT(r->used <= r->cap);
    return 1;
}
/* A non-negative JSON integer that fits int64 (no sign, fraction or exponent). */
static int genie__jr_uint(genie__jr *r, const char *what, int64_t *out) {
    int64_t v = 0;
    int c = genie__jr_peek(r);
    if (c == '-') return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "negative %s at byte %lld of the header", what, genie__jr_at(r));
    if (c < '0' || c > '9')
        return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "expected an integer (%s) at byte %lld of the header", what, genie__jr_at(r));
    if (c == '0' && r->end - r->p > 1 && r->p[1] >= '0' && r->p[1] <= '9')
        return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "leading zero in %s at byte %lld of the header", what, genie__jr_at(r));
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        int d = *r->p - '0';
        if (v > (INT64_MAX - d) / 10)
            return genie__jr_fail(r, GENIE_ERR_OVERFLOW, "%s at byte %lld of the header overflows int64", what, genie__jr_at(r));
        v = v * 10 + d;
        r->p++;
    }
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
        return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "%s at byte %lld of the header is not an integer", what, genie__jr_at(r));
    *out = v;
    return 1;
}
/* After a member: 1 if another follows (','), 0 at the end ('}' or ']'), -1 on error. */
static int genie__jr_next(genie__jr *r, int close) {
    int c = genie__jr_peek(r);
    if (c == ',') { r->p++; return 1; }
    if (c == close) { r->p++; return 0; }
    genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "expected ',' or '%c' at byte %lld of the header", close, genie__jr_at(r));
    return -1;
}

/* {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, each key once. */
static int genie__st_read_entry(genie__jr *r, genie__st_entry *e) {
    int have = 0, more;
    r->tensor = e->name;
    e->numel = 1;
    if (!genie__jr_expect(r, '{')) return 0;
    if (genie__jr_peek(r) == '}') r->p++;
    else
        do {
            const char *key;
            size_t mark = r->used;
            int bit;
            if (!genie__jr_string(r, &key) || !genie__jr_expect(r, ':')) return 0;
            bit = strcmp(key, "dtype") == 0 ? 1 : strcmp(key, "shape") == 0 ? 2 : strcmp(key, "data_offsets") == 0 ? 4 : 0;
            if (!bit) return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "unknown key \"%.40s\"", key);
            if (have & bit) return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "duplicate key \"%s\"", key);
            have |= bit;
            r->used = mark; /* keys need no room in the arena */
            if (bit == 1) {
                const char *s;
                int i;
                if (genie__jr_peek(r) != '"') return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "dtype is not a string");
                if (!genie__jr_string(r, &s)) return 0;
                for (i = 0; i < GENIE__ST_NDT && strcmp(s, genie__st_dt_names[i]) != 0; i++) {}
                if (i == GENIE__ST_NDT) return genie__jr_fail(r, GENIE_ERR_DTYPE, "unknown dtype \"%.20s\"", s);
                e->dt = i;
                r->used = mark;
            } else if (bit == 2) {
                if (genie__jr_peek(r) != '[') return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "shape is not an array");
                r->p++;
                if (genie__jr_peek(r) == ']') r->p++;
                else
                    do {
                        int64_t d;
                        if (!genie__jr_uint(r, "dimension", &d)) return 0;
                        if (e->ndim == INT_MAX) return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "too many dimensions");
                        if (e->ndim < GENIE__MAXD) e->shape[e->ndim] = d;
                        e->ndim++;
                        e->numel = e->numel < 0 ? -1 : genie__mul_ck(e->numel, d);
                    } while ((more = genie__jr_next(r, ']')) == 1);
                if (r->err[0]) return 0;
            } else {
                if (genie__jr_peek(r) != '[') return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "data_offsets is not an array");
                r->p++;
                if (!genie__jr_uint(r, "data_offsets begin", &e->begin) || !genie__jr_expect(r, ',') ||
                    !genie__jr_uint(r, "data_offsets end", &e->end))
                    return 0;
                if (genie__jr_peek(r) != ']')
                    return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "data_offsets does not hold exactly two integers");
                r->p++;
            }
        } while ((more = genie__jr_next(r, '}')) == 1);
    if (r->err[0]) return 0;
    if (have != 7)
        return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "missing %s", !(have & 1) ? "dtype" : !(have & 2) ? "shape" : "data_offsets");
    r->tensor = NULL;
    return 1;
}
/* "__metadata__": {"key": "value", ...} */
static int genie__st_read_meta(genie__jr *r, genie_safetensors *st) {
    int more;
    if (genie__jr_peek(r) != '{') return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "__metadata__ is not an object");
    r->p++;
    if (genie__jr_peek(r) == '}') { r->p++; return 1; }
    do {
        const char *k, *v;
        if (!genie__jr_string(r, &k) || !genie__jr_expect(r, ':')) return 0;
        if (genie__jr_peek(r) != '"')
            return genie__jr_fail(r, GENIE_ERR_INVALID_ARG, "__metadata__ value of \"%.40s\" is not a string", k);
        if (!genie__jr_string(r, &v)) return 0;
        if (!genie__grow((void **)&st->meta, &st->capmeta, 2 * st->nmeta + 2, sizeof(char *)))
            return genie__jr_fail(r, GENIE_ERR_OOM, "out of memory");
        st->meta[2 * st->nmeta] = k;
        st->meta[2 * st->nmeta + 1] = v;
        st->nmeta++;
    } while ((more = genie__jr_next(r, '}')) == 1);
    return more == 0;
}
static int genie__st_cmp_name(const void *a, const void *b) {
    return strcmp(((const genie__st_entry *)a)->name, ((const genie__st_entry *)b)->name);
}
static int genie__st_cmp_meta(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
static int genie__st_cmp_offsets(const void *a, const void *b) {
    const genie__st_entry *x = *(const genie__st_entry *const *)a, *y = *(const genie__st_entry *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}
static const char *genie__st_fmt_shape(char *buf, const genie__st_entry *e) {
    if (e->ndim <= GENIE__MAXD) return genie__fmt_shape(buf, e->ndim, e->shape);
    sprintf(buf, "(%d dimensions)", e->ndim);
    return buf;
}

/* Parse the header of the mapped file and check the layout; 0 and the
   context's error (naming path and tensor) on failure. */
static int genie__st_parse(genie_ctx *ctx, const char *fn, genie_safetensors *st) {
    const char *path = st->path;
    const unsigned char *b = st->map->base;
    uint64_t hlen = 0;
    int64_t i, cur;
    genie__jr r;
    genie__st_entry **ord;
    int seen_meta = 0, more;
    if (st->map->size < 8) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: file of %llu bytes is shorter than the 8-byte header length", fn,
                    st->path, (unsigned long long)st->map->size);
        return 0;
    }
    for (i = 7; i >= 0; i--) hlen = hlen << 8 | b[i];
    if (hlen > GENIE__ST_MAX_HEADER || hlen > st->map->size - 8 || hlen < 2) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: header length %llu is %s", fn, st->path, (unsigned long long)hlen,
                    hlen < 2 ? "too small" : hlen > GENIE__ST_MAX_HEADER ? "over the limit of 100000000 bytes"
                                                                       : "more than the file holds");
        return 0;
    }
    st->data = b + 8 + hlen;
    st->data_len = (int64_t)(st->map->size - 8 - hlen);
    st->arena = (char *)GENIE_MALLOC((size_t)hlen + 1);
    if (!st->arena) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return 0; }
    memset(&r, 0, sizeof r);
    r.start = r.p = b + 8;
    r.end = b + 8 + hlen;
    r.arena = st->arena;
    r.cap = (size_t)hlen + 1;
    if (*r.p != '{') genie__jr_fail(&r, GENIE_ERR_INVALID_ARG, "the header does not start with '{'");
    else {
        r.p++;
        if (genie__jr_peek(&r) == '}') r.p++;
        else
            do {
                const char *key;
                if (!genie__jr_string(&r, &key) || !genie__jr_expect(&r, ':')) break;
                if (strcmp(key, "__metadata__") == 0) {
                    if (seen_meta) { genie__jr_fail(&r, GENIE_ERR_INVALID_ARG, "duplicate key \"__metadata__\""); break; }
                    seen_meta = 1;
                    if (!genie__st_read_meta(&r, st)) break;
                } else {
                    if (!genie__grow((void **)&st->e, &st->cap, st->n + 1, sizeof(genie__st_entry))) {
                        genie__jr_fail(&r, GENIE_ERR_OOM, "out of memory");
                        break;
                    }
                    memset(&st->e[st->n], 0, sizeof st->e[0]);
                    st->e[st->n].name = key;
                    st->n++;
                    if (!genie__st_read_entry(&r, &st->e[st->n - 1])) break;
                }
            } while ((more = genie__jr_next(&r, '}')) == 1);
        if (!r.err[0] && genie__jr_peek(&r) != -1)
            genie__jr_fail(&r, GENIE_ERR_INVALID_ARG, "bytes after the header's object at byte %lld", genie__jr_at(&r));
    }
    if (r.err[0]) {
        if (r.tensor) genie__fail(ctx, r.code, "%s: %.200s: tensor \"%.80s\": %s", fn, st->path, r.tensor, r.err);
        else genie__fail(ctx, r.code, "%s: %.200s: %s", fn, st->path, r.err);
        return 0;
    }
    if (st->n > INT_MAX) { genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: %.200s: too many tensors", fn, st->path); return 0; }
    /* unique keys */
    if (st->n > 1) qsort(st->e, (size_t)st->n, sizeof st->e[0], genie__st_cmp_name); /* (qsort on NULL is undefined) */
    for (i = 1; i < st->n; i++)
        if (strcmp(st->e[i - 1].name, st->e[i].name) == 0) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: duplicate tensor \"%.80s\"", fn, st->path, st->e[i].name);
            return 0;
        }
    if (st->nmeta > 1) qsort(st->meta, (size_t)st->nmeta, 2 * sizeof(char *), genie__st_cmp_meta);
    for (i = 1; i < st->nmeta; i++)
        if (strcmp(st->meta[2 * i - 2], st->meta[2 * i]) == 0) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: duplicate __metadata__ key \"%.80s\"", fn, st->path, st->meta[2 * i]);
            return 0;
        }
    /* each tensor's bytes */
    for (i = 0; i < st->n; i++) {
        const genie__st_entry *e = &st->e[i];
        int64_t bytes = e->numel < 0 ? -1 : genie__mul_ck(e->numel, genie__st_dt_size[e->dt]);
        char sb[200];
        if (bytes < 0) {
            genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: %.200s: tensor \"%.80s\": the byte size of shape %s overflows int64", fn,
                        st->path, e->name, genie__st_fmt_shape(sb, e));
            return 0;
        }
        if (e->begin > e->end || e->end > st->data_len) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: tensor \"%.80s\": data_offsets [%lld, %lld] %s %lld data bytes",
                        fn, st->path, e->name, (long long)e->begin, (long long)e->end,
                        e->begin > e->end ? "begin after end; the file has" : "outside the", (long long)st->data_len);
            return 0;
        }
        if (e->end - e->begin != bytes) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG,
                        "%s: %.200s: tensor \"%.80s\": shape %s of %s needs %lld bytes but data_offsets [%lld, %lld] hold %lld",
                        fn, st->path, e->name, genie__st_fmt_shape(sb, e), genie__st_dt_names[e->dt], (long long)bytes,
                        (long long)e->begin, (long long)e->end, (long long)(e->end - e->begin));
            return 0;
        }
    }
    /* the data covered exactly: no overlap, no hole, nothing after the last */
    ord = (genie__st_entry **)GENIE_MALLOC((size_t)(st->n > 0 ? st->n : 1) * sizeof(*ord));
    if (!ord) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return 0; }
    for (i = 0; i < st->n; i++) ord[i] = &st->e[i];
    if (st->n > 1) qsort(ord, (size_t)st->n, sizeof *ord, genie__st_cmp_offsets);
    for (cur = 0, i = 0; i < st->n; i++) {
        if (ord[i]->begin != cur) {
            if (ord[i]->begin < cur)
                genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: tensor \"%.80s\": data_offsets [%lld, %lld] overlap tensor \"%.80s\"",
                            fn, st->path, ord[i]->name, (long long)ord[i]->begin, (long long)ord[i]->end, ord[i - 1]->name);
            else
                genie__fail(ctx, GENIE_ERR_INVALID_ARG,
                            "%s: %.200s: tensor \"%.80s\": data bytes [%lld, %lld) before it belong to no tensor", fn,
                            st->path, ord[i]->name, (long long)cur, (long long)ord[i]->begin);
            GENIE_FREE(ord);
            return 0;
        }
        cur = ord[i]->end;
    }
    GENIE_FREE(ord);
    if (cur != st->data_len) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: the last %lld data bytes belong to no tensor", fn, st->path,
                    (long long)(st->data_len - cur));
        return 0;
    }
    (void)more;
    return 1;
}

GENIEDEF void genie_safetensors_close(genie_safetensors *st) {
    if (!st) return;
    genie__stmap_unref(st->map);
    GENIE_FREE(st->path);
    GENIE_FREE(st->arena);
    GENIE_FREE(st->e);
    GENIE_FREE(st->meta);
    GENIE_FREE(st);
}

GENIEDEF genie_result genie_safetensors_open(genie_ctx *ctx, const char *path, genie_safetensors **out) {
    const char *fn = "genie_safetensors_open";
    genie_safetensors *st;
    if (out) *out = NULL;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->err) return ctx->err;
    if (!path || !out) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: NULL path or output", fn);
        return GENIE_ERR_INVALID_ARG;
    }
    if (!genie__little_endian()) {
        genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: %.200s: safetensors files are read on little-endian hosts only", fn, path);
        return GENIE_ERR_UNSUPPORTED;
    }
    st = (genie_safetensors *)GENIE_MALLOC(sizeof *st);
    if (!st) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return GENIE_ERR_OOM; }
    memset(st, 0, sizeof *st);
    st->ctx = ctx;
    st->path = (char *)GENIE_MALLOC(strlen(path) + 1);
    if (!st->path) { genie_safetensors_close(st); genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return GENIE_ERR_OOM; }
    strcpy(st->path, path);
    st->map = genie__stmap_load(ctx, fn, path);
    if (!st->map || !genie__st_parse(ctx, fn, st)) {
        genie_safetensors_close(st);
        return ctx->err;
    }
    *out = st;
    return GENIE_OK;
}
GENIEDEF int genie_safetensors_count(const genie_safetensors *st) { return st ? (int)st->n : 0; }
GENIEDEF const char *genie_safetensors_name(const genie_safetensors *st, int i) {
    return st && i >= 0 && i < st->n ? st->e[i].name : NULL;
}
GENIEDEF const char *genie_safetensors_metadata(const genie_safetensors *st, const char *key) {
    const char *const *p;
    if (!st || !key || !st->nmeta) return NULL;
    p = (const char *const *)bsearch(&key, st->meta, (size_t)st->nmeta, 2 * sizeof(char *), genie__st_cmp_meta);
    return p ? p[1] : NULL;
}
GENIEDEF genie_tensor *genie_safetensors_get(genie_safetensors *st, const char *name) {
    const char *fn = "genie_safetensors_get";
    genie__st_entry key, *e;
    genie_ctx *ctx;
    genie_tensor *t;
    const unsigned char *p;
    int dt;
    if (!st) return NULL;
    ctx = st->ctx;
    if (ctx->err) return NULL;
    if (!name) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: name is NULL", fn, st->path);
    key.name = name;
    e = st->n ? (genie__st_entry *)bsearch(&key, st->e, (size_t)st->n, sizeof *e, genie__st_cmp_name) : NULL;
    if (!e) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: %.200s: no tensor \"%.80s\"", fn, st->path, name);
    dt = genie__st_dt_genie[e->dt];
    if (dt < 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: %.200s: tensor \"%.80s\": dtype %s is not one of genie's",
                                           fn, st->path, name, genie__st_dt_names[e->dt]);
    if (e->ndim > GENIE__MAXD)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: %.200s: tensor \"%.80s\" has %d dimensions (at most %d)",
                                           fn, st->path, name, e->ndim, GENIE__MAXD);
    p = st->data + e->begin;
    if ((uintptr_t)p % genie__dt_size[dt] != 0) /* another writer's layout: a copy the kernels can load */
        return genie_from_data(ctx, (genie_dtype)dt, e->ndim, e->shape, p);
    st->map->refs++;
    t = genie_from_blob(ctx, (genie_dtype)dt, e->ndim, e->shape, NULL, (void *)(uintptr_t)p, genie__stmap_deleter, st->map);
    if (!t) st->map->refs--; /* from_blob runs no deleter when it fails; st still holds its own */
    return t;
}

/* ---- writing ---- */
typedef struct genie__sbuf { char *p; int64_t n, cap; int oom; } genie__sbuf;
static void genie__sbuf_put(genie__sbuf *b, const char *s, size_t len) {
    if (b->oom) return;
    if (!genie__grow((void **)&b->p, &b->cap, b->n + (int64_t)len + 1, 1)) { b->oom = 1; return; }
    memcpy(b->p + b->n, s, len);
    b->n += (int64_t)len;
}
static void genie__sbuf_str(genie__sbuf *b, const char *s) { genie__sbuf_put(b, s, strlen(s)); }
/* s as a JSON string: quotes, backslashes and control characters escaped. */
static void genie__sbuf_json(genie__sbuf *b, const char *s) {
    genie__sbuf_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; genie__sbuf_put(b, esc, 2); }
        else if (c < 0x20) { sprintf(esc, "\\u%04x", c); genie__sbuf_put(b, esc, 6); }
        else genie__sbuf_put(b, s, 1);
    }
    genie__sbuf_put(b, "\"", 1);
}
static int genie__st_check_names(genie_ctx *ctx, const char *fn, const char *path, const char *what, int n,
                                 const char *const *names) {
    const char **sorted;
    int i;
    for (i = 0; i < n; i++) {
        if (!names[i]) { genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: %s %d is NULL", fn, path, what, i); return 0; }
        if (!genie__utf8_valid(names[i])) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: %s %d is not valid UTF-8", fn, path, what, i);
            return 0;
        }
    }
    sorted = (const char **)GENIE_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(char *));
    if (!sorted) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return 0; }
    if (n > 0) memcpy(sorted, names, (size_t)n * sizeof(char *));
    if (n > 1) qsort(sorted, (size_t)n, sizeof(char *), genie__st_cmp_meta);
    for (i = 1; i < n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: duplicate %s \"%.80s\"", fn, path, what, sorted[i]);
            GENIE_FREE(sorted);
            return 0;
        }
    GENIE_FREE(sorted);
    return 1;
}
/* The tensor's numel elements in row-major order to f (a copy only when it is
   not contiguous). 0 on failure (the context's error set, or errno for IO). */
static int genie__st_write_tensor(genie_ctx *ctx, genie_tensor *t, FILE *f, int *io_err) {
    genie_dtype dt = genie_dtype_of(t);
    size_t bytes = (size_t)genie_numel(t) * genie__dt_size[dt];
    const void *p;
    void *tmp;
    size_t w;
    if (bytes == 0) return 1;
    if (genie_is_contiguous(t)) {
        if (genie_data(ctx, t, &p) != GENIE_OK) return 0;
        w = fwrite(p, 1, bytes, f);
    } else {
        tmp = GENIE_MALLOC(bytes);
        if (!tmp) { genie__fail(ctx, GENIE_ERR_OOM, "genie_safetensors_save: out of memory"); return 0; }
        if (genie_read(ctx, t, dt, tmp, bytes) != GENIE_OK) { GENIE_FREE(tmp); return 0; }
        w = fwrite(tmp, 1, bytes, f);
        GENIE_FREE(tmp);
    }
    if (w != bytes) { *io_err = 1; return 0; }
    return 1;
}

GENIEDEF genie_result genie_safetensors_save_metadata(genie_ctx *ctx, const char *path, int n, const char *const *names,
                                                      genie_tensor *const *ts, int nmeta, const char *const *keys,
                                                      const char *const *values) {
    const char *fn = "genie_safetensors_save";
    genie__sbuf h;
    int64_t *offs = NULL, cur = 0;
    char *tmp = NULL;
    FILE *f = NULL;
    int i, pass, io_err = 0;
    unsigned char len8[8];
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->err) return ctx->err;
    if (!path || n < 0 || (n > 0 && (!names || !ts)) || nmeta < 0 || (nmeta > 0 && (!keys || !values))) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: NULL path, names, tensors or metadata, or a negative count", fn);
        return GENIE_ERR_INVALID_ARG;
    }
    if (!genie__little_endian()) {
        genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: %.200s: safetensors files are written on little-endian hosts only", fn, path);
        return GENIE_ERR_UNSUPPORTED;
    }
    if (!genie__st_check_names(ctx, fn, path, "name", n, names) || !genie__st_check_names(ctx, fn, path, "metadata key", nmeta, keys))
        return ctx->err;
    for (i = 0; i < n; i++) {
        if (strcmp(names[i], "__metadata__") == 0) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: \"__metadata__\" is not a tensor name", fn, path);
            return GENIE_ERR_INVALID_ARG;
        }
        if (ts[i] && genie__dead(ts[i])) { /* before its context is read: a dead slot's scope is not */
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: tensor \"%.80s\" is a dead handle (used after its pool was "
                        "popped or its last reference released)", fn, path, names[i]);
            return GENIE_ERR_INVALID_ARG;
        }
        if (!ts[i] || GENIE__CTX(ts[i]) != ctx) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: tensor \"%.80s\" is NULL or of another context", fn, path, names[i]);
            return GENIE_ERR_INVALID_ARG;
        }
    }
    for (i = 0; i < nmeta; i++)
        if (!values[i] || !genie__utf8_valid(values[i])) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: %.200s: metadata value of \"%.80s\" is NULL or not valid UTF-8", fn, path, keys[i]);
            return GENIE_ERR_INVALID_ARG;
        }
    /* data in order of element size (8, 4, 2, 1), then as given: every tensor aligned */
    offs = (int64_t *)GENIE_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!offs) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return GENIE_ERR_OOM; }
    for (pass = 8; pass >= 1; pass /= 2)
        for (i = 0; i < n; i++) {
            int64_t bytes;
            if (genie__dt_size[genie_dtype_of(ts[i])] != (size_t)pass) continue;
            bytes = genie__mul_ck(genie_numel(ts[i]), pass);
            offs[i] = cur;
            cur = bytes < 0 ? -1 : genie__add_ck(cur, bytes);
            if (cur < 0 || (uint64_t)bytes > SIZE_MAX) {
                GENIE_FREE(offs);
                genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: %.200s: the data size overflows", fn, path);
                return GENIE_ERR_OVERFLOW;
            }
        }
    /* the header */
    memset(&h, 0, sizeof h);
    genie__sbuf_str(&h, "{");
    if (nmeta > 0) {
        genie__sbuf_str(&h, "\"__metadata__\":{");
        for (i = 0; i < nmeta; i++) {
            if (i) genie__sbuf_str(&h, ",");
            genie__sbuf_json(&h, keys[i]);
            genie__sbuf_str(&h, ":");
            genie__sbuf_json(&h, values[i]);
        }
        genie__sbuf_str(&h, n ? "}," : "}");
    }
    for (i = 0; i < n; i++) {
        char num[64];
        int d, nd = genie_ndim(ts[i]);
        genie_dtype dt = genie_dtype_of(ts[i]);
        if (i) genie__sbuf_str(&h, ",");
        genie__sbuf_json(&h, names[i]);
        genie__sbuf_str(&h, ":{\"dtype\":\"");
        genie__sbuf_str(&h, genie__st_dt_names[dt]);
        genie__sbuf_str(&h, "\",\"shape\":[");
        for (d = 0; d < nd; d++) {
            sprintf(num, d ? ",%lld" : "%lld", (long long)genie_shape(ts[i])[d]);
            genie__sbuf_str(&h, num);
        }
        sprintf(num, "],\"data_offsets\":[%lld,%lld]}", (long long)offs[i],
                (long long)(offs[i] + genie_numel(ts[i]) * (int64_t)genie__dt_size[dt]));
        genie__sbuf_str(&h, num);
    }
    genie__sbuf_str(&h, "}");
    while (!h.oom && h.n % 8) genie__sbuf_str(&h, " "); /* the data starts 8-aligned */
    if (h.oom || h.n > GENIE__ST_MAX_HEADER) {
        GENIE_FREE(h.p);
        GENIE_FREE(offs);
        if (h.oom) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); return GENIE_ERR_OOM; }
        genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: %.200s: the header would exceed 100000000 bytes", fn, path);
        return GENIE_ERR_UNSUPPORTED;
    }
    /* computed before anything is written: a failure leaves no file behind */
    if (genie_realize(ctx, n, ts) != GENIE_OK) goto fail;
    /* written to "<path>.genie.tmp", then renamed over path: readers of the old
       file (a mapping) keep it, and a failure leaves path as it was */
    tmp = (char *)GENIE_MALLOC(strlen(path) + 11);
    if (!tmp) { genie__fail(ctx, GENIE_ERR_OOM, "%s: %.200s: out of memory", fn, path); goto fail; }
    sprintf(tmp, "%s.genie.tmp", path);
    f = fopen(tmp, "wb");
    if (!f) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: cannot create %s: %s", fn, path, tmp, strerror(errno));
        goto fail;
    }
    for (i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)h.n >> (8 * i));
    if (fwrite(len8, 1, 8, f) != 8 || fwrite(h.p, 1, (size_t)h.n, f) != (size_t)h.n) { io_err = 1; goto fail; }
    for (pass = 8; pass >= 1; pass /= 2)
        for (i = 0; i < n; i++)
            if (genie__dt_size[genie_dtype_of(ts[i])] == (size_t)pass && !genie__st_write_tensor(ctx, ts[i], f, &io_err))
                goto fail;
    if (fflush(f) != 0 || ferror(f)) { io_err = 1; goto fail; }
    i = fclose(f);
    f = NULL;
    if (i != 0) { io_err = 1; goto fail; }
#if defined(_WIN32) && GENIE__MMAP == 2
    if (!MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING)) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: cannot replace it (Windows error %lu)", fn, path,
                    (unsigned long)GetLastError());
        goto fail;
    }
#else
#ifdef _WIN32
    remove(path);
#endif
    if (rename(tmp, path) != 0) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: cannot rename %s to it: %s", fn, path, tmp, strerror(errno));
        goto fail;
    }
#endif
    GENIE_FREE(tmp);
    GENIE_FREE(h.p);
    GENIE_FREE(offs);
    return GENIE_OK;
fail:
    if (io_err) genie__fail(ctx, GENIE_ERR_BACKEND, "%s: %.200s: write failed: %s", fn, path, errno ? strerror(errno) : "I/O error");
    if (f) fclose(f);
    if (tmp) remove(tmp);
    GENIE_FREE(tmp);
    GENIE_FREE(h.p);
    GENIE_FREE(offs);
    return ctx->err ? ctx->err : GENIE_ERR_BACKEND;
}
GENIEDEF genie_result genie_safetensors_save(genie_ctx *ctx, const char *path, int n, const char *const *names,
                                             genie_tensor *const *ts) {
    return genie_safetensors_save_metadata(ctx, path, n, names, ts, 0, NULL, NULL);
}

/* >>api ------------------------------------------------------------------- */
/* ---- context ---- */
GENIEDEF genie_ctx *genie_ctx_create(const genie_ctx_desc *desc) {
    genie_ctx *ctx = (genie_ctx *)GENIE_MALLOC(sizeof(genie_ctx));
    if (!ctx) return NULL;
    memset(ctx, 0, sizeof *ctx);
    if (desc) {
        ctx->n_threads = desc->n_threads;
        ctx->no_pool = desc->no_pool;
    }
    ctx->cpu = genie__cpu_pick(desc ? desc->cpu : GENIE_CPU_AUTO);
    ctx->nodes.size = sizeof(genie__node);
    ctx->handles.size = sizeof(genie_tensor);
    ctx->storages.size = sizeof(genie__storage);
    ctx->vspecs.size = sizeof(genie__vspec);
    ctx->tuple_shells.size = sizeof(genie_tuple);
    ctx->phase = "";
    ctx->no_scope.module = ctx->no_scope.phase = "";
    ctx->no_scope.ctx = ctx;
    ctx->scope = &ctx->no_scope;
    ctx->tc_mask = ~(uint64_t)0;
    ctx->pk_cap = GENIE_PACK_CACHE_BYTES;
    { /* tests force tape-cache hash collisions: GENIE_TAPE_HASH_BITS=0 makes every hash equal */
        const char *hb = getenv("GENIE_TAPE_HASH_BITS");
        if (hb && *hb >= '0' && *hb <= '9' && atoi(hb) < 64) ctx->tc_mask = ((uint64_t)1 << atoi(hb)) - 1;
    }
    if (desc) genie__be_select(ctx, desc->backend);
    return ctx;
}
GENIEDEF void genie_ctx_destroy(genie_ctx *ctx) {
    int64_t i;
    if (!ctx) return;
    while (ctx->tuples) {
        genie_tuple *t = ctx->tuples;
        ctx->tuples = t->next;
        GENIE_FREE(t->items); /* the shells go with their slab */
    }
    genie__tpool_destroy(ctx->tpool);
    genie__tc_flush(ctx);
    GENIE_FREE(ctx->tkey);
    GENIE_FREE(ctx->fg_scratch);
    GENIE_FREE(ctx->wk_stack);
    GENIE_FREE(ctx->wk_next);
    GENIE_FREE(ctx->wk_tape);
    GENIE_FREE(ctx->wk_free);
    GENIE_FREE(ctx->ws_raw);
    GENIE_FREE(ctx->mm_plan);
    while (ctx->bufs) genie__buf_free_now(ctx, ctx->bufs);
    genie__cache_flush(ctx);
    if (ctx->be) ctx->be->destroy(ctx->be_state); /* after every device block went back */
    for (i = 0; i < ctx->nodes.nchunks; i++) { /* heap input arrays of nodes still alive */
        char *c = (char *)ctx->nodes.chunks[i];
        int j, used = i + 1 < ctx->nodes.nchunks ? GENIE__SLAB_PER : GENIE__SLAB_PER - ctx->nodes.nfresh; /* the rest never handed out */
        for (j = 0; j < used; j++) {
            genie__node *n = (genie__node *)(c + (size_t)j * sizeof(genie__node));
            if (n->refs > 0 && n->in && n->in != n->in_small) { GENIE_FREE(n->in); n->in = NULL; }
        }
    }
    genie__slab_destroy(&ctx->nodes);
    genie__slab_destroy(&ctx->handles);
    genie__slab_destroy(&ctx->storages);
    genie__slab_destroy(&ctx->vspecs);
    genie__slab_destroy(&ctx->tuple_shells);
    for (i = 0; i < ctx->capinterned; i++) GENIE_FREE(ctx->interned[i]);
    for (i = 0; i < ctx->capscopeset; i++) GENIE_FREE(ctx->scopeset[i]);
    GENIE_FREE(ctx->scopeset);
    GENIE_FREE(ctx->interned);
    GENIE_FREE(ctx->pool);
    GENIE_FREE(ctx->marks);
    GENIE_FREE(ctx->scopes);
    GENIE_FREE(ctx->rel);
    GENIE_FREE(ctx->pwork);
    GENIE_FREE(ctx);
}
GENIEDEF genie_result genie_set_num_threads(genie_ctx *ctx, int n) {
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (n < 0) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "genie_set_num_threads: n must be >= 0, got %d", n);
        return GENIE_ERR_INVALID_ARG;
    }
    ctx->n_threads = n;
    return GENIE_OK;
}
GENIEDEF genie_result genie_set_pack_cache(genie_ctx *ctx, size_t max_bytes) {
    genie__buf *b;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (max_bytes < ctx->pk_cap)
        for (b = ctx->bufs; b; b = b->next)
            if (b->pk) genie__pk_drop(ctx, b);
    ctx->pk_cap = max_bytes;
    return GENIE_OK;
}
GENIEDEF genie_cpu genie_cpu_path(const genie_ctx *ctx) { return ctx ? ctx->cpu : GENIE_CPU_AUTO; }
GENIEDEF int genie_cpu_supported(genie_cpu path) {
    return path > GENIE_CPU_AUTO && path < GENIE_CPU_COUNT && genie__cpu_runs(path);
}
GENIEDEF const char *genie_cpu_name(genie_cpu path) {
    return path >= GENIE_CPU_AUTO && path < GENIE_CPU_COUNT ? genie__cpu_names[path] : "";
}
GENIEDEF genie_result genie_status(const genie_ctx *ctx) { return ctx ? ctx->err : GENIE_ERR_INVALID_ARG; }
GENIEDEF const char *genie_last_error(const genie_ctx *ctx) { return ctx ? ctx->msg : "genie: NULL context"; }
GENIEDEF void genie_clear_error(genie_ctx *ctx) {
    if (!ctx) return;
    ctx->err = GENIE_OK;
    ctx->msg[0] = 0;
}
GENIEDEF void genie_pool_push(genie_ctx *ctx) {
    int64_t cap;
    if (!ctx) return;
    cap = ctx->capmarks;
    if (!genie__grow((void **)&ctx->marks, &cap, (int64_t)ctx->nmarks + 1, sizeof(int64_t))) {
        genie__fail(ctx, GENIE_ERR_OOM, "genie_pool_push: out of memory");
        return;
    }
    ctx->capmarks = (int)cap;
    ctx->marks[ctx->nmarks++] = ctx->npool;
}
GENIEDEF void genie_pool_pop(genie_ctx *ctx) {
    int64_t mark;
    if (!ctx || ctx->nmarks == 0) return;
    mark = ctx->marks[--ctx->nmarks];
    while (ctx->npool > mark) {
        genie__pool_entry e;
        int64_t i = ctx->npool - 1;
        /* the entries below are released next: their handles, then storages, then nodes
           into cache ahead of time (each release waited on all three lines) */
        if (i - 12 >= mark && !(ctx->pool[i - 12] & 1)) GENIE__PREFETCH((const void *)ctx->pool[i - 12]);
        if (i - 6 >= mark && !((e = ctx->pool[i - 6]) & 1) && !genie__dead((genie_tensor *)e) && ((genie_tensor *)e)->st)
            GENIE__PREFETCH(((genie_tensor *)e)->st);
        if (i - 3 >= mark && !((e = ctx->pool[i - 3]) & 1) && !genie__dead((genie_tensor *)e) && ((genie_tensor *)e)->st) {
            const genie__node *n = ((genie_tensor *)e)->st->ver;
            if (n) GENIE__PREFETCH_W(n);
        }
        e = ctx->pool[--ctx->npool];
        if (e & 1) genie__tuple_free((genie_tuple *)(e & ~(uintptr_t)1));
        else genie__handle_release((genie_tensor *)e);
    }
}
GENIEDEF void genie_retain(genie_tensor *t) { if (GENIE__LIVE(t)) t->refs++; }
GENIEDEF void genie_release(genie_tensor *t) { genie__handle_release(t); }

/* ---- helpers shared by the operations ---- */
#define GENIE__ENTER(ctx) do { if (!(ctx) || (ctx)->err) return NULL; } while (0)
/* An optional input (NULL is fine) must belong to this context. */
static int genie__mine(genie_ctx *ctx, const char *fn, const genie_tensor *t) {
    if (t && genie__dead(t)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: a dead tensor handle was passed (used after its pool was popped "
                    "or its last reference released)", fn);
        return 0;
    }
    if (t && GENIE__CTX(t) != ctx) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: a tensor of another context was passed", fn);
        return 0;
    }
    return 1;
}
static int genie__need(genie_ctx *ctx, const char *fn, const genie_tensor *t) {
    if (!t) { genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: required input is NULL", fn); return 0; }
    return genie__mine(ctx, fn, t);
}
static int genie__wrap_dim(genie_ctx *ctx, const char *fn, int64_t dim, int nd, int64_t *out) {
    int64_t r = nd > 0 ? nd : 1;
    if (dim < -r || dim >= r) {
        genie__fail(ctx, GENIE_ERR_INDEX, "%s: dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                    fn, (long long)-r, (long long)(r - 1), (long long)dim);
        return 0;
    }
    *out = dim < 0 ? dim + r : dim;
    return 1;
}
/* A shape argument: ndim in range, sizes >= 0, and (dt >= 0) a tensor of dtype dt
   with this shape representable (genie__layout_ok), else its element count. */
static int genie__check_shape(genie_ctx *ctx, const char *fn, int nd, const int64_t *shape, int dt) {
    int i;
    if (nd < 0 || nd > GENIE__MAXD || (nd > 0 && !shape)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: ndim %d out of range [0, %d] (or NULL shape)", fn, nd, GENIE__MAXD);
        return 0;
    }
    for (i = 0; i < nd; i++)
        if (shape[i] < 0) {
            genie__fail(ctx, GENIE_ERR_SHAPE, "%s: negative dimension %lld", fn, (long long)shape[i]);
            return 0;
        }
    if (genie__numel(nd, shape) < 0 || (dt >= 0 && !genie__layout_ok(nd, shape, genie__dt_size[dt]))) {
        char sb[200];
        genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: shape %s: the number of elements, strides or bytes overflow int64", fn,
                    genie__fmt_shape(sb, nd, shape));
        return 0;
    }
    return 1;
}
static int genie__check_dtype(genie_ctx *ctx, const char *fn, int dt) {
    if (!genie__dt_valid(dt)) { genie__fail(ctx, GENIE_ERR_DTYPE, "%s: invalid dtype %d", fn, dt); return 0; }
    return 1;
}
/* ATen's result_type: dimensioned tensors, then 0-dim tensors, then a Python float. */
static int genie__combine(int higher, int lower) {
    if (higher < 0) return lower;
    if (lower < 0) return higher;
    if (GENIE__IS_FLOAT(higher)) return higher;
    if (higher == GENIE_BOOL || GENIE__IS_FLOAT(lower)) return genie__promote(higher, lower);
    return higher;
}
static int genie__result_type(int n, genie_tensor *const *ts, int float_scalar) {
    int dim = -1, zero = -1, i;
    for (i = 0; i < n; i++) {
        if (!ts[i]) continue;
        if (ts[i]->v->ndim > 0) dim = genie__promote(dim, ts[i]->st->dtype);
        else zero = genie__promote(zero, ts[i]->st->dtype);
    }
    return genie__combine(dim, genie__combine(zero, float_scalar ? GENIE_F32 : -1));
}
/* A view of t broadcast to (nd, shape): shared when the shape already fits. */
static genie__vspec *genie__bcast_view(genie_ctx *ctx, const genie_tensor *t, int nd, const int64_t *shape) {
    int64_t st[GENIE__MAXD];
    int i;
    if (t->v->ndim == nd && memcmp(t->v->shape, shape, (size_t)nd * 8) == 0) return genie__vspec_retain(t->v);
    for (i = 0; i < nd; i++) {
        int src = i - (nd - t->v->ndim);
        st[i] = (src < 0 || (t->v->shape[src] == 1 && shape[i] != 1)) ? 0 : t->v->strides[src];
    }
    return genie__vspec_new(ctx, nd, shape, st, t->v->off);
}
/* A pending node of numel elements (checked) writing the whole of view v (whose reference it takes). */
static genie__node *genie__begin_v(genie_ctx *ctx, int op, int dt, genie__vspec *v, int64_t numel, int nin,
                                   genie__vspec **outv) {
    genie__node *n;
    *outv = NULL;
    if (!v) return (genie__node *)GENIE__OOM(ctx, genie__op_names[op]);
    n = genie__node_new(ctx, op, dt, numel, nin);
    if (!n) { genie__vspec_release(ctx, v); return (genie__node *)GENIE__OOM(ctx, genie__op_names[op]); }
    n->out = genie__vspec_retain(v);
    *outv = v;
    return n;
}
/* A pending node and its output view (strides NULL: contiguous); like (may be
   NULL) is an input's view, shared as the output's when they are equal. */
static genie__node *genie__begin_like(genie_ctx *ctx, int op, int dt, int nd, const int64_t *shape,
                                      const int64_t *strides, int nin, genie__vspec *like, genie__vspec **outv) {
    genie__vspec *v;
    int64_t numel = genie__layout_numel(nd, shape, genie__dt_size[dt]);
    *outv = NULL;
    if (numel < 0) {
        char sb[200];
        return (genie__node *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: a %s result of shape %s: its size overflows int64",
                                          genie__op_names[op], genie__dt_names[dt], genie__fmt_shape(sb, nd, shape));
    }
    if (like && strides && like->off == 0 && like->ndim == nd && memcmp(like->shape, shape, (size_t)nd * 8) == 0 &&
        memcmp(like->strides, strides, (size_t)nd * 8) == 0)
        v = genie__vspec_retain(like);
    else
        v = genie__vspec_new(ctx, nd, shape, strides, 0);
    return genie__begin_v(ctx, op, dt, v, numel, nin, outv);
}
/* A pending node and its output view (strides NULL: contiguous). */
static genie__node *genie__begin(genie_ctx *ctx, int op, int dt, int nd, const int64_t *shape, const int64_t *strides,
                                 int nin, genie__vspec **outv) {
    return genie__begin_like(ctx, op, dt, nd, shape, strides, nin, NULL, outv);
}
/* Set input i of n to t read through v (v's reference is taken; NULL: OOM). */
static int genie__in(genie_ctx *ctx, genie__node *n, int i, const genie_tensor *t, genie__vspec *v) {
    if (!v) { genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory", genie__op_names[n->op]); return 0; }
    genie__node_set_in(n, i, t->st->ver, v);
    return 1;
}
static genie_tensor *genie__abort(genie_ctx *ctx, genie__node *n, genie__vspec *v) {
    genie__node_release(ctx, n);
    genie__vspec_release(ctx, v);
    return NULL;
}
static genie_tensor *genie__view_of(genie_ctx *ctx, genie_tensor *t, int op, int nd, const int64_t *shape,
                                    const int64_t *st, int64_t off) {
    genie__vspec *v;
    if (genie__numel(nd, shape) < 0) {
        char sb[200];
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: a view of shape %s: its number of elements overflows int64",
                                           genie__op_names[op], genie__fmt_shape(sb, nd, shape));
    }
    v = genie__vspec_new(ctx, nd, shape, st, off);
    if (!v) return (genie_tensor *)GENIE__OOM(ctx, genie__op_names[op]);
    ctx->stats.views_created++;
    return genie__handle_new(ctx, t->st, v, op);
}
static genie_tensor *genie__alias(genie_ctx *ctx, genie_tensor *t, int op) {
    ctx->stats.views_created++;
    return genie__handle_new(ctx, t->st, genie__vspec_retain(t->v), op);
}
/* Where PyTorch returns the input itself: an alias that is the same tensor to copy_ */
static genie_tensor *genie__self(genie_ctx *ctx, genie_tensor *t, int op) {
    genie_tensor *r = genie__alias(ctx, t, op);
    if (r) r->self = t->self;
    return r;
}

/* ---- making tensors ---- */
GENIEDEF genie_tensor *genie_from_data(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, const void *data) {
    const char *fn = "genie_from_data";
    genie__vspec *v;
    genie__node *n;
    int64_t numel;
    GENIE__ENTER(ctx);
    if (!genie__check_dtype(ctx, fn, dt) || !genie__check_shape(ctx, fn, ndim, shape, dt)) return NULL;
    numel = genie__numel(ndim, shape);
    if (numel > 0 && !data) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: data is NULL", fn);
    if ((uint64_t)numel > SIZE_MAX / genie__dt_size[dt])
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: byte size overflows", fn);
    n = genie__begin(ctx, GENIE__OP_LEAF, dt, ndim, shape, NULL, 0, &v);
    if (!n) return NULL;
    n->buf = genie__buf_new(ctx, (size_t)numel * genie__dt_size[dt]);
    if (!n->buf) { genie__abort(ctx, n, v); return (genie_tensor *)GENIE__OOM(ctx, fn); }
    if (numel) memcpy(n->buf->data, data, (size_t)numel * genie__dt_size[dt]);
    n->state = GENIE__DONE;
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_from_blob(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape,
                                       const int64_t *strides, void *data,
                                       void (*deleter)(void *data, void *user), void *user) {
    const char *fn = "genie_from_blob";
    genie__vspec *v;
    genie__node *n;
    genie__buf *b;
    genie_tensor *t;
    int64_t ext;
    int i;
    GENIE__ENTER(ctx);
    if (!genie__check_dtype(ctx, fn, dt) || !genie__check_shape(ctx, fn, ndim, shape, dt)) return NULL;
    if (strides)
        for (i = 0; i < ndim; i++)
            if (strides[i] < 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_VIEW, "%s: negative stride %lld", fn, (long long)strides[i]);
    if (strides) {
        ext = genie__extent_ck(ndim, shape, strides, 0);
        if (ext < 0 || (uint64_t)ext > (uint64_t)INT64_MAX / genie__dt_size[dt])
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: the memory these strides span overflows int64", fn);
    }
    v = genie__vspec_new(ctx, ndim, shape, strides, 0);
    if (!v) return (genie_tensor *)GENIE__OOM(ctx, fn);
    ext = genie__view_extent(v);
    if (ext > 0 && !data) { genie__vspec_release(ctx, v); return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: data is NULL", fn); }
    if (!data) data = genie__no_data; /* empty: never read, but pointer arithmetic on it is defined */
    n = genie__node_new(ctx, GENIE__OP_LEAF, dt, ext, 0);
    b = (genie__buf *)GENIE_MALLOC(sizeof(genie__buf));
    if (!n || !b) {
        if (b) GENIE_FREE(b);
        genie__node_release(ctx, n);
        genie__vspec_release(ctx, v);
        return (genie_tensor *)GENIE__OOM(ctx, fn);
    }
    memset(b, 0, sizeof *b);
    b->refs = 1;
    b->external = 1;
    b->loc = GENIE__ON_HOST;
    b->data = data;
    b->bytes = (size_t)ext * genie__dt_size[dt];
    b->next = ctx->bufs;
    if (ctx->bufs) ctx->bufs->prev = b;
    ctx->bufs = b;
    n->buf = b;
    n->out = genie__vspec_retain(v);
    n->state = GENIE__DONE;
    t = genie__result(ctx, n, v);
    if (t) { /* set only now: a failure never runs the deleter (the caller still owns data) */
        b->deleter = deleter;
        b->user = user;
    }
    return t;
}
static genie_tensor *genie__full(genie_ctx *ctx, const char *fn, genie_dtype dt, int ndim, const int64_t *shape, double val) {
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__check_dtype(ctx, fn, dt) || !genie__check_shape(ctx, fn, ndim, shape, dt)) return NULL;
    if (!genie__fits(val, dt))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: value %g cannot be converted to type %s without overflow",
                                           fn, val, genie__dt_names[dt]);
    n = genie__begin(ctx, GENIE__OP_FULL, dt, ndim, shape, NULL, 0, &v);
    if (!n) return NULL;
    n->a.f[0] = val;
    n->a.i[0] = genie__fill_int(val, dt);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_empty(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape) {
    return genie__full(ctx, "genie_empty", dt, ndim, shape, 0.0);
}
GENIEDEF genie_tensor *genie_zeros(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape) {
    return genie__full(ctx, "genie_zeros", dt, ndim, shape, 0.0);
}
GENIEDEF genie_tensor *genie_ones(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape) {
    return genie__full(ctx, "genie_ones", dt, ndim, shape, 1.0);
}
GENIEDEF genie_tensor *genie_full(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, double v) {
    return genie__full(ctx, "genie_full", dt, ndim, shape, v);
}
GENIEDEF genie_tensor *genie_arange(genie_ctx *ctx, genie_dtype dt, double start, double end, double step) {
    const char *fn = "genie_arange";
    genie__vspec *v;
    genie__node *n;
    double size_d;
    int64_t size;
    GENIE__ENTER(ctx);
    if (!genie__check_dtype(ctx, fn, dt)) return NULL;
    if (dt == GENIE_BOOL) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: not supported for bool", fn);
    if (!isfinite(start) || !isfinite(end) || !isfinite(step))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: unsupported range: %g -> %g step %g", fn, start, end, step);
    if (!GENIE__IS_FLOAT(dt)) { /* integral dtypes take the bounds as integers, as PyTorch does */
        if (fabs(start) >= 9.2e18 || fabs(end) >= 9.2e18 || fabs(step) >= 9.2e18)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: bounds overflow int64", fn);
        double xs = (double)(int64_t)start, xe = (double)(int64_t)end, xst = (double)(int64_t)step;
        if (xst == 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: step must be nonzero", fn);
        if ((xst > 0 && xe < xs) || (xst < 0 && xe > xs))
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: upper bound and larger bound inconsistent with step sign", fn);
        if (dt == GENIE_I64) { start = xs; end = xe; step = xst; } /* i64 sizes from the integers ... */
        size_d = ceil((end - start) / step);                     /* ... other dtypes from the doubles */
        start = xs;
        step = xst;
    } else {
        size_d = 0;
    }
    if (step == 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: step must be nonzero", fn);
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: upper bound and larger bound inconsistent with step sign", fn);
    if (GENIE__IS_FLOAT(dt)) size_d = ceil((end - start) / step);
    if (!(size_d >= 0 && size_d < 9.2e18)) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: size overflows", fn);
    size = (int64_t)size_d;
    n = genie__begin(ctx, GENIE__OP_ARANGE, dt, 1, &size, NULL, 0, &v);
    if (!n) return NULL;
    n->a.f[0] = start;
    n->a.f[1] = step;
    return genie__result(ctx, n, v);
}
static genie_tensor *genie__random(genie_ctx *ctx, int op, genie_dtype dt, int ndim, const int64_t *shape, uint64_t seed) {
    const char *fn = op == GENIE__OP_RAND ? "genie_rand" : "genie_randn";
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__check_dtype(ctx, fn, dt) || !genie__check_shape(ctx, fn, ndim, shape, dt)) return NULL;
    if (!GENIE__IS_FLOAT(dt))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: needs a floating dtype, got %s", fn, genie__dt_names[dt]);
    n = genie__begin(ctx, op, dt, ndim, shape, NULL, 0, &v);
    if (!n) return NULL;
    n->a.i[0] = (int64_t)seed;
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_rand(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, uint64_t seed) {
    return genie__random(ctx, GENIE__OP_RAND, dt, ndim, shape, seed);
}
GENIEDEF genie_tensor *genie_randn(genie_ctx *ctx, genie_dtype dt, int ndim, const int64_t *shape, uint64_t seed) {
    return genie__random(ctx, GENIE__OP_RANDN, dt, ndim, shape, seed);
}

/* ---- looking at a tensor ---- */
GENIEDEF int genie_ndim(const genie_tensor *t) { return GENIE__LIVE(t) ? t->v->ndim : 0; }
GENIEDEF const int64_t *genie_shape(const genie_tensor *t) { return GENIE__LIVE(t) ? t->v->shape : NULL; }
GENIEDEF const int64_t *genie_strides(const genie_tensor *t) { return GENIE__LIVE(t) ? t->v->strides : NULL; }
GENIEDEF int64_t genie_storage_offset(const genie_tensor *t) { return GENIE__LIVE(t) ? t->v->off : 0; }
GENIEDEF int64_t genie_numel(const genie_tensor *t) { return GENIE__LIVE(t) ? genie__numel(t->v->ndim, t->v->shape) : 0; }
GENIEDEF genie_dtype genie_dtype_of(const genie_tensor *t) { return GENIE__LIVE(t) ? (genie_dtype)t->st->dtype : GENIE_F32; }
GENIEDEF int genie_is_contiguous(const genie_tensor *t) { return GENIE__LIVE(t) ? genie__is_contig(t->v->ndim, t->v->shape, t->v->strides) : 0; }
GENIEDEF int genie_is_materialized(const genie_tensor *t) { return GENIE__LIVE(t) ? t->st->ver->state == GENIE__DONE : 0; }
GENIEDEF int genie_shares_storage(const genie_tensor *a, const genie_tensor *b) { return GENIE__LIVE(a) && GENIE__LIVE(b) && a->st == b->st; }

/* ---- materializing ---- */
static genie_result genie__materialize(genie_ctx *ctx, const char *fn, int n, genie_tensor *const *ts, int reason) {
    genie__node *small[8], **nodes = small;
    genie_result r;
    int i;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->err) return ctx->err;
    if (n < 0 || (n > 0 && !ts)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: invalid tensor list", fn);
        return GENIE_ERR_INVALID_ARG;
    }
    if (n > 8) {
        nodes = (genie__node **)GENIE_MALLOC((size_t)n * sizeof(void *));
        if (!nodes) { genie__fail(ctx, GENIE_ERR_OOM, "%s: out of memory", fn); return GENIE_ERR_OOM; }
    }
    for (i = 0; i < n; i++) {
        if (!ts[i]) {
            if (nodes != small) GENIE_FREE(nodes);
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: tensor %d is NULL", fn, i);
            return GENIE_ERR_INVALID_ARG;
        }
        if (!genie__mine(ctx, fn, ts[i])) {
            if (nodes != small) GENIE_FREE(nodes);
            return GENIE_ERR_INVALID_ARG;
        }
        nodes[i] = ts[i]->st->ver;
        if (nodes[i]->state == GENIE__PENDING) ctx->stats.materializations[reason]++;
    }
    r = genie__realize_nodes(ctx, n, nodes);
    if (r != GENIE_OK) {
        for (i = 0; i < n; i++)
            if (nodes[i]->state == GENIE__FAILED) {
                genie__fail(ctx, r, "%s: the value of %s failed when it was computed (%s)", fn,
                            genie__op_names[nodes[i]->op], genie_result_string(r));
                break;
            }
    }
    if (nodes != small) GENIE_FREE(nodes);
    return r;
}
GENIEDEF genie_result genie_realize(genie_ctx *ctx, int n, genie_tensor *const *ts) {
    return genie__materialize(ctx, "genie_realize", n, ts, GENIE_MAT_REALIZE);
}
GENIEDEF genie_result genie_read(genie_ctx *ctx, genie_tensor *t, genie_dtype as, void *dst, size_t dst_bytes) {
    const char *fn = "genie_read";
    genie_result r;
    int64_t numel, i;
    genie_dtype sdt;
    genie__mi m;
    const int64_t *st;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->err) return ctx->err;
    if (!t || !genie__dt_valid(as) || (!dst && dst_bytes)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: NULL tensor or destination, or invalid dtype", fn);
        return GENIE_ERR_INVALID_ARG;
    }
    if (!genie__mine(ctx, fn, t)) return GENIE_ERR_INVALID_ARG;
    numel = genie__numel(t->v->ndim, t->v->shape);
    if ((uint64_t)numel > dst_bytes / genie__dt_size[as]) {
        char sb[200];
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: destination of %llu bytes is too small for %s %s (%llu bytes)", fn,
                    (unsigned long long)dst_bytes, genie__fmt_shape(sb, t->v->ndim, t->v->shape), genie__dt_names[as],
                    (unsigned long long)numel * genie__dt_size[as]);
        return GENIE_ERR_INVALID_ARG;
    }
    r = genie__materialize(ctx, fn, 1, &t, GENIE_MAT_READ);
    if (r == GENIE_OK) r = genie__be_view_to_host(ctx, t->st->ver->buf, t->st->dtype, t->v, fn);
    if (r != GENIE_OK) return r;
    st = t->v->strides;
    sdt = (genie_dtype)t->st->dtype;
    if (numel > 0 && genie__is_contig(t->v->ndim, t->v->shape, st)) { /* whole arrays: bytes, or f32 <-> f16/bf16 */
        const char *src = (const char *)t->st->ver->buf->data + (size_t)t->v->off * genie__dt_size[sdt];
        if (as == sdt) {
            memcpy(dst, src, (size_t)numel * genie__dt_size[sdt]);
            return GENIE_OK;
        }
        if (as == GENIE_F32 && (sdt == GENIE_F16 || sdt == GENIE_BF16)) {
            genie__hconv(ctx->cpu, sdt, 0, dst, src, numel);
            return GENIE_OK;
        }
        if (sdt == GENIE_F32 && (as == GENIE_F16 || as == GENIE_BF16)) {
            genie__hconv(ctx->cpu, as, 1, dst, src, numel);
            return GENIE_OK;
        }
    }
    genie__mi_init(&m, t->v->ndim, t->v->shape, 1, &st, &t->v->off, 0);
    for (i = 0; i < numel; i++, genie__mi_next(&m)) genie__copy_elem(dst, i, as, t->st->ver->buf->data, m.off[0], sdt);
    return GENIE_OK;
}
static genie_result genie__item(genie_ctx *ctx, const char *fn, genie_tensor *t, double *f, int64_t *i) {
    genie_result r;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->err) return ctx->err;
    if (!t || (!f && !i)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: NULL tensor or output", fn);
        return GENIE_ERR_INVALID_ARG;
    }
    if (!genie__mine(ctx, fn, t)) return GENIE_ERR_INVALID_ARG;
    if (genie__numel(t->v->ndim, t->v->shape) != 1) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: a tensor with %lld elements cannot be converted to a scalar", fn,
                    (long long)genie__numel(t->v->ndim, t->v->shape));
        return GENIE_ERR_INVALID_ARG;
    }
    r = genie__materialize(ctx, fn, 1, &t, GENIE_MAT_ITEM);
    if (r == GENIE_OK) r = genie__be_view_to_host(ctx, t->st->ver->buf, t->st->dtype, t->v, fn);
    if (r != GENIE_OK) return r;
    if (f) *f = genie__ldf(t->st->ver->buf->data, t->v->off, t->st->dtype);
    if (i) *i = genie__ldi(t->st->ver->buf->data, t->v->off, t->st->dtype);
    return GENIE_OK;
}
GENIEDEF genie_result genie_item(genie_ctx *ctx, genie_tensor *t, double *out) { return genie__item(ctx, "genie_item", t, out, NULL); }
GENIEDEF genie_result genie_item_i64(genie_ctx *ctx, genie_tensor *t, int64_t *out) {
    return genie__item(ctx, "genie_item_i64", t, NULL, out);
}
GENIEDEF genie_result genie_data(genie_ctx *ctx, genie_tensor *t, const void **ptr) {
    genie_result r;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->err) return ctx->err;
    if (!t || !ptr) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "genie_data: NULL tensor or output");
        return GENIE_ERR_INVALID_ARG;
    }
    if (!genie__mine(ctx, "genie_data", t)) return GENIE_ERR_INVALID_ARG;
    r = genie__materialize(ctx, "genie_data", 1, &t, GENIE_MAT_DATA);
    if (r == GENIE_OK) r = genie__be_to_host(ctx, t->st->ver->buf, 0, t->st->ver->buf->bytes, "genie_data");
    if (r != GENIE_OK) return r;
    *ptr = (const char *)t->st->ver->buf->data; /* an empty view's offset may lie past its buffer */
    if (genie__numel(t->v->ndim, t->v->shape) > 0) *ptr = (const char *)*ptr + (size_t)t->v->off * genie__dt_size[t->st->dtype];
    return GENIE_OK;
}

/* ---- elementwise ---- */
static int genie__bcast_or_fail(genie_ctx *ctx, const char *fn, int n, genie_tensor *const *ts, int *nd, int64_t *shape) {
    int i;
    *nd = 0;
    for (i = 0; i < n; i++) {
        int64_t tmp[GENIE__MAXD];
        int tnd;
        if (!ts[i]) continue;
        if (!genie__broadcast(*nd, shape, ts[i]->v->ndim, ts[i]->v->shape, &tnd, tmp)) {
            char a[200], b[200];
            genie__fail(ctx, GENIE_ERR_SHAPE, "%s: shapes cannot be broadcast together: %s and %s", fn,
                        genie__fmt_shape(a, *nd, shape), genie__fmt_shape(b, ts[i]->v->ndim, ts[i]->v->shape));
            return 0;
        }
        memcpy(shape, tmp, (size_t)tnd * 8);
        *nd = tnd;
    }
    return 1;
}
/* Compute and output dtypes of a binary op on promoted dtype pt; 0 on error. */
static int genie__binary_types(genie_ctx *ctx, int op, const char *fn, int adt, int bdt, int pt, int *cdt, int *odt) {
    if (op == GENIE__OP_SUB && (adt == GENIE_BOOL || bdt == GENIE_BOOL)) {
        genie__fail(ctx, GENIE_ERR_DTYPE, "%s: subtraction, the `-` operator, with a bool tensor is not supported; "
                    "use logical_not() or logical_xor()", fn);
        return 0;
    }
    if (op == GENIE__OP_POW && pt == GENIE_BOOL) {
        genie__fail(ctx, GENIE_ERR_DTYPE, "%s: pow is not supported for two bool operands", fn);
        return 0;
    }
    *cdt = *odt = pt;
    switch (op) {
    case GENIE__OP_DIV: if (!GENIE__IS_FLOAT(pt)) *cdt = *odt = GENIE_F32; break;
    case GENIE__OP_EQ: case GENIE__OP_NE: case GENIE__OP_LT: case GENIE__OP_LE: case GENIE__OP_GT: case GENIE__OP_GE:
        *odt = GENIE_BOOL; break;
    case GENIE__OP_LOGICAL_AND: case GENIE__OP_LOGICAL_OR: *cdt = GENIE_F64; *odt = GENIE_BOOL; break;
    default: break;
    }
    return 1;
}
static genie_tensor *genie__binary(genie_ctx *ctx, int op, const char *fn, genie_tensor *a, genie_tensor *b, int scalar, double s) {
    genie_tensor *ts[2];
    const genie__vspec *vs[2];
    int64_t shape[GENIE__MAXD], st[GENIE__MAXD];
    int nd, pt, cdt, odt;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, a) || (!scalar && !genie__need(ctx, fn, b))) return NULL;
    ts[0] = a;
    ts[1] = scalar ? NULL : b;
    pt = genie__result_type(2, ts, scalar);
    if (!genie__binary_types(ctx, op, fn, a->st->dtype, scalar ? GENIE_F64 : b->st->dtype, pt, &cdt, &odt)) return NULL;
    if (genie__std_layout(a->v) && (scalar || (b->v->ndim == a->v->ndim && genie__std_layout(b->v) &&
                                              memcmp(a->v->shape, b->v->shape, (size_t)a->v->ndim * 8) == 0))) {
        /* operands laid out alike, row-major: so is the result (no broadcast, no layout), and
           each operand is read through its own view */
        genie__vspec *av = a->v;
        n = genie__begin_v(ctx, op, odt, av->off == 0 ? genie__vspec_retain(av) : genie__vspec_new(ctx, av->ndim, av->shape, av->strides, 0),
                           genie__numel(av->ndim, av->shape), scalar ? 1 : 2, &v); /* sizes > 0, a's: no overflow */
        if (!n) return NULL;
        n->cdt = (uint8_t)cdt;
        if (scalar) {
            n->has_scalar = 1;
            n->a.f[0] = GENIE__IS_FLOAT(cdt) ? genie__round_to(s, cdt == GENIE_F64 ? GENIE_F64 : GENIE_F32) : s;
        }
        genie__node_set_in(n, 0, a->st->ver, genie__vspec_retain(av));
        if (!scalar) genie__node_set_in(n, 1, b->st->ver, genie__vspec_retain(b->v));
        return genie__result(ctx, n, v);
    } else {
        genie__vspec ca, cb;
        /* ATen's iterator casts operands to the common dtype (logical ops compute in f64 here only) */
        int ldt = op == GENIE__OP_LOGICAL_AND || op == GENIE__OP_LOGICAL_OR ? pt : cdt;
        if (!genie__bcast_or_fail(ctx, fn, 2, ts, &nd, shape)) return NULL;
        vs[0] = genie__cast_view(a->v, a->st->dtype, ldt, &ca);
        vs[1] = scalar ? NULL : genie__cast_view(b->v, b->st->dtype, ldt, &cb);
        /* add/sub/mul/div wrap a scalar into a 0-dim operand; pow(Tensor, Scalar) is a unary
           iterator in ATen (the exponent is no operand), which changes the layout of odd shapes */
        genie__ti_layout(scalar ? 1 : 2, vs, scalar && op != GENIE__OP_POW, nd, shape, st);
    }
    n = genie__begin_like(ctx, op, odt, nd, shape, st, scalar ? 1 : 2, a->v, &v);
    if (!n) return NULL;
    n->cdt = (uint8_t)cdt;
    if (scalar) {
        n->has_scalar = 1;
        n->a.f[0] = GENIE__IS_FLOAT(cdt) ? genie__round_to(s, cdt == GENIE_F64 ? GENIE_F64 : GENIE_F32) : s;
    }
    if (!genie__in(ctx, n, 0, a, genie__bcast_view(ctx, a, nd, shape)) ||
        (!scalar && !genie__in(ctx, n, 1, b, genie__bcast_view(ctx, b, nd, shape))))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
#define GENIE__DEF_BINARY(name, OP)                                                          \
    GENIEDEF genie_tensor *genie_##name(genie_ctx *ctx, genie_tensor *a, genie_tensor *b) {  \
        return genie__binary(ctx, GENIE__OP_##OP, "genie_" #name, a, b, 0, 0.0);             \
    }
#define GENIE__DEF_SCALAR(name, OP)                                                                 \
    GENIEDEF genie_tensor *genie_##name##_scalar(genie_ctx *ctx, genie_tensor *a, double s) {      \
        return genie__binary(ctx, GENIE__OP_##OP, "genie_" #name "_scalar", a, NULL, 1, s);         \
    }
GENIE__DEF_BINARY(add, ADD) GENIE__DEF_BINARY(sub, SUB) GENIE__DEF_BINARY(mul, MUL) GENIE__DEF_BINARY(div, DIV)
GENIE__DEF_BINARY(pow, POW) GENIE__DEF_BINARY(maximum, MAXIMUM) GENIE__DEF_BINARY(minimum, MINIMUM)
GENIE__DEF_BINARY(eq, EQ) GENIE__DEF_BINARY(ne, NE) GENIE__DEF_BINARY(lt, LT) GENIE__DEF_BINARY(le, LE)
GENIE__DEF_BINARY(gt, GT) GENIE__DEF_BINARY(ge, GE) GENIE__DEF_BINARY(logical_and, LOGICAL_AND)
GENIE__DEF_BINARY(logical_or, LOGICAL_OR)
GENIE__DEF_SCALAR(add, ADD) GENIE__DEF_SCALAR(sub, SUB) GENIE__DEF_SCALAR(mul, MUL) GENIE__DEF_SCALAR(div, DIV)
GENIE__DEF_SCALAR(pow, POW)

/* Dtypes of a unary op on dtype dt: 0 on error. Float-only ops promote
   integers to f32; activations without integer kernels in ATen are errors. */
static int genie__unary_types(genie_ctx *ctx, int op, const char *fn, int dt, int *cdt, int *odt) {
    int isint = !GENIE__IS_FLOAT(dt);
    *cdt = *odt = dt;
    switch (op) {
    case GENIE__OP_EXP: case GENIE__OP_LOG: case GENIE__OP_SQRT: case GENIE__OP_RSQRT: case GENIE__OP_SIN:
    case GENIE__OP_COS: case GENIE__OP_TANH: case GENIE__OP_SIGMOID: case GENIE__OP_RECIPROCAL:
    case GENIE__OP_ERF: case GENIE__OP_LOG1P: case GENIE__OP_EXPM1:
        if (isint) *cdt = *odt = GENIE_F32;
        return 1;
    case GENIE__OP_GELU: case GENIE__OP_GELU_TANH: case GENIE__OP_SILU:
        if (isint) break;
        return 1;
    case GENIE__OP_NEG: case GENIE__OP_ABS: case GENIE__OP_RELU: case GENIE__OP_FLOOR: case GENIE__OP_CEIL:
    case GENIE__OP_ROUND:
        if (dt == GENIE_BOOL) break;
        return 1;
    case GENIE__OP_SQUARE:
        if (dt == GENIE_BOOL) *cdt = *odt = GENIE_I64;
        return 1;
    case GENIE__OP_LOGICAL_NOT: *odt = GENIE_BOOL; return 1;
    default: return 1;
    }
    genie__fail(ctx, GENIE_ERR_DTYPE, "%s: not supported for %s tensors", fn, genie__dt_names[dt]);
    return 0;
}
static genie_tensor *genie__unary(genie_ctx *ctx, int op, const char *fn, genie_tensor *t) {
    int64_t st[GENIE__MAXD];
    const genie__vspec *vs[1];
    int cdt, odt;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__unary_types(ctx, op, fn, t->st->dtype, &cdt, &odt)) return NULL;
    if (genie__std_layout(t->v) && t->v->off == 0) { /* row-major in: the same layout out (no layout work) */
        n = genie__begin_v(ctx, op, odt, genie__vspec_retain(t->v), genie__numel(t->v->ndim, t->v->shape), 1, &v);
    } else {
        genie__vspec ct;
        vs[0] = genie__cast_view(t->v, t->st->dtype, cdt, &ct);
        genie__ti_layout(1, vs, 0, t->v->ndim, t->v->shape, st);
        n = genie__begin_like(ctx, op, odt, t->v->ndim, t->v->shape, st, 1, t->v, &v);
    }
    if (!n) return NULL;
    n->cdt = (uint8_t)cdt;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
#define GENIE__DEF_UNARY(name, OP) \
    GENIEDEF genie_tensor *genie_##name(genie_ctx *ctx, genie_tensor *t) { return genie__unary(ctx, GENIE__OP_##OP, "genie_" #name, t); }
GENIE__DEF_UNARY(neg, NEG) GENIE__DEF_UNARY(abs, ABS) GENIE__DEF_UNARY(exp, EXP) GENIE__DEF_UNARY(log, LOG)
GENIE__DEF_UNARY(sqrt, SQRT) GENIE__DEF_UNARY(rsqrt, RSQRT) GENIE__DEF_UNARY(sin, SIN) GENIE__DEF_UNARY(cos, COS)
GENIE__DEF_UNARY(tanh, TANH) GENIE__DEF_UNARY(sigmoid, SIGMOID) GENIE__DEF_UNARY(relu, RELU)
GENIE__DEF_UNARY(gelu, GELU) GENIE__DEF_UNARY(gelu_tanh, GELU_TANH) GENIE__DEF_UNARY(silu, SILU)
GENIE__DEF_UNARY(reciprocal, RECIPROCAL) GENIE__DEF_UNARY(square, SQUARE) GENIE__DEF_UNARY(floor, FLOOR)
GENIE__DEF_UNARY(ceil, CEIL) GENIE__DEF_UNARY(round, ROUND) GENIE__DEF_UNARY(sign, SIGN) GENIE__DEF_UNARY(erf, ERF)
GENIE__DEF_UNARY(log1p, LOG1P) GENIE__DEF_UNARY(expm1, EXPM1) GENIE__DEF_UNARY(logical_not, LOGICAL_NOT)

/* Integer bound for clamp: truncated (saturated to int64; NaN: no bound). */
static int64_t genie__clamp_bound(double v) {
    if (v != v) return 0; /* no bound: unused */
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}
GENIEDEF genie_tensor *genie_clamp(genie_ctx *ctx, genie_tensor *t, double min, double max) {
    genie_tensor *r;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_clamp", t)) return NULL;
    if (t->st->dtype == GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "genie_clamp: not supported for bool tensors");
    if (min != min && max != max)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "genie_clamp: at least one of min or max must not be None (NAN)");
    r = genie__unary(ctx, GENIE__OP_CLAMP, "genie_clamp", t);
    if (!r) return NULL;
    n = r->st->ver;
    if (GENIE__IS_FLOAT(t->st->dtype)) { /* bounds converted to t's dtype */
        n->a.f[0] = min == min ? genie__round_to(min, t->st->dtype) : min;
        n->a.f[1] = max == max ? genie__round_to(max, t->st->dtype) : max;
    } else { /* truncated, then wrapped into the dtype as ATen converts a Scalar (u8: -1 is 255) */
        n->a.i[0] = genie__wrap_int(genie__clamp_bound(min), t->st->dtype);
        n->a.i[1] = genie__wrap_int(genie__clamp_bound(max), t->st->dtype);
        n->a.i[2] = min == min;
        n->a.i[3] = max == max;
    }
    return r;
}
GENIEDEF genie_tensor *genie_where(genie_ctx *ctx, genie_tensor *cond, genie_tensor *a, genie_tensor *b) {
    const char *fn = "genie_where";
    genie_tensor *ts[3], *ab[2];
    const genie__vspec *vs[3];
    int64_t shape[GENIE__MAXD], st[GENIE__MAXD];
    int nd, dt;
    genie__vspec ca, cb;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, cond) || !genie__need(ctx, fn, a) || !genie__need(ctx, fn, b)) return NULL;
    if (cond->st->dtype != GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: condition must be a bool tensor, got %s", fn,
                                           genie__dt_names[cond->st->dtype]);
    ts[0] = cond; ts[1] = a; ts[2] = b;
    ab[0] = a; ab[1] = b;
    if (!genie__bcast_or_fail(ctx, fn, 3, ts, &nd, shape)) return NULL;
    dt = genie__result_type(2, ab, 0);
    vs[0] = cond->v;
    vs[1] = genie__cast_view(a->v, a->st->dtype, dt, &ca);
    vs[2] = genie__cast_view(b->v, b->st->dtype, dt, &cb);
    genie__ti_layout(3, vs, 0, nd, shape, st);
    n = genie__begin(ctx, GENIE__OP_WHERE, dt, nd, shape, st, 3, &v);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, cond, genie__bcast_view(ctx, cond, nd, shape)) ||
        !genie__in(ctx, n, 1, a, genie__bcast_view(ctx, a, nd, shape)) ||
        !genie__in(ctx, n, 2, b, genie__bcast_view(ctx, b, nd, shape)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}

/* ---- reductions ---- */
/* Parse reduction dims into a mask; ndims 0 = all. */
static int genie__dims_mask(genie_ctx *ctx, const char *fn, int nd, int ndims, const int64_t *dims, int *mask) {
    int i;
    memset(mask, 0, sizeof(int) * GENIE__MAXD);
    if (ndims < 0 || ndims > GENIE__MAXD || (ndims > 0 && !dims)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: invalid dims list", fn);
        return 0;
    }
    if (ndims == 0) {
        for (i = 0; i < nd; i++) mask[i] = 1;
        return 1;
    }
    for (i = 0; i < ndims; i++) {
        int64_t d;
        if (!genie__wrap_dim(ctx, fn, dims[i], nd, &d)) return 0;
        if (nd == 0) continue;
        if (mask[d]) {
            genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: dim %lld appears multiple times in the list of dims", fn, (long long)d);
            return 0;
        }
        mask[d] = 1;
    }
    return 1;
}
/* Build a reduction node: in[0] is t viewed as [kept..., reduced...]. */
static genie_tensor *genie__reduce_node(genie_ctx *ctx, int op, genie_tensor *t, const int *mask, int keepdim, int odt) {
    int64_t oshape[GENIE__MAXD], ishape[GENIE__MAXD], ist[GENIE__MAXD];
    int nd = t->v->ndim, ond = 0, nk = 0, i, k = 0;
    genie__vspec *v;
    genie__node *n;
    for (i = 0; i < nd; i++) {
        if (!mask[i]) { ishape[k] = t->v->shape[i]; ist[k++] = t->v->strides[i]; nk++; }
        if (!mask[i]) oshape[ond++] = t->v->shape[i];
        else if (keepdim) oshape[ond++] = 1;
    }
    for (i = 0; i < nd; i++)
        if (mask[i]) { ishape[k] = t->v->shape[i]; ist[k++] = t->v->strides[i]; }
    n = genie__begin(ctx, op, odt, ond, oshape, NULL, 1, &v);
    if (!n) return NULL;
    n->a.i[0] = nk;
    if (!genie__in(ctx, n, 0, t, genie__vspec_new(ctx, nd, ishape, ist, t->v->off))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
static int genie__nonempty_dims(genie_ctx *ctx, const char *fn, const genie_tensor *t, const int *mask) {
    int i;
    for (i = 0; i < t->v->ndim; i++)
        if (mask[i] && t->v->shape[i] == 0) {
            genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected reduction dim %d to have non-zero size", fn, i);
            return 0;
        }
    return 1;
}
static genie_tensor *genie__reduce(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int ndims, const int64_t *dims,
                                   int keepdim, int64_t correction) {
    int mask[GENIE__MAXD], dt, odt;
    genie_tensor *r;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__dims_mask(ctx, fn, t->v->ndim, ndims, dims, mask)) return NULL;
    dt = t->st->dtype;
    odt = dt;
    switch (op) {
    case GENIE__OP_SUM: case GENIE__OP_PROD: if (!GENIE__IS_FLOAT(dt)) odt = GENIE_I64; break;
    case GENIE__OP_MEAN: case GENIE__OP_VAR: case GENIE__OP_STD: case GENIE__OP_LOGSUMEXP:
        if (!GENIE__IS_FLOAT(dt)) {
            if (op == GENIE__OP_LOGSUMEXP) { odt = GENIE_F32; break; }
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: needs a floating dtype, got %s", fn, genie__dt_names[dt]);
        }
        break;
    default: /* amax, amin */
        if (!genie__nonempty_dims(ctx, fn, t, mask)) return NULL;
        break;
    }
    r = genie__reduce_node(ctx, op, t, mask, keepdim, odt);
    if (r) r->st->ver->a.i[1] = correction;
    return r;
}
#define GENIE__DEF_REDUCE(name, OP)                                                                      \
    GENIEDEF genie_tensor *genie_##name(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims, \
                                        int keepdim) {                                                   \
        return genie__reduce(ctx, GENIE__OP_##OP, "genie_" #name, t, ndims, dims, keepdim, 0);           \
    }
GENIE__DEF_REDUCE(sum, SUM) GENIE__DEF_REDUCE(mean, MEAN) GENIE__DEF_REDUCE(amax, AMAX)
GENIE__DEF_REDUCE(amin, AMIN) GENIE__DEF_REDUCE(prod, PROD) GENIE__DEF_REDUCE(logsumexp, LOGSUMEXP)
GENIEDEF genie_tensor *genie_var(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims, int64_t correction, int keepdim) {
    return genie__reduce(ctx, GENIE__OP_VAR, "genie_var", t, ndims, dims, keepdim, correction);
}
GENIEDEF genie_tensor *genie_std(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims, int64_t correction, int keepdim) {
    return genie__reduce(ctx, GENIE__OP_STD, "genie_std", t, ndims, dims, keepdim, correction);
}
/* argmax/argmin/max_dim/min_dim: which 0 values, 1 indices. */
static genie_tensor *genie__argreduce(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t dim, int keepdim, int which) {
    int mask[GENIE__MAXD], i;
    int64_t d = 0;
    genie_tensor *r;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    memset(mask, 0, sizeof mask);
    if (dim == GENIE_DIM_NONE) {
        if (genie__numel(t->v->ndim, t->v->shape) == 0)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected reduction dim to be specified for input.numel() == 0", fn);
        for (i = 0; i < t->v->ndim; i++) mask[i] = 1;
        keepdim = keepdim && t->v->ndim > 0;
    } else {
        if (!genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
        if (t->v->ndim) mask[d] = 1;
        if (!genie__nonempty_dims(ctx, fn, t, mask)) return NULL;
    }
    r = genie__reduce_node(ctx, op, t, mask, keepdim, which ? GENIE_I64 : t->st->dtype);
    if (r) r->st->ver->a.i[1] = which;
    return r;
}
GENIEDEF genie_tensor *genie_argmax(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim) {
    return genie__argreduce(ctx, GENIE__OP_ARGMAX, "genie_argmax", t, dim, keepdim, 1);
}
GENIEDEF genie_tensor *genie_argmin(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim) {
    return genie__argreduce(ctx, GENIE__OP_ARGMIN, "genie_argmin", t, dim, keepdim, 1);
}

/* ---- normalization, linear algebra ---- */
static genie_tensor *genie__softmax(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t dim) {
    int64_t d;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    if (!GENIE__IS_FLOAT(t->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: needs a floating dtype, got %s", fn, genie__dt_names[t->st->dtype]);
    n = genie__begin(ctx, op, t->st->dtype, t->v->ndim, t->v->shape, NULL, 1, &v);
    if (!n) return NULL;
    n->a.i[0] = d;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_softmax(genie_ctx *ctx, genie_tensor *t, int64_t dim) {
    return genie__softmax(ctx, GENIE__OP_SOFTMAX, "genie_softmax", t, dim);
}
GENIEDEF genie_tensor *genie_log_softmax(genie_ctx *ctx, genie_tensor *t, int64_t dim) {
    return genie__softmax(ctx, GENIE__OP_LOG_SOFTMAX, "genie_log_softmax", t, dim);
}
GENIEDEF genie_tensor *genie_layer_norm(genie_ctx *ctx, genie_tensor *x, int nnorm, const int64_t *normalized_shape,
                                        genie_tensor *weight, genie_tensor *bias, double eps) {
    const char *fn = "genie_layer_norm";
    char a[200], b[200];
    int nd, i, k = 1;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, x) || !genie__mine(ctx, fn, weight) || !genie__mine(ctx, fn, bias)) return NULL;
    nd = x->v->ndim;
    if (nnorm < 1 || nnorm > GENIE__MAXD || !normalized_shape)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: expected normalized_shape to be at least 1-dimensional", fn);
    if (nnorm > nd || memcmp(x->v->shape + nd - nnorm, normalized_shape, (size_t)nnorm * 8) != 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: given normalized_shape=%s, expected input with shape [*, %s], but got input of size %s",
                                           fn, genie__fmt_shape(a, nnorm, normalized_shape), genie__fmt_shape(b, nnorm, normalized_shape) + 1,
                                           genie__fmt_shape(a, nd, x->v->shape));
    if (!GENIE__IS_FLOAT(x->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: needs a floating dtype, got %s", fn, genie__dt_names[x->st->dtype]);
    for (i = 0; i < 2; i++) {
        genie_tensor *p = i ? bias : weight;
        if (!p) continue;
        if (p->v->ndim != nnorm || memcmp(p->v->shape, normalized_shape, (size_t)nnorm * 8) != 0)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected %s of shape %s, but got %s", fn, i ? "bias" : "weight",
                                               genie__fmt_shape(a, nnorm, normalized_shape), genie__fmt_shape(b, p->v->ndim, p->v->shape));
        if (p->st->dtype != x->st->dtype)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected %s of dtype %s, but got %s", fn, i ? "bias" : "weight",
                                               genie__dt_names[x->st->dtype], genie__dt_names[p->st->dtype]);
    }
    n = genie__begin(ctx, GENIE__OP_LAYER_NORM, x->st->dtype, nd, x->v->shape, NULL, 1 + (weight != NULL) + (bias != NULL), &v);
    if (!n) return NULL;
    n->a.i[0] = nd - nnorm;
    n->a.i[1] = weight != NULL;
    n->a.i[2] = bias != NULL;
    n->a.f[0] = eps;
    if (!genie__in(ctx, n, 0, x, genie__vspec_retain(x->v)) ||
        (weight && !genie__in(ctx, n, k++, weight, genie__vspec_retain(weight->v))) ||
        (bias && !genie__in(ctx, n, k++, bias, genie__vspec_retain(bias->v))))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}

/* matmul with PyTorch's 1-D rules: a [..., M, K] (1-D: [K] as [1, K]),
   b [..., K, N] (1-D: [K] as [K, 1]); batch dims broadcast; the size-1 dims
   added for 1-D operands are dropped from the result. */
GENIEDEF genie_tensor *genie_matmul(genie_ctx *ctx, genie_tensor *a, genie_tensor *b) {
    const char *fn = "genie_matmul";
    char s1[200], s2[200];
    int an, bn, nba, nbb, nb, ond = 0, i;
    int64_t M, K, K2, N, bshape[GENIE__MAXD], ishape[GENIE__MAXD], ist[GENIE__MAXD], oshape[GENIE__MAXD];
    genie__vspec *v, *iv, *av, *bv;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, a) || !genie__need(ctx, fn, b)) return NULL;
    an = a->v->ndim;
    bn = b->v->ndim;
    if (an == 0 || bn == 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: both arguments to matmul need to be at least 1D, but they are %dD and %dD", fn, an, bn);
    if (a->st->dtype != b->st->dtype)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected both arguments to have the same dtype, but got %s and %s", fn,
                                           genie__dt_names[a->st->dtype], genie__dt_names[b->st->dtype]);
    if (a->st->dtype == GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: not supported for bool tensors", fn);
    M = an == 1 ? 1 : a->v->shape[an - 2];
    K = a->v->shape[an - 1];
    K2 = bn == 1 ? b->v->shape[0] : b->v->shape[bn - 2];
    N = bn == 1 ? 1 : b->v->shape[bn - 1];
    if (K != K2)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: inner dimensions differ: %s @ %s (%lld != %lld)", fn,
                                           genie__fmt_shape(s1, an, a->v->shape), genie__fmt_shape(s2, bn, b->v->shape), (long long)K, (long long)K2);
    nba = an > 2 ? an - 2 : 0;
    nbb = bn > 2 ? bn - 2 : 0;
    if (!genie__broadcast(nba, a->v->shape, nbb, b->v->shape, &nb, bshape))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: batch dimensions cannot be broadcast: %s @ %s", fn,
                                           genie__fmt_shape(s1, an, a->v->shape), genie__fmt_shape(s2, bn, b->v->shape));
    if (nb + 2 > GENIE__MAXD)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: too many dimensions", fn);
    memcpy(ishape, bshape, (size_t)nb * 8);
    ishape[nb] = M;
    ishape[nb + 1] = N;
    memcpy(oshape, bshape, (size_t)nb * 8);
    ond = nb;
    if (an > 1) oshape[ond++] = M;
    if (bn > 1) oshape[ond++] = N;
    if (an == 2 && bn >= 3) { /* ATen: (b^T @ a^T)^T then .contiguous(): keeps the transposed
                                 strides when they already count as contiguous (size-1 dims) */
        int64_t tst[GENIE__MAXD], tsh[GENIE__MAXD];
        memcpy(tsh, ishape, (size_t)(nb + 2) * 8);
        tsh[nb] = N;
        tsh[nb + 1] = M;
        genie__contig_strides(nb + 2, tsh, tst);
        ist[nb] = tst[nb + 1];
        ist[nb + 1] = tst[nb];
        memcpy(ist, tst, (size_t)nb * 8);
        if (!genie__is_contig(nb + 2, ishape, ist)) genie__contig_strides(nb + 2, ishape, ist);
    } else {
        genie__contig_strides(nb + 2, ishape, ist);
    }
    n = genie__begin(ctx, GENIE__OP_MATMUL, a->st->dtype, nb + 2, ishape, ist, 2, &iv);
    if (!n) return NULL;
    for (i = 0; i < nb; i++) { /* batch strides of a, then its [M, K] */
        int src = i - (nb - nba);
        ist[i] = (src < 0 || (a->v->shape[src] == 1 && bshape[i] != 1)) ? 0 : a->v->strides[src];
    }
    ist[nb] = an == 1 ? 0 : a->v->strides[an - 2];
    ist[nb + 1] = a->v->strides[an - 1];
    ishape[nb + 1] = K;
    av = genie__vspec_new(ctx, nb + 2, ishape, ist, a->v->off);
    for (i = 0; i < nb; i++) {
        int src = i - (nb - nbb);
        ist[i] = (src < 0 || (b->v->shape[src] == 1 && bshape[i] != 1)) ? 0 : b->v->strides[src];
    }
    ishape[nb] = K;
    ishape[nb + 1] = N;
    ist[nb] = bn == 1 ? b->v->strides[0] : b->v->strides[bn - 2];
    ist[nb + 1] = bn == 1 ? 0 : b->v->strides[bn - 1];
    bv = genie__vspec_new(ctx, nb + 2, ishape, ist, b->v->off);
    if (!genie__in(ctx, n, 0, a, av) || !genie__in(ctx, n, 1, b, bv)) {
        if (!n->in[0].n) genie__vspec_release(ctx, bv);
        return genie__abort(ctx, n, iv);
    }
    if (an > 1 && bn > 1) return genie__result(ctx, n, iv); /* the result is the kernel's view */
    genie__vspec_release(ctx, iv);
    v = genie__vspec_new(ctx, ond, oshape, NULL, 0);
    if (!v) { genie__node_release(ctx, n); return (genie_tensor *)GENIE__OOM(ctx, fn); }
    return genie__result(ctx, n, v);
}
/* linear: x [..., K] @ w[N, K]^T + b (b broadcasts to [..., N]). */
GENIEDEF genie_tensor *genie_linear(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, genie_tensor *b) {
    const char *fn = "genie_linear";
    char s1[200], s2[200];
    int xn, nb, ond, i;
    int64_t M, K, N, shape[GENIE__MAXD], st[GENIE__MAXD], oshape[GENIE__MAXD], bst[GENIE__MAXD];
    genie__vspec *v, *iv, *xv, *wv, *cv = NULL;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, x) || !genie__need(ctx, fn, w) || !genie__mine(ctx, fn, b)) return NULL;
    xn = x->v->ndim;
    if (xn < 1 || w->v->ndim != 2)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected input of at least 1 dim and a 2-D weight, got %s and %s", fn,
                                           genie__fmt_shape(s1, xn, x->v->shape), genie__fmt_shape(s2, w->v->ndim, w->v->shape));
    if (x->st->dtype != w->st->dtype || (b && b->st->dtype != x->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected input, weight and bias of one dtype, got %s, %s and %s", fn,
                                           genie__dt_names[x->st->dtype], genie__dt_names[w->st->dtype], b ? genie__dt_names[b->st->dtype] : "none");
    if (x->st->dtype == GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: not supported for bool tensors", fn);
    K = x->v->shape[xn - 1];
    N = w->v->shape[0];
    if (w->v->shape[1] != K)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: mat1 and mat2 shapes cannot be multiplied: input %s, weight %s (%lld != %lld)", fn,
                                           genie__fmt_shape(s1, xn, x->v->shape), genie__fmt_shape(s2, 2, w->v->shape), (long long)K, (long long)w->v->shape[1]);
    memcpy(oshape, x->v->shape, (size_t)xn * 8);
    oshape[xn - 1] = N;
    ond = xn;
    if (b) { /* the bias must broadcast to the output without growing it */
        int bnd;
        if (!genie__broadcast(ond, oshape, b->v->ndim, b->v->shape, &bnd, shape) || bnd != ond ||
            memcmp(shape, oshape, (size_t)ond * 8) != 0)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: bias of shape %s does not broadcast to the output %s", fn,
                                               genie__fmt_shape(s1, b->v->ndim, b->v->shape), genie__fmt_shape(s2, ond, oshape));
    }
    nb = xn >= 2 ? xn - 2 : 0;
    M = xn >= 2 ? x->v->shape[xn - 2] : 1;
    memcpy(shape, x->v->shape, (size_t)nb * 8);
    shape[nb] = M;
    shape[nb + 1] = N;
    n = genie__begin(ctx, GENIE__OP_LINEAR, x->st->dtype, nb + 2, shape, NULL, b ? 3 : 2, &iv);
    if (!n) return NULL;
    memcpy(st, x->v->strides, (size_t)nb * 8);
    st[nb] = xn >= 2 ? x->v->strides[xn - 2] : 0;
    st[nb + 1] = x->v->strides[xn - 1];
    shape[nb + 1] = K;
    xv = genie__vspec_new(ctx, nb + 2, shape, st, x->v->off);
    for (i = 0; i < nb; i++) st[i] = 0;
    shape[nb] = K;
    shape[nb + 1] = N;
    st[nb] = w->v->strides[1];
    st[nb + 1] = w->v->strides[0];
    wv = genie__vspec_new(ctx, nb + 2, shape, st, w->v->off);
    if (b) {
        genie__vspec *full = genie__bcast_view(ctx, b, ond, oshape);
        if (full) {
            memcpy(bst, full->strides, (size_t)ond * 8);
            if (xn == 1) { bst[1] = bst[0]; bst[0] = 0; }
            shape[nb] = M;
            cv = genie__vspec_new(ctx, nb + 2, shape, bst, full->off);
            genie__vspec_release(ctx, full);
        }
    }
    if (!genie__in(ctx, n, 0, x, xv) || !genie__in(ctx, n, 1, w, wv) || (b && !genie__in(ctx, n, 2, b, cv))) {
        if (!n->in[0].n) genie__vspec_release(ctx, wv);
        if (b && !n->in[1].n) genie__vspec_release(ctx, cv);
        return genie__abort(ctx, n, iv);
    }
    genie__vspec_release(ctx, iv);
    v = genie__vspec_new(ctx, ond, oshape, NULL, 0);
    if (!v) { genie__node_release(ctx, n); return (genie_tensor *)GENIE__OOM(ctx, fn); }
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_conv2d(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, genie_tensor *b,
                                    const int64_t stride[2], const int64_t padding[2],
                                    const int64_t dilation[2], int64_t groups) {
    const char *fn = "genie_conv2d";
    char s1[200], s2[200];
    int xn, i;
    int64_t xs[4], xst[4], os[4], C, O, eff[2], pad_in[2];
    genie__vspec *v, *xv;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, x) || !genie__need(ctx, fn, w) || !genie__mine(ctx, fn, b)) return NULL;
    if (!stride || !padding || !dilation)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: stride, padding and dilation are required", fn);
    xn = x->v->ndim;
    if (xn != 3 && xn != 4)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected 3D (unbatched) or 4D (batched) input, but got input of size %s", fn,
                                           genie__fmt_shape(s1, xn, x->v->shape));
    if (w->v->ndim != 4)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected a 4D weight, got %s", fn, genie__fmt_shape(s1, w->v->ndim, w->v->shape));
    if (x->st->dtype != w->st->dtype || (b && b->st->dtype != x->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: input, weight and bias must have one dtype, got %s and %s", fn,
                                           genie__dt_names[x->st->dtype], genie__dt_names[w->st->dtype]);
    if (x->st->dtype == GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: not supported for bool tensors", fn);
    if (groups < 1) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: non-positive groups is not supported", fn);
    for (i = 0; i < 2; i++)
        if (stride[i] < 1 || padding[i] < 0 || dilation[i] < 1)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: stride and dilation must be positive and padding non-negative", fn);
    for (i = 0; i < 4; i++) {
        int src = xn == 4 ? i : i - 1;
        xs[i] = src < 0 ? 1 : x->v->shape[src];
        xst[i] = src < 0 ? 0 : x->v->strides[src];
    }
    C = xs[1];
    O = w->v->shape[0];
    if (w->v->shape[1] != C / groups || C % groups != 0 || O % groups != 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: given groups=%lld, weight of size %s, expected input %s to have %lld channels, but got %lld channels instead",
                                           fn, (long long)groups, genie__fmt_shape(s1, 4, w->v->shape), genie__fmt_shape(s2, xn, x->v->shape),
                                           (long long)GENIE__WMUL(w->v->shape[1], groups), (long long)C);
    if (b && (b->v->ndim != 1 || b->v->shape[0] != O))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected bias of shape [%lld], got %s", fn, (long long)O,
                                           genie__fmt_shape(s1, b->v->ndim, b->v->shape));
    for (i = 0; i < 2; i++)
        if (!genie__smul(dilation[i], w->v->shape[2 + i] - 1, &eff[i]) || !genie__sadd(eff[i], 1, &eff[i]) ||
            !genie__smul(2, padding[i], &pad_in[i]) || !genie__sadd(pad_in[i], xs[2 + i], &pad_in[i]))
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: the padded input or the dilated kernel overflows int64 "
                                               "(padding %lld, dilation %lld)", fn, (long long)padding[i], (long long)dilation[i]);
    if (eff[0] > pad_in[0] || eff[1] > pad_in[1])
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: calculated padded input size per channel: (%lld x %lld). Kernel size: (%lld x %lld). Kernel size can't be greater than actual input size",
                                           fn, (long long)pad_in[0], (long long)pad_in[1], (long long)eff[0], (long long)eff[1]);
    os[0] = xs[0];
    os[1] = O;
    for (i = 0; i < 2; i++) /* eff may be below 1 (an empty kernel): the difference is checked */
        if (!genie__sadd(pad_in[i], -eff[i], &os[2 + i]))
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: the output size overflows int64", fn);
    os[2] = os[2] / stride[0] + 1;
    os[3] = os[3] / stride[1] + 1;
    n = genie__begin(ctx, GENIE__OP_CONV2D, x->st->dtype, 4, os, NULL, b ? 3 : 2, &v);
    if (!n) return NULL;
    for (i = 0; i < 2; i++) {
        n->a.i[i] = stride[i];
        n->a.i[2 + i] = padding[i];
        n->a.i[4 + i] = dilation[i];
    }
    xv = genie__vspec_new(ctx, 4, xs, xst, x->v->off);
    if (!genie__in(ctx, n, 0, x, xv) || !genie__in(ctx, n, 1, w, genie__vspec_retain(w->v)) ||
        (b && !genie__in(ctx, n, 2, b, genie__vspec_retain(b->v))))
        return genie__abort(ctx, n, v);
    if (xn == 3) { /* unbatched: the result drops the batch dim */
        genie__vspec_release(ctx, v);
        v = genie__vspec_new(ctx, 3, os + 1, NULL, 0);
        if (!v) { genie__node_release(ctx, n); return (genie_tensor *)GENIE__OOM(ctx, fn); }
    }
    return genie__result(ctx, n, v);
}

/* ---- types and copies ---- */
/* A copy node of t laid out with strides st (NULL: contiguous). */
static genie_tensor *genie__copy_node(genie_ctx *ctx, int op, genie_tensor *t, int dt, const int64_t *st) {
    genie__vspec *v;
    genie__node *n = genie__begin(ctx, op, dt, t->v->ndim, t->v->shape, st, 1, &v);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_to_dtype(genie_ctx *ctx, genie_tensor *t, genie_dtype dt) {
    int64_t st[GENIE__MAXD];
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_to_dtype", t) || !genie__check_dtype(ctx, "genie_to_dtype", dt)) return NULL;
    if ((int)dt == t->st->dtype) return genie__self(ctx, t, GENIE__OP_TO);
    genie__preserve_layout(t->v, st);
    return genie__copy_node(ctx, GENIE__OP_TO, t, dt, st);
}
GENIEDEF genie_tensor *genie_contiguous(genie_ctx *ctx, genie_tensor *t) {
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_contiguous", t)) return NULL;
    if (genie__is_contig(t->v->ndim, t->v->shape, t->v->strides)) return genie__self(ctx, t, GENIE__OP_CONTIGUOUS);
    return genie__copy_node(ctx, GENIE__OP_CONTIGUOUS, t, t->st->dtype, NULL);
}
GENIEDEF genie_tensor *genie_clone(genie_ctx *ctx, genie_tensor *t) {
    int64_t st[GENIE__MAXD];
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_clone", t)) return NULL;
    genie__preserve_layout(t->v, st);
    return genie__copy_node(ctx, GENIE__OP_CLONE, t, t->st->dtype, st);
}

/* ---- views ---- */
static int genie__infer_size(genie_ctx *ctx, const char *fn, int nd, const int64_t *shape, int64_t numel, int64_t *out) {
    int64_t newsize = 1;
    int infer = -1, i;
    char sb[200];
    if (nd < 0 || nd > GENIE__MAXD || (nd > 0 && !shape)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: ndim %d out of range [0, %d]", fn, nd, GENIE__MAXD);
        return 0;
    }
    for (i = 0; i < nd; i++) {
        out[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0) { genie__fail(ctx, GENIE_ERR_SHAPE, "%s: only one dimension can be inferred", fn); return 0; }
            infer = i;
        } else if (shape[i] >= 0) {
            newsize = genie__mul_ck(newsize, shape[i]);
            if (newsize < 0) { genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: shape overflows", fn); return 0; }
        } else {
            genie__fail(ctx, GENIE_ERR_SHAPE, "%s: invalid shape dimension %lld", fn, (long long)shape[i]);
            return 0;
        }
    }
    if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
        if (infer >= 0) {
            if (newsize == 0) {
                genie__fail(ctx, GENIE_ERR_SHAPE, "%s: cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous",
                            fn, genie__fmt_shape(sb, nd, shape));
                return 0;
            }
            out[infer] = numel / newsize;
        }
        if (!genie__layout_ok(nd, out, 1)) { /* an empty result whose strides overflow */
            genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: shape %s: its strides overflow int64", fn, genie__fmt_shape(sb, nd, out));
            return 0;
        }
        return 1;
    }
    genie__fail(ctx, GENIE_ERR_SHAPE, "%s: shape '%s' is invalid for input of size %lld", fn, genie__fmt_shape(sb, nd, shape), (long long)numel);
    return 0;
}
static genie_tensor *genie__view_or_reshape(genie_ctx *ctx, genie_tensor *t, int nd, const int64_t *shape, int reshape) {
    const char *fn = reshape ? "genie_reshape" : "genie_view";
    int64_t ns[GENIE__MAXD], nst[GENIE__MAXD];
    genie__vspec *v, *cv;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) ||
        !genie__infer_size(ctx, fn, nd, shape, genie__numel(t->v->ndim, t->v->shape), ns)) return NULL;
    if (genie__view_strides(t->v->ndim, t->v->shape, t->v->strides, nd, ns, nst))
        return genie__view_of(ctx, t, reshape ? GENIE__OP_RESHAPE : GENIE__OP_VIEW, nd, ns, nst, t->v->off);
    if (!reshape)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_VIEW, "%s: view size is not compatible with input tensor's size and stride "
                                           "(at least one dimension spans across two contiguous subspaces); use reshape instead", fn);
    /* reshape copies: a contiguous copy in t's shape, seen through the new shape */
    n = genie__begin(ctx, GENIE__OP_RESHAPE_COPY, t->st->dtype, t->v->ndim, t->v->shape, NULL, 1, &cv);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) return genie__abort(ctx, n, cv);
    genie__vspec_release(ctx, cv);
    v = genie__vspec_new(ctx, nd, ns, NULL, 0);
    if (!v) { genie__node_release(ctx, n); return (genie_tensor *)GENIE__OOM(ctx, fn); }
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_view(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *shape) {
    return genie__view_or_reshape(ctx, t, ndim, shape, 0);
}
GENIEDEF genie_tensor *genie_reshape(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *shape) {
    return genie__view_or_reshape(ctx, t, ndim, shape, 1);
}
GENIEDEF genie_tensor *genie_permute(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *dims) {
    const char *fn = "genie_permute";
    int64_t shape[GENIE__MAXD], st[GENIE__MAXD], d;
    int seen[GENIE__MAXD] = {0}, i;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    if (ndim != t->v->ndim || (ndim > 0 && !dims))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: number of dims don't match in permute (%d given, tensor has %d)", fn, ndim, t->v->ndim);
    for (i = 0; i < ndim; i++) {
        if (!genie__wrap_dim(ctx, fn, dims[i], ndim, &d)) return NULL;
        if (seen[d]++) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: repeated dim %lld in permute", fn, (long long)d);
        shape[i] = t->v->shape[d];
        st[i] = t->v->strides[d];
    }
    return genie__view_of(ctx, t, GENIE__OP_PERMUTE, ndim, shape, st, t->v->off);
}
static genie_tensor *genie__transpose(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t d0, int64_t d1) {
    int64_t a, b, shape[GENIE__MAXD], st[GENIE__MAXD], tmp;
    int nd;
    if (!genie__wrap_dim(ctx, fn, d0, t->v->ndim, &a) || !genie__wrap_dim(ctx, fn, d1, t->v->ndim, &b)) return NULL;
    nd = t->v->ndim;
    if (nd == 0 || a == b) return genie__alias(ctx, t, op);
    memcpy(shape, t->v->shape, (size_t)nd * 8);
    memcpy(st, t->v->strides, (size_t)nd * 8);
    tmp = shape[a]; shape[a] = shape[b]; shape[b] = tmp;
    tmp = st[a]; st[a] = st[b]; st[b] = tmp;
    return genie__view_of(ctx, t, op, nd, shape, st, t->v->off);
}
GENIEDEF genie_tensor *genie_transpose(genie_ctx *ctx, genie_tensor *t, int64_t d0, int64_t d1) {
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_transpose", t)) return NULL;
    return genie__transpose(ctx, GENIE__OP_TRANSPOSE, "genie_transpose", t, d0, d1);
}
GENIEDEF genie_tensor *genie_t(genie_ctx *ctx, genie_tensor *t) {
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_t", t)) return NULL;
    if (t->v->ndim > 2)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "genie_t: expects a tensor with <= 2 dimensions, but self is %dD", t->v->ndim);
    return genie__transpose(ctx, GENIE__OP_T, "genie_t", t, 0, t->v->ndim < 2 ? 0 : 1);
}
GENIEDEF genie_tensor *genie_expand(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *shape) {
    const char *fn = "genie_expand";
    int64_t ns[GENIE__MAXD], st[GENIE__MAXD];
    char s1[200], s2[200];
    int i, nd;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    nd = t->v->ndim;
    if (ndim < nd || ndim > GENIE__MAXD || (ndim > 0 && !shape))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", fn, ndim, nd);
    for (i = ndim - 1; i >= 0; i--) {
        int src = i - (ndim - nd);
        if (src < 0) {
            if (shape[i] < 0)
                return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: the expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d", fn, (long long)shape[i], i);
            ns[i] = shape[i]; /* a new dim of size 1 strides like inferExpandGeometry's */
            st[i] = shape[i] != 1 ? 0 : i + 1 < ndim ? GENIE__WMUL(ns[i + 1], st[i + 1]) : 0;
        } else {
            int64_t have = t->v->shape[src], want = shape[i] == -1 ? have : shape[i];
            if (want < 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: invalid size %lld", fn, (long long)shape[i]);
            if (have == want) st[i] = t->v->strides[src];
            else if (have == 1) st[i] = 0;
            else
                return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: the expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d. Target sizes: %s. Tensor sizes: %s",
                                                   fn, (long long)want, (long long)have, i, genie__fmt_shape(s1, ndim, shape), genie__fmt_shape(s2, nd, t->v->shape));
            ns[i] = want;
        }
    }
    return genie__view_of(ctx, t, GENIE__OP_EXPAND, ndim, ns, st, t->v->off);
}
GENIEDEF genie_tensor *genie_squeeze(genie_ctx *ctx, genie_tensor *t, int64_t dim) {
    int64_t d, shape[GENIE__MAXD], st[GENIE__MAXD];
    int nd, i, k = 0;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_squeeze", t) || !genie__wrap_dim(ctx, "genie_squeeze", dim, t->v->ndim, &d)) return NULL;
    nd = t->v->ndim;
    if (nd == 0 || t->v->shape[d] != 1) return genie__alias(ctx, t, GENIE__OP_SQUEEZE);
    for (i = 0; i < nd; i++)
        if (i != d) { shape[k] = t->v->shape[i]; st[k++] = t->v->strides[i]; }
    return genie__view_of(ctx, t, GENIE__OP_SQUEEZE, nd - 1, shape, st, t->v->off);
}
GENIEDEF genie_tensor *genie_unsqueeze(genie_ctx *ctx, genie_tensor *t, int64_t dim) {
    int64_t d, shape[GENIE__MAXD], st[GENIE__MAXD];
    int nd, i, k = 0;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_unsqueeze", t)) return NULL;
    nd = t->v->ndim;
    if (nd + 1 > GENIE__MAXD)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "genie_unsqueeze: result would have more than %d dims", GENIE__MAXD);
    if (!genie__wrap_dim(ctx, "genie_unsqueeze", dim, nd + 1, &d)) return NULL;
    for (i = 0; i <= nd; i++) {
        if (i == d) {
            shape[k] = 1;
            st[k++] = d >= nd ? 1 : GENIE__WMUL(t->v->shape[d], t->v->strides[d]);
        }
        if (i < nd) { shape[k] = t->v->shape[i]; st[k++] = t->v->strides[i]; }
    }
    return genie__view_of(ctx, t, GENIE__OP_UNSQUEEZE, nd + 1, shape, st, t->v->off);
}
static genie_tensor *genie__slice(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t d, int64_t start,
                                  int64_t end, int64_t step) {
    int64_t shape[GENIE__MAXD], st[GENIE__MAXD], size = t->v->shape[d], len, off;
    int nd = t->v->ndim;
    if (step <= 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: slice step must be positive, got %lld", fn, (long long)step);
    if (start < 0) start += size;
    if (end < 0) end += size;
    if (start < 0) start = 0;
    else if (start >= size) start = size;
    if (end < start) end = start;
    else if (end >= size) end = size;
    len = end == start ? 0 : (end - start - 1) / step + 1;
    memcpy(shape, t->v->shape, (size_t)nd * 8);
    memcpy(st, t->v->strides, (size_t)nd * 8);
    shape[d] = len;
    if (!genie__smul(t->v->strides[d], step, &st[d])) st[d] = t->v->strides[d]; /* len <= 1: any stride */
    /* the offset moves by start strides, as in ATen, even when the slice is empty (where an
       odd stride could overflow it: then it stays) */
    if (!genie__smul(start, t->v->strides[d], &off) || !genie__sadd(off, t->v->off, &off)) off = t->v->off;
    return genie__view_of(ctx, t, op, nd, shape, st, off);
}
GENIEDEF genie_tensor *genie_slice(genie_ctx *ctx, genie_tensor *t, int64_t dim, int64_t start, int64_t end, int64_t step) {
    int64_t d;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_slice", t)) return NULL;
    if (t->v->ndim == 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "genie_slice: slice() cannot be applied to a 0-dim tensor");
    if (!genie__wrap_dim(ctx, "genie_slice", dim, t->v->ndim, &d)) return NULL;
    return genie__slice(ctx, GENIE__OP_SLICE, "genie_slice", t, d, start, end, step);
}
static genie_tensor *genie__select(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t d, int64_t index) {
    int64_t shape[GENIE__MAXD], st[GENIE__MAXD], size = t->v->shape[d];
    char sb[200];
    int nd = t->v->ndim, i, k = 0;
    if (index < -size || index >= size)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: index %lld out of range for tensor of size %s at dimension %lld", fn,
                                           (long long)index, genie__fmt_shape(sb, nd, t->v->shape), (long long)d);
    if (index < 0) index += size;
    for (i = 0; i < nd; i++)
        if (i != d) { shape[k] = t->v->shape[i]; st[k++] = t->v->strides[i]; }
    return genie__view_of(ctx, t, op, nd - 1, shape, st, t->v->off + index * t->v->strides[d]);
}
GENIEDEF genie_tensor *genie_select(genie_ctx *ctx, genie_tensor *t, int64_t dim, int64_t index) {
    int64_t d;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_select", t)) return NULL;
    if (t->v->ndim == 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "genie_select: select() cannot be applied to a 0-dim tensor");
    if (!genie__wrap_dim(ctx, "genie_select", dim, t->v->ndim, &d)) return NULL;
    return genie__select(ctx, GENIE__OP_SELECT, "genie_select", t, d, index);
}
GENIEDEF genie_tensor *genie_narrow(genie_ctx *ctx, genie_tensor *t, int64_t dim, int64_t start, int64_t length) {
    const char *fn = "genie_narrow";
    int64_t d, size;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    if (t->v->ndim == 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: narrow() cannot be applied to a 0-dim tensor", fn);
    if (!genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    size = t->v->shape[d];
    if (start < -size || start > size)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: start out of range (expected to be in range of [%lld, %lld], but got %lld)", fn,
                                           (long long)-size, (long long)size, (long long)start);
    if (start < 0) start += size;
    if (length < 0 || start > size - length)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: start (%lld) + length (%lld) exceeds dimension size (%lld)", fn,
                                           (long long)start, (long long)length, (long long)size);
    return genie__slice(ctx, GENIE__OP_NARROW, fn, t, d, start, start + length, 1);
}
GENIEDEF genie_tensor *genie_diagonal(genie_ctx *ctx, genie_tensor *t, int64_t offset, int64_t d0, int64_t d1) {
    const char *fn = "genie_diagonal";
    int64_t a, b, shape[GENIE__MAXD], st[GENIE__MAXD], size, off;
    int nd, i, k = 0;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    nd = t->v->ndim;
    if (nd < 2) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected a tensor with at least 2 dims, got %dD", fn, nd);
    if (!genie__wrap_dim(ctx, fn, d0, nd, &a) || !genie__wrap_dim(ctx, fn, d1, nd, &b)) return NULL;
    if (a == b) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: diagonal dimensions cannot be identical %lld, %lld", fn, (long long)d0, (long long)d1);
    off = t->v->off;
    if (offset >= 0) {
        size = t->v->shape[b] - offset;
        if (t->v->shape[a] < size) size = t->v->shape[a];
    } else {
        size = t->v->shape[a] + offset;
        if (t->v->shape[b] < size) size = t->v->shape[b];
    }
    if (size < 0) size = 0;
    if (size > 0) off += offset >= 0 ? offset * t->v->strides[b] : -offset * t->v->strides[a];
    for (i = 0; i < nd; i++)
        if (i != a && i != b) { shape[k] = t->v->shape[i]; st[k++] = t->v->strides[i]; }
    shape[k] = size;
    st[k++] = (int64_t)((uint64_t)t->v->strides[a] + (uint64_t)t->v->strides[b]); /* huge only where size <= 1 */
    return genie__view_of(ctx, t, GENIE__OP_DIAGONAL, k, shape, st, off);
}
GENIEDEF genie_tensor *genie_as_strided(genie_ctx *ctx, genie_tensor *t, int ndim, const int64_t *size,
                                        const int64_t *stride, int64_t storage_offset) {
    const char *fn = "genie_as_strided";
    char s1[200], s2[200];
    genie__vspec tmp;
    int i;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__check_shape(ctx, fn, ndim, size, -1)) return NULL;
    if (ndim > 0 && !stride) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: stride is NULL", fn);
    for (i = 0; i < ndim; i++)
        if (stride[i] < 0)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_VIEW, "%s: negative strides are not supported, got strides %s", fn,
                                               genie__fmt_shape(s1, ndim, stride));
    if (storage_offset < 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_VIEW, "%s: invalid storage offset %lld", fn, (long long)storage_offset);
    memset(&tmp, 0, sizeof tmp);
    tmp.ndim = ndim;
    tmp.off = storage_offset;
    if (ndim) {
        memcpy(tmp.shape, size, (size_t)ndim * 8);
        memcpy(tmp.strides, stride, (size_t)ndim * 8);
    }
    {
        int64_t need = storage_offset, span = 0;
        int empty = 0;
        for (i = 0; i < ndim; i++) {
            if (size[i] == 0) empty = 1;
            else span = genie__add_ck(span, genie__mul_ck(size[i] - 1, stride[i]));
        }
        if (span < 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: the strided window overflows", fn);
        need = empty ? storage_offset : genie__add_ck(storage_offset, genie__add_ck(span, 1));
        if (need < 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: the strided window overflows", fn);
        if (need > t->st->ver->numel)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: sizes %s, strides %s and storage offset %lld need a storage of %lld elements, out of bounds for a storage of %lld",
                                               fn, genie__fmt_shape(s1, ndim, size), genie__fmt_shape(s2, ndim, stride), (long long)storage_offset,
                                               (long long)need, (long long)t->st->ver->numel);
    }
    return genie__view_of(ctx, t, GENIE__OP_AS_STRIDED, ndim, size, stride, storage_offset);
}
GENIEDEF genie_tensor *genie_flip(genie_ctx *ctx, genie_tensor *t, int ndims, const int64_t *dims) {
    const char *fn = "genie_flip";
    int mask[GENIE__MAXD], i;
    int64_t st[GENIE__MAXD], fst[GENIE__MAXD], off;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__dims_mask(ctx, fn, t->v->ndim, ndims > 0 ? ndims : 0, dims, mask)) return NULL;
    if (ndims <= 0) memset(mask, 0, sizeof mask); /* no dims: a plain copy */
    off = t->v->off; /* read through a negative-stride view: no copy before the kernel */
    for (i = 0; i < t->v->ndim; i++) {
        fst[i] = mask[i] ? -t->v->strides[i] : t->v->strides[i];
        if (mask[i] && t->v->shape[i] > 0) off += (t->v->shape[i] - 1) * t->v->strides[i];
    }
    genie__preserve_layout(t->v, st);
    n = genie__begin(ctx, GENIE__OP_FLIP, t->st->dtype, t->v->ndim, t->v->shape, st, 1, &v);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, t, genie__vspec_new(ctx, t->v->ndim, t->v->shape, fst, off))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}

/* ---- joining and indexing ---- */
static genie_tensor *genie__cat(genie_ctx *ctx, int op, const char *fn, int count, genie_tensor *const *ts, int64_t dim) {
    char s1[200], s2[200];
    int64_t shape[GENIE__MAXD], d, total = 0;
    int i, first = -1, dt = -1, stack = op == GENIE__OP_STACK, nd;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (count <= 0 || !ts) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: expected a non-empty list of tensors", fn);
    for (i = 0; i < count; i++) {
        if (!genie__need(ctx, fn, ts[i])) return NULL;
        dt = genie__promote(dt, ts[i]->st->dtype);
    }
    if (stack) {
        for (i = 1; i < count; i++)
            if (ts[i]->v->ndim != ts[0]->v->ndim || memcmp(ts[i]->v->shape, ts[0]->v->shape, (size_t)ts[0]->v->ndim * 8) != 0)
                return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                                                   fn, genie__fmt_shape(s1, ts[0]->v->ndim, ts[0]->v->shape), genie__fmt_shape(s2, ts[i]->v->ndim, ts[i]->v->shape), i);
        nd = ts[0]->v->ndim + 1;
        if (nd > GENIE__MAXD) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: too many dims", fn);
        if (!genie__wrap_dim(ctx, fn, dim, nd, &d)) return NULL;
        for (i = 0; i < nd; i++) shape[i] = i < d ? ts[0]->v->shape[i] : i == d ? count : ts[0]->v->shape[i - 1];
        first = 0;
    } else {
        for (i = 0; i < count; i++) /* legacy: 1-D empty tensors are skipped */
            if (!(ts[i]->v->ndim == 1 && ts[i]->v->shape[0] == 0)) { first = i; break; }
        if (first < 0) { /* only legacy empty tensors: an empty 1-D result, no dim check (ATen) */
            int64_t zero = 0;
            n = genie__begin(ctx, op, dt, 1, &zero, NULL, 0, &v);
            return n ? genie__result(ctx, n, v) : NULL;
        }
        nd = ts[first]->v->ndim;
        if (nd == 0) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: zero-dimensional tensor (at position %d) cannot be concatenated", fn, first);
        if (!genie__wrap_dim(ctx, fn, dim, nd, &d)) return NULL;
        memcpy(shape, ts[first]->v->shape, (size_t)nd * 8);
        for (i = 0; i < count; i++) {
            const genie__vspec *tv = ts[i]->v;
            int k;
            if (tv->ndim == 1 && tv->shape[0] == 0 && !(nd == 1)) continue;
            if (tv->ndim != nd)
                return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: tensors must have same number of dimensions: got %d and %d", fn, nd, tv->ndim);
            for (k = 0; k < nd; k++)
                if (k != d && tv->shape[k] != shape[k])
                    return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: sizes of tensors must match except in dimension %lld: expected size %lld but got size %lld for tensor number %d in the list",
                                                       fn, (long long)d, (long long)shape[k], (long long)tv->shape[k], i);
            if (!genie__sadd(total, tv->shape[d], &total)) {
                char sb[200];
                return (genie_tensor *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: the result's size at dimension %lld overflows int64 (%s at entry %d)",
                                                   fn, (long long)d, genie__fmt_shape(sb, nd, tv->shape), i);
            }
        }
        shape[d] = total;
    }
    n = genie__begin(ctx, op, dt, nd, shape, NULL, count, &v);
    if (!n) return NULL;
    n->a.i[0] = d;
    for (i = 0; i < count; i++) {
        genie__vspec *iv;
        const genie__vspec *tv = ts[i]->v;
        if (stack) { /* unsqueeze at d */
            int64_t us[GENIE__MAXD], ust[GENIE__MAXD];
            int k, j = 0;
            for (k = 0; k < nd; k++) {
                if (k == d) { us[k] = 1; ust[k] = 0; }
                else { us[k] = tv->shape[j]; ust[k] = tv->strides[j]; j++; }
            }
            iv = genie__vspec_new(ctx, nd, us, ust, tv->off);
        } else if (tv->ndim == 1 && tv->shape[0] == 0 && nd != 1) {
            iv = genie__vspec_new(ctx, 0, NULL, NULL, 0); /* skipped */
        } else {
            iv = genie__vspec_retain(ts[i]->v);
        }
        if (!genie__in(ctx, n, i, ts[i], iv)) return genie__abort(ctx, n, v);
    }
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_cat(genie_ctx *ctx, int n, genie_tensor *const *ts, int64_t dim) {
    return genie__cat(ctx, GENIE__OP_CAT, "genie_cat", n, ts, dim);
}
GENIEDEF genie_tensor *genie_stack(genie_ctx *ctx, int n, genie_tensor *const *ts, int64_t dim) {
    return genie__cat(ctx, GENIE__OP_STACK, "genie_stack", n, ts, dim);
}
static int genie__is_index_dtype(int dt) { return dt == GENIE_I64 || dt == GENIE_I32; }
GENIEDEF genie_tensor *genie_index_select(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index) {
    const char *fn = "genie_index_select";
    int64_t d, shape[GENIE__MAXD];
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__need(ctx, fn, index) || !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    if (!genie__is_index_dtype(index->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected an i64 or i32 index, got %s", fn, genie__dt_names[index->st->dtype]);
    if (index->v->ndim > 1)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: index should have 1 dimension, got %d", fn, index->v->ndim);
    memcpy(shape, t->v->shape, (size_t)t->v->ndim * 8);
    if (t->v->ndim) shape[d] = genie__numel(index->v->ndim, index->v->shape);
    else if (genie__numel(index->v->ndim, index->v->shape) != 1)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: index_select of a 0-dim tensor needs exactly one index", fn);
    n = genie__begin(ctx, GENIE__OP_INDEX_SELECT, t->st->dtype, t->v->ndim, shape, NULL, 2, &v);
    if (!n) return NULL;
    n->a.i[0] = d;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v)) || !genie__in(ctx, n, 1, index, genie__vspec_retain(index->v)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_gather(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index) {
    const char *fn = "genie_gather";
    char s1[200], s2[200];
    int64_t d;
    int i, nd;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__need(ctx, fn, index) || !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    if (index->st->dtype != GENIE_I64)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected an i64 index, got %s", fn, genie__dt_names[index->st->dtype]);
    nd = t->v->ndim;
    if (index->v->ndim != nd && !(nd <= 1 && index->v->ndim <= 1))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: index tensor must have the same number of dimensions as input tensor: %s vs %s",
                                           fn, genie__fmt_shape(s1, index->v->ndim, index->v->shape), genie__fmt_shape(s2, nd, t->v->shape));
    for (i = 0; i < nd && i < index->v->ndim; i++)
        if (i != d && index->v->shape[i] > t->v->shape[i])
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: size of dimension %d of index %s must not exceed the input's %s", fn, i,
                                               genie__fmt_shape(s1, index->v->ndim, index->v->shape), genie__fmt_shape(s2, nd, t->v->shape));
    n = genie__begin(ctx, GENIE__OP_GATHER, t->st->dtype, index->v->ndim, index->v->shape, NULL, 2, &v);
    if (!n) return NULL;
    n->a.i[0] = d;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v)) || !genie__in(ctx, n, 1, index, genie__vspec_retain(index->v)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_embedding(genie_ctx *ctx, genie_tensor *weight, genie_tensor *indices) {
    const char *fn = "genie_embedding";
    char s1[200];
    int64_t shape[GENIE__MAXD];
    int nd;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, weight) || !genie__need(ctx, fn, indices)) return NULL;
    if (weight->v->ndim != 2)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: weight must be 2-D, got %s", fn, genie__fmt_shape(s1, weight->v->ndim, weight->v->shape));
    if (!genie__is_index_dtype(indices->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected i64 or i32 indices, got %s", fn, genie__dt_names[indices->st->dtype]);
    nd = indices->v->ndim + 1;
    if (nd > GENIE__MAXD) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: too many dims", fn);
    memcpy(shape, indices->v->shape, (size_t)indices->v->ndim * 8);
    shape[nd - 1] = weight->v->shape[1];
    n = genie__begin(ctx, GENIE__OP_EMBEDDING, weight->st->dtype, nd, shape, NULL, 2, &v);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, weight, genie__vspec_retain(weight->v)) || !genie__in(ctx, n, 1, indices, genie__vspec_retain(indices->v)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
static int genie__fill_value(genie_ctx *ctx, const char *fn, int dt, double val) {
    if (!genie__fits(val, dt)) {
        genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: value %g cannot be converted to type %s without overflow", fn, val, genie__dt_names[dt]);
        return 0;
    }
    return 1;
}
GENIEDEF genie_tensor *genie_masked_fill(genie_ctx *ctx, genie_tensor *t, genie_tensor *mask, double val) {
    const char *fn = "genie_masked_fill";
    genie_tensor *ts[2];
    int64_t shape[GENIE__MAXD];
    int nd;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__need(ctx, fn, mask)) return NULL;
    if (mask->st->dtype != GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected a bool mask, got %s", fn, genie__dt_names[mask->st->dtype]);
    if (!genie__fill_value(ctx, fn, t->st->dtype, val)) return NULL;
    ts[0] = t; ts[1] = mask;
    if (!genie__bcast_or_fail(ctx, fn, 2, ts, &nd, shape)) return NULL;
    n = genie__begin(ctx, GENIE__OP_MASKED_FILL, t->st->dtype, nd, shape, NULL, 2, &v);
    if (!n) return NULL;
    n->a.f[0] = val;
    n->a.i[0] = genie__fill_int(val, t->st->dtype);
    if (!genie__in(ctx, n, 0, t, genie__bcast_view(ctx, t, nd, shape)) || !genie__in(ctx, n, 1, mask, genie__bcast_view(ctx, mask, nd, shape)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
static genie_tensor *genie__tri(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t k) {
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    if (t->v->ndim < 2) return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: input tensor must have at least 2 dimensions, got %dD", fn, t->v->ndim);
    n = genie__begin(ctx, op, t->st->dtype, t->v->ndim, t->v->shape, NULL, 1, &v);
    if (!n) return NULL;
    n->a.i[0] = k;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_tril(genie_ctx *ctx, genie_tensor *t, int64_t k) { return genie__tri(ctx, GENIE__OP_TRIL, "genie_tril", t, k); }
GENIEDEF genie_tensor *genie_triu(genie_ctx *ctx, genie_tensor *t, int64_t k) { return genie__tri(ctx, GENIE__OP_TRIU, "genie_triu", t, k); }

/* ---- tuples ---- */
static genie_tuple *genie__split_sizes(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t d, int64_t ss, int64_t num,
                                       int64_t last) {
    genie_tuple *tup;
    int nopool = ctx->no_pool, i;
    if (num > INT32_MAX) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: too many pieces", fn);
    tup = genie__tuple_new(ctx, (int)num);
    if (!tup) return NULL;
    ctx->no_pool = 1; /* the elements belong to the tuple */
    for (i = 0; i < num; i++)
        tup->items[i] = genie__slice(ctx, op, fn, t, d, i * ss, i * ss + (i == num - 1 ? last : ss), 1);
    ctx->no_pool = nopool;
    return genie__tuple_finish(ctx, tup);
}
GENIEDEF genie_tuple *genie_split(genie_ctx *ctx, genie_tensor *t, int64_t split_size, int64_t dim) {
    const char *fn = "genie_split";
    int64_t d, size, num;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    if (t->v->ndim == 0) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: split expects at least a 1-dimensional tensor", fn);
    if (!genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    size = t->v->shape[d];
    if (split_size < 0) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: split expects split_size be non-negative, but got split_size=%lld", fn, (long long)split_size);
    if (split_size == 0 && size != 0)
        return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: split_size can only be 0 if dimension size is 0, but got dimension size of %lld", fn, (long long)size);
    num = split_size == 0 || size == 0 ? 1 : (size - 1) / split_size + 1; /* ceil, without overflow */
    if (num < 1) num = 1;
    return genie__split_sizes(ctx, GENIE__OP_SPLIT, fn, t, d, split_size, num, size - (num - 1) * split_size);
}
GENIEDEF genie_tuple *genie_chunk(genie_ctx *ctx, genie_tensor *t, int64_t chunks, int64_t dim) {
    const char *fn = "genie_chunk";
    int64_t d, size, ss, num;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    if (t->v->ndim == 0) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: chunk expects at least a 1-dimensional tensor", fn);
    if (chunks <= 0) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: chunk expects `chunks` to be greater than 0, got: %lld", fn, (long long)chunks);
    if (!genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    size = t->v->shape[d];
    ss = size == 0 ? 0 : (size - 1) / chunks + 1; /* ceil, without overflow */
    if (ss == 0 && size == 0) return genie__split_sizes(ctx, GENIE__OP_CHUNK, fn, t, d, 0, chunks, 0);
    num = (size - 1) / ss + 1;
    if (num < 1) num = 1;
    return genie__split_sizes(ctx, GENIE__OP_CHUNK, fn, t, d, ss, num, size - (num - 1) * ss);
}
GENIEDEF genie_tuple *genie_unbind(genie_ctx *ctx, genie_tensor *t, int64_t dim) {
    const char *fn = "genie_unbind";
    int64_t d, i;
    int nopool;
    genie_tuple *tup;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t)) return NULL;
    if (t->v->ndim == 0) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: dimension specified as %lld but tensor has no dimensions", fn, (long long)dim);
    if (!genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    if (t->v->shape[d] > INT32_MAX) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_OVERFLOW, "%s: too many pieces", fn);
    tup = genie__tuple_new(ctx, (int)t->v->shape[d]);
    if (!tup) return NULL;
    nopool = ctx->no_pool;
    ctx->no_pool = 1;
    for (i = 0; i < t->v->shape[d]; i++) tup->items[i] = genie__select(ctx, GENIE__OP_UNBIND, fn, t, d, i);
    ctx->no_pool = nopool;
    return genie__tuple_finish(ctx, tup);
}
/* Two nodes reading t: values (which 0) and indices (which 1); each is
   computed only when read. */
static genie_tuple *genie__pair(genie_ctx *ctx, genie_tensor *(*make)(genie_ctx *, int, void *), void *arg) {
    genie_tuple *tup = genie__tuple_new(ctx, 2);
    int nopool = ctx->no_pool, i;
    if (!tup) return NULL;
    ctx->no_pool = 1;
    for (i = 0; i < 2; i++) tup->items[i] = make(ctx, i, arg);
    ctx->no_pool = nopool;
    return genie__tuple_finish(ctx, tup);
}
typedef struct genie__sortarg { genie_tensor *t; int op; int64_t d, desc, k; int keepdim; } genie__sortarg;
static genie_tensor *genie__sort_make(genie_ctx *ctx, int which, void *p) {
    genie__sortarg *s = (genie__sortarg *)p;
    int64_t shape[GENIE__MAXD], st[GENIE__MAXD];
    genie__vspec *v;
    genie__node *n;
    memcpy(shape, s->t->v->shape, (size_t)s->t->v->ndim * 8);
    if (s->op == GENIE__OP_TOPK && s->t->v->ndim) shape[s->d] = s->k;
    if (s->op == GENIE__OP_SORT) genie__preserve_layout(s->t->v, st);
    n = genie__begin(ctx, s->op, which ? GENIE_I64 : s->t->st->dtype, s->t->v->ndim, shape, s->op == GENIE__OP_SORT ? st : NULL, 1, &v);
    if (!n) return NULL;
    n->a.i[0] = s->d;
    n->a.i[1] = s->desc;
    n->a.i[2] = s->k;
    n->a.i[3] = which;
    if (!genie__in(ctx, n, 0, s->t, genie__vspec_retain(s->t->v))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tuple *genie_topk(genie_ctx *ctx, genie_tensor *t, int64_t k, int64_t dim, int largest, int sorted) {
    const char *fn = "genie_topk";
    genie__sortarg s;
    int64_t size;
    GENIE__ENTER(ctx);
    (void)sorted; /* results are always sorted; unsorted order is unspecified in PyTorch */
    if (!genie__need(ctx, fn, t) || !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &s.d)) return NULL;
    size = t->v->ndim ? t->v->shape[s.d] : 1;
    if (k < 0 || k > size)
        return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INDEX, "%s: selected index k (%lld) out of range for dimension of size %lld", fn, (long long)k, (long long)size);
    s.t = t; s.op = GENIE__OP_TOPK; s.desc = largest != 0; s.k = k; s.keepdim = 1;
    return genie__pair(ctx, genie__sort_make, &s);
}
GENIEDEF genie_tuple *genie_sort(genie_ctx *ctx, genie_tensor *t, int64_t dim, int descending) {
    genie__sortarg s;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_sort", t) || !genie__wrap_dim(ctx, "genie_sort", dim, t->v->ndim, &s.d)) return NULL;
    s.t = t; s.op = GENIE__OP_SORT; s.desc = descending != 0; s.k = 0; s.keepdim = 1;
    return genie__pair(ctx, genie__sort_make, &s);
}
static genie_tensor *genie__maxmin_make(genie_ctx *ctx, int which, void *p) {
    genie__sortarg *s = (genie__sortarg *)p;
    return genie__argreduce(ctx, s->op, s->op == GENIE__OP_MAX_DIM ? "genie_max_dim" : "genie_min_dim", s->t, s->d, s->keepdim, which);
}
GENIEDEF genie_tuple *genie_max_dim(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim) {
    genie__sortarg s;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_max_dim", t)) return NULL;
    if (dim == GENIE_DIM_NONE) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "genie_max_dim: a dimension is required");
    s.t = t; s.op = GENIE__OP_MAX_DIM; s.d = dim; s.keepdim = keepdim;
    return genie__pair(ctx, genie__maxmin_make, &s);
}
GENIEDEF genie_tuple *genie_min_dim(genie_ctx *ctx, genie_tensor *t, int64_t dim, int keepdim) {
    genie__sortarg s;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_min_dim", t)) return NULL;
    if (dim == GENIE_DIM_NONE) return (genie_tuple *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "genie_min_dim: a dimension is required");
    s.t = t; s.op = GENIE__OP_MIN_DIM; s.d = dim; s.keepdim = keepdim;
    return genie__pair(ctx, genie__maxmin_make, &s);
}
GENIEDEF int genie_tuple_size(const genie_tuple *tup) { return tup && !tup->released ? tup->n : 0; }
GENIEDEF genie_tensor *genie_tuple_get(genie_tuple *tup, int i) {
    if (tup && tup->released == 2) {
        genie__fail(tup->ctx, GENIE_ERR_INVALID_ARG, "genie_tuple_get: a dead tuple was passed (used after its pool was "
                    "popped, or after genie_tuple_release in a no_pool context)");
        return NULL;
    }
    if (!tup || tup->released || i < 0 || i >= tup->n) {
        if (tup) genie__fail(tup->ctx, GENIE_ERR_INDEX, "genie_tuple_get: index %d out of range for a tuple of %d", i, tup->released ? 0 : tup->n);
        return NULL;
    }
    return tup->items[i];
}
GENIEDEF void genie_tuple_release(genie_tuple *tup) {
    if (!tup || tup->released) return;
    if (tup->ctx->no_pool) { genie__tuple_free(tup); return; }
    genie__tuple_drop_items(tup); /* the pool frees the shell at pop */
    tup->released = 1;
}

/* ---- in place ---- */
/* A new version of dst's storage: node n (already holding its inputs) writes
   dst's elements over a copy of the current version. Returns dst. A destination
   whose elements share memory (or may: undecided) is written in the reference
   kernel's row-major order on one thread (n->inplace 2), so the last writer in
   row-major order wins on every path. */
static genie_tensor *genie__commit(genie_ctx *ctx, genie_tensor *dst, genie__node *n, int op) {
    genie__node *old = dst->st->ver;
    old->refs++;
    n->base = old;
    n->inplace = (uint8_t)(genie__internal_overlap(dst->v) == GENIE__OV_TOO_HARD && genie__really_self_overlaps(dst->v) ? 2 : 1);
    dst->st->ver = n;
    genie__node_release(ctx, old); /* the storage's reference moves to n->base */
    dst->op = (uint8_t)op;
    dst->inplace = 1;
    ctx->stats.inplace_writes++;
    return dst;
}
static genie__node *genie__inplace_node(genie_ctx *ctx, int op, genie_tensor *dst, int nin, int cdt) {
    genie__node *n = genie__node_new(ctx, op, dst->st->dtype, dst->st->ver->numel, nin);
    if (!n) return (genie__node *)GENIE__OOM(ctx, genie__op_inplace_names[op]);
    n->out = genie__vspec_retain(dst->v);
    n->cdt = (uint8_t)cdt;
    return n;
}
/* ATen's write checks: overlapping destination (YES, or TOO_HARD and really
   overlapping for read-modify-write ops), partial overlap with a source. */
static int genie__check_write(genie_ctx *ctx, const char *fn, genie_tensor *dst, genie_tensor *src, int rmw, int check_self) {
    if (check_self) {
        int ov = genie__internal_overlap(dst->v);
        if (ov == GENIE__OV_YES) {
            genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.", fn);
            return 0;
        }
        if (ov == GENIE__OV_TOO_HARD && rmw) {
            int r = genie__really_self_overlaps(dst->v);
            if (r) {
                genie__fail(ctx, GENIE_ERR_UNSUPPORTED, r > 0 ? "%s: unsupported operation: elements of the written-to tensor share memory locations, so a read-modify-write has no defined result. Please clone() the tensor before performing the operation."
                            : "%s: unsupported operation: whether elements of the written-to tensor share memory locations cannot be decided from its strides, and it has too many elements to check one by one. Please clone() the tensor before performing the operation.", fn);
                return 0;
            }
        }
    }
    if (src && src != dst && genie__overlap_status(dst, src) == GENIE__OV_PARTIAL) {
        genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.", fn);
        return 0;
    }
    return 1;
}
static int genie__src_fits(genie_ctx *ctx, const char *fn, genie_tensor *dst, genie_tensor *src) {
    int64_t shape[GENIE__MAXD];
    int nd;
    char s1[200], s2[200];
    if (!genie__broadcast(dst->v->ndim, dst->v->shape, src->v->ndim, src->v->shape, &nd, shape) || nd != dst->v->ndim ||
        memcmp(shape, dst->v->shape, (size_t)nd * 8) != 0) {
        genie__fail(ctx, GENIE_ERR_SHAPE, "%s: source of shape %s does not broadcast to the destination's shape %s", fn,
                    genie__fmt_shape(s1, src->v->ndim, src->v->shape), genie__fmt_shape(s2, dst->v->ndim, dst->v->shape));
        return 0;
    }
    return 1;
}
static genie_tensor *genie__binary_(genie_ctx *ctx, int op, const char *fn, genie_tensor *dst, genie_tensor *src) {
    genie_tensor *ts[2];
    int pt, cdt, odt;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, dst) || !genie__need(ctx, fn, src) || !genie__src_fits(ctx, fn, dst, src)) return NULL;
    ts[0] = dst; ts[1] = src;
    pt = genie__result_type(2, ts, 0);
    if (!genie__binary_types(ctx, op, fn, dst->st->dtype, src->st->dtype, pt, &cdt, &odt)) return NULL;
    if (!genie__can_cast(odt, dst->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", fn,
                                           genie__dt_names[odt], genie__dt_names[dst->st->dtype]);
    if (!genie__check_write(ctx, fn, dst, src, 1, 1)) return NULL;
    n = genie__inplace_node(ctx, op, dst, 2, cdt);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, dst, genie__vspec_retain(dst->v)) ||
        !genie__in(ctx, n, 1, src, genie__bcast_view(ctx, src, dst->v->ndim, dst->v->shape))) {
        genie__node_release(ctx, n);
        return NULL;
    }
    return genie__commit(ctx, dst, n, op);
}
GENIEDEF genie_tensor *genie_add_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src) { return genie__binary_(ctx, GENIE__OP_ADD, "genie_add_", dst, src); }
GENIEDEF genie_tensor *genie_sub_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src) { return genie__binary_(ctx, GENIE__OP_SUB, "genie_sub_", dst, src); }
GENIEDEF genie_tensor *genie_mul_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src) { return genie__binary_(ctx, GENIE__OP_MUL, "genie_mul_", dst, src); }
GENIEDEF genie_tensor *genie_div_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src) { return genie__binary_(ctx, GENIE__OP_DIV, "genie_div_", dst, src); }
GENIEDEF genie_tensor *genie_fill_(genie_ctx *ctx, genie_tensor *t, double val) {
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_fill_", t) || !genie__fill_value(ctx, "genie_fill_", t->st->dtype, val)) return NULL;
    n = genie__inplace_node(ctx, GENIE__OP_FULL, t, 0, t->st->dtype);
    if (!n) return NULL;
    n->a.f[0] = val;
    n->a.i[0] = genie__fill_int(val, t->st->dtype);
    return genie__commit(ctx, t, n, GENIE__OP_FULL);
}
GENIEDEF genie_tensor *genie_zero_(genie_ctx *ctx, genie_tensor *t) { return genie_fill_(ctx, t, 0.0); }
GENIEDEF genie_tensor *genie_copy_(genie_ctx *ctx, genie_tensor *dst, genie_tensor *src) {
    const char *fn = "genie_copy_";
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, dst) || !genie__need(ctx, fn, src) || !genie__src_fits(ctx, fn, dst, src)) return NULL;
    /* the same tensor (ATen's is_same; x.to(x.dtype) is x): nothing to do, not even the overlap
       check (ATen 1.13 has no wider shortcut: another view with the same geometry is copied) */
    if (dst->self == src->self) return dst;
    if (!genie__check_write(ctx, fn, dst, src, 0, 1)) return NULL;
    n = genie__inplace_node(ctx, GENIE__OP_COPY, dst, 1, dst->st->dtype);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, src, genie__bcast_view(ctx, src, dst->v->ndim, dst->v->shape))) {
        genie__node_release(ctx, n);
        return NULL;
    }
    return genie__commit(ctx, dst, n, GENIE__OP_COPY);
}
GENIEDEF genie_tensor *genie_relu_(genie_ctx *ctx, genie_tensor *t) {
    int cdt, odt;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, "genie_relu_", t) || !genie__unary_types(ctx, GENIE__OP_RELU, "genie_relu_", t->st->dtype, &cdt, &odt) ||
        !genie__check_write(ctx, "genie_relu_", t, NULL, 1, 1)) return NULL;
    n = genie__inplace_node(ctx, GENIE__OP_RELU, t, 1, cdt);
    if (!n) return NULL;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) { genie__node_release(ctx, n); return NULL; }
    return genie__commit(ctx, t, n, GENIE__OP_RELU);
}
GENIEDEF genie_tensor *genie_masked_fill_(genie_ctx *ctx, genie_tensor *t, genie_tensor *mask, double val) {
    const char *fn = "genie_masked_fill_";
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__need(ctx, fn, mask)) return NULL;
    if (mask->st->dtype != GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected a bool mask, got %s", fn, genie__dt_names[mask->st->dtype]);
    if (!genie__src_fits(ctx, fn, t, mask) || !genie__fill_value(ctx, fn, t->st->dtype, val) ||
        !genie__check_write(ctx, fn, t, mask, 0, 0)) return NULL;
    n = genie__inplace_node(ctx, GENIE__OP_MASKED_FILL, t, 2, t->st->dtype);
    if (!n) return NULL;
    n->a.f[0] = val;
    n->a.i[0] = genie__fill_int(val, t->st->dtype);
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v)) ||
        !genie__in(ctx, n, 1, mask, genie__bcast_view(ctx, mask, t->v->ndim, t->v->shape))) {
        genie__node_release(ctx, n);
        return NULL;
    }
    return genie__commit(ctx, t, n, GENIE__OP_MASKED_FILL);
}

/* ---- transformer operations (v1) ---- */
GENIEDEF genie_tensor *genie_rms_norm(genie_ctx *ctx, genie_tensor *x, int nnorm, const int64_t *normalized_shape,
                                      genie_tensor *weight, double eps) {
    const char *fn = "genie_rms_norm";
    char a[200], b[200];
    int nd;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, x) || !genie__mine(ctx, fn, weight)) return NULL;
    nd = x->v->ndim;
    if (nnorm < 1 || nnorm > GENIE__MAXD || !normalized_shape)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: expected normalized_shape to be at least 1-dimensional", fn);
    if (nnorm > nd || memcmp(x->v->shape + nd - nnorm, normalized_shape, (size_t)nnorm * 8) != 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: given normalized_shape=%s, expected input with shape [*, %s], but got input of size %s",
                                           fn, genie__fmt_shape(a, nnorm, normalized_shape), genie__fmt_shape(b, nnorm, normalized_shape) + 1,
                                           genie__fmt_shape(a, nd, x->v->shape));
    if (!GENIE__IS_FLOAT(x->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: needs a floating dtype, got %s", fn, genie__dt_names[x->st->dtype]);
    if (weight && (weight->v->ndim != nnorm || memcmp(weight->v->shape, normalized_shape, (size_t)nnorm * 8) != 0))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected weight of shape %s, but got %s", fn,
                                           genie__fmt_shape(a, nnorm, normalized_shape), genie__fmt_shape(b, weight->v->ndim, weight->v->shape));
    if (weight && weight->st->dtype != x->st->dtype)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected weight of dtype %s, but got %s", fn,
                                           genie__dt_names[x->st->dtype], genie__dt_names[weight->st->dtype]);
    if (eps != eps) eps = x->st->dtype == GENIE_F64 ? DBL_EPSILON : FLT_EPSILON;
    n = genie__begin(ctx, GENIE__OP_RMS_NORM, x->st->dtype, nd, x->v->shape, NULL, 1 + (weight != NULL), &v);
    if (!n) return NULL;
    n->a.i[0] = nd - nnorm;
    n->a.i[1] = weight != NULL;
    n->a.f[0] = eps;
    if (!genie__in(ctx, n, 0, x, genie__vspec_retain(x->v)) ||
        (weight && !genie__in(ctx, n, 1, weight, genie__vspec_retain(weight->v))))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_rope(genie_ctx *ctx, genie_tensor *x, genie_tensor *pos, int64_t rotary_dim, double theta,
                                  int interleaved) {
    const char *fn = "genie_rope";
    char s1[200], s2[200];
    int nd;
    int64_t D, rd;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, x) || !genie__need(ctx, fn, pos)) return NULL;
    nd = x->v->ndim;
    if (!GENIE__IS_FLOAT(x->st->dtype))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: x needs a floating dtype, got %s", fn, genie__dt_names[x->st->dtype]);
    if (GENIE__IS_FLOAT(pos->st->dtype) || pos->st->dtype == GENIE_BOOL)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: positions need an integer dtype, got %s", fn, genie__dt_names[pos->st->dtype]);
    if (nd < 2)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: x must be [..., T, D], got %s", fn, genie__fmt_shape(s1, nd, x->v->shape));
    if (pos->v->ndim != 1 || pos->v->shape[0] != x->v->shape[nd - 2])
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: positions must be [T] for x [..., T, D]: x %s, positions %s", fn,
                                           genie__fmt_shape(s1, nd, x->v->shape), genie__fmt_shape(s2, pos->v->ndim, pos->v->shape));
    D = x->v->shape[nd - 1];
    rd = rotary_dim == 0 ? D : rotary_dim;
    if (rd < 0 || rd > D || rd % 2 != 0)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: rotary_dim %lld must be even and in [0, %lld] for x %s", fn,
                                           (long long)rotary_dim, (long long)D, genie__fmt_shape(s1, nd, x->v->shape));
    if (!(theta > 0) || !isfinite(theta))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: theta must be positive and finite, got %g", fn, theta);
    n = genie__begin(ctx, GENIE__OP_ROPE, x->st->dtype, nd, x->v->shape, NULL, 2, &v);
    if (!n) return NULL;
    n->a.i[0] = rd;
    n->a.i[1] = interleaved != 0;
    n->a.f[0] = theta;
    if (!genie__in(ctx, n, 0, x, genie__vspec_retain(x->v)) || !genie__in(ctx, n, 1, pos, genie__vspec_retain(pos->v)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
/* sdpa's shapes: q, k, v padded on the left to nd >= 3 dims; batch dims [0, nd-3)
   broadcast; canonical shapes [B.., H, L or S, E or Ev] for the kernel's views. */
GENIEDEF genie_tensor *genie_scaled_dot_product_attention(genie_ctx *ctx, genie_tensor *q, genie_tensor *k,
                                                          genie_tensor *v, genie_tensor *attn_mask, int is_causal,
                                                          double scale) {
    const char *fn = "genie_scaled_dot_product_attention";
    char s1[200], s2[200], s3[200];
    genie_tensor *qkv[3];
    int64_t pad[3][GENIE__MAXD], cq[GENIE__MAXD], ck[GENIE__MAXD], cv[GENIE__MAXD], cm[GENIE__MAXD], bsh[GENIE__MAXD];
    int64_t Hq, Hk, E, L, S, Ev, out_shape[GENIE__MAXD];
    int nd = 3, nb, i, j, bnd, ond;
    genie__vspec *ov;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, q) || !genie__need(ctx, fn, k) || !genie__need(ctx, fn, v) || !genie__mine(ctx, fn, attn_mask)) return NULL;
    qkv[0] = q; qkv[1] = k; qkv[2] = v;
    for (i = 0; i < 3; i++) {
        if (!GENIE__IS_FLOAT(qkv[i]->st->dtype))
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: needs floating query, key and value, got %s", fn,
                                               genie__dt_names[qkv[i]->st->dtype]);
        if (qkv[i]->st->dtype != q->st->dtype)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected query, key and value of one dtype, got %s, %s, %s", fn,
                                               genie__dt_names[q->st->dtype], genie__dt_names[k->st->dtype], genie__dt_names[v->st->dtype]);
        if (qkv[i]->v->ndim < 2)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: query, key and value need at least 2 dims: %s, %s, %s", fn,
                                               genie__fmt_shape(s1, q->v->ndim, q->v->shape), genie__fmt_shape(s2, k->v->ndim, k->v->shape),
                                               genie__fmt_shape(s3, v->v->ndim, v->v->shape));
        if (qkv[i]->v->ndim > nd) nd = qkv[i]->v->ndim;
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < nd; j++) {
            int src = j - (nd - qkv[i]->v->ndim);
            pad[i][j] = src < 0 ? 1 : qkv[i]->v->shape[src];
        }
    nb = nd - 3;
    Hq = pad[0][nb]; L = pad[0][nb + 1]; E = pad[0][nb + 2];
    Hk = pad[1][nb]; S = pad[1][nb + 1]; Ev = pad[2][nb + 2];
    if (pad[1][nb + 2] != E || pad[2][nb + 1] != S || pad[2][nb] != Hk || (Hk == 0 ? Hq != 0 : Hq % Hk != 0) ||
        !genie__broadcast(nb, pad[0], nb, pad[1], &bnd, bsh) || !genie__broadcast(nb, bsh, nb, pad[2], &bnd, bsh))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected query [..., Hq, L, E], key [..., Hkv, S, E] and value [..., Hkv, S, Ev] "
                                           "with Hq a multiple of Hkv and broadcastable batch dims, got %s, %s, %s", fn,
                                           genie__fmt_shape(s1, q->v->ndim, q->v->shape), genie__fmt_shape(s2, k->v->ndim, k->v->shape),
                                           genie__fmt_shape(s3, v->v->ndim, v->v->shape));
    memcpy(cq, bsh, (size_t)nb * 8); memcpy(ck, bsh, (size_t)nb * 8); memcpy(cv, bsh, (size_t)nb * 8); memcpy(cm, bsh, (size_t)nb * 8);
    cq[nb] = Hq; cq[nb + 1] = L; cq[nb + 2] = E;
    ck[nb] = Hk; ck[nb + 1] = S; ck[nb + 2] = E;
    cv[nb] = Hk; cv[nb + 1] = S; cv[nb + 2] = Ev;
    cm[nb] = Hq; cm[nb + 1] = L; cm[nb + 2] = S;
    if (attn_mask) {
        int mnd = attn_mask->v->ndim, ok = mnd <= nd;
        if (is_causal)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_INVALID_ARG, "%s: an explicit attn_mask cannot be set together with is_causal", fn);
        if (attn_mask->st->dtype != GENIE_BOOL && !GENIE__IS_FLOAT(attn_mask->st->dtype))
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: attn_mask must be bool or floating, got %s", fn,
                                               genie__dt_names[attn_mask->st->dtype]);
        for (j = 0; j < mnd && ok; j++) {
            int64_t sz = attn_mask->v->shape[j], want = cm[nd - mnd + j];
            ok = sz == want || sz == 1;
        }
        if (!ok)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: attn_mask of shape %s does not broadcast to the scores' shape %s", fn,
                                               genie__fmt_shape(s1, mnd, attn_mask->v->shape), genie__fmt_shape(s2, nd, cm));
    }
    if (scale != scale) scale = 1.0 / sqrt((double)E);
    ond = q->v->ndim == 2 && k->v->ndim == 2 && v->v->ndim == 2 ? 2 : nd; /* 2-D inputs: a 2-D result */
    memcpy(out_shape, cq, (size_t)nd * 8);
    out_shape[nd - 1] = Ev;
    n = genie__begin(ctx, GENIE__OP_SDPA, q->st->dtype, ond, out_shape + (nd - ond), NULL, 3 + (attn_mask != NULL), &ov);
    if (!n) return NULL;
    n->a.i[0] = nb;
    n->a.i[1] = is_causal != 0;
    n->a.f[0] = scale;
    if (!genie__in(ctx, n, 0, q, genie__bcast_view(ctx, q, nd, cq)) || !genie__in(ctx, n, 1, k, genie__bcast_view(ctx, k, nd, ck)) ||
        !genie__in(ctx, n, 2, v, genie__bcast_view(ctx, v, nd, cv)) ||
        (attn_mask && !genie__in(ctx, n, 3, attn_mask, genie__bcast_view(ctx, attn_mask, nd, cm))))
        return genie__abort(ctx, n, ov);
    return genie__result(ctx, n, ov);
}
GENIEDEF genie_tensor *genie_cumsum(genie_ctx *ctx, genie_tensor *t, int64_t dim) {
    const char *fn = "genie_cumsum";
    int64_t d;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    n = genie__begin(ctx, GENIE__OP_CUMSUM, GENIE__IS_FLOAT(t->st->dtype) ? t->st->dtype : GENIE_I64, t->v->ndim, t->v->shape, NULL, 1, &v);
    if (!n) return NULL;
    n->a.i[0] = d;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v))) return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
/* scatter / scatter_add: ATen's checks (scatter_shape_check; a 0-dim tensor counts as [1]). */
static genie_tensor *genie__scatter(genie_ctx *ctx, int op, const char *fn, genie_tensor *t, int64_t dim, genie_tensor *index,
                                    genie_tensor *src) {
    char s1[200], s2[200], s3[200];
    int64_t d;
    int nd, i, bad = 0;
    genie__vspec *v;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__need(ctx, fn, index) || !genie__need(ctx, fn, src) ||
        !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    if (index->st->dtype != GENIE_I64)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected dtype i64 for index, got %s", fn, genie__dt_names[index->st->dtype]);
    if (src->st->dtype != t->st->dtype)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected self.dtype to be equal to src.dtype (%s vs %s)", fn,
                                           genie__dt_names[t->st->dtype], genie__dt_names[src->st->dtype]);
    nd = t->v->ndim ? t->v->ndim : 1;
    if (genie__numel(index->v->ndim, index->v->shape) > 0) {
        if ((index->v->ndim ? index->v->ndim : 1) != nd || (src->v->ndim ? src->v->ndim : 1) != nd) bad = 1;
        for (i = 0; i < nd && !bad; i++) {
            int64_t xs = index->v->ndim ? index->v->shape[i] : 1, ts = t->v->ndim ? t->v->shape[i] : 1, cs = src->v->ndim ? src->v->shape[i] : 1;
            if ((i != d && xs > ts) || xs > cs) bad = 1;
        }
        if (bad)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: expected index %s to have self's rank and be no larger than self %s "
                                               "apart from dimension %lld, and no larger than src %s", fn,
                                               genie__fmt_shape(s1, index->v->ndim, index->v->shape), genie__fmt_shape(s2, t->v->ndim, t->v->shape),
                                               (long long)d, genie__fmt_shape(s3, src->v->ndim, src->v->shape));
    }
    n = genie__begin(ctx, op, t->st->dtype, t->v->ndim, t->v->shape, NULL, 3, &v);
    if (!n) return NULL;
    n->a.i[0] = d;
    if (!genie__in(ctx, n, 0, t, genie__vspec_retain(t->v)) || !genie__in(ctx, n, 1, index, genie__vspec_retain(index->v)) ||
        !genie__in(ctx, n, 2, src, genie__vspec_retain(src->v)))
        return genie__abort(ctx, n, v);
    return genie__result(ctx, n, v);
}
GENIEDEF genie_tensor *genie_scatter(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index, genie_tensor *src) {
    return genie__scatter(ctx, GENIE__OP_SCATTER, "genie_scatter", t, dim, index, src);
}
GENIEDEF genie_tensor *genie_scatter_add(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index, genie_tensor *src) {
    return genie__scatter(ctx, GENIE__OP_SCATTER_ADD, "genie_scatter_add", t, dim, index, src);
}
GENIEDEF genie_tensor *genie_index_copy_(genie_ctx *ctx, genie_tensor *t, int64_t dim, genie_tensor *index, genie_tensor *src) {
    const char *fn = "genie_index_copy_";
    char s1[200], s2[200];
    int64_t d, ni;
    int i, k, nd;
    genie__node *n;
    GENIE__ENTER(ctx);
    if (!genie__need(ctx, fn, t) || !genie__need(ctx, fn, index) || !genie__need(ctx, fn, src) ||
        !genie__wrap_dim(ctx, fn, dim, t->v->ndim, &d)) return NULL;
    if (index->st->dtype != GENIE_I64)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: expected an i64 index, got %s", fn, genie__dt_names[index->st->dtype]);
    if (src->st->dtype != t->st->dtype)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_DTYPE, "%s: self and source expected to have the same dtype, got %s and %s", fn,
                                           genie__dt_names[t->st->dtype], genie__dt_names[src->st->dtype]);
    if (index->v->ndim > 1)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: index should have dimension 1 or 0, got %s", fn,
                                           genie__fmt_shape(s1, index->v->ndim, index->v->shape));
    ni = genie__numel(index->v->ndim, index->v->shape);
    nd = t->v->ndim;
    if (src->v->ndim == 0 ? ni != 1 : (nd != 0 && src->v->ndim != nd) || (nd == 0 && src->v->ndim != 1))
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: source %s does not fit destination %s with %lld indices", fn,
                                           genie__fmt_shape(s1, src->v->ndim, src->v->shape), genie__fmt_shape(s2, nd, t->v->shape), (long long)ni);
    for (i = 0, k = 0; i < nd && src->v->ndim == nd; i++) /* equal slices, and one slice of src per index */
        if (i == d ? src->v->shape[i] != ni : src->v->shape[i] != t->v->shape[i]) k = 1;
    if ((src->v->ndim == 1 && nd == 0 && src->v->shape[0] != ni) || (src->v->ndim == 0 && nd > 1)) k = 1;
    if (k)
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_SHAPE, "%s: source %s does not fit destination %s along dim %lld with %lld indices", fn,
                                           genie__fmt_shape(s1, src->v->ndim, src->v->shape), genie__fmt_shape(s2, nd, t->v->shape), (long long)d,
                                           (long long)ni);
    if (genie__internal_overlap(t->v) == GENIE__OV_YES ||
        (genie__internal_overlap(t->v) == GENIE__OV_TOO_HARD && genie__really_self_overlaps(t->v))) /* no defined order */
        return (genie_tensor *)genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.", fn);
    for (i = 0; i < 2; i++) {
        int ov = genie__overlap_status(t, i ? src : index);
        if (ov == GENIE__OV_FULL || ov == GENIE__OV_PARTIAL)
            return (genie_tensor *)genie__fail(ctx, GENIE_ERR_UNSUPPORTED, "%s: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.", fn);
    }
    n = genie__inplace_node(ctx, GENIE__OP_INDEX_COPY, t, 2, t->st->dtype);
    if (!n) return NULL;
    n->a.i[0] = d;
    if (!genie__in(ctx, n, 0, index, genie__vspec_retain(index->v)) || !genie__in(ctx, n, 1, src, genie__vspec_retain(src->v))) {
        genie__node_release(ctx, n);
        return NULL;
    }
    return genie__commit(ctx, t, n, GENIE__OP_INDEX_COPY);
}

/* ---- semantic capture ---- */
GENIEDEF void genie_scope_push(genie_ctx *ctx, const char *name) {
    char buf[1024];
    const char *cur;
    int64_t cap;
    if (!ctx) return;
    cur = genie__cur_module(ctx);
    snprintf(buf, sizeof buf, "%s%s%s", cur, *cur ? "." : "", name ? name : "");
    cap = ctx->capscopes;
    if (!genie__grow((void **)&ctx->scopes, &cap, (int64_t)ctx->nscopes + 1, sizeof(char *))) {
        genie__fail(ctx, GENIE_ERR_OOM, "genie_scope_push: out of memory");
        return;
    }
    ctx->capscopes = (int)cap;
    if (!(cur = genie__intern(ctx, buf, "genie_scope_push"))) return; /* not pushed */
    ctx->scopes[ctx->nscopes++] = cur;
    genie__scope_update(ctx, "genie_scope_push");
}
GENIEDEF void genie_scope_pop(genie_ctx *ctx) {
    if (ctx && ctx->nscopes > 0) ctx->nscopes--, genie__scope_update(ctx, "genie_scope_pop");
}
GENIEDEF void genie_set_phase(genie_ctx *ctx, const char *phase) {
    const char *ph = ctx ? genie__intern(ctx, phase, "genie_set_phase") : NULL;
    if (ph) ctx->phase = ph, genie__scope_update(ctx, "genie_set_phase"); /* else unchanged */
}
GENIEDEF const char *genie_module_path(const genie_tensor *t) { return GENIE__LIVE(t) ? t->scope->module : ""; }
GENIEDEF const char *genie_phase(const genie_tensor *t) { return GENIE__LIVE(t) ? t->scope->phase : ""; }
GENIEDEF const char *genie_op_name(const genie_tensor *t) {
    if (!GENIE__LIVE(t)) return "";
    return t->inplace ? genie__op_inplace_names[t->op] : genie__op_names[t->op];
}

#endif /* GENIE__IMPLEMENTED */
#ifdef GENIE__DIAG_PUSHED
#pragma GCC diagnostic pop
#endif
#endif /* GENIE_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
LICENSE (MIT)
------------------------------------------------------------------------------
Copyright (c) 2026 the genie authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
