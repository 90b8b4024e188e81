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
status=0
for kind in "${kinds[@]}"; do
  out="$OUT_ROOT/$kind"
  rm -rf "$out"
  context=(-c "targetKind=$kind")
  [ "$kind" = two-regions ] && context=(-c targetKind=ec2 -c generatorRegions=eu-west-2:3,us-east-1:1)
  if ! cdk synth --quiet -o "$out" "${context[@]}" >"$OUT_ROOT.$kind.synth.log" 2>&1; then
    echo "cfn-lint: synth failed for targetKind=$kind:" >&2
    grep -v '^npm warn' "$OUT_ROOT.$kind.synth.log" >&2
    status=1
    continue
  fi
  shopt -s nullglob
  templates=("$out"/*.template.json)
  shopt -u nullglob
  if [ "${#templates[@]}" -eq 0 ]; then
    echo "cfn-lint: no templates synthesized for targetKind=$kind" >&2
    status=1
    continue
  fi
  # W3005: CDK emits DependsOn next to Ref/GetAtt on purpose (ordering for its own providers).
  "$CFN_LINT" --ignore-checks W3005 -- "${templates[@]}"
  rc=$?
  # cfn-lint's exit code is a bit mask: 1 fatal, 2 error, 4 warning, 8 informational.
  if [ $((rc & 3)) -ne 0 ]; then
    echo "cfn-lint: errors in targetKind=$kind templates (exit $rc)" >&2
    status=1
  else
    echo "cfn-lint: targetKind=$kind OK (${#templates[@]} templates, exit $rc)"
  fi
done
exit $status
