import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig } from './helpers';

describe('results bucket', () => {
  let t: Template;
  beforeAll(() => {
    t = Template.fromStack(buildTestRig({ resultsExpiryDays: 14 }).rig.generators);
  });

  test('is encrypted and blocks all public access', () => {
    t.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
  });

  test('the bucket policy denies requests without TLS', () => {
    t.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      })]) },
    });
  });

  test('objects expire after resultsExpiryDays', () => {
    t.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 14, Status: 'Enabled' })] },
    });
  });

  test('cdk destroy empties and deletes it', () => {
    t.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    t.resourceCountIs('Custom::S3AutoDeleteObjects', 1);
  });
});
