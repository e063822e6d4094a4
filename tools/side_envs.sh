#!/usr/bin/env bash
# The other converters' own Pythons, which the tests use through tests/side_env.py and the test
# environment never imports: litert-torch's and onnx2tf's, each a venv under DIR (default
# ~/.cache/gpucompat-side), built once; `.ready` marks a venv whose install finished.
#   bash tools/side_envs.sh [DIR]
set -uo pipefail
dir=${1:-$HOME/.cache/gpucompat-side}
mkdir -p "$dir"
rc=0
build() {  # build VENV PACKAGE...
  local venv="$dir/$1"; shift
  [ -f "$venv/.ready" ] && return 0
  rm -rf "$venv"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "$@" && touch "$venv/.ready" \
    || { echo "side_envs: building $venv failed" >&2; rc=1; }
}
build torch torch==2.14.1 litert-torch==0.10.0
build onnx2tf onnx2tf==1.29.24
exit "$rc"
