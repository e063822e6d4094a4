#!/usr/bin/env bash
# Point LiteRT's GPU accelerator at SwiftShader, the software Vulkan driver Debian's chromium
# package ships: an adapter without 16-bit shader floats (no shader-f16), where lavapipe (the
# oracle's driver, shared/oracle/setup.sh) has them, as most phone GPUs do. Writes DIR/env.sh in
# the form gpucompat's launcher reads (GPUCOMPAT_VULKAN_DIR=DIR, tools/record_grid.py --without-f16 DIR).
# Usage: bash tools/swiftshader.sh DIR   (needs /usr/lib/chromium/libvk_swiftshader.so: apt-get install chromium)
set -euo pipefail
dir=${1:?usage: bash tools/swiftshader.sh DIR}
lib=/usr/lib/chromium/libvk_swiftshader.so
[ -f "$lib" ] || { echo "$lib: no such file (apt-get install chromium)" >&2; exit 1; }
mkdir -p "$dir/xdg"
dir=$(cd "$dir" && pwd)
printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' "$lib" > "$dir/icd.json"
# LD_LIBRARY_PATH emptied: the oracle's Mesa libraries must not be loaded beside SwiftShader.
cat > "$dir/env.sh" <<ENV
export XDG_RUNTIME_DIR=$dir/xdg VK_DRIVER_FILES=$dir/icd.json VK_ICD_FILENAMES=$dir/icd.json
export LD_LIBRARY_PATH= TF_CPP_MIN_LOG_LEVEL=0
ENV
