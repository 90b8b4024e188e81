/**
 * What running a script in several load processes changes for its `before`/`after` sections and its `log` steps,
 * said before the start (scripts/fan-out.ts), as the maxVusers and duration notes are.
 */
import { beforeAfterNote, logStepNote } from '../../scripts/fan-out';

const flow = (steps: unknown[]) => ({ config: {}, scenarios: [{ flow: steps }] });

describe('before/after: once per load process', () => {
  test('named with how many times the target sees them', () => {
    expect(beforeAfterNote({ ...flow([]), before: { flow: [{ get: { url: '/login' } }] } }, 4)).toBe(
      'note: the script\'s before section runs once in each of the 4 load processes (each is its own Artillery run), so the target sees its requests 4 times, not once as under plain artillery run',
    );
    expect(beforeAfterNote({ ...flow([]), before: { flow: [] }, after: { flow: [] } }, 2)).toMatch(/^note: the script's before and after sections run once in each of the 2 load processes .* sees their requests 2 times/);
    expect(beforeAfterNote({ ...flow([]), after: { flow: [] } }, 3)).toMatch(/^note: the script's after section runs once in each of the 3/);
  });
  test('one load process runs them once, as plain does; no section, no note', () => {
    expect(beforeAfterNote({ ...flow([]), before: { flow: [] } }, 1)).toBeUndefined();
    expect(beforeAfterNote(flow([]), 4)).toBeUndefined();
  });
});

describe('log steps: into the load processes\' logs', () => {
  test('a log step anywhere (nested in a loop, in before) is said, with where its lines go', () => {
    const note = 'note: the script\'s log steps (and a processor\'s console.log) print into each load process\'s log, runs/r1/generators/<g>/p<k>/artillery.log, not on this terminal as under plain artillery run';
    expect(logStepNote(flow([{ get: { url: '/' } }, { loop: [{ log: 'hi {{ n }}' }], count: 2 }]), 'runs/r1')).toBe(note);
    expect(logStepNote({ ...flow([]), before: { flow: [{ log: 'before' }] } }, 'runs/r1')).toBe(note);
    expect(logStepNote({ config: {}, scenarios: [{ flow: [{ parallel: [{ log: 'p' }] }] }] }, 'runs/r1')).toBe(note);
  });
  test('no log step, no note', () => {
    expect(logStepNote(flow([{ get: { url: '/log' } }, { think: 1 }]), 'runs/r1')).toBeUndefined();
  });
});
