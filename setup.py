"""Builds the bridge library for `pip install ./` (the metadata is in pyproject.toml).

pip builds in an isolated environment that cannot import torch; the library must match the torch
of the environment pip installs into, so `make torch` runs with the interpreter running pip and
the environment pip inherited (its isolation variables removed). The library lands in the
package genie_torch_lib beside genie_torch, which looks there first.
"""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def target_python():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE")}
    return env


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        env = target_python()
        ver = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__.split('+')[0])"],
                             env=env, cwd=ROOT, capture_output=True, text=True)
        if ver.returncode != 0:
            sys.exit("genie-torch: the Python running pip cannot import torch; install torch first "
                     "(or pip install --no-build-isolation ./)\n" + ver.stderr[-1000:])
        subprocess.run(["make", "torch", f"PYTHON={sys.executable}"], env=env, cwd=ROOT, check=True)
        pkg = os.path.join(self.build_lib, "genie_torch_lib")
        os.makedirs(pkg, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, "build", f"torch-{ver.stdout.strip()}", "libgenie_torch.so"),
                     os.path.join(pkg, "libgenie_torch.so"))
        with open(os.path.join(pkg, "__init__.py"), "w") as f:
            f.write('"""The genie_torch bridge library, built against torch %s."""\n'
                    "import os\n\nLIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "
                    '"libgenie_torch.so")\nTORCH_VERSION = %r\n' % (ver.stdout.strip(), ver.stdout.strip()))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # the wheel carries a native library: platform-tagged
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
