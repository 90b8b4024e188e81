// @ts-check
'use strict';
/**
 * Payload rows for one load process. Artillery reads an `order: sequence` payload from row 1 in every
 * process, so N processes fanned out would read the first rows N times and never the rest. The run
 * marks each sequenced payload with `rigShare: { start, count }`: in one plain run, arrival k reads row
 * k (wrapping at the last row), and this process makes arrivals start … start+count-1 of the whole. The
 * process gets its own CSV of exactly those rows, in that order, so a fanned-out run reads the rows one
 * plain run reads, each as often. (Which vuser gets which row in time differs, as arrivals interleave.)
 * Should a process create more vusers than planned, it wraps around its own rows. Random-order payloads
 * are left whole: every process picks from all rows, as one plain run does.
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
 * The rows of `text` this share reads, as CSV text (the header row first when `skipHeader`).
 * @param {string} text
 * @param {{ start: number, count: number }} share
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
  const mine = Array.from({ length: share.count }, (_, i) => /** @type {{ raw: string }} */ (rows[(share.start + i) % rows.length]));
  return [...header, ...mine]
    .map((r) => r.raw.replace(/^[\r\n]+/, ''))
    .map((l) => (/\n$/.test(l) ? l : `${l}\n`))
    .join('');
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
    const file = path.join(dir, `payload-${i}.csv`);
    // Write-then-rename, as every file a load process reads (test/unit/atomic-writes.test.ts).
    fs.writeFileSync(`${file}.tmp`, shareRows(fs.readFileSync(p.path, 'utf8'), share, p));
    fs.renameSync(`${file}.tmp`, file);
    done.push(`payload ${path.basename(p.path)}: the ${share.count} row(s) of arrivals ${share.start + 1}-${share.start + share.count}`);
    p.path = file;
  });
  return done;
}

module.exports = { sharePayloads, shareRows };
