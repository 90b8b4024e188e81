/**
 * ELB rule (Elastic Load Balancing User Guide for Application Load Balancers, "Edit attributes", Connection idle
 * timeout): the application's keep-alive timeout must be larger than the load balancer's idle timeout, or the load
 * balancer may send a request on a connection the target has just closed and answer it with 502 Bad Gateway.
 * Checked on the synthesized templates: every load balancer in front of the reference target, both kinds.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, targetOf } from './helpers';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { KEEP_ALIVE_TIMEOUT_MS } = require('../../target-stack/app/http-timeouts') as { KEEP_ALIVE_TIMEOUT_MS: number };

type Lb = { Properties: { Scheme?: string; LoadBalancerAttributes?: Array<{ Key: string; Value: string }> } };

test.each(['ec2', 'fargate'] as const)('ALB rule: the %s target keeps idle keep-alive connections longer than every load balancer\'s idle timeout (no 502 on a reused connection)', (targetKind) => {
  const { rig } = buildTestRig({ targetKind, operatorCidr: '203.0.113.7/32' });
  const lbs = Object.values(Template.fromStack(targetOf(rig)).findResources('AWS::ElasticLoadBalancingV2::LoadBalancer')) as Lb[];
  expect(lbs).toHaveLength(2);
  for (const lb of lbs) {
    const idle = lb.Properties.LoadBalancerAttributes?.find((a) => a.Key === 'idle_timeout.timeout_seconds')?.Value;
    // Named by scheme when it has no idle timeout attribute (expect.any(Number) would have matched NaN).
    expect({ scheme: lb.Properties.Scheme, idleTimeoutSet: Number.isFinite(Number(idle)) }).toEqual({ scheme: lb.Properties.Scheme, idleTimeoutSet: true });
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(Number(idle) * 1000);
  }
});
