/**
 * `loop` with `count: 0`: Artillery 2.0.34 reads 0 as no count and repeats the loop without end (checked: plain
 * `artillery run` logged 4,361 iterations of a one-vuser `count: 0` loop in 10 s, and never ended by itself).
 */
import { endlessLoopNotes } from '../../scripts/loop-notes';

describe('loops Artillery never ends', () => {
  test('count 0 or "0" is named before the run, nested and in before/after too; other counts are not', () => {
    const script = {
      config: {},
      scenarios: [
        { name: 'main', flow: [{ get: { url: '/' } }, { loop: [{ get: { url: '/a' } }, { loop: [{ think: 1 }], count: '0' }], count: 3 }] },
        { flow: [{ loop: [{ get: { url: '/b' } }], count: 0 }] },
        { flow: [{ loop: [{ get: { url: '/c' } }], count: 2 }, { loop: [{ get: { url: '/d' } }], over: 'items' }] },
      ],
      before: { flow: [{ loop: [{ get: { url: '/e' } }], count: 0 }] },
    };
    expect(endlessLoopNotes(script, 'my.yml')).toEqual([
      'note: my.yml: scenario "main" step 2 (loop), its step 2 (loop); scenario 2 step 1 (loop); before step 1 (loop) has count: 0, which Artillery reads as no count: the loop repeats until the vuser ends, sending its requests without end (here until the run\'s deadline); to skip it, remove it or use ifTrue',
    ]);
    expect(endlessLoopNotes({ config: {}, scenarios: [{ flow: [{ loop: [{ think: 1 }], count: 1 }] }, 'not a scenario'] }, 'ok.yml')).toEqual([]);
  });
});
