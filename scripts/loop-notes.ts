/**
 * Loops that never end under Artillery: a `loop` step whose `count` is 0 (or "0"). Artillery reads a count of 0 as
 * no count at all and repeats the loop for as long as the vuser lives, so `count: 0` — often meant as "skip" —
 * sends requests without end (a probe sent ~150,000 in two minutes to one loopback server), under plain
 * `artillery run` as under the rig, where only the run's deadline stops it. Said before the run. Pure.
 */
import type { ArtilleryScript } from './scenario';
import { isRecord } from './core/is-record';

function walk(flow: unknown, where: string, out: string[]): void {
  if (!Array.isArray(flow)) return;
  flow.forEach((raw, i) => {
    if (!isRecord(raw) || !Array.isArray(raw.loop)) return;
    const at = `${where} step ${i + 1} (loop)`;
    if (raw.count === 0 || raw.count === '0') out.push(at);
    walk(raw.loop, `${at}, its`, out);
  });
}

/** One note per script that has such loops, naming each, or none. */
export function endlessLoopNotes(script: ArtilleryScript, name: string): string[] {
  const found: string[] = [];
  script.scenarios.forEach((s, k) => {
    if (!isRecord(s)) return;
    walk(s.flow, `scenario ${typeof s.name === 'string' ? JSON.stringify(s.name) : k + 1}`, found);
  });
  for (const section of ['before', 'after'] as const) {
    const part = script[section];
    if (isRecord(part)) walk(part.flow, section, found);
  }
  if (!found.length) return [];
  return [`note: ${name}: ${found.join('; ')} has count: 0, which Artillery reads as no count: the loop repeats until the vuser ends, sending its requests without end (here until the run's deadline); to skip it, remove it or use ifTrue`];
}
