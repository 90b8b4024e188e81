import { Annotations, IAspect, Stack } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';

/** CloudFormation's upper bound of a rolling update's PauseTime ("UpdatePolicy attribute": "The maximum PauseTime is one hour"). */
const MAX_PAUSE_SECONDS = 3600;

/**
 * Fails `cdk synth` (an error annotation on the group, one line each) when an auto-scaling group's health signal is not
 * real. The CloudFormation rules it relies on (User Guide, "UpdatePolicy attribute" and "CreationPolicy attribute"):
 *
 * - a rolling update without `WaitOnResourceSignals` only waits `PauseTime` after each batch and then counts the new
 *   instances as updated, whether or not their software ever started: the next old instance is terminated anyway;
 * - with `WaitOnResourceSignals` (or a `CreationPolicy` `ResourceSignal`), CloudFormation waits for a signal from each
 *   new instance, and without one the create or update fails at the deadline: a group whose instances never call
 *   `cfn-signal` (or `SignalResource`) for it can never be created or updated;
 * - `PauseTime` is at most one hour.
 *
 * The signal is looked for in the user-data of the group's launch template in the same stack: `cfn-signal` naming
 * the group's logical id as its `--resource` (or the AWS CLI's `signal-resource --logical-resource-id`). For a group
 * launched from anything else (a launch configuration, a mixed instances policy, an imported template) that part
 * cannot be judged and is left out; the update policy's own rules hold for every group. (moto runs no user-data and does not
 * model either policy, so only the template can show this.)
 */
export class ResourceSignalCheck implements IAspect {
  public visit(node: IConstruct): void {
    if (!(node instanceof autoscaling.CfnAutoScalingGroup)) return;
    const stack = Stack.of(node);
    const rolling = stack.resolve(node.cfnOptions.updatePolicy?.autoScalingRollingUpdate) as Record<string, unknown> | undefined;
    const creation = stack.resolve(node.cfnOptions.creationPolicy?.resourceSignal) as Record<string, unknown> | undefined;
    if (rolling === undefined && creation === undefined) return;
    const pause = typeof rolling?.pauseTime === 'string' ? isoSeconds(rolling.pauseTime) : undefined;
    if (pause !== undefined && pause > MAX_PAUSE_SECONDS) {
      Annotations.of(node).addError(
        `rolling update PauseTime ${String(rolling?.pauseTime)} is longer than CloudFormation's maximum, PT1H; set pauseTime to at most 1 hour in the group's UpdatePolicy.rollingUpdate (CDK defaults it to the signals' timeout)`,
      );
    }
    if (rolling && rolling.waitOnResourceSignals !== true) {
      Annotations.of(node).addError(
        'rolling update without WaitOnResourceSignals: CloudFormation counts each new instance as updated after PauseTime whether or not its app ever starts, ' +
          'and terminates the next old one; signal from the user-data (cfn-signal) and set WaitOnResourceSignals (CDK: signals on the group)',
      );
      return;
    }
    // Whether the instances signal is read from the user-data of an in-stack launch template only.
    const userData = launchTemplateUserData(node);
    if (userData === undefined) return;
    const id = stack.resolve(node.logicalId) as string;
    // cfn-signal --resource ID (or --resource=ID, or on the next line after a backslash), or the AWS CLI's
    // `aws cloudformation signal-resource … --logical-resource-id ID`.
    const signals = new RegExp(`(cfn-signal[^]*--resource|signal-resource[^]*--logical-resource-id)(=|\\s|\\\\)+${id}\\b`).test(userData);
    if (!signals) {
      Annotations.of(node).addError(
        `the group waits for resource signals, but its launch template's user-data never signals it (no cfn-signal --resource ${id}): ` +
          'every create and rolling update would fail at the signal deadline; add userData.addSignalOnExitCommand(group) to the user-data',
      );
    }
  }
}

/**
 * The resolved user-data of the group's launch template in the same stack, as the text it renders to (an `Fn::Join`'s
 * parts joined, a token as `${Ref}`), or undefined when the group is not launched from such a template.
 */
function launchTemplateUserData(group: autoscaling.CfnAutoScalingGroup): string | undefined {
  const stack = Stack.of(group);
  const spec = stack.resolve(group.launchTemplate) as { launchTemplateId?: unknown; LaunchTemplateId?: unknown } | undefined;
  const ref = (spec?.launchTemplateId ?? spec?.LaunchTemplateId) as { Ref?: unknown } | undefined;
  if (!ref || typeof ref.Ref !== 'string') return undefined;
  const template = stack.node.findAll().find((c): c is ec2.CfnLaunchTemplate => c instanceof ec2.CfnLaunchTemplate && stack.resolve(c.logicalId) === ref.Ref);
  if (!template) return undefined;
  const data = stack.resolve(template.launchTemplateData) as { userData?: unknown } | undefined;
  return data?.userData === undefined ? '' : rendered(data.userData);
}

/** A resolved CloudFormation value as the text it renders to, as far as the template alone says. */
function rendered(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(rendered).join('');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o['Fn::Join']) && typeof o['Fn::Join'][0] === 'string' && Array.isArray(o['Fn::Join'][1])) {
      return (o['Fn::Join'][1] as unknown[]).map(rendered).join(o['Fn::Join'][0]);
    }
    if ('Fn::Base64' in o) return rendered(o['Fn::Base64']);
    if (typeof o.Ref === 'string') return `\${${o.Ref}}`;
    return Object.values(o).map(rendered).join('');
  }
  return String(v ?? '');
}

/** Seconds of an ISO 8601 duration of the PT#H#M#S form CloudFormation takes; undefined for anything else. */
function isoSeconds(v: string): number | undefined {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(v);
  if (!m || v === 'PT') return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}
