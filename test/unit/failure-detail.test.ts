/** What a failed SSM command's line quotes of its inline stderr (fleet-context.ts failureDetail). */
import { spawnSync } from 'node:child_process';
import { FAILURE_DETAIL_LINE_CHARS, failureDetail } from '../../scripts/platforms/aws/fleet-context';

// The SSM agent appends its own line to a failed AWS-RunShellScript command's stderr: "failed to run commands: exit
// status N" (seen after a command's own stderr, e.g. "cat: /wrong/file: No such file or directory\nfailed to run
// commands: exit status 1").
const SSM_SUFFIX = 'failed to run commands: exit status 1\n';

test("a Node crash quotes its error, not its stack frames, Node's version line or SSM's exit-status line", () => {
  // What node prints for an uncaught error: the source line, a caret, the error, its frames, `Node.js vNN`.
  const crash = spawnSync(process.execPath, ['-e', 'throw new TypeError("the real reason")'], { encoding: 'utf8' }).stderr;
  expect(crash).toMatch(/\n\s+at .*\n[\s\S]*Node\.js v\d+/);
  const detail = failureDetail(crash + SSM_SUFFIX, 3);
  expect(detail.endsWith('TypeError: the real reason')).toBe(true);
  expect(detail).not.toMatch(/\bat |Node\.js v|failed to run commands|\| \^ \|/);
  expect(failureDetail(crash + SSM_SUFFIX, 1)).toBe('TypeError: the real reason');
});

test("the agent's or the probe's own failure line is preferred, wherever the last error-shaped line is", () => {
  const agent = 'agent g01: starting\nagent: Error: no store at s3://b/runs/r\n    at main (/opt/loadtest-rig/agent.js:40:11)\n\nNode.js v22.12.0\n' + SSM_SUFFIX;
  expect(failureDetail(agent, 2)).toBe('agent g01: starting | agent: Error: no store at s3://b/runs/r');
  expect(failureDetail('preflight: no spec.json in s3://b/runs/r\n' + SSM_SUFFIX, 2)).toBe('preflight: no spec.json in s3://b/runs/r');
  // Lines after the last error-shaped one (progress, a warning) do not push it out.
  expect(failureDetail('RangeError: Maximum call stack size exceeded\nwaiting for the other processes\nstill waiting\n', 1)).toBe('RangeError: Maximum call stack size exceeded');
  // No error-shaped line: the last lines, as before.
  expect(failureDetail('fatal error: An error occurred (AccessDenied) when calling the ListObjectsV2 operation\n' + SSM_SUFFIX, 2)).toBe('fatal error: An error occurred (AccessDenied) when calling the ListObjectsV2 operation');
  expect(failureDetail(undefined, 3)).toBe('');
});

test(`each quoted line is cut to ${FAILURE_DETAIL_LINE_CHARS} characters (a bundled processor's source is one line)`, () => {
  const detail = failureDetail(`/opt/loadtest-rig/runs/r/scenario/processor.bundle.js:1\n${'var a=1;'.repeat(2500)}\nTypeError: x\n`, 3);
  const parts = detail.split(' | ');
  expect(parts).toHaveLength(3);
  expect(parts[1]).toHaveLength(FAILURE_DETAIL_LINE_CHARS);
  expect(parts[1]!.endsWith('…')).toBe(true);
  expect(parts[2]).toBe('TypeError: x');
});
