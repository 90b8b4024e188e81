// @ts-check
'use strict';
/**
 * The OS packages a generator's boot installed without a version (the CloudWatch agent, ethtool): their builds are
 * the AMI's locked repository's, so they change with the image a deploy resolves. record-os-packages.sh writes them
 * into the agent's folder at boot; the agent puts them into its ready marker, so each run's folder says which build
 * every generator ran (docs/aws-deploy.md, "Generator boot").
 */
const fs = require('node:fs');
const path = require('node:path');

/** The file record-os-packages.sh writes into the agent's folder. */
const OS_PACKAGES_FILE = 'os-packages.txt';

/**
 * The packages recorded in `<agentDir>/os-packages.txt`, name → `version-release.arch`; undefined where the boot
 * recorded none (a local run, a generator booted before the record existed).
 * @param {string} agentDir
 * @returns {Record<string, string> | undefined}
 */
function installedOsPackages(agentDir) {
  let text;
  try {
    text = fs.readFileSync(path.join(agentDir, OS_PACKAGES_FILE), 'utf8');
  } catch {
    return undefined;
  }
  /** @type {Record<string, string>} */
  const packages = {};
  for (const line of text.split('\n')) {
    const m = /^(\S+) (\S+)$/.exec(line.trim());
    if (m && m[1] && m[2]) packages[m[1]] = m[2];
  }
  return Object.keys(packages).length ? packages : undefined;
}

module.exports = { OS_PACKAGES_FILE, installedOsPackages };
