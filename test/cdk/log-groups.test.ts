/**
 * Teardown leaves no log group: every log group of every stack has a retention and is deleted with its
 * stack, and every Lambda function (CDK's own singletons included) writes to a group its stack owns.
 * Container Insights' group of the Fargate cluster is owned by the target stack before the cluster exists.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig } from './helpers';

type Res = { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string; DependsOn?: string[] };

// The third case adds a generator region: its stack (VPC flow logs, safety net, bucket emptier) follows the same rules.
for (const [targetKind, regions] of [['ec2', 'none'], ['fargate', 'none'], ['ec2', 'eu-west-2,us-east-1']] as const) {
  describe(`log groups (targetKind=${targetKind}, generatorRegions=${regions})`, () => {
    const { rig } = buildTestRig({ targetKind, generatorRegions: regions });
    const stacks = [rig.network, rig.target, rig.generators, ...rig.regional].filter((s) => s !== undefined);
    if (regions !== 'none') expect(rig.regional).toHaveLength(1);
    const templates = stacks.map((s) => ({ name: s.stackName, resources: Template.fromStack(s).toJSON().Resources as Record<string, Res> }));

    test('every log group has a retention and is deleted with its stack', () => {
      const groups = templates.flatMap((t) => Object.entries(t.resources).filter(([, r]) => r.Type === 'AWS::Logs::LogGroup').map(([id, r]) => ({ stack: t.name, id, retention: r.Properties?.RetentionInDays, deletion: r.DeletionPolicy })));
      expect(groups.length).toBeGreaterThanOrEqual(targetKind === 'fargate' ? 5 : 3);
      for (const g of groups) expect(g).toEqual({ ...g, retention: expect.any(Number), deletion: 'Delete' });
    });

    test('every Lambda function logs to a group its stack owns; custom resources are deleted before those groups', () => {
      for (const t of templates) {
        const groups = Object.entries(t.resources).filter(([, r]) => r.Type === 'AWS::Logs::LogGroup');
        for (const [fnId, fn] of Object.entries(t.resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function')) {
          const own = (fn.Properties?.LoggingConfig as { LogGroup?: { Ref: string } } | undefined)?.LogGroup?.Ref;
          const named = groups.find(([, g]) => JSON.stringify(g.Properties?.LogGroupName) === JSON.stringify({ 'Fn::Join': ['', ['/aws/lambda/', { Ref: fnId }]] }));
          expect({ fn: fnId, group: own ?? named?.[0] }).toEqual({ fn: fnId, group: expect.any(String) });
          if (named) {
            for (const [crId, cr] of Object.entries(t.resources).filter(([, r]) => r.Type.startsWith('Custom::'))) {
              expect({ cr: crId, dependsOn: cr.DependsOn ?? [] }).toEqual({ cr: crId, dependsOn: expect.arrayContaining([named[0]]) });
            }
          }
        }
      }
    });

    if (targetKind === 'fargate') {
      test('Container Insights writes to a group the target stack creates before the cluster', () => {
        const target = templates.find((t) => t.name === 'LoadTestRig-Target');
        const entries = Object.entries(target?.resources ?? {});
        const cluster = entries.find(([, r]) => r.Type === 'AWS::ECS::Cluster');
        const name = cluster?.[1].Properties?.ClusterName;
        expect(name).toBe('LoadTestRig-Target-target');
        const insights = entries.find(([, r]) => r.Type === 'AWS::Logs::LogGroup' && r.Properties?.LogGroupName === `/aws/ecs/containerinsights/${String(name)}/performance`);
        expect(insights).toBeDefined();
        expect(cluster?.[1].DependsOn).toEqual(expect.arrayContaining([insights?.[0]]));
      });
    }
  });
}
