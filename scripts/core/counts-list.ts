/**
 * A list of per-generator counts, as the run line and the summary table show it: each count, with a run of three or
 * more equal ones as `count×times` (`--generators 1000` with 5 vusers printed a thousand counts). Pure.
 */
export function countsList(counts: readonly number[], separator = '/'): string {
  const parts: string[] = [];
  for (let i = 0; i < counts.length; ) {
    let j = i;
    while (j < counts.length && counts[j] === counts[i]) j++;
    const n = j - i;
    parts.push(n >= 3 ? `${counts[i]}×${n}` : Array.from({ length: n }, () => String(counts[i])).join(separator));
    i = j;
  }
  return parts.join(separator);
}
