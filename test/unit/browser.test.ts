import { BROWSER_FIX, assertBrowserStarts, assertNoBrowserOnAws, browserNeed } from '../../scripts/browser';
import { UsageError } from '../../scripts/errors';

const script = (config: Record<string, unknown>, scenarios: unknown[], extra: Record<string, unknown> = {}) => ({ config, scenarios, ...extra });
const pw = script({ engines: { playwright: { launchOptions: { executablePath: '/opt/chrome', headless: false } } } }, [{ name: 'shop', engine: 'playwright', testFunction: 'f' }, { name: 'api', flow: [] }]);

describe('browserNeed: what Artillery 2.0.34 starts its playwright engine with', () => {
  test("the engine's defaults, then the script's launchOptions over them; where names the scenarios on the engine", () => {
    expect(browserNeed(pw)).toEqual({
      where: ['scenario "shop"'],
      launchOptions: { headless: false, args: ['--enable-precise-memory-info', '--disable-dev-shm-usage'], executablePath: '/opt/chrome' },
    });
  });
  test('config.engine: playwright makes every scenario without its own engine a browser scenario; no launchOptions keeps the defaults', () => {
    expect(browserNeed(script({ engine: 'playwright', engines: { playwright: {} } }, [{ testFunction: 'f' }]))).toEqual({
      where: ['scenario 1'],
      launchOptions: { headless: true, args: ['--enable-precise-memory-info', '--disable-dev-shm-usage'] },
    });
  });
  test('a script without the engine needs no browser', () => {
    expect(browserNeed(script({ engines: { socketio: {} } }, [{ engine: 'socketio', flow: [] }]))).toBeUndefined();
  });
});

describe('assertBrowserStarts', () => {
  test('starts the browser with the merged options and passes when it starts', async () => {
    const seen: unknown[] = [];
    await assertBrowserStarts(pw, async (o) => void seen.push(o));
    expect(seen).toEqual([browserNeed(pw)?.launchOptions]);
  });
  test('a missing executable: one line quoting the first line of Playwright\'s message, and the two fixes', async () => {
    const err = new Error("browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/chromium_headless_shell-1234/chrome\n╔════╗\n║ Looks like Playwright was just installed ║\n╚════╝");
    const p = assertBrowserStarts(pw, () => Promise.reject(err));
    await expect(p).rejects.toBeInstanceOf(UsageError);
    await expect(p).rejects.toThrow(`scenario "shop" uses the playwright engine, and its browser does not start on this machine (browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/chromium_headless_shell-1234/chrome); ${BROWSER_FIX}`);
  });
  test('another launch failure (headless: false without a display) points at the launch options', async () => {
    const p = assertBrowserStarts(pw, () => Promise.reject(new Error('browserType.launch: Target page, context or browser has been closed\nBrowser logs:\nMissing X server or $DISPLAY')));
    await expect(p).rejects.toThrow(/\(browserType\.launch: Target page, context or browser has been closed\); fix config\.engines\.playwright\.launchOptions \(Artillery starts the browser with them\)$/);
  });
  test('a script without the engine starts nothing', async () => {
    let calls = 0;
    await assertBrowserStarts(script({}, [{ flow: [] }]), async () => void calls++);
    expect(calls).toBe(0);
  });
});

describe('assertNoBrowserOnAws', () => {
  test('a playwright script is refused for the AWS generators, which install no browser, naming --platform local', () => {
    expect(() => assertNoBrowserOnAws(pw)).toThrow(new UsageError('scenario "shop" uses the playwright engine, but the AWS generators install Artillery without a browser (they are sized for sockets, not browsers), so every vuser would fail; run this script with --platform local'));
  });
  test('a socket script passes', () => {
    expect(() => assertNoBrowserOnAws(script({}, [{ engine: 'socketio', flow: [] }]))).not.toThrow();
  });
});
