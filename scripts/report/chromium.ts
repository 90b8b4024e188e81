/**
 * Opens a report.html in Debian's headless Chromium (driven by playwright-core; no browser download):
 * used by `npm run report:screenshot` and by the report's browser tests.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, Page } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** An opened page and how to close it (the browser and its own profile folder go with it). */
export interface OpenedPage {
  readonly page: Page;
  close(): Promise<void>;
}

/**
 * Launches a fresh Chromium (own user-data-dir, removed on close) and calls `before` with the page
 * before it loads the file (to attach listeners); waits for the load event.
 */
export async function openInChromium(
  file: string,
  opts: { viewport: { width: number; height: number }; executablePath?: string; before?: (page: Page, url: string) => void },
): Promise<OpenedPage> {
  const executablePath = opts.executablePath ?? DEFAULT_CHROMIUM;
  if (!fs.existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath, args: ARGS, headless: true, viewport: opts.viewport });
  const close = async () => {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const url = `file://${path.resolve(file)}`;
    opts.before?.(page, url);
    await page.goto(url, { waitUntil: 'load' });
    return { page, close };
  } catch (err) {
    await close();
    throw err;
  }
}
