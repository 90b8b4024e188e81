/**
 * Starts and closes the browser Artillery's playwright engine would start (edge adapter): the same `playwright`
 * package, resolved from the engine's own folder as its `import { chromium } from 'playwright'` resolves it.
 */
import * as path from 'node:path';
import { createRequire } from 'node:module';

/** How long the browser may take to start before the check gives up (Playwright's own default is 180 s). */
export const BROWSER_LAUNCH_TIMEOUT_MS = 30_000;

interface Chromium {
  launch(options: Record<string, unknown>): Promise<{ close(): Promise<void> }>;
}

/** Artillery's playwright engine's `chromium`. */
function enginesChromium(): Chromium {
  const engine = path.join(path.dirname(require.resolve('artillery/package.json')), 'dist', 'builtin-packages', 'artillery-engine-playwright', 'package.json');
  return (createRequire(engine)('playwright') as { chromium: Chromium }).chromium;
}

/** Starts the browser with `options` (a `timeout` of their own kept when shorter) and closes it; rejects with Playwright's error. */
export async function launchBrowserOnce(options: Record<string, unknown>): Promise<void> {
  const own = typeof options.timeout === 'number' && options.timeout > 0 ? options.timeout : Infinity;
  const browser = await enginesChromium().launch({ ...options, timeout: Math.min(own, BROWSER_LAUNCH_TIMEOUT_MS) });
  await browser.close();
}
