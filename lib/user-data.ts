import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';

/** Repository root, resolved from this file so synth works from any working directory. */
export const REPO_ROOT = path.resolve(__dirname, '..');

/** The one host-tuning script (sysctls, nofile limits); generators and EC2 targets both run it. */
export const HOST_TUNING_SCRIPT = path.join(REPO_ROOT, 'load-generators', 'host-tuning.sh');

import { Lockfile, agentTree } from './agent-lockfile';
import { BOOT_MARKER, BOOT_STEP_PREFIX, RIG_HOME } from './instance-paths';

export { RIG_HOME };

/** The user-data line that names the boot step about to run (the SSM command reports the last one on failure). */
export function bootStep(name: string): string {
  return `echo ${JSON.stringify(`${BOOT_STEP_PREFIX} ${name}`)}`;
}

/** The user-data line that marks the boot finished: the last line, reached only when every step succeeded. */
export function bootFinished(): string {
  return `date -u +%FT%TZ > ${BOOT_MARKER}`;
}

/**
 * Node.js version installed on instances: the same Node 22 the repository pins (`node` devDependency),
 * so generators run the agent on the Node it was tested with.
 */
export function pinnedNodeVersion(): string {
  const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { version?: string }>;
  };
  const v = lock.packages?.['node_modules/node']?.version;
  if (!v || !v.startsWith('22.')) {
    throw new Error(`package-lock.json pins node ${String(v)}; the rig installs Node 22 on instances. Fix: npm install --save-exact --save-dev node@22`);
  }
  return v;
}

/**
 * Writes the agent's exact npm tree (package.json + package-lock.json, lib/agent-lockfile.ts) for `names` into a
 * folder named by its content's hash and returns it (an asset source: its hash follows the content, so synths are
 * reproducible). The asset is copied from it when the app synthesizes, after this returns, so it cannot be removed
 * here; named by content, every synth of the same tree reuses one folder instead of leaving a new one behind
 * (a fresh mkdtemp per synth left one folder in the temp directory per `cdk synth`/`deploy`).
 */
export function writeAgentTree(names: readonly string[]): string {
  const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
  const tree = agentTree(lock, names);
  const files = { 'package.json': `${JSON.stringify(tree.packageJson, null, 2)}\n`, 'package-lock.json': `${JSON.stringify(tree.packageLock, null, 2)}\n` };
  const hash = crypto.createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `loadtest-rig-agent-tree-${hash}`);
  fs.mkdirSync(dir, { recursive: true });
  // Written each time (same content), each file renamed into place: a folder a crash left half-written is completed,
  // and a synth running beside this one never reads a file while it is being written.
  for (const [name, text] of Object.entries(files)) {
    const partial = path.join(dir, `.${name}.${process.pid}.tmp`);
    fs.writeFileSync(partial, text);
    fs.renameSync(partial, path.join(dir, name));
  }
  return dir;
}

/**
 * Shell lines that install Node from the official tarball, checksum-verified, into /usr/local.
 * The tarball rather than dnf because Amazon Linux's nodejs22 package installs as `node-22`
 * and its minor version drifts; we want exactly the repository's version as plain `node`.
 */
export function installNodeCommands(version: string): string[] {
  return [
    `NODE_VERSION=${version}`,
    'case "$(uname -m)" in x86_64) NODE_ARCH=x64 ;; aarch64) NODE_ARCH=arm64 ;; *) echo "unsupported arch $(uname -m)" >&2; exit 1 ;; esac',
    'NODE_TGZ="node-v${NODE_VERSION}-linux-${NODE_ARCH}.tar.xz"',
    'cd /tmp && curl -fsSLO --retry 6 --retry-all-errors --retry-max-time 300 "https://nodejs.org/dist/v${NODE_VERSION}/${NODE_TGZ}" && curl -fsSLO --retry 6 --retry-all-errors --retry-max-time 300 "https://nodejs.org/dist/v${NODE_VERSION}/SHASUMS256.txt"',
    'grep " ${NODE_TGZ}$" SHASUMS256.txt | sha256sum -c -',
    'tar -xJf "${NODE_TGZ}" -C /usr/local --strip-components=1 --no-same-owner',
    'node --version',
  ];
}

/**
 * Adds user-data lines that download the host-tuning script as an S3 asset and run it.
 * The script itself is the single source of the tuning; user-data never copies its contents.
 */
export function addHostTuning(scope: Construct, userData: ec2.UserData, grantee: { grantPrincipal: import('aws-cdk-lib/aws-iam').IPrincipal }): void {
  const asset = new s3assets.Asset(scope, 'HostTuningScript', { path: HOST_TUNING_SCRIPT });
  asset.grantRead(grantee);
  const local = userData.addS3DownloadCommand({
    bucket: asset.bucket,
    bucketKey: asset.s3ObjectKey,
    localFile: `${RIG_HOME}/host-tuning.sh`,
    // The bucket's regional endpoint, which the VPC's S3 gateway endpoint carries (lib/instance-launch-check.ts).
    region: Stack.of(scope).region,
  });
  userData.addCommands(`bash ${local}`);
}

/**
 * `retry <attempts> <command…>`: reruns a failing command after 2, 4, 8 … seconds, as install-generator.sh does for
 * npm and dnf; under `set -e` the boot fails only once the last attempt has.
 */
export const RETRY_FUNCTION =
  'retry() { local attempts=$1 n=1 delay=2; shift; until "$@"; do if [ "$n" -ge "$attempts" ]; then echo "user-data: failed after $n attempts: $*" >&2; return 1; fi; echo "user-data: attempt $n failed: $*; retrying in ${delay}s" >&2; sleep "$delay"; n=$((n + 1)); delay=$((delay * 2)); done; }';

/** Shell lines common to the start of every rig user-data: fail fast and log to the console. */
export function userDataPreamble(): string[] {
  return [
    'set -euxo pipefail',
    // cloud-init output reaches the EC2 console log, which is where a failed boot is debugged.
    'exec > >(tee -a /var/log/loadtest-rig-user-data.log) 2>&1',
    `mkdir -p ${RIG_HOME}`,
    RETRY_FUNCTION,
    // A mirror hiccup must not fail the boot at its first network step (the later ones are retried too).
    'retry 5 dnf install -y unzip tar xz',
  ];
}

/**
 * The Amazon Linux CPU type for an instance type: arm64 for Graviton types, x86_64 for the rest.
 * @throws Error naming the type for an architecture the rig has no image and Node build for.
 */
export function amazonLinuxCpuType(instanceType: ec2.InstanceType): ec2.AmazonLinuxCpuType {
  const arch = instanceType.architecture;
  if (arch === ec2.InstanceArchitecture.ARM_64) return ec2.AmazonLinuxCpuType.ARM_64;
  if (arch === ec2.InstanceArchitecture.X86_64) return ec2.AmazonLinuxCpuType.X86_64;
  throw new Error(`instance type ${instanceType.toString()} has architecture ${String(arch)}; the rig installs Amazon Linux 2023 and Node for x86_64 or arm64 only`);
}
