"""Cold start benchmark: whole `gpucompat verify` and `gpucompat fix --profile litert-mldrift`
processes with empty caches against the same command warm, on PoCL and on Intel's CPU runtime.

Cold: a new directory as XDG_CACHE_HOME (gpucompat's program cache and probe answers) and as
POCL_CACHE_DIR (PoCL's compiled kernels); warm: the same command again on what the cold run left.
Intel's CPU runtime is reached as CI reaches it (.ci/run): POCL_EXTRA_BUILD_FLAGS makes every PoCL
build fail, so the device probe passes PoCL over. `fix` runs with GPUCOMPAT_VULKAN_DIR pointing
nowhere: its litert-gpu check is "not run" (what is measured is the OpenCL side). Prints medians of
wall and CPU seconds (user + system of the child) and the cold/warm ratio; asserts nothing
(timings depend on what else runs on the machine).

    python bench/cold_start.py [--repeat 3] [--devices PoCL,Intel] [--checkout DIR ...]

--checkout runs another source tree (e.g. an export of an older commit), laid out as installed
(bench/checkout_tree.py) and put first on PYTHONPATH; given more than once (`installed` naming the
installed tree), the trees take turns run by run, so that they see the same load.
The MediaPipe models come from the tests' cache (tests/real_models.py fetches them). Each tree's
Python bytecode is compiled first (untimed, into its __pycache__ folders), as pip compiles it at
install: otherwise a process that may not write bytecode (PYTHONDONTWRITEBYTECODE) would spend
about 0.2 s of every run compiling gpucompat's modules, which no installed copy does.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from checkout_tree import importable_tree, mapped_folders  # noqa: E402

from real_models import fetch  # noqa: E402

INTEL = {"POCL_EXTRA_BUILD_FLAGS": "-Werror -D__OPENCL_VERSION__=1"}  # every PoCL build fails: Intel's runtime
DEVICES = {"PoCL": {}, "Intel": INTEL}


def cases() -> dict[str, list[str]]:
    """Command lines by name (the output path of fix is filled in per run)."""
    models = fetch()
    return {"verify face_landmark": ["verify", str(models["face_landmark"])],
            "fix pose_detection": ["fix", "--profile", "litert-mldrift", str(models["pose_detection"]), "-o"]}


def timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child process run in `cwd` (so that the source
    tree is the one PYTHONPATH names); it must succeed."""
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "gpucompat", *argv], env=env, cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {err.strip()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime


def pair(argv: list[str], extra: dict[str, str], checkout: str | None) -> tuple[tuple[float, float], ...]:
    """(cold wall, cold CPU), (warm wall, warm CPU) in one fresh cache directory."""
    with tempfile.TemporaryDirectory(prefix="cold-start-") as home:
        env = {**os.environ, **extra, "XDG_CACHE_HOME": home, "POCL_CACHE_DIR": os.path.join(home, "pocl"),
               "GPUCOMPAT_VULKAN_DIR": os.path.join(home, "no-vulkan")}
        if checkout:
            env["PYTHONPATH"] = importable_tree(checkout, os.path.join(home, "tree"))
        if argv[-1] == "-o":
            argv = [*argv, os.path.join(home, "fixed.tflite")]
        # not `home` itself: `python -m` puts the working directory first on sys.path, where the
        # cold run's program cache (XDG_CACHE_HOME/gpucompat) would shadow the package
        cwd = os.path.join(home, "cwd")
        os.mkdir(cwd)
        return timed(argv, env, cwd), timed(argv, env, cwd)


def compile_bytecode(checkout: str | None) -> None:
    """Compile the Python modules of `checkout` (None: the installed gpucompat) to bytecode."""
    if checkout is None:
        import importlib.util

        here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        names = ["gpucompat", *(f"gpucompat.{name}" for name in mapped_folders(here))]
        folders = [os.path.dirname(importlib.util.find_spec(name).origin) for name in names]
    else:
        folders = [os.path.join(checkout, "gpucompat"), *mapped_folders(checkout).values()]
    for folder in dict.fromkeys(folders):
        compileall.compile_dir(folder, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--devices", default="PoCL,Intel")
    parser.add_argument("--cases", help="comma-separated case names (default all)")
    parser.add_argument("--checkout", action="append",
                        help="source tree to run (laid out as installed; `installed`, the default: the installed "
                             "one); repeat to alternate trees")
    args = parser.parse_args()
    chosen = {k: v for k, v in cases().items() if not args.cases or k in args.cases.split(",")}
    trees = [None if t == "installed" else t for t in args.checkout or ["installed"]]
    for tree in trees:
        compile_bytecode(tree)
    print("| command | device | tree | cold wall | cold CPU | warm wall | warm CPU | cold/warm (wall) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, argv in chosen.items():
        for device in args.devices.split(","):
            runs = [[pair(argv, DEVICES[device], tree) for tree in trees] for _ in range(args.repeat)]
            for k, tree in enumerate(trees):
                med = [statistics.median(r[k][i][j] for r in runs) for i in (0, 1) for j in (0, 1)]
                print(f"| {name} | {device} | {tree or 'installed'} | {med[0]:.1f} s | {med[1]:.1f} s | {med[2]:.1f} s "
                      f"| {med[3]:.1f} s | {med[0] / med[2]:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
