/**
 * Starts and closes the browser Artillery's playwright engine would start (edge adapter): the same `playwright`
 * package, resolved from the engine's own folder as its `import { chromium } from 'playwright'` resolves it.
 */
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { InterruptedBeforeStart } from '../errors';

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

/**
 * Starts the browser with `options` (a `timeout` of their own kept when shorter) and closes it; rejects with
 * Playwright's error. Playwright's SIGINT and SIGTERM handlers are off: by default a launch installs ones that close
 * the browser and call process.exit(130), which bypassed the CLI's interrupted line and summary; its SIGHUP one is
 * replaced (below). The run's
 * Ctrl-C aborts `signal`, which rejects at once with InterruptedBeforeStart. A launch cannot be aborted and its browser
 * runs in a process group of its own (the Ctrl-C does not reach it), so that is abandoned work: the CLI exits once it
 * has said so, and Playwright's exit handler kills what it started.
 */
export function launchBrowserOnce(options: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new InterruptedBeforeStart());
  const own = typeof options.timeout === 'number' && options.timeout > 0 ? options.timeout : Infinity;
  const launching = enginesChromium().launch({ ...options, timeout: Math.min(own, BROWSER_LAUNCH_TIMEOUT_MS), handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  const closed = launching.then((browser) => browser.close());
  // A hangup (the terminal gone): Playwright's own handler closed the browser but never exited, and the CLI has none.
  // The browser (in a process group of its own, which the hangup does not reach) is closed once it is up, then the
  // hangup ends the process as it would have.
  const onHangup = () => void closed.catch(() => undefined).finally(() => process.kill(process.pid, 'SIGHUP'));
  process.once('SIGHUP', onHangup);
  void closed.catch(() => undefined).finally(() => process.off('SIGHUP', onHangup));
  if (!signal) return closed;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new InterruptedBeforeStart(undefined, true));
    signal.addEventListener('abort', onAbort, { once: true });
    closed.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
