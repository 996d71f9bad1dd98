#!/usr/bin/env bash
# Installs every Debian 12 package lightsim needs to build, test and analyse traces.
# Idempotent: packages already present are left alone. Needs root or sudo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
help_if_asked "$@"

packages=(
  build-essential cmake ninja-build pkg-config git clang-format
  libsystemc-dev libhdf5-dev hdf5-tools nlohmann-json3-dev libeigen3-dev libssl-dev
  libboost-graph-dev libcli11-dev libgtest-dev libbenchmark-dev
  python3-h5py python3-numpy python3-matplotlib parallel
  munge slurm-wlm # the --slurm sweep test starts a private single-node cluster (tests/scripts)
  clang libclang-rt-14-dev # libFuzzer and the sanitizers' runtimes for scripts/fuzz.sh (tests/fuzz)
  libonnx-dev libprotobuf-dev protobuf-compiler # ONNX import (ir/onnx): libonnx's protobuf classes
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
