#!/usr/bin/env bash
# diff_test.sh - differential testing at scale against PyTorch: N random programs from the
# property generators (tests/programs/gen_props.py: views, graphs, ops; PyTorch computes every expected
# value, shape, stride and error) replayed by genie (TEST_MAIN --files).
#
# usage: tests/diff_test.sh TEST_MAIN N SEED JOBS OUTDIR
#   N is split evenly over the three kinds; kind K runs program seeds SEED .. SEED+N/3-1, in
#   chunks of DIFF_CHUNK (default 2000) programs handed to JOBS parallel workers, each chunk its
#   own seed range. A chunk with a mismatch keeps its program file and log in OUTDIR: replay it
#   with `TEST_MAIN --files FILE` (each FAIL line names the program, "views-SEED").
#   GENIE_FILES_MODE (make's DIFF_MODE) picks the path: fused (default: groups, epilogues and
#   the tape cache on every core), fused1 (the same on one thread) or reference (unfused, the
#   reference kernels, one thread); replay a chunk with the same variable set.
# Prints one line per chunk, then the programs run, the checks passed and failed, the programs
# that mismatched and the seconds taken; exits 1 on any mismatch or failed chunk.
set -u
PYTHON=${PYTHON:-/usr/bin/python3}

if [ "${1:-}" = "--chunk" ]; then   # a worker: one chunk (MODE START COUNT)
    mode=$2 start=$3 count=$4
    base="$DIFF_OUT/$mode-$start"
    if ! "$PYTHON" tests/programs/gen_props.py "$mode" "$count" "$start" "$base.txt" > "$base.log" 2>&1; then
        echo "FAIL generating $mode programs $start..$((start + count - 1))" | tee -a "$base.log"
        exit 0
    fi
    "$DIFF_TEST_MAIN" --files "$base.txt" >> "$base.log" 2>&1
    rc=$?
    [ $rc -gt 1 ] && echo "FAIL $DIFF_TEST_MAIN exited with status $rc on $base.txt" >> "$base.log"
    grep -c '^P ' "$base.txt" > "$base.count"
    last=$(tail -n 1 "$base.log")
    echo "  $mode $start..$((start + count - 1)): $last"
    case "$last" in *" passed, 0 failed") rm -f "$base.txt" ;; esac
    exit 0
fi

if [ $# -ne 5 ]; then echo "usage: $0 TEST_MAIN N SEED JOBS OUTDIR" >&2; exit 2; fi
export DIFF_TEST_MAIN=$1 DIFF_OUT=$5 PYTHON
n=$2 seed=$3 jobs=$4 chunk=${DIFF_CHUNK:-2000}
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
    echo "skip: differential test ($PYTHON cannot import torch; apt-get install python3-torch)"
    exit 0
fi
rm -rf "$DIFF_OUT" && mkdir -p "$DIFF_OUT" || exit 1
t0=$(date +%s)
echo "differential test: $n programs (views, graphs, ops) from seed $seed, $jobs workers, ${GENIE_FILES_MODE:-fused}"
# the chunk list: kind by kind, seed ranges of `chunk` programs
k=0
for mode in views graphs ops; do
    per=$(( n / 3 + (k < n % 3 ? 1 : 0) )); k=$((k + 1))
    s=0
    while [ $s -lt $per ]; do
        c=$(( per - s < chunk ? per - s : chunk ))
        echo "$mode $((seed + s)) $c"
        s=$((s + c))
    done
done | xargs -P "$jobs" -n 3 "$0" --chunk

# the summary, from the chunks' logs (a chunk without a summary line crashed: a failure)
progs=0 passed=0 failed=0 broken=0
for log in "$DIFF_OUT"/*.log; do
    [ -e "$log" ] || continue
    last=$(tail -n 1 "$log")
    if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    else
        broken=$((broken + 1)); echo "FAIL chunk ${log%.log}: $last"
    fi
    [ -s "${log%.log}.count" ] && progs=$((progs + $(cat "${log%.log}.count")))
done
mism=$(cat "$DIFF_OUT"/*.log 2>/dev/null | sed -n 's/^FAIL [^[]*\[\([^]]*\)\].*/\1/p' | sort -u | wc -l)
secs=$(( $(date +%s) - t0 ))
echo "differential test: $progs programs, $passed checks passed, $failed failed, $mism programs mismatched, $broken chunks failed, ${secs} s"
if [ "$failed" -ne 0 ] || [ "$broken" -ne 0 ] || [ "$progs" -ne "$n" ]; then
    [ "$progs" -ne "$n" ] && echo "FAIL ran $progs programs, asked for $n"
    echo "kept for replay: $DIFF_OUT"
    exit 1
fi
rm -rf "$DIFF_OUT"
exit 0
