#!/usr/bin/env bash
# `npm run lint` and CI: every static check beyond the type check of the server code. All steps run, so one
# report shows every problem; the exit code is non-zero when any step failed, and the last line names them.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=./node_modules/.bin

failed=()
step() {
  local name=$1
  shift
  echo "== $name"
  "$@" || failed+=("$name")
}

# format and lint rules: biome.jsonc (`npm run format` applies the safe fixes)
step "biome" "$bin/biome" check --error-on-warnings
# exports, files and dependencies nothing uses: knip.jsonc
step "knip" "$bin/knip"
# the dashboard has its own tsconfig (DOM, JSX), which the root type check excludes
step "dashboard types" "$bin/tsc" --noEmit -p src/web/ui
# import cycles and SQL outside a table's owner
step "architecture" "$bin/bun" scripts/check-architecture.ts

if [ ${#failed[@]} -gt 0 ]; then
  echo "lint failed: ${failed[*]}"
  exit 1
fi
echo "lint passed"
