/** The first screen's findings and the errors table, from a synthetic report. */
import { elapsed, errorRows, findingsOf, phaseBands } from '../../scripts/report/findings';
import { formatSummaryTable } from '../../scripts/report/summary';
import { T0, hostileReport } from '../report/fixture';

const report = () => {
  const r = hostileReport();
  return {
    ...r,
    aggregate: {
      ...r.aggregate,
      counters: { ...r.aggregate.counters, 'ws.connected': 290, 'pubsub.vusers_zero_messages': 58, 'cookie.retry': 12, 'cookie.retry_reason.http_503': 10, 'cookie.retry_reason.ECONNRESET': 2 },
    },
  };
};

test('loss is red: receipt, missing messages, zero-message vusers, failed vusers, the first error; retries amber with their statuses', () => {
  const f = new Map(findingsOf(report()).map((x) => [x.id, x]));
  expect(f.get('vusers-failed')).toMatchObject({ severity: 'bad', value: 10, text: '10 of 300 (3.33%)' });
  expect(f.get('receipt')).toMatchObject({ severity: 'bad', text: '93.75% (3,000 of 3,200)' });
  expect(f.get('missing')).toMatchObject({ severity: 'bad', value: 200 });
  expect(f.get('zero-messages')).toMatchObject({ severity: 'bad', text: '58 of 290 connected (20%)' });
  expect(f.get('first-error')?.severity).toBe('bad');
  expect(f.get('first-error')?.text).toMatch(/in the period ending T\+0:20 \(10 errors of 1 type\)$/);
  expect(f.get('retries')).toMatchObject({ severity: 'warn', text: '12 (HTTP 503 × 10, ECONNRESET × 2)' });
});

test('a clean pub/sub run reads green', () => {
  const r = hostileReport();
  const clean = {
    ...r,
    intermediate: r.intermediate.map((p) => ({ ...p, counters: Object.fromEntries(Object.entries(p.counters).filter(([k]) => !k.startsWith('errors.'))) })),
    aggregate: { ...r.aggregate, counters: { 'vusers.created': 300, 'vusers.failed': 0, 'ws.connected': 300, 'pubsub.messages_received': 3200, 'pubsub.messages_expected': 3200, 'pubsub.vusers_zero_messages': 0 } },
  };
  expect(findingsOf(clean).filter((x) => x.severity !== 'ok')).toEqual([]);
});

test('errors table: count, share of vusers, first/last period, phase', () => {
  const [row] = errorRows(report());
  expect(row).toMatchObject({ count: 10, firstPeriod: T0 + 10_000, lastPeriod: T0 + 10_000, percentOfVusers: (100 * 10) / 300 });
  expect(row?.phase).toBe(phaseBands(report())[0]?.name);
  expect(elapsed(T0 - 3000, T0)).toBe('T+0:00');
  expect(elapsed(T0 + 75_000, T0)).toBe('T+1:15');
});

test('peak held at once: target connections and generator sockets next to --vusers N; short of N is amber', () => {
  const r = hostileReport();
  const held = (h: object) => new Map(findingsOf({ ...r, rig: { ...r.rig, held: h } }).map((x) => [x.id, x])).get('peak-held');
  expect(held({ requested: 400, targetConnections: 400, generatorSockets: 402 })).toMatchObject({
    severity: 'ok',
    value: 400,
    text: '400 target connections, 402 generator sockets (of --vusers 400)',
  });
  expect(held({ requested: 400, targetConnections: 300 })).toMatchObject({ severity: 'warn', text: '300 target connections (of --vusers 400)' });
  // A target without /metrics and no socket samples: nothing measured, so no figure (never the plan shown as measured).
  expect(held({ requested: 400 })).toBeUndefined();
  // A script that holds nothing (HTTP requests) and no --vusers: no row (was "0 generator sockets (plan: 6 at once)").
  expect(held({ generatorSockets: 0 })).toBeUndefined();
  expect(held({ requested: 400, generatorSockets: 0 })).toMatchObject({ text: '0 generator sockets (of --vusers 400)' });
});

test('the terminal summary shows the peak held next to N', () => {
  const r = hostileReport();
  const table = formatSummaryTable({ ...r, rig: { ...r.rig, held: { requested: 400, targetConnections: 399, generatorSockets: 400 } } });
  expect(table).toMatch(/peak held at once\s+399 target connections, 400 generator sockets \(of --vusers 400\)/);
});

test('phase bands read every duration as the load processes got it: "500ms" and "2s" too (Number() made them NaN and dropped them)', () => {
  const r = { ...report(), phases: [{ phases: [{ duration: 2, arrivalRate: 1, name: 'warm' }, { duration: '500ms', arrivalRate: 2, name: 'frac' }, { duration: '2s', arrivalRate: 1, name: 'units' }] }] } as never;
  const bands = phaseBands(r);
  expect(bands.slice(0, 3).map((b) => [b.name, b.to - b.from])).toEqual([['warm', 2000], ['frac', 500], ['units', 2000]]);
});

test('peak held: "not sampled" when sessions were shorter than the 5-s sampling (was "0 generator sockets" with 20 vusers held 2 s)', () => {
  const r = hostileReport();
  const held = (h: object, rigScenario = r.rigScenario) => new Map(findingsOf({ ...r, ...(rigScenario ? { rigScenario } : {}), rig: { ...r.rig, held: h } }).map((x) => [x.id, x])).get('peak-held');
  expect(held({ requested: 20, notSampled: 'sessions shorter than the 5-s sampling' })).toMatchObject({ severity: 'ok', value: null, text: 'not sampled (sessions shorter than the 5-s sampling) (of --vusers 20)' });
  // Nothing asked to be held (a script of short HTTP requests, no --vusers): no row at all.
  expect(held({ notSampled: 'sessions shorter than the 5-s sampling' })).toBeUndefined();
  const table = formatSummaryTable({ ...r, rig: { ...r.rig, held: { requested: 20, notSampled: 'sessions shorter than the 5-s sampling' } } });
  expect(table).toMatch(/peak held at once\s+not sampled \(sessions shorter than the 5-s sampling\) \(of --vusers 20\)/);
  // A publisher's keep-alive HTTP connections are the generators' too: connections, not vusers (13 "of --vusers 10").
  expect(held({ requested: 10, generatorSockets: 13 }, 'pubsub')?.text).toBe("13 generator connections (the vusers' and the publisher's) (of --vusers 10)");
  expect(held({ requested: 10, generatorSockets: 10 }, 'connect')?.text).toBe('10 generator sockets (of --vusers 10)');
});
