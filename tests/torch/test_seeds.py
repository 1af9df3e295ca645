"""The seeds' own tests (seed 000's tests/test_torch_function_protocol.py, seed 002's "Testing
Requirements"), run against genie's device with pytest:

    .venv/bin/python -m pytest -q tests/torch/test_seeds.py     # torch >= 2.0

Each test keeps the seed's code; where genie's API differs the line says so ("genie:"):
  - a lazy tensor is a plain torch.Tensor on the device (PyTorch's own dispatcher captures it),
    not a LazyTensor subclass: `isinstance(x, LazyTensor)` becomes `is_lazy(x)` (a torch.Tensor
    whose device is remote_accelerator);
  - metadata comes from genie_torch.info(t): `x.metadata.operation_type` / `z.operation` is
    info(t)["op"] (ATen's names, "aten::add"), and `x.materialized` is info(t)["materialized"];
  - `len(z.inputs)` is not exposed per tensor; the graph's edges are checked through
    genie_torch.dump_dot (z's node has two incoming edges);
On torch 1.13 the device cannot be named remote_accelerator: the module is skipped there.
"""
import os
import re
import sys
import tempfile

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import genie_torch as gt  # noqa: E402

if gt.DEVICE_TYPE != "remote_accelerator":
    pytest.skip(f"the seeds name the device remote_accelerator, which needs torch >= 2.0 (torch {torch.__version__})",
                allow_module_level=True)


def is_lazy(t):  # genie: stands for isinstance(t, LazyTensor)
    return isinstance(t, torch.Tensor) and t.device.type == "remote_accelerator"


def operation(t):  # genie: stands for t.metadata.operation_type / t.operation
    return gt.info(t)["op"]


def materialized(t):  # genie: stands for t.materialized
    return gt.info(t)["materialized"]


def n_inputs(t):  # genie: stands for len(t.inputs): t's incoming edges in genie's graph dump
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.dot")
        gt.dump_dot(t, path)
        dot = open(path).read()
    nodes = re.findall(r'^\s*"(n[0-9a-fx]+)"\s*\[label=', dot, re.M)
    assert nodes, dot
    target = nodes[0]  # the root's node is written first
    return len(re.findall(r'->\s*"' + target + '"', dot))


# ---------------------------------------------------------------- seed 002

def test_lazy_tensor_creation():
    x = torch.randn(10, 10, device="remote_accelerator:0")
    assert is_lazy(x)
    assert operation(x) == "aten::randn"
    assert tuple(x.shape) == (10, 10)  # genie: x.metadata.tensor_shape is x.shape


def test_operation_interception():
    x = torch.randn(10, 10, device="remote_accelerator:0")
    y = torch.randn(10, 10, device="remote_accelerator:0")
    z = x + y
    assert is_lazy(z)
    assert operation(z) == "aten::add"
    assert n_inputs(z) == 2


def test_materialization():
    x = torch.randn(10, 10, device="remote_accelerator:0")
    y = x.cpu()
    assert isinstance(y, torch.Tensor)
    assert y.device.type == "cpu"


# ---------------------------------------------------------------- seed 000

def test_lazy_tensor_creation_000():
    x = torch.randn(4, 4, device="remote_accelerator:0")
    assert is_lazy(x)
    assert x.shape == torch.Size([4, 4])
    assert not materialized(x)


def test_operation_chaining():
    x = torch.randn(4, 4, device="remote_accelerator:0")
    y = x + x
    z = torch.matmul(y, y)
    assert is_lazy(y)
    assert is_lazy(z)
    assert not materialized(x)
    assert not materialized(y)
    assert not materialized(z)


def test_materialization_000():
    x = torch.randn(4, 4, device="remote_accelerator:0")
    y = x + x
    result = y.cpu()
    assert materialized(y)
    assert isinstance(result, torch.Tensor)
    assert result.device.type == "cpu"
    # genie: beyond the seed, the value is the CPU's
    assert torch.allclose(result, x.cpu() * 2)
