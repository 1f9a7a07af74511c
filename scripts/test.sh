#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need when it is
# missing — node modules, the build, WebGPU's SwiftShader driver — then runs
# the type checker and the vitest suites.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
npm run build --silent
bash scripts/setup-webgpu.sh
npx tsc --noEmit -p .
npx vitest run "$@"
