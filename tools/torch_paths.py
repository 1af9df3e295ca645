"""Prints shell assignments describing the torch importable by this Python, for the Makefile:

    eval "$(python tools/torch_paths.py)"   # TORCH_VER, TORCH_INCS, TORCH_LIBDIRS, TORCH_CXXSTD, TORCH_ABI

Exits non-zero, saying why, where torch or its C++ headers are missing.

TORCH_VER is torch's version without its local part (2.15.0, 1.13.1). Include directories come
from torch.utils.cpp_extension; where they lack ATen (Debian's python3-torch puts the headers
under /usr/include) the system directory is used instead.
"""
import os
import shlex
import sys
import warnings

warnings.filterwarnings("ignore")
try:
    import torch
    from torch.utils import cpp_extension
except Exception as e:
    sys.exit(f"{sys.executable} cannot import torch ({type(e).__name__}: {e})")

incs = [p for p in cpp_extension.include_paths() if os.path.isdir(p)]
if not any(os.path.isfile(os.path.join(p, "ATen", "ATen.h")) for p in incs):
    incs = ["/usr/include", "/usr/include/torch/csrc/api/include"]
if not os.path.isfile(os.path.join(incs[0], "ATen", "ATen.h")):
    sys.exit(f"torch {torch.__version__} has no C++ headers (Debian: libtorch-dev)")
libdirs = [p for p in cpp_extension.library_paths() if os.path.isdir(p) and
           any(f.startswith("libtorch_cpu") for f in os.listdir(p))]
print("TORCH_VER=" + shlex.quote(torch.__version__.split("+")[0]))
print("TORCH_INCS=" + shlex.quote(" ".join(incs)))
print("TORCH_LIBDIRS=" + shlex.quote(" ".join(libdirs)))
# torch 2.x's headers need C++20 from about 2.10 on (C++17 before); 1.13's are C++17
major = int(torch.__version__.split(".")[0])
print("TORCH_CXXSTD=" + ("c++20" if major >= 2 else "c++17"))
print("TORCH_ABI=" + str(int(bool(torch._C._GLIBCXX_USE_CXX11_ABI))))
