/**
 * report.html's stylesheet: one column that reads at laptop width and at phone width (tables scroll
 * inside their card instead of wrapping letter by letter; the findings reflow into one column).
 */
export const REPORT_CSS = `
:root { --ok: #1a7f37; --bad: #c62828; --warn: #b26a00; --line: #d0d7de; --muted: #57606a; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; margin: 0; background: #f6f8fa; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 18px; margin: 4px 0 2px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 14px 0 4px; overflow-wrap: anywhere; }
.meta { color: var(--muted); overflow-wrap: anywhere; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 10px 0; overflow-x: auto; }
.result { border-radius: 8px; padding: 12px 16px; margin: 12px 0 8px; color: #fff; }
.result.passed { background: var(--ok); }
.result.failed { background: var(--bad); }
.result-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; }
.result-word { font-size: 28px; font-weight: 800; letter-spacing: 0.04em; }
.result .exit { font-size: 15px; font-weight: 600; opacity: 0.95; }
.result ul { margin: 8px 0 0; padding-left: 20px; font-size: 15px; }
.result li { overflow-wrap: anywhere; }
.badge { display: inline-block; border-radius: 12px; padding: 2px 10px; font-size: 13px; font-weight: 600; background: #fff; text-decoration: none; }
.badge.ok { color: var(--ok); }
.badge.bad { color: var(--bad); }
.badge.warn { color: var(--warn); }
.findings { border-left: 6px solid var(--ok); }
.findings.warn { border-left-color: var(--warn); }
.findings.bad { border-left-color: var(--bad); background: #fff5f5; }
.findings h2 { margin-top: 0; border: 0; }
.findings dl { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 8px 16px; margin: 0; }
.finding { border-left: 4px solid var(--ok); padding: 2px 8px; }
.finding dt { color: var(--muted); font-size: 12px; }
.finding dd { margin: 0; font-size: 16px; font-weight: 600; overflow-wrap: anywhere; }
.finding.warn { border-left-color: var(--warn); }
.finding.warn dd { color: var(--warn); }
.finding.bad { border-left-color: var(--bad); }
.finding.bad dd { color: var(--bad); }
.verdict { border-left: 6px solid var(--ok); }
.verdict.rig-limited { border-left-color: var(--bad); }
.verdict.partial { border-left-color: var(--warn); }
.verdict .label { font-weight: 700; font-size: 16px; text-transform: uppercase; }
.verdict.trustworthy .label { color: var(--ok); }
.verdict.rig-limited .label { color: var(--bad); }
.verdict.partial .label { color: var(--warn); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
th { font-weight: 600; color: var(--muted); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { overflow-wrap: anywhere; min-width: 12ch; }
.pass { color: var(--ok); font-weight: 600; }
.fail { color: var(--bad); font-weight: 600; }
.warn { color: var(--warn); font-weight: 600; }
.note { color: var(--muted); font-size: 13px; }
.chart { min-height: 240px; }
.dist-grid { display: grid; grid-template-columns: minmax(200px, 1fr) 2fr; gap: 12px; align-items: start; }
.bar-row { display: grid; grid-template-columns: 13ch 1fr 8ch; gap: 6px; align-items: center; font-size: 12px; font-variant-numeric: tabular-nums; }
.bar-track { background: #eef1f4; height: 12px; border-radius: 2px; }
.bar { display: block; background: #1f77b4; height: 12px; border-radius: 2px; }
.bar-count { text-align: right; }
@media (max-width: 640px) {
  main { padding: 8px 8px 32px; }
  .dist-grid { grid-template-columns: 1fr; }
  .result-word { font-size: 24px; }
  .findings dl { grid-template-columns: 1fr; }
}
`;
