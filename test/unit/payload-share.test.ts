import { maxVusersNotes, payloadNotes } from '../../scripts/fan-out';
import { payloadShares, splitPhases } from '../../scripts/core/plan';
import { shareRows } from '../../load-generators/lib/payload-share';

const csv = ['id,name', ...Array.from({ length: 20 }, (_, i) => `${i + 1},"row ${i + 1}"`)].join('\n') + '\n';
const ids = (text: string) => text.trim().split('\n').map((l) => l.split(',')[0]);

describe('payload shares: a fanned-out run reads the rows one plain run reads', () => {
  test('20 rows, 20 vusers over 4 processes: every row exactly once', () => {
    const perProcess = [splitPhases([{ duration: 2, arrivalCount: 10 }], 2), splitPhases([{ duration: 2, arrivalCount: 10 }], 2)];
    const shares = payloadShares(perProcess).flat();
    expect(shares).toEqual([{ start: 0, count: 5 }, { start: 5, count: 5 }, { start: 10, count: 5 }, { start: 15, count: 5 }]);
    const used = shares.flatMap((s) => ids(shareRows(csv, s!, { skipHeader: true })).slice(1));
    expect(used.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
  });

  test('uneven processes get rows in proportion; more vusers than rows wrap as in a plain run', () => {
    const shares = payloadShares([[[{ duration: 1, arrivalCount: 17 }], [{ duration: 1, arrivalCount: 8 }]]]);
    expect(shares).toEqual([[{ start: 0, count: 17 }, { start: 17, count: 8 }]]);
    // Without skipHeader the header line is a row like any other (as Artillery reads it).
    expect(ids(shareRows(csv, { start: 17, count: 8 }, {}))).toEqual(['17', '18', '19', '20', 'id', '1', '2', '3']);
    expect(ids(shareRows(csv, { start: 17, count: 8 }, { skipHeader: true }))).toEqual(['id', '18', '19', '20', '1', '2', '3', '4', '5']);
  });

  test('processes without arrivals get no share; a single active process reads the file whole', () => {
    expect(payloadShares([[[{ duration: 1, arrivalCount: 3 }], [{ pause: 1 }]]])).toEqual([[undefined, undefined]]);
    expect(payloadShares([[[{ duration: 1, arrivalCount: 3 }], [{ pause: 1 }], [{ duration: 1, arrivalCount: 2 }]]])).toEqual([[{ start: 0, count: 3 }, undefined, { start: 3, count: 2 }]]);
  });

  test('quoted fields with delimiters and newlines, and custom delimiters, survive the cut', () => {
    const text = 'a;b\n1;"x;\ny"\n2;z\n';
    expect(shareRows(text, { start: 0, count: 1 }, { delimiter: ';' })).toBe('a;b\n');
    expect(shareRows(text, { start: 1, count: 1 }, { delimiter: ';' })).toBe('1;"x;\ny"\n');
    expect(shareRows(text, { start: 0, count: 1 }, { delimiter: ';', skipHeader: true })).toBe('a;b\n1;"x;\ny"\n');
  });
});

describe('payloadNotes', () => {
  test('the run says how a sequenced payload is read; random ones and single processes need no word', () => {
    const shares = [[{ start: 0, count: 5 }, { start: 5, count: 5 }], [{ start: 10, count: 5 }, { start: 15, count: 5 }]];
    expect(payloadNotes([{ path: '/data/users.csv', order: 'sequence' }, { path: 'b.csv' }], shares)).toEqual([
      expect.stringMatching(/^note: payload users\.csv \(order: sequence\): 4 load processes each read the rows of their planned arrivals \(1-5, 6-10, 11-15, …\)/),
    ]);
    expect(payloadNotes({ path: 'b.csv' }, shares)).toEqual([]);
    expect(payloadNotes({ path: 'a.csv', order: 'sequence' }, [[undefined, undefined]])).toEqual([]);
  });
});

describe('maxVusersNotes', () => {
  test('prints the split and the bound for a phase whose maxVusers is split', () => {
    const phases = [{ name: 'warm', duration: 10, arrivalRate: 4, maxVusers: 50 }, { duration: 5, arrivalRate: 2 }];
    const notes = maxVusersNotes(phases, [splitPhases(phases, 2)]);
    expect(notes).toEqual([expect.stringMatching(/^note: config\.phases\[0\] \("warm"\): maxVusers 50 is split 25\/25 over 2 load processes; .*at most 50 at once/)]);
  });
  test('nothing to say when one process holds the whole cap', () => {
    const phases = [{ duration: 10, arrivalCount: 1, maxVusers: 5 }];
    expect(maxVusersNotes(phases, [splitPhases(phases, 2)])).toEqual([]);
  });
});
