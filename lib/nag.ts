import { Stack, Token, Validations } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/** A cdk-nag finding acknowledged with the reason it is acceptable here. */
export interface Acknowledgement {
  /** Rule id, with the finding in brackets for per-finding rules (e.g. `AwsSolutions-IAM5[Resource::*]`). */
  readonly id: string;
  /** Why the finding is acceptable. */
  readonly reason: string;
}

/** Records acknowledgements on a construct (cdk-nag 3 reads them from construct metadata). */
export function acknowledge(scope: IConstruct, ...acks: Acknowledgement[]): void {
  for (const a of acks) {
    if (a.reason.trim().length < 20) throw new Error(`cdk-nag acknowledgement ${a.id} needs a real reason, got "${a.reason}"`);
  }
  Validations.of(scope).acknowledge(...acks);
}

/** The IAM5 finding id for a wildcard action or resource, as cdk-nag prints it. */
export function iam5(finding: string): string {
  return `AwsSolutions-IAM5[${finding}]`;
}

/** The IAM4 finding id for an AWS managed policy. */
export function iam4(managedPolicyName: string): string {
  return `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${managedPolicyName}]`;
}

/** The `Resource::` finding for objects in the CDK bootstrap assets bucket that asset.grantRead adds. */
export function assetBucketObjects(scope: IConstruct): string {
  const qualifier = (scope.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') as string | undefined) ?? 'hnb659fds';
  return `Resource::arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-<AWS::AccountId>-${regionInFinding(scope)}/*`;
}

/** How cdk-nag prints the scope's region inside an ARN: `<AWS::Region>`, or the name of a stack pinned to a region. */
export function regionInFinding(scope: IConstruct): string {
  const region = Stack.of(scope).region;
  return Token.isUnresolved(region) ? '<AWS::Region>' : region;
}

/** The actions `bucket.grantRead` adds with wildcards. */
export const S3_READ_WILDCARD_ACTIONS = ['Action::s3:GetBucket*', 'Action::s3:GetObject*', 'Action::s3:List*'] as const;
