/* smoke.c - the quick driver of `make matrix`, built by each compiler, language standard and
   optimization level: independent contexts on threads against the reference (test_threads.c),
   then the program files named on the command line (expectations made by PyTorch). */
#include "prog.h"
#include <stdio.h>

void threads_tests(int *passed, int *failed); /* test_threads.c */

int main(int argc, char **argv) {
    int passed = 0, failed = 0, i;
    threads_tests(&passed, &failed);
    for (i = 1; i < argc; i++) {
        int p = 0, f = 0;
        if (prog_run_file(argv[i], &p, &f) < 0) { printf("FAIL cannot open %s\n", argv[i]); failed++; continue; }
        printf("  %-30s %d passed, %d failed\n", argv[i], p, f);
        passed += p;
        failed += f;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
