import * as fs from 'node:fs';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, launchTemplateUserData, targetOf } from './helpers';

const ROOT = path.join(__dirname, '../..');

/**
 * The OS packages a boot installs (unzip, tar, xz, aws-cfn-bootstrap, amazon-cloudwatch-agent, ethtool) are not pinned
 * by version; their versions follow the AMI. The rule that makes that reproducible (AL2023 User Guide, "Deterministic
 * upgrades through versioned repositories"): every AL2023 AMI is locked to one repository version, and "any additional
 * packages that are installed as part of your provisioning map to the repository version of the existing AMI". It
 * holds only while nothing moves the boot off the AMI's release: `--releasever` (e.g. `latest`), an override in
 * /etc/dnf/vars/releasever, or a `dnf upgrade`/`update` would install whatever the newest repository holds that day.
 */
function releaseMoves(text: string): string[] {
  return text.split('\n').filter((line) => /\bdnf\b/.test(line) && (/--releasever\b/.test(line) || /\bdnf\s+(-\S+\s+)*(upgrade|update|distro-sync)\b/.test(line)) || /\/etc\/dnf\/vars\/releasever/.test(line));
}

describe('OS packages come from the AMI\'s own locked repository', () => {
  test('the rule sees a boot that leaves it (a checker that finds nothing proves nothing)', () => {
    expect(releaseMoves('retry 5 dnf install -y --releasever=latest amazon-cloudwatch-agent')).toHaveLength(1);
    expect(releaseMoves('dnf -y upgrade')).toHaveLength(1);
    expect(releaseMoves('echo latest > /etc/dnf/vars/releasever')).toHaveLength(1);
    expect(releaseMoves('retry 5 dnf install -y amazon-cloudwatch-agent ethtool')).toEqual([]);
  });

  test('no user-data (target, generators) and no boot script moves dnf off the AMI\'s release version', () => {
    const { rig } = buildTestRig({ targetKind: 'ec2' });
    const texts = [
      launchTemplateUserData(Template.fromStack(targetOf(rig))),
      launchTemplateUserData(Template.fromStack(rig.generators)),
      ...['install-generator.sh', 'host-tuning.sh'].map((f) => fs.readFileSync(path.join(ROOT, 'load-generators', f), 'utf8')),
    ];
    expect(texts.flatMap(releaseMoves)).toEqual([]);
    // …and the packages are installed by dnf at all (else this test guards nothing).
    expect(texts.join('\n')).toMatch(/dnf install -y amazon-cloudwatch-agent/);
  }, 60_000);
});
