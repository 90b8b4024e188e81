#!/usr/bin/env bash
# Records which build of each OS package the boot installed, for packages installed without a version (their versions
# are the AMI's repository's: docs/aws-deploy.md, "Generator boot"). Writes <agent-dir>/os-packages.txt, one
# `<name> <version>-<release>.<arch>` a line (rpm's own fields), and prints each into the user-data log. The agent
# copies them into every run's generators/<id>/ready.json (`osPackages`), so a run on a changed CloudWatch agent can be
# told apart. It never fails the boot: a package rpm does not know is left out of the file.
#
# usage: record-os-packages.sh <agent-dir> <package>...
set -uo pipefail

AGENT_DIR="${1:?usage: record-os-packages.sh <agent-dir> <package>...}"
shift
OUT="$AGENT_DIR/os-packages.txt"
# rpm prints "package X is not installed" on stdout (and exits 1) for a package it does not know.
rpm -q --queryformat '%{NAME} %{VERSION}-%{RELEASE}.%{ARCH}\n' "$@" | grep -v ' is not installed$' > "$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
sed 's/^/install-generator: installed /' "$OUT"
exit 0
