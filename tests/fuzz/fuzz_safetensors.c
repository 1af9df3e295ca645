/* fuzz_safetensors.c - libFuzzer harness for genie_safetensors_open (the public
   path): each input is written to a file, opened, and every tensor read (values,
   row-major) and every metadata key looked up; an error must be a clean
   genie_result, never a crash, leak or undefined behaviour.
   Build and run: make fuzz-safetensors [FUZZ_SECONDS=60]
   (clang -fsanitize=fuzzer,address,undefined; corpus in tests/fuzz/corpus_safetensors). */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

/* Opens the file at path and reads everything in it (a failure must name the file). */
static void run_file(void) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    genie_safetensors *st = NULL;
    genie_tensor *ts[64];
    int i, n;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    ctx = genie_ctx_create(&d);
    if (genie_safetensors_open(ctx, path, &st) != GENIE_OK) {
        if (st || genie_status(ctx) == GENIE_OK || strstr(genie_last_error(ctx), path) == NULL) abort();
        genie_ctx_destroy(ctx);
        return;
    }
    n = genie_safetensors_count(st);
    if (n > 64) n = 64;
    for (i = 0; i < n; i++) { /* every tensor, then the file closed: they must keep the mapping */
        ts[i] = genie_safetensors_get(st, genie_safetensors_name(st, i));
        genie_clear_error(ctx); /* an unsupported dtype or too many dims */
    }
    genie_safetensors_metadata(st, "format");
    genie_safetensors_metadata(st, "");
    genie_safetensors_close(st);
    for (i = 0; i < n; i++) {
        genie_tensor *t = ts[i];
        size_t bytes;
        void *buf;
        double s;
        if (!t) continue;
        bytes = (size_t)genie_numel(t) * genie_dtype_size(genie_dtype_of(t));
        buf = malloc(bytes ? bytes : 1);
        if (genie_read(ctx, t, genie_dtype_of(t), buf, bytes) != GENIE_OK) abort(); /* a valid tensor reads */
        free(buf);
        if (genie_numel(t) > 0 && genie_numel(t) < 4096) { /* and computes */
            genie_tensor *r = genie_sum(ctx, genie_to_dtype(ctx, t, GENIE_F64), 0, NULL, 0);
            if (genie_item(ctx, r, &s) != GENIE_OK) abort();
        }
    }
    genie_ctx_destroy(ctx);
}
/* The file at path: a, then b, then c. */
static void write_file(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, const uint8_t *c, size_t nc) {
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if ((na && fwrite(a, 1, na, f) != na) || (nb && fwrite(b, 1, nb, f) != nb) || (nc && fwrite(c, 1, nc, f) != nc)) abort();
    fclose(f);
}

/* Two files per input: the input as it is (the length field, truncation, everything), and the
   input as header text up to its first NUL byte, the rest as data, behind a length field that
   fits (so mutations of the JSON reach the layout checks). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nul = size ? (const uint8_t *)memchr(data, 0, size) : NULL;
    size_t hl = nul ? (size_t)(nul - data) : size;
    uint8_t len8[8];
    int i;
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_safetensors_%d.bin", (int)getpid());
    write_file(data, size, NULL, 0, NULL, 0);
    run_file();
    for (i = 0; i < 8; i++) len8[i] = (uint8_t)((uint64_t)hl >> (8 * i));
    write_file(len8, 8, data, hl, nul ? nul + 1 : NULL, nul ? size - hl - 1 : 0);
    run_file();
    return 0;
}
