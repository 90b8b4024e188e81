/**
 * moto for the AWS end-to-end test: starts `moto_server` on a free loopback port, and stands in for
 * the SSM agent — moto records SendCommand but runs nothing, so {@link FakeSsmAgent} executes each
 * dispatched command's agent on this machine, with the bundle the CLI uploaded and the bucket in moto.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { ListCommandsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { parseAgentCommand, parsePreflightCommand } from '../../scripts/platforms/aws/bundle';

export const ROOT = path.resolve(__dirname, '..', '..');
const MOTO = path.join(ROOT, '.venv', 'bin', 'moto_server');

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A running moto server. */
export interface Moto {
  readonly endpoint: string;
  /** Environment for SDK clients and child processes pointed at moto. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts moto_server and waits until it answers. */
export async function startMoto(): Promise<Moto> {
  if (!fs.existsSync(MOTO)) throw new Error(`${MOTO} missing: run \`bash scripts/python-tools.sh\` (npm test's pretest does)`);
  const port = await freePort();
  const child = spawn(MOTO, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`${endpoint}/moto-api/`);
      if (res.status < 500) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto_server did not start on ${endpoint}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** SDK client config for the test process itself. */
export function clientConfig(moto: Moto, region = 'us-east-1') {
  return { region, endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
}

/** One agent the fake SSM agent ran. */
export interface RanAgent {
  readonly commandId: string;
  readonly instanceId: string;
  readonly generator: string;
  /** The run store the command named (s3://bucket/runs/<runId>). */
  readonly store: string;
  readonly child: ChildProcess;
  exit?: number | null;
}

/**
 * Plays the SSM agent: polls ListCommands, and for each new AWS-RunShellScript command syncs the
 * run's bundle from moto's S3 into the agent home (as the command's `aws s3 sync` would) and runs
 * `node <agentHome>/agent.js --store s3://… --generator gNN` (or the preflight probe) against moto.
 */
export class FakeSsmAgent {
  readonly agents: RanAgent[] = [];
  /** Run stores of the preflight probes it ran (load-generators/lib/preflight.js, as the instance would). */
  readonly preflights: string[] = [];
  private readonly seen = new Set<string>();
  private readonly synced = new Set<string>();
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly moto: Moto,
    /** GeneratorAgentHome of the stand-in stacks; node_modules there links to the repository's. */
    private readonly agentHome: string,
    private readonly logDir: string,
    /** The region whose SSM it serves; its agents run with that region (moto serves every region on one endpoint). */
    private readonly region = 'us-east-1',
  ) {}

  /** The environment of a process on one of this region's instances. */
  private get instanceEnv(): Record<string, string> {
    return { ...this.moto.env, AWS_REGION: this.region, AWS_DEFAULT_REGION: this.region };
  }

  /** Commands requested before start() belong to earlier runs in the same moto: not this agent's. */
  private startedAt = 0;

  start(onCommand?: (agent: RanAgent) => void): void {
    this.startedAt = Date.now() - 1000;
    const ssm = new SSMClient(clientConfig(this.moto, this.region));
    const s3 = new S3Client(clientConfig(this.moto, this.region));
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      void this.tick(ssm, s3, onCommand).finally(() => (this.busy = false));
    }, 300);
  }

  private async tick(ssm: SSMClient, s3: S3Client, onCommand?: (agent: RanAgent) => void): Promise<void> {
    const res = await ssm.send(new ListCommandsCommand({})).catch(() => undefined);
    for (const cmd of res?.Commands ?? []) {
      if (!cmd.CommandId || this.seen.has(cmd.CommandId) || cmd.DocumentName !== 'AWS-RunShellScript') continue;
      if (cmd.RequestedDateTime && cmd.RequestedDateTime.getTime() < this.startedAt) continue;
      this.seen.add(cmd.CommandId);
      const probe = parsePreflightCommand(cmd.Parameters?.commands ?? []);
      if (probe) {
        await this.sync(s3, probe.bundle);
        this.preflights.push(probe.store);
        spawn(process.execPath, [path.join(this.agentHome, 'lib', 'preflight.js'), '--store', probe.store], { cwd: this.agentHome, stdio: 'ignore', env: { ...process.env, ...this.instanceEnv } });
        continue;
      }
      const parsed = parseAgentCommand(cmd.Parameters?.commands ?? []);
      if (!parsed) throw new Error(`unexpected command: ${JSON.stringify(cmd.Parameters)}`);
      await this.sync(s3, parsed.bundle);
      const log = fs.openSync(path.join(this.logDir, `${parsed.generator}.log`), 'a');
      // The command's own exports the agent reads (the secrets path), as the instance's shell would set them.
      const secretsPath = /export RIG_SECRETS_SSM_PATH='([^']*)'/.exec((cmd.Parameters?.commands ?? []).join('\n'))?.[1];
      const child = spawn(process.execPath, [path.join(this.agentHome, 'agent.js'), '--store', parsed.store, '--generator', parsed.generator], {
        cwd: this.agentHome,
        stdio: ['ignore', log, log],
        env: { ...process.env, ...this.instanceEnv, ...(secretsPath ? { RIG_SECRETS_SSM_PATH: secretsPath } : {}) },
      });
      fs.closeSync(log);
      const agent: RanAgent = { commandId: cmd.CommandId, instanceId: cmd.InstanceIds?.[0] ?? '?', generator: parsed.generator, store: parsed.store, child };
      child.on('exit', (code) => (agent.exit = code));
      this.agents.push(agent);
      onCommand?.(agent);
    }
  }

  /** The run's bundle into the agent home, once (what the command's `aws s3 sync` does). */
  private async sync(s3: S3Client, bundle: string): Promise<void> {
    if (this.synced.has(bundle)) return;
    await syncPrefix(s3, bundle, this.agentHome);
    if (!fs.existsSync(path.join(this.agentHome, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(this.agentHome, 'node_modules'), 'dir');
    this.synced.add(bundle);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all(
      this.agents.map(
        (a) =>
          new Promise<void>((resolve) => {
            if (a.child.exitCode !== null || a.child.signalCode !== null) return resolve();
            a.child.once('exit', () => resolve());
            a.child.kill('SIGTERM');
            setTimeout(() => a.child.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
  }
}

/** Copies every object under an s3:// prefix into a folder (what `aws s3 sync` does on the instance). */
export async function syncPrefix(s3: S3Client, url: string, dir: string): Promise<number> {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(url);
  if (!m) throw new Error(`not an s3 URL: ${url}`);
  const [, bucket, prefix] = m as unknown as [string, string, string];
  let n = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) {
      if (!o.Key) continue;
      const file = path.join(dir, o.Key.slice(prefix.length));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const obj = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key }));
      fs.writeFileSync(file, Buffer.from(await (obj.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()));
      n++;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return n;
}
