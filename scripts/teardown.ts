/**
 * `npm run teardown [-- <cdk destroy options>]`: checks the AWS credentials first — without them `cdk destroy` prints
 * its own multi-line account error — then runs `cdk destroy --all --force` with the options given (e.g.
 * `-c generatorRegions=…`). npm's `postteardown` removes cdk-outputs.json once the destroy succeeded.
 * Exit codes: cdk's own (0 destroyed); 2 no credentials or an unreachable region (one line, nothing destroyed);
 * 3 another AWS error while checking.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ExitCode, UsageError } from './errors';
import { explainAwsError } from './platforms/aws/aws-errors';
import type { AwsApi } from './platforms/aws/clients';
import { regionOf } from './leftovers';

/** What teardown uses from outside: the AWS API for a region, and cdk itself. */
export interface TeardownDeps {
  readonly api: (region: string) => Pick<AwsApi, 'getCallerIdentity'>;
  /** Runs `cdk <args>` with the terminal's stdio; resolves with its exit code. */
  readonly cdk: (args: readonly string[]) => number;
  readonly env: NodeJS.ProcessEnv;
  readonly outputsText: string | undefined;
  readonly log: (line: string) => void;
}

export async function teardown(argv: readonly string[], deps: TeardownDeps): Promise<number> {
  let region: string;
  try {
    // The stacks' region (cdk-outputs.json), else AWS_REGION; STS answers in any region.
    region = regionOf(undefined, deps.outputsText, deps.env);
  } catch {
    region = 'us-east-1';
  }
  try {
    await deps.api(region).getCallerIdentity();
  } catch (err) {
    const e = explainAwsError(err, { region, doing: 'checking the AWS credentials before cdk destroy (STS GetCallerIdentity)', localAlternative: false, regionFrom: 'the region (cdk-outputs.json, else AWS_REGION)' });
    deps.log(`${e instanceof UsageError ? 'error' : 'rig failure'}: ${e.message}`);
    return e instanceof UsageError ? ExitCode.badInput : ExitCode.rigFailure;
  }
  return deps.cdk(['destroy', '--all', '--force', ...argv]);
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const outputsFile = path.join(root, 'cdk-outputs.json');
  void (async () => {
    const { createAwsApi } = await import('./platforms/aws/clients');
    const code = await teardown(process.argv.slice(2), {
      api: (region) => createAwsApi({ region }),
      cdk: (args) => spawnSync(process.execPath, [require.resolve('aws-cdk/bin/cdk'), ...args], { cwd: root, stdio: 'inherit' }).status ?? ExitCode.rigFailure,
      env: process.env,
      outputsText: fs.existsSync(outputsFile) ? fs.readFileSync(outputsFile, 'utf8') : undefined,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.exitCode = code;
  })();
}
