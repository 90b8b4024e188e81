/** report.html's stylesheet: one column that reads at laptop width, tables that scroll when wide. */
export const REPORT_CSS = `
:root { --ok: #1a7f37; --bad: #c62828; --warn: #b26a00; --line: #d0d7de; --muted: #57606a; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; margin: 0; background: #f6f8fa; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 20px; margin: 8px 0 4px; word-break: break-all; }
h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 4px; }
.meta { color: var(--muted); word-break: break-all; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 10px 0; overflow-x: auto; }
.verdict { border-left: 6px solid var(--ok); }
.verdict.rig-limited { border-left-color: var(--bad); }
.verdict.partial { border-left-color: var(--warn); }
.verdict .label { font-weight: 700; font-size: 18px; text-transform: uppercase; }
.verdict.trustworthy .label { color: var(--ok); }
.verdict.rig-limited .label { color: var(--bad); }
.verdict.partial .label { color: var(--warn); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
th { font-weight: 600; color: var(--muted); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { word-break: break-all; }
.pass { color: var(--ok); font-weight: 600; }
.fail { color: var(--bad); font-weight: 600; }
.note { color: var(--muted); font-size: 13px; }
.chart { min-height: 240px; }
.legend-key { display: inline-block; width: 12px; height: 12px; vertical-align: middle; margin-right: 4px; }
`;
