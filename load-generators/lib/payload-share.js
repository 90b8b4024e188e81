// @ts-check
'use strict';
/**
 * Payload rows for one load process. Artillery reads `order: sequence` payloads from row 1 in every
 * process, so N processes fanned out would use the first rows N times and never the rest. The planner
 * marks each sequenced payload with `rigShare: { index, count }` (this process's place among the load
 * processes that create vusers); here the process gets its own CSV holding rows index, index+count,
 * index+2·count, … — the split Artillery's own local runner makes across its workers (lib/dist.ts) —
 * so a fanned-out run uses the rows one plain run would. With fewer rows than processes, rows repeat
 * (as in Artillery). Random-order payloads are left whole: every process picks from all rows.
 *
 * Rows are cut with the CSV parser Artillery itself uses (csv-parse, with the payload's delimiter and
 * options), keeping each record's raw text, so quoting and embedded newlines survive unchanged.
 */
const fs = require('node:fs');
const path = require('node:path');

const ARTILLERY_DIR = path.dirname(require.resolve('artillery/package.json'));
/** @type {(text: string, opts: Record<string, unknown>) => Array<{ raw: string }>} */
const parseCsv = require(require.resolve('csv-parse/lib/sync', { paths: [ARTILLERY_DIR] }));

/**
 * The rows of `text` this share gets, as CSV text (the header row first when `skipHeader`).
 * @param {string} text
 * @param {{ index: number, count: number }} share
 * @param {{ skipHeader?: boolean, skipEmptyLines?: boolean, delimiter?: string, options?: Record<string, unknown> }} spec
 */
function shareRows(text, share, spec) {
  const records = parseCsv(text, {
    skip_empty_lines: spec.skipEmptyLines === undefined ? true : spec.skipEmptyLines,
    delimiter: spec.delimiter || ',',
    ...(spec.options || {}),
    raw: true,
    cast: false,
    columns: false,
  });
  const header = spec.skipHeader === true ? records.slice(0, 1) : [];
  const rows = spec.skipHeader === true ? records.slice(1) : records;
  if (rows.length === 0) return text;
  // Exactly Artillery's split (lib/dist.ts divideWork): with fewer rows than processes, row index % rows.
  const pick = share.index % rows.length;
  const mine = rows.filter((_, k) => k % share.count === pick);
  const lines = [...header, ...mine].map((r) => r.raw.replace(/^[\r\n]+/, ''));
  return lines.map((l) => (/\n$/.test(l) ? l : `${l}\n`)).join('');
}

/**
 * Replaces each shared payload's path with this process's own CSV in `dir`. Mutates the script.
 * @param {any} script @param {string} dir
 * @returns {string[]} what was done, for the agent's log
 */
function sharePayloads(script, dir) {
  const cfg = script.config || {};
  const payloads = Array.isArray(cfg.payload) ? cfg.payload : cfg.payload ? [cfg.payload] : [];
  /** @type {string[]} */
  const done = [];
  payloads.forEach((/** @type {any} */ p, /** @type {number} */ i) => {
    if (!p || !p.rigShare) return;
    const share = p.rigShare;
    delete p.rigShare;
    if (!(share.count > 1)) return;
    const text = fs.readFileSync(p.path, 'utf8');
    const file = path.join(dir, `payload-${i}.csv`);
    fs.writeFileSync(file, shareRows(text, share, p));
    done.push(`payload ${path.basename(p.path)}: rows ${share.index + 1}, ${share.index + 1 + share.count}, … (1 in ${share.count})`);
    p.path = file;
  });
  return done;
}

module.exports = { sharePayloads, shareRows };
