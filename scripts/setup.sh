#!/usr/bin/env bash
# Installs every build and test dependency of subsim from Debian's packages.
# Idempotent: packages already present are not fetched again.
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libhdf5-dev zlib1g-dev libcli11-dev libyaml-cpp-dev nlohmann-json3-dev liburdfdom-dev
  libgtest-dev libgmock-dev libbenchmark-dev libfclib-dev
  libmujoco-dev
  clang-14 libclang-rt-14-dev libomp-14-dev llvm-14
  python3 python3-matplotlib
  python3-dev python3-numpy python3-pytest pybind11-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
