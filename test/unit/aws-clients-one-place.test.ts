/**
 * The AWS run path builds its SDK clients in one place (scripts/platforms/aws/clients.ts createAwsApi): every call
 * goes through AwsApi, so IAM_ACTIONS lists it and test/unit/operator-policy.test.ts checks iam/operator-policy.json
 * allows it. A module that builds its own client makes calls the policy check never sees.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CLIENTS = path.join('scripts', 'platforms', 'aws', 'clients.ts');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(rel);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** `new XClient(` where XClient is imported from an @aws-sdk package. */
function sdkClientsBuilt(text: string): string[] {
  const imported = new Set([...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/[^']+'/g)].flatMap((m) => (m[1] ?? '').split(',').map((n) => n.trim().split(/\s+as\s+/).pop() ?? '')));
  return [...text.matchAll(/new\s+(\w+Client)\s*\(/g)].map((m) => m[1] ?? '').filter((name) => imported.has(name));
}

test('no module of scripts/ but clients.ts builds an AWS SDK client', () => {
  const files = tsFiles('scripts');
  expect(files).toContain(CLIENTS);
  expect(sdkClientsBuilt(fs.readFileSync(path.join(ROOT, CLIENTS), 'utf8'))).toContain('AutoScalingClient');
  const elsewhere = files.filter((f) => f !== CLIENTS).flatMap((f) => sdkClientsBuilt(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((c) => `${f}: new ${c}`));
  expect(elsewhere).toEqual([]);
});
