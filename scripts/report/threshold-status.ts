/**
 * How one threshold's outcome reads, the same in the terminal summary, report.html and the comparison page.
 * A breached `strict: false` condition reads "breached (optional)", as artillery-plugin-ensure marks it, and
 * does not fail the run.
 */
import type { ThresholdResult } from './types';

export interface ThresholdStatus {
  /** ok | BREACHED | breached (optional), with the evaluation error when there was one. */
  readonly text: string;
  /** pass | fail | warn: the class the HTML pages colour it with. */
  readonly tone: 'pass' | 'fail' | 'warn';
}

export function thresholdStatus(t: Pick<ThresholdResult, 'ok' | 'error' | 'optional'>): ThresholdStatus {
  if (t.ok) return { text: 'ok', tone: 'pass' };
  const error = t.error ? ` (${t.error})` : '';
  return t.optional ? { text: `breached (optional)${error}`, tone: 'warn' } : { text: `BREACHED${error}`, tone: 'fail' };
}
