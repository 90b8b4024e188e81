/**
 * Scripts that drive a browser (Artillery's bundled playwright engine). The rig's install skips Playwright's browser
 * download (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1: the download needs the browser CDN, and the rig is sized for sockets),
 * so a playwright script found no browser at its first vuser: every load process died (`browserType.launch:
 * Executable doesn't exist …`), the run ended as a lost generator (exit 3, "rig failure") after it had started. Now
 * the browser is started once before anything else (locally: scripts/adapters/browser-launch.ts) and a script the
 * AWS generators could not run is refused. Pure: the launch itself comes in as a function.
 */
import * as path from 'node:path';
import { fillEnvTemplates } from './config-env';
import { isRecord } from './core/is-record';
import { enginesUsed } from './engines';
import { InterruptedBeforeStart, UsageError } from './errors';

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
  /**
   * chromium.launch's options as Artillery's engine builds them (its defaults, then config.engines.playwright.launchOptions),
   * their `{{ $env.NAME }}` / `{{ $processEnvironment.NAME }}` filled from the environment as Artillery fills a config's.
   */
  readonly launchOptions: Record<string, unknown>;
  /** A template is left in them (an unset variable, or one filled per vuser): the launch cannot be tried as the run would. */
  readonly templated: boolean;
}

/** Artillery 2.0.34's playwright engine (dist/index.js): `Object.assign({ headless: true, args: […] }, launchOptions)`. */
const ENGINE_DEFAULTS = { headless: true, args: ['--enable-precise-memory-info', '--disable-dev-shm-usage'] };

/** The browser the script needs, or undefined when no part of it runs the playwright engine. */
export function browserNeed(script: ScriptShape, env: Readonly<Record<string, string | undefined>> = {}): BrowserNeed | undefined {
  const where = enginesUsed(script).get('playwright');
  if (!where) return undefined;
  const engines = isRecord(script.config.engines) ? script.config.engines : {};
  const engine = isRecord(engines.playwright) ? engines.playwright : {};
  const { value, complete } = fillEnvTemplates(isRecord(engine.launchOptions) ? engine.launchOptions : {}, env);
  return { where, launchOptions: { ...ENGINE_DEFAULTS, ...(value as Record<string, unknown>) }, templated: !complete };
}

/** How to give Artillery's playwright engine a browser here. */
export const BROWSER_FIX =
  'install Playwright\'s browser (`npx playwright install chromium`; the rig\'s install skips its download) or point config.engines.playwright.launchOptions.executablePath at an installed Chromium (Debian: /usr/bin/chromium)';

/** What {@link assertBrowserStarts} is given: the environment the run's load processes get, the launch, a log line. */
export interface BrowserCheck {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Starts and closes the browser, rejecting with Playwright's error. */
  readonly launch: (options: Record<string, unknown>) => Promise<void>;
  readonly log: (line: string) => void;
}

/**
 * Starts the script's browser once and throws a UsageError naming the fix when it does not start; does nothing for a
 * script without the playwright engine. Launch options it cannot try as the run would (a template left in them) are
 * not tried, and a launch that only ran out of time is not a refusal (the run's own waits Playwright's 180 s): both
 * said. A relative `executablePath` is refused: the load processes run in the run folder, not here.
 */
export async function assertBrowserStarts(script: ScriptShape, check: BrowserCheck): Promise<void> {
  const need = browserNeed(script, check.env);
  if (!need) return;
  const where = need.where.join(', ');
  if (need.templated) {
    check.log(`note: ${where}: the playwright engine's browser is not started before the run: config.engines.playwright.launchOptions hold a template Artillery fills at run time`);
    return;
  }
  const exe = need.launchOptions.executablePath;
  if (typeof exe === 'string' && exe !== '' && !path.isAbsolute(exe)) {
    throw new UsageError(`${where}: config.engines.playwright.launchOptions.executablePath ${exe} is a relative path, which each load process would read from its own folder in the run folder; give the browser's absolute path (e.g. /usr/bin/chromium)`);
  }
  try {
    await check.launch(need.launchOptions);
  } catch (err) {
    if (err instanceof InterruptedBeforeStart) throw err;
    // Playwright's messages run over several lines (a framed hint follows the first): the first says what failed.
    const first = String((err as Error)?.message ?? err).split('\n').map((l) => l.trim()).find((l) => l !== '') ?? 'no error message';
    if ((err as Error)?.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(first)) {
      check.log(`note: ${where}: the playwright engine's browser did not start within the check's time (${first}); the run goes on, and its own launches wait longer`);
      return;
    }
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
