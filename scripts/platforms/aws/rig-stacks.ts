/**
 * Where the rig's stacks are and which of them still stand, for `npm run teardown` and `npm run leftovers`: the
 * regions a deploy recorded (cdk-outputs.json, else the home generator stack's own outputs), the
 * `generatorRegions` context that synthesizes every one of those stacks again, and a CloudFormation check, region by
 * region, that none is left. `cdk destroy` of a stack that is not in the account and region it looks in exits 0
 * (aws/aws-cdk#22240, #7018), so its exit code alone does not say the stacks are gone.
 */
import type { AwsApi } from './clients';
import { RIG_STACK_NAMES, isStackMissing, regionalStackName } from './discovery';

/** One generator region as deployed: a `generatorRegions` entry. */
export interface DeployedRegion {
  readonly region: string;
  readonly weight: number;
}

/** The regions one deploy recorded: the home (target's) region, and the other generator regions. */
export interface RecordedRegions {
  /** The home generator stack's Region output; undefined when nothing names it. */
  readonly home?: string;
  /** The home region's weight (its RegionWeight output, present only with generatorRegions). */
  readonly homeWeight?: number;
  /** Every LoadTestRig-Generators-<region> the outputs name, in the home stack's order. */
  readonly remote: readonly DeployedRegion[];
}

type StackOutputs = Readonly<Record<string, Readonly<Record<string, string>> | undefined>>;

const weightOf = (v: string | undefined): number | undefined => (v !== undefined && /^\d+$/.test(v) && Number(v) >= 1 ? Number(v) : undefined);

/** The regions a `{ "<stack>": { "<output>": "value" } }` map records. Pure. */
export function regionsFromOutputs(stacks: StackOutputs): RecordedRegions {
  const home = stacks[RIG_STACK_NAMES.generators];
  const named = (home?.RemoteGeneratorRegions ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '');
  // A regional stack in the file that the home stack does not name (an older deploy) is still one to destroy.
  const prefix = `${RIG_STACK_NAMES.generators}-`;
  const listed = Object.keys(stacks).filter((n) => n.startsWith(prefix)).map((n) => stacks[n]?.Region || n.slice(prefix.length));
  const remote = [...new Set([...named, ...listed])].map((region) => ({ region, weight: weightOf(stacks[regionalStackName(region)]?.RegionWeight) ?? 1 }));
  const homeWeight = weightOf(home?.RegionWeight);
  return { ...(home?.Region ? { home: home.Region } : {}), ...(homeWeight !== undefined ? { homeWeight } : {}), remote };
}

/** The regions cdk-outputs.json records; none when it is absent or not JSON (it then says nothing about regions). Pure. */
export function recordedRegions(outputsText: string | undefined): RecordedRegions {
  if (!outputsText) return { remote: [] };
  try {
    const json = JSON.parse(outputsText) as unknown;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return { remote: [] };
    const stacks = Object.fromEntries(Object.entries(json as Record<string, unknown>)
      .filter(([, v]) => typeof v === 'object' && v !== null)
      .map(([name, v]) => [name, Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]))]));
    return regionsFromOutputs(stacks);
  } catch {
    return { remote: [] };
  }
}

/** The regions the home generator stack in `region` names (its outputs, and each other region's stack's weight). */
export async function regionsFromCloudFormation(apiFor: (region: string) => Pick<AwsApi, 'describeStacks'>, region: string): Promise<RecordedRegions> {
  const outputsOf = async (r: string, name: string): Promise<Record<string, string> | undefined> => {
    try {
      const stack = (await apiFor(r).describeStacks({ StackName: name })).Stacks?.[0];
      return stack ? Object.fromEntries((stack.Outputs ?? []).map((o) => [String(o.OutputKey), String(o.OutputValue ?? '')])) : undefined;
    } catch (err) {
      if (isStackMissing(err)) return undefined;
      throw err;
    }
  };
  const home = await outputsOf(region, RIG_STACK_NAMES.generators);
  if (!home) return { remote: [] };
  const stacks: Record<string, Record<string, string> | undefined> = { [RIG_STACK_NAMES.generators]: { Region: region, ...home } };
  for (const r of regionsFromOutputs(stacks).remote) stacks[regionalStackName(r.region)] = await outputsOf(r.region, regionalStackName(r.region));
  return regionsFromOutputs(Object.fromEntries(Object.entries(stacks).filter(([, v]) => v !== undefined)));
}

/** The `generatorRegions` context value that synthesizes every recorded stack (`eu-west-2:3,us-east-1:1`); undefined with one region. Pure. */
export function generatorRegionsContext(r: RecordedRegions): string | undefined {
  if (!r.home || r.remote.length === 0) return undefined;
  return [{ region: r.home, weight: r.homeWeight ?? 1 }, ...r.remote].map((x) => `${x.region}:${x.weight}`).join(',');
}

/** The regions of a `generatorRegions` value (`eu-west-2:3,us-east-1` → both); `none` names none. Pure. */
export function regionsOfContext(value: string): string[] {
  return value.split(',').map((e) => e.trim().split(':')[0] ?? '').filter((r) => r !== '' && r !== 'none');
}

/** A rig stack still there: any status but DELETE_COMPLETE (DELETE_FAILED, DELETE_IN_PROGRESS, …). */
export interface StandingStack {
  readonly region: string;
  readonly name: string;
  readonly status: string;
  readonly stackId?: string;
}

/**
 * The rig stacks that still stand in each region: every name a rig stack can have there (the three home stacks and
 * that region's LoadTestRig-Generators-<region>), each asked by name — what the operator's policy allows
 * (DescribeStacks on stack/LoadTestRig-*).
 */
export async function standingStacks(apiFor: (region: string) => Pick<AwsApi, 'describeStacks'>, regions: readonly string[]): Promise<StandingStack[]> {
  const out: StandingStack[] = [];
  for (const region of regions) {
    for (const name of [...Object.values(RIG_STACK_NAMES), regionalStackName(region)]) {
      try {
        const stack = (await apiFor(region).describeStacks({ StackName: name })).Stacks?.[0];
        const status = String(stack?.StackStatus ?? '');
        if (stack && status !== 'DELETE_COMPLETE') out.push({ region, name, status, ...(stack.StackId ? { stackId: stack.StackId } : {}) });
      } catch (err) {
        if (!isStackMissing(err)) throw err;
      }
    }
  }
  return out;
}

/** `LoadTestRig-Target (eu-west-1, DELETE_FAILED)`. Pure. */
export const stackText = (s: StandingStack): string => `${s.name} (${s.region}, ${s.status})`;
