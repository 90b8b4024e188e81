/**
 * Scripts that drive a browser (Artillery's bundled playwright engine). The rig's install skips Playwright's browser
 * download (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1: the download needs the browser CDN, and the rig is sized for sockets),
 * so a playwright script found no browser at its first vuser: every load process died (`browserType.launch:
 * Executable doesn't exist …`), the run ended as a lost generator (exit 3, "rig failure") after it had started. Now
 * the browser is started once before anything else (locally: scripts/adapters/browser-launch.ts) and a script the
 * AWS generators could not run is refused. Pure: the launch itself comes in as a function.
 */
import { isRecord } from './core/is-record';
import { enginesUsed } from './engines';
import { UsageError } from './errors';

interface ScriptShape {
  readonly config: Record<string, unknown>;
  readonly scenarios: readonly unknown[];
  readonly before?: unknown;
  readonly after?: unknown;
}

/** What a playwright script starts its browser with, and where the script uses the engine. */
export interface BrowserNeed {
  /** `scenario "name"`, `before`… as scripts/engines.ts names them. */
  readonly where: readonly string[];
  /** chromium.launch's options as Artillery's engine builds them (its defaults, then config.engines.playwright.launchOptions). */
  readonly launchOptions: Record<string, unknown>;
}

/** Artillery 2.0.34's playwright engine (dist/index.js): `Object.assign({ headless: true, args: […] }, launchOptions)`. */
const ENGINE_DEFAULTS = { headless: true, args: ['--enable-precise-memory-info', '--disable-dev-shm-usage'] };

/** The browser the script needs, or undefined when no part of it runs the playwright engine. */
export function browserNeed(script: ScriptShape): BrowserNeed | undefined {
  const where = enginesUsed(script).get('playwright');
  if (!where) return undefined;
  const engines = isRecord(script.config.engines) ? script.config.engines : {};
  const engine = isRecord(engines.playwright) ? engines.playwright : {};
  const own = isRecord(engine.launchOptions) ? engine.launchOptions : {};
  return { where, launchOptions: { ...ENGINE_DEFAULTS, ...own } };
}

/** How to give Artillery's playwright engine a browser here. */
export const BROWSER_FIX =
  'install Playwright\'s browser (`npx playwright install chromium`; the rig\'s install skips its download) or point config.engines.playwright.launchOptions.executablePath at an installed Chromium (Debian: /usr/bin/chromium)';

/**
 * Starts the script's browser once (`launch`: start and close it, rejecting with Playwright's error) and throws a
 * UsageError naming the fix when it does not start; does nothing for a script without the playwright engine.
 */
export async function assertBrowserStarts(script: ScriptShape, launch: (options: Record<string, unknown>) => Promise<void>): Promise<void> {
  const need = browserNeed(script);
  if (!need) return;
  try {
    await launch(need.launchOptions);
  } catch (err) {
    // Playwright's messages run over several lines (a framed hint follows the first): the first says what failed.
    const first = String((err as Error)?.message ?? err).split('\n').map((l) => l.trim()).find((l) => l !== '') ?? 'no error message';
    const missing = /Executable doesn't exist|browserType\.launch: .*not found|ENOENT/i.test(first);
    throw new UsageError(
      `${need.where.join(', ')} uses the playwright engine, and its browser does not start on this machine (${first}); ${missing ? BROWSER_FIX : 'fix config.engines.playwright.launchOptions (Artillery starts the browser with them)'}`,
    );
  }
}

/**
 * Throws when the script runs the playwright engine and would run on AWS generators: they install Artillery without
 * a browser, so every vuser would fail after the fleet scaled.
 */
export function assertNoBrowserOnAws(script: ScriptShape): void {
  const need = browserNeed(script);
  if (!need) return;
  throw new UsageError(
    `${need.where.join(', ')} uses the playwright engine, but the AWS generators install Artillery without a browser (they are sized for sockets, not browsers), so every vuser would fail; run this script with --platform local`,
  );
}
