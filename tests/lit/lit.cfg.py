# lit configuration for tilemem's FileCheck suite.
#
# Tests are `.mlir` files with `// RUN: tilemem opt ... %s | FileCheck %s`
# lines, and PyPTO programs (`.py`) with `# RUN: tilemem plan ...` lines. `tilemem` is taken from PATH (`.ci/run` puts the freshly built
# binary first) or from the TILEMEM environment variable; FileCheck and
# `not` come from PATH or from an installed LLVM (`/usr/lib/llvm-*/bin`).

import glob
import os
import shutil

import lit.formats

config.name = "tilemem"
config.test_format = lit.formats.ShTest(execute_external=False)
# `.mlir` for the MLIR driver, `.py` for PyPTO programs (tests/lit/pto).
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "README.md"]
config.test_source_root = os.path.dirname(__file__)
# Keep lit's scratch files out of the source tree.
config.test_exec_root = os.path.join(
    os.environ.get("CARGO_TARGET_DIR")
    or os.path.join(os.path.dirname(__file__), "..", "..", "target"),
    "lit",
)

path = os.environ.get("PATH", "")
llvm_bins = sorted(glob.glob("/usr/lib/llvm-*/bin"), reverse=True)
for d in llvm_bins:
    if os.path.exists(os.path.join(d, "FileCheck")):
        path = path + os.pathsep + d
        break
tilemem = os.environ.get("TILEMEM")
if tilemem:
    path = os.path.dirname(os.path.abspath(tilemem)) + os.pathsep + path
config.environment["PATH"] = path

for tool in ("tilemem", "FileCheck"):
    if shutil.which(tool, path=path) is None:
        lit_config.fatal(
            "'%s' not found on PATH; build tilemem and install FileCheck "
            "(Debian: apt-get install llvm-19-tools), or run .ci/run" % tool
        )

# Upstream AscendNPU-IR tests (tests/lit/upstream) run unchanged: their tool
# is bishengir-opt, whose conventions `tilemem opt` follows. `asserts`
# stands for the -debug-only traces some of them check.
config.substitutions.append(("bishengir-opt", "tilemem opt"))
config.available_features.add("asserts")
