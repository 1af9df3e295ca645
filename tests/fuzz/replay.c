/* replay.c - runs fuzz_api's harness (contract checks included) on input files
   without libFuzzer: `make test` replays the seed corpus and every input that
   once crashed (tests/fuzz/regressions), with any C compiler; the inputs after
   --diff run in the differential mode (tests/fuzz/corpus_diff, regressions_diff). */
#define _POSIX_C_SOURCE 200809L /* setenv, as fuzz_api.c */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#include "fuzz_api.c"

int main(int argc, char **argv) {
    int i, n = 0, nd = 0;
    for (i = 1; i < argc; i++) {
        FILE *f;
        if (strcmp(argv[i], "--diff") == 0) { /* the inputs after it: the differential mode */
            fz_mode_diff = 1;
            continue;
        }
        f = fopen(argv[i], "rb");
        static uint8_t buf[1 << 16];
        size_t len;
        if (!f) { printf("FAIL cannot open %s\n", argv[i]); return 1; }
        len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len); /* a broken contract or a difference aborts */
        n++;
        nd += fz_mode_diff;
    }
    printf("  fuzz replay: %d inputs ran clean (%d of them differentially: reference against every fast path here)\n", n, nd);
    return 0;
}
