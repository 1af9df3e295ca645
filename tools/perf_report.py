#!/usr/bin/env python3
"""perf_report.py - docs/PERFORMANCE.md from saved bench runs (make perf-report).

    python3 tools/perf_report.py bench/results/*.txt > docs/PERFORMANCE.md
    python3 tools/perf_report.py --summary bench/results/*.txt   (the README's table)

Each input file is one bench's output as `make bench-save` writes it: a header of
"# key: value" lines (machine, cpu, compiler, commit, date, command), then the bench's own
output. The report has one section per machine kind: the runs (date, CPU, compiler, commit,
command), one table of genie beside its peer in the same run (ratios), and each run's output
as the bench printed it. Nothing in the report is written by hand.
"""
import re
import sys
from collections import OrderedDict

KEYS = ("machine", "cpu", "compiler", "commit", "date", "load", "command")


def read_run(path):
    """(header dict, body lines) of one saved run."""
    head, body = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"# (\w+): (.*)$", line)
            if m and not body and m.group(1) in KEYS:
                head[m.group(1)] = m.group(2)
            else:
                body.append(line)
    return head, body


def num(tok):
    try:
        return float(tok.rstrip("x%"))
    except ValueError:
        return None


def rows_gemm(body):
    """bench/gemm.c: 'case shape thr genie OpenBLAS ratio ATen ratio' under a unit line; ratio =
    genie speed / peer speed."""
    unit, out = "", []
    for line in body:
        if line.endswith("; ratio = genie speed / peer speed"):
            unit = line.split(";")[0]
        t = line.split()
        if len(t) >= 8 and t[-6].isdigit() and unit:
            case = "%s %s, %s thr" % (t[0], " ".join(t[1:-6]), t[-6])
            for peer, ratio in (("OpenBLAS", t[-3]), ("PyTorch eager (ATen)", t[-1])):
                r = num(ratio)
                if r is not None and num(t[-5]) is not None:
                    out.append(("gemm", case, "%s %s" % (t[-5], unit), peer, r))
    return out


def rows_views(body):
    """bench/views.c: copies through views, 'name genie_ms GB/s eager_ms ratio' (eager / genie)."""
    out, on = [], False
    for line in body:
        if line.startswith("copies through views"):
            on = True
            continue
        if on:
            t = line.split()
            if len(t) >= 5 and t[-1].endswith("x") and num(t[-4]) is not None and num(t[-1]) is not None:
                out.append(("views", " ".join(t[:-4]), "%s ms" % t[-4], "PyTorch eager", num(t[-1])))
            elif line.strip().startswith("("):
                on = False
    return out


def rows_rowwise(body):
    """bench/rowwise.c: 'op [dtype] ms GB/s N%' under 'T thread(s), path P: memcpy ...' (N% of copy)."""
    out, ctx = [], None
    for line in body:
        m = re.match(r"(\d+) threads?, path (\w+): memcpy", line)
        if m:
            ctx = "%s thr, %s" % (m.group(1), m.group(2))
            continue
        t = line.split()
        if ctx and len(t) >= 4 and t[-1].endswith("%") and num(t[-3]) is not None and num(t[-1]) is not None:
            name = " ".join(t[:-3])
            out.append(("rowwise", "%s%s [4096, 4096], %s" % (name, "" if " " in name else " f32", ctx), "%s ms" % t[-3],
                        "memcpy of the same bytes", num(t[-1]) / 100.0))
        elif not line.startswith("  "):
            ctx = None
    return out


def rows_eltwise(body):
    """bench/eltwise.c: 'op n reference (ms x) per path ... best 2 thr'; ratio = reference / best path."""
    out = []
    for line in body:
        t = line.split()
        if len(t) < 6 or not t[-1].endswith("x"):
            continue
        i = next((k for k, tok in enumerate(t) if tok.isdigit()), None)
        if i is None or i + 1 >= len(t) or num(t[i + 1]) is None:
            continue
        ref = num(t[i + 1])
        ms = [num(a) for a, b in zip(t[i + 2::2], t[i + 3::2]) if b.endswith("x") and num(a)]
        if ref and ms[:-1]:
            best = min(ms[:-1])  # 1-thread paths; the last pair is the best path on 2 threads
            out.append(("eltwise", "%s, %s elements, 1 thr" % (" ".join(t[:i]), t[i]), "%.2f ms" % best,
                        "genie's reference kernel", ref / best))
    return out


def rows_amx(body):
    """bench/amx.c: 'case shape thr amx avx512 f32 PyTorch ratio' under a GFLOP/s line; ratio =
    genie's amx speed / PyTorch's bf16 speed."""
    out, on = [], False
    for line in body:
        if line.startswith("GFLOP/s") and "genie amx speed" in line:
            on = True
        t = line.split()
        if on and len(t) == 8 and t[2].isdigit() and num(t[3]) is not None and num(t[7]) is not None:
            out.append(("amx", "%s %s, %s thr" % (t[0], t[1], t[2]), "%s GFLOP/s" % t[3], "PyTorch bf16 (oneDNN)",
                        num(t[7])))
    return out


PARSERS = {"gemm": rows_gemm, "views": rows_views, "rowwise": rows_rowwise, "eltwise": rows_eltwise, "amx": rows_amx}


def bench_of(head, path):
    m = re.search(r"make bench-(\w+)", head.get("command", ""))
    return m.group(1) if m else re.sub(r".*-", "", path).replace(".txt", "")


def summary(machines):
    """The README's table: per machine, genie beside its outside peers (not genie's own reference),
    f32 on 1 thread, one row a case with every peer of the same run, at most 14 rows."""
    w = sys.stdout.write
    for machine, runs in machines.items():
        dates = sorted(head.get("date", "?") for _, _, head, _ in runs)
        cpu = runs[0][2].get("cpu", "?")
        w("%s (%s; %s to %s):\n\n| bench | case | genie | peer: ratio |\n|---|---|---|---|\n" %
          (machine, cpu, dates[0], dates[-1]))
        rows = OrderedDict()
        for b, p, head, body in runs:
            for r in PARSERS.get(b, lambda _: [])(body):
                if "reference" in r[3] or " f16" in r[1] or " bf16" in r[1] or "2 thr" in r[1]:
                    continue
                rows.setdefault(r[:3], []).append("%s: %.2f" % (r[3], r[4]))
        order = {"gemm": 0, "views": 1, "rowwise": 2}
        keys = sorted(rows, key=lambda k: order.get(k[0], 3))
        for k in keys[:14]:
            w("| %s | %s | %s | %s |\n" % (k[0], k[1], k[2], "; ".join(rows[k])))
        w("\n")
    return 0


def main(paths):
    machines = OrderedDict()
    only_summary = "--summary" in paths
    for p in sorted(x for x in paths if x != "--summary"):
        head, body = read_run(p)
        machines.setdefault(head.get("machine", "unknown"), []).append((bench_of(head, p), p, head, body))
    if only_summary:
        return summary(machines)
    w = sys.stdout.write
    w("# Performance\n\n")
    w("GENERATED by `tools/perf_report.py` from the saved runs in `bench/results/` (`make bench-save`\n"
      "runs the benches and saves each output with its machine, CPU, compiler, commit, date and\n"
      "command; `make perf-report` writes this file). Do not edit it by hand: run the benches again.\n\n"
      "Every ratio compares genie with a peer measured in the same run on the same machine:\n"
      "for time, peer time / genie time (above 1: genie is faster); for GEMM, genie's speed / the\n"
      "peer's speed; for rowwise kernels, the share of a memcpy of the same bytes genie reaches.\n"
      "The machines are shared virtual machines: other work skews single runs, 2-thread ones most.\n")
    for machine, runs in machines.items():
        w("\n## %s\n\n" % machine)
        w("| bench | date | CPU | compiler | commit | load average | command |\n|---|---|---|---|---|---|---|\n")
        for b, p, head, _ in runs:
            w("| %s | %s | %s | %s | %s | %s | `%s` |\n" % (b, head.get("date", "?"), head.get("cpu", "?"),
                                                           head.get("compiler", "?"), head.get("commit", "?"),
                                                           head.get("load", "not recorded"), head.get("command", "?")))
        rows = []
        for b, p, head, body in runs:
            rows += PARSERS.get(b, lambda _: [])(body)
        if rows:
            w("\n| bench | case | genie | peer | ratio |\n|---|---|---|---|---|\n")
            for b, case, g, peer, r in rows:
                w("| %s | %s | %s | %s | %.2f |\n" % (b, case, g, peer, r))
        for b, p, head, body in runs:
            w("\n### `%s` output (%s)\n\n```\n%s\n```\n" % (head.get("command", b), p, "\n".join(body).strip("\n")))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
