import { Annotations, IAspect, Stack, Token } from 'aws-cdk-lib';
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
 * The signal is looked for in the user-data of the group's launch template in the same stack, as one shell command
 * whose own arguments name this stack, this group and this region ({@link signalCommands}): `cfn-signal --stack
 * --resource --region`, or the AWS CLI's `cloudformation signal-resource --stack-name --logical-resource-id`. For a group
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
    const want = signalTarget(stack, stack.resolve(node.logicalId) as string);
    const judged = signalCommands(userData).map((c) => ({ c, problems: signalProblems(c, want) }));
    if (!judged.some((j) => j.problems.length === 0)) {
      const closest = judged.sort((a, b) => a.problems.length - b.problems.length)[0];
      Annotations.of(node).addError(
        `the group waits for resource signals, but its launch template's user-data never signals it (no cfn-signal --stack ${want.stacks[0]} --resource ${want.resource} --region ${want.regions[0]}` +
          `${closest ? `; the closest, ${closest.c.program}, has ${closest.problems.join(', ')}` : ''}): ` +
          'every create and rolling update would fail at the signal deadline; add userData.addSignalOnExitCommand(group) to the user-data',
      );
    }
  }
}

/** What a signal for one group must name: the stack (by name or id), the group's logical id, the stack's region. */
interface SignalTarget {
  readonly stacks: readonly string[];
  readonly resource: string;
  readonly regions: readonly string[];
  /** cfn-signal's region when it is given none (helper scripts reference: `--region`, "Default: us-east-1"). */
  readonly defaultRegionOk: boolean;
}

function signalTarget(stack: Stack, resource: string): SignalTarget {
  // As the rendered user-data shows them: a literal, or a pseudo parameter as `${AWS::…}` (see rendered()).
  const region = Token.isUnresolved(stack.region) ? undefined : stack.region;
  const name = Token.isUnresolved(stack.stackName) ? undefined : stack.stackName;
  return {
    stacks: [...(name ? [name] : []), '${AWS::StackName}', '${AWS::StackId}'],
    resource,
    regions: [...(region ? [region] : []), '${AWS::Region}'],
    defaultRegionOk: region === 'us-east-1',
  };
}

/** A signalling command of the user-data and the options it was given (quotes removed). */
interface SignalCommand {
  readonly program: 'cfn-signal' | 'signal-resource';
  readonly stack?: string;
  readonly resource?: string;
  readonly region?: string;
}

/**
 * What keeps one command from signalling the group, each said as the command has it; none when it signals it. The
 * rules (CloudFormation User Guide, "CloudFormation helper scripts reference", cfn-signal; AWS CLI reference,
 * `cloudformation signal-resource`): the stack may be named by name or id; cfn-signal's `--region` defaults to
 * us-east-1, so without it the signal goes to another region's endpoint unless the stack is in us-east-1; the AWS
 * CLI's region, when not given, comes from its environment, which the template does not show, so only a given one
 * is judged.
 */
function signalProblems(c: SignalCommand, want: SignalTarget): string[] {
  // A value the shell fills in at boot ({@link filledAtBoot}) is not judged: only one the template shows can be wrong.
  const problems: string[] = [];
  const wrong = (value: string, wanted: readonly string[]) => !filledAtBoot(value) && !wanted.includes(value);
  if (c.resource === undefined || wrong(c.resource, [want.resource])) problems.push(c.resource === undefined ? 'no resource' : `resource ${c.resource}`);
  if (c.stack === undefined || wrong(c.stack, want.stacks)) problems.push(c.stack === undefined ? 'no stack' : `stack ${c.stack}`);
  if (c.region === undefined) {
    if (c.program === 'cfn-signal' && !want.defaultRegionOk) problems.push('no --region (cfn-signal then signals us-east-1)');
  } else if (wrong(c.region, want.regions)) problems.push(`region ${c.region}`);
  return problems;
}

/**
 * Option spellings of each signalling command, to the field they set. `--stack`, `--resource` and `--region` have no
 * short forms: cfn-signal's `-s` is `--success` and `-r` is `--reason` (CloudFormation helper scripts reference,
 * cfn-signal), so `cfn-signal -s STACK -r ID` names neither.
 */
const SIGNAL_OPTIONS: Record<SignalCommand['program'], Record<string, 'stack' | 'resource' | 'region'>> = {
  'cfn-signal': { '--stack': 'stack', '--resource': 'resource', '--region': 'region' },
  'signal-resource': { '--stack-name': 'stack', '--logical-resource-id': 'resource', '--region': 'region' },
};

/** Options of each command that take a value, so that value is never read as an option (`--reason -r`). */
const VALUE_OPTIONS: Record<SignalCommand['program'], ReadonlySet<string>> = {
  'cfn-signal': new Set(['-s', '--success', '-r', '--reason', '-e', '--exit-code', '--exit', '-i', '--id', '-d', '--data', '-u', '--url', '--role', '--access-key', '--secret-key', '-f', '--credential-file', '--http-proxy', '--https-proxy']),
  'signal-resource': new Set(['--unique-id', '--status', '--profile', '--endpoint-url', '--output', '--query', '--ca-bundle', '--color', '--cli-read-timeout', '--cli-connect-timeout', '--cli-binary-format']),
};

/**
 * A value the shell fills in at boot (`$REGION`, `$(curl …/placement/region)`), which the template cannot show: not
 * judged. The stack's own pseudo parameters (`${AWS::Region}`) are rendered and judged.
 */
const filledAtBoot = (value: string): boolean => /^\$(?!\{AWS::)/.test(value);

/** Words that may stand before a command's program: shell keywords, and wrappers that run the rest as a command. */
const LEADING = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'time', 'sudo', 'exec', 'command', 'nohup']);

/**
 * The `cfn-signal` and `aws … cloudformation signal-resource` commands of a rendered user-data script, each with the
 * options it was given. Read as the shell reads it, line by line: a backslash-newline joins two lines, a `#` starting
 * a word comments out the rest of the line, quotes group words, and `;`, `&`, `|`, `(`, `)`, `{`, `}` end a command
 * (`$(…)` and `${…}` stay inside their word). The program is the first word after variable assignments, shell keywords
 * and wrappers (`sudo`, `retry <n>`, `timeout <t>`); text inside an `echo`, a comment or another command's
 * arguments is never a signal.
 */
export function signalCommands(script: string): SignalCommand[] {
  const found: SignalCommand[] = [];
  for (const words of shellCommands(script)) {
    let i = 0;
    for (;;) {
      const w = words[i];
      if (w === undefined) break;
      if (LEADING.has(w) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i += 1;
      else if ((w === 'retry' || w === 'timeout') && words[i + 1] !== undefined) i += 2;
      else break;
    }
    const program = words[i]?.split('/').pop();
    const args = words.slice(i + 1);
    // The AWS CLI's service then its operation, as two words in that order (`aws s3 cp x 'cloudformation signal-resource'` is a copy).
    const service = args.findIndex((a) => !a.startsWith('-'));
    const kind = program === 'cfn-signal' ? 'cfn-signal' : program === 'aws' && args[service] === 'cloudformation' && args[service + 1] === 'signal-resource' ? 'signal-resource' : undefined;
    if (!kind) continue;
    const command: { program: SignalCommand['program'] } & Partial<Record<'stack' | 'resource' | 'region', string>> = { program: kind };
    for (let k = 0; k < args.length; k++) {
      const arg = args[k] as string;
      const eq = arg.indexOf('=');
      const name = eq > 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg;
      const field = SIGNAL_OPTIONS[kind][name];
      if (!field) {
        if (name === arg && VALUE_OPTIONS[kind].has(name)) k += 1; // its value is no option
        continue;
      }
      const value = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : args[++k];
      if (value !== undefined) command[field] = value;
    }
    found.push(command);
  }
  return found;
}

/** A script's simple commands, each as its words with quotes removed (see {@link signalCommands}). */
function shellCommands(script: string): string[][] {
  const out: string[][] = [];
  for (const line of script.replace(/\\\r?\n/g, ' ').split('\n')) {
    let words: string[] = [];
    let word = '';
    let inWord = false;
    let quote: string | undefined;
    const endWord = (): void => {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    };
    const endCommand = (): void => {
      endWord();
      if (words.length) out.push(words);
      words = [];
    };
    for (let i = 0; i < line.length; i++) {
      const c = line[i] as string;
      if (quote) {
        if (c === quote) quote = undefined;
        else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
        else word += c;
      } else if (c === "'" || c === '"') {
        quote = c;
        inWord = true;
      } else if (c === '\\' && i + 1 < line.length) {
        word += line[++i];
        inWord = true;
      } else if (c === '$' && (line[i + 1] === '(' || line[i + 1] === '{')) {
        const close = line.indexOf(line[i + 1] === '(' ? ')' : '}', i);
        const end = close < 0 ? line.length - 1 : close;
        word += line.slice(i, end + 1);
        inWord = true;
        i = end;
      } else if (c === '#' && !inWord) break;
      else if (c === ' ' || c === '\t') endWord();
      else if (';&|(){}'.includes(c)) endCommand();
      else {
        word += c;
        inWord = true;
      }
    }
    endCommand();
  }
  return out;
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
