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

export function thresholdStatus(t: Pick<ThresholdResult, 'ok' | 'error' | 'optional' | 'note'>): ThresholdStatus {
  // Held only because a name it reads was never recorded: shown as a warning, so a typo does not look like a pass.
  if (t.ok) return t.note ? { text: `ok (${t.note})`, tone: 'warn' } : { text: 'ok', tone: 'pass' };
  const error = t.error ? ` (${t.error})` : t.note ? ` (${t.note})` : '';
  return t.optional ? { text: `breached (optional)${error}`, tone: 'warn' } : { text: `BREACHED${error}`, tone: 'fail' };
}
