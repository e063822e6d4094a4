"""The pre-commit hook, end to end with the real `pre-commit` tool: a model repository whose
.pre-commit-config.yaml points at this repository (local path, current commit)."""

import os
import shutil
import subprocess
import sys

import pytest

from cli import gpucompat

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 4096\n"


def run(cmd: list[str], cwd: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


class ModelRepo:
    """A throwaway git repository using the gpucompat hook at this repository's HEAD."""

    def __init__(self, root, cache: str, args: list[str] = ()):
        self.root = str(root)
        self.env = {**os.environ, "PRE_COMMIT_HOME": cache, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        rev = run(["git", "rev-parse", "HEAD"], REPO).stdout.strip()
        run(["git", "init", "-q"], self.root)
        hook_args = "".join(f"\n        - '{a}'" for a in args)
        self.write(".pre-commit-config.yaml",
                   f"repos:\n  - repo: {REPO}\n    rev: {rev}\n    hooks:\n      - id: gpucompat\n"
                   + (f"        args:{hook_args}\n" if args else ""))

    def write(self, name: str, data: str | bytes, stage: bool = True) -> None:
        path = os.path.join(self.root, name)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        if stage:
            run(["git", "add", name], self.root)

    def copy(self, src: str, name: str) -> None:
        with open(src, "rb") as f:
            self.write(name, f.read())

    def commit(self) -> None:
        assert run(["git", "commit", "-q", "--no-verify", "-m", "m"], self.root, self.env).returncode == 0

    def hook(self) -> subprocess.CompletedProcess:
        """`pre-commit run` on the staged files, as `git commit` would run it."""
        return run([sys.executable, "-m", "pre_commit", "run"], self.root, self.env)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One pre-commit cache for the module: the hook's environment is installed once."""
    if shutil.which("git") is None:
        pytest.fail("git is required")
    return str(tmp_path_factory.mktemp("pre-commit-home"))


def test_compatible_passes_incompatible_fails_with_the_reason(models, tmp_path, cache):
    repo = ModelRepo(tmp_path, cache)
    os.makedirs(tmp_path / "models")
    repo.copy(models.path("conv_relu"), "models/ok.tflite")
    r = repo.hook()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gpucompat (TFLite GPU delegate compatibility)" in r.stdout and "Passed" in r.stdout
    repo.commit()
    repo.copy(models.path("gather_nd_island"), "models/split.tflite")
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout
    assert "models/split.tflite" in r.stdout and "GATHER_ND" in r.stdout and "no GPU implementation" in r.stdout
    assert "models/ok.tflite" not in r.stdout  # only staged models are checked


def test_lfs_pointer_gets_a_clear_message(tmp_path, cache):
    repo = ModelRepo(tmp_path, cache)
    repo.write("model.tflite", LFS_POINTER)
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout
    assert "model.tflite: is a Git LFS pointer, not the model: run `git lfs pull` to fetch it" in r.stdout


def test_non_models_are_not_checked(tmp_path, cache):
    repo = ModelRepo(tmp_path, cache)
    repo.write("notes.txt", "not a model")
    r = repo.hook()
    assert r.returncode == 0 and "(no files to check)Skipped" in r.stdout


def test_baseline_fails_only_on_new_findings(models, tmp_path, cache):
    repo = ModelRepo(tmp_path, cache, args=["--baseline", "gpucompat-baseline.json"])
    repo.copy(models.path("gather_nd_island"), "old.tflite")
    r = gpucompat("check", "old.tflite", "--write-baseline", "gpucompat-baseline.json", cwd=str(tmp_path))
    assert r.returncode == 1 and os.path.exists(tmp_path / "gpucompat-baseline.json")
    run(["git", "add", "gpucompat-baseline.json"], str(tmp_path))
    r = repo.hook()
    assert r.returncode == 0, r.stdout  # every finding of old.tflite is in the baseline
    repo.commit()
    repo.copy(models.path("hostile_names"), "new.tflite")  # a custom op the GPU does not take
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout and "new.tflite" in r.stdout
    assert "old.tflite" not in r.stdout  # the committed model is not checked again
