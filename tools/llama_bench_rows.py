"""Reads llama-bench's CSV output (-o csv) on stdin and prints one line per result for
bench/gguf_llm.c: "TYPE THREADS pp|tg TOKENS_PER_S" (pp: a prompt test, tg: a generation test).
Usage: llama-bench ... -o csv | llama_bench_rows.py TYPE"""
import csv
import sys

rows = list(csv.DictReader(line for line in sys.stdin if line.strip()))
if not rows:
    sys.exit("llama_bench_rows.py: no CSV rows on stdin (did llama-bench fail?)")
for r in rows:
    test = "pp" if int(r["n_prompt"]) > 0 and int(r["n_gen"]) == 0 else "tg" if int(r["n_gen"]) > 0 and int(r["n_prompt"]) == 0 else None
    if test:
        print(sys.argv[1], r["n_threads"], test, r["avg_ts"])
