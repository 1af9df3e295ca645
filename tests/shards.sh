#!/usr/bin/env bash
# shards.sh N LOG CMD...: runs CMD (test_main) in N processes side by side, the i-th with
# GENIE_TEST_SHARD=i/N and a shared GENIE_TEST_CLAIM folder (each suite runs once, in the first
# process that reaches it), its output in LOG.i; fails, naming the shard and showing what its
# log says, if any process fails. make valgrind and make asan use it.
set -u
n=$1 log=$2
shift 2
claim=$(mktemp -d)
trap 'rm -rf "$claim"' EXIT
pids=()
for ((i = 0; i < n; i++)); do
    GENIE_TEST_SHARD=$i/$n GENIE_TEST_CLAIM=$claim "$@" > "$log.$i" 2>&1 &
    pids+=($!)
done
ok=1
for ((i = 0; i < n; i++)); do
    if ! wait "${pids[$i]}"; then
        ok=0
        echo "FAIL shard $i/$n of: $* (log: $log.$i)"
        grep -m20 -E 'FAIL|==[0-9]+==|runtime error|ERROR' "$log.$i"
        tail -n 3 "$log.$i"
    fi
done
[ $ok = 1 ] && echo "  $n shards passed: $(for ((i = 0; i < n; i++)); do tail -n 1 "$log.$i"; done | paste -sd';' -)"
[ $ok = 1 ]
