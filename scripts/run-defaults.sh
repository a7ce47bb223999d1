#!/usr/bin/env bash
# Builds what the main job needs and runs it on the built-in defaults: ResNet-18 on the default
# 16x16 architecture, every unique layer solved to its proven optimum on the surrogate by the
# exact mapper (EDP, at most 60 s per layer, seed 1), the top 3 distinct mappings of each layer
# verified on the Verilated RTL, the best chosen by RTL. Writes runs/resnet18-default/ (report.html,
# results.json, CSVs, mappings/, results.sqlite). Running it again continues or re-renders
# the same run (--resume); extra arguments are passed to `mapwright run`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the main job needs: the CLI, its RTL worker (a dependency of the CLI) and the
# Python module (installed as by the test command); the test command builds everything else.
bash scripts/build.sh default mapwright mapwright_python
exec ./build/apps/mapwright run --out runs/resnet18-default --resume "$@"
