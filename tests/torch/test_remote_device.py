"""The PyTorch device on a genie-server: GENIE_REMOTE=host:port (docs/remote.md).

    make test-torch-remote        (both torch versions; or: make torch-remote PYTHON=py && py this)

Forks build/genie-server on 127.0.0.1 port 0 with a key file (UCX_TLS=tcp UCX_NET_DEVICES=lo
unless set), loads the bridge built with the remote backend (make torch-remote) and runs the
tutorial's TransformerEncoderLayer forward through it with module paths and a phase:
- the output equals the same layer on CPU within rtol = atol = 1e-5 (the local device's tolerance);
- the context runs on "remote" and the server computed nodes (backend_nodes > 0);
- a second forward from the same weights sends no weight again (bytes sent well under their size);
- the server's work table (genie_torch.remote_stats) has rows under the layer's module paths, with
  the products' flops under linear1 and linear2 (2 * M * K * N each, plus the bias), and is printed;
- after kill -9 of the server a forward raises naming it; a new server on the same port and
  genie_torch.remote_reconnect(): the same forward gives the same bytes, the weights sent again.
Prints one `skip:` line and exits 0 where UCX/libsodium (the server, the library) are missing.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import torch  # noqa: E402

VER = torch.__version__.split("+")[0]
SERVER = os.path.join(ROOT, "build", "genie-server")
LIB = os.path.join(ROOT, "build", f"torch-{VER}", "libgenie_torch_remote.so")
if not os.path.exists(SERVER) or not os.path.exists(LIB):
    print(f"skip: the remote PyTorch device on torch {VER} (no {os.path.relpath(SERVER, ROOT)} or "
          f"{os.path.relpath(LIB, ROOT)}: make torch-remote PYTHON={sys.executable}; needs libucx-dev and libsodium-dev)")
    sys.exit(0)

failures = 0


def check(ok, what):
    global failures
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    failures += 0 if ok else 1


os.environ.setdefault("UCX_TLS", "tcp")
os.environ.setdefault("UCX_NET_DEVICES", "lo")
os.environ.setdefault("UCX_WARN_UNUSED_ENV_VARS", "n")
tmp = tempfile.mkdtemp(prefix="genie_remote_torch_")
key, port_file = os.path.join(tmp, "key"), os.path.join(tmp, "port")
with open(key, "wb") as f:
    f.write(os.urandom(32))
log = open(os.path.join(tmp, "server.log"), "w")
server = subprocess.Popen([SERVER, "--listen", "127.0.0.1:0", "--port-file", port_file, "--key-file", key],
                          stdout=log, stderr=subprocess.STDOUT)
try:
    for _ in range(200):
        if os.path.exists(port_file) or server.poll() is not None:
            break
        time.sleep(0.05)
    if not os.path.exists(port_file):
        print("FAIL genie-server did not start:", open(log.name).read())
        sys.exit(1)
    port = int(open(port_file).read())
    os.environ["GENIE_REMOTE"] = f"127.0.0.1:{port}"
    os.environ["GENIE_REMOTE_KEY_FILE"] = key
    import genie_torch as gt  # noqa: E402  (loads libgenie_torch_remote.so: GENIE_REMOTE is set)

    print(f"remote device on torch {torch.__version__}: {gt.LIB} -> 127.0.0.1:{port}")
    check(gt.LIB == LIB, "genie_torch loaded the bridge with the remote backend")
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True).eval()
    src = torch.randn(2, 10, 64)
    with torch.no_grad():
        want = layer(src)
    layer_dev = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True).eval()
    layer_dev.load_state_dict(layer.state_dict())
    layer_dev = layer_dev.to(gt.device)
    src_dev = src.to(gt.device)
    s0 = gt.stats()
    with gt.capture(layer_dev, "encoder.layers.0"), gt.phase("prefill"), torch.no_grad():
        got = layer_dev(src_dev).cpu()
    s1 = gt.stats()
    err = (got - want).abs().max().item()
    check(torch.allclose(got, want, rtol=1e-5, atol=1e-5), f"encoder output equals CPU (max |remote - cpu| = {err:.2e})")
    check(s1["backend"] == "remote", f"the context runs on {s1['backend']!r}")
    nodes, fallbacks = s1["backend_nodes"] - s0["backend_nodes"], s1["backend_fallbacks"] - s0["backend_fallbacks"]
    check(nodes > 0, f"the server computed {nodes} nodes ({fallbacks} ran on this CPU)")
    sent1 = s1["remote_bytes_sent"] - s0["remote_bytes_sent"]
    wbytes = sum(p.numel() * p.element_size() for p in layer.parameters())
    print(f"  first forward: {sent1} bytes sent ({wbytes} of weights), "
          f"{s1['remote_bytes_received'] - s0['remote_bytes_received']} received, "
          f"{s1['remote_round_trips'] - s0['remote_round_trips']} round trips")
    with gt.capture(layer_dev, "encoder.layers.0"), gt.phase("prefill"), torch.no_grad():
        again = layer_dev(src_dev).cpu()
    s2 = gt.stats()
    sent2 = s2["remote_bytes_sent"] - s1["remote_bytes_sent"]
    check(torch.equal(again, got), "a second forward gives the same bytes")
    check(sent2 < wbytes // 2, f"second forward: {sent2} bytes sent, the weights ({wbytes}) not again")
    rows = gt.remote_stats()
    print(gt.remote_table(rows))
    mods = {r["module"] for r in rows}
    check(any(m.startswith("encoder.layers.0") for m in mods), f"rows by module path ({len(rows)} rows, {len(mods)} modules)")
    check(all(r["phase"] == "prefill" for r in rows if r["module"].startswith("encoder.layers.0")),
          "the layer's rows are in phase prefill")
    for name, (k, n) in {"linear1": (64, 128), "linear2": (128, 64)}.items():
        fl = sum(r["flops"] for r in rows if r["module"] == f"encoder.layers.0.{name}")
        per = 2 * 20 * k * n + 20 * n  # [20, k] x [k, n] + bias, per forward
        check(fl > 0 and fl % per == 0, f"{name}: {fl} flops on the server ({fl // per if per else 0} x {per})")
    check(sum(r["nodes"] for r in rows) == s2["backend_nodes"], "the server's nodes are the ones this context sent")

    # kill -9 of the server, a new one on the same port, remote_reconnect: the same model again
    server.kill()
    server.wait()
    try:
        with torch.no_grad():
            layer_dev(src_dev).cpu()
        check(False, "a forward after the server's kill raises")
    except RuntimeError as e:
        check(f"127.0.0.1:{port}" in str(e), f"a forward after the server's kill raises: {str(e).splitlines()[0][:100]}")
    try:  # no server: an error naming it (and the lost connection is closed, freeing the port)
        gt.remote_reconnect()
        check(False, "remote_reconnect with no server raises")
    except RuntimeError as e:
        check(f"127.0.0.1:{port}" in str(e), "remote_reconnect with no server raises naming it")
    os.remove(port_file)
    for _ in range(50):  # the port may linger a moment
        server = subprocess.Popen([SERVER, "--listen", f"127.0.0.1:{port}", "--port-file", port_file, "--key-file", key],
                                  stdout=log, stderr=subprocess.STDOUT)
        for _ in range(200):
            if os.path.exists(port_file) or server.poll() is not None:
                break
            time.sleep(0.05)
        if os.path.exists(port_file):
            break
        server.wait()
        time.sleep(0.1)
    gt.remote_reconnect()
    s3 = gt.stats()
    with torch.no_grad():
        after = layer_dev(src_dev).cpu()
    s4 = gt.stats()
    check(torch.equal(after, got), "after a restart and remote_reconnect the forward gives the same bytes")
    check(s4["backend_nodes"] > s3["backend_nodes"] and s4["remote_bytes_sent"] - s3["remote_bytes_sent"] >= wbytes,
          f"it ran on the new server, the weights sent again ({s4['remote_bytes_sent'] - s3['remote_bytes_sent']} bytes)")
finally:
    server.send_signal(signal.SIGTERM)
    try:
        rc = server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        rc = -9
    log.close()
if rc != 0:
    print(f"FAIL genie-server exited {rc}")
    failures += 1
print(f"test_remote_device: {failures} failure(s)")
sys.exit(1 if failures else 0)
