/* fuzz_remote.c - libFuzzer harness for the remote protocol's decoders
   (genie_remote_proto.h): the header, every message a server decodes, RUN's tapes,
   and the WELCOME, HASHED, CREDIT and STATS_REPLY a client decodes. Input: byte 0 picks the
   message type, the rest is the payload; the first 24 bytes are also decoded as a header. Contracts checked on what decodes: every
   view's extent is in bounds, an op's sources precede it, an output's view fits
   its cap, a dead result (flag 64) is only a written one, a block dtype is only a buffer as a quantized linear's weight (which must
   be one) or an embedding's or to's source, and a RUN
   re-encodes to the same ops. A broken contract aborts.
   `make test` replays tests/fuzz/corpus_remote and regressions_remote through
   build/fuzz_remote_replay (no libFuzzer needed). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "genie_remote_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fr_check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_remote: contract broken: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char why[256];
    gr_msg m;
    gr_hdr h;
    int type, rc;
    uint32_t i;
    if (size >= GR_HDR_BYTES) {
        rc = gr_hdr_decode(data, GR_HDR_BYTES, size - GR_HDR_BYTES, &h);
        fr_check(rc == 0 || rc == GR_E_FRAMING || rc == GR_E_VERSION, "header: unknown result");
        if (rc == 0) fr_check(h.type >= GR_HELLO && h.type < GR_TYPE_END && h.len == size - GR_HDR_BYTES, "header: accepted out of range");
    }
    if (size < 1) return 0;
    type = data[0] % (GR_TYPE_END + 1);
    if (type == GR_STATS_REPLY) { /* a client decodes it: every row inside the payload, bounded */
        gr_rd r = gr_rd_init(data + 1, size - 1);
        int64_t n = gr_stats_count(&r), k;
        gr_stat st;
        fr_check(n <= GR_MAX_STATS, "STATS_REPLY: row count");
        for (k = 0; k < n && gr_stat_decode(&r, &st); k++)
            fr_check(st.module_len <= GR_MAX_STR && st.phase_len <= GR_MAX_STR && st.role < 16 &&
                         (!st.module_len || (st.module >= (const char *)data && st.module + st.module_len <= (const char *)data + size)) &&
                         (!st.phase_len || (st.phase >= (const char *)data && st.phase + st.phase_len <= (const char *)data + size)),
                     "STATS_REPLY: a row outside its payload");
    }
    if (type == GR_HASHED) { /* a client decodes it: 40 bytes exactly, an id not 0 */
        uint64_t id = 0;
        uint8_t hash[GR_HASH_BYTES];
        int ok = gr_hashed_decode(data + 1, size - 1, &id, hash);
        fr_check(ok == (size - 1 == GR_HASHED_BYTES && id != 0), "HASHED: accepted other than 40 bytes with an id");
        fr_check(!ok || memcmp(hash, data + 9, GR_HASH_BYTES) == 0, "HASHED: the hash is not the payload's");
    }
    if (type == GR_WELCOME) { /* a client decodes it: 64 bytes exactly, this version, a run-work limit and a window not 0 */
        gr_welcome w;
        int ok = gr_welcome_decode(data + 1, size - 1, &w);
        fr_check(!ok || (size - 1 == GR_WELCOME_BYTES && w.version == GR_VERSION && w.max_run_work != 0 && w.put_window != 0 &&
                         w.challenge == data + 1 + 16),
                 "WELCOME: accepted other than 64 bytes of this version with a run-work limit and a window");
    }
    if (type == GR_CREDIT && size >= 17) { /* a client decodes it against its own counts (the payload's
                                              first 16 bytes: taken and sent, then the CREDIT): 8 bytes
                                              exactly, taken <= the count <= sent, nothing changed otherwise */
        gr_rd c = gr_rd_init(data + 1, 16);
        uint64_t taken = gr_u64(&c), sent = gr_u64(&c), out = 12345;
        int ok = gr_credit_decode(data + 17, size - 17, taken, sent, &out);
        fr_check(ok ? size - 17 == GR_CREDIT_BYTES && out >= taken && out <= sent : out == 12345,
                 "CREDIT: accepted other than 8 bytes inside [taken, sent], or a count changed by a refused one");
    }
    rc = gr_msg_decode(type, data + 1, size - 1, &m, why);
    fr_check(rc >= 0 && rc < GR_E_END, "decode: unknown result");
    fr_check(rc == 0 || why[0] != 0, "decode: an error without a reason");
    if (rc != 0) {
        fr_check(m.run.ops == NULL && m.run.ids == NULL, "decode: ops or ids kept after an error");
        return 0;
    }
    if (type == GR_HAS || type == GR_PUT) fr_check(m.buf != 0 && m.bytes <= m.cap && m.cap <= GR_MAX_BUF, "HAS/PUT: bounds");
    if (type == GR_PUT) fr_check(m.bytes == size - 1 - 48, "PUT: byte count");
    if (type == GR_GET || type == GR_RUN_CACHED_GET) fr_check(m.buf != 0 && m.lo <= m.hi && m.hi <= GR_MAX_BUF, "GET: range");
    if (type == GR_PUT_PART)
        fr_check(m.buf != 0 && m.bytes > 0 && m.bytes % GR_LEAF_BYTES == 0 && m.lo % GR_LEAF_BYTES == 0 && m.cap <= GR_MAX_BUF &&
                     m.lo <= m.cap && m.bytes <= m.cap - m.lo && m.bytes == size - 1 - 24,
                 "PUT_PART: whole leaves inside the cap");
    if (type == GR_FREE) {
        uint64_t sum = 0;
        for (i = 0; i < m.nfree; i++) sum += gr_free_id(&m, i); /* every id readable */
        (void)sum;
    }
    if (type == GR_RUN) { /* re-encoded (ids back to their first slot), it decodes to the same ops */
        gr_wr w;
        gr_run again;
        uint32_t k2;
        memset(&w, 0, sizeof w);
        gr_w32(&w, m.run.nslots);
        for (i = 0; i < m.run.nslots; i++) gr_w64(&w, m.run.ids[i]);
        gr_w32(&w, m.run.nops);
        for (i = 0; i < m.run.nops; i++) {
            gr_op o = m.run.ops[i];
            int k;
            int64_t e = gr_view_extent(&o.out);
            fr_check(e >= 0 && gr_view_numel(&o.out) >= 0, "RUN: output view out of bounds");
            fr_check(!o.written || (o.out_buf && (uint64_t)e * gr_dtype_size[o.dtype] <= o.out_cap), "RUN: output outside its cap");
            fr_check(!o.dead || o.written, "RUN: a dead result (flag 64) of an op that writes no buffer");
            fr_check(o.nin >= gr_op_arity[o.op][0] && o.nin <= gr_op_arity[o.op][1], "RUN: arity");
            for (k = 0; k < o.nin; k++) {
                fr_check(gr_view_extent(&o.in[k].v) >= 0, "RUN: source view out of bounds");
                fr_check(o.in[k].dtype < GR_DTYPE_COUNT || (GR_DT_BLOCK(o.in[k].dtype) && GR_BLOCK_SRC(o.op, k) && o.in[k].kind == GR_SRC_BUF),
                         "RUN: a block dtype other than a buffer as a quantized linear's weight or an embedding's or to's source");
                fr_check(!(o.op == GR_OP_QLINEAR && k == 1) || GR_DT_BLOCK(o.in[k].dtype), "RUN: a quantized linear's weight not of a block dtype");
                fr_check(o.in[k].kind == GR_SRC_BUF ? o.in[k].ref != 0 : o.in[k].ref < i, "RUN: source reference");
                if (o.in[k].kind == GR_SRC_BUF) {
                    for (k2 = 0; m.run.ids[k2] != o.in[k].ref; k2++) {}
                    o.in[k].ref = k2;
                }
            }
            if (o.written) {
                for (k2 = 0; m.run.ids[k2] != o.out_buf; k2++) {}
                o.out_buf = k2;
            }
            gr_op_encode(&w, &o);
        }
        fr_check(!w.oom, "RUN: re-encode out of memory");
        fr_check(gr_run_decode(w.p, w.n, &again, why) == 0 && again.nops == m.run.nops, "RUN: re-encoded bytes do not decode");
        for (i = 0; i < m.run.nops; i++) {
            const gr_op *a = &m.run.ops[i], *b = &again.ops[i];
            fr_check(a->op == b->op && a->out_buf == b->out_buf && a->dead == b->dead && a->nin == b->nin && (a->nin < 1 || a->in[0].ref == b->in[0].ref) &&
                         memcmp(&a->out, &b->out, sizeof a->out) == 0,
                     "RUN: re-encoded ops differ");
        }
        gr_run_free(&again);
        gr_wr_free(&w);
    }
    if (type == GR_RUN_CACHED || type == GR_RUN_CACHED_GET) { /* each input inline inside the payload, bounded */
        gr_rd r = gr_rd_init(m.inl, m.inl_len);
        fr_check(m.ninline <= GR_MAX_SLOTS && (!m.ninline || (m.inl >= data + 1 && m.inl + m.inl_len <= data + size)), "inline: section");
        for (i = 0; i < m.ninline; i++) {
            uint64_t id;
            uint32_t len;
            const uint8_t *p;
            gr_inline_next(&r, &id, &p, &len);
            fr_check(!r.bad && id != 0 && len <= GR_MAX_INLINE && (!len || (p >= m.inl && p + len <= m.inl + m.inl_len)), "inline: an input");
        }
        fr_check(gr_left(&r) == 0, "inline: bytes left after the inputs");
    }
    if (type == GR_RUN || type == GR_RUN_CACHED || type == GR_RUN_CACHED_GET) {
        fr_check(m.run.nslots <= GR_MAX_SLOTS, "RUN: slot count");
        for (i = 0; i < m.run.nslots; i++) fr_check(m.run.ids[i] != 0, "RUN: buffer id 0");
        gr_run_free(&m.run);
    }
    return 0;
}

#ifdef FUZZ_REMOTE_REPLAY
/* replay: runs the harness on each file named (no libFuzzer) */
int main(int argc, char **argv) {
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        static uint8_t buf[1 << 16];
        size_t len;
        if (!f) { printf("FAIL cannot open %s\n", argv[i]); return 1; }
        len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        n++;
    }
    if (n == 0) { printf("FAIL fuzz_remote replay: no inputs\n"); return 1; }
    printf("  fuzz_remote replay: %d inputs ran clean\n", n);
    return 0;
}
#endif
