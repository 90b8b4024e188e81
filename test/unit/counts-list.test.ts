import { countsList } from '../../scripts/core/counts-list';

describe('countsList', () => {
  test('each count, a run of three or more equal ones as count×times (a thousand generators with 5 vusers was a thousand counts)', () => {
    expect(countsList([101, 100, 100])).toBe('101/100/100');
    expect(countsList([100, 100, 100])).toBe('100×3');
    expect(countsList([...Array(5).fill(1), ...Array(995).fill(0)])).toBe('1×5/0×995');
    expect(countsList([2, 1, 1, 1, 0], ' / ')).toBe('2 / 1×3 / 0');
    expect(countsList([])).toBe('');
  });
});
