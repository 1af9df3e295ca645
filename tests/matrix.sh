#!/usr/bin/env bash
# matrix.sh - the build matrix (`make matrix`), cells run MATRIX_JOBS at a time (default: every
# core), each logged in build/matrix/CELL.log:
#   gcc, clang (C99, C11) and g++, clang++ (C++11, C++17; the implementation compiled as C++),
#     each at -O0 and -O2 with -Wall -Wextra -pedantic -Werror: the implementation, the program
#     replayer and the quick driver tests/programs/smoke.c (independent contexts on threads against the
#     reference, then the checked-in program files, expectations made by PyTorch);
#   -DGENIE_NO_THREADS: the whole test_main (GEMM tests in their quick mode);
#   ThreadSanitizer: tests/programs/smoke.c, whose kernels share their work between threads, and the
#     GEMM and fusion tests with 2 threads, all under -fsanitize=thread;
#   clang's AddressSanitizer + UndefinedBehaviorSanitizer on tests/programs/smoke.c (gcc's: `make asan`);
#   Windows: test_main cross-built with mingw-w64 (Win32 threads), run under wine when installed.
# A missing compiler is a skip, never a pass. Ends with "N passed, N failed, N skipped" (cells).
set -u
cd "$(dirname "$0")/.."
SELF="$PWD/tests/matrix.sh"
OUT=${MATRIX_OUT:-build/matrix}
WARN="-Wall -Wextra -pedantic -Werror"
DATA="tests/data/cases.txt tests/data/props_views.txt tests/data/props_graphs.txt tests/data/props_ops.txt"
# test_main's sources: the Makefile's TESTSRC (one list, so a new suite is in every cell)
TESTS=$(make --no-print-directory -s print-testsrc | tr ' ' '\n' | sed -n 's#^tests/.*/\(.*\)\.c$#\1#p' | tr '\n' ' ')
# src NAME: the source of a test object by its name (tests/unit/ or tests/programs/)
src() { if [ -f tests/unit/$1.c ]; then echo tests/unit/$1.c; else echo tests/programs/$1.c; fi; }
QUICK="GENIE_NO_TORCH=1 GENIE_GEMM_QUICK=1 GENIE_FILES_ONE_MODE=1"

# result NAME STATUS NOTE: one line per cell ("ok", "FAIL", "skip") for the table, under the
# label LABEL[NAME] (default NAME)
declare -A LABEL=([nothreads]="-DGENIE_NO_THREADS: test_main" [tsan]="ThreadSanitizer: smoke, gemm, fuse"
                  [mingw]="mingw-w64: build test_main.exe" [wine]="wine: run test_main.exe")
result() { printf '%s\t%s\t%s\t%s\n' "$2" "$(( $(date +%s) - T0 ))" "${LABEL[$1]:-$1}" "$3" > "$OUT/$1.res"; }
# run NAME CMD...: the command's output to the cell's log; non-zero status fails the cell
run() { local name=$1; shift; echo "+ $*" >> "$OUT/$name.log"; "$@" >> "$OUT/$name.log" 2>&1; }

# std CC STD OPT [SAN]: the implementation + tests/programs/smoke.c with one compiler, standard, level
cell_std() {
    local cc=$1 std=$2 opt=$3 san=${4:-} name lang="" d
    name="$cc-$std$opt${san:+-san}"; name=${name//+/x}
    LABEL[$name]="$cc -std=$std $opt${san:+ ASan+UBSan}"
    d="$OUT/$name"; mkdir -p "$d"
    command -v "$cc" >/dev/null || { result "$name" skip "$cc not installed"; return; }
    case "$std" in c++*) lang="-x c++" ;; esac
    for f in impl prog test_threads smoke; do
        run "$name" $cc $lang -std=$std $opt $san $WARN -c $(src $f) -o "$d/$f.o" || { result "$name" FAIL "compile $(src $f)"; return; }
    done
    run "$name" $cc $san "$d"/impl.o "$d"/prog.o "$d"/test_threads.o "$d"/smoke.o -o "$d/smoke" -lm -pthread ||
        { result "$name" FAIL "link"; return; }
    if run "$name" env ${san:+UBSAN_OPTIONS=halt_on_error=1} "$d/smoke" $DATA; then
        result "$name" ok "$(tail -n 1 "$OUT/$name.log")"
    else result "$name" FAIL "$(grep -m1 -E 'FAIL|ERROR|WARNING' "$OUT/$name.log" || tail -n 1 "$OUT/$name.log")"; fi
}

# test_main built by the Makefile's rule into $OUT/NAME with CFLAGS, run quick
cell_test_main() {
    local name=$1 cflags=$2
    if ! run "$name" make --no-print-directory BUILD="$OUT/$name" CFLAGS="$cflags" "$OUT/$name/test_main"; then
        result "$name" FAIL "build"; return 1
    fi
    return 0
}

cell_nothreads() {
    local name=nothreads
    cell_test_main $name "-O2 -DGENIE_NO_THREADS" || return
    if run $name env $QUICK "$OUT/$name/test_main" 20000; then result $name ok "$(tail -n 1 "$OUT/$name.log")"
    else result $name FAIL "$(grep -m1 FAIL "$OUT/$name.log" || tail -n 1 "$OUT/$name.log")"; fi
}

# ThreadSanitizer: the smoke driver (three contexts on three threads, each with 2 kernel
# threads) and the GEMM and fusion tests, which run products on 1 and 2 threads
cell_tsan() {
    local name=tsan d="$OUT/tsan" f ok=1
    mkdir -p "$d"
    for f in impl prog test_threads smoke; do
        run $name gcc -std=c99 -O1 -g -fsanitize=thread $WARN -c $(src $f) -o "$d/$f.o" || { result $name FAIL "compile $(src $f)"; return; }
    done
    run $name gcc -fsanitize=thread "$d"/impl.o "$d"/prog.o "$d"/test_threads.o "$d"/smoke.o -o "$d/smoke" -lm -pthread ||
        { result $name FAIL link; return; }
    run $name env TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$d/smoke" tests/data/props_graphs.txt || ok=0
    if [ $ok = 1 ]; then
        printf 'void gemm_tests(int *, int *, int *);\nvoid fuse_tests(int *, int *);\n#include <stdio.h>\n%s\n' \
            'int main(void) { int p = 0, f = 0, s = 0; gemm_tests(&p, &f, &s); fuse_tests(&p, &f); printf("%d passed, %d failed, %d skipped\n", p, f, s); return f != 0; }' \
            > "$d/gemm_main.c"
        run $name gcc -std=c99 -O1 -g -fsanitize=thread $WARN -c tests/unit/test_gemm.c -o "$d/test_gemm.o" &&
        run $name gcc -std=c99 -O1 -g -fsanitize=thread $WARN -c tests/unit/test_fuse.c -o "$d/test_fuse.o" &&
        run $name gcc -std=c99 -O1 -g -fsanitize=thread $WARN -c "$d/gemm_main.c" -o "$d/gemm_main.o" &&
        run $name gcc -fsanitize=thread "$d"/impl.o "$d"/test_gemm.o "$d"/test_fuse.o "$d"/gemm_main.o -o "$d/gemm" -lm -pthread || ok=0
        [ $ok = 1 ] && { run $name env GENIE_GEMM_QUICK=1 TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$d/gemm" || ok=0; }
    fi
    if [ $ok = 1 ]; then result $name ok "no race; $(tail -n 1 "$OUT/$name.log")"
    else result $name FAIL "$(grep -m1 -E 'WARNING: ThreadSanitizer|FAIL' "$OUT/$name.log" || tail -n 1 "$OUT/$name.log")"; fi
}

# Windows: test_main cross-built (static, so wine needs no mingw DLLs), then run under wine
cell_mingw() {
    local name=mingw d="$OUT/mingw" f cc=x86_64-w64-mingw32-gcc cxx=x86_64-w64-mingw32-g++
    mkdir -p "$d"
    if ! command -v $cc >/dev/null || ! command -v $cxx >/dev/null; then
        result mingw skip "mingw-w64 not installed (apt-get install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)"
        result wine skip "nothing to run (no Windows build)"; return
    fi
    for f in $TESTS; do
        run $name $cc -std=c99 -O2 $WARN -c $(src $f) -o "$d/$f.o" || { result mingw FAIL "compile $(src $f)"; result wine skip "no Windows build"; return; }
    done
    run $name $cxx -std=c++11 -O2 $WARN -c tests/unit/cxx_part.cpp -o "$d/cxx_part.o" &&
    run $name $cxx -static "$d"/*.o -o "$d/test_main.exe" -lpthread ||
        { result mingw FAIL link; result wine skip "no Windows build"; return; }
    result mingw ok "test_main.exe built (x86_64-w64-mingw32, Win32 threads)"
    if ! command -v wine >/dev/null; then result wine skip "wine not installed (apt-get install wine64)"; return; fi
    if ! WINEDEBUG=-all WINEPREFIX="$PWD/$OUT/wineprefix" timeout 120 wine cmd /c exit >/dev/null 2>&1; then
        result wine skip "wine is installed but does not start here"; return
    fi
    if run wine env $QUICK WINEDEBUG=-all WINEPREFIX="$PWD/$OUT/wineprefix" timeout 400 wine "$d/test_main.exe" 20000; then
        result wine ok "$(tail -n 1 "$OUT/wine.log")"
    else result wine FAIL "$(grep -m1 FAIL "$OUT/wine.log" || tail -n 1 "$OUT/wine.log")"; fi
}

if [ "${1:-}" = "--cell" ]; then   # a worker: one cell
    shift
    T0=$(date +%s)
    mkdir -p "$OUT"
    "$@"
    exit 0
fi

command -v nproc >/dev/null && JOBS=${MATRIX_JOBS:-$(nproc)} || JOBS=${MATRIX_JOBS:-2}
rm -rf "$OUT" && mkdir -p "$OUT"
start=$(date +%s)
echo "matrix: $JOBS cells at a time, logs in $OUT"
{   # the longest first
    echo cell_mingw; echo cell_tsan; echo cell_nothreads
    for o in -O0 -O2; do
        for s in c99 c11; do echo "cell_std gcc $s $o"; echo "cell_std clang $s $o"; done
        for s in c++11 c++17; do echo "cell_std g++ $s $o"; echo "cell_std clang++ $s $o"; done
    done
    echo "cell_std clang c99 -O1 -fsanitize=address,undefined"
} | xargs -P "$JOBS" -I{} sh -c "exec \"$SELF\" --cell {}"

p=0 f=0 s=0
printf '  %-34s %-5s %5s  %s\n' cell result s note
for r in "$OUT"/*.res; do
    IFS=$'\t' read -r st secs name note < "$r"
    printf '  %-34s %-5s %5s  %s\n' "$name" "$st" "$secs" "$note"
    case $st in ok) p=$((p + 1)) ;; skip) s=$((s + 1)) ;; *) f=$((f + 1)) ;; esac
done
expected=21   # cells: 16 compiler x standard x level, nothreads, tsan, asan+ubsan, mingw, wine
if [ $((p + f + s)) -ne $expected ]; then
    echo "FAIL matrix: $((p + f + s)) cells reported, $expected expected"; f=$((f + expected - p - f - s))
fi
echo "matrix: $(( $(date +%s) - start )) s"
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
