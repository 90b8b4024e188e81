/**
 * Messages are booked in the period they arrive: the processors' real receiver and report step, driven
 * by hand through three reporting periods. Received messages per period sum to the total and equal the
 * delivery histogram's count of the same period; expected messages are booked per tick for every
 * subscribed receiver, so a withheld receiver's loss shows while it happens, not when it ends.
 */
import { EventEmitter } from 'node:events';

type Shared = {
  Receiver: new (events: EventEmitter, offset: number, latency: string, received: string) => { onMessage(msg: unknown): unknown; received: number };
  expectMessages: (events: EventEmitter, metric: string) => { end(): number };
};
type Pubsub = { pubsubReport: (context: Record<string, unknown>, events: EventEmitter) => Promise<void> };

/** Artillery's metrics as the plugin sees them: counters and histogram counts booked into the current period. */
function periodBook() {
  const periods: Array<{ counters: Record<string, number>; histogramCounts: Record<string, number> }> = [];
  let current = -1;
  const events = new EventEmitter();
  const next = () => {
    periods.push({ counters: {}, histogramCounts: {} });
    current = periods.length - 1;
  };
  events.on('counter', (name: string, v: number) => {
    const p = periods[current];
    if (p) p.counters[name] = (p.counters[name] ?? 0) + v;
  });
  events.on('histogram', (name: string) => {
    const p = periods[current];
    if (p) p.histogramCounts[name] = (p.histogramCounts[name] ?? 0) + 1;
  });
  return { events, periods, next };
}

test('received per period = delivery samples per period, sums to the total; expected booked per tick; zero-message vuser at its end', async () => {
  await jest.isolateModulesAsync(async () => {
    const shared = (await import('../../load-generators/processors/shared')) as unknown as Shared;
    const pubsub = (await import('../../load-generators/processors/pubsub')) as unknown as Pubsub;
    const { events, periods, next } = periodBook();
    const msg = (seq: number) => ({ room: 'r', serverAt: Date.now(), payload: { sentAt: Date.now() - 5, offsetMs: 0, publisher: 'pub', seq } });
    const vuser = () => ({ rx: new shared.Receiver(events, 0, 'pubsub.delivery_latency', 'pubsub.messages_received'), expected: shared.expectMessages(events, 'pubsub.messages_expected') });

    next(); // period 0: three subscribers; C is withheld by the target; ticks 1 and 2 reach A and B
    const a = vuser();
    const b = vuser();
    const c = vuser();
    for (const seq of [1, 2]) for (const v of [a, b]) v.rx.onMessage(msg(seq));
    next(); // period 1: ticks 3 and 4; B's socket drops after tick 4; tick 5 reaches A only
    for (const seq of [3, 4]) for (const v of [a, b]) v.rx.onMessage(msg(seq));
    b.expected.end();
    a.rx.onMessage(msg(5));
    next(); // period 2: every vuser ends
    for (const v of [a, b, c]) await pubsub.pubsubReport({ rigPubsub: v }, events);

    const received = periods.map((p) => p.counters['pubsub.messages_received'] ?? 0);
    expect(received).toEqual([4, 5, 0]);
    expect(periods.map((p) => p.histogramCounts['pubsub.delivery_latency'] ?? 0)).toEqual(received);
    expect(received.reduce((x, y) => x + y, 0)).toBe(a.rx.received + b.rx.received + c.rx.received);
    // Expected: 2 ticks × 3 subscribers, then 2 × 3 + 1 × 2 (B gone), nothing left to book at the end.
    expect(periods.map((p) => p.counters['pubsub.messages_expected'] ?? 0)).toEqual([6, 8, 0]);
    // In total what each vuser expected: A 5, B 4 (until its drop), C 5.
    expect(periods.reduce((x, p) => x + (p.counters['pubsub.messages_expected'] ?? 0), 0)).toBe(5 + 4 + 5);
    expect(periods.map((p) => p.counters['pubsub.vusers_zero_messages'] ?? 0)).toEqual([0, 0, 1]);
  });
});

test('a vuser that received more than the process saw published books the difference when it ends', async () => {
  await jest.isolateModulesAsync(async () => {
    const shared = (await import('../../load-generators/processors/shared')) as unknown as Shared;
    const pubsub = (await import('../../load-generators/processors/pubsub')) as unknown as Pubsub;
    const { events, periods, next } = periodBook();
    next();
    const rx = new shared.Receiver(events, 0, 'pubsub.delivery_latency', 'pubsub.messages_received');
    // Subscribed after the publisher's tick 3 was already seen: ticks since = 0, but it gets a late copy of 3.
    const other = new shared.Receiver(events, 0, 'pubsub.delivery_latency', 'pubsub.messages_received');
    other.onMessage({ payload: { sentAt: Date.now(), publisher: 'pub', seq: 3 } });
    const expected = shared.expectMessages(events, 'pubsub.messages_expected');
    rx.onMessage({ payload: { sentAt: Date.now(), publisher: 'pub', seq: 3 } });
    next();
    await pubsub.pubsubReport({ rigPubsub: { rx, expected } }, events);
    expect(periods.map((p) => p.counters['pubsub.messages_expected'] ?? 0)).toEqual([0, 1]);
    expect(periods.map((p) => p.counters['pubsub.messages_received'] ?? 0)).toEqual([2, 0]);
  });
});
