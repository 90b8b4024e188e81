#!/usr/bin/env bash
# Installs what a generator instance runs, after host-tuning.sh and Node 22 are in place:
#   - the agent's npm dependencies with `npm ci`: the exact tree of <agent-dir>/package-lock.json, cut by the
#     CDK app from the repository's own lockfile (lib/agent-lockfile.ts), every tarball integrity-checked;
#     Artillery without its Playwright browser download
#   - the CloudWatch agent: memory, established TCP connections and open files, per generator group; the installed
#     build of it (and of ethtool) is recorded in <agent-dir>/os-packages.txt (record-os-packages.sh)
# Network steps are retried with exponential backoff (a registry or mirror hiccup must not fail a boot).
#
# usage: install-generator.sh <agent-dir>
# Runs as root from user-data; the orchestrator later starts `node <agent-dir>/agent.js` through SSM.
set -euo pipefail

AGENT_DIR="${1:?usage: install-generator.sh <agent-dir>}"
if [ ! -f "$AGENT_DIR/package-lock.json" ] || [ ! -f "$AGENT_DIR/package.json" ]; then
  echo "install-generator.sh: $AGENT_DIR has no package.json + package-lock.json (the AgentDependencies asset)" >&2
  exit 2
fi

# retry <attempts> <command...>: reruns a failing command after 2, 4, 8 … seconds.
retry() {
  local attempts=$1 n=1 delay=2
  shift
  until "$@"; do
    if [ "$n" -ge "$attempts" ]; then
      echo "install-generator.sh: failed after $n attempts: $*" >&2
      return 1
    fi
    echo "install-generator.sh: attempt $n failed: $*; retrying in ${delay}s" >&2
    sleep "$delay"
    n=$((n + 1))
    delay=$((delay * 2))
  done
}

# --- agent dependencies -----------------------------------------------------------------------
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
cd "$AGENT_DIR"
retry 5 npm ci --omit=dev
node -e "require.resolve('artillery/package.json')" # fails the boot early if the install is broken

# --- CloudWatch agent; ethtool for the ENA network-allowance counters the health samples read ------------
retry 5 dnf install -y amazon-cloudwatch-agent ethtool
# Unpinned (the AMI's locked repository decides the build): record which build this instance got.
bash "$(dirname "$0")/record-os-packages.sh" "$AGENT_DIR" amazon-cloudwatch-agent ethtool
CW_CONFIG=/opt/aws/amazon-cloudwatch-agent/etc/loadtest-rig.json
# Aggregated by AutoScalingGroupName so the dashboard shows the fleet without knowing instance ids.
# The dashboard and the report read only that rollup, which has exactly {AutoScalingGroupName}: per instance,
# StatsD's open_files also carries the agent's metric_type dimension (test/cdk/cwagent-dimensions.test.ts).
cat > "$CW_CONFIG" <<'EOF'
{
  "agent": { "metrics_collection_interval": 60, "run_as_user": "root" },
  "metrics": {
    "namespace": "CWAgent",
    "append_dimensions": { "AutoScalingGroupName": "${aws:AutoScalingGroupName}", "InstanceId": "${aws:InstanceId}" },
    "aggregation_dimensions": [["AutoScalingGroupName"]],
    "metrics_collected": {
      "mem": { "measurement": ["mem_used_percent"] },
      "netstat": { "measurement": ["tcp_established", "tcp_time_wait"] },
      "statsd": { "service_address": "127.0.0.1:8125", "metrics_collection_interval": 10, "metrics_aggregation_interval": 60 }
    }
  }
}
EOF

# Open files: the agent has no system-wide file-handle measurement, so a tiny loop feeds the
# allocated-handle count from /proc/sys/fs/file-nr into the agent's StatsD listener.
cat > /etc/systemd/system/loadtest-rig-open-files.service <<'EOF'
[Unit]
Description=loadtest-rig: report allocated file handles to the CloudWatch agent (StatsD)
After=amazon-cloudwatch-agent.service

[Service]
ExecStart=/bin/bash -c 'while sleep 10; do read -r used _ _ < /proc/sys/fs/file-nr; echo "open_files:$used|g" > /dev/udp/127.0.0.1/8125 || true; done'
Restart=always

[Install]
WantedBy=multi-user.target
EOF

/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -c "file:$CW_CONFIG" -s
systemctl daemon-reload
systemctl enable --now loadtest-rig-open-files.service
echo "install-generator: ready in $AGENT_DIR"
