#!/usr/bin/env bash
# Builds mapwright and runs the main job on the built-in defaults: a multi-agent RL search of
# every unique ResNet-18 layer on the default 16x16 architecture (surrogate-scored), writing
# the best mapping of each layer, the curves and results.json under runs/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
exec ./build/apps/mapwright search --network resnet18 --searcher marl --budget 1000 --seed 1 \
  --out runs/resnet18-default "$@"
