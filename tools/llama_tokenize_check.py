"""llama.cpp's tokenizer as a second oracle: runs llama-tokenize on each string of the reference
file (tests/data/gguf_llm_ref.txt: "text HEX ids" and "prompt HEX ids" lines, the ids of Hugging
Face's `tokenizers`, which examples/06_gguf_llm.c must reproduce) and compares its ids.
Usage: llama_tokenize_check.py LLAMA_TOKENIZE MODEL.gguf REF.txt; exits 1 on a difference."""
import subprocess
import sys

exe, model, ref = sys.argv[1:4]
bad = n = 0
for line in open(ref, encoding="utf-8"):
    w = line.split()
    if not w or w[0] not in ("text", "prompt") or w[1] == "-":
        continue  # llama-tokenize refuses an empty prompt
    text = bytes.fromhex(w[1]).decode()
    want = [int(x) for x in w[2:]]
    out = subprocess.run([exe, "-m", model, "-p", text, "--ids", "--log-disable"], capture_output=True, text=True)
    got = [int(x) for x in out.stdout.strip().splitlines()[-1].strip("[]").split(",") if x.strip()] if out.returncode == 0 else None
    n += 1
    if got != want:
        bad += 1
        print(f"llama-tokenize {text!r}: {got}, the reference {want}")
print(f"llama.cpp's tokenizer: {n - bad} of {n} strings give the reference's ids")
sys.exit(1 if bad or not n else 0)
