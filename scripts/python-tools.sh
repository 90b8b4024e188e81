#!/usr/bin/env bash
# Installs the Python tools the tests use into .venv (idempotent, quick when present):
#   cfn-lint      AWS's linter, run on every synthesized CloudFormation template
#   moto[server]  the AWS API emulator the end-to-end tests of the AWS path talk to (loopback only)
set -euo pipefail
cd "$(dirname "$0")/.."
CFN_LINT_VERSION=1.58.0
MOTO_VERSION=5.2.5
stamp=".venv/.installed-${CFN_LINT_VERSION}-${MOTO_VERSION}"
if [ -f "$stamp" ]; then exit 0; fi
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check \
  "cfn-lint==${CFN_LINT_VERSION}" "moto[server]==${MOTO_VERSION}"
touch "$stamp"
