#!/usr/bin/env bash
# Synthesizes the CDK app for every target kind (ec2, fargate, none) and for generators in two regions
# (two-regions: targetKind=ec2, generatorRegions=eu-west-2:3,us-east-1:1) into its own folder and runs
# cfn-lint on every template. Exits non-zero on any cfn-lint error (warnings are printed, not fatal)
# or if a synth fails. Offline: env-agnostic stacks, no lookups, Docker images are only staged.
#
# usage: scripts/cfn-lint.sh [kind...]        (default: ec2 fargate none two-regions)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

CFN_LINT=.venv/bin/cfn-lint
if [ ! -x "$CFN_LINT" ]; then
  echo "cfn-lint: $CFN_LINT is missing. Fix: bash scripts/python-tools.sh" >&2
  exit 2
fi

OUT_ROOT=test-artifacts/cfn-lint
kinds=("$@")
[ "${#kinds[@]}" -eq 0 ] && kinds=(ec2 fargate none two-regions)
mkdir -p "$OUT_ROOT"

# One kind: synth into its own folder, lint its templates; prints its lines, exits non-zero on a failure.
lint_kind() {
  local kind=$1 out="$OUT_ROOT/$1" rc templates
  rm -rf "$out"
  local context=(-c "targetKind=$kind")
  [ "$kind" = two-regions ] && context=(-c targetKind=ec2 -c generatorRegions=eu-west-2:3,us-east-1:1)
  if ! cdk synth --quiet -o "$out" "${context[@]}" >"$OUT_ROOT.$kind.synth.log" 2>&1; then
    echo "cfn-lint: synth failed for targetKind=$kind:" >&2
    grep -v '^npm warn' "$OUT_ROOT.$kind.synth.log" >&2
    return 1
  fi
  shopt -s nullglob
  templates=("$out"/*.template.json)
  shopt -u nullglob
  if [ "${#templates[@]}" -eq 0 ]; then
    echo "cfn-lint: no templates synthesized for targetKind=$kind" >&2
    return 1
  fi
  # W3005: CDK emits DependsOn next to Ref/GetAtt on purpose (ordering for its own providers).
  "$CFN_LINT" --ignore-checks W3005 -- "${templates[@]}"
  rc=$?
  # cfn-lint's exit code is a bit mask: 1 fatal, 2 error, 4 warning, 8 informational.
  if [ $((rc & 3)) -ne 0 ]; then
    echo "cfn-lint: errors in targetKind=$kind templates (exit $rc)" >&2
    return 1
  fi
  echo "cfn-lint: targetKind=$kind OK (${#templates[@]} templates, exit $rc)"
}

# The kinds run side by side, as many at once as this machine has cores (each synth and each cfn-lint is one
# single-threaded process); each kind's output is kept in its own file and printed in order at the end.
jobs_max=$(nproc 2>/dev/null || echo 2)
pids=()
for kind in "${kinds[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  lint_kind "$kind" >"$OUT_ROOT.$kind.out" 2>"$OUT_ROOT.$kind.err" &
  pids+=("$!")
done
status=0
for i in "${!kinds[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$OUT_ROOT.${kinds[$i]}.out"
  cat "$OUT_ROOT.${kinds[$i]}.err" >&2
done
exit $status
