/**
 * Jest's globalSetup/globalTeardown: every test file, and every process a test starts (the CLI, agents, Artillery,
 * moto, chromium, aws-cdk-lib's own `cdk.out*` synth folders), gets its temporary files under one folder of this
 * jest run (TMPDIR), removed when the run ends, so a run of the suite leaves nothing in the machine's temp directory.
 * Tests that check the rig itself leaves no temporary folder check os.tmpdir(), i.e. this folder.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const KEY = 'RIG_TESTS_TMPDIR';

async function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-tests-'));
  process.env[KEY] = dir;
  process.env.TMPDIR = dir;
}

async function teardown() {
  const dir = process.env[KEY];
  if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

module.exports = { setup, teardown };
