import { Aspects, CfnResource, Fn, IAspect, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { IConstruct } from 'constructs';

/** How long the rig keeps the logs of functions that name no log group of their own. */
export const DEFAULT_FUNCTION_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

/**
 * Gives every Lambda function of a stack a log group the stack owns, with a retention and a removal
 * policy, so a teardown leaves no `/aws/lambda/…` group behind. Lambda creates a function's default
 * group on first invocation, outside CloudFormation, and keeps it forever: CDK's own singletons (the
 * provider behind `autoDeleteObjects`, which runs during teardown) do exactly that. Functions that set
 * their own log group (`LoggingConfig.LogGroup`) are left alone.
 *
 * Custom resources of the stack are made to depend on these groups, so on delete the custom resource
 * runs (and logs) before its function's group is deleted.
 */
export class FunctionLogGroups implements IAspect {
  private readonly done = new Set<string>();

  constructor(private readonly retention: logs.RetentionDays = DEFAULT_FUNCTION_LOG_RETENTION) {}

  /** Applies the aspect to a stack. */
  public static applyTo(stack: Stack, retention?: logs.RetentionDays): void {
    Aspects.of(stack).add(new FunctionLogGroups(retention));
  }

  public visit(node: IConstruct): void {
    if (!(node instanceof CfnResource) || node.cfnResourceType !== 'AWS::Lambda::Function') return;
    if (this.done.has(node.node.path)) return;
    this.done.add(node.node.path);
    // CDK's own providers are plain CfnResources that never set a LoggingConfig.
    if (node instanceof lambda.CfnFunction && (node.loggingConfig as lambda.CfnFunction.LoggingConfigProperty | undefined)?.logGroup) return;
    const scope = node.node.scope ?? Stack.of(node);
    const group = new logs.LogGroup(scope, `${node.node.id}LogGroup`, {
      logGroupName: Fn.join('', ['/aws/lambda/', node.ref]),
      retention: this.retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Custom resources invoke functions on delete: delete them before the groups.
    const stack = Stack.of(node);
    for (const c of stack.node.findAll()) {
      if (c instanceof CfnResource && (c.cfnResourceType.startsWith('Custom::') || c.cfnResourceType === 'AWS::CloudFormation::CustomResource')) {
        c.addDependency(group.node.defaultChild as CfnResource);
      }
    }
  }
}
