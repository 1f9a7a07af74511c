#!/usr/bin/env bash
# WebGPU prerequisites for jaxts tests on headless Linux (Debian/Ubuntu): Chromium's SwiftShader Vulkan ICD
# (/usr/lib/chromium/vk_swiftshader_icd.json) and the system Vulkan loader (libvulkan.so.1).
# Idempotent: prints nothing when everything is present. As root it installs what is missing with apt-get;
# otherwise it says what to install and exits 0 (GPU tests then skip, or fail under CI=true).
set -euo pipefail

ICD=/usr/lib/chromium/vk_swiftshader_icd.json

have_libvulkan() {
  local ldc
  for ldc in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
    if command -v "$ldc" >/dev/null 2>&1; then
      if "$ldc" -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then return 0; fi
      break
    fi
  done
  local d
  for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu \
           /usr/lib64 /usr/lib /lib64 /lib; do
    [[ -e "$d/libvulkan.so.1" ]] && return 0
  done
  return 1
}

missing=()
[[ -f "$ICD" ]] || missing+=("$ICD (package chromium)")
have_libvulkan || missing+=("libvulkan.so.1 (package libvulkan1)")

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "setup-webgpu: missing: ${missing[*]}" >&2
  echo "setup-webgpu: as root run: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium libvulkan1" >&2
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup-webgpu: installing chromium libvulkan1 (missing: ${missing[*]})" >&2
apt-get update
apt-get install -y chromium libvulkan1

if [[ ! -f "$ICD" ]] || ! have_libvulkan; then
  echo "setup-webgpu: still missing after install: $ICD and/or libvulkan.so.1" >&2
  exit 1
fi
