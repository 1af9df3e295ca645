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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    genie_ctx_desc d;
    genie_ctx *ctx;
    genie_safetensors *st = NULL;
    FILE *f;
    genie_tensor *ts[64];
    int i, n;
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_safetensors_%d.bin", (int)getpid());
    f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    ctx = genie_ctx_create(&d);
    if (genie_safetensors_open(ctx, path, &st) != GENIE_OK) {
        if (st || genie_status(ctx) == GENIE_OK || strstr(genie_last_error(ctx), path) == NULL) abort(); /* the message names the file */
        genie_ctx_destroy(ctx);
        return 0;
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
    return 0;
}
