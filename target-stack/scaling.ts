import { Duration } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';

/** CPU step-scaling settings shared by the EC2 and Fargate targets. */
export interface CpuScalingSettings {
  /** Average CPU (%) at or above which one instance/task is added. */
  readonly scaleOutCpuPercent: number;
  /** Average CPU (%) at or below which one instance/task is removed. */
  readonly scaleInCpuPercent: number;
  /** Minutes (60 s datapoints) the condition must hold: evaluation periods = datapoints to alarm. */
  readonly breachDurationMinutes: number;
}

/** Properties both targets (EC2 instances, Fargate tasks) take. */
export interface ScaledTargetProps extends CpuScalingSettings {
  /** VPC whose public subnets the instances or tasks run in. */
  readonly vpc: ec2.IVpc;
  /** Fewest instances or tasks. */
  readonly minCapacity: number;
  /** Most instances or tasks. */
  readonly maxCapacity: number;
  /**
   * REDIS_URL for the Socket.IO Redis adapter.
   * @default - no Redis; rooms stay within one instance or task
   */
  readonly redisUrl?: string;
}

/** What a target exposes for scaling outputs and the dashboard. */
export interface ScaledTarget {
  /** The average CPU metric the alarms watch (60 s period). */
  readonly cpuMetric: cw.IMetric;
  /** Instances or tasks in service. */
  readonly inServiceMetric: cw.IMetric;
  /** Alarm that adds capacity. */
  readonly scaleOutAlarm: cw.IAlarm;
  /** Alarm that removes capacity. */
  readonly scaleInAlarm: cw.IAlarm;
}

/** The period of every scaling datapoint: one minute, so breach minutes = evaluation periods. */
export const SCALING_PERIOD = Duration.minutes(1);

/**
 * Step-scaling props reproducing Twine's policy: +1 when CPU >= scale-out for the whole breach
 * window, -1 when CPU <= scale-in for as long, nothing in between.
 */
export function cpuStepScaling(s: CpuScalingSettings, metric: cw.IMetric): autoscaling.BasicStepScalingPolicyProps {
  if (s.scaleInCpuPercent >= s.scaleOutCpuPercent) {
    throw new Error(`scaleInCpuPercent (${s.scaleInCpuPercent}) must be below scaleOutCpuPercent (${s.scaleOutCpuPercent})`);
  }
  return {
    metric,
    scalingSteps: [
      { upper: s.scaleInCpuPercent, change: -1 },
      { lower: s.scaleOutCpuPercent, change: +1 },
    ],
    adjustmentType: autoscaling.AdjustmentType.CHANGE_IN_CAPACITY,
    evaluationPeriods: s.breachDurationMinutes,
    datapointsToAlarm: s.breachDurationMinutes,
    metricAggregationType: autoscaling.MetricAggregationType.AVERAGE,
  };
}
