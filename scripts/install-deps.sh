#!/usr/bin/env bash
# Installs the Debian 12 packages mapwright needs. Idempotent: packages already present are
# skipped, so a second run costs a few seconds. Run as root (or through sudo).
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  verilator libsystemc-dev zlib1g-dev
  libtorch-dev
  libdlib-dev                   # the bo searcher's global optimizer (search/)
  libonnx-dev                   # --network model.onnx (frontend/src/onnx_import.cpp)
  python3-torch python3-torchvision  # tests: export real ONNX models (tests/frontend/onnx/)
  pybind11-dev python3-dev       # the Python module (python/), built for Debian's python3
  python3-numpy python3-pytest  # the Python module's arrays and its tests (tests/python/)
  gnuplot-nox libboost-dev
  libssl-dev                    # SHA-256 keys of the RTL model cache (rtlpool/)
  openmpi-bin libopenmpi-dev    # mpirun -np K mapwright sweep (flows/dist/)
  clang-14 libclang-rt-14-dev   # fuzz targets: clang with libFuzzer, ASan, UBSan (fuzz/)
  clang-format-14               # the C++ style check (scripts/check-format.sh)
  yosys                         # mapwright synth: logic synthesis of rtl/ (flows/synth/)
  nextpnr-ice40 fpga-icestorm   # mapwright synth --fpga: iCE40 place and route, icepack
  qflow-tech-osu018 qflow       # synth --liberty osu018: the OSU 0.18 um cells, blifFanout
  opensta                       # synth --liberty: static timing (sta)
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
