/**
 * What the AWS platform does after a run: the generator group back to 0 (unless --keep-generators), and with
 * --teardown the rig's stacks deleted, newest first.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generatorKeys } from '../../../load-generators/lib/run-protocol';
import type { Clock, Fleet, RunStore } from '../../contracts';
import { RigError } from '../../errors';
import { stopGeneratorsCommand } from './aws-errors';
import type { AwsApi } from './clients';
import type { RigOutputs } from './discovery';
import { isStackMissing } from './discovery';

/** Scales the generator group to 0 (a failure is logged with the command that finishes it). */
export async function scaleGeneratorsToZero(api: AwsApi, outputs: RigOutputs, log: (line: string) => void): Promise<void> {
  try {
    await api.setDesiredCapacity({ AutoScalingGroupName: outputs.generatorAsgName, DesiredCapacity: 0, HonorCooldown: false });
    log(`generator group ${outputs.generatorAsgName}: scaled to 0`);
  } catch (err) {
    // The command names the region: another region's platform scales its own group (a command without it goes to the
    // operator's default region and finds no such group).
    log(`could not scale the generator group to 0 (${(err as Error).name}: ${(err as Error).message}); ${stopGeneratorsCommand({ generatorAsgName: outputs.generatorAsgName, region: api.region })}`);
  }
}

/**
 * How long agents still running when the load stopped (interrupted, timed out, stopped) get to write their last
 * data (done.json comes after it) before their instances are scaled away.
 */
export const LAST_DATA_GRACE_MS = 30_000;

/**
 * Waits until every agent the fleet did not see end has its done.json in the store (it writes its data first),
 * at most {@link LAST_DATA_GRACE_MS}; an agent that ended (done.json read, or its command failed) is not waited for.
 */
export async function awaitAgentsData(fleet: Pick<Fleet, 'status'>, store: Pick<RunStore, 'get'>, clock: Clock): Promise<void> {
  let pending = [...fleet.status()].filter(([, code]) => code === undefined).map(([id]) => id);
  const deadline = clock.now() + LAST_DATA_GRACE_MS;
  while (pending.length > 0 && clock.now() < deadline) {
    const done = await Promise.all(pending.map((id) => store.get(generatorKeys(id).done).catch(() => undefined)));
    pending = pending.filter((_, i) => done[i] === undefined);
    if (pending.length > 0) await clock.sleep(2000);
  }
}

/** What the teardown deletes and with what. */
export interface TeardownContext {
  readonly api: AwsApi;
  readonly outputs: RigOutputs;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  /** Deletes the outputs file (it would point at deleted stacks); default: removes outputs.source when it is a file. */
  readonly removeOutputsFile?: () => void;
}

/** Deletes the rig's stacks, newest first, then the outputs file; a failure is logged with the command that finishes it. */
export async function teardownStacks(ctx: TeardownContext): Promise<void> {
  const { api, outputs, log } = ctx;
  const order = [...outputs.stackNames].reverse();
  log(`teardown: deleting ${order.join(', ')}`);
  try {
    for (const name of order) {
      await api.deleteStack({ StackName: name });
      await waitForStackDeleted(ctx, name);
      log(`teardown: ${name} deleted`);
    }
    (ctx.removeOutputsFile ?? (() => {
      if (path.isAbsolute(outputs.source) && fs.existsSync(outputs.source)) fs.rmSync(outputs.source);
    }))();
    log('teardown: done; nothing of the rig is left billing');
  } catch (err) {
    log(`teardown FAILED: ${(err as Error).message}; finish it with \`npm run teardown\``);
  }
}

/** Polls a stack being deleted until it is gone; throws when it failed to delete or took over 45 minutes. */
async function waitForStackDeleted({ api, clock }: TeardownContext, name: string): Promise<void> {
  const deadline = clock.now() + 45 * 60_000;
  for (;;) {
    let status: string | undefined;
    try {
      const res = await api.describeStacks({ StackName: name });
      status = res.Stacks?.[0]?.StackStatus;
    } catch (err) {
      if (isStackMissing(err)) return;
      throw err;
    }
    if (status === undefined || status === 'DELETE_COMPLETE') return;
    if (status === 'DELETE_FAILED') throw new RigError(`stack ${name} failed to delete (DELETE_FAILED); see the CloudFormation console, then run \`npm run teardown\``);
    if (clock.now() > deadline) throw new RigError(`stack ${name} still ${status} after 45 minutes`);
    await clock.sleep(10_000);
  }
}
