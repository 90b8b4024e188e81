#!/usr/bin/env bash
# Host tuning for generators (and the EC2 target): the ONE place these limits live.
# User-data downloads this file as an S3 asset and runs it; nothing copies its contents.
#
# Why each setting:
#   nofile 65536           every WebSocket is a file descriptor; the default 1024 caps a generator at ~1k vusers
#   ip_local_port_range    1024-65535 gives ~64k ephemeral ports per (source, destination:port) instead of 28,232
#   tcp_tw_reuse           reuse TIME_WAIT ports for new outbound connections during reconnect storms
#   somaxconn/syn backlog  the target's accept queue must absorb ramp bursts without dropping SYNs
#   fs.file-max/nr_open    system-wide and per-process ceilings above the per-process nofile we ask for
#
# LOADTEST_RIG_ROOT=<dir> writes the files under <dir> and applies nothing (used by the tests).
set -euo pipefail

ROOT="${LOADTEST_RIG_ROOT:-}"
NOFILE=65536

mkdir -p "$ROOT/etc/sysctl.d" "$ROOT/etc/security/limits.d" \
  "$ROOT/etc/systemd/system.conf.d" "$ROOT/etc/systemd/system/amazon-ssm-agent.service.d"

cat > "$ROOT/etc/sysctl.d/90-loadtest-rig.conf" <<'EOF'
net.ipv4.ip_local_port_range = 1024 65535
net.ipv4.tcp_tw_reuse = 1
net.core.somaxconn = 65535
net.ipv4.tcp_max_syn_backlog = 65535
net.core.netdev_max_backlog = 65535
fs.file-max = 2097152
fs.nr_open = 2097152
EOF

# Login shells (an operator on Session Manager running Artillery by hand).
cat > "$ROOT/etc/security/limits.d/90-loadtest-rig.conf" <<EOF
*    soft nofile $NOFILE
*    hard nofile $NOFILE
root soft nofile $NOFILE
root hard nofile $NOFILE
EOF

# Services: limits.conf does not apply to systemd units. SSM Run Command starts the agent as a
# child of amazon-ssm-agent, so that unit's limit is the one the agent actually inherits.
cat > "$ROOT/etc/systemd/system.conf.d/90-loadtest-rig.conf" <<EOF
[Manager]
DefaultLimitNOFILE=$NOFILE
EOF
cat > "$ROOT/etc/systemd/system/amazon-ssm-agent.service.d/90-loadtest-rig.conf" <<EOF
[Service]
LimitNOFILE=$NOFILE
EOF

if [ -n "$ROOT" ]; then
  exit 0
fi

sysctl --system >/dev/null
systemctl daemon-reexec
# Restart (not reload) so the running agent picks up the new limit; --no-block because user-data
# may itself be running under an SSM-started shell on re-runs.
if systemctl is-enabled --quiet amazon-ssm-agent 2>/dev/null; then
  systemctl restart --no-block amazon-ssm-agent
fi
echo "host-tuning: applied (nofile=$NOFILE, ports 1024-65535)"
