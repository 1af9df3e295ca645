"""Prints which llama.cpp build llama-bench is, from its CSV output (-o csv) on stdin:
its commit, build number, backends and CPU, one line. Usage: llama-bench ... -o csv | llama_bench_build.py"""
import csv
import sys

rows = list(csv.DictReader(line for line in sys.stdin if line.strip()))
if not rows:
    sys.exit("llama_bench_build.py: no CSV rows on stdin (did llama-bench fail?)")
r = rows[0]
print(f"llama.cpp: build {r.get('build_commit', '?')} ({r.get('build_number', '?')}), backends {r.get('backends', '?')}, "
      f"{r.get('cpu_info', '?')}")
