import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Properties of {@link ResultsBucket}. */
export interface ResultsBucketProps {
  /**
   * Days after which run objects expire.
   * @default 30
   */
  readonly expiryDays?: number;
}

/**
 * Where generators write every run's raw data: encrypted, private, TLS-only, expiring, and emptied
 * on `cdk destroy` so a teardown leaves nothing behind.
 */
export class ResultsBucket extends Construct {
  /** The bucket. */
  public readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: ResultsBucketProps = {}) {
    super(scope, id);
    const expiryDays = props.expiryDays ?? 30;
    if (!Number.isInteger(expiryDays) || expiryDays < 1) {
      throw new Error(`expiryDays must be a whole number of days >= 1, got ${expiryDays}`);
    }
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'expire-runs', expiration: Duration.days(expiryDays), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Only the rig\'s own generators and operator touch this short-lived results bucket; access logs would need a second bucket that outlives teardown.',
    });
  }
}
