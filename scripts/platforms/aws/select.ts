/**
 * Platform selection for the CLI: `--platform` when given, else aws when the rig's stacks are
 * deployed, else local; the AWS platform built over the discovered outputs. The CLI hands in its
 * environment once; nothing below reads process.env.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { capacityPerGenerator } from '../../core/capacity';
import { UsageError } from '../../errors';
import { redactUrl } from '../../core/redact';
import { RunOptions, parsePositiveInt, refuseAwsOnlyFlags } from '../../options';
import type { DeployedGenerator, InstanceSpec } from '../../core/capacity-model';
import type { Platform } from '../platform';
import type * as Aws from './aws';
import type * as Clients from './clients';
import type * as MultiRegion from './multi-region';
import { describeInstanceType } from './instance-types';
import { choosePlatform } from './discovery';
import type { RigOutputs } from './discovery';
import type { Lockfile } from '../../../lib/agent-lockfile';
import type { ArtilleryScript } from '../../scenario';
import { ScriptFiles, assertEnvOnGenerators, assertGeneratorsHaveModules, assertScriptShips, generatorModuleFinder, generatorPackageFinder } from '../../generator-modules';
import { notShipped, scenarioFolderProblem, shippedFolder } from './bundle';
import { artilleryPluginFinder, bundledInArtillery } from '../../script-check';
import { assertNoBrowserOnAws } from '../../browser';

/** The outputs file `npm run deploy` writes (package.json `deploy`). */
export const OUTPUTS_FILE = 'cdk-outputs.json';

/** True when AWS credentials look configured (env, profile files, container/web identity). */
export function credentialsHinted(env: NodeJS.ProcessEnv, home = os.homedir()): boolean {
  if (env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE || env.AWS_WEB_IDENTITY_TOKEN_FILE || env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) return true;
  return ['credentials', 'config'].some((f) => fs.existsSync(path.join(env.AWS_SHARED_CREDENTIALS_FILE && f === 'credentials' ? path.dirname(env.AWS_SHARED_CREDENTIALS_FILE) : path.join(home, '.aws'), f)));
}

/** Parses `--generator-capacity`: vusers one generator holds. */
export function parseGeneratorCapacity(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parsePositiveInt('--generator-capacity', value, 1_000_000, '48000');
}

/** What the CLI passes in. */
export interface SelectProps {
  readonly root: string;
  readonly options: RunOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
  readonly generatorCapacity?: number;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  /** Builds the local platform (the CLI's existing wiring). */
  readonly local: () => Platform;
  /**
   * Whether every address `url` resolves to is private (inside the VPC).
   * @default a DNS lookup from this machine (load-generators/lib/source-addresses.js), false after 5 s
   */
  readonly targetIsPrivate?: (url: string) => Promise<boolean>;
  /**
   * The generator instance type as EC2 describes it.
   * @default EC2 DescribeInstanceTypes (scripts/platforms/aws/instance-types.ts)
   */
  readonly describeInstanceType?: (api: Clients.AwsApi, instanceType: string, log: (line: string) => void) => Promise<InstanceSpec | undefined>;
  /** The run's script (flags applied): its engines and plugins must be on the generators. */
  readonly script?: ArtilleryScript;
  /** A user's script: the files it names and its processor loads must reach the generators too. */
  readonly scriptFiles?: ScriptFiles;
}

/**
 * The AWS platform and SDK clients, loaded only once AWS is chosen: a local run (no outputs file, no
 * credentials) then decides without loading the AWS SDK, ~0.3 s of CPU at every start.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const awsModule = () => require('./aws') as typeof Aws;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const clientsModule = () => require('./clients') as typeof Clients;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const multiRegionModule = () => require('./multi-region') as typeof MultiRegion;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sourceAddresses = require('../../../load-generators/lib/source-addresses') as { targetIsPrivate(target: string): Promise<boolean> };

/** The agents' own test (private addresses only), from here, bounded: an unanswered lookup counts as public. */
function lookUpTargetIsPrivate(url: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 5000);
  });
  return Promise.race([sourceAddresses.targetIsPrivate(url), timeout]).finally(() => clearTimeout(timer));
}

/** This machine's addresses: 127.0.0.0/8, ::1 and the unspecified 0.0.0.0 / ::. */
const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('0.0.0.0', 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');

/**
 * Whether a URL names this machine's loopback: localhost, or an address in {@link LOOPBACK} in any of its forms
 * (the URL parser writes `2130706433` and `0x7f.1` as 127.0.0.1; BlockList matches an IPv4-mapped IPv6 address,
 * `[::ffff:127.0.0.1]`, by its IPv4 rules).
 */
export function loopbackHost(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = net.isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Why an AWS run cannot use this target, when it names this machine's loopback: each generator would reach itself
 * (the preflight on the first generator would fail after it started). Not when `AWS_ENDPOINT_URL` is itself on
 * loopback: an emulator's "instances" (moto in the tests) are processes on this machine.
 */
export function loopbackTargetProblem(target: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (target === undefined || !loopbackHost(target)) return undefined;
  if (env.AWS_ENDPOINT_URL !== undefined && loopbackHost(env.AWS_ENDPOINT_URL)) return undefined;
  return `target ${redactUrl(target)} is this machine's loopback; on AWS each generator would reach itself. Pass an address the generators can reach (the deployed target: drop --target for the built-in scenarios, or --target reference for your script; a public or VPC address), or run with --platform local`;
}

/**
 * What the run's script needs must be on the generators, checked before anything starts (each refusal names the fix):
 * its engines and plugins; for a user's script also its folder (not a home folder, not thousands of files), the files
 * and packages its processor loads, and the environment variables its templates read (scripts/generator-modules.ts).
 */
function assertRunsOnGenerators(p: SelectProps, env: NodeJS.ProcessEnv): void {
  if (!p.script && !p.scriptFiles) return;
  const lock = JSON.parse(fs.readFileSync(path.join(p.root, 'package-lock.json'), 'utf8')) as Lockfile;
  if (p.script) assertNoBrowserOnAws(p.script);
  if (p.script) assertGeneratorsHaveModules(p.script, artilleryPluginFinder(env.ARTILLERY_PLUGIN_PATH), generatorModuleFinder(lock, bundledInArtillery));
  const files = p.scriptFiles;
  if (!files) return;
  if (p.script) assertEnvOnGenerators(p.script, path.basename(files.file));
  // A folder of its own ships whole (load-generators/ ships anyway).
  const folder = shippedFolder(p.root, files.dir) === path.resolve(files.dir) ? scenarioFolderProblem(files.dir, os.homedir()) : undefined;
  if (folder) throw new UsageError(`--scenario: ${folder}`);
  assertScriptShips(files, notShipped(p.root, files.dir), generatorPackageFinder(lock), process.cwd());
}

/** Chooses and builds the platform; prints the choice. */
export async function selectPlatform(p: SelectProps): Promise<Platform> {
  const { options, env, log } = p;
  const outputsFile = path.join(p.root, OUTPUTS_FILE);
  const envRegion = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const choice = await choosePlatform(options.platform, {
    outputsFile,
    readOutputsFile: () => (fs.existsSync(outputsFile) ? fs.readFileSync(outputsFile, 'utf8') : undefined),
    ...(envRegion ? { region: envRegion } : {}),
    credentialsHinted: credentialsHinted(env),
    api: (region) => clientsModule().createAwsApi({ region }),
  });
  log(choice.line);
  if (choice.platform === 'local' || !choice.outputs) {
    refuseAwsOnlyFlags({ ...options, generatorCapacity: p.generatorCapacity });
    return p.local();
  }
  if (options.teardown && options.keepGenerators) {
    throw new UsageError('--teardown destroys the generator fleet, so --keep-generators cannot hold; pass one of them');
  }
  assertRunsOnGenerators(p, env);
  const outputs = choice.outputs;
  const region = outputs.region ?? envRegion;
  if (!region) throw new UsageError(`no AWS region: ${outputs.source} has no Region output and AWS_REGION is not set; set AWS_REGION to the region you deployed to`);
  if (envRegion && outputs.region && envRegion !== outputs.region) {
    log(`note: using the stacks' region ${outputs.region} (AWS_REGION is ${envRegion})`);
  }
  const targetUrl = options.target ?? outputs.targetUrl;
  const loopback = loopbackTargetProblem(options.target, env);
  if (loopback) throw new UsageError(loopback);
  const targetIsPrivate = targetUrl ? await (p.targetIsPrivate ?? lookUpTargetIsPrivate)(targetUrl) : false;
  // Only the built-in scenarios' processors bind the instance's addresses; a user's script connects through
  // Artillery's engines from the address the OS picks, so its plan counts one address per generator.
  const userScript = p.scriptFiles !== undefined;
  const api = clientsModule().createAwsApi({ region });
  const instanceSpec = await (p.describeInstanceType ?? describeInstanceType)(api, outputs.generatorInstanceType ?? awsModule().DEFAULT_GENERATOR_INSTANCE_TYPE, log);
  const platform = awsModule().awsPlatform({
    root: p.root,
    outputs,
    api,
    ...(instanceSpec ? { instanceSpec } : {}),
    options,
    log,
    signal: p.signal,
    targetIsPrivate: targetIsPrivate && !userScript,
    ...(p.generatorCapacity !== undefined ? { generatorCapacity: p.generatorCapacity } : {}),
  });
  log(capacityLine(outputs, targetIsPrivate, platform.generator, p.generatorCapacity, userScript));
  if (!outputs.regions?.length) return platform;

  // Generators in several regions: one platform per region, composed (scripts/platforms/aws/multi-region.ts).
  const multi = multiRegionModule();
  const remoteUrl = multi.remoteTargetUrl(outputs, options.target);
  const parts: MultiRegion.RegionPart[] = [{ region, weight: outputs.regionWeight ?? 1, platform, cost: { outputs, externalTarget: options.target !== undefined } }];
  for (const r of outputs.regions) {
    const rOutputs = multi.remoteOutputs(outputs, r);
    const rApi = clientsModule().createAwsApi({ region: r.region });
    const type = rOutputs.generatorInstanceType ?? awsModule().DEFAULT_GENERATOR_INSTANCE_TYPE;
    const spec = type === (outputs.generatorInstanceType ?? awsModule().DEFAULT_GENERATOR_INSTANCE_TYPE) ? instanceSpec : await (p.describeInstanceType ?? describeInstanceType)(rApi, type, log);
    const remote = awsModule().awsPlatform({
      root: p.root,
      outputs: rOutputs,
      api: rApi,
      ...(spec ? { instanceSpec: spec } : {}),
      // Its generators load the target's internet-facing URL (or --target): never private from another region.
      options: { ...options, target: remoteUrl },
      log: (line) => log(`[${r.region}] ${line}`),
      signal: p.signal,
      targetIsPrivate: false,
      ...(p.generatorCapacity !== undefined ? { generatorCapacity: p.generatorCapacity } : {}),
      // The home platform removes cdk-outputs.json once the home stacks are gone; a region's teardown leaves it.
      removeOutputsFile: () => undefined,
    });
    log(`[${r.region}] ${capacityLine(rOutputs, false, remote.generator, p.generatorCapacity)}`);
    // Its generators load the target the home region's estimate counts.
    parts.push({ region: r.region, weight: r.weight, platform: remote, natAddresses: r.egressAddresses.length, cost: { outputs: rOutputs, externalTarget: true } });
  }
  log(`generator regions: ${parts.map((x) => `${x.region} (weight ${x.weight})`).join(', ')}; other regions load ${remoteUrl}`);
  return multi.multiRegionPlatform(parts, remoteUrl, log, options.maxCost);
}

/** One line: what one generator holds and why (instance type and where its figures came from, addresses used, the limit that binds, heap). */
export function capacityLine(outputs: RigOutputs, targetIsPrivate: boolean, generator: DeployedGenerator, override?: number, userScript = false): string {
  const { limits } = generator;
  const type = outputs.generatorInstanceType ?? `${awsModule().DEFAULT_GENERATOR_INSTANCE_TYPE} (assumed: the stack has no GeneratorInstanceType output)`;
  const source = generator.source === 'ec2' ? 'EC2 DescribeInstanceTypes' : generator.source === 'table' ? 'built-in table' : 'size name';
  const ips = outputs.generatorSecondaryIps ?? 0;
  const plural = ips > 1 ? 's' : '';
  const used = ips === 0 ? 'no secondary IPs' : userScript ? `${ips} secondary IP${plural} unused (your script's connections leave from the address the OS picks)` : targetIsPrivate ? `${ips} secondary IP${ips > 1 ? 's' : ''} in use (private target)` : `${ips} secondary IP${ips > 1 ? 's' : ''} unused (the target is not private)`;
  const { vusers, binding } = capacityPerGenerator(limits);
  const bound = binding === 'memory' ? (override !== undefined ? '--generator-capacity' : 'memory') : binding === 'openFiles' ? 'open files' : 'ephemeral ports';
  return `generators: ${type} (${source}), ${limits.processes} load processes (heap ${generator.heapLimitMiB.toLocaleString('en-US')} MiB each), ${used}: ${vusers.toLocaleString('en-US')} vusers each (${bound} binds)`;
}
