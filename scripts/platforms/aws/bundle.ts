/**
 * The scenario bundle of one run: load-generators/ (without node_modules) and, for a user's own
 * scenario, its folder — uploaded to `s3://<bucket>/runs/<runId>/bundle/`. The command each generator
 * runs syncs the bundle onto the instance and starts the agent from GeneratorAgentHome, where the
 * boot installed its node_modules. Paths on the instance are POSIX.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BOOT_MARKER, BOOT_STEP_PREFIX } from '../../../lib/instance-paths';
import { generatorKeys } from '../../../load-generators/lib/run-protocol';
import type { AwsApi } from './clients';

/**
 * Paths never shipped: installed dependencies, hidden files and folders (`.git`, `.env`, `.venv`, and in a home
 * folder `.ssh` and `.aws`: never copied into a bucket), the CDK's `cdk.out`, logs. A rig run folder (one holding
 * run.json) is left out too, by {@link walk}.
 */
const EXCLUDED = (rel: string): boolean => rel.split('/').some((part) => part === 'node_modules' || part.startsWith('.') || part === 'cdk.out') || rel.endsWith('.log');

/** What ships is said in one place: docs/aws-run.md "What ships to the generators". */
export const LEFT_OUT = 'node_modules, hidden files and folders, cdk.out, run folders and *.log stay here';

/** A scenario folder shipping more than this is refused before anything starts (it goes to every generator). */
export const SCENARIO_FOLDER_LIMITS = { files: 2000, bytes: 500 * 1024 * 1024 } as const;

/** One file of the bundle: where it is here and its key under the bundle prefix. */
export interface BundleFile {
  readonly local: string;
  readonly key: string;
}

/** Where the run's scenario folder lives on an instance, and whether it ships separately. */
export interface InstanceLayout {
  /** The scenario folder the agents resolve processors and payloads against (the slice's scriptDir). */
  readonly scriptDir: string;
  /** True when the scenario is outside load-generators/ and ships as bundle/scenario/. */
  readonly separateScenario: boolean;
}

/** S3 key prefix of a run (the run store's prefix). */
export function runPrefix(runId: string): string {
  return `runs/${runId}`;
}

/** The instance-side scenario folder for a local scenario folder. */
export function instanceLayout(opts: { readonly root: string; readonly scenarioDir: string; readonly agentHome: string; readonly runId: string }): InstanceLayout {
  const agentDir = path.join(opts.root, 'load-generators');
  if (shippedFolder(opts.root, opts.scenarioDir) === agentDir) {
    const rel = path.relative(agentDir, path.resolve(opts.scenarioDir));
    return { scriptDir: path.posix.join(opts.agentHome, ...rel.split(path.sep).filter(Boolean)), separateScenario: false };
  }
  return { scriptDir: path.posix.join(path.posix.dirname(opts.agentHome), 'runs', opts.runId, 'scenario'), separateScenario: true };
}

/** `file`'s path inside `dir` with forward slashes, or undefined when it is not inside (or is `dir` itself). */
function inside(dir: string, file: string): string | undefined {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : undefined;
}

/** The folder that ships with a scenario: load-generators/ for one inside it (a built-in), else the scenario's own. */
export function shippedFolder(root: string, scenarioDir: string): string {
  const agentDir = path.join(root, 'load-generators');
  const dir = path.resolve(scenarioDir);
  return dir === agentDir || inside(agentDir, dir) !== undefined ? agentDir : dir;
}

/**
 * Why a file would not reach the generators where the run's script finds it, or undefined when it does: it must lie
 * inside the folder that ships with the scenario (its own folder, or load-generators/ when it lies there) and not
 * be left out ({@link EXCLUDED}). A relative path from the script to anything else names nothing on the instance.
 */
export function notShipped(root: string, scenarioDir: string): (file: string) => 'outside' | 'left out' | undefined {
  // Compared by real path: Node reports what a processor loads by its real path, and the script's folder may be
  // reached through a symlink (a linked home or project folder; macOS's /var and /tmp).
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const base = real(shippedFolder(root, scenarioDir));
  return (file) => {
    const rel = inside(base, real(file));
    if (rel === undefined) return 'outside';
    return EXCLUDED(rel) ? 'left out' : undefined;
  };
}

/** A folder the rig wrote for a run (its run.json): never part of a scenario. */
const isRunFolder = (dir: string): boolean => fs.existsSync(path.join(dir, 'run.json'));

/**
 * The bundle's files under `dir`. `budget`, when given, stops the walk once either limit is passed (the check
 * before a run must not read a whole home folder to refuse it).
 */
function walk(dir: string, base: string, out: BundleFile[], prefix: string, budget?: { files: number; bytes: number }): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (budget && (budget.files < 0 || budget.bytes < 0)) return;
    const abs = path.join(dir, e.name);
    const rel = path.relative(base, abs).split(path.sep).join('/');
    if (EXCLUDED(rel)) continue;
    if (e.isDirectory()) {
      if (!isRunFolder(abs)) walk(abs, base, out, prefix, budget);
    } else if (e.isFile()) {
      out.push({ local: abs, key: `${prefix}${rel}` });
      if (budget) {
        budget.files -= 1;
        budget.bytes -= fs.statSync(abs).size;
      }
    }
  }
}

/**
 * Why a user's scenario folder cannot ship, or undefined: it is the home folder or the filesystem's root, or holds
 * more than {@link SCENARIO_FOLDER_LIMITS} (every generator would download all of it at every run).
 */
export function scenarioFolderProblem(dir: string, home: string): string | undefined {
  const abs = path.resolve(dir);
  const own = `put the script, its processor and payloads in a folder of their own`;
  if (abs === path.parse(abs).root || abs === path.resolve(home)) {
    return `${dir} is ${abs === path.resolve(home) ? 'your home folder' : 'the filesystem root'}, and a script's whole folder ships to the AWS generators; ${own}`;
  }
  const budget = { files: SCENARIO_FOLDER_LIMITS.files, bytes: SCENARIO_FOLDER_LIMITS.bytes };
  walk(abs, abs, [], '', budget);
  if (budget.files >= 0 && budget.bytes >= 0) return undefined;
  const what = budget.files < 0 ? `more than ${SCENARIO_FOLDER_LIMITS.files.toLocaleString('en-US')} files` : `more than ${SCENARIO_FOLDER_LIMITS.bytes / 1024 / 1024} MB`;
  return `the script's folder ${dir} holds ${what} (${LEFT_OUT}), and all of it ships to every AWS generator; ${own}`;
}

/** Every file of the bundle, sorted by key. */
export function bundleFiles(opts: { readonly root: string; readonly scenarioDir: string; readonly separateScenario: boolean }): BundleFile[] {
  const out: BundleFile[] = [];
  const agentDir = path.join(opts.root, 'load-generators');
  walk(agentDir, agentDir, out, 'load-generators/');
  if (opts.separateScenario) walk(opts.scenarioDir, opts.scenarioDir, out, 'scenario/');
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** Uploads the bundle under `runs/<runId>/bundle/`; returns the number of files. */
export async function uploadBundle(api: AwsApi, bucket: string, runId: string, files: readonly BundleFile[]): Promise<number> {
  const prefix = `${runPrefix(runId)}/bundle/`;
  // A few uploads at a time: the bundle is a few dozen small files.
  const queue = [...files];
  const worker = async (): Promise<void> => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      await api.putObject({ Bucket: bucket, Key: `${prefix}${f.key}`, Body: fs.readFileSync(f.local) });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return files.length;
}

/** Single-quotes a value for the shell. */
export function shq(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** What the command dispatched to one generator needs. */
export interface AgentCommandProps {
  readonly bucket: string;
  readonly runId: string;
  readonly generatorId: string;
  readonly agentHome: string;
  readonly region: string;
  readonly layout: InstanceLayout;
  /**
   * `--max-old-space-size` of the agent's load processes (they inherit NODE_OPTIONS), MiB.
   * @default Node's own default (about a quarter of a small instance's memory)
   */
  readonly heapLimitMiB?: number;
}

/**
 * Bytes of the agent's (or the probe's) log tail a failed command writes to stderr: under SSM's 8,000 inline characters
 * with room for the few other lines the command may write before it (a failed `aws s3 cp` of the log).
 */
export const AGENT_LOG_TAIL_BYTES = 7000;

/**
 * The line that writes a log's last 20 lines to stderr, cut to their last {@link AGENT_LOG_TAIL_BYTES} bytes: SSM
 * returns only the first 8,000 characters of stderr inline (fleet-context.ts SSM_INLINE_STDERR_CHARS), so the command
 * keeps the end of them (one long line, a bundled processor's source in a stack trace, would otherwise push the reason
 * out). When the cut cuts, its first line is partial and may begin inside a UTF-8 character: it is dropped, unless it
 * is the only line.
 */
function stderrTail(log: string): string {
  const tail = `tail -n 20 ${shq(log)}`;
  return `if [ "$(${tail} | wc -c)" -gt ${AGENT_LOG_TAIL_BYTES} ]; then ${tail} | tail -c ${AGENT_LOG_TAIL_BYTES} | awk 'NR == 1 { first = $0; next } { print; kept = 1 } END { if (!kept) print first }'; else ${tail}; fi >&2`;
}

/** Where scenario secrets live in SSM Parameter Store (the generator role may read only this path). */
export const SECRETS_SSM_PATH = '/loadtest-rig/secrets/';

/**
 * The AWS-RunShellScript lines for one generator: wait for the boot to finish, sync the bundle,
 * run the agent against the S3 run store, ship its log next to its data, exit with its code.
 */
export function agentCommand(p: AgentCommandProps): string[] {
  const s3Run = `s3://${p.bucket}/${runPrefix(p.runId)}`;
  const log = `/tmp/loadtest-rig-${p.runId}-${p.generatorId}.log`;
  return [
    ...commandPreamble(p),
    // Scenario secrets (SecureString under this path) reach the load processes as RIG_SECRET_* variables.
    `export RIG_SECRETS_SSM_PATH=${shq(SECRETS_SSM_PATH)}`,
    ...(p.layout.separateScenario
      ? [
          `aws s3 sync --only-show-errors ${shq(`${s3Run}/bundle/scenario/`)} ${shq(`${p.layout.scriptDir}/`)} || exit 3`,
          // The agent's packages beside the scenario folder: Node looks for a bare `import`/`require` in the
          // node_modules of each parent folder, and ESM never reads NODE_PATH (nodejs.org/api/esm.html, "No
          // NODE_PATH"); esbuild, bundling a TypeScript processor, looks the same way.
          `ln -sfn ${shq(`${p.agentHome}/node_modules`)} ${shq(`${path.posix.dirname(p.layout.scriptDir)}/node_modules`)} || exit 3`,
        ]
      : []),
    // The load processes inherit NODE_OPTIONS: each may grow its heap to its planned share of the memory.
    ...(p.heapLimitMiB ? [`export NODE_OPTIONS=--max-old-space-size=${Math.floor(p.heapLimitMiB)}`] : []),
    // NODE_PATH lets a user's processors require the packages installed next to the agent.
    `NODE_PATH=${shq(`${p.agentHome}/node_modules`)} node ${shq(`${p.agentHome}/agent.js`)} --store ${shq(s3Run)} --generator ${shq(p.generatorId)} > ${shq(log)} 2>&1`,
    'code=$?',
    `aws s3 cp --only-show-errors ${shq(log)} ${shq(`${s3Run}/${generatorKeys(p.generatorId).agentLog}`)} || true`,
    // The log's last lines are the command's failure text.
    stderrTail(log),
    'exit $code',
  ];
}

/**
 * The lines every command starts with: environment, wait for the boot, sync the agent bundle.
 * `cloud-init status --wait` exits 2 for "done, with warnings" (cloud-init 23.4+: a deprecated key, a module's
 * warning) — not a failed boot; the rig's own marker, written after the install, is what decides.
 */
function commandPreamble(p: { readonly bucket: string; readonly runId: string; readonly agentHome: string; readonly region: string }): string[] {
  const s3Run = `s3://${p.bucket}/${runPrefix(p.runId)}`;
  return [
    'set -uo pipefail',
    'export PATH=/usr/local/bin:$PATH',
    `export AWS_REGION=${shq(p.region)} AWS_DEFAULT_REGION=${shq(p.region)} RIG_RUN_ID=${shq(p.runId)}`,
    // SSM can register before user-data has installed Node and the agent: wait for the boot.
    `if command -v cloud-init >/dev/null 2>&1; then cloud-init status --wait >/dev/null; boot=$?; if [ "$boot" -ne 0 ] && [ ! -f ${BOOT_MARKER} ]; then echo "generator boot (user-data) failed (cloud-init status $boot): $(grep -h '^${BOOT_STEP_PREFIX}' /var/log/loadtest-rig-user-data.log 2>/dev/null | tail -n 1) — see /var/log/loadtest-rig-user-data.log" >&2; exit 3; fi; fi`,
    `aws s3 sync --only-show-errors ${shq(`${s3Run}/bundle/load-generators/`)} ${shq(`${p.agentHome}/`)} || exit 3`,
    `cd ${shq(p.agentHome)} || exit 3`,
  ];
}

/**
 * The AWS-RunShellScript lines of the preflight probe on the first ready generator: the same preamble as an
 * agent's command, then load-generators/lib/preflight.js against the run store (spec in, result out).
 */
export function preflightCommand(p: { readonly bucket: string; readonly runId: string; readonly agentHome: string; readonly region: string }): string[] {
  const s3Run = `s3://${p.bucket}/${runPrefix(p.runId)}`;
  const log = `/tmp/loadtest-rig-${p.runId}-preflight.log`;
  return [
    ...commandPreamble(p),
    // The probe sends the built-in flow's token (RIG_SECRET_AUTH_TOKEN) when the secrets path holds one.
    `export RIG_SECRETS_SSM_PATH=${shq(SECRETS_SSM_PATH)}`,
    // Its stderr whole beside SSM's output (the failure line points there), its end as the command's stderr.
    `NODE_PATH=${shq(`${p.agentHome}/node_modules`)} node ${shq(`${p.agentHome}/lib/preflight.js`)} --store ${shq(s3Run)} 2> ${shq(log)}`,
    'code=$?',
    `aws s3 cp --only-show-errors ${shq(log)} ${shq(`${s3Run}/ssm/preflight/preflight-stderr.log`)} || true`,
    stderrTail(log),
    'exit $code',
  ];
}

/** Reads the store URL and bundle back out of a dispatched preflight command (the e2e test's SSM stand-in). */
export function parsePreflightCommand(lines: readonly string[]): { store: string; bundle: string } | undefined {
  const text = lines.join('\n');
  const store = /lib\/preflight\.js' --store '([^']+)'/.exec(text)?.[1];
  const bundle = /aws s3 sync --only-show-errors '([^']+\/bundle\/load-generators\/)'/.exec(text)?.[1];
  return store && bundle ? { store, bundle } : undefined;
}

/** Reads the store URL and generator id back out of a dispatched command (the e2e test's SSM stand-in uses it). */
export function parseAgentCommand(lines: readonly string[]): { store: string; generator: string; bundle: string; scenarioDir?: string } | undefined {
  const text = lines.join('\n');
  const store = /--store '([^']+)'/.exec(text)?.[1];
  const generator = /--generator '([^']+)'/.exec(text)?.[1];
  const bundle = /aws s3 sync --only-show-errors '([^']+\/bundle\/load-generators\/)'/.exec(text)?.[1];
  const scenario = /aws s3 sync --only-show-errors '[^']+\/bundle\/scenario\/' '([^']+)\/'/.exec(text)?.[1];
  if (!store || !generator || !bundle) return undefined;
  return { store, generator, bundle, ...(scenario ? { scenarioDir: scenario } : {}) };
}
