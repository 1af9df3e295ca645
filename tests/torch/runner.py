"""The runner of tests/torch's plain test scripts (test_models.py, test_torch2.py).

run_tests(label, namespace) calls every callable test_* of namespace in definition order, prints
"  ok   NAME" or "  FAIL NAME" and a traceback, and ends with "LABEL: N passed, N failed, N skipped
(torch VERSION)"; with --counts FILE it writes "passed failed skipped" there; it exits 1 when a
test failed. A test that cannot run prints its own skip line, then raises Skipped.
"""
import sys
import traceback


class Skipped(Exception):
    pass


def run_tests(label, namespace):
    import torch
    counts = sys.argv[sys.argv.index("--counts") + 1] if "--counts" in sys.argv else None
    tests = [(k, v) for k, v in list(namespace.items()) if k.startswith("test_") and callable(v)]
    passed = failed = skipped = 0
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print(f"  ok   {name}")
        except Skipped:
            skipped += 1
        except Exception:
            failed += 1
            print(f"  FAIL {name}")
            traceback.print_exc()
    print(f"{label}: {passed} passed, {failed} failed, {skipped} skipped (torch {torch.__version__})")
    if counts:
        with open(counts, "w") as f:
            f.write(f"{passed} {failed} {skipped}\n")
    sys.exit(1 if failed else 0)
