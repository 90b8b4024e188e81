#!/usr/bin/env bash
# Installs what a generator instance runs, after host-tuning.sh and Node 22 are in place:
#   - the agent's npm dependencies (exact versions passed by the CDK stack, read from package-lock.json),
#     Artillery without its Playwright browser download
#   - the CloudWatch agent: memory, established TCP connections and open files, per generator group
#
# usage: install-generator.sh <agent-dir> <name@version>...
# Runs as root from user-data; the orchestrator later starts `node <agent-dir>/agent.js` through SSM.
set -euo pipefail

AGENT_DIR="${1:?usage: install-generator.sh <agent-dir> <name@version>...}"
shift
if [ "$#" -eq 0 ]; then
  echo "install-generator.sh: no packages given" >&2
  exit 2
fi

# --- agent dependencies -----------------------------------------------------------------------
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
cd "$AGENT_DIR"
npm install --omit=dev --no-save --no-package-lock "$@"
node -e "require.resolve('artillery/package.json')" # fails the boot early if the install is broken

# --- CloudWatch agent ---------------------------------------------------------------------------
dnf install -y amazon-cloudwatch-agent
CW_CONFIG=/opt/aws/amazon-cloudwatch-agent/etc/loadtest-rig.json
# Aggregated by AutoScalingGroupName so the dashboard shows the fleet without knowing instance ids.
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
