"""The pre-commit hook, end to end with the real `pre-commit` tool: a model repository whose
.pre-commit-config.yaml points at a clone of this repository in which this commit is the release
the README's snippet names (its `rev`, the tag of gpucompat's version); one test uses the README's
YAML verbatim, with only the repository's URL replaced by the clone's path."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import gpucompat as package

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 4096\n"
README_URL = "https://github.com/OWNER/gpucompat"


def run(cmd: list[str], cwd: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def readme_snippet(hosted: bool = True) -> str:
    """One of the README's .pre-commit-config.yaml snippets, as written there: the hosted one
    (`repo:` the URL where gpucompat is hosted) or the local one (`repo: local`, the installed
    gpucompat)."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    section = text[text.index("## Pre-commit hook"):text.index("## GitHub Actions")]
    snippets = re.findall(r"```yaml\n(.*?)```", section, re.S)
    return next(s for s in snippets if (README_URL in s) == hosted)


def release_tag() -> str:
    """The `rev` the README's snippet names: it must be the tag of this version."""
    rev = re.search(r"^\s*rev: (\S+)", readme_snippet(), re.M).group(1)
    assert rev == f"v{package.__version__}", f"the README's snippet names {rev}, the version is {package.__version__}"
    return rev


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> str:
    """Where a user hosts gpucompat: a clone of this repository with this commit tagged as the
    release the README names (as `git tag` does when the version is released)."""
    if shutil.which("git") is None:
        pytest.fail("git is required")
    path = str(tmp_path_factory.mktemp("host") / "gpucompat")
    head = run(["git", "rev-parse", "HEAD"], REPO).stdout.strip()
    assert run(["git", "clone", "-q", "--no-checkout", REPO, path], REPO).returncode == 0
    assert run(["git", "tag", "-f", release_tag(), head], path).returncode == 0
    return path


class ModelRepo:
    """A throwaway git repository using the gpucompat hook at the README's release of `host`, with
    its own `args`, or the README's snippet verbatim (its URL replaced by `host`) when `args` is None."""

    def __init__(self, root, cache: str, host: str | None, args: list[str] | None = ()):
        self.root = str(root)
        # the installed gpucompat on PATH, as in a shell where it was pip-installed
        path = os.pathsep.join((os.path.dirname(sys.executable), os.environ.get("PATH", "")))
        self.env = {**os.environ, "PATH": path, "PRE_COMMIT_HOME": cache, "GIT_AUTHOR_NAME": "t",
                    "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        run(["git", "init", "-q"], self.root)
        if host is None:  # the README's local snippet, verbatim
            self.write(".pre-commit-config.yaml", readme_snippet(hosted=False))
            return
        if args is None:
            self.write(".pre-commit-config.yaml", readme_snippet().replace(README_URL, host, 1))
            return
        hook_args = "".join(f"\n        - '{a}'" for a in args)
        self.write(".pre-commit-config.yaml",
                   f"repos:\n  - repo: {host}\n    rev: {release_tag()}\n    hooks:\n      - id: gpucompat\n"
                   + (f"        args:{hook_args}\n" if args else ""))

    def write(self, name: str, data: str | bytes, stage: bool = True) -> None:
        path = os.path.join(self.root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
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
    return str(tmp_path_factory.mktemp("pre-commit-home"))


def test_compatible_passes_incompatible_fails_with_the_reason(models, tmp_path, cache, host):
    repo = ModelRepo(tmp_path, cache, host)
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


def test_lfs_pointer_gets_a_clear_message(tmp_path, cache, host):
    repo = ModelRepo(tmp_path, cache, host)
    repo.write("model.tflite", LFS_POINTER)
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout
    assert "model.tflite: is a Git LFS pointer, not the model: run `git lfs pull` to fetch it" in r.stdout


def test_non_models_are_not_checked(tmp_path, cache, host):
    repo = ModelRepo(tmp_path, cache, host)
    repo.write("notes.txt", "not a model")
    r = repo.hook()
    assert r.returncode == 0 and "(no files to check)Skipped" in r.stdout


def test_the_readmes_local_snippet_pasted_into_a_fresh_repository(models, tmp_path, cache):
    repo = ModelRepo(tmp_path, cache, None)
    repo.copy(models.path("conv_relu"), "ok.tflite")
    r = repo.hook()
    assert r.returncode == 0 and "Passed" in r.stdout, r.stdout + r.stderr
    repo.commit()
    repo.copy(models.path("gather_nd_island"), "split.tflite")
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout and "split.tflite" in r.stdout and "GATHER_ND" in r.stdout


def test_the_readmes_hosted_snippet_and_baseline_as_written(models, tmp_path, cache, host):
    repo = ModelRepo(tmp_path, cache, host, args=None)
    repo.copy(models.path("gather_nd_island"), "models/old.tflite")
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout  # before a baseline: its findings block
    command = re.search(r"```\n(gpucompat check models/ --write-baseline .*?)\n```", readme(), re.S).group(1)
    r = subprocess.run(command, shell=True, cwd=str(tmp_path), capture_output=True, text=True, timeout=300,
                       env=repo.env)
    assert os.path.exists(tmp_path / "gpucompat-baseline.json"), r.stderr
    repo.write(".pre-commit-config.yaml", readme_snippet().replace(README_URL, host, 1)
               + "        args: [--baseline, gpucompat-baseline.json]\n")
    r = repo.hook()
    assert r.returncode == 0, r.stdout  # every finding of old.tflite is in the baseline
    repo.commit()
    repo.copy(models.path("hostile_names"), "new.tflite")  # a custom op the GPU does not take
    r = repo.hook()
    assert r.returncode == 1 and "Failed" in r.stdout and "new.tflite" in r.stdout
    assert "old.tflite" not in r.stdout  # the committed model is not checked again


def readme() -> str:
    with open(os.path.join(REPO, "README.md")) as f:
        return f.read()
