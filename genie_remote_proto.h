/* genie_remote_proto.h - the wire protocol of genie's remote backend (docs/remote.md).
 *
 * Pure C99, no network and no allocation except gr_run_decode's op array: the
 * client (genie_remote.c), the server (tools/genie_server.c), the tests and the
 * fuzzer (tests/fuzz/fuzz_remote.c) share these encoders and decoders.
 *
 * Every message is a 24-byte little-endian header followed by its payload:
 *     u32 magic "GNRM", u16 version, u16 type, u64 request id, u64 payload length
 * Over UCX the header travels as the active message's header and the payload as
 * its data, so a payload never has to be copied to prepend the header.
 *
 * Decoders treat their bytes as hostile: every read is bounded by the bytes
 * present, every count, size, offset, stride and index is bounded before use,
 * and an op's sources must precede it. No pointer of either side is ever on the
 * wire: buffers are named by the client's 64-bit ids (never 0), tensors by their
 * BLAKE2b-256 content hash, earlier ops of a RUN by their index. */
#ifndef GENIE_REMOTE_PROTO_H
#define GENIE_REMOTE_PROTO_H
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#if defined(__GNUC__) || defined(__clang__)
#define GR_FN static __attribute__((unused))
#else
#define GR_FN static
#endif

#define GR_MAGIC 0x4d524e47u /* "GNRM" in little-endian byte order */
#ifndef GR_VERSION /* (test_remote builds a server of another version to see it refused) */
#define GR_VERSION 13
#endif
#define GR_HDR_BYTES 24
#define GR_HASH_BYTES 32
#define GR_NONCE_BYTES 32
#define GR_MAX_DIMS 8
#define GR_MAX_IN 8              /* sources of one op (cat takes up to 8) */
#define GR_MAX_OPS 4096             /* ops in one RUN */
#define GR_MAX_STR 256              /* a module path or phase */
#define GR_MAX_ELEMS ((int64_t)1 << 40) /* a size, stride or offset in elements */
#define GR_MAX_BUF ((uint64_t)1 << 40)  /* a buffer in bytes */
#define GR_MAX_FREE 65536           /* ids in one FREE */
#define GR_MAX_MSG_LEN 1024         /* an ERROR's message */
#define GR_MAX_SLOTS 65536          /* buffers one RUN names */
#define GR_TAPES 256                /* tapes a connection keeps for RUN_CACHED (first in, first out) */
#define GR_TAPE_BYTES ((size_t)16 << 20) /* ... and their bytes at most */
#define GR_DEFAULT_MAX_PAYLOAD ((uint64_t)1 << 31)
#define GR_MAX_STATS 4096           /* rows of one STATS_REPLY (a client's (module, phase, role) keys) */
/* A tensor's content hash is a tree (gr_content_hash in genie_remote_ucx.h): BLAKE2b-256 of each
   GR_LEAF_BYTES leaf, then BLAKE2b-256 of (u64 length, the leaves' hashes), so both sides hash
   leaves on several threads and a server hashes each part of an upload as it arrives. */
#define GR_LEAF_BYTES ((uint64_t)256 << 10)
#define GR_PART_BYTES ((uint64_t)2 << 20) /* the bytes of a client's PUT_PART (eager on UCX) */
/* Flow control of uploads: the payload bytes of a client's PUTs and PUT_PARTs are counted on
   both sides. The server sends CREDIT{taken}, the bytes of them it has taken off its queue so
   far, whenever GR_CREDIT_EVERY or more were taken since its last CREDIT; a client sends a PUT or
   PUT_PART of n payload bytes only while sent - taken + n stays within the window its WELCOME
   gives, or while fewer than GR_CREDIT_EVERY are unacknowledged (so the server always owes a
   CREDIT when a client waits for one). */
#define GR_MAX_INLINE ((uint64_t)64 << 10) /* an input's bytes inside a RUN_CACHED (gr_inline_decode) */
#define GR_CREDIT_EVERY ((uint64_t)1 << 20)
#define GR_MAX_WINDOW ((uint64_t)64 << 20) /* the largest window a server gives (its queue cap / 2 below that), besides 64 bytes a part for the parts' heads */

/* message types (docs/remote.md) */
enum gr_type {
    GR_HELLO = 1,   /* c->s: u16 vmin, u16 vmax, nonce[32] */
    GR_WELCOME,     /* s->c: u16 version, u8 key required, u8 0, u32 max ops, u64 max payload, challenge[32],
                       u64 max run work, u64 put window (gr_welcome_decode) */
    GR_AUTH,        /* c->s: mac[32] = crypto_auth(challenge || nonce || "genie-remote", key) */
    GR_OK,          /* s->c: empty (AUTH accepted) */
    GR_ERROR,       /* s->c: u32 code, u32 length, message bytes (not terminated) */
    GR_HAS,         /* c->s: u64 id, u64 cap, u64 bytes, hash[32]; reply HAS_REPLY */
    GR_HAS_REPLY,   /* s->c: u8 found (1: id now reads the cached tensor) */
    GR_PUT,         /* c->s: u64 id, u64 cap, hash[32] (32 zero bytes: none claimed), then the bytes; replies:
                       HASHED when no hash was claimed, ERROR when the claimed one is not the bytes' */
    GR_RUN,         /* c->s: u32 nslots, nslots x u64 buffer id, then a tape (gr_run); no reply unless an ERROR */
    GR_GET,         /* c->s: u64 id, u64 lo, u64 hi; reply DATA or ERROR */
    GR_DATA,        /* s->c: the bytes [lo, hi) of the buffer */
    GR_FREE,        /* c->s: u32 n, n x u64 id; no reply */
    GR_BYE,         /* c->s: empty; the server drops the client's state */
    GR_PING,        /* c->s: empty; reply OK (a round trip through the server's queue) */
    GR_STATS,       /* c->s: empty; reply STATS_REPLY */
    GR_STATS_REPLY, /* s->c: u32 n, n x stat row (gr_stat_encode) */
    GR_RUN_CACHED,  /* c->s: tape hash[32], u32 nslots, nslots x u64 buffer id: a tape sent before; then its
                       inputs inline, if any bytes are left (gr_inline_decode) */
    GR_PUT_PART,    /* c->s: u64 id, u64 cap, u64 offset, then the bytes: the leading bytes of a PUT */
    GR_HASHED,      /* s->c: u64 id, hash[32]: the server's hash of a PUT that claimed none (the PUT's request id) */
    GR_CREDIT,      /* s->c: u64 taken: the PUT and PUT_PART payload bytes taken off the server's queue so far
                       (request id 0; gr_credit_decode) */
    GR_RUN_CACHED_GET, /* c->s: tape hash[32], u64 id, u64 lo, u64 hi, u32 nslots, nslots x u64 buffer id,
                          inputs inline as RUN_CACHED's: a RUN_CACHED under the header's request id, then a GET
                          of [lo, hi) of buffer id under that id + 1 (its DATA or ERROR): a repeated step, its
                          inputs and its read in one message */
    GR_TYPE_END
};
/* ERROR codes */
enum gr_err {
    GR_E_FRAMING = 1, /* bad magic, header size or length: the connection closes */
    GR_E_VERSION,     /* no common protocol version: closes */
    GR_E_AUTH,        /* wrong key, or a message before HELLO/AUTH: closes */
    GR_E_MALFORMED,   /* a payload that does not decode */
    GR_E_LIMIT,       /* a count, size or budget over the limits */
    GR_E_HASH,        /* PUT bytes whose hash is not the one claimed */
    GR_E_BUFFER,      /* an unknown or failed buffer, or a view outside it */
    GR_E_OP,          /* an op genie refused (its message says why) or whose result is not the one declared */
    GR_E_MEMORY,      /* the server is out of memory */
    GR_E_INDEX,       /* an index out of range in a RUN (its message is genie's, as the client's CPU gives it) */
    GR_E_TAPE,        /* a RUN_CACHED of a tape the connection does not hold: both sides forget every tape */
    GR_E_END
};

/* The ops a RUN may carry: X(id, arity min, arity max). The ids are genie's op
   names (GENIE__OP_<id> in genie.h); the wire code is the index in this list
   (stable: new ops go at the end). */
#define GR_OP_LIST(X)                                                                               \
    X(NEG, 1, 1) X(ABS, 1, 1) X(EXP, 1, 1) X(LOG, 1, 1) X(SQRT, 1, 1) X(RSQRT, 1, 1) X(SIN, 1, 1)      \
    X(COS, 1, 1) X(TANH, 1, 1) X(SIGMOID, 1, 1) X(RELU, 1, 1) X(GELU, 1, 1) X(GELU_TANH, 1, 1)          \
    X(SILU, 1, 1) X(RECIPROCAL, 1, 1) X(SQUARE, 1, 1) X(FLOOR, 1, 1) X(CEIL, 1, 1) X(ROUND, 1, 1)       \
    X(SIGN, 1, 1) X(ERF, 1, 1) X(LOG1P, 1, 1) X(EXPM1, 1, 1) X(LOGICAL_NOT, 1, 1) X(CLAMP, 1, 1)        \
    X(ADD, 1, 2) X(SUB, 1, 2) X(MUL, 1, 2) X(DIV, 1, 2) X(POW, 1, 2) X(MAXIMUM, 2, 2) X(MINIMUM, 2, 2) \
    X(EQ, 2, 2) X(NE, 2, 2) X(LT, 2, 2) X(LE, 2, 2) X(GT, 2, 2) X(GE, 2, 2) X(LOGICAL_AND, 2, 2)       \
    X(LOGICAL_OR, 2, 2) X(WHERE, 3, 3) X(SUM, 1, 1) X(MEAN, 1, 1) X(AMAX, 1, 1) X(AMIN, 1, 1)         \
    X(PROD, 1, 1) X(SOFTMAX, 1, 1) X(LOG_SOFTMAX, 1, 1) X(MATMUL, 2, 2) X(LINEAR, 2, 3)                \
    X(CONTIGUOUS, 1, 1) X(CLONE, 1, 1) X(TO, 1, 1) X(LAYER_NORM, 1, 3) X(RMS_NORM, 1, 2) X(SDPA, 3, 4)      \
    X(ROPE, 2, 2) X(EMBEDDING, 2, 2) X(RESHAPE_COPY, 1, 1) X(INDEX_COPY, 2, 2) X(COPY, 1, 1)           \
    X(CAT, 1, GR_MAX_IN) X(INDEX_SELECT, 2, 2) X(GATHER, 2, 2) X(ARGMAX, 1, 1) X(ARGMIN, 1, 1)         \
    X(MAX_DIM, 1, 1) X(MIN_DIM, 1, 1) X(MASKED_FILL, 2, 2) X(TRIL, 1, 1) X(TRIU, 1, 1) X(VAR, 1, 1)    \
    X(STD, 1, 1) X(LOGSUMEXP, 1, 1) X(CUMSUM, 1, 1) X(FULL, 0, 0) X(SCATTER, 3, 3) X(SCATTER_ADD, 3, 3)      \
    X(TOPK, 1, 1) X(SORT, 1, 1) X(CONV2D, 2, 3) X(FLIP, 1, 1) X(RAND, 0, 0) X(RANDN, 0, 0) X(ARANGE, 0, 0)             \
    X(QLINEAR, 2, 2)
/* In-place writes (flag 4): the op writes only the elements of its out view in its output
   buffer, which must hold the value it overwrites (the client's buffer of the old version);
   these ops exist only in place. */
#define GR_OP_INPLACE(op) ((op) == GR_OP_INDEX_COPY || (op) == GR_OP_COPY)
/* Ops whose sources may differ in dtype, promoted as genie does (0-dim sources count less). */
#define GR_OP_MIXED(op) ((op) >= GR_OP_ADD && (op) <= GR_OP_WHERE)
#define GR_OP_REDUCE(op) (((op) >= GR_OP_SUM && (op) <= GR_OP_PROD) || ((op) >= GR_OP_VAR && (op) <= GR_OP_LOGSUMEXP))
enum gr_opcode {
#define GR__X(id, lo, hi) GR_OP_##id,
    GR_OP_LIST(GR__X)
#undef GR__X
    GR_OP_COUNT
};
static const unsigned char gr_op_arity[][2] = {
#define GR__X(id, lo, hi) {lo, hi},
    GR_OP_LIST(GR__X)
#undef GR__X
};
static const char *const gr_op_names[] = {
#define GR__X(id, lo, hi) #id,
    GR_OP_LIST(GR__X)
#undef GR__X
};
#define GR_DTYPE_COUNT 10 /* genie's dtypes f32 .. bool, their enum values on the wire */
static const unsigned char gr_dtype_size[GR_DTYPE_COUNT] = {4, 8, 2, 2, 8, 4, 2, 1, 1, 1};
/* Block dtypes q8_0, q4_0, q4_k, q6_k (genie's enum values 10 .. 13, ggml's layouts), read from
   a buffer: always as source 1 of QLINEAR (its weight), and as an option as source 0 of
   EMBEDDING (rows of the weight, dequantized to f32) and of TO (dequantized to the result's
   dtype). A view of one counts elements; element e lies in block e / elems, at byte
   (e / elems) * bytes of its buffer. */
#define GR_DTYPE_BLOCK_END 14
#define GR_DT_BLOCK(dt) ((dt) >= GR_DTYPE_COUNT && (dt) < GR_DTYPE_BLOCK_END)
/* Whether source k of op may be of a block dtype (GR_OP_QLINEAR's weight must be). */
#define GR_BLOCK_SRC(op, k) (((op) == GR_OP_QLINEAR && (k) == 1) || (((op) == GR_OP_EMBEDDING || (op) == GR_OP_TO) && (k) == 0))
static const unsigned short gr_blk_elems[4] = {32, 32, 256, 256};
static const unsigned char gr_blk_bytes[4] = {34, 18, 144, 210};
/* The bytes of n elements of dtype dt (< GR_DTYPE_BLOCK_END): for a block dtype, its whole blocks. */
GR_FN uint64_t gr_dt_bytes(int dt, uint64_t n) {
    return GR_DT_BLOCK(dt) ? n / gr_blk_elems[dt - GR_DTYPE_COUNT] * gr_blk_bytes[dt - GR_DTYPE_COUNT] : n * gr_dtype_size[dt];
}

typedef struct gr_hdr {
    uint32_t magic;
    uint16_t version, type;
    uint64_t id, len;
} gr_hdr;

/* A view of a flat buffer in elements: element idx is at off + sum(idx[d] * strides[d]). */
typedef struct gr_view {
    int ndim;
    int64_t off, shape[GR_MAX_DIMS], strides[GR_MAX_DIMS];
} gr_view;
enum { GR_SRC_BUF = 0, GR_SRC_OP = 1 };
typedef struct gr_src {
    int kind;      /* GR_SRC_BUF: ref is a buffer id; GR_SRC_OP: ref is an earlier op's index */
    int dtype;     /* the source value's dtype (a buffer's elements are read as it) */
    uint64_t ref;
    gr_view v;     /* how the op reads it */
} gr_src;
typedef struct gr_op {
    int op, dtype;   /* gr_op; the result dtype the client expects */
    int cdt;         /* the compute dtype genie gave the client's node (elementwise ops: checked) */
    int zero;        /* bit k: source k is a 0-dim tensor to genie's promotion (one element read,
                        broadcast to the result's shape by its view): binary ops and where only */
    int has_scalar;  /* binary ops: a op f[0] */
    int written;     /* 1: the result goes to buffer out_buf (of out_cap bytes) laid out by out */
    int inplace;     /* 1 (written too): over the old value of out_buf, only out's elements */
    int dead;        /* 1 (written too): nothing after this RUN reads this value of out_buf (the
                        client's buffer is freed, idle in its cache, or written again later in the
                        RUN by an op not in place), so the server need not store it (flag 64) */
    int nin, role;   /* role: genie_role_id */
    int64_t i[6];
    double f[2];
    uint64_t out_buf, out_cap;
    gr_view out;     /* the result's shape and its layout in the output buffer */
    gr_src in[GR_MAX_IN];
    const char *module, *phase; /* not terminated: module_len, phase_len bytes inside the payload */
    uint32_t module_len, phase_len;
} gr_op;
typedef struct gr_run {
    uint32_t nops;
    gr_op *ops;       /* malloc'd by gr_run_decode: gr_run_free */
    uint32_t nslots;  /* the buffers the tape names by slot: ids[slot] (malloc'd; never 0) */
    uint64_t *ids;
    const uint8_t *tape; /* RUN: the tape's bytes inside the payload (its hash names it), tape_len */
    size_t tape_len;
} gr_run;

/* ---- reading: a cursor that turns bad at the first read past the end ---- */
typedef struct gr_rd {
    const uint8_t *p;
    size_t n, at;
    int bad;
} gr_rd;
GR_FN gr_rd gr_rd_init(const void *p, size_t n) {
    gr_rd r;
    r.p = (const uint8_t *)p;
    r.n = p ? n : 0;
    r.at = 0;
    r.bad = 0;
    return r;
}
static const uint8_t *gr_take(gr_rd *r, size_t k) {
    const uint8_t *q;
    if (r->bad || k > r->n - r->at) { r->bad = 1; return NULL; }
    q = r->p + r->at;
    r->at += k;
    return q;
}
GR_FN uint64_t gr_get_le(gr_rd *r, int k) {
    const uint8_t *q = gr_take(r, (size_t)k);
    uint64_t v = 0;
    int i;
    if (!q) return 0;
    for (i = k - 1; i >= 0; i--) v = v << 8 | q[i];
    return v;
}
GR_FN uint8_t gr_u8(gr_rd *r) { return (uint8_t)gr_get_le(r, 1); }
GR_FN uint16_t gr_u16(gr_rd *r) { return (uint16_t)gr_get_le(r, 2); }
GR_FN uint32_t gr_u32(gr_rd *r) { return (uint32_t)gr_get_le(r, 4); }
GR_FN uint64_t gr_u64(gr_rd *r) { return gr_get_le(r, 8); }
GR_FN int64_t gr_i64(gr_rd *r) {
    uint64_t u = gr_u64(r);
    int64_t v;
    memcpy(&v, &u, 8); /* two's complement: the bits as they are */
    return v;
}
GR_FN double gr_f64(gr_rd *r) {
    uint64_t u = gr_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
GR_FN size_t gr_left(const gr_rd *r) { return r->bad ? 0 : r->n - r->at; }

/* ---- writing: a growing buffer that turns oom at the first failed growth ---- */
typedef struct gr_wr {
    uint8_t *p;
    size_t n, cap;
    int oom;
} gr_wr;
GR_FN uint8_t *gr_room(gr_wr *w, size_t k) {
    if (w->oom) return NULL;
    if (k > w->cap - w->n) {
        size_t c = w->cap ? w->cap : 256;
        uint8_t *q;
        while (c - w->n < k) {
            if (c > (size_t)-1 / 2) { w->oom = 1; return NULL; }
            c *= 2;
        }
        if (!(q = (uint8_t *)realloc(w->p, c))) { w->oom = 1; return NULL; }
        w->p = q;
        w->cap = c;
    }
    w->n += k;
    return w->p + w->n - k;
}
GR_FN void gr_put_le(gr_wr *w, uint64_t v, int k) {
    uint8_t *q = gr_room(w, (size_t)k);
    int i;
    if (!q) return;
    for (i = 0; i < k; i++, v >>= 8) q[i] = (uint8_t)v;
}
GR_FN void gr_w8(gr_wr *w, unsigned v) { gr_put_le(w, v, 1); }
GR_FN void gr_w16(gr_wr *w, unsigned v) { gr_put_le(w, v, 2); }
GR_FN void gr_w32(gr_wr *w, uint32_t v) { gr_put_le(w, v, 4); }
GR_FN void gr_w64(gr_wr *w, uint64_t v) { gr_put_le(w, v, 8); }
GR_FN void gr_wi64(gr_wr *w, int64_t v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    gr_w64(w, u);
}
GR_FN void gr_wf64(gr_wr *w, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    gr_w64(w, u);
}
GR_FN void gr_wbytes(gr_wr *w, const void *p, size_t k) {
    uint8_t *q = gr_room(w, k);
    if (q && k) memcpy(q, p, k);
}
GR_FN void gr_put_u32_at(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
GR_FN void gr_put_u64_at(uint8_t *p, uint64_t v) {
    gr_put_u32_at(p, (uint32_t)v);
    gr_put_u32_at(p + 4, (uint32_t)(v >> 32));
}
GR_FN void gr_wr_free(gr_wr *w) {
    free(w->p);
    w->p = NULL;
    w->n = w->cap = 0;
    w->oom = 0;
}

/* ---- the header ---- */
GR_FN void gr_hdr_encode(uint8_t out[GR_HDR_BYTES], int type, uint64_t id, uint64_t len) {
    uint8_t *p;
    int i;
    uint64_t v[3];
    v[0] = (uint64_t)GR_MAGIC | (uint64_t)GR_VERSION << 32 | (uint64_t)(unsigned)type << 48;
    v[1] = id;
    v[2] = len;
    for (p = out, i = 0; i < 3; i++) {
        int k;
        for (k = 0; k < 8; k++) *p++ = (uint8_t)(v[i] >> (8 * k));
    }
}
/* 0 when the header is well formed for a payload of `have` bytes, else a gr_err
   (GR_E_FRAMING or GR_E_VERSION: the connection closes). */
GR_FN int gr_hdr_decode(const void *p, size_t n, size_t have, gr_hdr *h) {
    gr_rd r = gr_rd_init(p, n);
    memset(h, 0, sizeof *h);
    if (n != GR_HDR_BYTES) return GR_E_FRAMING;
    h->magic = gr_u32(&r);
    h->version = gr_u16(&r);
    h->type = gr_u16(&r);
    h->id = gr_u64(&r);
    h->len = gr_u64(&r);
    if (h->magic != GR_MAGIC || h->len != (uint64_t)have) return GR_E_FRAMING;
    if (h->version != GR_VERSION) return GR_E_VERSION;
    if (h->type < GR_HELLO || h->type >= GR_TYPE_END) return GR_E_FRAMING;
    return 0;
}

/* ---- views ---- */
/* The elements a view spans: 1 + the largest element it reads (0 when it has no
   element); -1 when a size, stride or offset is out of bounds. */
GR_FN int64_t gr_view_extent(const gr_view *v) {
    int64_t e = v->off;
    int d;
    if (v->ndim < 0 || v->ndim > GR_MAX_DIMS || v->off < 0 || v->off > GR_MAX_ELEMS) return -1;
    for (d = 0; d < v->ndim; d++)
        if (v->shape[d] < 0 || v->shape[d] > GR_MAX_ELEMS || v->strides[d] < 0 || v->strides[d] > GR_MAX_ELEMS) return -1;
    for (d = 0; d < v->ndim; d++)
        if (v->shape[d] == 0) return 0;
    for (d = 0; d < v->ndim; d++) { /* each term < 2^80 would overflow: bound it first */
        if (v->strides[d] && v->shape[d] - 1 > (GR_MAX_ELEMS * 4) / v->strides[d]) return -1;
        e += (v->shape[d] - 1) * v->strides[d];
        if (e > GR_MAX_ELEMS * 8) return -1;
    }
    return e + 1;
}
/* Whether view v of block dtype dt keeps whole blocks, as genie requires of a block tensor's
   views: one dim (the block dim) of unit stride and a multiple of the block in size, the offset
   and every other stride (of a dim longer than 1) multiples of the block; an empty view is fine.
   Its extent (gr_view_extent) is then whole blocks. */
GR_FN int gr_blk_view_ok(int dt, const gr_view *v) {
    const int64_t B = gr_blk_elems[dt - GR_DTYPE_COUNT];
    int d, c = -1;
    for (d = 0; d < v->ndim; d++)
        if (v->shape[d] == 0) return 1;
    if (v->off % B != 0) return 0;
    for (d = 0; d < v->ndim; d++) {
        if (v->shape[d] <= 1) continue;
        if (c < 0 && v->strides[d] == 1 && v->shape[d] % B == 0) c = d;
        else if (v->strides[d] % B != 0) return 0;
    }
    return c >= 0;
}
GR_FN int64_t gr_view_numel(const gr_view *v) {
    int64_t n = 1;
    int d;
    for (d = 0; d < v->ndim; d++) {
        if (v->shape[d] && n > GR_MAX_ELEMS / v->shape[d]) return -1;
        n *= v->shape[d];
    }
    return n;
}
/* 1 when the view reads at most one element, the one at its offset, however many it has (each
   dim of size 0 or 1, or of stride 0): a 0-dim tensor broadcast, to an empty shape too. */
GR_FN int gr_view_one(const gr_view *v) {
    int d;
    for (d = 0; d < v->ndim; d++)
        if (v->shape[d] > 1 && v->strides[d] != 0) return 0;
    return 1;
}
GR_FN void gr_view_encode(gr_wr *w, const gr_view *v) {
    int d;
    gr_w8(w, (unsigned)v->ndim);
    gr_wi64(w, v->off);
    for (d = 0; d < v->ndim; d++) gr_wi64(w, v->shape[d]);
    for (d = 0; d < v->ndim; d++) gr_wi64(w, v->strides[d]);
}
GR_FN int gr_view_decode(gr_rd *r, gr_view *v) {
    int d;
    memset(v, 0, sizeof *v);
    v->ndim = gr_u8(r);
    if (r->bad || v->ndim > GR_MAX_DIMS) return 0;
    v->off = gr_i64(r);
    for (d = 0; d < v->ndim; d++) v->shape[d] = gr_i64(r);
    for (d = 0; d < v->ndim; d++) v->strides[d] = gr_i64(r);
    return !r->bad && gr_view_extent(v) >= 0 && gr_view_numel(v) >= 0;
}

/* ---- RUN: u32 nops, then each op:
     u8 op, u8 dtype, u8 cdt, u8 flags (1 scalar, 2 written, 4 in place, 8 << k source k 0-dim
     (k < 3), 64 dead after this RUN), u8 nin, u8 role, 6 x i64, 2 x f64,
     [written: u64 out buffer id, u64 out cap] out view,
     nin x (u8 kind, u8 dtype, u64 ref, view),
     u16 module length, module, u16 phase length, phase ---- */
#define GR_OP_MIN_BYTES (6 + 48 + 16 + 9 + 4)
GR_FN void gr_op_encode(gr_wr *w, const gr_op *o) {
    int k;
    gr_w8(w, (unsigned)o->op);
    gr_w8(w, (unsigned)o->dtype);
    gr_w8(w, (unsigned)o->cdt);
    gr_w8(w, (unsigned)((o->has_scalar ? 1 : 0) | (o->written ? 2 : 0) | (o->inplace ? 4 : 0) | (o->zero & 7) << 3 | (o->dead ? 64 : 0)));
    gr_w8(w, (unsigned)o->nin);
    gr_w8(w, (unsigned)o->role);
    for (k = 0; k < 6; k++) gr_wi64(w, o->i[k]);
    gr_wf64(w, o->f[0]);
    gr_wf64(w, o->f[1]);
    if (o->written) {
        gr_w64(w, o->out_buf);
        gr_w64(w, o->out_cap);
    }
    gr_view_encode(w, &o->out);
    for (k = 0; k < o->nin; k++) {
        gr_w8(w, (unsigned)o->in[k].kind);
        gr_w8(w, (unsigned)o->in[k].dtype);
        gr_w64(w, o->in[k].ref);
        gr_view_encode(w, &o->in[k].v);
    }
    gr_w16(w, o->module_len);
    gr_wbytes(w, o->module, o->module_len);
    gr_w16(w, o->phase_len);
    gr_wbytes(w, o->phase, o->phase_len);
}
GR_FN void gr_run_free(gr_run *run) {
    free(run->ops);
    free(run->ids);
    run->ops = NULL;
    run->ids = NULL;
    run->nops = run->nslots = 0;
}
/* genie_arange's element count for dtype dt from start s to end e by step d, as genie computes
   it from the bounds it keeps (integer dtypes: s and d already whole, i64 truncating e; |e| below
   9.2e18): ceil((e - s) / d) in doubles, without libm. */
GR_FN double gr_arange_count(int dt, double s, double e, double d) {
    double q, t;
    if (dt == 4) e = (double)(int64_t)e;
    q = (e - s) / d;
    if (!(q < 4e15 && q > -4e15)) return q; /* whole already (or not finite) */
    t = (double)(int64_t)q;
    return t < q ? t + 1 : t;
}
/* The largest double below 9.2e18: the farthest end genie_arange takes for an integer dtype. */
#define GR_ARANGE_INT_MAX 9199999999999998976.0
/* An end e for which genie_arange(dt, s, e, d) counts exactly n elements (element i is s + i d):
   1 and *end, or 0 when no double end gives n. The count grows with e in the step's direction,
   so this is a binary search over the doubles (ordered as integers) between s and the farthest
   end genie takes; far from 0, where s + n d is inexact, it finds the end the client used. */
GR_FN int gr_arange_end(int dt, double s, double d, int64_t n, double *end) {
    const int whole = dt >= 4 && dt <= 8; /* the integer dtypes (bool has no arange) */
    double far = d > 0 ? (whole ? GR_ARANGE_INT_MAX : 1.7976931348623157e308) : (whole ? -GR_ARANGE_INT_MAX : -1.7976931348623157e308);
    uint64_t lo, hi, ks, kf;
    double c;
    *end = s;
    if (n == 0) return 1;
    if (n < 0 || (whole && !(s < GR_ARANGE_INT_MAX && s > -GR_ARANGE_INT_MAX))) return 0;
    memcpy(&ks, &s, 8); /* a double's bits as an integer key ordered like the doubles */
    memcpy(&kf, &far, 8);
    ks = ks >> 63 ? ~ks : ks | (uint64_t)1 << 63;
    kf = kf >> 63 ? ~kf : kf | (uint64_t)1 << 63;
    lo = ks < kf ? ks : kf;
    hi = ks < kf ? kf : ks;
    while (lo < hi) { /* the key nearest s (in the step's direction) whose count is at least n */
        uint64_t mid = lo + (hi - lo) / 2, k;
        double e;
        if (d < 0) mid = lo + (hi - lo + 1) / 2;
        k = mid >> 63 ? mid & ~((uint64_t)1 << 63) : ~mid;
        memcpy(&e, &k, 8);
        c = gr_arange_count(dt, s, e, d);
        if (d > 0) { if (c >= (double)n) hi = mid; else lo = mid + 1; }
        else { if (c >= (double)n) lo = mid; else hi = mid - 1; }
    }
    lo = lo >> 63 ? lo & ~((uint64_t)1 << 63) : ~lo;
    memcpy(end, &lo, 8);
    return gr_arange_count(dt, s, *end, d) == (double)n;
}
/* An op's own arguments against its declared views (axes, kept dims, index dtypes): NULL when
   they fit, else why. Shapes and dtypes beyond these are genie's to infer on the server. */
GR_FN const char *gr_op_args_bad(const gr_op *o) {
    int nd = o->out.ndim, in0 = o->nin ? o->in[0].v.ndim : 0, k;
    int64_t axis_n = in0 > 0 ? in0 : 1; /* dim 0 of a 0-dim source is allowed, as genie wraps it */
    switch (o->op) {
    case GR_OP_CAT:
        if (o->i[0] < 0 || o->i[0] >= nd) return "RUN: cat's dim outside the result's dims";
        for (k = 0; k < o->nin; k++)
            if (o->in[k].v.ndim != nd) return "RUN: a cat source of another rank than the result";
        return NULL;
    case GR_OP_INDEX_SELECT: case GR_OP_GATHER:
        if (o->i[0] < 0 || o->i[0] >= axis_n) return "RUN: index_select/gather's dim outside the source's dims";
        if (o->in[1].dtype != 4 && (o->op == GR_OP_GATHER || o->in[1].dtype != 5)) return "RUN: an index that is not i64 (or i32)";
        if (o->op == GR_OP_INDEX_SELECT && o->in[1].v.ndim > 1) return "RUN: an index_select index of more than 1 dim";
        return NULL;
    case GR_OP_ARGMAX: case GR_OP_ARGMIN: case GR_OP_MAX_DIM: case GR_OP_MIN_DIM:
        /* i[0] kept dims, the source laid out kept dims first; i[1] 1: indices (i64), 0: values */
        if (o->i[0] < 0 || o->i[0] > in0 || o->i[1] < 0 || o->i[1] > 1) return "RUN: bad kept dims or result kind of an arg-reduction";
        if (o->i[1] == 1 && o->dtype != 4) return "RUN: an arg-reduction's indices that are not i64";
        if ((o->op == GR_OP_ARGMAX || o->op == GR_OP_ARGMIN) && o->i[1] != 1) return "RUN: argmax/argmin give indices";
        if (in0 - o->i[0] > 1 && (o->i[0] != 0 || o->op == GR_OP_MAX_DIM || o->op == GR_OP_MIN_DIM))
            return "RUN: an arg-reduction over more than one dim but not all";
        return NULL;
    case GR_OP_MASKED_FILL:
        return o->in[1].dtype == 9 ? NULL : "RUN: a masked_fill mask that is not bool";
    case GR_OP_VAR: case GR_OP_STD:
        if (o->i[1] < -GR_MAX_ELEMS || o->i[1] > GR_MAX_ELEMS) return "RUN: a var/std correction out of bounds";
        /* fall through */
    case GR_OP_LOGSUMEXP:
        return o->i[0] < 0 || o->i[0] >= in0 ? "RUN: a reduction's kept dims outside its source" : NULL;
    case GR_OP_CUMSUM:
        return o->i[0] < 0 || o->i[0] >= (nd > 0 ? nd : 1) ? "RUN: cumsum's dim outside the result's dims" : NULL;
    case GR_OP_TRIL: case GR_OP_TRIU:
        return o->i[0] < -GR_MAX_ELEMS || o->i[0] > GR_MAX_ELEMS ? "RUN: a tril/triu diagonal out of bounds" : NULL;
    case GR_OP_SCATTER: case GR_OP_SCATTER_ADD:
        if (o->i[0] < 0 || o->i[0] >= axis_n) return "RUN: scatter's dim outside the source's dims";
        return o->in[1].dtype == 4 ? NULL : "RUN: a scatter index that is not i64";
    case GR_OP_TOPK: case GR_OP_SORT: /* i[0] the dim, i[1] descending (largest), i[2] k, i[3] 1: indices, 0: values */
        if (o->i[0] < 0 || o->i[0] >= axis_n) return "RUN: topk/sort's dim outside the source's dims";
        if (o->i[1] < 0 || o->i[1] > 1 || o->i[3] < 0 || o->i[3] > 1 || o->i[2] < 0 || o->i[2] > GR_MAX_ELEMS)
            return "RUN: bad order, k or result kind of topk/sort";
        return o->i[3] == 1 && o->dtype != 4 ? "RUN: topk/sort's indices that are not i64" : NULL;
    case GR_OP_CONV2D: /* i[0..1] stride, i[2..3] padding, i[4..5] dilation; x 4-D, w 4-D */
        for (k = 0; k < 6; k++)
            if (o->i[k] < (k / 2 == 1 ? 0 : 1) || o->i[k] > GR_MAX_ELEMS) return "RUN: a conv2d stride, padding or dilation out of bounds";
        return in0 == 4 && o->in[1].v.ndim == 4 ? NULL : "RUN: conv2d of other than 4-D input and weight";
    case GR_OP_ARANGE: { /* f[0] start, f[1] step (whole numbers for an integer dtype, as genie keeps them), the
                            result 1-D of n: element i is start + i step; the server asks genie for the range from
                            start to an end (gr_arange_end) from which it counts exactly n */
        double end;
        if (nd != 1 || o->f[0] - o->f[0] != 0 || o->f[1] - o->f[1] != 0 || o->f[1] == 0) return "RUN: arange of other than 1 dim, or a bad start or step";
        if (o->dtype >= 4 && o->dtype <= 8 && (!(o->f[0] < GR_ARANGE_INT_MAX && o->f[0] > -GR_ARANGE_INT_MAX) ||
                                               !(o->f[1] < GR_ARANGE_INT_MAX && o->f[1] > -GR_ARANGE_INT_MAX) ||
                                               (double)(int64_t)o->f[0] != o->f[0] || (double)(int64_t)o->f[1] != o->f[1]))
            return "RUN: an integer arange whose start or step is not a whole number inside int64";
        return gr_arange_end(o->dtype, o->f[0], o->f[1], o->out.shape[0], &end) ? NULL : "RUN: an arange no end of which gives its elements";
    }
    case GR_OP_QLINEAR: /* x [..., K] float, w [N, K] of a block dtype (its blocks along K: the server checks them) */
        return in0 >= 1 && o->in[1].v.ndim == 2 ? NULL : "RUN: a quantized linear of a 0-dim input or a weight not 2-D";
    case GR_OP_FLIP: /* i[0]: a bit for each flipped dim of the source */
        return o->i[0] < 0 || o->i[0] >= ((int64_t)1 << in0) ? "RUN: flip of dims the source lacks" : NULL;
    default: return NULL;
    }
}
/* u32 nslots, nslots x u64 id (each not 0) into run->ids; 0 or a gr_err */
GR_FN int gr_slots_decode(gr_rd *r, gr_run *run, char *why) {
    uint32_t i;
    run->nslots = gr_u32(r);
    if (r->bad) { strcpy(why, "RUN: truncated before its buffer count"); run->nslots = 0; return GR_E_MALFORMED; }
    if (run->nslots > GR_MAX_SLOTS) { strcpy(why, "RUN: more buffers than the limit"); run->nslots = 0; return GR_E_LIMIT; }
    if ((uint64_t)run->nslots * 8 > gr_left(r)) { strcpy(why, "RUN: fewer bytes than its buffer count needs"); run->nslots = 0; return GR_E_MALFORMED; }
    if (!(run->ids = (uint64_t *)malloc((size_t)(run->nslots ? run->nslots : 1) * 8))) { run->nslots = 0; strcpy(why, "RUN: out of memory"); return GR_E_MEMORY; }
    for (i = 0; i < run->nslots; i++)
        if ((run->ids[i] = gr_u64(r)) == 0) { strcpy(why, "RUN: buffer id 0"); gr_run_free(run); return GR_E_MALFORMED; }
    return 0;
}
/* Decodes and checks a RUN payload: 0, or GR_E_MALFORMED / GR_E_LIMIT / GR_E_MEMORY
   with why[] saying what (why has at least 128 bytes). Checked here: counts against
   the bytes present, op codes and arities, dtypes, dims, sizes, strides and offsets
   (gr_view_extent), an output's view inside its cap, buffer ids not 0, op sources
   earlier ops, string lengths, nothing after the last op. Not checked here (the
   server's state and genie decide): whether buffers exist, views against their
   bytes, shapes and dtypes against what genie infers. */
/* The tape of p (n bytes) with its buffer slots already in run (gr_slots_decode): on success
   every buffer reference (a source's ref, an output's out_buf) holds the slot's id. */
GR_FN int gr_tape_decode(const void *p, size_t n, gr_run *run, char *why) {
    gr_rd r = gr_rd_init(p, n);
    uint32_t i;
    int k;
    run->nops = 0;
    run->ops = NULL;
    why[0] = 0;
#define GR__BAD(code, text) do { strcpy(why, text); gr_run_free(run); return code; } while (0)
    run->nops = gr_u32(&r);
    if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN: truncated before its op count");
    if (run->nops > GR_MAX_OPS) { run->nops = 0; GR__BAD(GR_E_LIMIT, "RUN: more ops than the limit"); }
    if ((uint64_t)run->nops * GR_OP_MIN_BYTES > gr_left(&r)) { run->nops = 0; GR__BAD(GR_E_MALFORMED, "RUN: fewer bytes than its op count needs"); }
    if (run->nops && !(run->ops = (gr_op *)calloc(run->nops, sizeof(gr_op)))) { run->nops = 0; GR__BAD(GR_E_MEMORY, "RUN: out of memory"); }
    for (i = 0; i < run->nops; i++) {
        gr_op *o = &run->ops[i];
        int flags;
        int64_t ext;
        const uint8_t *s;
        const char *bad;
        o->op = gr_u8(&r);
        o->dtype = gr_u8(&r);
        o->cdt = gr_u8(&r);
        flags = gr_u8(&r);
        o->nin = gr_u8(&r);
        o->role = gr_u8(&r);
        for (k = 0; k < 6; k++) o->i[k] = gr_i64(&r);
        o->f[0] = gr_f64(&r);
        o->f[1] = gr_f64(&r);
        if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN: truncated op");
        if (o->op >= GR_OP_COUNT) GR__BAD(GR_E_MALFORMED, "RUN: unknown op code");
        if (o->dtype >= GR_DTYPE_COUNT) GR__BAD(GR_E_MALFORMED, "RUN: unknown dtype");
        if (o->cdt >= GR_DTYPE_COUNT) GR__BAD(GR_E_MALFORMED, "RUN: unknown compute dtype");
        if (flags & ~(GR_VERSION >= 11 ? 127 : 63)) GR__BAD(GR_E_MALFORMED, "RUN: unknown op flags"); /* 64: since 11 */
        if (o->role >= 16) GR__BAD(GR_E_MALFORMED, "RUN: unknown role");
        o->has_scalar = flags & 1;
        o->written = (flags >> 1) & 1;
        o->inplace = (flags >> 2) & 1;
        o->zero = (flags >> 3) & 7;
        o->dead = (flags >> 6) & 1;
        if (o->nin < gr_op_arity[o->op][0] || o->nin > gr_op_arity[o->op][1]) GR__BAD(GR_E_MALFORMED, "RUN: wrong number of sources for the op");
        if (o->zero && !GR_OP_MIXED(o->op)) GR__BAD(GR_E_MALFORMED, "RUN: a 0-dim source on an op that is not binary or where");
        if (o->zero >> o->nin /* nin <= GR_MAX_IN */) GR__BAD(GR_E_MALFORMED, "RUN: a 0-dim flag for a source the op lacks");
        if (o->has_scalar && (o->nin != 1 || o->op < GR_OP_ADD || o->op > GR_OP_POW)) GR__BAD(GR_E_MALFORMED, "RUN: a scalar on an op that takes none");
        if (!o->has_scalar && o->op >= GR_OP_ADD && o->op <= GR_OP_POW && o->nin != 2) GR__BAD(GR_E_MALFORMED, "RUN: a binary op with one source and no scalar");
        if ((GR_OP_INPLACE(o->op) || o->inplace) && !o->written) GR__BAD(GR_E_MALFORMED, "RUN: an in-place write to no buffer");
        if (o->dead && !o->written) GR__BAD(GR_E_MALFORMED, "RUN: a dead result (flag 64) of an op that writes no buffer");
        if (GR_OP_INPLACE(o->op) && !o->inplace) GR__BAD(GR_E_MALFORMED, "RUN: an op that writes in place without flag 4");
        if (o->written) {
            o->out_buf = gr_u64(&r);
            o->out_cap = gr_u64(&r);
            if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN: truncated output");
            if (o->out_buf >= run->nslots) GR__BAD(GR_E_MALFORMED, "RUN: an output slot past the buffer table");
            o->out_buf = run->ids[o->out_buf];
            if (o->out_cap > GR_MAX_BUF) GR__BAD(GR_E_LIMIT, "RUN: output buffer over the size limit");
        }
        if (!gr_view_decode(&r, &o->out)) GR__BAD(r.bad ? GR_E_MALFORMED : GR_E_LIMIT, "RUN: bad output view");
        ext = gr_view_extent(&o->out);
        if (o->written && (uint64_t)ext > o->out_cap / gr_dtype_size[o->dtype]) GR__BAD(GR_E_LIMIT, "RUN: output view outside its buffer");
        for (k = 0; k < o->nin; k++) {
            gr_src *src = &o->in[k];
            src->kind = gr_u8(&r);
            src->dtype = gr_u8(&r);
            src->ref = gr_u64(&r);
            if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN: truncated source");
            if (src->kind != GR_SRC_BUF && src->kind != GR_SRC_OP) GR__BAD(GR_E_MALFORMED, "RUN: unknown source kind");
            if (src->dtype >= GR_DTYPE_BLOCK_END) GR__BAD(GR_E_MALFORMED, "RUN: unknown source dtype");
            if ((GR_DT_BLOCK(src->dtype) && (!GR_BLOCK_SRC(o->op, k) || src->kind != GR_SRC_BUF)) ||
                (o->op == GR_OP_QLINEAR && k == 1 && !GR_DT_BLOCK(src->dtype)))
                GR__BAD(GR_E_MALFORMED, "RUN: a block dtype other than a buffer as a quantized linear's weight or an embedding's "
                                        "or to's source, or such a weight of another dtype");
            if (src->kind == GR_SRC_BUF && src->ref >= run->nslots) GR__BAD(GR_E_MALFORMED, "RUN: a source slot past the buffer table");
            if (src->kind == GR_SRC_BUF) src->ref = run->ids[src->ref];
            if (src->kind == GR_SRC_OP && src->ref >= i) GR__BAD(GR_E_MALFORMED, "RUN: a source that does not precede its op");
            if (src->kind == GR_SRC_OP && run->ops[src->ref].dtype != src->dtype) GR__BAD(GR_E_MALFORMED, "RUN: a source's dtype is not its op's");
            if (!gr_view_decode(&r, &src->v)) GR__BAD(r.bad ? GR_E_MALFORMED : GR_E_LIMIT, "RUN: bad source view");
            if ((o->zero >> k & 1) && !gr_view_one(&src->v)) GR__BAD(GR_E_MALFORMED, "RUN: a 0-dim source whose view reads more than one element");
        }
        if ((bad = gr_op_args_bad(o)) != NULL) GR__BAD(GR_E_MALFORMED, bad);
        o->module_len = gr_u16(&r);
        if (o->module_len > GR_MAX_STR) GR__BAD(GR_E_LIMIT, "RUN: module path over the limit");
        s = gr_take(&r, o->module_len);
        o->module = (const char *)s;
        o->phase_len = gr_u16(&r);
        if (o->phase_len > GR_MAX_STR) GR__BAD(GR_E_LIMIT, "RUN: phase over the limit");
        s = gr_take(&r, o->phase_len);
        o->phase = (const char *)s;
        if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN: truncated op");
    }
    if (gr_left(&r) != 0) GR__BAD(GR_E_MALFORMED, "RUN: bytes after the last op");
#undef GR__BAD
    return 0;
}
/* A RUN payload: the buffer table, then the tape (run->tape, tape_len: its bytes). */
GR_FN int gr_run_decode(const void *p, size_t n, gr_run *run, char *why) {
    gr_rd r = gr_rd_init(p, n);
    int rc;
    memset(run, 0, sizeof *run);
    why[0] = 0;
    if ((rc = gr_slots_decode(&r, run, why)) != 0) return rc;
    run->tape = r.p + r.at;
    run->tape_len = gr_left(&r);
    return gr_tape_decode(run->tape, run->tape_len, run, why);
}

/* ---- STATS_REPLY: u32 n (<= GR_MAX_STATS), n x row:
     u16 module length, module, u16 phase length, phase, u8 role, u64 nodes, flops, bytes, ns ---- */
typedef struct gr_stat {
    const char *module, *phase; /* not terminated: module_len, phase_len bytes (<= GR_MAX_STR) */
    uint32_t module_len, phase_len;
    int role;                   /* genie_role_id, < 16 */
    uint64_t nodes, flops, bytes, ns;
} gr_stat;
GR_FN void gr_stat_encode(gr_wr *w, const gr_stat *s) {
    gr_w16(w, s->module_len);
    gr_wbytes(w, s->module, s->module_len);
    gr_w16(w, s->phase_len);
    gr_wbytes(w, s->phase, s->phase_len);
    gr_w8(w, (unsigned)s->role);
    gr_w64(w, s->nodes);
    gr_w64(w, s->flops);
    gr_w64(w, s->bytes);
    gr_w64(w, s->ns);
}
/* One row at r: 1, or 0 when truncated or a length or role is out of bounds. */
GR_FN int gr_stat_decode(gr_rd *r, gr_stat *s) {
    memset(s, 0, sizeof *s);
    s->module_len = gr_u16(r);
    if (s->module_len > GR_MAX_STR) return 0;
    s->module = (const char *)gr_take(r, s->module_len);
    s->phase_len = gr_u16(r);
    if (s->phase_len > GR_MAX_STR) return 0;
    s->phase = (const char *)gr_take(r, s->phase_len);
    s->role = gr_u8(r);
    s->nodes = gr_u64(r);
    s->flops = gr_u64(r);
    s->bytes = gr_u64(r);
    s->ns = gr_u64(r);
    return !r->bad && s->role < 16;
}
/* The row count of a STATS_REPLY payload at r: its value, or -1 when over GR_MAX_STATS or
   more than the bytes left could hold (a row is 37 bytes at least). */
GR_FN int64_t gr_stats_count(gr_rd *r) {
    uint32_t n = gr_u32(r);
    if (r->bad || n > GR_MAX_STATS || (uint64_t)n * 37 > gr_left(r)) return -1;
    return n;
}

/* ---- HASHED: u64 id (not 0), hash[32]; exactly 40 bytes ---- */
#define GR_HASHED_BYTES 40
/* 1 when a PUT's hash field claims no hash (32 zero bytes: the server computes it and answers HASHED) */
GR_FN int gr_hash_unclaimed(const uint8_t *hash) {
    int k, any = 0;
    for (k = 0; k < GR_HASH_BYTES; k++) any |= hash[k];
    return !any;
}
GR_FN void gr_hashed_encode(uint8_t out[GR_HASHED_BYTES], uint64_t id, const uint8_t hash[GR_HASH_BYTES]) {
    gr_put_u64_at(out, id);
    memcpy(out + 8, hash, GR_HASH_BYTES);
}
/* 1 when p (n bytes) is a well-formed HASHED: its id and hash; else 0 */
GR_FN int gr_hashed_decode(const void *p, size_t n, uint64_t *id, uint8_t hash[GR_HASH_BYTES]) {
    gr_rd r = gr_rd_init(p, n);
    const uint8_t *h;
    *id = gr_u64(&r);
    h = gr_take(&r, GR_HASH_BYTES);
    if (r.bad || gr_left(&r) || *id == 0) return 0;
    memcpy(hash, h, GR_HASH_BYTES);
    return 1;
}

/* ---- CREDIT: u64 taken; exactly 8 bytes ---- */
#define GR_CREDIT_BYTES 8
/* 1 when p (n bytes) is a well-formed CREDIT for a client that has sent `sent` PUT payload bytes
   and was last told `taken` of them were taken: *out the new count (taken <= *out <= sent); else 0 */
GR_FN int gr_credit_decode(const void *p, size_t n, uint64_t taken, uint64_t sent, uint64_t *out) {
    gr_rd r = gr_rd_init(p, n);
    uint64_t v = gr_u64(&r);
    if (r.bad || gr_left(&r) || v < taken || v > sent) return 0;
    *out = v;
    return 1;
}

/* ---- WELCOME: u16 version, u8 key required, u8 0, u32 max ops, u64 max payload, challenge[32],
   u64 max run work (a RUN whose gr_run_cost is past it is refused), u64 put window (the PUT
   payload bytes a client may have sent and not seen taken: GR_CREDIT_EVERY above); exactly 64
   bytes ---- */
#define GR_WELCOME_BYTES 64
typedef struct gr_welcome {
    unsigned version, need_key;
    uint32_t max_ops;
    uint64_t max_payload, max_run_work, put_window;
    const uint8_t *challenge; /* GR_NONCE_BYTES inside the payload */
} gr_welcome;
/* 1 when p (n bytes) is a well-formed WELCOME of this protocol version (max run work and put window not 0) */
GR_FN int gr_welcome_decode(const void *p, size_t n, gr_welcome *w) {
    gr_rd r = gr_rd_init(p, n);
    w->version = gr_u16(&r);
    w->need_key = gr_u8(&r);
    gr_u8(&r);
    w->max_ops = gr_u32(&r);
    w->max_payload = gr_u64(&r);
    w->challenge = gr_take(&r, GR_NONCE_BYTES);
    w->max_run_work = gr_u64(&r);
    w->put_window = gr_u64(&r);
    return !r.bad && !gr_left(&r) && w->version == GR_VERSION && w->max_run_work != 0 && w->put_window != 0;
}

/* ---- a RUN's work: what --max-run-work caps, counted alike by the server (before it runs a
   RUN) and the client (which sends its RUN before the limit would be passed) ---- */
/* a * b and a + b, saturated at UINT64_MAX (a hostile tape's counts may overflow) */
GR_FN uint64_t gr_mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
GR_FN uint64_t gr_add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
/* An op's floating-point operations, counted as genie counts a node's (2 per multiply-add,
   one per element of elementwise work, 5 per element of softmax, 0 for copies, indexing
   and sorting). Views are decoded (each numel <= 2^40). */
GR_FN uint64_t gr_op_flops(const gr_op *o) {
    uint64_t out = (uint64_t)gr_view_numel(&o->out), in = o->nin ? (uint64_t)gr_view_numel(&o->in[0].v) : 0;
    const gr_view *a = &o->in[0].v;
    switch (o->op) {
    case GR_OP_MATMUL: case GR_OP_LINEAR: case GR_OP_QLINEAR:
        return gr_add_sat(a->ndim ? gr_mul_sat(2 * out, (uint64_t)a->shape[a->ndim - 1]) : 0, o->nin > 2 ? out : 0);
    case GR_OP_SUM: case GR_OP_MEAN: case GR_OP_AMAX: case GR_OP_AMIN: case GR_OP_PROD: return in;
    case GR_OP_SOFTMAX: case GR_OP_LOG_SOFTMAX: return 5 * in;
    case GR_OP_CONTIGUOUS: case GR_OP_CLONE: case GR_OP_TO: return 0;
    case GR_OP_ROPE: return 0;
    case GR_OP_VAR: case GR_OP_STD: case GR_OP_LOGSUMEXP: return in;
    case GR_OP_CAT: case GR_OP_INDEX_SELECT: case GR_OP_GATHER: case GR_OP_ARGMAX: case GR_OP_ARGMIN: case GR_OP_MAX_DIM:
    case GR_OP_MIN_DIM: case GR_OP_MASKED_FILL: case GR_OP_TRIL: case GR_OP_TRIU: case GR_OP_CUMSUM: case GR_OP_FULL:
    case GR_OP_EMBEDDING: case GR_OP_INDEX_COPY: case GR_OP_COPY: case GR_OP_RESHAPE_COPY: case GR_OP_SCATTER:
    case GR_OP_SCATTER_ADD: case GR_OP_TOPK: case GR_OP_SORT: case GR_OP_FLIP: case GR_OP_RAND: case GR_OP_RANDN:
    case GR_OP_ARANGE:
        return 0; /* no flops as genie counts them: their reads and writes are their cost (gr_op_cost) */
    case GR_OP_CONV2D: { /* 2 per multiply-add: out x (C / groups) x kh x kw */
        const gr_view *w = &o->in[1].v;
        uint64_t k = 1;
        int d;
        for (d = 1; d < w->ndim; d++) k = gr_mul_sat(k, (uint64_t)w->shape[d]);
        return gr_mul_sat(2 * out, k);
    }
    case GR_OP_LAYER_NORM: case GR_OP_RMS_NORM: return 8 * in;
    case GR_OP_SDPA: { /* q k^T and p v: 2 * L * S * (E + Ev) per batch and head; softmax aside */
        const gr_view *k = &o->in[1].v;
        return k->ndim ? gr_mul_sat(2 * (in + out), (uint64_t)k->shape[k->ndim - 2]) : 0;
    }
    default: return out;
    }
}
/* An op's work: its flops plus GR_ELEM_WORK for each element it writes and each element of
   each source view it reads (a stride-0 view's whole span: a broadcast costs what it spans,
   so argmax, sort or a reduction over a view of one element count every read), saturated.
   An element moved or reduced one at a time through a strided or broadcast view costs a core
   about 4-8 ns, what ~256 flops of a packed product cost. */
#define GR_ELEM_WORK 256
GR_FN uint64_t gr_op_cost(const gr_op *o) {
    uint64_t el = (uint64_t)gr_view_numel(&o->out);
    int k;
    for (k = 0; k < o->nin && k < GR_MAX_IN; k++) el += (uint64_t)gr_view_numel(&o->in[k].v); /* 9 x 2^40 at most */
    return gr_add_sat(gr_op_flops(o), gr_mul_sat(el, GR_ELEM_WORK));
}
/* A decoded RUN's work: its ops' gr_op_cost, summed and saturated. */
GR_FN uint64_t gr_run_cost(const gr_run *run) {
    uint64_t w = 0;
    uint32_t i;
    for (i = 0; i < run->nops; i++) w = gr_add_sat(w, gr_op_cost(&run->ops[i]));
    return w;
}

/* ---- the other messages a server receives: gr_msg_decode ---- */
typedef struct gr_msg {
    int type;
    unsigned vmin, vmax;               /* HELLO */
    const uint8_t *nonce, *mac, *hash; /* HELLO's nonce, AUTH's mac, HAS/PUT's hash: 32 bytes in the payload */
    uint64_t buf, cap, bytes, lo, hi;  /* HAS, PUT, GET; PUT_PART: lo its offset */
    const uint8_t *data;               /* PUT, PUT_PART: `bytes` bytes */
    uint32_t nfree;                    /* FREE: ids at data, 8 bytes each (gr_free_id) */
    gr_run run;                        /* RUN (gr_run_free) */
    uint32_t ninline;                  /* RUN_CACHED(_GET): inputs inline, at inl (inl_len bytes: gr_inline_next) */
    const uint8_t *inl;
    size_t inl_len;
} gr_msg;
/* The inputs inline after a RUN_CACHED's buffer table (what: the message's name): none when no
   bytes are left, else u32 n (<= GR_MAX_SLOTS), n x (u64 buffer id (not 0), u32 len (<=
   GR_MAX_INLINE), len bytes), and nothing after. Each is the buffer's new bytes, as a PUT of them
   just before the message would give it. 0, or a gr_err with why[]. */
GR_FN int gr_inline_decode(gr_rd *r, gr_msg *m, const char *what, char *why) {
    uint32_t k;
    if (!gr_left(r)) return 0;
    m->ninline = gr_u32(r);
    if (r->bad) { snprintf(why, 128, "%s: truncated inline input count", what); return GR_E_MALFORMED; }
    if (m->ninline > GR_MAX_SLOTS) { snprintf(why, 128, "%s: more inline inputs than the limit", what); return GR_E_LIMIT; }
    m->inl = r->p + r->at;
    for (k = 0; k < m->ninline; k++) {
        uint64_t id = gr_u64(r);
        uint32_t len = gr_u32(r);
        if (r->bad) { snprintf(why, 128, "%s: a truncated inline input", what); return GR_E_MALFORMED; }
        if (id == 0) { snprintf(why, 128, "%s: an inline input to buffer id 0", what); return GR_E_MALFORMED; }
        if (len > GR_MAX_INLINE) { snprintf(why, 128, "%s: an inline input over %u bytes", what, (unsigned)GR_MAX_INLINE); return GR_E_LIMIT; }
        if (!gr_take(r, len) && len) { snprintf(why, 128, "%s: an inline input's bytes truncated", what); return GR_E_MALFORMED; }
    }
    m->inl_len = (size_t)(r->p + r->at - m->inl);
    if (gr_left(r)) { snprintf(why, 128, "%s: bytes after its inline inputs", what); return GR_E_MALFORMED; }
    return 0;
}
/* The next input of a section gr_inline_decode accepted (r over m->inl, m->inl_len) */
GR_FN void gr_inline_next(gr_rd *r, uint64_t *id, const uint8_t **p, uint32_t *len) {
    *id = gr_u64(r);
    *len = gr_u32(r);
    *p = gr_take(r, *len);
}
GR_FN uint64_t gr_free_id(const gr_msg *m, uint32_t k) {
    gr_rd r = gr_rd_init(m->data + (size_t)k * 8, 8);
    return gr_u64(&r);
}
/* Decodes a client's payload of the given type: 0, or a gr_err with why[] (128 bytes at
   least). Every field is checked for what the message itself says (sizes, ids, lengths);
   the server's state checks the rest. */
GR_FN int gr_msg_decode(int type, const void *p, size_t n, gr_msg *m, char *why) {
    gr_rd r = gr_rd_init(p, n);
    memset(m, 0, sizeof *m);
    m->type = type;
    why[0] = 0;
#define GR__BAD(code, text) do { strcpy(why, text); return code; } while (0)
    switch (type) {
    case GR_HELLO:
        m->vmin = gr_u16(&r);
        m->vmax = gr_u16(&r);
        m->nonce = gr_take(&r, GR_NONCE_BYTES);
        if (r.bad || gr_left(&r)) GR__BAD(GR_E_MALFORMED, "HELLO: not 36 bytes");
        if (m->vmin > m->vmax) GR__BAD(GR_E_MALFORMED, "HELLO: version range reversed");
        return 0;
    case GR_AUTH:
        m->mac = gr_take(&r, 32);
        if (r.bad || gr_left(&r)) GR__BAD(GR_E_MALFORMED, "AUTH: not 32 bytes");
        return 0;
    case GR_HAS:
        m->buf = gr_u64(&r);
        m->cap = gr_u64(&r);
        m->bytes = gr_u64(&r);
        m->hash = gr_take(&r, GR_HASH_BYTES);
        if (r.bad || gr_left(&r)) GR__BAD(GR_E_MALFORMED, "HAS: not 56 bytes");
        break;
    case GR_PUT:
        m->buf = gr_u64(&r);
        m->cap = gr_u64(&r);
        m->hash = gr_take(&r, GR_HASH_BYTES);
        if (r.bad) GR__BAD(GR_E_MALFORMED, "PUT: truncated before its bytes");
        m->bytes = gr_left(&r);
        m->data = gr_take(&r, (size_t)m->bytes);
        break;
    case GR_PUT_PART: /* whole leaves at a leaf boundary, inside the cap */
        m->buf = gr_u64(&r);
        m->cap = gr_u64(&r);
        m->lo = gr_u64(&r);
        if (r.bad) GR__BAD(GR_E_MALFORMED, "PUT_PART: truncated before its bytes");
        m->bytes = gr_left(&r);
        m->data = gr_take(&r, (size_t)m->bytes);
        if (m->bytes == 0 || m->bytes % GR_LEAF_BYTES || m->lo % GR_LEAF_BYTES)
            GR__BAD(GR_E_MALFORMED, "PUT_PART: not whole leaves at a leaf boundary");
        if (m->cap > GR_MAX_BUF || m->lo > m->cap || m->bytes > m->cap - m->lo) GR__BAD(GR_E_LIMIT, "PUT_PART: bytes past the buffer's cap or the size limit");
        if (m->buf == 0) GR__BAD(GR_E_MALFORMED, "PUT_PART: buffer id 0");
        return 0;
    case GR_GET:
        m->buf = gr_u64(&r);
        m->lo = gr_u64(&r);
        m->hi = gr_u64(&r);
        if (r.bad || gr_left(&r)) GR__BAD(GR_E_MALFORMED, "GET: not 24 bytes");
        if (m->buf == 0) GR__BAD(GR_E_MALFORMED, "GET: buffer id 0");
        if (m->lo > m->hi || m->hi > GR_MAX_BUF) GR__BAD(GR_E_LIMIT, "GET: a range out of order or over the size limit");
        return 0;
    case GR_FREE:
        m->nfree = gr_u32(&r);
        if (r.bad) GR__BAD(GR_E_MALFORMED, "FREE: truncated");
        if (m->nfree > GR_MAX_FREE) GR__BAD(GR_E_LIMIT, "FREE: more ids than the limit");
        if (gr_left(&r) != (size_t)m->nfree * 8) GR__BAD(GR_E_MALFORMED, "FREE: not 8 bytes an id");
        m->data = gr_take(&r, (size_t)m->nfree * 8);
        return 0;
    case GR_RUN:
        return gr_run_decode(p, n, &m->run, why);
    case GR_RUN_CACHED: { /* the tape comes from the connection's cache: gr_tape_decode */
        int rc;
        m->hash = gr_take(&r, GR_HASH_BYTES);
        if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN_CACHED: truncated hash");
        if ((rc = gr_slots_decode(&r, &m->run, why)) != 0) return rc;
        if ((rc = gr_inline_decode(&r, m, "RUN_CACHED", why)) != 0) gr_run_free(&m->run);
        return rc;
    }
    case GR_RUN_CACHED_GET: { /* RUN_CACHED's fields around GET's */
        int rc;
        m->hash = gr_take(&r, GR_HASH_BYTES);
        m->buf = gr_u64(&r);
        m->lo = gr_u64(&r);
        m->hi = gr_u64(&r);
        if (r.bad) GR__BAD(GR_E_MALFORMED, "RUN_CACHED_GET: truncated before its buffer table");
        if (m->buf == 0) GR__BAD(GR_E_MALFORMED, "RUN_CACHED_GET: buffer id 0");
        if (m->lo > m->hi || m->hi > GR_MAX_BUF) GR__BAD(GR_E_LIMIT, "RUN_CACHED_GET: a range out of order or over the size limit");
        if ((rc = gr_slots_decode(&r, &m->run, why)) != 0) return rc;
        if ((rc = gr_inline_decode(&r, m, "RUN_CACHED_GET", why)) != 0) gr_run_free(&m->run);
        return rc;
    }
    case GR_BYE: case GR_PING: case GR_STATS:
        if (n) GR__BAD(GR_E_MALFORMED, "BYE/PING/STATS: a payload");
        return 0;
    default:
        GR__BAD(GR_E_MALFORMED, "a message type clients do not send");
    }
    /* HAS, PUT */
    if (m->buf == 0) GR__BAD(GR_E_MALFORMED, "HAS/PUT: buffer id 0");
    if (m->cap > GR_MAX_BUF || m->bytes > m->cap) GR__BAD(GR_E_LIMIT, "HAS/PUT: bytes over the buffer's cap or the size limit");
    return 0;
#undef GR__BAD
}
#endif /* GENIE_REMOTE_PROTO_H */
