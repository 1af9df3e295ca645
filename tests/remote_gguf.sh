#!/bin/sh
# A GGUF Llama end to end on the remote backend: examples/06_gguf_llm.c linked against
# build/genie_remote.o (build/06_gguf_llm_remote) runs each tiny model file on a genie-server
# forked on loopback and checks its tokens against the same reference as test-gguf-llm, its
# whole output (text, flips, largest logit error; not the timings) equal to the local run's; the
# weights cross once (the bytes sent stay under the file's size plus 512 KiB for the steps'
# inputs and tapes; tiny-spm.gguf holds tiny-f32's weights, which the server already has) and no node runs on the client's CPU. Run by `make test-gguf-llm-remote`.
set -u
dir=build/gguf_llm
[ -x build/genie-server ] && [ -x build/06_gguf_llm_remote ] && [ -x build/06_gguf_llm ] || { echo "FAIL build/genie-server, build/06_gguf_llm or build/06_gguf_llm_remote missing"; exit 1; }
[ -f $dir/tiny-q4_0.gguf ] || { echo "skip: the GGUF Llama files over remote (not written: make venv, then make gguf-llm-models)"; exit 0; }
export UCX_TLS=tcp UCX_NET_DEVICES=lo UCX_WARN_UNUSED_ENV_VARS=n
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; }
trap cleanup EXIT
rm -f build/remote_gguf.port
build/genie-server --listen 127.0.0.1:0 --port-file build/remote_gguf.port --threads 1 > build/remote_gguf_server.log 2>&1 &
pid=$!
i=0
while [ ! -s build/remote_gguf.port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s build/remote_gguf.port ] || { echo "FAIL genie-server did not start:"; cat build/remote_gguf_server.log; exit 1; }
export GENIE_REMOTE=127.0.0.1:$(cat build/remote_gguf.port)
fail=0
for t in f32 bf16 q8_0 q4_0 spm; do
    ref=tests/data/gguf_llm_ref$([ $t = spm ] && echo _spm).txt
    f=$dir/tiny-$t.gguf
    out=$(build/06_gguf_llm_remote $f $ref -t 1 -b remote 2>&1); rc=$?
    size=$(wc -c < $f)
    line=$(echo "$out" | grep -a '^backend remote:')
    # backend remote: N nodes on it, C on the CPU; S bytes sent in M messages, R received; T round trips
    cpu=$(echo "$line" | sed -n 's/.*nodes on it, \([0-9]*\) on the CPU.*/\1/p')
    sent=$(echo "$line" | sed -n 's/.*; \([0-9]*\) bytes sent.*/\1/p')
    echo "  $t: $(echo "$out" | grep -a 'tokens against transformers' | cut -d: -f2 | cut -d, -f1);$(echo "$line" | cut -d: -f2)"
    if [ $rc != 0 ] || [ -z "$sent" ]; then echo "$out" | tail -20; echo "FAIL test-gguf-llm-remote $t"; fail=1
    elif [ "$(echo "$out" | grep -av '^prefill:\|^backend')" != "$(build/06_gguf_llm $f $ref -t 1 2>&1 | grep -av '^prefill:')" ]; then
        echo "FAIL test-gguf-llm-remote $t: the output differs from the local run's"; fail=1
    elif [ "$cpu" != 0 ]; then echo "FAIL test-gguf-llm-remote $t: $cpu nodes ran on the client's CPU"; fail=1
    elif [ "$sent" -gt $((size + 524288)) ]; then echo "FAIL test-gguf-llm-remote $t: $sent bytes sent for a $size-byte file"; fail=1
    fi
done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
[ $fail = 0 ] && echo "test-gguf-llm-remote: 5 files' outputs over remote equal the local runs and the reference, weights sent once"
exit $fail
