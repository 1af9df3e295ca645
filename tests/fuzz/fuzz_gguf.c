/* fuzz_gguf.c - libFuzzer harness for genie_gguf_open (the public path): each input is
   written to a file and opened; every metadata key is read in every typed form (arrays
   element by element), every tensor got, the file closed, and each tensor read: dequantized
   to f32 and, for a block dtype, multiplied (the products' fast path and reference). An error
   must be a clean genie_result naming the file, never a crash, leak or undefined behaviour.
   Build and run: make fuzz-gguf [FUZZ_SECONDS=60] (clang -fsanitize=fuzzer,address,undefined;
   seeds in tests/fuzz/corpus_gguf). Built with -DFUZZ_REPLAY it is a plain program that runs
   the files named on its command line once each (`make test` replays the seeds that way). */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void run_file(genie_cpu cpu) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    genie_gguf *g = NULL;
    genie_tensor *ts[32];
    int i, n, nm;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    d.cpu = cpu;
    ctx = genie_ctx_create(&d);
    if (genie_gguf_open(ctx, path, &g) != GENIE_OK) {
        if (g || genie_status(ctx) == GENIE_OK || strstr(genie_last_error(ctx), path) == NULL) abort();
        genie_ctx_destroy(ctx);
        return;
    }
    nm = genie_gguf_meta_count(g);
    for (i = 0; i < nm && i < 256; i++) {
        const char *k = genie_gguf_meta_key(g, i);
        int64_t v, j, len;
        double f;
        const char *s;
        if (!k) abort();
        genie_gguf_meta_i64(g, k, &v);
        genie_gguf_meta_f64(g, k, &f);
        s = genie_gguf_meta_str(g, k);
        if (s && strlen(s) > (size_t)65536 * 4) abort();
        len = genie_gguf_meta_len(g, k);
        for (j = 0; j < len && j < 64; j++) {
            genie_gguf_meta_i64_at(g, k, j, &v);
            genie_gguf_meta_f64_at(g, k, j, &f);
            s = genie_gguf_meta_str_at(g, k, j);
            (void)s;
        }
        if (len >= 0 && genie_gguf_meta_str_at(g, k, len) != NULL) abort();
    }
    n = genie_gguf_count(g);
    if (n > 32) n = 32;
    for (i = 0; i < n; i++) {
        ts[i] = genie_gguf_get(g, genie_gguf_name(g, i));
        if (!ts[i] && genie_status(ctx) == GENIE_OK) abort();
        genie_clear_error(ctx); /* a type genie does not read */
    }
    genie_gguf_close(g);
    for (i = 0; i < n; i++) {
        genie_tensor *t = ts[i];
        int64_t numel, e;
        if (!t) continue;
        numel = genie_numel(t);
        if (numel > 0 && numel <= 65536) {
            float *buf = (float *)malloc((size_t)numel * 4);
            genie_tensor *f = genie_to_dtype(ctx, t, GENIE_F32);
            if (f && genie_read(ctx, f, GENIE_F32, buf, (size_t)numel * 4) != GENIE_OK) abort(); /* a valid tensor reads */
            free(buf);
            genie_clear_error(ctx); /* to_dtype of an integer tensor to f32 is fine; others set nothing */
            if (genie_dtype_block(genie_dtype_of(t), &e, NULL) && genie_ndim(t) == 2) { /* and multiplies */
                const int64_t xs[2] = {2, genie_shape(t)[1]};
                genie_tensor *x = genie_full(ctx, GENIE_F32, 2, xs, 0.25), *y = genie_linear(ctx, x, t, NULL);
                if (!y || genie_realize(ctx, 1, &y) != GENIE_OK) abort();
            }
        }
    }
    genie_ctx_destroy(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f;
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_gguf_%d.gguf", (int)getpid());
    f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    run_file(GENIE_CPU_AUTO);
    run_file(GENIE_CPU_REFERENCE);
    return 0;
}

#ifdef FUZZ_REPLAY
int main(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        static uint8_t buf[1 << 20];
        size_t len;
        if (!f) { printf("FAIL cannot open %s\n", argv[i]); return 1; }
        len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
    }
    remove(path);
    printf("  fuzz_gguf replay: %d inputs ran clean\n", argc - 1);
    return 0;
}
#endif
