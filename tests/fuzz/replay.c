/* replay.c - runs fuzz_api's harness (contract checks included) on input files
   without libFuzzer: `make test` replays the seed corpus and every input that
   once crashed (tests/fuzz/regressions), with any C compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#include "fuzz_api.c"

int main(int argc, char **argv) {
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        static uint8_t buf[1 << 16];
        size_t len;
        if (!f) { printf("FAIL cannot open %s\n", argv[i]); return 1; }
        len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len); /* a broken contract aborts */
        n++;
    }
    printf("  fuzz replay: %d inputs ran clean\n", n);
    return 0;
}
