#!/usr/bin/env bash
# Installs every build and test dependency of subsim: Debian packages, and three.js (the page of
# `subsim view`) from npm.
# Idempotent: packages already present are not fetched again.
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libhdf5-dev zlib1g-dev libcli11-dev libyaml-cpp-dev nlohmann-json3-dev liburdfdom-dev
  libtinyobjloader-dev
  libgtest-dev libgmock-dev libbenchmark-dev libfclib-dev
  libmujoco-dev
  clang-14 libclang-rt-14-dev libomp-14-dev llvm-14
  python3 python3-matplotlib
  python3-dev python3-numpy python3-pytest pybind11-dev
  chromium libcpp-httplib-dev
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

# three.js for `subsim view`'s page, from npm at the version viewer/package-lock.json pins (the
# build embeds it; the page then needs no network).  npm comes with Node.js; Debian's npm
# package where it is missing.
VIEWER="$(cd "$(dirname "$0")/.." && pwd)/viewer"
if [ ! -f "$VIEWER/node_modules/three/build/three.min.js" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >&2
  fi
  echo "setup: installing three.js (npm ci in viewer/)" >&2
  (cd "$VIEWER" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
