/* test_remote.c - the remote backend (genie_remote.c) against build/genie-server
 * forked on 127.0.0.1 with port 0 (run with UCX_TLS=tcp UCX_NET_DEVICES=lo; `make
 * test-remote`). Links build/genie_remote.o like an application.
 *   codec        RUN encode/decode round trip; forward sources, huge counts, views
 *                past their bounds, truncation refused
 *   props        tests/data/props_*.txt on "remote" (prog.c's PyTorch expectations)
 *   identical    random programs: remote bytes == local bytes
 *   weights      10 MLP steps: the weights cross once (byte counters); a second
 *                client of the same server uploads nothing (HAS)
 *   slice        a slice and an item bring back only their bytes
 *   hostile      a raw client: wrong version, framing, oversized payload, wrong key,
 *                bad hash, forward source, huge counts, truncation: each an ERROR,
 *                and the server keeps serving (PING, and a genie client)
 *   parts        the tree hash on 1 and 4 threads; a tensor over 2 MiB goes as PUT_PARTs
 *                and a PUT, equal to local, found by a second client (HAS); parts out
 *                of order, a wrong hash after parts, a message over --queue-mb: each
 *                an ERROR, and the connection goes on
 *   flow         uploads sent first, several times --queue-mb 8, behind RUNs on the pool:
 *                remote == local; the WELCOME's window and one CREDIT per part; a stopped
 *                server killed while an upload waits for credit: GENIE_ERR_BACKEND at once
 *   faults       kill -9 of the server mid-run: GENIE_ERR_BACKEND within ~1 s, then
 *                the same step on the local CPU; a client killed mid-run; two
 *                clients at once
 *   concurrent   two clients' long RUNs released at once: both right, and the server
 *                ran them at the same time (its "at most 2 RUNs at once" line); with
 *                --run-threads 0 on its loop
 *   inline       small RUNs (under --inline-work) on the server's loop, a big one on its
 *                pool, and a small RUN after it reads its result
 *   backend      --backend cuda: a clear refusal, exit 1 (build/genie-server: not built
 *                with cuda; build/genie-server-cuda without a GPU: why), or on a GPU a
 *                server whose results equal local; --backend cpu on the CUDA build serves;
 *                --backend gpu: a usage error, exit 2 */
#define _POSIX_C_SOURCE 200809L
#include "genie.h"
#include "genie_remote.h"
#include "tests/programs/prog.h"
#include "tests/programs/llama_decode.h"
#include <math.h>
#include <sodium.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "genie_remote_ucx.h"

static int passed, failed;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) passed++;                                                \
        else {                                                             \
            failed++;                                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

/* ---- the server (GENIE_SERVER_BIN, default build/genie-server) ---- */
static const char *server_bin_override; /* a test's other server binary, else NULL */
static const char *server_bin(void) {
    const char *b = getenv("GENIE_SERVER_BIN");
    if (server_bin_override) return server_bin_override;
    return b && *b ? b : "build/genie-server";
}
typedef struct server { pid_t pid; int port; char addr[64], log[256]; } server;
/* A server with the extra arguments `extra` (NULL-terminated, at most 8) after the usual ones. */
static int server_startv(server *s, const char *const *extra, const char *tag) {
    char pf[256];
    int i;
    snprintf(pf, sizeof pf, "build/remote_test_%s.port", tag);
    snprintf(s->log, sizeof s->log, "build/remote_test_%s.log", tag);
    unlink(pf);
    fflush(stdout);
    s->pid = fork();
    if (s->pid == 0) {
        const char *argv[8 + 16] = {"genie-server", "--listen", "127.0.0.1:0", "--port-file", pf, "--threads", "1"};
        int n = 7, k;
        FILE *f = freopen(s->log, "w", stdout);
        (void)f;
        dup2(fileno(stdout), 2);
        for (k = 0; extra && extra[k] && k < 8; k++) argv[n++] = extra[k];
        argv[n] = NULL;
        execv(server_bin(), (char *const *)argv);
        _exit(127);
    }
    for (i = 0; i < 400; i++) { /* up to 20 s */
        FILE *f = fopen(pf, "r");
        if (f) {
            int ok = fscanf(f, "%d", &s->port) == 1;
            fclose(f);
            if (ok && s->port > 0) {
                snprintf(s->addr, sizeof s->addr, "127.0.0.1:%d", s->port);
                return 0;
            }
        }
        {
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
        }
    }
    return -1;
}
static int server_start4(server *s, const char *extra1, const char *extra2, const char *extra3, const char *extra4, const char *tag) {
    const char *extra[5] = {extra1, extra2, extra3, extra4, NULL};
    if (!(extra1 && extra2)) extra[0] = NULL;
    else if (!(extra3 && extra4)) extra[2] = NULL;
    return server_startv(s, extra, tag);
}
static int server_start(server *s, const char *extra1, const char *extra2, const char *tag) {
    return server_start4(s, extra1, extra2, NULL, NULL, tag);
}
static int server_stop(server *s) {
    int st = 0;
    if (s->pid <= 0) return -1;
    kill(s->pid, SIGTERM);
    waitpid(s->pid, &st, 0);
    s->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
static int log_count(const server *s, const char *what) {
    FILE *f = fopen(s->log, "r");
    char line[1024];
    int n = 0;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) n += strstr(line, what) != NULL;
    fclose(f);
    return n;
}

/* Stops s, which must exit 0 on SIGTERM, and counts `line` in its log: `times` wanted. */
static void server_done(server *s, const char *what, const char *line, int times) {
    int n;
    CHECK(server_stop(s) == 0, "%s: the server exits 0 on SIGTERM", what);
    n = log_count(s, line);
    CHECK(n == times, "%s: \"%s\" %d times in %s (want %d)", what, line, n, s->log, times);
}

static genie_ctx *remote_ctx(const char *addr) {
    genie_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    d.backend = "remote";
    d.backend_config = addr;
    return genie_ctx_create(&d);
}
static genie_ctx *local_ctx(void) {
    genie_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    return genie_ctx_create(&d);
}

/* ---- codec ---- */
/* a RUN's buffer table: n (0-2) ids */
static void w_slots(gr_wr *w, uint32_t n, uint64_t a, uint64_t b) {
    gr_w32(w, n);
    if (n > 0) gr_w64(w, a);
    if (n > 1) gr_w64(w, b);
}
static void put_view(gr_view *v, int nd, const int64_t *shape, const int64_t *st, int64_t off) {
    memset(v, 0, sizeof *v);
    v->ndim = nd;
    v->off = off;
    memcpy(v->shape, shape, (size_t)nd * 8);
    memcpy(v->strides, st, (size_t)nd * 8);
}
/* A RUN of op o alone over buffers 5 and 9 (slots 0 and 1), decoded into run: its result. */
static int decode_one(const gr_op *o, gr_run *run, char *why) {
    gr_wr w;
    int rc;
    memset(&w, 0, sizeof w);
    w_slots(&w, 2, 5, 9);
    gr_w32(&w, 1);
    gr_op_encode(&w, o);
    rc = gr_run_decode(w.p, w.n, run, why);
    gr_wr_free(&w);
    return rc;
}
/* RUN_CACHED_GET's payload: hash, buffer id, lo, hi, then n slots of ids (5, 9, ...); its bytes in w */
static void w_run_cached_get(gr_wr *w, uint64_t id, uint64_t lo, uint64_t hi, uint32_t n) {
    uint32_t k;
    memset(w, 0, sizeof *w);
    gr_wbytes(w, "0123456789abcdef0123456789abcdef", 32);
    gr_w64(w, id);
    gr_w64(w, lo);
    gr_w64(w, hi);
    gr_w32(w, n);
    for (k = 0; k < n; k++) gr_w64(w, 5 + 4 * (uint64_t)k);
}
/* RUN_CACHED_GET decoded: its hash, GET fields and buffer table; every truncation, a buffer id 0,
   a range out of order or too long, a slot id 0 and trailing bytes refused */
static void test_codec_run_cached_get(void) {
    gr_wr w;
    gr_msg m;
    char why[256];
    size_t cut;
    int rc;
    w_run_cached_get(&w, 7, 16, 40, 2);
    rc = gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why);
    CHECK(rc == 0 && m.buf == 7 && m.lo == 16 && m.hi == 40 && m.run.nslots == 2 && m.run.ids[0] == 5 && m.run.ids[1] == 9 &&
              memcmp(m.hash, "0123456789abcdef", 16) == 0,
          "RUN_CACHED_GET round trip: rc %d %s", rc, why);
    gr_run_free(&m.run);
    for (cut = 0; cut < w.n; cut++) {
        if ((rc = gr_msg_decode(GR_RUN_CACHED_GET, w.p, cut, &m, why)) == 0) break;
        CHECK(m.run.ids == NULL, "a refused RUN_CACHED_GET keeps no buffer table");
    }
    CHECK(cut == w.n, "a RUN_CACHED_GET truncated to %zu bytes decoded", cut);
    gr_w8(&w, 0);
    CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_MALFORMED && strstr(why, "inline input count"), "trailing byte: %s", why);
    gr_wr_free(&w);
    { /* inputs inline: two (8 and 0 bytes) decoded in order; each truncation, an id 0, a length over
         GR_MAX_INLINE, a count over the limit and bytes after them refused */
        static const uint8_t tok[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        uint64_t id;
        uint32_t len;
        const uint8_t *p;
        gr_rd rd;
        size_t whole;
        w_run_cached_get(&w, 7, 0, 8, 1);
        gr_w32(&w, 2);
        gr_w64(&w, 11), gr_w32(&w, 8), gr_wbytes(&w, tok, 8);
        gr_w64(&w, 12), gr_w32(&w, 0);
        whole = w.n;
        rc = gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why);
        CHECK(rc == 0 && m.ninline == 2 && m.inl_len == 12 + 8 + 12, "two inputs inline: rc %d %s", rc, why);
        if (rc == 0) {
            rd = gr_rd_init(m.inl, m.inl_len);
            gr_inline_next(&rd, &id, &p, &len);
            CHECK(id == 11 && len == 8 && p && memcmp(p, tok, 8) == 0, "the first input inline: id %llu, %u bytes", (unsigned long long)id, len);
            gr_inline_next(&rd, &id, &p, &len);
            CHECK(id == 12 && len == 0 && !rd.bad && gr_left(&rd) == 0, "the second input inline: id %llu, %u bytes", (unsigned long long)id, len);
            gr_run_free(&m.run);
        }
        for (cut = whole - 35; cut < whole; cut++) { /* the section is 36 bytes: each cut inside it */
            if ((rc = gr_msg_decode(GR_RUN_CACHED_GET, w.p, cut, &m, why)) == 0) gr_run_free(&m.run);
            CHECK(rc != 0, "inputs inline truncated to %zu of %zu bytes decoded", cut, whole);
        }
        gr_w8(&w, 0);
        CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_MALFORMED && strstr(why, "after its inline"), "a byte after the inputs: %s", why);
        gr_wr_free(&w);
        w_run_cached_get(&w, 7, 0, 8, 1);
        gr_w32(&w, 1), gr_w64(&w, 0), gr_w32(&w, 0);
        CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_MALFORMED && strstr(why, "id 0"), "an input inline to id 0: %s", why);
        gr_wr_free(&w);
        w_run_cached_get(&w, 7, 0, 8, 1);
        gr_w32(&w, 1), gr_w64(&w, 11), gr_w32(&w, (uint32_t)GR_MAX_INLINE + 1);
        CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_LIMIT, "an input inline over the limit: %s", why);
        gr_wr_free(&w);
        w_run_cached_get(&w, 7, 0, 8, 1);
        gr_w32(&w, GR_MAX_SLOTS + 1);
        CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_LIMIT, "inline count over the limit: %s", why);
        gr_wr_free(&w);
        memset(&w, 0, sizeof w); /* RUN_CACHED takes them too */
        gr_wbytes(&w, "0123456789abcdef0123456789abcdef", 32);
        gr_w32(&w, 0);
        gr_w32(&w, 1), gr_w64(&w, 11), gr_w32(&w, 8), gr_wbytes(&w, tok, 8);
        rc = gr_msg_decode(GR_RUN_CACHED, w.p, w.n, &m, why);
        CHECK(rc == 0 && m.ninline == 1, "RUN_CACHED with an input inline: rc %d %s", rc, why);
        if (rc == 0) gr_run_free(&m.run);
        gr_wr_free(&w);
    }
    w_run_cached_get(&w, 0, 0, 8, 1);
    CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_MALFORMED && strstr(why, "id 0"), "buffer id 0: %s", why);
    gr_wr_free(&w);
    w_run_cached_get(&w, 7, 9, 8, 1);
    CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_LIMIT, "reversed range: %s", why);
    gr_wr_free(&w);
    w_run_cached_get(&w, 7, 0, GR_MAX_BUF + 1, 1);
    CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_LIMIT, "range over the size limit: %s", why);
    gr_wr_free(&w);
    w_run_cached_get(&w, 7, 0, 8, 0); /* a slot count of 2^31 - 1 and no ids */
    gr_put_u32_at(w.p + 56, 0x7fffffffu);
    CHECK(gr_msg_decode(GR_RUN_CACHED_GET, w.p, w.n, &m, why) == GR_E_LIMIT, "huge slot count: %s", why);
    gr_wr_free(&w);
}
static void test_codec(void) {
    gr_op ops[2];
    gr_wr w;
    gr_run run;
    char why[256];
    int64_t sh[2] = {2, 3}, st[2] = {3, 1}, big[2] = {(int64_t)1 << 40, (int64_t)1 << 40}, st1c[1] = {1};
    int rc;
    size_t cut;
    memset(ops, 0, sizeof ops);
    ops[0].op = GR_OP_EXP, ops[0].dtype = 0, ops[0].nin = 1;
    ops[0].in[0].kind = GR_SRC_BUF, ops[0].in[0].ref = 0; /* slot 0: buffer 5 */
    put_view(&ops[0].in[0].v, 2, sh, st, 0);
    put_view(&ops[0].out, 2, sh, st, 0);
    ops[0].module = "mlp.fc1", ops[0].module_len = 7, ops[0].phase = "", ops[0].phase_len = 0;
    ops[1] = ops[0];
    ops[1].op = GR_OP_ADD, ops[1].has_scalar = 1, ops[1].f[0] = 2.5, ops[1].written = 1, ops[1].out_buf = 1, ops[1].out_cap = 24; /* slot 1: 9 */
    ops[1].in[0].kind = GR_SRC_OP, ops[1].in[0].ref = 0;
    memset(&w, 0, sizeof w);
    w_slots(&w, 2, 5, 9);
    gr_w32(&w, 2);
    gr_op_encode(&w, &ops[0]);
    gr_op_encode(&w, &ops[1]);
    rc = gr_run_decode(w.p, w.n, &run, why);
    CHECK(rc == 0 && run.nops == 2 && run.ops[1].in[0].kind == GR_SRC_OP && run.ops[1].f[0] == 2.5 && run.ops[1].out_buf == 9 &&
              run.ops[0].in[0].ref == 5 &&
              run.ops[0].module_len == 7 && memcmp(run.ops[0].module, "mlp.fc1", 7) == 0,
          "RUN round trip: rc %d %s", rc, why);
    gr_run_free(&run);
    for (cut = 0; cut < w.n; cut += 7) { /* every truncation refused */
        rc = gr_run_decode(w.p, cut, &run, why);
        if (rc == 0) break;
    }
    CHECK(cut >= w.n, "a RUN truncated to %zu bytes decoded", cut);
    gr_wr_free(&w);
    /* a source that does not precede its op */
    memset(&w, 0, sizeof w);
    w_slots(&w, 2, 5, 9);
    gr_w32(&w, 1);
    ops[1].in[0].ref = 0;
    gr_op_encode(&w, &ops[1]);
    CHECK(gr_run_decode(w.p, w.n, &run, why) == GR_E_MALFORMED && strstr(why, "precede"), "forward source: %s", why);
    gr_wr_free(&w);
    /* a view past every bound */
    memset(&w, 0, sizeof w);
    w_slots(&w, 2, 5, 9);
    gr_w32(&w, 1);
    put_view(&ops[0].in[0].v, 2, big, big, 0);
    gr_op_encode(&w, &ops[0]);
    CHECK(gr_run_decode(w.p, w.n, &run, why) == GR_E_LIMIT, "huge view: %s", why);
    gr_wr_free(&w);
    /* huge counts; a slot past the table */
    memset(&w, 0, sizeof w);
    w_slots(&w, 0, 0, 0);
    gr_w32(&w, 0xffffffffu);
    CHECK(gr_run_decode(w.p, w.n, &run, why) == GR_E_LIMIT, "huge op count: %s", why);
    gr_wr_free(&w);
    memset(&w, 0, sizeof w);
    gr_w32(&w, 0xffffffffu);
    CHECK(gr_run_decode(w.p, w.n, &run, why) == GR_E_LIMIT, "huge slot count: %s", why);
    gr_wr_free(&w);
    memset(&w, 0, sizeof w);
    w_slots(&w, 1, 5, 0);
    gr_w32(&w, 1);
    ops[0].in[0].ref = 1;
    gr_op_encode(&w, &ops[0]);
    CHECK(gr_run_decode(w.p, w.n, &run, why) == GR_E_MALFORMED && strstr(why, "slot"), "slot past the table: %s", why);
    gr_wr_free(&w);
    memset(&w, 0, sizeof w);
    w_slots(&w, 0, 0, 0);
    gr_w32(&w, 1000);
    CHECK(gr_run_decode(w.p, w.n, &run, why) == GR_E_MALFORMED, "op count past the bytes: %s", why);
    gr_wr_free(&w);
    { /* an in-place write must name the buffer it writes, and say so (flag 4) */
        gr_op ic = ops[0];
        ic.op = GR_OP_INDEX_COPY, ic.nin = 2, ic.in[1] = ic.in[0];
        ic.in[0].dtype = 4; /* i64 */
        put_view(&ic.in[0].v, 1, sh, st1c, 0);
        put_view(&ic.in[1].v, 2, sh, st, 0);
        CHECK(decode_one(&ic, &run, why) == GR_E_MALFORMED && strstr(why, "in-place"), "in place into no buffer: %s", why);
        ic.written = 1, ic.out_buf = 1, ic.out_cap = 24;
        CHECK(decode_one(&ic, &run, why) == GR_E_MALFORMED && strstr(why, "flag 4"), "index_copy without flag 4: %s", why);
        ic.inplace = 1;
        rc = decode_one(&ic, &run, why);
        CHECK(rc == 0 && run.ops[0].op == GR_OP_INDEX_COPY && run.ops[0].out_buf == 9, "in place round trip: %d %s", rc, why);
        gr_run_free(&run);
    }
    { /* flag 64, dead after this RUN: only on an op that writes a buffer */
        gr_op d = ops[0];
        put_view(&d.in[0].v, 2, sh, st, 0);
        d.dead = 1;
        CHECK(decode_one(&d, &run, why) == GR_E_MALFORMED && strstr(why, "flag 64"), "a dead result of no buffer: %s", why);
        d.written = 1, d.out_buf = 1, d.out_cap = 24;
        rc = decode_one(&d, &run, why);
        CHECK(rc == 0 && run.ops[0].dead && run.ops[0].written && !run.ops[0].inplace && run.ops[0].zero == 0, "dead round trip: %d %s", rc, why);
        gr_run_free(&run);
        d.dead = 0;
        rc = decode_one(&d, &run, why);
        CHECK(rc == 0 && !run.ops[0].dead, "not dead round trip: %d %s", rc, why);
        gr_run_free(&run);
    }
    {
        uint8_t h[GR_HDR_BYTES];
        gr_hdr hd;
        gr_hdr_encode(h, GR_GET, 3, 24);
        CHECK(gr_hdr_decode(h, GR_HDR_BYTES, 24, &hd) == 0 && hd.type == GR_GET && hd.id == 3, "header round trip");
        CHECK(gr_hdr_decode(h, GR_HDR_BYTES, 25, &hd) == GR_E_FRAMING, "header length mismatch");
        h[4] = GR_VERSION + 1;
        CHECK(gr_hdr_decode(h, GR_HDR_BYTES, 24, &hd) == GR_E_VERSION, "header version");
        h[0] ^= 1;
        CHECK(gr_hdr_decode(h, GR_HDR_BYTES, 24, &hd) == GR_E_FRAMING, "header magic");
    }
}

/* gr_arange_end against genie's own arange: for random ranges of each dtype, magnitudes 1 to
   9e18 (and 1e300 for f64), rising and falling, genie counts n elements from start s by step
   d (kept whole for integer dtypes); the end gr_arange_end finds for (s, d, n) must make
   genie count n again. The server asks genie for that range, so this is what it computes. */
static void test_arange_ends(void) {
    static const genie_dtype dts[6] = {GENIE_F64, GENIE_F32, GENIE_BF16, GENIE_I64, GENIE_I32, GENIE_U8};
    genie_ctx *lc = local_ctx();
    uint64_t seed = 12345;
    int k, tried = 0, found = 0, far = 0;
    for (k = 0; k < 3000; k++) {
        const genie_dtype dt = dts[k % 6];
        const int whole = dt == GENIE_I64 || dt == GENIE_I32 || dt == GENIE_U8;
        double u[4], mag, s, e, d, end;
        int j;
        int64_t n;
        genie_tensor *t;
        for (j = 0; j < 4; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            u[j] = (double)(seed >> 11) / 9007199254740992.0;
        }
        mag = pow(10.0, floor(u[0] * (whole ? 19 : dt == GENIE_F64 && k % 12 == 0 ? 301 : 19)));
        if (whole && mag > 9e18) mag = 9e18;
        s = (u[1] * 2 - 1) * mag;
        d = (u[2] < 0.5 ? -1 : 1) * (1 + floor(u[3] * 9)) * pow(10.0, floor(u[3] * 40) - 20 > 0 ? floor(u[3] * 40) - 20 : 0);
        if (!whole) d *= mag > 1 ? mag * 1e-3 * u[3] + 1e-300 : 0.37;
        e = s + d * floor(u[3] * 700);
        genie_clear_error(lc);
        genie_pool_push(lc);
        t = genie_arange(lc, dt, s, e, d);
        if (t) {
            if (whole) s = (double)(int64_t)s, d = (double)(int64_t)d; /* as genie keeps them */
            n = genie_numel(t);
            tried++;
            far += n > 1 && fabs(s) > 9e15;
            if (gr_arange_end(dt, s, d, n, &end)) {
                genie_tensor *t2 = genie_arange(lc, dt, s, end, d);
                found += t2 && genie_numel(t2) == n;
                if (!t2 || genie_numel(t2) != n)
                    CHECK(0, "arange %s from %.17g by %.17g: gr_arange_end's end %.17g gives %lld elements, not %lld", genie_dtype_name(dt), s, d,
                          end, t2 ? (long long)genie_numel(t2) : -1LL, (long long)n);
            } else {
                CHECK(0, "arange %s from %.17g by %.17g to %.17g (%lld elements): gr_arange_end finds no end", genie_dtype_name(dt), s, d, e,
                      (long long)n);
            }
        }
        genie_pool_pop(lc);
    }
    CHECK(tried > 1500 && found == tried && far > 300, "aranges: %d of %d found their end (%d past 9e15)", found, tried, far);
    printf("  arange ends: %d ranges (%d of 2 or more elements past 9e15), every end found\n", tried, far);
    genie_ctx_destroy(lc);
}

/* ---- programs: remote bytes == local bytes ---- */
static genie_tensor *rnd(genie_ctx *c, genie_dtype dt, int nd, const int64_t *shape, uint64_t seed) {
    /* materialized data (weights and inputs are leaves with host bytes) */
    int64_t n = 1, i;
    genie_tensor *t;
    float *f;
    for (i = 0; i < nd; i++) n *= shape[i];
    f = (float *)malloc((size_t)(n ? n : 1) * sizeof(float));
    for (i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        f[i] = (float)((double)(seed >> 40) / 16777216.0 * 2.0 - 1.0);
    }
    t = genie_from_data(c, GENIE_F32, nd, shape, f);
    free(f);
    return dt == GENIE_F32 ? t : genie_to_dtype(c, t, dt);
}
/* Program k on context c: its outputs (up to 4) into outs. */
static int program(genie_ctx *c, int k, genie_tensor **outs) {
    int64_t s23[2] = {23, 37}, s37[2] = {37, 19}, s3[3] = {4, 23, 37}, w1[2] = {64, 37}, b1[1] = {64}, r[1] = {1};
    genie_tensor *a = rnd(c, GENIE_F32, 2, s23, 11 + (uint64_t)k), *b = rnd(c, GENIE_F32, 2, s37, 29 + (uint64_t)k);
    genie_tensor *x3 = rnd(c, GENIE_F32, 3, s3, 5 + (uint64_t)k), *w = rnd(c, GENIE_F32, 2, w1, 7), *bias = rnd(c, GENIE_F32, 1, b1, 3);
    switch (k) {
    case 0: outs[0] = genie_relu(c, genie_matmul(c, a, b)); return 1;
    case 1: outs[0] = genie_gelu(c, genie_linear(c, x3, w, bias)); outs[1] = genie_softmax(c, genie_linear(c, x3, w, NULL), -1); return 2;
    case 2: /* broadcasting, scalars, transposes, a fused chain */
        outs[0] = genie_add(c, genie_mul_scalar(c, genie_exp(c, genie_mul_scalar(c, a, 0.25)), 3.0), genie_slice(c, a, 0, 0, 1, 1));
        outs[1] = genie_sigmoid(c, genie_sub(c, genie_t(c, a), genie_tanh(c, genie_t(c, a))));
        return 2;
    case 3: /* reductions */
        {
            int64_t d1[1] = {1}, d02[2] = {0, 2};
            outs[0] = genie_sum(c, x3, 1, d1, 0);
            outs[1] = genie_mean(c, x3, 2, d02, 1);
            outs[2] = genie_amax(c, a, 1, d1, 1);
            outs[3] = genie_log_softmax(c, genie_transpose(c, x3, 0, 2), 1);
            return 4;
        }
    case 4: /* dtypes */
        outs[0] = genie_add(c, genie_to_dtype(c, a, GENIE_F64), genie_to_dtype(c, genie_slice(c, a, 0, 3, 4, 1), GENIE_F64));
        outs[1] = genie_to_dtype(c, genie_mul_scalar(c, genie_to_dtype(c, a, GENIE_BF16), 1.5), GENIE_F32);
        outs[2] = genie_where(c, genie_gt(c, a, genie_zeros(c, GENIE_F32, 1, r)), a, genie_neg(c, a));
        outs[3] = genie_clamp(c, genie_contiguous(c, genie_t(c, b)), -0.5, 0.25);
        return 4;
    case 6: /* attention: q, k, v products, heads by views, sdpa with a float mask, layer_norm */
        {
            int64_t h4[4] = {4, 23, 4, 16}, m2[2] = {23, 23}, n1[1] = {16};
            genie_tensor *q = genie_transpose(c, genie_view(c, genie_linear(c, x3, w, bias), 4, h4), 1, 2);
            genie_tensor *kk = genie_transpose(c, genie_view(c, genie_linear(c, x3, w, NULL), 4, h4), 1, 2);
            genie_tensor *v = genie_transpose(c, genie_view(c, genie_gelu(c, genie_linear(c, x3, w, bias)), 4, h4), 1, 2);
            genie_tensor *o = genie_scaled_dot_product_attention(c, q, kk, v, rnd(c, GENIE_F32, 2, m2, 17), 0, NAN);
            outs[0] = genie_layer_norm(c, o, 1, n1, rnd(c, GENIE_F32, 1, n1, 19), rnd(c, GENIE_F32, 1, n1, 23), 1e-5);
            outs[1] = genie_scaled_dot_product_attention(c, q, kk, v, NULL, 1, 0.125);
            return 2;
        }
    case 7: /* a Llama block's attention: rms_norm, rope on 4 query and 2 key/value heads, causal sdpa */
        {
            int64_t n37[1] = {37}, wk[2] = {32, 37}, q4[4] = {4, 23, 4, 16}, k2[4] = {4, 23, 2, 16};
            genie_tensor *xn = genie_rms_norm(c, x3, 1, n37, rnd(c, GENIE_F32, 1, n37, 31), 1e-6);
            genie_tensor *pos = genie_arange(c, GENIE_I64, 0, 23, 1), *wkv = rnd(c, GENIE_F32, 2, wk, 37);
            genie_tensor *q = genie_rope(c, genie_transpose(c, genie_view(c, genie_linear(c, xn, w, NULL), 4, q4), 1, 2), pos, 16, 10000.0, 0);
            genie_tensor *kk = genie_rope(c, genie_transpose(c, genie_view(c, genie_linear(c, xn, wkv, NULL), 4, k2), 1, 2), pos, 8, 500.0, 1);
            genie_tensor *v = genie_transpose(c, genie_view(c, genie_linear(c, x3, wkv, NULL), 4, k2), 1, 2);
            outs[0] = genie_scaled_dot_product_attention(c, q, kk, v, NULL, 1, NAN);
            outs[1] = genie_rms_norm(c, kk, 1, k2 + 3, NULL, NAN);
            return 2;
        }
    default: /* an MLP block with a residual */
        {
            int64_t w2s[2] = {37, 64};
            genie_tensor *w2 = rnd(c, GENIE_F32, 2, w2s, 13);
            genie_tensor *h = genie_silu(c, genie_linear(c, x3, w, bias));
            outs[0] = genie_add(c, x3, genie_linear(c, h, w2, NULL));
            return 1;
        }
    }
}
/* Outputs ro[0..n) of remote context rc against lo[0..n) of local lc: equal dtypes, equal bytes. */
static void same_outputs(genie_ctx *rc, genie_ctx *lc, genie_tensor **ro, genie_tensor **lo, int n, const char *what, int k) {
    int i;
    for (i = 0; i < n; i++) {
        size_t bytes = (size_t)genie_numel(lo[i]) * genie_dtype_size(genie_dtype_of(lo[i]));
        char *x = (char *)malloc(bytes + 1), *y = (char *)malloc(bytes + 1);
        genie_result r1 = genie_read(rc, ro[i], genie_dtype_of(lo[i]), x, bytes);
        genie_result r2 = genie_read(lc, lo[i], genie_dtype_of(lo[i]), y, bytes);
        CHECK(r1 == GENIE_OK && r2 == GENIE_OK && genie_dtype_of(ro[i]) == genie_dtype_of(lo[i]) && memcmp(x, y, bytes) == 0,
              "%s %d output %d: remote %d (%s) vs local %d (%s)", what, k, i, r1, genie_last_error(rc), r2,
              r1 == GENIE_OK && r2 == GENIE_OK ? "bytes differ" : genie_last_error(lc));
        free(x);
        free(y);
    }
}
static void test_identical(const char *addr) {
    int k;
    for (k = 0; k < 8; k++) {
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_tensor *ro[4], *lo[4];
        int n;
        genie_stats st;
        CHECK(rc && genie_status(rc) == GENIE_OK && strcmp(genie_backend_name(rc), "remote") == 0, "remote context: %s",
              rc ? genie_last_error(rc) : "NULL");
        n = program(rc, k, ro);
        program(lc, k, lo);
        same_outputs(rc, lc, ro, lo, n, "program", k);
        st = genie_get_stats(rc);
        CHECK(st.backend_nodes > 0 && st.remote_messages_sent > 0 && st.remote_round_trips > 0, "program %d ran on the server (%llu nodes)",
              k, (unsigned long long)st.backend_nodes);
        if (k >= 6) /* the normalizations, rope and sdpa among them: at most arange on the CPU */
            CHECK(st.backend_fallbacks <= 1 && st.backend_nodes >= 6, "program %d: %llu nodes on the server, %llu on the CPU", k,
                  (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
    }
}

static void run_props(void) {
    static const char *files[] = {"props_graphs.txt", "props_ops.txt", "props_views.txt"};
    size_t i;
    prog_backend = "remote";
    prog_threads = 1;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        int p = 0, f = 0, rc;
        snprintf(path, sizeof path, "tests/data/%s", files[i]);
        rc = prog_run_file(path, &p, &f);
        CHECK(rc == 0, "cannot open %s", path);
        CHECK(f == 0, "%s: %d checks failed on the remote backend", path, f);
        passed += p;
        printf("  %s on \"remote\": %d checks passed, %d failed\n", files[i], p, f);
    }
    prog_backend = NULL;
}

/* ---- weights cross once ---- */
/* t's n floats in a malloc'd copy (blob_free frees it: a from_blob deleter) */
static float *host_copy(genie_ctx *c, genie_tensor *t, size_t n) {
    float *p = (float *)malloc(n * sizeof(float));
    if (p) genie_read(c, t, GENIE_F32, p, n * sizeof(float));
    return p;
}
static void blob_free(void *data, void *user) {
    (void)user;
    free(data);
}
static void mlp_step(genie_ctx *c, genie_tensor *w1, genie_tensor *b1, genie_tensor *w2, int step, float *out) {
    int64_t xs[2] = {8, 256};
    genie_tensor *x, *y;
    genie_pool_push(c);
    genie_set_phase(c, "decode");
    x = rnd(c, GENIE_F32, 2, xs, 100 + (uint64_t)step);
    genie_scope_push(c, "mlp");
    genie_scope_push(c, "fc1");
    y = genie_relu(c, genie_linear(c, x, w1, b1));
    genie_scope_pop(c);
    genie_scope_push(c, "fc2");
    y = genie_softmax(c, genie_linear(c, y, w2, NULL), -1);
    genie_scope_pop(c);
    genie_scope_pop(c);
    genie_read(c, y, GENIE_F32, out, 8 * 16 * sizeof(float));
    genie_pool_pop(c);
}
static void test_weights(const char *addr) {
    int64_t w1s[2] = {512, 256}, b1s[1] = {512}, w2s[2] = {16, 512};
    genie_ctx *c = remote_ctx(addr), *l = local_ctx(), *c2;
    genie_tensor *w1 = rnd(c, GENIE_F32, 2, w1s, 1), *b1 = rnd(c, GENIE_F32, 1, b1s, 2), *w2 = rnd(c, GENIE_F32, 2, w2s, 3);
    genie_tensor *lw1 = rnd(l, GENIE_F32, 2, w1s, 1), *lb1 = rnd(l, GENIE_F32, 1, b1s, 2), *lw2 = rnd(l, GENIE_F32, 2, w2s, 3);
    uint64_t wbytes = (512 * 256 + 512 + 16 * 512) * 4, xbytes = 8 * 256 * 4, first = 0, total;
    float ro[128], lo[128];
    int s, same = 1;
    genie_stats st;
    uint64_t second = 0;
    for (s = 0; s < 10; s++) {
        mlp_step(c, w1, b1, w2, s, ro);
        mlp_step(l, lw1, lb1, lw2, s, lo);
        same &= memcmp(ro, lo, sizeof ro) == 0;
        if (s == 0) first = genie_get_stats(c).remote_bytes_sent;
        if (s == 1) second = genie_get_stats(c).remote_bytes_sent;
    }
    st = genie_get_stats(c);
    total = st.remote_bytes_sent;
    CHECK(genie_status(c) == GENIE_OK && same, "10 MLP steps remote == local: %s", genie_last_error(c));
    CHECK(first >= wbytes && first < wbytes + xbytes + 8192, "step 1 sent %llu bytes for %llu of weights", (unsigned long long)first,
          (unsigned long long)wbytes);
    CHECK(total - first < 9 * (xbytes + 4096), "steps 2-10 sent %llu bytes: the weights went again", (unsigned long long)(total - first));
    CHECK(total - second < 8 * (xbytes + 600), "steps 3-10 sent %llu bytes: more than x, a RUN_CACHED and a GET each",
          (unsigned long long)(total - second));
    CHECK(st.remote_bytes_received < 10 * (8 * 16 * 4 + 64) + 4096, "10 steps received %llu bytes (only y: 512 bytes a step)",
          (unsigned long long)st.remote_bytes_received);
    printf("  10 MLP steps: %llu bytes sent (weights %llu), %llu received, %llu messages, %llu round trips\n",
           (unsigned long long)total, (unsigned long long)wbytes, (unsigned long long)st.remote_bytes_received,
           (unsigned long long)st.remote_messages_sent, (unsigned long long)st.remote_round_trips);
    { /* the server's accounting of this client's work, by module, phase and role: its flops are
         the ones the same steps count locally, the first product's under module mlp.fc1 */
        genie_remote_work rows[32];
        int n = genie_remote_stats(c, rows, 32), i, decode = 0;
        uint64_t nodes = 0, flops = 0, fc1 = 0, local = genie_work_of(l, "decode", NULL).flops;
        for (i = 0; i < n && i < 32; i++) {
            printf("  server work: module \"%s\" phase \"%s\" role \"%s\": %llu nodes, %llu flops, %llu bytes, %llu ns\n", rows[i].module,
                   rows[i].phase, rows[i].role, (unsigned long long)rows[i].work.nodes, (unsigned long long)rows[i].work.flops,
                   (unsigned long long)rows[i].work.bytes, (unsigned long long)rows[i].work.ns);
            nodes += rows[i].work.nodes;
            flops += rows[i].work.flops;
            decode |= strcmp(rows[i].phase, "decode") == 0 && rows[i].work.flops > 0;
            if (strcmp(rows[i].module, "mlp.fc1") == 0) fc1 += rows[i].work.flops;
        }
        CHECK(n > 0 && decode && nodes >= 20, "genie_remote_stats: %d rows, %llu nodes: %s", n, (unsigned long long)nodes, genie_last_error(c));
        CHECK(flops == local, "server flops %llu, the same steps locally %llu", (unsigned long long)flops, (unsigned long long)local);
        CHECK(fc1 == 10ull * (2 * 8 * 512 * 256 + 2 * 8 * 512), "module mlp.fc1: %llu flops", (unsigned long long)fc1);
        CHECK(genie_remote_stats(l, rows, 32) == -1 && genie_status(l) == GENIE_ERR_BACKEND, "genie_remote_stats on a CPU context");
        genie_clear_error(l);
    }
    /* another client of the same server, its weights the caller's memory (from_blob, as a mapped
       file's are: hashed first, then HAS): the large weight is there already (the first client's
       bytes went unhashed, and the server's hash of them put them in its cache), not sent */
    CHECK(genie_remote_hashed(c) == GENIE_OK, "the first client's HASHED: %s", genie_last_error(c));
    c2 = remote_ctx(addr);
    {
        float *m1 = host_copy(l, lw1, 512 * 256), *mb = host_copy(l, lb1, 512), *m2 = host_copy(l, lw2, 16 * 512);
        genie_tensor *v1 = genie_from_blob(c2, GENIE_F32, 2, w1s, NULL, m1, blob_free, NULL);
        genie_tensor *vb = genie_from_blob(c2, GENIE_F32, 1, b1s, NULL, mb, blob_free, NULL);
        genie_tensor *v2 = genie_from_blob(c2, GENIE_F32, 2, w2s, NULL, m2, blob_free, NULL);
        mlp_step(c2, v1, vb, v2, 0, ro);
        mlp_step(l, lw1, lb1, lw2, 0, lo);
        st = genie_get_stats(c2);
        CHECK(memcmp(ro, lo, sizeof ro) == 0 && st.remote_bytes_sent < wbytes / 2, "a second client sent %llu bytes (w1 is cached)",
              (unsigned long long)st.remote_bytes_sent);
    }
    genie_ctx_destroy(c2);
    genie_ctx_destroy(c);
    genie_ctx_destroy(l);
}

/* ---- decode steps: the KV cache written in place on the server ---- */
static void test_decode(const char *addr) {
    const char *path = "examples/data/tiny_llama.safetensors";
    genie_ctx *c = remote_ctx(addr), *l = local_ctx();
    ld_model rm, lm;
    float rl[256], ll[256];
    int64_t tok = 1, t, steps = 64;
    uint64_t wbytes = 0, first = 0, second = 0, fb1 = 0, msgs1 = 0;
    int same = 1, i;
    genie_stats st;
    memset(&rm, 0, sizeof rm), memset(&lm, 0, sizeof lm); /* ld_free after a failed load frees what was made */
    if (!ld_load(c, path, &rm) || !ld_load(l, path, &lm) || rm.vocab > 256 || rm.max_seq < steps) {
        printf("skip: decode steps on \"remote\" (cannot load %s: %s)\n", path, genie_last_error(c));
        ld_free(&rm), ld_free(&lm);
        genie_ctx_destroy(c), genie_ctx_destroy(l);
        return;
    }
    wbytes = (uint64_t)genie_numel(rm.embed) * 4 + (uint64_t)genie_numel(rm.norm) * 4 + (uint64_t)genie_numel(rm.head) * 4;
    for (i = 0; i < rm.n_layers; i++)
        wbytes += 4 * (uint64_t)(genie_numel(rm.l[i].in_norm) + genie_numel(rm.l[i].wq) + genie_numel(rm.l[i].wk) +
                                 genie_numel(rm.l[i].wv) + genie_numel(rm.l[i].wo) + genie_numel(rm.l[i].post_norm) +
                                 genie_numel(rm.l[i].gate) + genie_numel(rm.l[i].up) + genie_numel(rm.l[i].down));
    for (t = 0; t < steps; t++) {
        genie_result r1 = ld_step(c, &rm, tok, t, rl), r2 = ld_step(l, &lm, tok, t, ll);
        same &= r1 == GENIE_OK && r2 == GENIE_OK && memcmp(rl, ll, (size_t)rm.vocab * 4) == 0;
        tok = ld_argmax(rl, rm.vocab);
        if (t == 0) first = genie_get_stats(c).remote_bytes_sent;
        if (t == 1) second = genie_get_stats(c).remote_bytes_sent, fb1 = genie_get_stats(c).backend_fallbacks, msgs1 = genie_get_stats(c).remote_messages_sent;
    }
    st = genie_get_stats(c);
    CHECK(st.remote_messages_sent - msgs1 == (uint64_t)(steps - 2), "steps 3-64 sent %llu messages: not one a step (a RUN_CACHED_GET with the inputs inline)",
          (unsigned long long)(st.remote_messages_sent - msgs1));
    CHECK(genie_status(c) == GENIE_OK && same, "64 decode steps of the tiny llama: logits remote == local: %s", genie_last_error(c));
    CHECK(first >= wbytes && first < wbytes + 65536 + 16384, "step 1 sent %llu bytes for %llu of weights and 64 KiB of caches",
          (unsigned long long)first, (unsigned long long)wbytes);
    CHECK(st.remote_bytes_sent - second < (uint64_t)(steps - 2) * 2048,
          "steps 3-64 sent %llu bytes: more than a RUN_CACHED_GET with the token, position and mask inline each",
          (unsigned long long)(st.remote_bytes_sent - second));
    CHECK(st.remote_bytes_received < (uint64_t)steps * (rm.vocab * 4 + 64) + 4096,
          "64 steps received %llu bytes: the logits alone are %lld a step (the caches stay on the server)",
          (unsigned long long)st.remote_bytes_received, (long long)rm.vocab * 4);
    CHECK(st.backend_fallbacks == fb1 && st.inplace_copied == 0 && st.inplace_reused >= (uint64_t)steps * 2 * rm.n_layers,
          "decode steps: %llu nodes on the CPU after step 2 (%llu before), %llu in-place writes on the server's buffers, %llu copied",
          (unsigned long long)(st.backend_fallbacks - fb1), (unsigned long long)fb1, (unsigned long long)st.inplace_reused,
          (unsigned long long)st.inplace_copied);
    printf("  64 decode steps: %llu bytes sent (weights %llu), %llu received, %llu messages, %llu round trips, %llu CPU nodes\n",
           (unsigned long long)st.remote_bytes_sent, (unsigned long long)wbytes, (unsigned long long)st.remote_bytes_received,
           (unsigned long long)st.remote_messages_sent, (unsigned long long)st.remote_round_trips,
           (unsigned long long)st.backend_fallbacks);
    { /* an index past the cache: the server fails the write where it stands, with genie's error, as locally */
        genie_tensor *bad, *pos;
        int64_t one = 1, p = rm.max_seq, kvs[3] = {rm.n_kv, 1, rm.d / rm.n_heads};
        float back;
        genie_result e1, e2;
        char m1[600];
        uint64_t fb = genie_get_stats(c).backend_fallbacks;
        genie_pool_push(c);
        genie_pool_push(l);
        pos = genie_from_data(c, GENIE_I64, 1, &one, &p);
        bad = genie_index_copy_(c, rm.l[0].k_cache, 1, pos, genie_ones(c, GENIE_F32, 3, kvs));
        e1 = genie_read(c, genie_sum(c, bad, 0, NULL, 0), GENIE_F32, &back, sizeof back);
        snprintf(m1, sizeof m1, "%s", genie_last_error(c));
        pos = genie_from_data(l, GENIE_I64, 1, &one, &p);
        bad = genie_index_copy_(l, lm.l[0].k_cache, 1, pos, genie_ones(l, GENIE_F32, 3, kvs));
        e2 = genie_read(l, genie_sum(l, bad, 0, NULL, 0), GENIE_F32, &back, sizeof back);
        CHECK(e1 == GENIE_ERR_INDEX && e1 == e2 && strcmp(m1, genie_last_error(l)) == 0 && strstr(m1, "out of bounds") &&
                  genie_get_stats(c).backend_fallbacks == fb,
              "index_copy_ past the cache: remote %d (%s), local %d (%s)", e1, m1, e2, genie_last_error(l));
        genie_pool_pop(c);
        genie_pool_pop(l);
        genie_clear_error(c);
        genie_clear_error(l);
    }
    ld_free(&rm), ld_free(&lm);
    genie_ctx_destroy(c);
    genie_ctx_destroy(l);
}

/* ---- in-place writes: copy_ into slices (broadcast, converted), index_copy_; one whose old
   version is still read runs on the CPU (a copy there), with the same values ---- */
static void inplace_prog(genie_ctx *c, float *out) {
    int64_t bs[2] = {6, 8}, rs[1] = {8}, one = 1, two[2] = {2, 2};
    genie_tensor *b = genie_zeros(c, GENIE_F32, 2, bs), *old = NULL;
    int s;
    for (s = 0; s < 6; s++) {
        double row[8];
        int64_t p = 5 - s, j;
        genie_tensor *idx;
        for (j = 0; j < 8; j++) row[j] = s * 8 + j + 0.1;
        genie_pool_push(c);
        genie_copy_(c, genie_narrow(c, b, 0, s, 1), genie_from_data(c, GENIE_F64, 1, rs, row)); /* [8] f64 -> [1, 8] f32 */
        idx = genie_from_data(c, GENIE_I64, 1, &one, &p);
        genie_index_copy_(c, b, 0, idx, genie_mul_scalar(c, genie_narrow(c, b, 0, s, 1), 2.0));
        if (s == 3) genie_retain(old = genie_clone(c, b)); /* a reader of this version, realized later */
        genie_pool_pop(c);
    }
    genie_index_copy_(c, genie_narrow(c, b, 0, 0, 2), 1, genie_arange(c, GENIE_I64, 0, 2, 1), genie_ones(c, GENIE_F32, 2, two));
    { /* same dtype, broadcast from a column: the server reads the source through 0 strides */
        float col[2] = {7.5f, -3.25f};
        int64_t cs[2] = {2, 1};
        genie_copy_(c, genie_narrow(c, genie_narrow(c, b, 0, 2, 2), 1, 3, 4), genie_from_data(c, GENIE_F32, 2, cs, col));
    }
    genie_read(c, b, GENIE_F32, out, 48 * sizeof(float));
    genie_read(c, old, GENIE_F32, out + 48, 48 * sizeof(float));
    genie_release(old);
}
static void test_inplace(const char *addr) {
    genie_ctx *c = remote_ctx(addr), *l = local_ctx();
    float ro[96], lo[96];
    genie_stats st;
    memset(ro, 0, sizeof ro);
    memset(lo, 1, sizeof lo);
    inplace_prog(c, ro);
    inplace_prog(l, lo);
    st = genie_get_stats(c);
    CHECK(genie_status(c) == GENIE_OK && genie_status(l) == GENIE_OK && memcmp(ro, lo, sizeof ro) == 0, "in-place writes remote == local: %s",
          genie_last_error(c));
    CHECK(st.inplace_reused >= 10 && st.backend_nodes >= 12, "in-place writes on the server: %llu in place, %llu copied, %llu server nodes",
          (unsigned long long)st.inplace_reused, (unsigned long long)st.inplace_copied, (unsigned long long)st.backend_nodes);
    printf("  in-place writes: %llu in place, %llu copied, %llu nodes on the server, %llu on the CPU\n", (unsigned long long)st.inplace_reused,
           (unsigned long long)st.inplace_copied, (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
    genie_ctx_destroy(c);
    genie_ctx_destroy(l);
}

/* ---- protocol 5's ops: joins, indexing, arg-reductions, masks, in-place arithmetic ---- */
/* Program k of them on c: its outputs (up to 8) into outs; *cpu: the nodes it must leave on the
   client's CPU (indices only the server holds). */
static int ops5_program(genie_ctx *c, int k, genie_tensor **outs, int *cpu) {
    int64_t s23[2] = {23, 37}, s3[3] = {4, 23, 37}, n5[1] = {5}, n3[1] = {3}, g2[2] = {23, 4}, g3[3] = {2, 3, 5}, d1[1] = {1}, d2[1] = {2}, one[1] = {1};
    genie_tensor *a = rnd(c, GENIE_F32, 2, s23, 41 + (uint64_t)k), *b = rnd(c, GENIE_F32, 2, s23, 43 + (uint64_t)k);
    genie_tensor *x3 = rnd(c, GENIE_F32, 3, s3, 47 + (uint64_t)k), *ts[3];
    *cpu = 0;
    switch (k) {
    case 0: /* cat along each dim, of values, views and another dtype; stack */
        ts[0] = a, ts[1] = genie_exp(c, b), ts[2] = genie_slice(c, a, 0, 3, 9, 1);
        outs[0] = genie_cat(c, 3, ts, 0);
        ts[2] = genie_transpose(c, genie_slice(c, x3, 0, 1, 2, 1), 0, 1); /* [23, 1, 37] */
        ts[2] = genie_select(c, ts[2], 1, 0);
        outs[1] = genie_cat(c, 3, ts, -1);
        ts[1] = genie_to_dtype(c, b, GENIE_F64);
        outs[2] = genie_cat(c, 2, ts, 1); /* f32 with f64: f64 */
        ts[1] = genie_neg(c, b);
        outs[3] = genie_stack(c, 2, ts, 1);
        ts[0] = genie_slice(c, x3, 2, 0, 5, 1), ts[1] = genie_slice(c, x3, 2, 30, 37, 1);
        outs[4] = genie_cat(c, 2, ts, 2);
        return 5;
    case 1: { /* index_select (i64 and i32 indices) and gather, the indices on the host */
        int64_t i5[5] = {3, 0, 22, 7, 7}, gi[23 * 4], gj[2 * 3 * 5], j;
        int32_t i3[3] = {1, 36, 0};
        for (j = 0; j < 23 * 4; j++) gi[j] = (j * 7 + 3) % 37;
        for (j = 0; j < 30; j++) gj[j] = (j * 5 + 1) % 4;
        outs[0] = genie_index_select(c, a, 0, genie_from_data(c, GENIE_I64, 1, n5, i5));
        outs[1] = genie_index_select(c, genie_exp(c, x3), 2, genie_from_data(c, GENIE_I32, 1, n3, i3));
        outs[2] = genie_gather(c, genie_t(c, genie_t(c, a)), 1, genie_from_data(c, GENIE_I64, 2, g2, gi));
        outs[3] = genie_gather(c, genie_sigmoid(c, x3), 0, genie_from_data(c, GENIE_I64, 3, g3, gj));
        return 4;
    }
    case 2: { /* argmax / argmin (a dim, all dims), max / min along a dim (values and indices) */
        genie_tuple *mx = genie_max_dim(c, x3, 1, 1), *mn = genie_min_dim(c, genie_exp(c, a), 0, 0);
        outs[0] = genie_argmax(c, a, 1, 0);
        outs[1] = genie_argmin(c, x3, GENIE_DIM_NONE, 1);
        outs[2] = genie_tuple_get(mx, 0);
        outs[3] = genie_tuple_get(mx, 1);
        outs[4] = genie_tuple_get(mn, 0);
        outs[5] = genie_tuple_get(mn, 1);
        outs[6] = genie_argmax(c, genie_transpose(c, x3, 0, 2), 0, 1);
        /* gather by indices the server computed: the server checks them (one round trip) */
        outs[7] = genie_gather(c, a, 1, genie_argmax(c, a, 1, 1));
        return 8;
    }
    case 3: /* masked_fill, tril, triu, cumsum, var, std, logsumexp, full */
        outs[0] = genie_masked_fill(c, a, genie_gt(c, b, genie_zeros(c, GENIE_F32, 1, one)), -1.5);
        outs[1] = genie_tril(c, genie_exp(c, a), 1);
        outs[2] = genie_triu(c, x3, -2);
        outs[3] = genie_cumsum(c, genie_transpose(c, a, 0, 1), 1);
        outs[4] = genie_var(c, x3, 1, d1, 1, 0);
        outs[5] = genie_std(c, a, 0, NULL, 0, 1);
        outs[6] = genie_logsumexp(c, x3, 1, d2, 0);
        outs[7] = genie_add(c, genie_full(c, GENIE_F32, 2, s23, 2.5), a);
        return 8;
    case 4: { /* scatter, scatter_add (host indices), topk, sort, conv2d (batched, unbatched, groups), flip */
        int64_t si[2 * 37], j, xs4[4] = {2, 4, 9, 11}, ws4[4] = {6, 2, 3, 3}, b1[1] = {6}, st[2] = {2, 1}, pd[2] = {1, 0}, dl[2] = {1, 2};
        int64_t one2[2] = {1, 1}, zero2[2] = {0, 0}, ws1[4] = {3, 4, 2, 2}, fd[2] = {0, 2};
        int64_t s2[2] = {2, 37};
        genie_tuple *tk = genie_topk(c, x3, 5, -1, 1, 1), *so = genie_sort(c, genie_exp(c, a), 0, 1);
        genie_tensor *xx = rnd(c, GENIE_F32, 4, xs4, 61), *ww = rnd(c, GENIE_F32, 4, ws4, 67), *idx;
        for (j = 0; j < 2 * 37; j++) si[j] = (j * 11 + 5) % 23;
        idx = genie_from_data(c, GENIE_I64, 2, s2, si);
        outs[0] = genie_scatter(c, a, 0, idx, genie_exp(c, b));
        outs[1] = genie_scatter_add(c, genie_exp(c, a), 0, idx, b);
        outs[2] = genie_tuple_get(tk, 0);
        outs[3] = genie_tuple_get(tk, 1);
        outs[4] = genie_tuple_get(so, 1);
        outs[5] = genie_conv2d(c, xx, ww, rnd(c, GENIE_F32, 1, b1, 71), st, pd, dl, 2);
        outs[6] = genie_conv2d(c, genie_select(c, xx, 0, 1), rnd(c, GENIE_F32, 4, ws1, 73), NULL, one2, zero2, one2, 1);
        outs[7] = genie_flip(c, genie_exp(c, x3), 2, fd);
        return 8;
    }
    default: { /* in place: add_ sub_ mul_ div_ relu_ masked_fill_ fill_ zero_ on a server value */
        genie_tensor *y = genie_clone(c, a);
        genie_add_(c, y, b);
        genie_mul_(c, genie_narrow(c, y, 0, 2, 5), genie_exp(c, genie_select(c, b, 0, 4)));
        genie_sub_(c, genie_narrow(c, y, 1, 1, 9), genie_narrow(c, b, 1, 20, 9));
        genie_div_(c, y, genie_add_scalar(c, genie_abs(c, b), 0.5));
        genie_relu_(c, genie_narrow(c, y, 0, 10, 4));
        genie_masked_fill_(c, y, genie_lt(c, b, genie_zeros(c, GENIE_F32, 1, one)), 0.25);
        genie_fill_(c, genie_narrow(c, y, 1, 3, 4), 7.0);
        genie_zero_(c, genie_select(c, y, 0, 1));
        outs[0] = y;
        outs[1] = genie_zeros(c, GENIE_F32, 2, s23);
        genie_add_(c, outs[1], genie_select(c, x3, 0, 2));
        return 2;
    }
    }
}
static void test_ops5(const char *addr) {
    int k;
    for (k = 0; k < 6; k++) {
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_tensor *ro[8], *lo[8];
        int n, cpu = 0, lcpu = 0;
        genie_stats st;
        n = ops5_program(rc, k, ro, &cpu);
        ops5_program(lc, k, lo, &lcpu);
        same_outputs(rc, lc, ro, lo, n, "ops5 program", k);
        st = genie_get_stats(rc);
        CHECK(st.backend_fallbacks == (uint64_t)cpu && st.backend_nodes >= (uint64_t)n,
              "ops5 program %d: %llu nodes on the server, %llu on the CPU (want %d)", k, (unsigned long long)st.backend_nodes,
              (unsigned long long)st.backend_fallbacks, cpu);
        if (k == 5)
            CHECK(st.inplace_reused >= 9 && st.inplace_copied == 0, "in-place arithmetic on the server: %llu in place, %llu copied",
                  (unsigned long long)st.inplace_reused, (unsigned long long)st.inplace_copied);
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
    }
    { /* an index out of range fails at the realize as locally (the server checks the host's indices too) */
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        int64_t bad[2] = {1, 23}, two = 2, s23[2] = {23, 37};
        float out[2 * 37];
        genie_result r1 = genie_read(rc, genie_index_select(rc, genie_exp(rc, rnd(rc, GENIE_F32, 2, s23, 1)), 0, genie_from_data(rc, GENIE_I64, 1, &two, bad)),
                                     GENIE_F32, out, sizeof out);
        genie_result r2 = genie_read(lc, genie_index_select(lc, genie_exp(lc, rnd(lc, GENIE_F32, 2, s23, 1)), 0, genie_from_data(lc, GENIE_I64, 1, &two, bad)),
                                     GENIE_F32, out, sizeof out);
        CHECK(r1 == GENIE_ERR_INDEX && r1 == r2 && strcmp(genie_last_error(rc), genie_last_error(lc)) == 0 &&
                  genie_get_stats(rc).backend_fallbacks == 0,
              "index_select past the rows (host indices: the server fails it): remote %d (%s), local %d (%s)", r1, genie_last_error(rc), r2,
              genie_last_error(lc));
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
    }
}

/* rand and randn run on the server (genie's counter-based generator: the seed and each
   element's index give its value) bit-identical to local, in each float dtype, odd shapes,
   a 0-dim one, seeds 0 and 2^64 - 1, used by a later op and in place (fill by a view's copy);
   no node on the client's CPU. */
static void test_random(const char *addr) {
    static const genie_dtype dts[4] = {GENIE_F32, GENIE_F64, GENIE_F16, GENIE_BF16};
    static const uint64_t seeds[3] = {0, 12345, UINT64_MAX};
    int d, k;
    for (d = 0; d < 4; d++) {
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_tensor *ro[14], *lo[14];
        genie_stats st;
        int n = 0;
        for (k = 0; k < 3; k++) {
            int64_t shape[3] = {3 + k, 17, 5 + 2 * k};
            ro[n] = genie_rand(rc, dts[d], 3, shape, seeds[k]);
            lo[n++] = genie_rand(lc, dts[d], 3, shape, seeds[k]);
            ro[n] = genie_randn(rc, dts[d], 2, shape + 1, seeds[k]);
            lo[n++] = genie_randn(lc, dts[d], 2, shape + 1, seeds[k]);
        }
        ro[n] = genie_randn(rc, dts[d], 0, NULL, 7);
        lo[n++] = genie_randn(lc, dts[d], 0, NULL, 7);
        { /* consumed on the server */
            int64_t d0[1] = {0};
            ro[n] = genie_mul(rc, genie_exp(rc, ro[0]), ro[1]);
            lo[n++] = genie_mul(lc, genie_exp(lc, lo[0]), lo[1]);
            ro[n] = genie_sum(rc, ro[1], 1, d0, 0);
            lo[n++] = genie_sum(lc, lo[1], 1, d0, 0);
        }
        { /* arange in this dtype and in integer ones, rising and falling */
            static const double ar[4][3] = {{0, 10, 0.7}, {-3.5, 2, 0.25}, {5, -7, -3}, {0, 1000, 7}};
            static const genie_dtype idt[2] = {GENIE_I64, GENIE_I32};
            ro[n] = genie_arange(rc, dts[d], ar[d][0], ar[d][1], ar[d][2]);
            lo[n++] = genie_arange(lc, dts[d], ar[d][0], ar[d][1], ar[d][2]);
            ro[n] = genie_exp(rc, genie_to_dtype(rc, genie_arange(rc, idt[d % 2], ar[3 - d][0], ar[3 - d][1], ar[3 - d][2] < 0 ? -3 : 7), dts[d]));
            lo[n++] = genie_exp(lc, genie_to_dtype(lc, genie_arange(lc, idt[d % 2], ar[3 - d][0], ar[3 - d][1], ar[3 - d][2] < 0 ? -3 : 7), dts[d]));
        }
        same_outputs(rc, lc, ro, lo, n, "rand/randn/arange dtype", d);
        st = genie_get_stats(rc);
        CHECK(st.backend_fallbacks == 0 && st.backend_nodes >= 10, "rand/randn/arange of dtype %d: %llu nodes on the server, %llu on the CPU", d,
              (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
    }
    { /* aranges whose counts round (ceil of a quotient a hair over or under an integer), and ones
         far from 0 (past 9e15, where start + n step is inexact; integer ones near int64's end,
         an i32 one wrapping), rising and falling: on the server, values equal local */
        static const struct { genie_dtype dt; double a[3]; } ar[] = {
            {GENIE_F64, {1, 1 + 1e-9, 1e-10}}, {GENIE_F64, {0, 1, 0.1}}, {GENIE_F64, {0.3, -0.9, -0.3}}, {GENIE_F64, {1e16, 1e16 + 8, 2}},
            {GENIE_F64, {-1e17, -1e17 + 1000, 100}}, {GENIE_F64, {1e17, 1e17 - 160, -16}}, {GENIE_F32, {1e16, 2e16, 1e15}},
            {GENIE_F64, {3e300, 3.0000001e300, 1e292}}, {GENIE_I64, {9e18, 9.1e18, 1e16}}, {GENIE_I64, {-9.1e18, -9e18, 3e15 + 1}},
            {GENIE_I64, {5e18, 5e18 + 1e6, 3e5}}, {GENIE_I32, {1e17, 1e17 + 64, 16}}, {GENIE_BF16, {-2e16, 2e16, 7e15}},
            {GENIE_I64, {1e16 + 2, 1e16 - 40, -6}},
        };
        const int nar = (int)(sizeof ar / sizeof ar[0]);
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_tensor *ro[16], *lo[16];
        for (d = 0; d < nar; d++) {
            ro[d] = genie_arange(rc, ar[d].dt, ar[d].a[0], ar[d].a[1], ar[d].a[2]);
            lo[d] = genie_arange(lc, ar[d].dt, ar[d].a[0], ar[d].a[1], ar[d].a[2]);
        }
        same_outputs(rc, lc, ro, lo, nar, "rounding or far arange", 0);
        CHECK(genie_get_stats(rc).backend_fallbacks == 0 && genie_get_stats(rc).backend_nodes >= (uint64_t)nar,
              "rounding and far aranges: %llu on the server, %llu on the CPU (want none)", (unsigned long long)genie_get_stats(rc).backend_nodes,
              (unsigned long long)genie_get_stats(rc).backend_fallbacks);
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
    }
}

/* Binary ops and where on sources of two dtypes, each as a tensor and as a 0-dim one (which
   genie's promotion ranks below a dimensioned source: f16 + a 0-dim f32 is f16, computed in f16;
   the server gets the 0-dim flag and builds the same node). Program k's outputs into outs. */
static int mixed_program(genie_ctx *c, int k, genie_tensor **outs) {
    int64_t s23[2] = {23, 37}, s37[1] = {37}, one[1] = {1};
    genie_tensor *a = rnd(c, GENIE_F32, 2, s23, 81 + (uint64_t)k), *h = rnd(c, GENIE_F16, 2, s23, 83 + (uint64_t)k);
    genie_tensor *bf = rnd(c, GENIE_BF16, 1, s37, 85), *i64 = genie_to_dtype(c, genie_mul_scalar(c, rnd(c, GENIE_F32, 2, s23, 87), 50), GENIE_I64);
    genie_tensor *z32 = genie_mul_scalar(c, rnd(c, GENIE_F32, 0, NULL, 89 + (uint64_t)k), 3), *z64 = rnd(c, GENIE_F64, 0, NULL, 91);
    genie_tensor *cond = genie_gt(c, a, genie_zeros(c, GENIE_F32, 1, one));
    switch (k) {
    case 0: /* tensors of two dtypes: f32 + f16, bf16 * f32 (broadcast), i64 + f32, where(bool, f16, f32), i64 / i32 */
        outs[0] = genie_add(c, a, h);
        outs[1] = genie_mul(c, bf, a);
        outs[2] = genie_add(c, i64, a);
        outs[3] = genie_where(c, cond, h, genie_exp(c, bf));
        outs[4] = genie_div(c, i64, genie_to_dtype(c, genie_add_scalar(c, genie_abs(c, i64), 1), GENIE_I32));
        outs[5] = genie_lt(c, h, a);
        outs[6] = genie_logical_and(c, h, genie_to_dtype(c, cond, GENIE_U8));
        outs[7] = genie_exp(c, genie_sub(c, genie_maximum(c, h, bf), a)); /* consumed on the server */
        return 8;
    default: /* 0-dim sources of another dtype, on either side; two 0-dim ones */
        outs[0] = genie_add(c, h, z32);                          /* f16, computed in f16 */
        outs[1] = genie_mul(c, z64, bf);                         /* bf16 */
        outs[2] = genie_add(c, genie_to_dtype(c, i64, GENIE_U8), genie_to_dtype(c, z32, GENIE_I64)); /* u8, wraps */
        outs[3] = genie_mul(c, genie_to_dtype(c, i64, GENIE_I32), z64); /* a float 0-dim over integers: f64 */
        outs[4] = genie_lt(c, h, z64);                           /* bool, compared in f16 */
        outs[5] = genie_where(c, cond, z32, h);                  /* f16 */
        outs[6] = genie_add(c, genie_to_dtype(c, z32, GENIE_F16), z64); /* two 0-dim: f64 */
        outs[7] = genie_div(c, genie_to_dtype(c, cond, GENIE_BOOL), genie_to_dtype(c, z32, GENIE_I64)); /* f32 */
        outs[8] = genie_clone(c, h); /* in place: f16 += a 0-dim f32, a slice of it *= a 0-dim f64 (in f16) */
        genie_add_(c, outs[8], z32);
        genie_mul_(c, genie_narrow(c, outs[8], 0, 3, 5), z64);
        outs[9] = genie_clone(c, a); /* f32 -= an i64 tensor */
        genie_sub_(c, outs[9], i64);
        return 10;
    }
}
/* Mixed dtypes run on the server, bit-identical to local, no node on the client's CPU. */
static void test_mixed(const char *addr) {
    int k;
    for (k = 0; k < 2; k++) {
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_tensor *ro[10], *lo[10];
        int n = mixed_program(rc, k, ro);
        genie_stats st;
        mixed_program(lc, k, lo);
        same_outputs(rc, lc, ro, lo, n, "mixed-dtype program", k);
        st = genie_get_stats(rc);
        CHECK(st.backend_fallbacks == 0 && st.backend_nodes >= (uint64_t)n, "mixed-dtype program %d: %llu nodes on the server, %llu on the CPU", k,
              (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
    }
}

static uint8_t *q_blocks(genie_dtype dt, int64_t nblocks, uint64_t seed);
/* What genie computes of mixed dtypes beyond binary ops: clamp of integer dtypes (bounds
   truncated and wrapped into the dtype, a missing one, bounds past the dtype), in-place writes
   whose promoted dtype is not the destination's (f16 *= bf16 computes in f32, i32 += i64 wraps),
   on slices too, ops of an empty result with a 0-dim source of another dtype, and linear of f32
   with bf16 (either bias). Outputs into outs. */
static int mixed_more_program(genie_ctx *c, genie_tensor **outs) {
    int64_t s23[2] = {23, 37}, s37[1] = {37}, e0[2] = {0, 37}, e1[2] = {23, 0}, xs[2] = {5, 64}, ws[2] = {24, 64}, bs[1] = {24};
    genie_tensor *a = rnd(c, GENIE_F32, 2, s23, 101), *h = rnd(c, GENIE_F16, 2, s23, 103), *bf = rnd(c, GENIE_BF16, 2, s23, 105);
    genie_tensor *i64 = genie_to_dtype(c, genie_mul_scalar(c, rnd(c, GENIE_F32, 2, s23, 107), 300), GENIE_I64);
    genie_tensor *z32 = genie_mul_scalar(c, rnd(c, GENIE_F32, 0, NULL, 109), 3), *z64 = rnd(c, GENIE_F64, 0, NULL, 111);
    genie_tensor *x = rnd(c, GENIE_F32, 2, xs, 113), *w = rnd(c, GENIE_BF16, 2, ws, 115), *t;
    int n = 0;
    /* clamp of integers */
    outs[n++] = genie_clamp(c, i64, -50.7, 120.2);
    outs[n++] = genie_clamp(c, genie_to_dtype(c, i64, GENIE_I32), NAN, 3);
    outs[n++] = genie_clamp(c, genie_to_dtype(c, i64, GENIE_U8), -1, 200); /* -1 wraps to 255 */
    outs[n++] = genie_clamp(c, genie_to_dtype(c, i64, GENIE_I8), -1e30, 1e30);
    outs[n++] = genie_clamp(c, genie_mul_scalar(c, i64, 1e13), -9e18, 1e300); /* i64: saturated bounds */
    /* in place, promoted past the destination's dtype */
    t = genie_clone(c, h);
    genie_mul_(c, t, bf);                                                 /* f16 *= bf16: in f32 */
    genie_add_(c, genie_narrow(c, t, 0, 4, 7), genie_narrow(c, a, 0, 1, 7)); /* a slice += f32 */
    genie_sub_(c, t, genie_to_dtype(c, a, GENIE_F64));                    /* f16 -= f64: in f64 */
    outs[n++] = t;
    t = genie_clone(c, bf);
    genie_add_(c, t, a);                                                  /* bf16 += f32 */
    genie_div_(c, genie_select(c, t, 1, 3), genie_to_dtype(c, genie_select(c, h, 1, 5), GENIE_F32));
    outs[n++] = t;
    t = genie_to_dtype(c, i64, GENIE_I32);
    genie_add_(c, t, genie_mul(c, i64, genie_full(c, GENIE_I64, 2, s23, 1e7))); /* i32 += i64: wraps */
    outs[n++] = t;
    t = genie_to_dtype(c, i64, GENIE_U8);
    genie_mul_(c, genie_narrow(c, t, 1, 2, 30), genie_to_dtype(c, genie_narrow(c, i64, 1, 0, 30), GENIE_I16)); /* u8 *= i16 */
    outs[n++] = t;
    t = genie_clone(c, a);
    genie_mul_(c, t, genie_exp(c, genie_to_dtype(c, a, GENIE_F64)));      /* f32 *= f64 */
    outs[n++] = t;
    /* empty results with a 0-dim source of another dtype */
    outs[n++] = genie_add(c, genie_narrow(c, h, 0, 3, 0), z32);
    outs[n++] = genie_mul(c, z64, genie_narrow(c, bf, 1, 5, 0));
    outs[n++] = genie_lt(c, genie_reshape(c, genie_narrow(c, h, 0, 0, 0), 2, e0), z64);
    outs[n++] = genie_where(c, genie_gt(c, genie_reshape(c, genie_narrow(c, a, 1, 0, 0), 2, e1), genie_zeros(c, GENIE_F32, 0, NULL)),
                            z32, genie_reshape(c, genie_narrow(c, h, 1, 0, 0), 2, e1));
    /* linear of f32 with bf16, the bias of either dtype or none */
    outs[n++] = genie_linear(c, x, w, rnd(c, GENIE_F32, 1, bs, 117));
    outs[n++] = genie_linear(c, x, w, rnd(c, GENIE_BF16, 1, bs, 119));
    outs[n++] = genie_linear(c, genie_to_dtype(c, x, GENIE_BF16), genie_to_dtype(c, w, GENIE_F32), NULL);
    outs[n++] = genie_relu(c, genie_linear(c, genie_select(c, x, 0, 2), w, rnd(c, GENIE_BF16, 1, bs, 121))); /* 1-D input */
    (void)s37;
    return n;
}
static void test_mixed_more(const char *addr) {
    genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
    genie_tensor *ro[24], *lo[24];
    int n = mixed_more_program(rc, ro);
    genie_stats st;
    mixed_more_program(lc, lo);
    same_outputs(rc, lc, ro, lo, n, "clamp, in-place, empty and linear of mixed dtypes", 0);
    st = genie_get_stats(rc);
    CHECK(st.backend_fallbacks == 0 && st.backend_nodes >= (uint64_t)n, "mixed dtypes beyond binary ops: %llu nodes on the server, %llu on the CPU",
          (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
    CHECK(st.inplace_reused >= 8, "in-place writes of mixed dtypes on the server: %llu in place, %llu copied", (unsigned long long)st.inplace_reused,
          (unsigned long long)st.inplace_copied);
    genie_ctx_destroy(rc);
    genie_ctx_destroy(lc);
}

/* Lookups whose indices the server checks: indices only it holds (computed there: an argmax, a
   clone of uploaded indices) or the host's out of range. embedding, index_select, gather,
   scatter, scatter_add, index_copy_ and the rows of a q8_0 weight run on the server; in range,
   bytes equal local; out of range, the read fails with genie's GENIE_ERR_INDEX and its
   message, as locally, a value computed from it fails alike, and the context and its
   connection go on. Program k on c (0: in range, 1: every output fails): outputs into outs. */
static int lookup_program(genie_ctx *c, int k, genie_tensor **outs, const uint8_t *qw) {
    int64_t s23[2] = {23, 37}, n5[1] = {5}, s2[2] = {2, 37}, qs[2] = {40, 64}, i5[5] = {3, 0, 22, 7, 7}, bad5[5] = {3, 0, 23, 7, 7};
    int64_t si[2 * 37], j;
    genie_tensor *a = rnd(c, GENIE_F32, 2, s23, 131), *b = rnd(c, GENIE_F32, 2, s23, 137), *idx, *sidx;
    genie_tensor *qwt = genie_from_blocks(c, GENIE_Q8_0, 2, qs, qw, NULL, NULL);
    for (j = 0; j < 2 * 37; j++) si[j] = (j * 11 + 5) % 23;
    idx = genie_clone(c, genie_from_data(c, GENIE_I64, 1, n5, k ? bad5 : i5)); /* computed on the server */
    sidx = genie_clone(c, genie_from_data(c, GENIE_I64, 2, s2, si));
    if (k == 0) {
        genie_tensor *am = genie_argmax(c, a, 1, 0); /* [23] in [0, 37) */
        outs[0] = genie_embedding(c, genie_transpose(c, b, 0, 1), am);
        outs[1] = genie_index_select(c, a, 0, idx);
        outs[2] = genie_index_select(c, genie_exp(c, a), 1, genie_to_dtype(c, idx, GENIE_I32));
        outs[3] = genie_gather(c, a, 1, genie_unsqueeze(c, am, 1));
        outs[4] = genie_scatter(c, a, 0, sidx, genie_exp(c, b));
        outs[5] = genie_scatter_add(c, genie_exp(c, a), 0, sidx, b);
        outs[6] = genie_embedding(c, qwt, idx); /* q8_0 rows */
        outs[7] = genie_index_select(c, qwt, 0, genie_narrow(c, idx, 0, 1, 3));
        outs[8] = genie_exp(c, b); /* index_copy_ by the server's indices into a value of its own */
        genie_index_copy_(c, outs[8], 0, genie_narrow(c, idx, 0, 0, 3), genie_narrow(c, a, 0, 5, 3));
        return 9;
    }
    /* out of range: an embedding, an index_select of q8_0 rows, a value computed from one, an
       index_copy_ into a value of the server's, by the server's indices and by the host's, and a
       gather by the host's */
    outs[0] = genie_embedding(c, a, idx);
    outs[1] = genie_index_select(c, qwt, 0, genie_add(c, idx, genie_full(c, GENIE_I64, 1, n5, 20)));
    outs[2] = genie_exp(c, genie_index_select(c, b, 0, idx));
    outs[3] = genie_exp(c, b);
    genie_index_copy_(c, outs[3], 0, idx, genie_narrow(c, a, 0, 0, 5));
    outs[4] = genie_exp(c, b);
    genie_index_copy_(c, outs[4], 1, genie_from_data(c, GENIE_I64, 1, n5, (const int64_t[]){0, 1, 2, 37, 4}), genie_narrow(c, a, 1, 0, 5));
    outs[5] = genie_gather(c, a, 0, genie_from_data(c, GENIE_I64, 2, (const int64_t[]){1, 2}, (const int64_t[]){22, 23}));
    return 6;
}
static void test_lookups(const char *addr) {
    uint8_t *qw = q_blocks(GENIE_Q8_0, 40 * 2, 5);
    genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
    genie_tensor *ro[9], *lo[9];
    genie_stats st;
    int n = lookup_program(rc, 0, ro, qw), i;
    lookup_program(lc, 0, lo, qw);
    same_outputs(rc, lc, ro, lo, n, "lookups by the server's indices", 0);
    st = genie_get_stats(rc);
    CHECK(st.backend_fallbacks == 0 && st.backend_nodes >= (uint64_t)n, "lookups by the server's indices: %llu nodes on the server, %llu on the CPU",
          (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
    n = lookup_program(rc, 1, ro, qw);
    lookup_program(lc, 1, lo, qw);
    for (i = 0; i < n; i++) {
        float buf[23 * 37];
        genie_result r1, r2;
        char m1[600], m2[600];
        genie_clear_error(rc);
        genie_clear_error(lc);
        r1 = genie_read(rc, ro[i], GENIE_F32, buf, (size_t)genie_numel(lo[i]) * 4);
        snprintf(m1, sizeof m1, "%s", genie_last_error(rc));
        r2 = genie_read(lc, lo[i], GENIE_F32, buf, (size_t)genie_numel(lo[i]) * 4);
        snprintf(m2, sizeof m2, "%s", genie_last_error(lc));
        CHECK(r1 == GENIE_ERR_INDEX && r1 == r2 && strcmp(m1, m2) == 0 && strstr(m1, "out of") != NULL,
              "lookup %d out of range: remote %d \"%s\", local %d \"%s\"", i, r1, m1, r2, m2);
    }
    st = genie_get_stats(rc);
    CHECK(st.backend_fallbacks == 0, "out-of-range lookups failed on the server: %llu on the CPU", (unsigned long long)st.backend_fallbacks);
    { /* the context and its connection go on */
        const int64_t nine[1] = {9};
        genie_tensor *r, *l;
        genie_clear_error(rc);
        genie_clear_error(lc);
        r = genie_exp(rc, genie_index_select(rc, rnd(rc, GENIE_F32, 1, nine, 3), 0, genie_arange(rc, GENIE_I64, 8, -1, -2)));
        l = genie_exp(lc, genie_index_select(lc, rnd(lc, GENIE_F32, 1, nine, 3), 0, genie_arange(lc, GENIE_I64, 8, -1, -2)));
        same_outputs(rc, lc, &r, &l, 1, "after the lookup errors", 0);
    }
    genie_ctx_destroy(rc);
    genie_ctx_destroy(lc);
    free(qw);
}

/* Lookups whose indices an op bounds (positions from an arange, an integer clamp, an argmax)
   need no check by the server: 4 KV-cache writes a step at an arange's position, an embedding
   by clamped indices and an index_select by an argmax cost no round trip of their own (0 while
   they are gathered and sent), equal to local; an arange past the cache is still checked
   there, GENIE_ERR_INDEX. */
static void test_bounded_idx(const char *addr) {
    genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
    genie_ctx *cs[2] = {rc, lc};
    int64_t shc[3] = {16, 2, 4}, shk[3] = {1, 2, 4}, shv[1] = {10}, shw[2] = {10, 3};
    genie_tensor *cache[2][4], *out[2][4];
    uint64_t trips;
    int t, l, k;
    for (k = 0; k < 2; k++) {
        for (l = 0; l < 4; l++) cache[k][l] = genie_zeros(cs[k], GENIE_F32, 3, shc), genie_retain(cache[k][l]);
        genie_realize(cs[k], 4, cache[k]);
    }
    for (t = 0; t < 3; t++) {
        trips = genie_get_stats(rc).remote_round_trips;
        for (k = 0; k < 2; k++) {
            genie_tensor *pos = genie_arange(cs[k], GENIE_I64, 5 * t, 5 * t + 1, 1);
            for (l = 0; l < 4; l++) genie_index_copy_(cs[k], cache[k][l], 0, pos, genie_rand(cs[k], GENIE_F32, 3, shk, (uint64_t)(t * 10 + l)));
        }
        CHECK(genie_realize(rc, 4, cache[0]) == GENIE_OK, "KV writes at arange positions: %s", genie_last_error(rc));
        CHECK(genie_get_stats(rc).remote_round_trips == trips, "step %d: 4 KV writes at an arange's position took %llu round trips (want 0)",
              t, (unsigned long long)(genie_get_stats(rc).remote_round_trips - trips));
        same_outputs(rc, lc, cache[0], cache[1], 4, "KV writes at arange positions", t);
    }
    trips = genie_get_stats(rc).remote_round_trips;
    for (k = 0; k < 2; k++) {
        genie_tensor *w = genie_rand(cs[k], GENIE_F32, 2, shw, 7), *v = genie_rand(cs[k], GENIE_F32, 1, shv, 8);
        genie_tensor *ids = genie_clamp(cs[k], genie_arange(cs[k], GENIE_I64, -4, 16, 1), 0, 9);
        out[k][0] = genie_embedding(cs[k], w, ids);
        out[k][1] = genie_index_select(cs[k], w, 0, genie_argmax(cs[k], v, 0, 1));
        out[k][2] = genie_embedding(cs[k], w, genie_narrow(cs[k], genie_arange(cs[k], GENIE_I32, 9, -1, -1), 0, 2, 5));
    }
    CHECK(genie_realize(rc, 3, out[0]) == GENIE_OK && genie_get_stats(rc).remote_round_trips == trips,
          "lookups by clamped, argmax and narrowed arange indices: %llu round trips (want 0): %s",
          (unsigned long long)(genie_get_stats(rc).remote_round_trips - trips), genie_last_error(rc));
    same_outputs(rc, lc, out[0], out[1], 3, "lookups by bounded indices", 0);
    CHECK(genie_get_stats(rc).backend_fallbacks == 0, "bounded lookups: on the server (%llu fallbacks)",
          (unsigned long long)genie_get_stats(rc).backend_fallbacks);
    { /* position 16 of a 16-row cache: checked on the server, genie's error */
        genie_tensor *r = genie_index_copy_(rc, cache[0][0], 0, genie_arange(rc, GENIE_I64, 16, 17, 1), genie_rand(rc, GENIE_F32, 3, shk, 99));
        genie_tensor *q = genie_index_copy_(lc, cache[1][0], 0, genie_arange(lc, GENIE_I64, 16, 17, 1), genie_rand(lc, GENIE_F32, 3, shk, 99));
        genie_result e1 = r ? genie_realize(rc, 1, &r) : genie_status(rc), e2 = q ? genie_realize(lc, 1, &q) : genie_status(lc);
        CHECK(e1 == GENIE_ERR_INDEX && e2 == GENIE_ERR_INDEX, "an arange position past the cache: remote %d (%s), local %d", e1, genie_last_error(rc), e2);
    }
    for (k = 0; k < 2; k++)
        for (l = 0; l < 4; l++) genie_release(cache[k][l]);
    genie_ctx_destroy(rc);
    genie_ctx_destroy(lc);
}

/* --max-run-work, which the server's WELCOME gives the client: 8 layers of a 128^3 product and
   tanh (each ~2.5e7 of work) under a limit of 1e8 are sent in RUNs within it, and a value
   realized among them reads back right; one 320^3 product alone past the limit is computed by
   the client's CPU (a fallback), equal to local. (A RUN past the limit is refused, ERROR 5:
   test_hostile's raw sum of 2^40 reads.) */
static void test_work_cap(void) {
    server s;
    int64_t sq[2] = {128, 128}, big[2] = {320, 320};
    genie_ctx *rc, *lc;
    genie_tensor *r[2], *l[2], *rw, *lw;
    uint64_t fb;
    int j;
    if (server_start(&s, "--max-run-work", "1e8", "workcap") != 0) { CHECK(0, "the server with --max-run-work did not start"); return; }
    rc = remote_ctx(s.addr), lc = local_ctx();
    r[0] = rnd(rc, GENIE_F32, 2, sq, 1), rw = rnd(rc, GENIE_F32, 2, sq, 2);
    l[0] = rnd(lc, GENIE_F32, 2, sq, 1), lw = rnd(lc, GENIE_F32, 2, sq, 2);
    for (j = 0; j < 8; j++) {
        r[0] = genie_tanh(rc, genie_matmul(rc, r[0], rw)), l[0] = genie_tanh(lc, genie_matmul(lc, l[0], lw));
        if (j == 3) r[1] = r[0], l[1] = l[0], genie_retain(r[1]), genie_retain(l[1]);
    }
    CHECK(genie_realize(rc, 2, r) == GENIE_OK, "8 layers under --max-run-work 1e8 realized: %s", genie_last_error(rc));
    same_outputs(rc, lc, r, l, 2, "8 layers of a 128^3 product sent within --max-run-work", 0);
    CHECK(genie_get_stats(rc).backend_fallbacks == 0, "8 layers within --max-run-work: on the server (%llu fallbacks)",
          (unsigned long long)genie_get_stats(rc).backend_fallbacks);
    genie_release(r[1]), genie_release(l[1]);
    fb = genie_get_stats(rc).backend_fallbacks;
    r[0] = genie_matmul(rc, rnd(rc, GENIE_F32, 2, big, 3), rnd(rc, GENIE_F32, 2, big, 4));
    l[0] = genie_matmul(lc, rnd(lc, GENIE_F32, 2, big, 3), rnd(lc, GENIE_F32, 2, big, 4));
    same_outputs(rc, lc, r, l, 1, "a 320^3 product past --max-run-work", 0);
    CHECK(genie_get_stats(rc).backend_fallbacks == fb + 1, "a 320^3 product past --max-run-work: on the client's CPU (%llu fallbacks, %llu before)",
          (unsigned long long)genie_get_stats(rc).backend_fallbacks, (unsigned long long)fb);
    genie_ctx_destroy(rc);
    genie_ctx_destroy(lc);
    CHECK(server_stop(&s) == 0, "work cap: the server exits 0 on SIGTERM");
}

static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
/* A long RUN of little output (argmax over 2^29 reads of one element, a few seconds) goes to a
   pool thread, not the server's loop: another client's handshake and small reads meanwhile
   come back within 0.5 s each. The argmax's client waits up to 120 s for its reply: the RUN
   takes 2-4 s on an idle core and several times that on a loaded machine (past the default
   10 s at load 7), and how long it takes is not what this test checks. */
static void test_loop_free(void) {
    server s;
    int go[2], st = 0, n = 0, ok = 1;
    pid_t kid;
    double worst = 0;
    char one;
    if (pipe(go) != 0) { CHECK(0, "pipe"); return; }
    if (server_start(&s, "--run-threads", "2", "loopfree") != 0) { CHECK(0, "the server for a long argmax did not start"); return; }
    fflush(stdout);
    if ((kid = fork()) == 0) { /* the long RUN */
        genie_ctx *c;
        setenv("GENIE_REMOTE_TIMEOUT_MS", "120000", 1);
        c = remote_ctx(s.addr);
        int64_t N = (int64_t)1 << 29, at = -1;
        float three = 3;
        genie_tensor *a = genie_argmax(c, genie_expand(c, genie_from_data(c, GENIE_F32, 0, NULL, &three), 1, &N), 0, 0);
        genie_result e;
        if (write(go[1], "g", 1) != 1) _exit(3);
        e = genie_read(c, a, GENIE_I64, &at, sizeof at);
        _exit(e == GENIE_OK && at == 0 && genie_get_stats(c).backend_fallbacks == 0 ? 0 : 1);
    }
    close(go[1]);
    if (read(go[0], &one, 1) == 1) { /* the connection's handshake is timed as a read too */
        struct timespec pause = {0, 200000000}, gap = {0, 20000000};
        double t0 = (nanosleep(&pause, NULL), wall_now());
        genie_ctx *c = remote_ctx(s.addr);
        int64_t four = 4;
        float x[4] = {1, 2, 3, 4}, y[4];
        worst = wall_now() - t0;
        while (ok && waitpid(kid, &st, WNOHANG) == 0) {
            double t0 = wall_now();
            genie_pool_push(c);
            ok = genie_read(c, genie_exp(c, genie_from_data(c, GENIE_F32, 1, &four, x)), GENIE_F32, y, sizeof y) == GENIE_OK;
            genie_pool_pop(c);
            if (wall_now() - t0 > worst) worst = wall_now() - t0;
            n++;
            nanosleep(&gap, NULL);
        }
        CHECK(ok, "small reads beside a long argmax: %s", genie_last_error(c));
        genie_ctx_destroy(c);
    }
    if (ok) waitpid(kid, &st, 0);
    else kill(kid, SIGKILL), waitpid(kid, &st, 0);
    close(go[0]);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "argmax over 2^29 reads of one element on the server: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    CHECK(n >= 3 && worst < 0.5, "beside a long argmax: %d small reads, the longest (or the handshake) %.3f s (want under 0.5 s, 3 reads at least)", n, worst);
    printf("  loop free: %d small reads beside a long argmax, the longest %.3f s\n", n, worst);
    server_done(&s, "a long argmax on the pool", "RUNs on the loop, 1 on the pool", 1);
}


/* ---- quantized linear: block-dtype weights (genie_from_blocks) run on the server ---- */
/* n random blocks of block dtype dt whose f16 scales (and K-quants' mins) are small normal
   numbers (random bytes there could be NaN or infinite) */
static uint8_t *q_blocks(genie_dtype dt, int64_t nblocks, uint64_t seed) {
    static const int bytes[4] = {34, 18, 144, 210};
    const int bb = bytes[dt - GENIE_Q8_0];
    uint8_t *p = (uint8_t *)malloc((size_t)(nblocks * bb));
    int64_t i, b;
    for (i = 0; i < nblocks * bb; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        p[i] = (uint8_t)(seed >> 24);
    }
    for (b = 0; b < nblocks; b++) { /* the f16 fields: q8_0/q4_0/q4_k d at 0 (q4_k dmin at 2), q6_k d at 208 */
        uint8_t *q = p + b * bb + (dt == GENIE_Q6_K ? 208 : 0);
        q[1] = (uint8_t)(0x20 | (q[1] & 0x0f));
        if (dt == GENIE_Q4_K) q[3] = (uint8_t)(0x20 | (q[3] & 0x0f));
    }
    return p;
}
/* y = linear(x, w, b) and x @ w.t() of a [N, K] weight of block dtype dt, for two inputs of
   `rows` rows: into out (2 x 2 x rows x N floats). */
static genie_result q_prog(genie_ctx *c, genie_dtype dt, int64_t N, int64_t K, int64_t rows, const uint8_t *wbytes, float *out) {
    int64_t ws[2] = {N, K}, xs[2] = {rows, K}, bs[1] = {N};
    genie_tensor *w = genie_from_blocks(c, dt, 2, ws, wbytes, NULL, NULL), *b = rnd(c, GENIE_F32, 1, bs, 5);
    int step;
    for (step = 0; step < 2; step++) {
        genie_tensor *x = rnd(c, GENIE_F32, 2, xs, 11 + (uint64_t)step);
        genie_tensor *y[2];
        y[0] = genie_linear(c, x, w, b);
        y[1] = genie_matmul(c, x, genie_t(c, w));
        if (genie_read(c, y[0], GENIE_F32, out, (size_t)(rows * N * 4)) != GENIE_OK ||
            genie_read(c, y[1], GENIE_F32, out + rows * N, (size_t)(rows * N * 4)) != GENIE_OK)
            return genie_status(c);
        out += 2 * rows * N;
    }
    return GENIE_OK;
}
static void test_quant(const char *addr) {
    static const struct { genie_dtype dt; int64_t N, K, rows; } cases[] = {
        {GENIE_Q8_0, 40, 96, 3}, {GENIE_Q4_0, 40, 96, 1}, {GENIE_Q8_0, 7, 64, 16}, {GENIE_Q4_K, 9, 512, 2}, {GENIE_Q6_K, 9, 256, 5},
        {GENIE_Q8_0, 40, 96, 40}, {GENIE_Q4_0, 24, 64, 17}, {GENIE_Q4_K, 9, 512, 20}, /* prefills: more than 16 rows */
    };
    size_t k;
    { /* genie_from_blocks refuses a dtype that is not a block one and a last dim of part of a block */
        genie_ctx *lc = local_ctx();
        int64_t ws[2] = {4, 48};
        uint8_t bytes[4 * 2 * 34] = {0};
        CHECK(!genie_from_blocks(lc, GENIE_F32, 2, ws, bytes, NULL, NULL) && genie_status(lc) == GENIE_ERR_DTYPE, "genie_from_blocks of f32: %s",
              genie_last_error(lc));
        genie_clear_error(lc);
        CHECK(!genie_from_blocks(lc, GENIE_Q8_0, 2, ws, bytes, NULL, NULL) && genie_status(lc) == GENIE_ERR_SHAPE &&
                  strstr(genie_last_error(lc), "[4,48]"),
              "genie_from_blocks of q8_0 [4, 48]: %s", genie_last_error(lc));
        genie_ctx_destroy(lc);
    }
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const genie_dtype dt = cases[k].dt;
        const int64_t N = cases[k].N, K = cases[k].K, rows = cases[k].rows, n = 4 * rows * N;
        const int64_t nblk = N * K / (dt == GENIE_Q8_0 || dt == GENIE_Q4_0 ? 32 : 256);
        uint8_t *wb = q_blocks(dt, nblk, 99 + k);
        float *ro = (float *)calloc((size_t)n, 4), *lo = (float *)calloc((size_t)n, 4);
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_result e = q_prog(rc, dt, N, K, rows, wb, ro);
        genie_stats st = genie_get_stats(rc);
        CHECK(e == GENIE_OK, "%s linear remote: %s", genie_dtype_name(dt), genie_last_error(rc));
        CHECK(q_prog(lc, dt, N, K, rows, wb, lo) == GENIE_OK, "%s linear local: %s", genie_dtype_name(dt), genie_last_error(lc));
        CHECK(memcmp(ro, lo, (size_t)n * 4) == 0, "%s [%lld, %lld] x %lld rows: remote bytes differ from local", genie_dtype_name(dt),
              (long long)N, (long long)K, (long long)rows);
        CHECK(st.backend_fallbacks == 0 && st.backend_nodes >= 4, "%s linear: %llu nodes on the server, %llu on the CPU", genie_dtype_name(dt),
              (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
        { /* the weight crosses once: up go the weight, the bias and the 2 inputs (the weight twice would be more) */
            const uint64_t wbytes = (uint64_t)(nblk * (dt == GENIE_Q8_0 ? 34 : dt == GENIE_Q4_0 ? 18 : dt == GENIE_Q4_K ? 144 : 210)),
                           rest = (uint64_t)(N + 2 * rows * K) * 4;
            CHECK(st.bytes_to_device >= wbytes && st.bytes_to_device < 2 * wbytes + rest, "%s linear: %llu bytes to the server (weight %llu, rest %llu)",
                  genie_dtype_name(dt), (unsigned long long)st.bytes_to_device, (unsigned long long)wbytes, (unsigned long long)rest);
        }
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
        free(wb);
        free(ro);
        free(lo);
    }
}

/* Rows and dequantized views of a [V, K] weight of block dtype dt over 3 steps, as a GGUF's
   token embedding is read: each step embeds one token ([1, K]), index_selects 3 rows ([3, K]) and
   dequantizes rows step..step+1 to f32 ([2, K]); then the whole weight to f16 ([V, K]). Into out
   (3 x 6 x K + V x K floats). */
static genie_result q_rows_prog(genie_ctx *c, genie_dtype dt, int64_t V, int64_t K, const uint8_t *wbytes, float *out) {
    int64_t ws[2] = {V, K}, one = 1, three = 3;
    genie_tensor *w = genie_from_blocks(c, dt, 2, ws, wbytes, NULL, NULL);
    int64_t step;
    for (step = 0; step < 3; step++) {
        const int64_t tok = (7 * step + 3) % V, rows[3] = {V - 1, step, (5 * step + 1) % V};
        genie_tensor *y[3];
        y[0] = genie_embedding(c, w, genie_from_data(c, GENIE_I64, 1, &one, &tok));
        y[1] = genie_index_select(c, w, 0, genie_from_data(c, GENIE_I64, 1, &three, rows));
        y[2] = genie_to_dtype(c, genie_narrow(c, w, 0, step, 2), GENIE_F32);
        if (genie_read(c, y[0], GENIE_F32, out, (size_t)K * 4) != GENIE_OK || genie_read(c, y[1], GENIE_F32, out + K, (size_t)(3 * K * 4)) != GENIE_OK ||
            genie_read(c, y[2], GENIE_F32, out + 4 * K, (size_t)(2 * K * 4)) != GENIE_OK)
            return genie_status(c);
        out += 6 * K;
    }
    return genie_read(c, genie_to_dtype(c, w, GENIE_F16), GENIE_F32, out, (size_t)(V * K * 4));
}
static void test_quant_rows(const char *addr) {
    static const struct { genie_dtype dt; int64_t V, K; } cases[] = {{GENIE_Q8_0, 50, 64}, {GENIE_Q4_0, 33, 96}, {GENIE_Q4_K, 9, 512}, {GENIE_Q6_K, 12, 256}};
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const genie_dtype dt = cases[k].dt;
        const int64_t V = cases[k].V, K = cases[k].K, n = 18 * K + V * K, nblk = V * K / (dt == GENIE_Q8_0 || dt == GENIE_Q4_0 ? 32 : 256);
        const uint64_t wbytes = (uint64_t)(nblk * (dt == GENIE_Q8_0 ? 34 : dt == GENIE_Q4_0 ? 18 : dt == GENIE_Q4_K ? 144 : 210));
        uint8_t *wb = q_blocks(dt, nblk, 7 + k);
        float *ro = (float *)calloc((size_t)n, 4), *lo = (float *)calloc((size_t)n, 4);
        genie_ctx *rc = remote_ctx(addr), *lc = local_ctx();
        genie_result e = q_rows_prog(rc, dt, V, K, wb, ro);
        genie_stats st = genie_get_stats(rc);
        CHECK(e == GENIE_OK, "%s rows remote: %s", genie_dtype_name(dt), genie_last_error(rc));
        CHECK(q_rows_prog(lc, dt, V, K, wb, lo) == GENIE_OK, "%s rows local: %s", genie_dtype_name(dt), genie_last_error(lc));
        CHECK(memcmp(ro, lo, (size_t)n * 4) == 0, "%s [%lld, %lld] rows and dequantized views: remote bytes differ from local", genie_dtype_name(dt),
              (long long)V, (long long)K);
        CHECK(st.backend_fallbacks == 0 && st.backend_nodes >= 10, "%s rows: %llu nodes on the server, %llu on the CPU", genie_dtype_name(dt),
              (unsigned long long)st.backend_nodes, (unsigned long long)st.backend_fallbacks);
        /* the weight crosses once: it and the indices go up (the weight twice would be more) */
        CHECK(st.bytes_to_device >= wbytes && st.bytes_to_device < wbytes + 1024, "%s rows: %llu bytes to the server (weight %llu)",
              genie_dtype_name(dt), (unsigned long long)st.bytes_to_device, (unsigned long long)wbytes);
        genie_ctx_destroy(rc);
        genie_ctx_destroy(lc);
        free(wb);
        free(ro);
        free(lo);
    }
}

/* ---- only what is read comes back ---- */
/* Steps whose freed buffers wait to go as a FREE when the step is read (genie's block cache off,
   every released block given back at once), remote against local: a step of a host blob read each
   time (its read a RUN_CACHED_GET with a FREE after it: the read waits for the GET's own reply),
   then 640 KiB uploads, each replacing the last, under a server whose --client-mb 1 holds one of
   them (the FREE of the last goes before the next PUT). */
static void test_frees_pending(const char *addr) {
    static float big[160 * 1024];
    genie_ctx_desc d;
    genie_ctx *c, *l;
    server b;
    int step, k;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    d.block_cache_bytes = 1;
    for (k = 0; k < 2; k++) {
        const char *where = addr;
        if (k == 1) {
            if (server_start(&b, "--client-mb", "1", "clientmb1") != 0) {
                CHECK(0, "a server with --client-mb 1 did not start (build/remote_test_clientmb1.log)");
                return;
            }
            where = b.addr;
        }
        d.backend = "remote", d.backend_config = where;
        c = genie_ctx_create(&d);
        d.backend = NULL, d.backend_config = NULL;
        l = genie_ctx_create(&d);
        for (step = 0; step < 4; step++) {
            float x[16], rv[16], lv[16];
            int64_t n = k ? 160 * 1024 : 16;
            genie_ctx *ctx[2] = {c, l};
            genie_result res[2];
            int i, j;
            for (i = 0; i < 16; i++) x[i] = (float)(i + step);
            for (i = 0; i < (int)n && k; i++) big[i] = (float)(step + 1) * 0.5f;
            for (j = 0; j < 2; j++) {
                genie_tensor *t, *y;
                genie_pool_push(ctx[j]);
                t = k ? genie_from_data(ctx[j], GENIE_F32, 1, &n, big) : genie_from_blob(ctx[j], GENIE_F32, 1, &n, NULL, x, NULL, NULL);
                y = genie_mul(ctx[j], genie_exp(ctx[j], genie_mul_scalar(ctx[j], t, 0.01)), t);
                if (k) y = genie_sum(ctx[j], y, 0, NULL, 0);
                res[j] = genie_read(ctx[j], y, GENIE_F32, j ? lv : rv, k ? sizeof(float) : sizeof rv);
                genie_pool_pop(ctx[j]);
            }
            CHECK(res[0] == GENIE_OK && res[1] == GENIE_OK && memcmp(rv, lv, k ? sizeof(float) : sizeof rv) == 0 &&
                      strcmp(genie_backend_name(c), "remote") == 0,
                  "%s step %d with FREEs waiting: remote %d (%s), local %d, values %s", k ? "640 KiB upload" : "blob", step, res[0],
                  res[0] ? genie_last_error(c) : "", res[1], memcmp(rv, lv, k ? sizeof(float) : sizeof rv) ? "differ" : "equal");
        }
        genie_ctx_destroy(c);
        genie_ctx_destroy(l);
        if (k == 1) CHECK(server_stop(&b) == 0, "the --client-mb 1 server exits 0");
    }
}
static void test_slice(const char *addr) {
    int64_t s[2] = {1024, 256};
    genie_ctx *c = remote_ctx(addr);
    genie_tensor *x = rnd(c, GENIE_F32, 2, s, 9), *y = genie_exp(c, x), *row;
    float buf[10 * 256], ref[10 * 256];
    double v;
    uint64_t before;
    genie_tuple *tup;
    genie_realize(c, 1, &y);
    CHECK(genie_remote_hashed(c) == GENIE_OK, "x's HASHED: %s", genie_last_error(c)); /* before the counting */
    before = genie_get_stats(c).remote_bytes_received;
    CHECK(genie_read(c, genie_slice(c, y, 0, 100, 110, 1), GENIE_F32, buf, sizeof buf) == GENIE_OK, "slice read: %s", genie_last_error(c));
    CHECK(genie_get_stats(c).remote_bytes_received - before == GR_HDR_BYTES + sizeof buf, "a 10-row slice brought back %llu bytes (%zu + header)",
          (unsigned long long)(genie_get_stats(c).remote_bytes_received - before), sizeof buf);
    {
        genie_ctx *l = local_ctx();
        genie_tensor *lx = rnd(l, GENIE_F32, 2, s, 9);
        genie_read(l, genie_slice(l, genie_exp(l, lx), 0, 100, 110, 1), GENIE_F32, ref, sizeof ref);
        CHECK(memcmp(buf, ref, sizeof buf) == 0, "slice values");
        genie_ctx_destroy(l);
    }
    before = genie_get_stats(c).remote_bytes_received;
    row = genie_select(c, genie_select(c, y, 0, 500), 0, 7);
    CHECK(genie_item(c, row, &v) == GENIE_OK && genie_get_stats(c).remote_bytes_received - before == GR_HDR_BYTES + 4, "item brought back %llu bytes",
          (unsigned long long)(genie_get_stats(c).remote_bytes_received - before));
    /* a tuple element: one chunk of a remote value */
    y = genie_tanh(c, x);
    genie_realize(c, 1, &y);
    tup = genie_chunk(c, y, 4, 0);
    before = genie_get_stats(c).remote_bytes_received;
    {
        float *q = (float *)malloc(256 * 256 * 4);
        CHECK(genie_read(c, genie_tuple_get(tup, 2), GENIE_F32, q, 256 * 256 * 4) == GENIE_OK &&
                  genie_get_stats(c).remote_bytes_received - before == GR_HDR_BYTES + 256 * 256 * 4,
              "a tuple element brought back %llu bytes", (unsigned long long)(genie_get_stats(c).remote_bytes_received - before));
        free(q);
    }
    genie_ctx_destroy(c);
}

/* ---- a hostile raw client ---- */
/* last: a reply's leading bytes; cr: the server's CREDITs taken in (grx.credit): raw_upload (grx_put)
   keeps to the WELCOME's window, raw_put and raw_call send at once */
typedef struct raw { grx x; ucp_ep_h ep; volatile int dead; uint64_t req; uint8_t last[16]; size_t last_n; grx_credit cr; } raw;
static void raw_err(void *arg, ucp_ep_h ep, ucs_status_t s) { (void)ep; (void)s; ((raw *)arg)->dead = 1; }
static int raw_open(raw *r, int port) {
    char msg[256], a[64];
    memset(r, 0, sizeof *r);
    snprintf(a, sizeof a, "127.0.0.1:%d", port);
    if (grx_connect(&r->x, a, (uint64_t)1 << 30, raw_err, r, &r->ep, msg, sizeof msg) != 0) return -1;
    r->cr.window = UINT64_MAX;
    r->x.credit = &r->cr;
    return 0;
}
static void raw_close(raw *r) {
    grx_close_ep(&r->x, r->ep, 1);
    grx_destroy(&r->x);
}
/* sends and waits for a reply (type into *type, ERROR code into *code); 0 if none in 5 s */
static int raw_call(raw *r, int type, const void *p, size_t n, int *rtype, uint32_t *code) {
    double until = grx_now() + 5.0;
    uint64_t id = ++r->req;
    grx_send(&r->x, r->ep, type, id, p, n, until, &r->dead);
    while (grx_now() < until) {
        grx_msg *m;
        ucp_worker_progress(r->x.w);
        while ((m = grx_pop(&r->x, r->ep))) {
            gr_hdr h;
            int ok = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0;
            if (ok) {
                *rtype = h.type;
                if (h.type == GR_ERROR && m->len >= 4) *code = (uint32_t)(m->data[0] | m->data[1] << 8);
                r->last_n = m->len < sizeof r->last ? (size_t)m->len : sizeof r->last;
                if (r->last_n) memcpy(r->last, m->data, r->last_n); /* an empty payload may have no data */
            }
            grx_msg_free(&r->x, m);
            if (ok) return 1;
        }
        if (r->dead) return 0;
    }
    return 0;
}
static int raw_hello(raw *r, unsigned vmin, unsigned vmax, uint8_t challenge[32], uint8_t nonce[32], int *rtype, uint32_t *code) {
    uint8_t p[36];
    double until = grx_now() + 5.0;
    uint64_t id = ++r->req;
    p[0] = (uint8_t)vmin, p[1] = 0, p[2] = (uint8_t)vmax, p[3] = 0;
    memset(p + 4, 0x5a, 32);
    if (nonce) memcpy(nonce, p + 4, 32);
    grx_send(&r->x, r->ep, GR_HELLO, id, p, sizeof p, until, &r->dead);
    while (grx_now() < until && !r->dead) {
        grx_msg *m;
        ucp_worker_progress(r->x.w);
        if ((m = grx_pop(&r->x, r->ep))) {
            gr_hdr h;
            gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h);
            *rtype = h.type;
            if (h.type == GR_WELCOME && m->len == GR_WELCOME_BYTES && challenge) memcpy(challenge, m->data + 16, 32);
            if (h.type == GR_WELCOME) {
                gr_welcome w;
                if (gr_welcome_decode(m->data, m->len, &w)) r->cr.window = w.put_window;
            }
            if (h.type == GR_ERROR && m->len >= 4) *code = m->data[0];
            grx_msg_free(&r->x, m);
            return 1;
        }
    }
    return 0;
}
/* after an error that keeps the connection: the server still answers */
/* The next `want` replies to r (5 s at most): their types, request ids, ERROR codes, and the
   payload of the last DATA (up to dn bytes) into data; how many came. */
static int raw_replies(raw *r, int want, int *types, uint64_t *ids, uint32_t *codes, uint8_t *data, size_t dn) {
    double until = grx_now() + 5.0;
    int got = 0;
    while (got < want && grx_now() < until && !r->dead) {
        grx_msg *m;
        ucp_worker_progress(r->x.w);
        while (got < want && (m = grx_pop(&r->x, r->ep))) {
            gr_hdr h;
            if (gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0) {
                types[got] = h.type, ids[got] = h.id, codes[got] = 0;
                if (h.type == GR_ERROR && m->len >= 4) codes[got] = (uint32_t)(m->data[0] | m->data[1] << 8);
                if (h.type == GR_DATA && data) memcpy(data, m->data, m->len < dn ? (size_t)m->len : dn);
                got++;
            }
            grx_msg_free(&r->x, m);
        }
    }
    return got;
}
static int raw_alive(raw *r) {
    int t = 0;
    uint32_t code = 0;
    return raw_call(r, GR_PING, NULL, 0, &t, &code) && t == GR_OK;
}
/* ---- uploads in parts, the tree hash, the queue cap ---- */
static void test_tree_hash(void) {
    static const size_t sizes[] = {0, 1, 1000, (size_t)GR_LEAF_BYTES, (size_t)GR_LEAF_BYTES + 1, 3 * (size_t)GR_LEAF_BYTES + 5};
    size_t n = 3 * (size_t)GR_LEAF_BYTES + 5, i, k;
    uint8_t *a = (uint8_t *)malloc(n), *copy = (uint8_t *)malloc(n), h1[32], h4[32], leaves[4 * 32], root[32];
    for (i = 0; i < n; i++) a[i] = (uint8_t)(i * 2654435761u >> 13);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        gr_content_hash(a, sizes[k], h1, 1);
        gr_content_hash(a, sizes[k], h4, 4);
        CHECK(memcmp(h1, h4, 32) == 0, "tree hash of %zu bytes: 1 thread vs 4 differ", sizes[k]);
        memset(copy, 0, n); /* leaves hashed on the way of a copy: the same leaves, the bytes copied */
        gr_hash_leaves(copy, a, sizes[k], leaves, 3);
        gr_hash_root(sizes[k], leaves, root);
        CHECK(memcmp(root, h1, 32) == 0 && memcmp(copy, a, sizes[k]) == 0, "tree hash of %zu bytes through a copy", sizes[k]);
    }
    gr_content_hash(a, n, h1, 2);
    a[n - 1] ^= 1; /* one bit of the last leaf, and the length, each change the hash */
    gr_content_hash(a, n, h4, 2);
    CHECK(memcmp(h1, h4, 32) != 0, "tree hash: a flipped bit in the last leaf");
    a[n - 1] ^= 1;
    gr_content_hash(a, n - 1, h4, 2);
    CHECK(memcmp(h1, h4, 32) != 0, "tree hash: one byte shorter");
    free(a);
    free(copy);
}
/* a PUT_PART payload: id, cap, offset, then n bytes of v */
static uint8_t *part_msg(uint64_t id, uint64_t cap, uint64_t off, size_t n, int v) {
    uint8_t *p = (uint8_t *)malloc(24 + n);
    gr_put_u64_at(p, id);
    gr_put_u64_at(p + 8, cap);
    gr_put_u64_at(p + 16, off);
    memset(p + 24, v, n);
    return p;
}
static void test_parts(const char *addr) {
    int64_t n = 1300001; /* 5.2 MB of f32: two PUT_PARTs and a PUT */
    float *v = (float *)malloc((size_t)n * sizeof(float));
    genie_ctx *c = remote_ctx(addr), *c2 = remote_ctx(addr), *l = local_ctx();
    genie_stats st;
    double rs = 0, ls = 0, r2 = 0;
    int64_t i;
    for (i = 0; i < n; i++) v[i] = (float)((i * 7919) % 1001) / 1000.0f;
    {
        genie_tensor *x = genie_from_data(c, GENIE_F32, 1, &n, v), *y = genie_from_data(l, GENIE_F32, 1, &n, v);
        genie_item(c, genie_sum(c, genie_exp(c, x), 1, (int64_t[]){0}, 0), &rs);
        genie_item(l, genie_sum(l, genie_exp(l, y), 1, (int64_t[]){0}, 0), &ls);
    }
    st = genie_get_stats(c);
    CHECK(genie_status(c) == GENIE_OK && rs == ls, "a 5.2 MB tensor in parts: remote %.9g vs local %.9g: %s", rs, ls, genie_last_error(c));
    CHECK(st.remote_bytes_sent >= (uint64_t)n * 4 && st.remote_bytes_sent < (uint64_t)n * 4 + 8192 && st.remote_messages_sent >= 5,
          "a 5.2 MB tensor: %llu bytes in %llu messages", (unsigned long long)st.remote_bytes_sent, (unsigned long long)st.remote_messages_sent);
    { /* the server's hash of the parts is the client's: a second client (the bytes its memory:
         hashed first) finds the bytes the first sent unhashed (HAS) once their HASHED is back */
        genie_tensor *x;
        CHECK(genie_remote_hashed(c) == GENIE_OK, "the parts' HASHED: %s", genie_last_error(c));
        x = genie_from_blob(c2, GENIE_F32, 1, &n, NULL, v, NULL, NULL);
        genie_item(c2, genie_sum(c2, genie_exp(c2, x), 1, (int64_t[]){0}, 0), &r2);
        st = genie_get_stats(c2);
        CHECK(genie_status(c2) == GENIE_OK && r2 == ls && st.remote_bytes_sent < 8192, "a second client: %.9g, %llu bytes sent: %s", r2,
              (unsigned long long)st.remote_bytes_sent, genie_last_error(c2));
    }
    genie_ctx_destroy(c);
    genie_ctx_destroy(c2);
    genie_ctx_destroy(l);
    free(v);
    { /* hostile parts: each an ERROR, the connection goes on */
        raw r;
        int t = 0, port = atoi(strrchr(addr, ':') + 1);
        uint32_t code = 0;
        size_t L = (size_t)GR_LEAF_BYTES;
        uint8_t *p, put[48 + 16], hash[32];
        CHECK(raw_open(&r, port) == 0 && raw_hello(&r, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "raw client");
        p = part_msg(41, 4 * L, L, L, 1); /* an upload starting past 0 */
        CHECK(raw_call(&r, GR_PUT_PART, p, 24 + L, &t, &code) && t == GR_ERROR && code == GR_E_MALFORMED, "part at offset 1 leaf first: type %d code %u", t, code);
        free(p);
        p = part_msg(41, 4 * L, 0, L, 1); /* half a leaf */
        CHECK(raw_call(&r, GR_PUT_PART, p, 24 + L / 2, &t, &code) && t == GR_ERROR && code == GR_E_MALFORMED, "half a leaf: type %d code %u", t, code);
        /* a whole leaf, then the rest with a hash that is not the bytes': ERROR 6, the buffer failed */
        CHECK(grx_send(&r.x, r.ep, GR_PUT_PART, ++r.req, p, 24 + L, grx_now() + 5, &r.dead) == UCS_OK && raw_alive(&r), "a part");
        free(p);
        memset(put, 0, sizeof put);
        gr_put_u64_at(put, 41);
        gr_put_u64_at(put + 8, 4 * L);
        memset(put + 16, 9, 32); /* a claimed hash (all zeros would claim none) */
        memset(put + 48, 1, 16);
        CHECK(raw_call(&r, GR_PUT, put, sizeof put, &t, &code) && t == GR_ERROR && code == GR_E_HASH, "parts, then a wrong hash: type %d code %u", t, code);
        {
            uint8_t get[24] = {41};
            get[16] = 4;
            CHECK(raw_call(&r, GR_GET, get, sizeof get, &t, &code) && t == GR_ERROR, "GET of a buffer whose parts failed: an ERROR");
        }
        /* the right hash: a leaf in a part and 16 bytes in the PUT; its bytes read back */
        p = part_msg(42, 4 * L, 0, L, 1);
        for (i = 0; i < 16; i++) p[24 + L - 16 + (size_t)i] = 2; /* the part ends in 16 bytes of 2, the PUT has 16 of 1 */
        {
            uint8_t *whole = (uint8_t *)malloc(L + 16);
            memcpy(whole, p + 24, L);
            memset(whole + L, 1, 16);
            gr_content_hash(whole, L + 16, hash, 2);
            free(whole);
        }
        gr_put_u64_at(put, 42);
        memcpy(put + 16, hash, 32);
        CHECK(grx_send(&r.x, r.ep, GR_PUT_PART, ++r.req, p, 24 + L, grx_now() + 5, &r.dead) == UCS_OK &&
                  grx_send(&r.x, r.ep, GR_PUT, ++r.req, put, sizeof put, grx_now() + 5, &r.dead) == UCS_OK && raw_alive(&r),
              "a part and the rest");
        free(p);
        {
            uint8_t get[24] = {42}, *back = NULL;
            double until = grx_now() + 5;
            grx_msg *m = NULL;
            gr_put_u64_at(get + 8, L - 16);
            gr_put_u64_at(get + 16, L + 16);
            grx_send(&r.x, r.ep, GR_GET, ++r.req, get, sizeof get, until, &r.dead);
            while (!m && grx_now() < until && !r.dead) {
                ucp_worker_progress(r.x.w);
                m = grx_pop(&r.x, r.ep);
            }
            if (m && m->len == 32) back = m->data;
            CHECK(back && back[0] == 2 && back[15] == 2 && back[16] == 1 && back[31] == 1, "the bytes of a part and the PUT read back");
            grx_msg_free(&r.x, m);
        }
        { /* 9 MiB and 5 bytes in parts (the server's huge-page upload memory) and a rest: every byte reads back */
            size_t big = ((size_t)9 << 20) + 5, k, bad = 0;
            uint8_t *v = (uint8_t *)malloc(big), none[32] = {0}, get[24];
            uint64_t msgs = 0, bytes = 0;
            double until = grx_now() + 10;
            grx_msg *m = NULL;
            for (k = 0; k < big; k++) v[k] = (uint8_t)(k * 2654435761u >> 11);
            CHECK(grx_put(&r.x, r.ep, &r.req, 43, big + 3, none, v, big, until, &r.dead, &msgs, &bytes) == UCS_OK && msgs == 5,
                  "a 9 MiB upload: 4 parts and a PUT (%llu messages)", (unsigned long long)msgs);
            gr_put_u64_at(get, 43);
            gr_put_u64_at(get + 8, 0);
            gr_put_u64_at(get + 16, big);
            grx_send(&r.x, r.ep, GR_GET, ++r.req, get, sizeof get, until, &r.dead);
            while (grx_now() < until && !r.dead) { /* the PUT's HASHED, then the DATA */
                gr_hdr h;
                ucp_worker_progress(r.x.w);
                if (!(m = grx_pop(&r.x, r.ep))) continue;
                if (gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0 && h.type == GR_DATA) break;
                grx_msg_free(&r.x, m);
                m = NULL;
            }
            for (k = 0; m && m->len == big && k < big; k++) bad += m->data[k] != v[k];
            CHECK(m && m->len == big && bad == 0, "a 9 MiB upload in parts reads back byte for byte (%zu bytes differ)", bad);
            grx_msg_free(&r.x, m);
            free(v);
        }
        raw_close(&r);
    }
}
/* ---- PUTs hashed in the background (a server whose hash thread waits --hash-hold-ms first) ---- */
/* The next message (5 s at most): 1 with its type, request id and up to 64 leading bytes, else 0. */
static int raw_next(raw *r, int *type, uint64_t *req, uint8_t *lead) {
    double until = grx_now() + 5.0;
    while (grx_now() < until && !r->dead) {
        grx_msg *m;
        ucp_worker_progress(r->x.w);
        if ((m = grx_pop(&r->x, r->ep))) {
            gr_hdr h;
            int ok = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0;
            *type = ok ? h.type : -1, *req = h.id;
            if (lead && m->len) memcpy(lead, m->data, m->len < 64 ? (size_t)m->len : 64);
            grx_msg_free(&r->x, m);
            return 1;
        }
    }
    return 0;
}
/* PUT of n bytes (each `fill`) to buffer id claiming `claim` (NULL: none): its request id, 0 if not sent */
static uint64_t raw_put(raw *r, uint64_t id, size_t n, int fill, const uint8_t *claim) {
    uint8_t *p = (uint8_t *)malloc(48 + n);
    uint64_t req = ++r->req;
    ucs_status_t st;
    memset(p, 0, 48);
    gr_put_u64_at(p, id);
    gr_put_u64_at(p + 8, n);
    if (claim) memcpy(p + 16, claim, 32);
    memset(p + 48, fill, n);
    st = grx_send(&r->x, r->ep, GR_PUT, req, p, 48 + n, grx_now() + 5, &r->dead);
    free(p);
    return st == UCS_OK ? req : 0;
}
/* HAS of n bytes of `fill` as buffer id: 1 found, 0 not, -1 no reply */
static int raw_has(raw *r, uint64_t id, size_t n, int fill) {
    uint8_t q[56], *b = (uint8_t *)malloc(n);
    int t = 0;
    uint32_t code = 0;
    memset(b, fill, n);
    gr_put_u64_at(q, id);
    gr_put_u64_at(q + 8, n);
    gr_put_u64_at(q + 16, n);
    gr_content_hash(b, n, q + 24, 1);
    free(b);
    if (!raw_call(r, GR_HAS, q, sizeof q, &t, &code) || t != GR_HAS_REPLY) return -1;
    return r->last_n == 1 && r->last[0] == 1;
}
/* ---- recycled upload memory (the server's pool of freed upload blocks, --pool-mb) ---- */
/* GET of [lo, hi) of buffer id, skipping HASHED replies: 1 if the bytes equal want, 0 if they
   differ, -1 for an ERROR (or no reply). */
static int raw_get_eq(raw *r, uint64_t id, size_t lo, size_t hi, const uint8_t *want) {
    uint8_t get[24];
    double until = grx_now() + 10;
    int res = -1;
    gr_put_u64_at(get, id);
    gr_put_u64_at(get + 8, lo);
    gr_put_u64_at(get + 16, hi);
    grx_send(&r->x, r->ep, GR_GET, ++r->req, get, sizeof get, until, &r->dead);
    while (grx_now() < until && !r->dead) {
        gr_hdr h;
        grx_msg *m;
        ucp_worker_progress(r->x.w);
        if (!(m = grx_pop(&r->x, r->ep))) continue;
        if (gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) != 0 || h.type == GR_HASHED || h.id != r->req) {
            grx_msg_free(&r->x, m);
            continue;
        }
        if (h.type == GR_DATA) res = m->len == hi - lo && (hi == lo || memcmp(m->data, want, hi - lo) == 0);
        grx_msg_free(&r->x, m);
        return res;
    }
    return -1;
}
/* an upload in parts of n bytes (cap bytes declared) claiming no hash, then its HASHED: 1 if both */
static int raw_upload(raw *r, uint64_t id, size_t cap, const uint8_t *v, size_t n) {
    uint8_t none[32] = {0};
    uint64_t msgs = 0, bytes = 0, req;
    int t = 0;
    double until = grx_now() + 10;
    if (grx_put(&r->x, r->ep, &r->req, id, cap, none, v, n, until, &r->dead, &msgs, &bytes) != UCS_OK) return 0;
    req = r->req;
    while (raw_next(r, &t, &req, NULL))
        if (t == GR_HASHED || t == GR_ERROR) return t == GR_HASHED;
    return 0;
}
/* an upload in parts of cap bytes begun: a part of 2 MiB of `fill` (1 if the server took it) */
static int raw_upload_begin(raw *r, uint64_t id, size_t cap, int fill) {
    size_t L = (size_t)GR_PART_BYTES;
    uint8_t *p = part_msg(id, cap, 0, L, fill);
    int ok = grx_send(&r->x, r->ep, GR_PUT_PART, ++r->req, p, 24 + L, grx_now() + 5, &r->dead) == UCS_OK && raw_alive(r);
    free(p);
    return ok;
}
/* the upload begun as buffer id dropped by a part of buffer id + 1 past offset 0 (ERROR 4):
   its block goes back to the server's pool unread */
static int raw_upload_drop(raw *r, uint64_t id, size_t cap) {
    uint8_t *p = part_msg(id + 1, cap, (size_t)GR_LEAF_BYTES, (size_t)GR_LEAF_BYTES, 0);
    int t = 0, ok;
    uint32_t code = 0;
    ok = raw_call(r, GR_PUT_PART, p, 24 + (size_t)GR_LEAF_BYTES, &t, &code) && t == GR_ERROR && code == GR_E_MALFORMED;
    free(p);
    return ok;
}
/* The server's stop line on its upload memory, from its log: 1 if found */
static int pool_line(const server *s, unsigned long long *fresh, unsigned long long *recycled, unsigned long long *peak, unsigned long long *bound) {
    FILE *f = fopen(s->log, "r");
    char line[1024];
    int got = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "genie-server: upload memory: %llu uploads into fresh memory, %llu into recycled; at most %llu bytes kept (--pool-mb: %llu)",
                   fresh, recycled, peak, bound) == 4)
            got = 1;
    if (f) fclose(f);
    return got;
}
static void test_upload_pool(void) {
    server s;
    raw a, b, c, c2;
    int t = 0;
    uint32_t code = 0;
    size_t n = ((size_t)9 << 20) + 5, k, short_n = ((size_t)3 << 20) + 7; /* n: a 10 MiB class */
    uint8_t *va = (uint8_t *)malloc(n), *vb = (uint8_t *)malloc(n), *vd = (uint8_t *)malloc(n);
    unsigned long long fresh = 0, recycled = 0, peak = 0, bound = 0;
    for (k = 0; k < n; k++) {
        va[k] = (uint8_t)(k * 2654435761u >> 11);
        vb[k] = (uint8_t)(k * 40503u >> 7) ^ 0x5a;
        vd[k] = (uint8_t)(k * 69069u >> 9) ^ 0xa5;
    }
    CHECK(server_start(&s, "--pool-mb", "16", "pool") == 0, "server with --pool-mb 16");
    CHECK(raw_open(&a, s.port) == 0 && raw_hello(&a, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "pool client a");
    CHECK(raw_open(&b, s.port) == 0 && raw_hello(&b, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "pool client b");
    CHECK(raw_open(&c, s.port) == 0 && raw_hello(&c, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "pool client c");
    CHECK(raw_open(&c2, s.port) == 0 && raw_hello(&c2, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "pool client c2");
    /* two fresh uploads of the same bytes: the second's buffer moves to the cached copy and its
       block goes to the pool; the next upload of the class takes it */
    CHECK(raw_upload(&a, 1, n, va, n) && raw_get_eq(&a, 1, 0, n, va) == 1, "a fresh 9 MiB upload reads back");
    CHECK(raw_upload(&a, 2, n, va, n) && raw_get_eq(&a, 2, 0, n, va) == 1, "the same bytes again read back");
    CHECK(raw_upload(&a, 3, n, vb, n) && raw_get_eq(&a, 3, 0, n, vb) == 1, "an upload into a recycled block reads back exactly");
    /* two uploads begun and dropped (2 MiB of 0xCC and of 0xDD written): their blocks go back
       unread, the second pushing the first out (16 MiB hold one 10 MiB block) */
    CHECK(raw_upload_begin(&c, 4, n, 0xCC) && raw_upload_begin(&c2, 4, n, 0xDD) && raw_upload_drop(&c, 4, n) && raw_upload_drop(&c2, 4, n),
          "two uploads begun, then dropped");
    CHECK(raw_get_eq(&c2, 4, 0, 16, NULL) == -1, "a dropped upload's buffer reads nothing");
    /* another client's upload of the same size into that block reads back only its own bytes */
    CHECK(raw_upload(&b, 1, n, vd, n) && raw_get_eq(&b, 1, 0, n, vd) == 1, "client b's upload into c2's dropped block reads back its own bytes");
    /* an upload shorter than its declared cap, into a block c wrote: its bytes, nothing past them */
    CHECK(raw_upload_begin(&c, 6, n, 0xCC) && raw_upload_drop(&c, 6, n), "a third upload begun, then dropped");
    CHECK(raw_upload(&b, 2, n, vb, short_n) && raw_get_eq(&b, 2, 0, short_n, vb) == 1, "an upload short of its cap reads back its bytes");
    CHECK(raw_get_eq(&b, 2, 0, n, NULL) == -1 && raw_get_eq(&b, 2, short_n, short_n + 1, NULL) == -1,
          "nothing past a short upload's bytes reads back (the block's other bytes are c's)");
    CHECK(raw_get_eq(&a, 3, 0, n, vb) == 1 && raw_get_eq(&a, 1, 0, n, va) == 1, "client a's buffers unchanged");
    raw_close(&a);
    raw_close(&b);
    raw_close(&c);
    raw_close(&c2);
    CHECK(server_stop(&s) == 0, "pool: the server exits 0 on SIGTERM");
    {
        CHECK(pool_line(&s, &fresh, &recycled, &peak, &bound), "the server's upload memory line in %s", s.log);
        CHECK(recycled == 3 && fresh == 5, "uploads into recycled memory: %llu (want 3), fresh: %llu (want 5)", recycled, fresh);
        CHECK(bound == (16ull << 20) && peak == (10ull << 20), "the pool kept at most %llu bytes (one 10 MiB block) of its bound %llu", peak, bound);
    }
    free(va);
    free(vb);
    free(vd);
}
/* ---- a RUN reading a buffer an earlier op of the same RUN wrote ---- */
#define LAZY_PROGS 10
/* Program k on c: one 8x8 f32 buffer b written and read within RUNs; its bytes and two results
   read after (up to 3 x 64 f32 into out). */
static void lazy_prog(genie_ctx *c, int k, float *out) {
    int64_t s8[2] = {8, 8}, n64 = 64;
    genie_tensor *x = rnd(c, GENIE_F32, 2, s8, 11 + (uint64_t)k), *y = rnd(c, GENIE_F32, 2, s8, 13 + (uint64_t)k);
    genie_tensor *b = genie_clone(c, x), *r1 = NULL, *r2 = NULL;
    genie_realize(c, 1, &b);
    switch (k) {
    case 0: /* written twice, read between and after */
        genie_add_(c, b, y), genie_realize(c, 1, &b);
        r1 = genie_mul_scalar(c, b, 2.0);
        genie_mul_(c, b, y), genie_realize(c, 1, &b);
        r2 = genie_add_scalar(c, b, 1.0);
        break;
    case 1: /* copy_ into a slice from another slice of itself, then reads */
        genie_mul_(c, b, y), genie_realize(c, 1, &b);
        genie_copy_(c, genie_narrow(c, b, 0, 0, 2), genie_exp(c, genie_narrow(c, b, 0, 4, 2)));
        genie_realize(c, 1, &b);
        r1 = genie_neg(c, b);
        genie_add_(c, b, x), genie_realize(c, 1, &b);
        r2 = genie_sum(c, b, 0, NULL, 0);
        break;
    case 2: /* copy_ of its own transpose */
        genie_add_(c, b, y), genie_realize(c, 1, &b);
        genie_copy_(c, b, genie_contiguous(c, genie_t(c, b))), genie_realize(c, 1, &b);
        r1 = genie_mul(c, b, y);
        genie_sub_(c, b, genie_contiguous(c, genie_t(c, b))), genie_realize(c, 1, &b);
        r2 = genie_exp(c, b);
        break;
    case 3: /* add_ of itself, a read through a strided view */
        genie_add_(c, b, b), genie_realize(c, 1, &b);
        r1 = genie_contiguous(c, genie_slice(c, b, 1, 0, 8, 1));
        genie_mul_(c, b, b), genie_realize(c, 1, &b);
        r2 = genie_sqrt(c, genie_abs(c, genie_sub(c, b, y)));
        break;
    case 4: { /* index_copy_, reads, a write, a read of a slice */
        int64_t i2[2] = {1, 6}, two = 2;
        genie_tensor *ix = genie_from_data(c, GENIE_I64, 1, &two, i2);
        genie_add_(c, b, y), genie_realize(c, 1, &b);
        genie_index_copy_(c, b, 0, ix, genie_narrow(c, y, 0, 3, 2)), genie_realize(c, 1, &b);
        r1 = genie_mul(c, b, x);
        genie_relu_(c, b), genie_realize(c, 1, &b);
        r2 = genie_contiguous(c, genie_narrow(c, b, 0, 1, 6));
        break;
    }
    case 5: /* masked_fill_ between reads */
        genie_add_(c, b, y), genie_realize(c, 1, &b);
        r1 = genie_tanh(c, b);
        genie_masked_fill_(c, b, genie_gt(c, x, y), 3.5), genie_realize(c, 1, &b);
        r2 = genie_mul(c, b, b);
        break;
    case 6: { /* a bf16 buffer written in place and read again, then copied into b */
        genie_tensor *h = genie_to_dtype(c, x, GENIE_BF16);
        genie_realize(c, 1, &h);
        genie_mul_(c, h, genie_to_dtype(c, y, GENIE_BF16)), genie_realize(c, 1, &h);
        r1 = genie_to_dtype(c, genie_exp(c, h), GENIE_F32);
        genie_add_(c, h, h), genie_realize(c, 1, &h);
        r2 = genie_to_dtype(c, h, GENIE_F32);
        genie_copy_(c, b, h);
        break;
    }
    case 7: { /* reshaped views of b, a copy_ between two halves of it */
        int64_t s2[2] = {4, 16};
        genie_add_(c, b, y), genie_realize(c, 1, &b);
        r1 = genie_contiguous(c, genie_t(c, genie_reshape(c, b, 2, s2)));
        genie_copy_(c, genie_narrow(c, b, 1, 0, 4), genie_narrow(c, b, 1, 4, 4)), genie_realize(c, 1, &b);
        r2 = genie_mul(c, b, genie_t(c, b));
        break;
    }
    case 8: /* b read (its RUN stored), then copy_ between overlapping column blocks of it in a */
    case 9: /* RUN of its own: the source is b's stored bytes; left (8) and right (9) by 2 */
        genie_add_(c, b, y);
        genie_read(c, b, GENIE_F32, out, 64 * sizeof(float));
        genie_copy_(c, genie_narrow(c, b, 1, k == 8 ? 0 : 2, 6), genie_narrow(c, b, 1, k == 8 ? 2 : 0, 6));
        genie_realize(c, 1, &b);
        r1 = genie_t(c, b);
        break;
    }
    memset(out, 0, 3 * 64 * sizeof(float));
    genie_read(c, b, GENIE_F32, out, 64 * sizeof(float));
    if (r1) genie_read(c, genie_reshape(c, genie_contiguous(c, r1), 1, &n64), GENIE_F32, out + 64, (size_t)genie_numel(r1) * sizeof(float));
    if (r2) genie_read(c, r2, GENIE_F32, out + 128, (size_t)genie_numel(r2) * sizeof(float));
}
/* The programs remote and local bit for bit, each on a client of its own; the server's counts
   (each client's last line) show its RUNs read an earlier op's result in place of its stored
   bytes, stored a segment before a read where they could not, and left results the client
   flagged dead (64) unstored. */
static void test_lazy_reads(void) {
    server s;
    int k;
    unsigned long long lazy = 0, stores = 0, dead = 0;
    CHECK(server_start(&s, NULL, NULL, "lazy") == 0, "lazy-reads server");
    for (k = 0; k < LAZY_PROGS; k++) {
        genie_ctx *c = remote_ctx(s.addr), *l = local_ctx();
        float ro[192], lo[192];
        lazy_prog(c, k, ro);
        lazy_prog(l, k, lo);
        CHECK(genie_status(c) == GENIE_OK && genie_status(l) == GENIE_OK && memcmp(ro, lo, sizeof ro) == 0, "lazy-read program %d: remote == local bit for bit (%s | %s)",
              k, genie_last_error(c), genie_last_error(l));
        genie_ctx_destroy(c);
        genie_ctx_destroy(l);
    }
    CHECK(server_stop(&s) == 0, "the lazy-reads server exits 0");
    {
        FILE *f = fopen(s.log, "r");
        char line[1024];
        int clients = 0;
        while (f && fgets(line, sizeof line, f)) {
            const char *p = strstr(line, "RUN sources read from an earlier op's result: ");
            unsigned long long a = 0, b = 0, d = 0;
            if (p && sscanf(p, "RUN sources read from an earlier op's result: %llu, segments stored before a read: %llu, "
                               "dead results not stored: %llu", &a, &b, &d) == 3)
                lazy += a, stores += b, dead += d, clients++;
        }
        if (f) fclose(f);
        CHECK(clients == LAZY_PROGS, "the lazy-reads server's line for each client: %d (want %d) in %s", clients, LAZY_PROGS, s.log);
        CHECK(lazy >= 4 && stores >= 2, "RUN sources read from an earlier op's result: %llu (want 4 or more), segments stored before a read: %llu (want 2 or more)",
              lazy, stores);
    }
    printf("  reads of a buffer written earlier in the same RUN: %llu from the writer's result, %llu after a store, %llu dead results "
           "not stored, bit for bit as locally\n", lazy, stores, dead);
}
/* Programs whose intermediates the caller released before the read: a chain of products whose
   blocks genie reuses within the RUN (written again not in place) and which ends in refs 0, so
   the client flags those ops dead (64) when it sends the RUN and the server stores none of them;
   a released product read through its transpose and added in place into a held buffer, and one
   read after an in-place write of another buffer (genie may still hold these when the RUN goes:
   the flag is the client's to give, never a guess). Remote and local bit for bit; the server's
   last line counts results left unstored. */
#define DEAD_PROGS 3
static void dead_prog(genie_ctx *c, int k, float *out) {
    int64_t s8[2] = {8, 8}, two = 2, i2[2] = {2, 5};
    genie_tensor *x = rnd(c, GENIE_F32, 2, s8, 21 + (uint64_t)k), *y = rnd(c, GENIE_F32, 2, s8, 23 + (uint64_t)k), *t, *u, *b, *r;
    int j;
    memset(out, 0, 2 * 64 * sizeof(float));
    b = genie_clone(c, x);
    genie_realize(c, 1, &b);
    switch (k) {
    case 0: /* t_{j+1} = t_j @ y, each handle released at once */
        t = genie_matmul(c, x, y);
        for (j = 0; j < 6; j++) {
            u = genie_add_scalar(c, genie_matmul(c, t, y), 0.5);
            genie_release(t);
            t = u;
        }
        r = genie_add(c, t, b);
        genie_release(t);
        break;
    case 1: /* a released product read through its transpose, and added in place into b */
        t = genie_matmul(c, x, y);
        u = genie_mul(c, genie_t(c, t), y);
        genie_add_(c, b, t);
        genie_release(t);
        r = genie_add(c, u, b);
        genie_release(u);
        break;
    default: /* b written in place (index_copy_), then read beside a released product */
        t = genie_matmul(c, x, y);
        genie_index_copy_(c, b, 0, genie_from_data(c, GENIE_I64, 1, &two, i2), genie_narrow(c, t, 0, 1, 2));
        r = genie_matmul(c, b, t);
        genie_release(t);
        break;
    }
    genie_read(c, r, GENIE_F32, out, 64 * sizeof(float));
    genie_read(c, b, GENIE_F32, out + 64, 64 * sizeof(float));
}
static void test_dead_results(void) {
    server s;
    int k, clients = 0;
    unsigned long long dead = 0;
    CHECK(server_start(&s, NULL, NULL, "dead") == 0, "dead-results server");
    for (k = 0; k < DEAD_PROGS; k++) {
        genie_ctx *c = remote_ctx(s.addr), *l = local_ctx();
        float ro[128], lo[128];
        dead_prog(c, k, ro);
        dead_prog(l, k, lo);
        CHECK(genie_status(c) == GENIE_OK && genie_status(l) == GENIE_OK && memcmp(ro, lo, sizeof ro) == 0 &&
                  genie_get_stats(c).backend_fallbacks == 0,
              "dead-results program %d: remote == local bit for bit, no node on the CPU (%s | %s)", k, genie_last_error(c), genie_last_error(l));
        genie_ctx_destroy(c);
        genie_ctx_destroy(l);
    }
    CHECK(server_stop(&s) == 0, "the dead-results server exits 0");
    {
        FILE *f = fopen(s.log, "r");
        char line[1024];
        while (f && fgets(line, sizeof line, f)) {
            const char *p = strstr(line, "dead results not stored: ");
            unsigned long long d = 0;
            if (p && sscanf(p, "dead results not stored: %llu", &d) == 1) dead += d, clients++;
        }
        if (f) fclose(f);
        CHECK(clients == DEAD_PROGS && dead >= 6, "the dead-results server's lines: %d clients (want %d), %llu dead results not stored (want 6 or more) in %s",
              clients, DEAD_PROGS, dead, s.log);
    }
    printf("  results the client flagged dead: %llu not stored by the server, bit for bit as locally\n", dead);
}
/* A dropped upload's block (given back with no sv_evict after it) is kept only within what the
   cache leaves of --cache-mb: two 9 MiB tensors bound (charged 10 MiB each of 24) leave 4 MiB,
   so the pool (--pool-mb 16) keeps no 10 MiB block. */
static void test_pool_cache_room(void) {
    static const char *const args[] = {"--cache-mb", "24", "--pool-mb", "16", "--client-mb", "64", NULL};
    server s;
    raw a, c;
    int t = 0;
    uint32_t code = 0;
    size_t n = ((size_t)9 << 20) + 5, i;
    uint8_t *va = (uint8_t *)malloc(n), *vb = (uint8_t *)malloc(n);
    unsigned long long fresh = 0, recycled = 0, peak = 1, bound = 0;
    for (i = 0; i < n; i++) va[i] = (uint8_t)(i * 2654435761u >> 11), vb[i] = (uint8_t)(i * 40503u >> 7) ^ 0x5a;
    CHECK(server_startv(&s, args, "poolroom") == 0, "server with --cache-mb 24 --pool-mb 16");
    CHECK(raw_open(&a, s.port) == 0 && raw_hello(&a, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "pool-room client a");
    CHECK(raw_open(&c, s.port) == 0 && raw_hello(&c, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "pool-room client c");
    CHECK(raw_upload(&a, 1, n, va, n) && raw_upload(&a, 2, n, vb, n), "two 9 MiB tensors bound in a 24 MiB cache");
    CHECK(raw_upload_begin(&c, 4, n, 0xCC) && raw_upload_drop(&c, 4, n), "an upload begun, then dropped");
    CHECK(raw_get_eq(&a, 1, 0, n, va) == 1 && raw_get_eq(&a, 2, 0, n, vb) == 1, "the bound tensors read back");
    raw_close(&a);
    raw_close(&c);
    CHECK(server_stop(&s) == 0, "the pool-room server exits 0");
    CHECK(pool_line(&s, &fresh, &recycled, &peak, &bound), "the server's upload memory line in %s", s.log);
    CHECK(peak == 0 && fresh == 3, "a dropped block kept only within the cache's room: at most %llu bytes kept (want 0), %llu fresh uploads (want 3)", peak, fresh);
    printf("  a dropped upload's block kept only within what the cache leaves of --cache-mb\n");
    free(va);
    free(vb);
}
/* A process's memory figure `key` (e.g. "VmRSS:", its resident memory now) in MiB, -1 if unknown. */
static long proc_mib(pid_t pid, const char *key) {
    char p[64], l[256];
    long v = -1;
    size_t kn = strlen(key);
    FILE *f;
    snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
    if (!(f = fopen(p, "r"))) return -1;
    while (fgets(l, sizeof l, f))
        if (!strncmp(l, key, kn)) v = atol(l + kn) / 1024;
    fclose(f);
    return v;
}
static long rss_mib(pid_t pid) { return proc_mib(pid, "VmRSS:"); }
/* An upload of one 256 KiB part declaring a cap of `cap` bytes, ended by a PUT with no rest:
   1 if the PUT's reply is HASHED, 0 if an ERROR (the part's own ERROR read past) or none. */
static int raw_small_upload(raw *r, uint64_t id, size_t cap, int fill) {
    size_t L = (size_t)GR_LEAF_BYTES;
    uint8_t *p = part_msg(id, cap, 0, L, fill), q[48];
    uint64_t put, req = 0;
    int t = 0, ok = grx_send(&r->x, r->ep, GR_PUT_PART, ++r->req, p, 24 + L, grx_now() + 5, &r->dead) == UCS_OK;
    free(p);
    memset(q, 0, sizeof q);
    gr_put_u64_at(q, id);
    gr_put_u64_at(q + 8, cap);
    ok = ok && grx_send(&r->x, r->ep, GR_PUT, put = ++r->req, q, sizeof q, grx_now() + 5, &r->dead) == UCS_OK;
    while (ok && raw_next(r, &t, &req, NULL))
        if (req == put && (t == GR_HASHED || t == GR_ERROR)) return t == GR_HASHED;
    return 0;
}
/* FREE of n buffers from id on: 1 if the server answers a PING after it (replies before the
   PING's read past) */
static int raw_free_ids(raw *r, uint64_t id, uint32_t n) {
    uint8_t fr[4 + 32 * 8];
    uint64_t ping, req = 0;
    uint32_t k;
    int t = 0;
    if (n > 32) return 0;
    gr_put_u64_at(fr, n); /* a u32 count: its high bytes overwritten below */
    for (k = 0; k < n; k++) gr_put_u64_at(fr + 4 + 8 * k, id + k);
    if (grx_send(&r->x, r->ep, GR_FREE, ++r->req, fr, 4 + 8 * (size_t)n, grx_now() + 5, &r->dead) != UCS_OK ||
        grx_send(&r->x, r->ep, GR_PING, ping = ++r->req, NULL, 0, grx_now() + 5, &r->dead) != UCS_OK)
        return 0;
    while (raw_next(r, &t, &req, NULL))
        if (req == ping) return t == GR_OK;
    return 0;
}
/* Small uploads (256 KiB declared 10 MiB) into recycled, wholly resident 10 MiB blocks: each
   buffer holds and is charged whole 2 MiB pages, not its block, so uploads kept bound stop at
   --client-mb 32 (12 of them, not all 20), and 40 more uploaded and freed (left in the cache)
   keep the server's resident memory near --cache-mb + --pool-mb, not 60 x 10 MiB. (Under ASan
   run the server with ASAN_OPTIONS=quarantine_size_mb=0.) */
static void test_pool_small_uploads(void) {
    static const char *const args[] = {"--cache-mb", "64", "--pool-mb", "16", "--client-mb", "32", NULL};
    server s;
    raw a;
    int t = 0, k, bound = 0, freed = 0, big = 1;
    uint32_t code = 0;
    size_t n = ((size_t)9 << 20) + 5, i;
    uint8_t *va = (uint8_t *)malloc(n);
    long r0, r1, r2;
    for (i = 0; i < n; i++) va[i] = (uint8_t)(i * 2654435761u >> 11);
    CHECK(server_startv(&s, args, "poolsmall") == 0, "server with --cache-mb 64 --pool-mb 16 --client-mb 32");
    CHECK(raw_open(&a, s.port) == 0 && raw_hello(&a, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "small-uploads client");
    r0 = rss_mib(s.pid);
    /* the same 9 MiB uploaded and freed (cached): each upload of it again is moved to the cached
       copy and its block goes to the pool, where the next small upload takes it */
    for (k = 0; k < 20; k++) { /* each upload in parts needs room for its declared 9 MiB */
        (void)(raw_upload(&a, 1, n, va, n) && raw_free_ids(&a, 1, 1));
        if (!raw_small_upload(&a, 100 + (uint64_t)k, n, k + 1)) break; /* the client's budget spent */
        bound++;
    }
    CHECK(bound == 12, "small uploads kept bound under --client-mb 32: %d of 20 (want 12: each charged 2 MiB)", bound);
    r1 = rss_mib(s.pid);
    CHECK(raw_free_ids(&a, 100, 20), "FREE of the bound small uploads");
    for (k = 0; k < 40; k++) {
        freed += raw_small_upload(&a, 200 + (uint64_t)k, n, k + 1) && raw_free_ids(&a, 200 + (uint64_t)k, 1);
        big = big && raw_upload(&a, 1, n, va, n) && raw_free_ids(&a, 1, 1);
    }
    CHECK(big, "the 9 MiB uploads and FREEs all went");
    CHECK(freed == 40, "40 small uploads into recycled blocks, each freed: %d went", freed);
    CHECK(raw_upload(&a, 1, n, va, n) && raw_get_eq(&a, 1, 0, n, va) == 1, "the 9 MiB buffer reads back");
    r2 = rss_mib(s.pid);
    if (r0 < 0 || r1 < 0 || r2 < 0) printf("skip: no /proc/%d/status: the server's resident memory unchecked\n", (int)s.pid);
    else
        CHECK(r1 - r0 < 128 && r2 - r0 < 128, "the server's resident memory after small uploads into recycled blocks: +%ld MiB bound, +%ld MiB freed (cache 64 + pool 16 MiB)",
              r1 - r0, r2 - r0);
    raw_close(&a);
    CHECK(server_stop(&s) == 0, "the small-uploads server exits 0");
    printf("  small uploads into recycled blocks: held and charged in 2 MiB pages, not whole blocks (server +%ld MiB resident)\n", r2 - r0);
    free(va);
}
static void test_background_hash(void) {
    server s;
    raw a, b;
    int t = 0, i;
    uint32_t code = 0;
    uint64_t req, rq;
    size_t n = (size_t)1 << 20; /* over the 64 KiB hashed at once */
    uint8_t lead[64], want[32], wrong[32];
    CHECK(server_start(&s, "--hash-hold-ms", "400", "hashhold") == 0, "server with --hash-hold-ms 400");
    CHECK(raw_open(&a, s.port) == 0 && raw_hello(&a, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "client a");
    CHECK(raw_open(&b, s.port) == 0 && raw_hello(&b, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "client b");
    { /* a PUT claiming no hash: usable at once (PING, GET), invisible to HAS until hashed, then HASHED */
        uint8_t *ref = (uint8_t *)malloc(n), get[24] = {0};
        memset(ref, 3, n);
        gr_content_hash(ref, n, want, 1);
        free(ref);
        req = raw_put(&a, 1, n, 3, NULL);
        CHECK(req && raw_call(&a, GR_PING, NULL, 0, &t, &code) && t == GR_OK, "unhashed PUT, then PING: the OK first (type %d)", t);
        gr_put_u64_at(get, 1);
        gr_put_u64_at(get + 8, n - 16);
        gr_put_u64_at(get + 16, n);
        CHECK(raw_call(&a, GR_GET, get, sizeof get, &t, &code) && t == GR_DATA && a.last[0] == 3 && a.last[15] == 3,
              "its bytes read back while hashed: type %d", t);
        CHECK(raw_has(&b, 11, n, 3) == 0, "another client's HAS before the hash is done: a miss");
        CHECK(raw_next(&a, &t, &rq, lead) && t == GR_HASHED && rq == req && lead[0] == 1 && memcmp(lead + 8, want, 32) == 0,
              "HASHED{1, the bytes' hash} with the PUT's request id (type %d)", t);
        CHECK(raw_has(&b, 11, n, 3) == 1, "another client's HAS after the hash: a hit");
        /* the same bytes sent again unhashed: once hashed, the buffer reads the cached copy */
        rq = raw_put(&b, 21, n, 3, NULL);
        CHECK(rq && raw_next(&b, &t, &req, lead) && t == GR_HASHED && req == rq, "the same bytes again: HASHED (type %d)", t);
        gr_put_u64_at(get, 21);
        CHECK(raw_call(&b, GR_GET, get, sizeof get, &t, &code) && t == GR_DATA && b.last[0] == 3 && b.last[15] == 3,
              "a buffer moved to the cached copy of its bytes reads them (type %d)", t);
    }
    { /* freed while its hash waits: the bytes still end in the cache; rewritten: the new bytes read */
        req = raw_put(&a, 2, n, 4, NULL);
        {
            uint8_t fr[12] = {1, 0, 0, 0, 2};
            CHECK(req && grx_send(&a.x, a.ep, GR_FREE, ++a.req, fr, sizeof fr, grx_now() + 5, &a.dead) == UCS_OK && raw_alive(&a),
                  "FREE of a buffer whose hash runs");
        }
        rq = raw_put(&a, 3, n, 5, NULL);
        CHECK(rq && raw_put(&a, 3, 64, 6, NULL), "a buffer PUT again while its first hash runs");
        { /* HASHED of 2, of 3's first bytes, of 3's second (hashed at once, so before the others) */
            int hashed = 0, oks = 0;
            grx_send(&a.x, a.ep, GR_PING, ++a.req, NULL, 0, grx_now() + 5, &a.dead);
            for (i = 0; i < 4 && raw_next(&a, &t, &rq, lead); i++) hashed += t == GR_HASHED, oks += t == GR_OK;
            CHECK(hashed == 3 && oks == 1, "after FREE and rewrite: %d HASHED (want 3), %d OK", hashed, oks);
        }
        CHECK(raw_has(&b, 12, n, 4) == 1, "the freed buffer's bytes: in the cache after their hash");
        {
            uint8_t get[24] = {3};
            get[16] = 64;
            CHECK(raw_call(&a, GR_GET, get, sizeof get, &t, &code) && t == GR_DATA && a.last[0] == 6 && a.last[15] == 6,
                  "a rewritten buffer reads its new bytes (type %d)", t);
        }
    }
    { /* a claimed hash that is not the bytes': usable at once, then ERROR 6 with the PUT's request
         id; the buffer failed, the bytes never in the cache */
        memset(wrong, 9, sizeof wrong);
        req = raw_put(&a, 4, n, 7, wrong);
        CHECK(req && raw_call(&a, GR_PING, NULL, 0, &t, &code) && t == GR_OK, "a wrong claim, then PING: the OK first (type %d)", t);
        CHECK(raw_next(&a, &t, &rq, lead) && t == GR_ERROR && rq == req && lead[0] == GR_E_HASH, "then ERROR 6 for the PUT (type %d, code %u)",
              t, (unsigned)lead[0]);
        {
            uint8_t get[24] = {4};
            get[16] = 4;
            CHECK(raw_call(&a, GR_GET, get, sizeof get, &t, &code) && t == GR_ERROR, "GET of the buffer after its ERROR 6 (type %d)", t);
        }
        CHECK(raw_has(&b, 13, n, 7) == 0, "bytes whose claim was wrong: never in the cache");
    }
    { /* the rest of an upload whose parts failed, claiming no hash: an ERROR, not a HASHED of the rest */
        size_t L = (size_t)GR_LEAF_BYTES;
        uint8_t *p = part_msg(30, 4 * L, L, L, 1), put[48 + 16];
        CHECK(raw_call(&a, GR_PUT_PART, p, 24 + L, &t, &code) && t == GR_ERROR && code == GR_E_MALFORMED, "a part past 0 first: ERROR 4");
        free(p);
        memset(put, 0, sizeof put);
        gr_put_u64_at(put, 30);
        gr_put_u64_at(put + 8, 4 * L);
        CHECK(raw_call(&a, GR_PUT, put, sizeof put, &t, &code) && t == GR_ERROR && code == GR_E_BUFFER,
              "the PUT after failed parts: ERROR 7, not HASHED (type %d code %u)", t, code);
    }
    { /* a genie client whose unhashed upload the server refuses (--client-mb): the ERROR ends the
         wait for its HASHED, so genie_remote_hashed does not wait for one that will not come */
        server q;
        genie_ctx *g;
        int64_t m = (int64_t)3 << 18; /* 3 MiB of f32: a part and a rest, over --client-mb 1 */
        float *v = (float *)calloc((size_t)m, sizeof(float));
        double t0, out = 0;
        CHECK(server_start(&q, "--client-mb", "1", "hashbudget") == 0, "server with --client-mb 1");
        genie_tensor *x;
        g = remote_ctx(q.addr);
        x = genie_from_data(g, GENIE_F32, 1, &m, v); /* held: its buffer (and the client's wait for its hash) lives */
        CHECK(genie_item(g, genie_sum(g, x, 0, NULL, 0), &out) != GENIE_OK, "an upload over --client-mb: an error (%s)", genie_last_error(g));
        genie_clear_error(g);
        (void)genie_remote_hashed(g); /* may report the ERROR not yet reported */
        genie_clear_error(g);
        t0 = grx_now();
        (void)genie_remote_hashed(g);
        CHECK(grx_now() - t0 < 2.0 && !strstr(genie_last_error(g), "no HASHED"), "genie_remote_hashed after a refused upload: %.2f s, %s",
              grx_now() - t0, genie_last_error(g));
        genie_release(x);
        genie_ctx_destroy(g);
        free(v);
        server_stop(&q);
    }
    { /* a client gone while its hash waits: the server goes on */
        raw c;
        CHECK(raw_open(&c, s.port) == 0 && raw_hello(&c, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "client c");
        CHECK(raw_put(&c, 1, n, 8, NULL) != 0 && raw_alive(&c), "client c's PUT");
        raw_close(&c);
        { struct timespec ts = {1, 0}; nanosleep(&ts, NULL); } /* its hash (held 400 ms) done */
        CHECK(raw_alive(&b) && raw_has(&b, 14, n, 8) == 1, "after client c left mid-hash: alive, its bytes cached");
    }
    raw_close(&a);
    raw_close(&b);
    CHECK(server_stop(&s) == 0, "the server with --hash-hold-ms exits 0 on SIGTERM");
    CHECK(log_count(&s, "; 1 uploads moved to a cached copy)") == 1, "one buffer moved to the cached copy of its bytes (%s)", s.log);
    printf("  PUTs hashed in the background: usable at once, HAS misses until the hash, HASHED, ERROR 6 after\n");
}
static void test_queue_cap(void) {
    server q;
    raw r;
    int t = 0;
    uint32_t code = 0;
    size_t n = (size_t)3 << 19; /* 1.5 MiB: over --queue-mb 1 */
    uint8_t *big = (uint8_t *)calloc(1, n);
    CHECK(server_start(&q, "--queue-mb", "1", "queue") == 0, "server with --queue-mb 1");
    CHECK(raw_open(&r, q.port) == 0 && raw_hello(&r, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "raw client");
    gr_put_u64_at(big, 9);
    gr_put_u64_at(big + 8, n);
    t = 0;
    CHECK(raw_call(&r, GR_PUT, big, n, &t, &code) && t == GR_ERROR && code == GR_E_LIMIT, "a PUT over the queue cap: type %d code %u", t, code);
    CHECK(raw_alive(&r), "alive after a PUT over the queue cap");
    { /* a flood of 64 PUTs of 512 KiB, not waited for: each is taken or refused, and the
         server answers this client and another one after it */
        int k, errors = 0, replies = 0;
        double until;
        for (k = 0; k < 64; k++) {
            gr_put_u64_at(big, 100 + (uint64_t)k);
            gr_put_u64_at(big + 8, 512 << 10);
            memset(big + 16, 9, 32); /* a claimed hash, not the bytes': ERROR 6 once hashed */
            grx_send(&r.x, r.ep, GR_PUT, ++r.req, big, 512 << 10, grx_now() + 5, &r.dead);
        }
        grx_send(&r.x, r.ep, GR_PING, ++r.req, NULL, 0, grx_now() + 5, &r.dead);
        for (until = grx_now() + 10; grx_now() < until && !r.dead && (replies == 0 || errors < 64);) {
            grx_msg *m;
            ucp_worker_progress(r.x.w);
            while ((m = grx_pop(&r.x, r.ep))) {
                gr_hdr h;
                if (gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0) {
                    errors += h.type == GR_ERROR;
                    replies += h.type == GR_OK;
                }
                grx_msg_free(&r.x, m);
            }
        }
        CHECK(replies == 1 && errors == 64, "a flood of PUTs: %d replies to the PING, %d ERRORs (each PUT a bad hash or over the cap)",
              replies, errors);
        {
            raw o;
            CHECK(raw_open(&o, q.port) == 0 && raw_hello(&o, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME && raw_alive(&o),
                  "another client after the flood");
            raw_close(&o);
        }
    }
    raw_close(&r);
    free(big);
    CHECK(server_stop(&q) == 0, "the queue-capped server exits 0");
}

/* Uploads sent first, each several times a small queue cap (--queue-mb 8): a chain of products
   whose weights (from_data: sent first, no HAS) go up one by one, each weight's parts right
   behind the RUN of the product before it (on a pool thread while they arrive), then one large
   tensor alone; the results remote equal local byte for byte. */
static genie_tensor *flow_chain(genie_ctx *c, float *out) {
    int64_t xs[2] = {64, 2048}, ws[2] = {2048, 2048}, big[1] = {(int64_t)12 << 20};
    genie_tensor *h = rnd(c, GENIE_F32, 2, xs, 77), *t;
    int k;
    for (k = 0; k < 4; k++) h = genie_tanh(c, genie_linear(c, h, rnd(c, GENIE_F32, 2, ws, 100 + (uint64_t)k), NULL)); /* 16 MiB each */
    if (genie_read(c, h, GENIE_F32, out, 64 * 2048 * 4) != GENIE_OK) return NULL;
    t = rnd(c, GENIE_F32, 1, big, 5); /* 48 MiB */
    return genie_sum(c, genie_mul(c, t, t), 0, NULL, 0);
}
static void test_flow(void) {
    server q, k;
    genie_ctx *c, *l;
    float *ro = (float *)malloc(64 * 2048 * 4), *lo = (float *)malloc(64 * 2048 * 4);
    double rs = 0, ls = 1, t0, dt;
    genie_tensor *rt, *lt;
    raw r;
    int t = 0, st;
    uint32_t code = 0;
    CHECK(server_start4(&q, "--queue-mb", "8", "--run-threads", "2", "flow") == 0, "server with --queue-mb 8");
    { /* the window is half the queue cap; an upload in parts of 20 MiB within it: a CREDIT for each
         message (each over GR_CREDIT_EVERY), so when the PING's OK comes every byte sent is taken */
        size_t n = (size_t)20 << 20, i;
        uint8_t *v = (uint8_t *)malloc(n);
        uint64_t parts = (n - 1) / GR_PART_BYTES; /* then a PUT with the rest, GR_PART_BYTES */
        for (i = 0; i < n; i++) v[i] = (uint8_t)(i * 7 + i / 4099);
        CHECK(raw_open(&r, q.port) == 0 && raw_hello(&r, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME &&
                  r.cr.window == ((uint64_t)4 << 20) + 2 * 64,
              "WELCOME of a --queue-mb 8 server: window %llu", (unsigned long long)r.cr.window);
        CHECK(raw_upload(&r, 5, n, v, n) && raw_alive(&r) && raw_get_eq(&r, 5, 0, n, v) == 1, "a 20 MiB upload within the window");
        CHECK(!r.cr.bad && r.cr.sent == parts * (24 + GR_PART_BYTES) + 48 + GR_PART_BYTES && r.cr.taken == r.cr.sent && r.cr.msgs == parts + 1,
              "credits: %llu of %llu bytes taken, %llu CREDITs", (unsigned long long)r.cr.taken, (unsigned long long)r.cr.sent,
              (unsigned long long)r.cr.msgs);
        raw_close(&r);
        free(v);
    }
    c = remote_ctx(q.addr);
    l = local_ctx();
    rt = flow_chain(c, ro);
    lt = flow_chain(l, lo);
    CHECK(rt && lt && genie_item(c, rt, &rs) == GENIE_OK && genie_item(l, lt, &ls) == GENIE_OK, "uploads past --queue-mb 8: %s",
          genie_last_error(c));
    CHECK(memcmp(ro, lo, 64 * 2048 * 4) == 0 && rs == ls, "uploads past --queue-mb 8: remote == local (sum %.17g and %.17g)", rs, ls);
    CHECK(genie_get_stats(c).backend_fallbacks == 0 && strcmp(genie_backend_name(c), "remote") == 0, "uploads past --queue-mb 8: all on the server");
    genie_ctx_destroy(c);
    genie_ctx_destroy(l);
    server_done(&q, "flow", " out, 0 errors; ", 2); /* two connections, no ERROR sent */
    free(ro);
    free(lo);
    printf("  uploads sent first past --queue-mb 8 (4 weights of 16 MiB behind RUNs, one tensor of 48 MiB): remote == local\n");
    { /* a server that stops taking anything (SIGSTOP), then is killed while the client waits for
         its credit: GENIE_ERR_BACKEND soon after the kill */
        int64_t one = 1, n = (int64_t)16 << 20;
        double v = 0;
        pid_t killer;
        genie_result e;
        genie_tensor *x;
        CHECK(server_start(&k, "--queue-mb", "8", "flowkill") == 0, "server to stop and kill");
        c = remote_ctx(k.addr);
        CHECK(genie_item(c, genie_sum(c, genie_full(c, GENIE_F32, 1, &one, 1.0), 0, NULL, 0), &v) == GENIE_OK && v == 1.0, "connected: %s",
              genie_last_error(c));
        x = rnd(c, GENIE_F32, 1, &n, 9); /* 64 MiB: sixteen windows */
        kill(k.pid, SIGSTOP);
        fflush(stdout);
        if ((killer = fork()) == 0) {
            struct timespec ts = {0, 500000000};
            nanosleep(&ts, NULL);
            kill(k.pid, SIGKILL);
            _exit(0);
        }
        t0 = grx_now();
        e = genie_item(c, genie_sum(c, x, 0, NULL, 0), &v);
        dt = grx_now() - t0;
        waitpid(killer, &st, 0);
        waitpid(k.pid, &st, 0);
        k.pid = 0;
        CHECK(e == GENIE_ERR_BACKEND && strstr(genie_last_error(c), k.addr) && dt < 5.0, "an upload waiting for credit, the server killed 0.5 s in: %d after %.2f s: %s",
              e, dt, genie_last_error(c));
        genie_ctx_destroy(c);
        printf("  an upload waiting for credit from a stopped server killed 0.5 s in: GENIE_ERR_BACKEND after %.3f s\n", dt);
    }
    { /* a server (default queue: a 64 MiB window) that stops and is never killed: an upload of
         128 MiB fills the socket, so a part's send can neither end nor be cancelled; the client
         gives up after its timeout (closing the endpoint by force) instead of waiting forever */
        int64_t one = 1, n = (int64_t)32 << 20;
        double v = 0;
        genie_result e;
        genie_tensor *x;
        CHECK(server_start(&k, NULL, NULL, "stopped") == 0, "server to stop");
        setenv("GENIE_REMOTE_TIMEOUT_MS", "1000", 1);
        c = remote_ctx(k.addr);
        unsetenv("GENIE_REMOTE_TIMEOUT_MS");
        CHECK(genie_item(c, genie_sum(c, genie_full(c, GENIE_F32, 1, &one, 1.0), 0, NULL, 0), &v) == GENIE_OK && v == 1.0, "connected: %s",
              genie_last_error(c));
        x = rnd(c, GENIE_F32, 1, &n, 9); /* 128 MiB */
        kill(k.pid, SIGSTOP);
        t0 = grx_now();
        e = genie_item(c, genie_sum(c, x, 0, NULL, 0), &v);
        dt = grx_now() - t0;
        CHECK(e == GENIE_ERR_BACKEND && strstr(genie_last_error(c), k.addr), "an upload to a stopped server: %d after %.2f s: %s", e, dt,
              genie_last_error(c));
        genie_ctx_destroy(c);
        kill(k.pid, SIGKILL);
        waitpid(k.pid, &st, 0);
        k.pid = 0;
        printf("  an upload to a stopped server (never killed), 1 s timeout: GENIE_ERR_BACKEND after %.3f s\n", dt);
    }
}

/* Sends a RUN of op o alone over buffers s0, s1 and out (slots 0-2) and checks its ERROR (code
   want; 0: GR_E_OP or GR_E_MALFORMED) and that the connection still serves. */
static void bad_run(raw *r, const gr_op *o, uint64_t s0, uint64_t s1, uint64_t out, uint32_t want, const char *what) {
    gr_wr w;
    int t = 0;
    uint32_t code = 0;
    memset(&w, 0, sizeof w);
    gr_w32(&w, 3);
    gr_w64(&w, s0);
    gr_w64(&w, s1);
    gr_w64(&w, out);
    gr_w32(&w, 1);
    gr_op_encode(&w, o);
    CHECK(raw_call(r, GR_RUN, w.p, w.n, &t, &code) && t == GR_ERROR && (want ? code == want : code == GR_E_OP || code == GR_E_MALFORMED),
          "%s: type %d code %u (want %u)", what, t, code, want);
    CHECK(raw_alive(r), "alive after %s", what);
    gr_wr_free(&w);
}
/* Protocol 5's ops, each malformed in a RUN whose sources read buffer 32 (i64 [1] holding 5),
   written to a new buffer 40: the decoder's ERROR 4, genie's ERROR 8 on the
   server (an index past the rows, a result genie infers otherwise), or ERROR 7 (in place into a
   buffer with no value); each time the connection goes on. */
static void hostile_ops5(raw *r) {
    static const struct { int op, nin, dtype, src1_dtype, flags, nout; int64_t i0, i1; uint32_t code; const char *what; } bad[] = {
        {GR_OP_CAT, 2, GENIE_I64, GENIE_I64, 2, 1, 1, 0, GR_E_MALFORMED, "cat along a dim the result lacks"},
        {GR_OP_CAT, 2, GENIE_I64, GENIE_I64, 2, 3, 0, 0, GR_E_OP, "cat declaring 3 elements of 2"},
        {GR_OP_INDEX_SELECT, 2, GENIE_I64, GENIE_F32, 2, 1, 0, 0, GR_E_MALFORMED, "index_select by an f32 index"},
        {GR_OP_INDEX_SELECT, 2, GENIE_I64, GENIE_I64, 2, 1, 0, 0, GR_E_INDEX, "index_select of row 5 of 1"},
        {GR_OP_GATHER, 2, GENIE_I64, GENIE_I64, 2, 1, 0, 0, GR_E_INDEX, "gather of index 5 of 1"},
        {GR_OP_GATHER, 2, GENIE_I64, GENIE_I64, 2, 1, -1, 0, GR_E_MALFORMED, "gather along dim -1"},
        {GR_OP_ARGMAX, 1, GENIE_I64, 0, 2, 1, 0, 0, GR_E_MALFORMED, "argmax asking for values"},
        {GR_OP_MAX_DIM, 1, GENIE_I64, 0, 2, 1, 0, 2, GR_E_MALFORMED, "max_dim's third result"},
        {GR_OP_ARGMIN, 1, GENIE_F32, 0, 2, 1, 0, 1, GR_E_MALFORMED, "argmin's indices as f32"},
        {GR_OP_MASKED_FILL, 2, GENIE_I64, GENIE_I64, 2, 1, 0, 0, GR_E_MALFORMED, "masked_fill by an i64 mask"},
        {GR_OP_VAR, 1, GENIE_I64, 0, 2, 1, 0, (int64_t)1 << 50, GR_E_MALFORMED, "var with a huge correction"},
        {GR_OP_LOGSUMEXP, 1, GENIE_F32, 0, 2, 1, 1, 0, GR_E_MALFORMED, "logsumexp keeping every dim"},
        {GR_OP_CUMSUM, 1, GENIE_I64, 0, 2, 1, 3, 0, GR_E_MALFORMED, "cumsum along dim 3 of 1"},
        {GR_OP_TRIL, 1, GENIE_I64, 0, 2, 1, 0, 0, GR_E_OP, "tril of 1 dim"},
        {GR_OP_FULL, 1, GENIE_I64, 0, 2, 1, 0, 0, GR_E_MALFORMED, "full with a source"},
        {GR_OP_RELU, 1, GENIE_I64, 0, 4, 1, 0, 0, GR_E_MALFORMED, "in place, written nowhere"},
        {GR_OP_ADD, 2, GENIE_I64, GENIE_I64, 6, 1, 0, 0, GR_E_BUFFER, "add_ into a buffer with no value"},
        {GR_OP_SCATTER, 3, GENIE_I64, GENIE_F32, 2, 1, 0, 0, GR_E_MALFORMED, "scatter by an f32 index"},
        {GR_OP_SCATTER_ADD, 3, GENIE_I64, GENIE_I64, 2, 1, 0, 0, GR_E_INDEX, "scatter_add at index 5 of 1"},
        {GR_OP_TOPK, 1, GENIE_I64, 0, 2, 1, 0, 2, GR_E_MALFORMED, "topk of order 2"},
        {GR_OP_SORT, 1, GENIE_I64, 0, 2, 1, 1, 0, GR_E_MALFORMED, "sort along dim 1 of 1"},
        {GR_OP_CONV2D, 2, GENIE_I64, GENIE_I64, 2, 1, 0, 0, GR_E_MALFORMED, "conv2d of stride 0"},
        {GR_OP_FLIP, 1, GENIE_I64, 0, 2, 1, 8, 0, GR_E_MALFORMED, "flip of dim 3 of 1"},
        {GR_OP_RAND, 1, GENIE_F32, 0, 2, 1, 0, 0, GR_E_MALFORMED, "rand with a source"},
        {GR_OP_RANDN, 0, GENIE_I64, 0, 2, 1, 0, 0, GR_E_OP, "randn of an i64"},
    };
    int64_t one[1] = {1}, st1[1] = {1};
    size_t k;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gr_op o;
        int j;
        memset(&o, 0, sizeof o);
        o.op = bad[k].op, o.dtype = o.cdt = bad[k].dtype, o.nin = bad[k].nin, o.i[0] = bad[k].i0, o.i[1] = bad[k].i1;
        o.written = (bad[k].flags & 2) != 0, o.inplace = (bad[k].flags & 4) != 0;
        o.out_buf = 2, o.out_cap = 8 * (uint64_t)bad[k].nout; /* slot 2: buffer 40 (41 in place: no value) */
        put_view(&o.out, 1, bad[k].nout == 1 ? one : (const int64_t[]){bad[k].nout}, st1, 0);
        for (j = 0; j < o.nin; j++) {
            o.in[j].kind = GR_SRC_BUF, o.in[j].ref = j > 0, o.in[j].dtype = j ? bad[k].src1_dtype : GENIE_I64;
            put_view(&o.in[j].v, 1, one, st1, 0);
        }
        o.module = o.phase = "";
        bad_run(r, &o, 32, 32, o.inplace ? 41 : 40, bad[k].code, bad[k].what);
    }
}
/* Hostile values in well-formed RUNs over buffers 32 (i64 [1] holding 5) and 30 (i64 [1]
   holding 0), written to buffer 40: a fill value out of its integer dtype's range (a float to
   int conversion out of range is undefined in C: refused), topk's k past the dim, conv2d with
   a huge padding or dilation (sizes that overflow), an i32 index out of range. Each gets its
   ERROR and the connection goes on. */
static void hostile_values(raw *r) {
    enum { FILL, MFILL, TOPK, CONV, ISEL, AR };
    static const struct { int kind, dtype; double f; int64_t i[6]; const char *what; } bad[] = {
        {FILL, GENIE_I32, 1e30, {0}, "full of an i32 with 1e30"},
        {FILL, GENIE_I64, NAN, {0}, "full of an i64 with NaN"},
        {FILL, GENIE_U8, -1, {0}, "full of a u8 with -1"},
        {FILL, GENIE_I8, INFINITY, {0}, "full of an i8 with inf"},
        {MFILL, GENIE_I64, 1e300, {0}, "masked_fill of an i64 with 1e300"},
        {MFILL, GENIE_I64, -INFINITY, {0}, "masked_fill of an i64 with -inf"},
        {TOPK, GENIE_I64, 0, {0, 1, 5, 0}, "topk k 5 of a dim of 1"},
        {TOPK, GENIE_I64, 0, {0, 1, -1, 0}, "topk k -1"},
        {CONV, GENIE_F32, 0, {1, 1, (int64_t)1 << 60, (int64_t)1 << 60, 1, 1}, "conv2d with padding 2^60"},
        {CONV, GENIE_F32, 0, {1, 1, 0, 0, (int64_t)1 << 61, (int64_t)1 << 61}, "conv2d with dilation 2^61"},
        {CONV, GENIE_F32, 0, {1, 1, INT64_MAX / 2, 0, 1, 1}, "conv2d with padding 2^62"},
        {ISEL, GENIE_I64, 0, {0}, "index_select by an i32 index 5 of 1 row"},
        {AR, GENIE_F32, NAN, {0}, "arange from NaN"},
        {AR, GENIE_I64, 1, {0}, "arange by step 0"},
        {AR, GENIE_F64, 1e300, {0}, "arange from 1e300"},
        {AR, GENIE_I64, 0.5, {0}, "an i64 arange from 0.5"},
        {AR, GENIE_I32, 9.3e18, {0}, "an i32 arange from 9.3e18"},
        {AR, GENIE_I64, 9.1e18, {0}, "an i64 arange of one element from 9.1e18 (its ends 1024 apart)"},
    };
    int64_t one[1] = {1}, st1[1] = {1}, four[4] = {1, 1, 1, 1}, st4[4] = {1, 1, 1, 1};
    size_t k;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gr_op o;
        int j;
        memset(&o, 0, sizeof o);
        o.dtype = bad[k].dtype, o.f[0] = bad[k].f, o.written = 1, o.out_buf = 2, o.out_cap = 8;
        memcpy(o.i, bad[k].i, sizeof bad[k].i);
        put_view(&o.out, 1, one, st1, 0);
        switch (bad[k].kind) {
        case FILL: o.op = GR_OP_FULL; break;
        case MFILL: o.op = GR_OP_MASKED_FILL, o.nin = 2; break;
        case TOPK: o.op = GR_OP_TOPK, o.nin = 1; break;
        case CONV: o.op = GR_OP_CONV2D, o.nin = 2; put_view(&o.out, 4, four, st4, 0); break;
        case AR: o.op = GR_OP_ARANGE, o.f[1] = bad[k].f == 1 ? 0 : 1; break;
        default: o.op = GR_OP_INDEX_SELECT, o.nin = 2; break;
        }
        for (j = 0; j < o.nin; j++) {
            o.in[j].kind = GR_SRC_BUF, o.in[j].ref = (uint64_t)j, o.in[j].dtype = GENIE_I64;
            put_view(&o.in[j].v, 1, one, st1, 0);
            if (bad[k].kind == CONV) o.in[j].dtype = GENIE_F32, put_view(&o.in[j].v, 4, four, st4, 0); /* buffer bytes as f32 */
        }
        if (bad[k].kind == MFILL) o.in[1].ref = 0, o.in[1].dtype = GENIE_BOOL; /* buffer 32 as bool: nonzero */
        if (bad[k].kind == ISEL) o.in[1].ref = 0, o.in[1].dtype = GENIE_I32; /* buffer 32's low half: 5 */
        o.module = o.phase = "";
        bad_run(r, &o, 32, 30, 40, bad[k].kind == ISEL ? GR_E_INDEX : 0, bad[k].what);
    }
    { /* a RAND of 16 MiB written nowhere, past this server's 1 MiB budget: refused before it runs */
        gr_op o;
        int64_t n4m[1] = {(int64_t)1 << 22};
        memset(&o, 0, sizeof o);
        o.op = GR_OP_RAND, o.dtype = GENIE_F32, o.i[0] = 7;
        put_view(&o.out, 1, n4m, st1, 0);
        o.module = o.phase = "";
        bad_run(r, &o, 32, 30, 40, GR_E_LIMIT, "a 16 MiB rand past the client's budget");
    }
    { /* a sum over 2^40 reads of one element (a stride-0 view): work past --max-run-work's default 1e13, refused
         before it runs (else it would keep a thread busy for minutes) */
        gr_op o;
        int64_t n40[1] = {(int64_t)1 << 40}, st0[1] = {0};
        memset(&o, 0, sizeof o);
        o.op = GR_OP_SUM, o.dtype = o.cdt = GENIE_I64, o.nin = 1, o.written = 1, o.out_buf = 2, o.out_cap = 8;
        put_view(&o.out, 0, n40, st0, 0); /* 0-dim */
        o.in[0].kind = GR_SRC_BUF, o.in[0].ref = 0, o.in[0].dtype = GENIE_I64;
        put_view(&o.in[0].v, 1, n40, st0, 0);
        o.module = o.phase = "";
        bad_run(r, &o, 32, 30, 40, GR_E_LIMIT, "a sum of 2^40 reads of one element");
    }
}
/* Mixed dtypes a server must refuse, over buffer 32 (i64 [1] holding 5, read as each
   source's dtype) into buffer 40: a compute dtype genie would not give the op,
   a pair genie refuses (bool - f32), a 0-dim flag on a view of two elements, on an op that is
   not binary or where, and on a source the op lacks. Each gets its ERROR; the connection goes on. */
static void hostile_mixed(raw *r) {
    static const struct { int op, nin, dtype, cdt, dt0, dt1, zero, n1; uint32_t code; const char *what; } bad[] = {
        {GR_OP_ADD, 2, GENIE_F32, GENIE_I64, GENIE_I64, GENIE_F32, 0, 1, GR_E_OP, "i64 + f32 declared computed in i64"},
        {GR_OP_LT, 2, GENIE_BOOL, GENIE_F16, GENIE_F32, GENIE_F16, 0, 1, GR_E_OP, "f32 < f16 declared computed in f16"},
        {GR_OP_ADD, 2, GENIE_F16, GENIE_F16, GENIE_F16, GENIE_F32, 0, 1, GR_E_OP, "f16 + f32 of one rank declared f16"},
        {GR_OP_SUB, 2, GENIE_F32, GENIE_F32, GENIE_BOOL, GENIE_F32, 0, 1, GR_E_OP, "bool - f32"},
        {GR_OP_ADD, 2, GENIE_F32, GENIE_F32, GENIE_F32, GENIE_F16, 2, 2, GR_E_MALFORMED, "a 0-dim source reading 2 elements"},
        {GR_OP_EXP, 1, GENIE_F32, GENIE_F32, GENIE_F32, 0, 1, 1, GR_E_MALFORMED, "a 0-dim flag on exp"},
        {GR_OP_ADD, 2, GENIE_F32, GENIE_F32, GENIE_F32, GENIE_F16, 4, 1, GR_E_MALFORMED, "a 0-dim flag on a third source of add"},
        {GR_OP_ADD, 2, GENIE_F16, GENIE_F32, GENIE_F16, GENIE_F32, 2, 0, GR_E_BUFFER, "an empty 0-dim source past its buffer"},
        {GR_OP_ADD, 2, GENIE_I64, GENIE_F32, GENIE_I64, GENIE_F32, 0, 3, GR_E_OP, "i64 += f32 in place"},
        {GR_OP_MUL, 2, GENIE_BOOL, GENIE_F32, GENIE_BOOL, GENIE_F32, 0, 3, GR_E_OP, "bool *= f32 in place"},
    };
    int64_t one[1] = {1}, st1[1] = {1}, two[1] = {2};
    size_t k;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gr_op o;
        int j;
        memset(&o, 0, sizeof o);
        o.op = bad[k].op, o.nin = bad[k].nin, o.dtype = bad[k].dtype, o.cdt = bad[k].cdt, o.zero = bad[k].zero;
        o.written = 1, o.out_buf = 2, o.out_cap = 8, o.inplace = bad[k].n1 == 3; /* n1 3: in place (refused before any store) */
        put_view(&o.out, 1, bad[k].n1 == 2 ? two : bad[k].n1 == 0 ? (const int64_t[]){0} : one, st1, 0);
        for (j = 0; j < o.nin; j++) {
            o.in[j].kind = GR_SRC_BUF, o.in[j].ref = 0, o.in[j].dtype = j ? bad[k].dt1 : bad[k].dt0;
            put_view(&o.in[j].v, 1, j && bad[k].n1 == 2 ? two : bad[k].n1 == 0 ? (const int64_t[]){0} : one, st1,
                     bad[k].n1 == 0 && j ? 100 : 0); /* n1 0: an empty result, source 1 at element 100 of 2 */
        }
        o.module = o.phase = "";
        bad_run(r, &o, 32, 30, 40, bad[k].code, bad[k].what);
    }
}
/* Quantized linear (QLINEAR) over a raw client's buffers: 60 holds x (f32 [1, 64] zeros), 61 a
   q8_0 [4, 64] weight one byte short (271 of 272 bytes), 62 its 272 bytes; results go to 64 (63
   for the good one). A truncated weight is ERROR 7, a weight whose in-features are not whole
   blocks ERROR 8, each naming the shapes; a block dtype on another op, or as the input, ERROR 4.
   The connection goes on. */
static void q_run_err(raw *r, const gr_op *o, uint64_t wid, uint32_t want, const char *shape, const char *what) {
    gr_wr w;
    int t = 0;
    uint64_t req = 0;
    uint8_t lead[64];
    memset(&w, 0, sizeof w);
    memset(lead, 0, sizeof lead);
    w_slots(&w, 3, 60, wid);
    gr_w64(&w, 64); /* the result (failed by each ERROR) */
    gr_w32(&w, 1);
    gr_op_encode(&w, o);
    CHECK(grx_send(&r->x, r->ep, GR_RUN, ++r->req, w.p, w.n, grx_now() + 5, &r->dead) == UCS_OK && raw_next(r, &t, &req, lead) &&
              t == GR_ERROR && lead[0] == want,
          "%s: type %d code %u (want %u)", what, t, lead[0], want);
    lead[63] = 0;
    CHECK(!shape || strstr((const char *)lead + 8, shape), "%s: the ERROR names %s: \"%s\"", what, shape, (const char *)lead + 8);
    CHECK(raw_alive(r), "alive after %s", what);
    gr_wr_free(&w);
}
static void hostile_quant(raw *r) {
    static const size_t n[3] = {256, 271, 272};
    int64_t xs[2] = {1, 64}, xst[2] = {64, 1}, ws[2] = {4, 64}, wst[2] = {64, 1}, os[2] = {1, 4}, ost[2] = {4, 1};
    gr_op o;
    int k;
    for (k = 0; k < 3; k++) { /* claimed hashes: no HASHED comes back */
        uint8_t *p = (uint8_t *)calloc(1, 48 + n[k]);
        gr_put_u64_at(p, 60 + (uint64_t)k);
        gr_put_u64_at(p + 8, n[k]);
        gr_content_hash(p + 48, n[k], p + 16, 1);
        CHECK(grx_send(&r->x, r->ep, GR_PUT, ++r->req, p, 48 + n[k], grx_now() + 5, &r->dead) == UCS_OK && raw_alive(r), "a quant PUT");
        free(p);
    }
    memset(&o, 0, sizeof o);
    o.op = GR_OP_QLINEAR, o.nin = 2, o.dtype = GENIE_F32, o.cdt = GENIE_F32, o.written = 1, o.out_buf = 2, o.out_cap = 16;
    put_view(&o.out, 2, os, ost, 0);
    o.in[0].kind = GR_SRC_BUF, o.in[0].ref = 0, o.in[0].dtype = GENIE_F32;
    put_view(&o.in[0].v, 2, xs, xst, 0);
    o.in[1].kind = GR_SRC_BUF, o.in[1].ref = 1, o.in[1].dtype = GENIE_Q8_0;
    put_view(&o.in[1].v, 2, ws, wst, 0);
    o.module = o.phase = "";
    q_run_err(r, &o, 61, GR_E_BUFFER, "[4, 64]", "a q8_0 weight 1 byte short");
    /* buffer 62's 272 bytes: [4, 48] of them is not whole blocks */
    ws[1] = 48;
    put_view(&o.in[1].v, 2, ws, wst, 0);
    xs[1] = 48;
    put_view(&o.in[0].v, 2, xs, xst, 0);
    q_run_err(r, &o, 62, GR_E_OP, "[4, 48]", "a q8_0 weight of 48 in-features");
    o.in[0].dtype = GENIE_Q8_0; /* a block dtype as the input */
    q_run_err(r, &o, 62, GR_E_MALFORMED, NULL, "a q8_0 input");
    o.in[0].dtype = GENIE_F32, o.op = GR_OP_MATMUL; /* on another op */
    q_run_err(r, &o, 62, GR_E_MALFORMED, NULL, "a q8_0 source of matmul");
    o.op = GR_OP_QLINEAR, o.in[1].dtype = GENIE_F32; /* a float weight */
    q_run_err(r, &o, 62, GR_E_MALFORMED, NULL, "a quantized linear of an f32 weight");
    { /* and the good weight runs: a RUN without a reply, then a GET of its 4 floats (zeros) */
        uint8_t get[24];
        int t = 0;
        uint32_t code = 0;
        gr_wr w;
        ws[1] = xs[1] = 64;
        put_view(&o.in[0].v, 2, xs, xst, 0);
        put_view(&o.in[1].v, 2, ws, wst, 0);
        o.in[1].dtype = GENIE_Q8_0;
        memset(&w, 0, sizeof w);
        w_slots(&w, 3, 60, 62);
        gr_w64(&w, 63);
        gr_w32(&w, 1);
        gr_op_encode(&w, &o);
        CHECK(grx_send(&r->x, r->ep, GR_RUN, ++r->req, w.p, w.n, grx_now() + 5, &r->dead) == UCS_OK, "a good quantized RUN");
        gr_wr_free(&w);
        memset(get, 0, sizeof get);
        gr_put_u64_at(get, 63);
        gr_put_u64_at(get + 16, 16);
        CHECK(raw_call(r, GR_GET, get, sizeof get, &t, &code) && t == GR_DATA && r->last_n == 16 && r->last[0] == 0,
              "GET of a quantized linear's result: type %d code %u", t, code);
    }
    /* an embedding (rows of a block weight) and a to (dequantized) read source 0 of a block dtype:
       a truncated buffer ERROR 7, a view of part of a block ERROR 8, naming the shapes; a block
       index ERROR 4. x's zeros (buffer 60) serve as an i64 index [1]. */
    ws[1] = 64;
    memset(&o, 0, sizeof o);
    o.op = GR_OP_EMBEDDING, o.nin = 2, o.dtype = GENIE_F32, o.cdt = GENIE_F32, o.written = 1, o.out_buf = 2, o.out_cap = 256;
    os[1] = 64, ost[0] = 64;
    put_view(&o.out, 2, os, ost, 0);
    o.in[0].kind = GR_SRC_BUF, o.in[0].ref = 1, o.in[0].dtype = GENIE_Q8_0;
    put_view(&o.in[0].v, 2, ws, wst, 0);
    o.in[1].kind = GR_SRC_BUF, o.in[1].ref = 0, o.in[1].dtype = GENIE_I64;
    put_view(&o.in[1].v, 1, xs, xst + 1, 0);
    o.module = o.phase = "";
    q_run_err(r, &o, 61, GR_E_BUFFER, "[4, 64]", "an embedding of a q8_0 weight 1 byte short");
    ws[1] = 48;
    put_view(&o.in[0].v, 2, ws, wst, 0);
    q_run_err(r, &o, 62, GR_E_OP, "[4, 48]", "an embedding of a q8_0 weight of rows of part of a block");
    ws[1] = 64;
    put_view(&o.in[0].v, 2, ws, wst, 0);
    o.in[1].dtype = GENIE_Q8_0;
    q_run_err(r, &o, 62, GR_E_MALFORMED, NULL, "an embedding of q8_0 indices");
    memset(&o, 0, sizeof o);
    o.op = GR_OP_TO, o.nin = 1, o.dtype = GENIE_F32, o.cdt = GENIE_F32, o.written = 1, o.out_buf = 2, o.out_cap = 1024;
    put_view(&o.out, 2, ws, wst, 0);
    o.in[0].kind = GR_SRC_BUF, o.in[0].ref = 1, o.in[0].dtype = GENIE_Q8_0;
    put_view(&o.in[0].v, 2, ws, wst, 0);
    o.module = o.phase = "";
    q_run_err(r, &o, 61, GR_E_BUFFER, "[4, 64]", "a to of a q8_0 tensor 1 byte short");
    put_view(&o.in[0].v, 2, ws, wst, 16); /* from element 16: half a block */
    q_run_err(r, &o, 62, GR_E_OP, "[4, 64]", "a to of a q8_0 view from half a block");
}
static void test_hostile(void) {
    server s, k;
    raw r;
    int t = 0;
    uint32_t code = 0;
    gr_wr w;
    uint8_t put[48 + 64];
    gr_op o;
    int64_t one[1] = {1}, st1[1] = {1};
    CHECK(server_start4(&s, "--max-payload-mb", "1", "--client-mb", "1", "hostile") == 0, "server for hostile clients");
    /* wrong version: ERROR and the connection ends */
    CHECK(raw_open(&r, s.port) == 0, "raw client");
    CHECK(raw_hello(&r, GR_VERSION + 1, GR_VERSION + 2, NULL, NULL, &t, &code) && t == GR_ERROR && code == GR_E_VERSION, "wrong version: type %d code %u", t, code);
    raw_close(&r);
    /* a message before HELLO */
    raw_open(&r, s.port);
    t = 0;
    CHECK(raw_call(&r, GR_PING, NULL, 0, &t, &code) && t == GR_ERROR && code == GR_E_AUTH, "PING before HELLO: type %d code %u", t, code);
    raw_close(&r);
    /* a session: each bad message gets its ERROR, the connection goes on */
    raw_open(&r, s.port);
    CHECK(raw_hello(&r, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "HELLO: type %d", t);
    memset(put, 7, sizeof put); /* PUT: id 7, cap 64, a hash that is not the bytes' */
    memset(put, 0, 16);
    put[0] = 7, put[8] = 64;
    t = 0;
    CHECK(raw_call(&r, GR_PUT, put, sizeof put, &t, &code) && t == GR_ERROR && code == GR_E_HASH, "bad hash: type %d code %u", t, code);
    CHECK(raw_alive(&r), "alive after a bad hash");
    t = 0;
    {
        uint8_t get[24] = {7};
        get[16] = 4;
        CHECK(raw_call(&r, GR_GET, get, sizeof get, &t, &code) && t == GR_ERROR, "GET of the poisoned buffer: an ERROR");
    }
    memset(&o, 0, sizeof o); /* a RUN whose source is op 0 itself */
    o.op = GR_OP_RELU, o.nin = 1, o.in[0].kind = GR_SRC_OP, o.in[0].ref = 0, o.in[0].v.ndim = 1, o.in[0].v.shape[0] = 1, o.in[0].v.strides[0] = 1;
    put_view(&o.out, 1, one, st1, 0);
    o.module = o.phase = "";
    memset(&w, 0, sizeof w);
    w_slots(&w, 0, 0, 0);
    gr_w32(&w, 1);
    gr_op_encode(&w, &o);
    t = 0;
    CHECK(raw_call(&r, GR_RUN, w.p, w.n, &t, &code) && t == GR_ERROR && code == GR_E_MALFORMED, "forward source: type %d code %u", t, code);
    CHECK(raw_alive(&r), "alive after a forward source");
    t = 0;
    CHECK(raw_call(&r, GR_RUN, w.p, w.n - 3, &t, &code) && t == GR_ERROR && code == GR_E_MALFORMED, "truncated RUN: type %d code %u", t, code);
    gr_wr_free(&w);
    memset(&w, 0, sizeof w);
    w_slots(&w, 0, 0, 0);
    gr_w32(&w, 0x7fffffff);
    t = 0;
    CHECK(raw_call(&r, GR_RUN, w.p, w.n, &t, &code) && t == GR_ERROR && code == GR_E_LIMIT, "huge op count: type %d code %u", t, code);
    gr_wr_free(&w);
    { /* an unknown buffer, and a view past a buffer's end */
        o.in[0].kind = GR_SRC_BUF, o.in[0].ref = 0;
        memset(&w, 0, sizeof w);
        w_slots(&w, 1, 12345, 0);
        gr_w32(&w, 1);
        gr_op_encode(&w, &o);
        t = 0;
        CHECK(raw_call(&r, GR_RUN, w.p, w.n, &t, &code) && t == GR_ERROR && code == GR_E_BUFFER, "unknown buffer: type %d code %u", t, code);
        gr_wr_free(&w);
        memset(&w, 0, sizeof w); /* a tape this connection never sent */
        gr_wbytes(&w, "0123456789abcdef0123456789abcdef", 32);
        w_slots(&w, 1, 12345, 0);
        t = 0;
        CHECK(raw_call(&r, GR_RUN_CACHED, w.p, w.n, &t, &code) && t == GR_ERROR && code == GR_E_TAPE, "unknown tape: type %d code %u", t, code);
        gr_wr_free(&w);
        { /* the same with a GET: the RUN's ERROR under the message's id, the GET's under the next */
            uint64_t id = ++r.req, ids[2] = {0, 0};
            uint32_t codes[2] = {0, 0};
            int types[2] = {0, 0}, got;
            w_run_cached_get(&w, 12345, 0, 4, 1);
            grx_send(&r.x, r.ep, GR_RUN_CACHED_GET, id, w.p, w.n, grx_now() + 5.0, &r.dead);
            gr_wr_free(&w);
            got = raw_replies(&r, 2, types, ids, codes, NULL, 0);
            CHECK(got == 2 && types[0] == GR_ERROR && types[1] == GR_ERROR && ids[0] == id && codes[0] == GR_E_TAPE && ids[1] == id + 1 &&
                      codes[1] == GR_E_TAPE,
                  "RUN_CACHED_GET of an unknown tape and buffer: %d ERRORs, ids %llu %llu (sent %llu), codes %u %u", got,
                  (unsigned long long)ids[0], (unsigned long long)ids[1], (unsigned long long)id, codes[0], codes[1]);
            r.req++; /* the GET's id */
            CHECK(raw_alive(&r), "alive after a RUN_CACHED_GET of an unknown tape");
        }
        { /* an input inline is the buffer's bytes even when the tape is unknown: the ERROR, then DATA of those bytes */
            static const uint8_t val[8] = {9, 8, 7, 6, 5, 4, 3, 2};
            uint64_t id = ++r.req, ids[2] = {0, 0};
            uint32_t codes[2] = {0, 0};
            int types[2] = {0, 0}, got;
            uint8_t back[8] = {0};
            w_run_cached_get(&w, 77, 0, 8, 1);
            gr_w32(&w, 1), gr_w64(&w, 77), gr_w32(&w, 8), gr_wbytes(&w, val, 8);
            grx_send(&r.x, r.ep, GR_RUN_CACHED_GET, id, w.p, w.n, grx_now() + 5.0, &r.dead);
            gr_wr_free(&w);
            got = raw_replies(&r, 2, types, ids, codes, NULL, 0);
            r.req++;
            CHECK(got == 2 && ids[0] == id && types[0] == GR_ERROR && ids[1] == id + 1 && types[1] == GR_ERROR,
                  "RUN_CACHED_GET of an unknown tape with an input inline: %d replies, types %d %d, ids %llu %llu (sent %llu)", got,
                  types[0], types[1], (unsigned long long)ids[0], (unsigned long long)ids[1], (unsigned long long)id);
            { /* the input was taken all the same, as a PUT before the message would be */
                uint8_t get[24] = {77};
                get[16] = 8;
                id = ++r.req;
                grx_send(&r.x, r.ep, GR_GET, id, get, sizeof get, grx_now() + 5.0, &r.dead);
                got = raw_replies(&r, 1, types, ids, codes, back, sizeof back);
                CHECK(got == 1 && types[0] == GR_DATA && ids[0] == id && memcmp(back, val, 8) == 0, "GET of an input inline: %d replies, type %d, bytes %s",
                      got, types[0], memcmp(back, val, 8) ? "differ" : "equal");
            }
            CHECK(raw_alive(&r), "alive after a RUN_CACHED_GET with an input inline");
        }
        { /* a tape kept decoded, bound to each RUN_CACHED's table: exp of buffer 140 into 141, then into 143,
             then with a table too short for its output slot (the message a first decode gives) */
            const float one_f = 1.0f;
            float back = 0;
            uint8_t put[48 + 4], hash[32];
            uint64_t id, ids[2];
            uint32_t codes[2];
            int types[2], got, k;
            gr_op e;
            gr_wr g;
            memset(put, 0, sizeof put);
            put[0] = 140, put[8] = 4;
            memcpy(put + 48, &one_f, 4);
            gr_content_hash(put + 48, 4, put + 16, 1);
            CHECK(grx_send(&r.x, r.ep, GR_PUT, ++r.req, put, sizeof put, grx_now() + 5, &r.dead) == UCS_OK && raw_alive(&r), "PUT of buffer 140");
            memset(&e, 0, sizeof e);
            e.op = GR_OP_EXP, e.dtype = GENIE_F32, e.nin = 1, e.written = 1, e.out_buf = 1, e.out_cap = 4;
            e.in[0].kind = GR_SRC_BUF, e.in[0].ref = 0, e.in[0].dtype = GENIE_F32;
            put_view(&e.in[0].v, 1, one, st1, 0);
            put_view(&e.out, 1, one, st1, 0);
            e.module = e.phase = "";
            memset(&w, 0, sizeof w);
            w_slots(&w, 2, 140, 141);
            gr_w32(&w, 1);
            gr_op_encode(&w, &e);
            crypto_generichash(hash, sizeof hash, w.p + 4 + 16, w.n - 4 - 16, NULL, 0);
            CHECK(grx_send(&r.x, r.ep, GR_RUN, ++r.req, w.p, w.n, grx_now() + 5, &r.dead) == UCS_OK && raw_alive(&r),
                  "RUN of exp: no ERROR before the PING's OK");
            gr_wr_free(&w);
            for (k = 0; k < 3; k++) { /* 141 (the RUN's own table again), 143, then a table of one slot */
                const uint64_t out = k == 0 ? 141 : 143;
                memset(&g, 0, sizeof g);
                gr_wbytes(&g, hash, 32);
                gr_w64(&g, out), gr_w64(&g, 0), gr_w64(&g, 4);
                if (k < 2) w_slots(&g, 2, 140, out);
                else w_slots(&g, 1, 140, 0);
                id = ++r.req;
                back = 0;
                grx_send(&r.x, r.ep, GR_RUN_CACHED_GET, id, g.p, g.n, grx_now() + 5.0, &r.dead);
                r.req++;
                gr_wr_free(&g);
                if (k < 2) { /* no ERROR: the GET's DATA alone */
                    got = raw_replies(&r, 1, types, ids, codes, (uint8_t *)&back, sizeof back);
                    CHECK(got == 1 && types[0] == GR_DATA && ids[0] == id + 1 && fabsf(back - expf(1.0f)) < 1e-6f,
                          "RUN_CACHED_GET of a kept tape into buffer %llu: %d replies, type %d, %g", (unsigned long long)out, got, types[0], back);
                } else { /* the tape's ERROR, then the GET's: nothing read of a tape that did not run */
                    got = raw_replies(&r, 2, types, ids, codes, NULL, 0);
                    CHECK(got == 2 && types[0] == GR_ERROR && codes[0] == GR_E_MALFORMED && ids[0] == id && types[1] == GR_ERROR && ids[1] == id + 1,
                          "a kept tape bound to a table too short: %d replies, types %d %d, code %u", got, types[0], types[1], codes[0]);
                }
            }
            CHECK(raw_alive(&r), "alive after kept tapes bound");
            { /* a RUN_CACHED_GET of a tape not held: ERROR 11, and the server forgets the tape above too */
                for (k = 0; k < 2; k++) {
                    memset(&g, 0, sizeof g);
                    gr_wbytes(&g, k ? hash : (const uint8_t *)"0123456789abcdef0123456789abcdef", 32);
                    gr_w64(&g, 141), gr_w64(&g, 0), gr_w64(&g, 4);
                    w_slots(&g, 2, 140, 141);
                    id = ++r.req;
                    grx_send(&r.x, r.ep, GR_RUN_CACHED_GET, id, g.p, g.n, grx_now() + 5.0, &r.dead);
                    r.req++;
                    gr_wr_free(&g);
                    got = raw_replies(&r, 2, types, ids, codes, NULL, 0);
                    CHECK(got == 2 && types[0] == GR_ERROR && codes[0] == GR_E_TAPE && ids[0] == id && types[1] == GR_ERROR && codes[1] == GR_E_TAPE,
                          "RUN_CACHED_GET of %s: %d replies, types %d %d, codes %u %u", k ? "a tape forgotten after another's ERROR 11" : "an unknown tape",
                          got, types[0], types[1], codes[0], codes[1]);
                }
            }
        }
        { /* a RUN_CACHED_GET that does not decode (a GET of buffer id 0): its ERROR under both ids */
            uint64_t id = ++r.req, ids[2] = {0, 0};
            uint32_t codes[2] = {0, 0};
            int types[2] = {0, 0}, got;
            w_run_cached_get(&w, 0, 0, 4, 1);
            grx_send(&r.x, r.ep, GR_RUN_CACHED_GET, id, w.p, w.n, grx_now() + 5.0, &r.dead);
            gr_wr_free(&w);
            r.req++;
            got = raw_replies(&r, 2, types, ids, codes, NULL, 0);
            CHECK(got == 2 && types[0] == GR_ERROR && types[1] == GR_ERROR && ids[0] == id && ids[1] == id + 1 && codes[0] == GR_E_MALFORMED &&
                      codes[1] == GR_E_MALFORMED,
                  "a malformed RUN_CACHED_GET: %d replies, types %d %d, ids %llu %llu (sent %llu)", got, types[0], types[1],
                  (unsigned long long)ids[0], (unsigned long long)ids[1], (unsigned long long)id);
            CHECK(raw_alive(&r), "alive after a malformed RUN_CACHED_GET");
        }
    }
    { /* in-place writes: into a buffer that holds no value (ERROR 7), at an index past the view (ERROR 8) */
        int64_t vals[2] = {0, 5};
        int k;
        gr_op ic;
        for (k = 0; k < 2; k++) { /* buffers 30 (holds 0) and 32 (holds 5): 8 bytes of i64 each */
            uint8_t p[48 + 8];
            memset(p, 0, sizeof p);
            p[0] = (uint8_t)(30 + 2 * k), p[8] = 8;
            memcpy(p + 48, &vals[k], 8);
            gr_content_hash(p + 48, 8, p + 16, 1);
            CHECK(grx_send(&r.x, r.ep, GR_PUT, ++r.req, p, sizeof p, grx_now() + 5, &r.dead) == UCS_OK && raw_alive(&r), "an index PUT");
        }
        memset(&ic, 0, sizeof ic); /* index_copy_(slot 1's [1] i64, dim 0, index slot 0, source slot 0) */
        ic.op = GR_OP_INDEX_COPY, ic.dtype = GENIE_I64, ic.nin = 2, ic.written = 1, ic.inplace = 1, ic.out_buf = 1, ic.out_cap = 8;
        ic.in[0].kind = ic.in[1].kind = GR_SRC_BUF, ic.in[0].dtype = ic.in[1].dtype = GENIE_I64;
        put_view(&ic.in[0].v, 1, one, st1, 0);
        put_view(&ic.in[1].v, 1, one, st1, 0);
        put_view(&ic.out, 1, one, st1, 0);
        ic.module = ic.phase = "";
        memset(&w, 0, sizeof w);
        w_slots(&w, 2, 30, 31);
        gr_w32(&w, 1);
        gr_op_encode(&w, &ic);
        t = 0;
        CHECK(raw_call(&r, GR_RUN, w.p, w.n, &t, &code) && t == GR_ERROR && code == GR_E_BUFFER, "in place into no value: type %d code %u", t, code);
        gr_wr_free(&w);
        memset(&w, 0, sizeof w);
        w_slots(&w, 2, 32, 30); /* index 5 into a view of 1 */
        gr_w32(&w, 1);
        gr_op_encode(&w, &ic);
        t = 0;
        CHECK(raw_call(&r, GR_RUN, w.p, w.n, &t, &code) && t == GR_ERROR && code == GR_E_INDEX, "in place past the view: type %d code %u", t, code);
        gr_wr_free(&w);
        CHECK(raw_alive(&r), "alive after bad in-place writes");
        hostile_ops5(&r);
        hostile_values(&r);
        hostile_mixed(&r);
        hostile_quant(&r);
    }
    { /* a result that views the buffer it is stored into (contiguous of a contiguous view is its
         input), stored with a new size: the old bytes are read before they are freed */
        gr_op c1;
        int64_t five = 5;
        uint8_t get[24] = {50};
        int k;
        memset(&c1, 0, sizeof c1);
        c1.op = GR_OP_CONTIGUOUS, c1.dtype = GENIE_I64, c1.nin = 1, c1.written = 1, c1.out_buf = 1;
        c1.in[0].kind = GR_SRC_BUF, c1.in[0].dtype = GENIE_I64;
        put_view(&c1.in[0].v, 1, one, st1, 0);
        put_view(&c1.out, 1, one, st1, 0);
        c1.module = c1.phase = "";
        for (k = 0; k < 2; k++) { /* buffer 32 (5) -> owned buffer 50 of 8 bytes; then 50 -> 50 of 16 bytes */
            c1.out_cap = 8 << k;
            memset(&w, 0, sizeof w);
            w_slots(&w, 2, k ? 50 : 32, 50);
            gr_w32(&w, 1);
            gr_op_encode(&w, &c1);
            CHECK(grx_send(&r.x, r.ep, GR_RUN, ++r.req, w.p, w.n, grx_now() + 5, &r.dead) == UCS_OK, "RUN %d of a self view", k);
            gr_wr_free(&w);
        }
        get[16] = 8;
        t = 0;
        CHECK(raw_call(&r, GR_GET, get, sizeof get, &t, &code) && t == GR_DATA && r.last_n == 8 && memcmp(r.last, &five, 8) == 0,
              "a self view stored with a new size keeps its value: type %d, %zu bytes", t, r.last_n);
    }
    {
        uint8_t f[4 + 8] = {0xff, 0xff, 0xff, 0x7f};
        t = 0;
        CHECK(raw_call(&r, GR_FREE, f, sizeof f, &t, &code) && t == GR_ERROR && code == GR_E_LIMIT, "huge FREE count: type %d code %u", t, code);
    }
    { /* tensors a client binds count against --client-mb (1 MiB here): the second 600 KB PUT is refused */
        size_t n = 600 << 10;
        uint8_t *blob = (uint8_t *)calloc(1, 48 + n);
        int k;
        for (k = 0; k < 2; k++) {
            gr_wr hw;
            blob[48] = (uint8_t)(k + 1);
            gr_content_hash(blob + 48, n, blob + 16, 1);
            memset(&hw, 0, sizeof hw);
            gr_w64(&hw, 100 + (uint64_t)k);
            gr_w64(&hw, n);
            memcpy(blob, hw.p, 16);
            gr_wr_free(&hw);
            t = 0;
            if (k == 0) CHECK(grx_send(&r.x, r.ep, GR_PUT, ++r.req, blob, 48 + n, grx_now() + 5, &r.dead) == UCS_OK && raw_alive(&r), "a 600 KB PUT");
            else CHECK(raw_call(&r, GR_PUT, blob, 48 + n, &t, &code) && t == GR_ERROR && code == GR_E_LIMIT, "over --client-mb: type %d code %u", t, code);
        }
        free(blob);
    }
    CHECK(raw_alive(&r), "alive after all that");
    { /* oversized payload (server limit 1 MiB): ERROR, and the connection closes */
        char *big = (char *)calloc(1, 2 << 20);
        t = 0;
        CHECK(raw_call(&r, GR_PUT, big, 2 << 20, &t, &code) && t == GR_ERROR && code == GR_E_FRAMING, "oversized: type %d code %u", t, code);
        free(big);
    }
    raw_close(&r);
    { /* and the server serves a genie client all along */
        genie_ctx *c = remote_ctx(s.addr);
        double v = 0;
        float zero = 0;
        genie_result rr = genie_item(c, genie_exp(c, genie_from_data(c, GENIE_F32, 1, one, &zero)), &v);
        CHECK(c && rr == GENIE_OK && v == 1.0 && genie_get_stats(c).backend_nodes > 0, "a genie client after hostile ones: %d %g %llu %s", rr,
              v, (unsigned long long)genie_get_stats(c).backend_nodes, c ? genie_last_error(c) : "");
        genie_ctx_destroy(c);
    }
    CHECK(server_stop(&s) == 0, "server exits 0 on SIGTERM");
    CHECK(log_count(&s, "ended") >= 4 && log_count(&s, "genie-server listening on 127.0.0.1:") == 1, "one log line per connection");
    /* a server with a key: a wrong key gets AUTH's ERROR; the right one works */
    {
        FILE *f = fopen("build/remote_test.key", "w");
        fputs("a pre-shared key for the tests\n", f);
        fclose(f);
    }
    CHECK(server_start(&k, "--key-file", "build/remote_test.key", "key") == 0, "server with a key");
    {
        uint8_t challenge[32], nonce[32], key[32], text[76], mac[32];
        raw_open(&r, k.port);
        CHECK(raw_hello(&r, GR_VERSION, GR_VERSION, challenge, nonce, &t, &code) && t == GR_WELCOME, "HELLO to a keyed server");
        crypto_generichash(key, 32, (const unsigned char *)"the wrong key", 13, NULL, 0);
        memcpy(text, challenge, 32);
        memcpy(text + 32, nonce, 32);
        memcpy(text + 64, "genie-remote", 12);
        crypto_auth(mac, text, sizeof text, key);
        t = 0;
        CHECK(raw_call(&r, GR_AUTH, mac, 32, &t, &code) && t == GR_ERROR && code == GR_E_AUTH, "wrong key: type %d code %u", t, code);
        raw_close(&r);
        raw_open(&r, k.port);
        raw_hello(&r, GR_VERSION, GR_VERSION, challenge, nonce, &t, &code);
        t = 0;
        CHECK(raw_call(&r, GR_GET, "012345678901234567890123", 24, &t, &code) && t == GR_ERROR && code == GR_E_AUTH, "GET before AUTH: type %d code %u", t, code);
        raw_close(&r);
    }
    {
        genie_ctx *c;
        unsetenv("GENIE_REMOTE_KEY_FILE");
        c = remote_ctx(k.addr);
        CHECK(c && genie_status(c) == GENIE_ERR_BACKEND && strstr(genie_last_error(c), "GENIE_REMOTE_KEY_FILE") &&
                  strcmp(genie_backend_name(c), "cpu") == 0,
              "no key: %s", c ? genie_last_error(c) : "");
        genie_ctx_destroy(c);
        setenv("GENIE_REMOTE_KEY_FILE", "build/remote_test.key", 1);
        c = remote_ctx(k.addr);
        CHECK(c && genie_status(c) == GENIE_OK && strcmp(genie_backend_name(c), "remote") == 0, "the key: %s", c ? genie_last_error(c) : "");
        genie_ctx_destroy(c);
        unsetenv("GENIE_REMOTE_KEY_FILE");
    }
    CHECK(server_stop(&k) == 0, "keyed server exits 0");
}

/* ---- faults ---- */
/* ---- a RUN the server refused whole: the tape lists start again (ERROR 11) ---- */
/* exp of x, n_ops times, under a module path and a phase of 240 characters each (about 500 bytes
   an op on the wire): into *out, GENIE_OK or the read's error */
static genie_result long_chain(genie_ctx *c, int n_ops, const char *name, float *out) {
    int64_t four = 4;
    float x[4] = {0.1f, 0.2f, -0.3f, 0.05f};
    genie_tensor *t;
    genie_result e;
    int i;
    genie_pool_push(c);
    genie_scope_push(c, name);
    genie_set_phase(c, name);
    t = genie_from_data(c, GENIE_F32, 1, &four, x);
    for (i = 0; i < n_ops; i++) t = genie_mul_scalar(c, genie_sin(c, t), 0.99);
    genie_set_phase(c, NULL);
    genie_scope_pop(c);
    e = genie_read(c, t, GENIE_F32, out, 4 * sizeof(float));
    genie_pool_pop(c);
    return e;
}
static void test_tape_resync(void) {
    server s;
    genie_ctx *c, *l;
    char name[241];
    float r[4], w[4];
    genie_result e;
    int k;
    memset(name, 'm', 240);
    name[240] = 0;
    if (server_start(&s, "--queue-mb", "1", "resync") != 0) { CHECK(0, "the server with --queue-mb 1 did not start"); return; }
    c = remote_ctx(s.addr), l = local_ctx();
    /* 1500 ops of about 500 bytes: a RUN over the 1 MiB queue cap, refused whole; the client had counted it kept */
    e = long_chain(c, 1500, name, r);
    CHECK(e != GENIE_OK && strstr(genie_last_error(c), "queue cap"), "a RUN over --queue-mb is refused: %s", genie_last_error(c));
    genie_clear_error(c);
    e = long_chain(c, 1500, name, r); /* the same step again: RUN_CACHED of a tape the server never kept */
    CHECK(e != GENIE_OK && strstr(genie_last_error(c), "no tape with that hash"), "its repeat gets ERROR 11: %s", genie_last_error(c));
    genie_clear_error(c);
    for (k = 0; k < 3; k++) { /* both lists start again: a short step runs as a RUN, then as RUN_CACHED */
        e = long_chain(c, 40, "short", r);
        CHECK(e == GENIE_OK && long_chain(l, 40, "short", w) == GENIE_OK && memcmp(r, w, sizeof r) == 0,
              "after ERROR 11, step %d runs and equals local: %s", k, genie_last_error(c));
        genie_clear_error(c);
    }
    CHECK(genie_get_stats(c).backend_fallbacks == 0, "after ERROR 11: nothing ran on the client's CPU");
    genie_ctx_destroy(c);
    genie_ctx_destroy(l);
    server_done(&s, "a refused RUN", "ended", 1);
}
/* ---- a client that stops reading its replies ---- */
#define SR_BYTES 200000 /* each GET's reply: copied by the server and left going */
#define SR_GETS 200     /* 40 MB of replies: more than the sockets hold */
/* A raw client (a child process) that uploads SR_BYTES of 7s as buffer 1, sends SR_GETS GETs of
   them (and a BYE when bye), says so on ready_fd and stops itself; once continued it reads every
   reply: exits 0 if all came, in order and whole. */
static void stopped_reader_kid(int port, int ready_fd, int bye) {
    raw r;
    int t = 0, got = 0, ok = 1, i;
    uint32_t code = 0;
    uint8_t get[24], *want = (uint8_t *)malloc(SR_BYTES);
    uint64_t first;
    double until;
    memset(want, 7, SR_BYTES);
    if (raw_open(&r, port) != 0 || !raw_hello(&r, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) || t != GR_WELCOME) _exit(2);
    if (!raw_put(&r, 1, SR_BYTES, 7, NULL) || raw_get_eq(&r, 1, 0, SR_BYTES, want) != 1) _exit(3);
    gr_put_u64_at(get, 1);
    gr_put_u64_at(get + 8, 0);
    gr_put_u64_at(get + 16, SR_BYTES);
    first = r.req + 1;
    for (i = 0; i < SR_GETS; i++)
        if (grx_send(&r.x, r.ep, GR_GET, ++r.req, get, sizeof get, grx_now() + 5, &r.dead) != UCS_OK) _exit(4);
    if (bye && grx_send(&r.x, r.ep, GR_BYE, ++r.req, NULL, 0, grx_now() + 5, &r.dead) != UCS_OK) _exit(4);
    if (write(ready_fd, "r", 1) != 1) _exit(5);
    raise(SIGSTOP);
    until = grx_now() + 20;
    while (got < SR_GETS && ok && grx_now() < until && !r.dead) {
        grx_msg *m;
        gr_hdr h;
        ucp_worker_progress(r.x.w);
        if (!(m = grx_pop(&r.x, r.ep))) continue;
        if (gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0 && h.type != GR_HASHED) {
            ok = h.type == GR_DATA && h.id == first + (uint64_t)got && m->len == SR_BYTES && memcmp(m->data, want, SR_BYTES) == 0;
            got++;
        }
        grx_msg_free(&r.x, m);
    }
    raw_close(&r);
    _exit(got == SR_GETS && ok ? 0 : 1);
}
/* the longest of PINGs by o, one every 0.1 s for `secs` (a PING unanswered counts 99 s) */
static double pings_worst(raw *o, double secs) {
    double end = wall_now() + secs, worst = 0;
    struct timespec gap = {0, 100000000};
    while (wall_now() < end) {
        double t0 = wall_now();
        double took = raw_alive(o) ? wall_now() - t0 : 99;
        if (took > worst) worst = took;
        nanosleep(&gap, NULL);
    }
    return worst;
}
/* A client stopped with 40 MB of replies going holds no other client up: stopped 0.5 s it gets
   them all after, in order; stopped past --reply-timeout-ms (1.5 s here) it is dropped, and so is
   one that said BYE after its GETs (the server waits for its replies, not holding the others). */
static void test_stopped_reader(void) {
    server s;
    raw o;
    int go[3][2], ready[3][2], k, t = 0, st = 0;
    uint32_t code = 0;
    pid_t kid[3];
    char one;
    if (server_start(&s, "--reply-timeout-ms", "1500", "stopped") != 0) { CHECK(0, "the server with --reply-timeout-ms did not start"); return; }
    fflush(stdout);
    for (k = 0; k < 3; k++) { /* forked before this process holds a UCX connection; each waits for its go */
        if (pipe(go[k]) != 0 || pipe(ready[k]) != 0) { CHECK(0, "pipe"); return; }
        if ((kid[k] = fork()) == 0) {
            if (read(go[k][0], &one, 1) != 1) _exit(6);
            stopped_reader_kid(s.port, ready[k][1], k == 2);
        }
        close(go[k][0]), close(ready[k][1]);
    }
    if (raw_open(&o, s.port) != 0 || !raw_hello(&o, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) || t != GR_WELCOME)
        CHECK(0, "another client of the stopped reader's server");
    for (k = 0; k < 3; k++) {
        double worst;
        if (write(go[k][1], "g", 1) != 1 || read(ready[k][0], &one, 1) != 1 || waitpid(kid[k], &st, WUNTRACED) != kid[k] || !WIFSTOPPED(st)) {
            kill(kid[k], SIGKILL), waitpid(kid[k], &st, 0);
            CHECK(0, "the reader %d did not stop itself (%s %d)", k, WIFEXITED(st) ? "exit" : "status", WIFEXITED(st) ? WEXITSTATUS(st) : st);
            continue;
        }
        worst = pings_worst(&o, k == 0 ? 0.5 : 3.0);
        CHECK(worst < 0.5, "beside a client stopped with %d replies of %d bytes going%s: the longest PING %.3f s (want under 0.5 s)",
              SR_GETS, SR_BYTES, k == 2 ? " after its BYE" : "", worst);
        if (k == 0) {
            kill(kid[k], SIGCONT);
            waitpid(kid[k], &st, 0);
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a client stopped 0.5 s with its replies going gets all %d after, in order (exit %d)",
                  SR_GETS, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        } else {
            kill(kid[k], SIGKILL);
            waitpid(kid[k], &st, 0);
        }
    }
    for (k = 0; k < 3; k++) close(go[k][1]), close(ready[k][0]);
    CHECK(raw_alive(&o), "the other client is still served");
    raw_close(&o);
    server_done(&s, "a client that stopped reading", "it stopped taking its replies", 2);
}
static void test_faults(void) {
    server s;
    int64_t ws[2] = {384, 384}, xs[2] = {64, 384};
    genie_ctx *c, *l;
    genie_tensor *w, *x, *y, *lw, *lx;
    float *out = (float *)malloc(64 * 384 * 4), *ref = (float *)malloc(64 * 384 * 4);
    double t0, dt;
    genie_result r;
    int i, st;
    pid_t kids[2];
    /* kill -9 of the server mid-run */
    CHECK(server_start(&s, NULL, NULL, "kill") == 0, "server to kill");
    c = remote_ctx(s.addr);
    w = rnd(c, GENIE_F32, 2, ws, 1);
    x = rnd(c, GENIE_F32, 2, xs, 2);
    y = genie_tanh(c, genie_linear(c, x, w, NULL));
    CHECK(genie_read(c, y, GENIE_F32, out, 64 * 384 * 4) == GENIE_OK, "before the kill: %s", genie_last_error(c));
    for (i = 0; i < 20; i++) y = genie_tanh(c, genie_linear(c, y, w, NULL)); /* queued on the server, then the kill */
    genie_realize(c, 1, &y);
    kill(s.pid, SIGKILL);
    waitpid(s.pid, &st, 0);
    s.pid = 0;
    t0 = grx_now();
    r = genie_read(c, y, GENIE_F32, out, 64 * 384 * 4);
    dt = grx_now() - t0;
    CHECK(r == GENIE_ERR_BACKEND && strstr(genie_last_error(c), s.addr), "server killed: %d %s", r, genie_last_error(c));
    CHECK(dt < 1.5, "the loss was known in %.2f s", dt);
    printf("  server killed mid-run: GENIE_ERR_BACKEND after %.3f s\n", dt);
    /* the same step again on the local CPU: the leaves are still on the host */
    genie_clear_error(c);
    y = genie_tanh(c, genie_linear(c, x, w, NULL));
    for (i = 0; i < 20; i++) y = genie_tanh(c, genie_linear(c, y, w, NULL));
    r = genie_read(c, y, GENIE_F32, out, 64 * 384 * 4);
    l = local_ctx();
    lw = rnd(l, GENIE_F32, 2, ws, 1);
    lx = rnd(l, GENIE_F32, 2, xs, 2);
    y = genie_tanh(l, genie_linear(l, lx, lw, NULL));
    for (i = 0; i < 20; i++) y = genie_tanh(l, genie_linear(l, y, lw, NULL));
    genie_read(l, y, GENIE_F32, ref, 64 * 384 * 4);
    CHECK(r == GENIE_OK && memcmp(out, ref, 64 * 384 * 4) == 0, "re-run on the CPU after the loss: %d %s", r, genie_last_error(c));
    genie_ctx_destroy(c);
    /* a client killed mid-run; then two clients at once */
    CHECK(server_start(&s, NULL, NULL, "clients") == 0, "server for clients");
    fflush(stdout);
    kids[0] = fork();
    if (kids[0] == 0) {
        genie_ctx *k = remote_ctx(s.addr);
        genie_tensor *kw = rnd(k, GENIE_F32, 2, ws, 1), *ky = rnd(k, GENIE_F32, 2, xs, 2);
        for (i = 0; i < 30; i++) ky = genie_tanh(k, genie_linear(k, ky, kw, NULL));
        genie_realize(k, 1, &ky);
        kill(getpid(), SIGKILL);
        _exit(0);
    }
    waitpid(kids[0], &st, 0);
    fflush(stdout);
    for (i = 0; i < 2; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            genie_ctx *k = remote_ctx(s.addr), *kl = local_ctx();
            genie_tensor *kw = rnd(k, GENIE_F32, 2, ws, 1 + (uint64_t)i), *ky = rnd(k, GENIE_F32, 2, xs, 2);
            genie_tensor *lkw = rnd(kl, GENIE_F32, 2, ws, 1 + (uint64_t)i), *lky = rnd(kl, GENIE_F32, 2, xs, 2);
            int j, ok;
            for (j = 0; j < 10; j++) {
                ky = genie_tanh(k, genie_linear(k, ky, kw, NULL));
                lky = genie_tanh(kl, genie_linear(kl, lky, lkw, NULL));
            }
            ok = genie_read(k, ky, GENIE_F32, out, 64 * 384 * 4) == GENIE_OK && genie_read(kl, lky, GENIE_F32, ref, 64 * 384 * 4) == GENIE_OK &&
                 memcmp(out, ref, 64 * 384 * 4) == 0 && genie_get_stats(k).backend_nodes >= 20;
            genie_ctx_destroy(k);
            genie_ctx_destroy(kl);
            _exit(ok ? 0 : 1);
        }
    }
    for (i = 0; i < 2; i++) {
        waitpid(kids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client %d of two at once", i);
    }
    server_done(&s, "a client killed, then two at once: each connection's state dropped", "ended", 3);
    genie_ctx_destroy(l);
    free(out);
    free(ref);
}

/* Bytes genie holds (from_data), in a fresh buffer or one uploaded before (genie hands a freed
   block to the next value of its size, keeping its device id), are sent first, unhashed, no HAS:
   one round trip a step, the GET's; the results equal local, for one PUT (384 KiB) and for
   PUT_PARTs (5 MiB and a rest), and the server's hash of each comes back (HASHED). */
static void test_rewrite(const char *addr) {
    static const int64_t sizes[2] = {96 * 1024, 1300000};
    int z, t;
    for (z = 0; z < 2; z++) {
        genie_ctx *c = remote_ctx(addr), *l = local_ctx();
        int64_t n = sizes[z];
        float *out = (float *)malloc((size_t)n * 4), *ref = (float *)malloc((size_t)n * 4);
        uint64_t rt[4] = {0, 0, 0, 0}, hits = 0;
        for (t = 0; t < 4; t++) {
            genie_stats a = genie_get_stats(c), b;
            genie_tensor *x, *lx;
            genie_pool_push(c);
            genie_pool_push(l);
            x = rnd(c, GENIE_F32, 1, &n, 10 + (uint64_t)t);
            lx = rnd(l, GENIE_F32, 1, &n, 10 + (uint64_t)t);
            genie_read(c, genie_exp(c, x), GENIE_F32, out, (size_t)n * 4);
            genie_read(l, genie_exp(l, lx), GENIE_F32, ref, (size_t)n * 4);
            genie_pool_pop(c);
            genie_pool_pop(l);
            b = genie_get_stats(c);
            rt[t] = b.remote_round_trips - a.remote_round_trips;
            if (t > 0) hits += b.cache_hits - a.cache_hits;
            CHECK(genie_status(c) == GENIE_OK && memcmp(out, ref, (size_t)n * 4) == 0, "rewritten %lld floats, step %d: remote == local: %s",
                  (long long)n, t, genie_last_error(c));
        }
        CHECK(rt[0] == 1, "a fresh upload of %lld floats sent first: the GET's round trip alone, %llu", (long long)n, (unsigned long long)rt[0]);
        CHECK(genie_remote_hashed(c) == GENIE_OK, "the HASHED of %lld rewritten floats: %s", (long long)n, genie_last_error(c));
        { /* the server cached the last step's bytes under their hash: another context's HAS of them hits */
            genie_ctx *c2 = remote_ctx(addr);
            float *bytes = (float *)malloc((size_t)n * 4);
            genie_stats a, b;
            double s = 0;
            genie_pool_push(l);
            genie_read(l, rnd(l, GENIE_F32, 1, &n, 13), GENIE_F32, bytes, (size_t)n * 4);
            genie_pool_pop(l);
            a = genie_get_stats(c2);
            (void)genie_item(c2, genie_sum(c2, genie_from_blob(c2, GENIE_F32, 1, &n, NULL, bytes, NULL, NULL), 0, NULL, 0), &s);
            b = genie_get_stats(c2);
            CHECK(genie_status(c2) == GENIE_OK && b.remote_bytes_sent - a.remote_bytes_sent < (uint64_t)n * 2,
                  "the last %lld rewritten floats, hashed by the server: another context's HAS finds them (%llu bytes sent): %s", (long long)n,
                  (unsigned long long)(b.remote_bytes_sent - a.remote_bytes_sent), genie_last_error(c2));
            genie_ctx_destroy(c2);
            free(bytes);
        }
        if (hits) /* a reused block: its new bytes need no HAS */
            CHECK(rt[1] == 1 && rt[2] == 1 && rt[3] == 1, "a reused block's new %lld floats: the GET's round trip alone (%llu %llu %llu)",
                  (long long)n, (unsigned long long)rt[1], (unsigned long long)rt[2], (unsigned long long)rt[3]);
        else
            printf("skip: genie reused no block for %lld floats (its block cache is off?): the streamed upload unchecked\n", (long long)n);
        genie_ctx_destroy(c);
        genie_ctx_destroy(l);
        free(out);
        free(ref);
    }
    printf("  fresh and rewritten buffers: sent first without HAS, hashed by the server after, results equal local\n");
}

/* Buffers sent unhashed, then written in place on the server and freed before their HASHED
   came: the client's table of hashes forgets them whole, so genie_remote_hashed has nothing
   to wait for (a slot reused by a later buffer must not carry the old wait) and the
   connection goes on. */
static void test_hash_slots(const char *addr) {
    genie_ctx *c;
    int i;
    double out = 0, t0;
    genie_result e;
    setenv("GENIE_REMOTE_TIMEOUT_MS", "2000", 1);
    c = remote_ctx(addr);
    unsetenv("GENIE_REMOTE_TIMEOUT_MS");
    for (i = 0; i < 8; i++) {
        int64_t n = 32768 + 16 * i, k; /* 128 KiB and a little: over the size hashed first */
        float *v = (float *)malloc((size_t)n * 4);
        genie_tensor *x, *s;
        for (k = 0; k < n; k++) v[k] = (float)(i * 7 + k % 13);
        x = genie_from_data(c, GENIE_F32, 1, &n, v);
        genie_add_(c, x, genie_full(c, GENIE_F32, 0, NULL, 1.0));
        s = genie_sum(c, x, 0, NULL, 0);
        CHECK(genie_item(c, s, &out) == GENIE_OK, "in-place add of unhashed upload %d: %s", i, genie_last_error(c));
        genie_release(s);
        genie_release(x);
        free(v);
    }
    t0 = grx_now();
    e = genie_remote_hashed(c);
    CHECK(e == GENIE_OK && grx_now() - t0 < 1.0, "genie_remote_hashed after buffers written and freed before their HASHED: %.2f s, %s",
          grx_now() - t0, e ? genie_last_error(c) : "ok");
    {
        int64_t n = 40000;
        genie_tensor *x = genie_full(c, GENIE_F32, 1, &n, 2.0);
        genie_stats a = genie_get_stats(c), b;
        e = genie_item(c, genie_sum(c, x, 0, NULL, 0), &out);
        b = genie_get_stats(c);
        CHECK(e == GENIE_OK && out == 80000.0 && b.remote_round_trips > a.remote_round_trips,
              "the connection still works after: %g, %llu round trips, %s", out,
              (unsigned long long)(b.remote_round_trips - a.remote_round_trips), genie_last_error(c));
    }
    genie_ctx_destroy(c);
    printf("  buffers written and freed before their HASHED: nothing left to wait for\n");
}

/* A backlog of hashes on a slow server (each held 300 ms, one hash thread): genie_remote_hashed
   waits while HASHEDs keep coming, though the whole backlog takes far longer than
   GENIE_REMOTE_TIMEOUT_MS, and the connection stays up. */
static void test_hash_backlog(void) {
    server s;
    genie_ctx *c;
    genie_tensor *x[10];
    int i;
    double out = 0, t0;
    genie_result e;
    genie_stats a, b;
    CHECK(server_start4(&s, "--hash-hold-ms", "300", "--hash-threads", "1", "backlog") == 0, "server with --hash-hold-ms 300");
    setenv("GENIE_REMOTE_TIMEOUT_MS", "1000", 1);
    c = remote_ctx(s.addr);
    unsetenv("GENIE_REMOTE_TIMEOUT_MS");
    for (i = 0; i < 10; i++) {
        int64_t n = 40000 + 16 * i, k;
        float *v = (float *)malloc((size_t)n * 4);
        for (k = 0; k < n; k++) v[k] = (float)(i + k % 5);
        x[i] = genie_from_data(c, GENIE_F32, 1, &n, v);
        free(v);
        CHECK(genie_item(c, genie_sum(c, x[i], 0, NULL, 0), &out) == GENIE_OK, "upload %d: %s", i, genie_last_error(c));
    }
    t0 = grx_now();
    e = genie_remote_hashed(c);
    CHECK(e == GENIE_OK, "genie_remote_hashed over a 10 x 300 ms backlog with a 1 s timeout: %.2f s, %s", grx_now() - t0,
          e ? genie_last_error(c) : "ok");
    a = genie_get_stats(c);
    e = genie_item(c, genie_sum(c, x[0], 0, NULL, 0), &out);
    b = genie_get_stats(c);
    CHECK(e == GENIE_OK && b.remote_round_trips > a.remote_round_trips, "the connection still works after the backlog: %s",
          genie_last_error(c));
    for (i = 0; i < 10; i++) genie_release(x[i]);
    genie_ctx_destroy(c);
    CHECK(server_stop(&s) == 0, "the backlog server exits 0");
    printf("  a backlog of hashes longer than the timeout: waited out while HASHEDs come\n");
}

/* A process's peak resident memory in MiB (VmHWM), -1 if unknown. */
static long peak_mib(pid_t pid) { return proc_mib(pid, "VmHWM:"); }
/* One buffer rewritten by 40 PUTs of 16 MiB, each new, faster than the hash thread (held 300
   ms a hash) keeps up: the old bytes waiting for their hash count against the client's budget
   (--client-mb 64), so the server's peak memory stays near budget and cache, not 40 x 16 MiB.
   (A server under ASan keeps freed memory in its quarantine: run it with
   ASAN_OPTIONS=quarantine_size_mb=0 for this check.) */
static void test_hash_flood(void) {
    static const char *const args[] = {"--client-mb", "64", "--cache-mb", "64", "--hash-hold-ms", "300", NULL};
    server s;
    raw a;
    int t = 0, i, sent = 0;
    uint32_t code = 0;
    long peak;
    CHECK(server_startv(&s, args, "hashflood") == 0, "server with --client-mb 64 --cache-mb 64 --hash-hold-ms 300");
    CHECK(raw_open(&a, s.port) == 0 && raw_hello(&a, GR_VERSION, GR_VERSION, NULL, NULL, &t, &code) && t == GR_WELCOME, "flood client");
    for (i = 0; i < 40; i++) sent += raw_put(&a, 1, (size_t)16 << 20, i & 0xff, NULL) != 0;
    { /* the PING's OK after the HASHEDs of the PUTs hashed at once */
        uint64_t ping = ++a.req, rq = 0;
        int ok = grx_send(&a.x, a.ep, GR_PING, ping, NULL, 0, grx_now() + 5, &a.dead) == UCS_OK;
        while (ok && (ok = raw_next(&a, &t, &rq, NULL)) && !(t == GR_OK && rq == ping)) ok = t == GR_HASHED;
        CHECK(sent == 40 && ok, "40 PUTs of 16 MiB to one buffer, then PING: OK after HASHEDs alone (type %d)", t);
    }
    peak = peak_mib(s.pid);
    if (peak < 0) printf("skip: no /proc/%d/status: the server's peak memory unchecked\n", (int)s.pid);
    else
        CHECK(peak < 256, "the server's peak memory under a flood of rewrites: %ld MiB (budget 64 + cache 64 MiB; 40 x 16 = 640 MiB unbounded)", peak);
    raw_close(&a);
    CHECK(server_stop(&s) == 0, "the flood server exits 0");
    printf("  a flood of rewritten 16 MiB PUTs: bytes waiting for their hash count against the client's budget (server peak %ld MiB)\n", peak);
}

/* kill -9 of *old, then *nw on its port, and c reconnected to it (1 if all went). */
static int server_swap(genie_ctx *c, server *old, server *nw, const char *tag) {
    char listen[64];
    double out;
    int st, i;
    int64_t n = 4;
    kill(old->pid, SIGKILL);
    waitpid(old->pid, &st, 0);
    old->pid = 0;
    (void)genie_item(c, genie_sum(c, genie_full(c, GENIE_F32, 1, &n, 1.0), 0, NULL, 0), &out); /* finds the loss */
    genie_clear_error(c);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", old->port);
    for (i = 0; i < 20 && server_start(nw, "--listen", listen, tag) != 0; i++) {} /* the port may linger a moment */
    return nw->port == old->port && genie_remote_reconnect(c) == GENIE_OK;
}
/* The caller's memory (from_blob) changed behind genie's back, then a reconnect: the kept hash
   is claimed for the new bytes and the server answers ERROR 6; the client drops that hash, so
   after the next reconnect the bytes are hashed again and go up under their own hash. And a
   hash still awaited when the server is lost is not awaited from the new one. */
static void test_reconnect_hashes(void) {
    server s1, s2, s3;
    genie_ctx *c;
    int64_t n = 65536, k;
    float *mem = (float *)malloc((size_t)n * 4), *own = (float *)malloc((size_t)n * 4);
    genie_tensor *x, *y;
    double out = 0, t0;
    genie_result e = GENIE_OK;
    for (k = 0; k < n; k++) mem[k] = 1.0f, own[k] = 2.0f;
    CHECK(server_start(&s1, "--hash-hold-ms", "3000", "rehash1") == 0, "server 1 (hashes held 3 s)");
    c = remote_ctx(s1.addr);
    x = genie_from_blob(c, GENIE_F32, 1, &n, NULL, mem, NULL, NULL);
    y = genie_from_data(c, GENIE_F32, 1, &n, own); /* sent unhashed: its HASHED held past the kill */
    CHECK(genie_item(c, genie_sum(c, x, 0, NULL, 0), &out) == GENIE_OK && out == 65536.0, "x on server 1: %g %s", out, genie_last_error(c));
    CHECK(genie_item(c, genie_sum(c, y, 0, NULL, 0), &out) == GENIE_OK && out == 131072.0, "y on server 1: %g %s", out, genie_last_error(c));
    CHECK(server_swap(c, &s1, &s2, "rehash2"), "server 2 on server 1's port, reconnected: %s", genie_last_error(c));
    t0 = grx_now();
    e = genie_remote_hashed(c);
    CHECK(e == GENIE_OK && grx_now() - t0 < 1.0, "after the reconnect no HASHED of the lost server is awaited: %.2f s %s", grx_now() - t0,
          e ? genie_last_error(c) : "ok");
    genie_clear_error(c);
    mem[0] = 5.0f; /* behind genie's back */
    (void)genie_item(c, genie_sum(c, x, 0, NULL, 0), &out); /* sent again under the kept hash: ERROR 6 after */
    genie_clear_error(c);
    for (t0 = grx_now(); grx_now() - t0 < 5.0 && (e = genie_remote_hashed(c)) == GENIE_OK;) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    CHECK(e != GENIE_OK && strstr(genie_last_error(c), "error 6"), "the stale claim's ERROR 6: %s", genie_last_error(c));
    genie_clear_error(c);
    CHECK(server_swap(c, &s2, &s3, "rehash3"), "server 3, reconnected: %s", genie_last_error(c));
    e = genie_item(c, genie_sum(c, x, 0, NULL, 0), &out);
    CHECK(e == GENIE_OK && out == 65540.0, "x's new bytes on server 3: %g %s", out, genie_last_error(c));
    for (t0 = grx_now(); grx_now() - t0 < 0.5 && e == GENIE_OK;) e = genie_remote_hashed(c);
    CHECK(e == GENIE_OK, "no ERROR 6 from server 3 (the stale hash dropped): %s", genie_last_error(c));
    genie_release(x);
    genie_release(y);
    genie_ctx_destroy(c);
    CHECK(server_stop(&s3) == 0, "server 3 exits 0");
    free(mem);
    free(own);
    printf("  reconnects: no wait for the lost server's HASHEDs; a claim its server refused is not kept\n");
}

/* kill -9 of the server, a new server on the same port, genie_remote_reconnect: the same
   tensors run there again (the weight uploaded again on demand), results equal local */
static void step_chain(genie_ctx *c, genie_tensor *x, genie_tensor *w, float *out) {
    genie_tensor *y;
    int i;
    genie_pool_push(c);
    y = genie_tanh(c, genie_linear(c, x, w, NULL));
    for (i = 0; i < 4; i++) y = genie_tanh(c, genie_linear(c, y, w, NULL));
    genie_read(c, y, GENIE_F32, out, 64 * 384 * 4);
    genie_pool_pop(c);
}
static void test_restart(void) {
    server s, s2;
    int64_t ws[2] = {384, 384}, xs[2] = {64, 384};
    genie_ctx *c, *l = local_ctx();
    genie_tensor *w, *x, *lw, *lx, *v, *lv;
    float *out = (float *)malloc(64 * 384 * 4 > 384 * 384 * 4 ? 64 * 384 * 4 : 384 * 384 * 4), *ref = (float *)malloc(64 * 384 * 4);
    genie_stats a, b;
    genie_result r;
    char listen[64];
    int st, i;
    CHECK(server_start(&s, NULL, NULL, "restart") == 0, "server to restart");
    c = remote_ctx(s.addr);
    w = rnd(c, GENIE_F32, 2, ws, 1);
    x = rnd(c, GENIE_F32, 2, xs, 2);
    lw = rnd(l, GENIE_F32, 2, ws, 1);
    lx = rnd(l, GENIE_F32, 2, xs, 2);
    v = rnd(c, GENIE_F32, 2, ws, 3);
    lv = rnd(l, GENIE_F32, 2, ws, 3);
    step_chain(l, lx, lw, ref);
    step_chain(c, x, w, out);
    CHECK(genie_status(c) == GENIE_OK && memcmp(out, ref, 64 * 384 * 4) == 0, "before the restart: %s", genie_last_error(c));
    /* v uploaded (its hash kept), then written on the server and read back: current on both
       sides with bytes the kept hash is not of, so the reconnect must not reuse it */
    step_chain(c, x, v, out);
    genie_add_(c, v, w);
    genie_add_(l, lv, lw);
    genie_read(c, v, GENIE_F32, out, 384 * 384 * 4);
    kill(s.pid, SIGKILL);
    waitpid(s.pid, &st, 0);
    s.pid = 0;
    step_chain(c, x, w, out);
    CHECK(genie_status(c) == GENIE_ERR_BACKEND, "a step after the kill: %s", genie_last_error(c));
    genie_clear_error(c);
    r = genie_remote_reconnect(c);
    CHECK(r == GENIE_ERR_BACKEND && strstr(genie_last_error(c), s.addr), "reconnect with no server: %d %s", r, genie_last_error(c));
    genie_clear_error(c);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", s.port);
    for (i = 0; i < 20 && server_start(&s2, "--listen", listen, "restart2") != 0; i++) {} /* the port may linger a moment */
    CHECK(s2.port == s.port, "the new server on port %d (got %d)", s.port, s2.port);
    CHECK(genie_remote_reconnect(c) == GENIE_OK, "reconnect: %s", genie_last_error(c));
    a = genie_get_stats(c);
    step_chain(c, x, w, out);
    b = genie_get_stats(c);
    CHECK(genie_status(c) == GENIE_OK && memcmp(out, ref, 64 * 384 * 4) == 0, "after the restart remote == local: %s", genie_last_error(c));
    CHECK(b.backend_nodes - a.backend_nodes >= 10, "the new server computed %llu nodes", (unsigned long long)(b.backend_nodes - a.backend_nodes));
    CHECK(b.remote_bytes_sent - a.remote_bytes_sent >= 384 * 384 * 4, "the weight went to the new server (%llu bytes sent)",
          (unsigned long long)(b.remote_bytes_sent - a.remote_bytes_sent));
    a = b;
    step_chain(c, x, w, out);
    b = genie_get_stats(c);
    CHECK(genie_status(c) == GENIE_OK && memcmp(out, ref, 64 * 384 * 4) == 0 && b.remote_bytes_sent - a.remote_bytes_sent < 384 * 384,
          "a second step after the restart sends %llu bytes, not the weight", (unsigned long long)(b.remote_bytes_sent - a.remote_bytes_sent));
    step_chain(l, lx, lv, ref);
    step_chain(c, x, v, out);
    CHECK(genie_status(c) == GENIE_OK && memcmp(out, ref, 64 * 384 * 4) == 0, "after the restart, a weight written on the old server: %s",
          genie_last_error(c));
    printf("  server restarted: reconnected, the weight uploaded again once, results equal local\n");
    genie_ctx_destroy(c);
    genie_ctx_destroy(l);
    CHECK(server_stop(&s2) == 0, "restarted server exits 0");
    free(out);
    free(ref);
}

/* ---- two clients' RUNs at once (the server's job threads) ---- */
/* A chain of 12 products of 512x512 matrices of 2^-9: every product is 2^-9 exactly. */
static int long_run(const char *addr, int go_fd) {
    int64_t sh[2] = {512, 512};
    genie_ctx *k = remote_ctx(addr);
    genie_tensor *a = genie_full(k, GENIE_F32, 2, sh, 1.0 / 512), *y = a;
    float *out = (float *)malloc(512 * 512 * 4);
    char go;
    int j, ok;
    genie_realize(k, 1, &a);
    for (j = 0; j < 12; j++) y = genie_matmul(k, y, a);
    ok = read(go_fd, &go, 1) == 1 && out && genie_read(k, y, GENIE_F32, out, 512 * 512 * 4) == GENIE_OK &&
         genie_get_stats(k).backend_nodes >= 12;
    for (j = 0; ok && j < 512 * 512; j += 1021) ok = out[j] == 1.0f / 512;
    if (!ok) printf("FAIL long_run: %s\n", genie_last_error(k));
    genie_ctx_destroy(k);
    free(out);
    return ok;
}
/* run_threads: the server's --run-threads; want: its last line ("at most N RUNs at once") */
static void test_concurrent(const char *run_threads, const char *want) {
    server s;
    pid_t kids[2];
    int go[2], i, st;
    CHECK(server_start(&s, "--run-threads", run_threads, "concurrent") == 0 && pipe(go) == 0, "server for concurrent RUNs");
    fflush(stdout);
    for (i = 0; i < 2; i++)
        if ((kids[i] = fork()) == 0) {
            close(go[1]);
            _exit(long_run(s.addr, go[0]) ? 0 : 1);
        }
    close(go[0]);
    { /* both connected and their graphs built (a moment), then released together */
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL);
    }
    CHECK(write(go[1], "gg", 2) == 2, "release the clients");
    close(go[1]);
    for (i = 0; i < 2; i++) {
        waitpid(kids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client %d of two long RUNs at once", i);
    }
    server_done(&s, run_threads[0] == '0' ? "--run-threads 0" : "--run-threads 2", want, 1);
    if (strcmp(run_threads, "0") != 0) CHECK(log_count(&s, ", 0 on the pool;") == 0, "the long RUNs on the pool (%s)", s.log);
    else CHECK(log_count(&s, ", 0 on the pool;") == 1, "--run-threads 0: every RUN on the loop (%s)", s.log);
}

/* Small RUNs (under --inline-work) run on the server's loop though it has pool threads, a big
   one on the pool: its last line counts them so. */
static void test_small_inline(void) {
    server s;
    int64_t sh[1] = {8};
    genie_ctx *k;
    genie_tensor *a, *y;
    float out[8];
    int j, ok = 1;
    CHECK(server_start(&s, "--run-threads", "2", "inline") == 0, "server for small RUNs");
    k = remote_ctx(s.addr);
    a = genie_full(k, GENIE_F32, 1, sh, 1.5);
    for (j = 0; j < 5 && ok; j++) {
        y = genie_add(k, a, a);
        ok = genie_read(k, y, GENIE_F32, out, sizeof out) == GENIE_OK && out[7] == 3.0f;
    }
    CHECK(ok, "small RUNs right: %s", genie_last_error(k));
    { /* a big RUN (on the pool), then a small one reading its result: the small one waits */
        int64_t sq[2] = {256, 256};
        float *o = (float *)malloc(256 * 256 * 4);
        genie_tensor *b = genie_full(k, GENIE_F32, 2, sq, 1.0 / 256), *z;
        genie_realize(k, 1, &b);
        for (y = b, j = 0; j < 4; j++) y = genie_matmul(k, y, b);
        genie_realize(k, 1, &y);
        z = genie_add(k, y, y);
        ok = o && genie_read(k, z, GENIE_F32, o, 256 * 256 * 4) == GENIE_OK;
        for (j = 0; ok && j < 256 * 256; j += 257) ok = o[j] == 2.0f / 256;
        CHECK(ok, "a small RUN after a big one reads its result: %s", genie_last_error(k));
        free(o);
    }
    genie_ctx_destroy(k);
    server_done(&s, "small RUNs on the loop, the big one on the pool", "RUNs on the loop, 1 on the pool", 1);
    CHECK(log_count(&s, "; 0 RUNs on the loop") == 0, "small RUNs on the loop (%s)", s.log);
}

/* ---- --backend ---- */
/* bin run with `--backend be` to its exit (at most 20 s; else killed, -1), its output in log */
static int server_exit(const char *bin, const char *be, const char *log) {
    pid_t pid;
    int st = 0, i;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        FILE *f = freopen(log, "w", stdout);
        (void)f;
        dup2(fileno(stdout), 2);
        execl(bin, "genie-server", "--listen", "127.0.0.1:0", "--backend", be, (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 400; i++) {
        struct timespec ts = {0, 50000000};
        if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}
/* lines of log holding `what`; -1: no log */
static int file_count(const char *log, const char *what) {
    server t;
    snprintf(t.log, sizeof t.log, "%s", log);
    return log_count(&t, what);
}
static void test_backend(void) {
    const char *cuda_bin = getenv("GENIE_SERVER_CUDA_BIN");
    const char *log = "build/remote_test_backend.log";
    server s;
    int rc;
    if (!cuda_bin || !*cuda_bin) cuda_bin = "build/genie-server-cuda";
    rc = server_exit(server_bin(), "gpu", log);
    CHECK(rc == 2 && file_count(log, "--backend gpu: not a backend (cpu or cuda)") == 1 && file_count(log, "usage:") == 1,
          "--backend gpu: exit %d (want 2), a usage line (%s)", rc, log);
    if (!getenv("GENIE_SERVER_BIN")) { /* build/genie-server has no CUDA backend */
        rc = server_exit(server_bin(), "cuda", log);
        CHECK(rc == 1 && file_count(log, "--backend cuda: this server was not built with cuda") == 1 && file_count(log, "listening") == 0,
              "build/genie-server --backend cuda: exit %d (want 1), the not-built line (%s)", rc, log);
    }
    if (access(cuda_bin, X_OK) != 0) {
        printf("  skip: --backend cuda on a CUDA build (%s missing: make remote builds it where the CUDA toolkit is)\n", cuda_bin);
        return;
    }
    server_bin_override = cuda_bin;
    if (server_start(&s, "--backend", "cpu", "backend_cpu") == 0) { /* the CUDA build on the CPU serves as before */
        test_slice(s.addr);
        CHECK(server_stop(&s) == 0, "%s --backend cpu exits 0 on SIGTERM", cuda_bin);
    } else {
        CHECK(0, "%s --backend cpu did not start (build/remote_test_backend_cpu.log)", cuda_bin);
        server_stop(&s);
    }
    rc = server_exit(cuda_bin, "cuda", log);
    if (rc == -1 && file_count(log, "listening on") == 1) { /* a GPU: it served until killed */
        if (server_start(&s, "--backend", "cuda", "backend_cuda") == 0) {
            test_slice(s.addr);
            CHECK(server_stop(&s) == 0, "%s --backend cuda exits 0 on SIGTERM", cuda_bin);
        } else {
            CHECK(0, "%s --backend cuda did not start again (build/remote_test_backend_cuda.log)", cuda_bin);
            server_stop(&s);
        }
        printf("  backend: --backend cuda served on this machine's GPU\n");
    } else {
        CHECK(rc == 1 && file_count(log, "--backend cuda: cannot run on the GPU, not starting: ") == 1 && file_count(log, "listening") == 0,
              "%s --backend cuda without a GPU: exit %d (want 1), one line saying why (%s)", cuda_bin, rc, log);
        printf("  backend: --backend cuda refused here (no usable GPU), as it should\n");
    }
    server_bin_override = NULL;
}

/* A server of the last protocol version (build/genie-server-oldproto, built with GR_VERSION 11):
   the context runs on the CPU and its error names both versions. */
static void test_old_server(void) {
    const char *bin = "build/genie-server-oldproto";
    server s;
    genie_ctx *c;
    if (access(bin, X_OK) != 0) {
        printf("  skip: a server of another protocol version (%s missing: make test-remote builds it)\n", bin);
        return;
    }
    server_bin_override = bin;
    if (server_start(&s, NULL, NULL, "oldproto") != 0) {
        CHECK(0, "%s did not start (build/remote_test_oldproto.log)", bin);
        server_stop(&s);
        server_bin_override = NULL;
        return;
    }
    c = remote_ctx(s.addr);
    CHECK(c && genie_status(c) == GENIE_ERR_BACKEND && strcmp(genie_backend_name(c), "cpu") == 0 &&
              strstr(genie_last_error(c), "the server speaks protocol version 12, this client"),
          "a protocol-12 server: %s", c ? genie_last_error(c) : "NULL");
    genie_ctx_destroy(c);
    server_stop(&s);
    server_bin_override = NULL;
}

int main(void) {
    server s;
    (void)genie_remote_register();
    if (sodium_init() < 0) { printf("FAIL libsodium\n"); return 1; }
    signal(SIGPIPE, SIG_IGN);
    test_codec();
    test_codec_run_cached_get();
    test_tree_hash();
    test_arange_ends();
    printf("  codec: %d checks\n", passed);
    if (getenv("GENIE_REMOTE_TEST_SERVER") && *getenv("GENIE_REMOTE_TEST_SERVER")) { /* a server started elsewhere
                                                                               (tests/remote_netns.sh): the programs */
        const char *ext = getenv("GENIE_REMOTE_TEST_SERVER");
        setenv("GENIE_REMOTE", ext, 1);
        test_identical(ext);
        test_weights(ext);
        test_decode(ext);
        test_inplace(ext);
        test_ops5(ext);
        test_random(ext);
        test_mixed(ext);
        test_mixed_more(ext);
        test_lookups(ext);
        test_bounded_idx(ext);
        test_quant(ext);
        test_quant_rows(ext);
        test_slice(ext);
        printf("test_remote against %s: %d passed, %d failed\n", ext, passed, failed);
        return failed ? 1 : 0;
    }
    if (access(server_bin(), X_OK) != 0) { printf("FAIL %s missing (make remote)\n", server_bin()); return 1; }
    if (server_start(&s, NULL, NULL, "main") != 0) { printf("FAIL the server did not start (see build/remote_test_main.log)\n"); return 1; }
    setenv("GENIE_REMOTE", s.addr, 1);
    test_identical(s.addr);
    printf("  identical: %d checks so far\n", passed);
    test_weights(s.addr);
    test_decode(s.addr);
    test_inplace(s.addr);
    test_ops5(s.addr);
    test_slice(s.addr);
    test_frees_pending(s.addr);
    test_random(s.addr);
    test_mixed(s.addr);
    test_mixed_more(s.addr);
    test_lookups(s.addr);
    test_bounded_idx(s.addr);
    test_quant(s.addr);
    test_quant_rows(s.addr);
    test_parts(s.addr);
    test_rewrite(s.addr);
    test_hash_slots(s.addr);
    run_props();
    CHECK(server_stop(&s) == 0, "server exits 0 on SIGTERM");
    { /* an upload's parts copied into place on a thread and on the loop: the server's default is one of them */
        const char *mode[2] = {"thread", "loop"};
        int k;
        for (k = 0; k < 2; k++) {
            server p;
            if (server_start(&p, "--part-copy", mode[k], mode[k]) != 0) { CHECK(0, "the server with --part-copy %s did not start", mode[k]); continue; }
            test_parts(p.addr);
            CHECK(server_stop(&p) == 0, "--part-copy %s: the server exits 0 on SIGTERM", mode[k]);
        }
    }
    test_hostile();
    test_work_cap();
    test_loop_free();
    test_queue_cap();
    test_flow();
    test_background_hash();
    test_upload_pool();
    test_pool_small_uploads();
    test_pool_cache_room();
    test_lazy_reads();
    test_dead_results();
    test_hash_backlog();
    test_hash_flood();
    test_stopped_reader();
    test_tape_resync();
    test_faults();
    test_restart();
    test_reconnect_hashes();
    test_concurrent("2", "at most 2 RUNs at once"); /* both at the same time */
    test_concurrent("0", "at most 0 RUNs at once"); /* on the loop, one after the other */
    test_small_inline();
    test_backend();
    test_old_server();
    printf("test_remote: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
