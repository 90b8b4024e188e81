import { BROWSER_FIX, assertBrowserStarts, assertNoBrowserOnAws, browserNeed } from '../../scripts/browser';
import { UsageError } from '../../scripts/errors';

const script = (config: Record<string, unknown>, scenarios: unknown[], extra: Record<string, unknown> = {}) => ({ config, scenarios, ...extra });
const pw = script({ engines: { playwright: { launchOptions: { executablePath: '/opt/chrome', headless: false } } } }, [{ name: 'shop', engine: 'playwright', testFunction: 'f' }, { name: 'api', flow: [] }]);

describe('browserNeed: what Artillery 2.0.34 starts its playwright engine with', () => {
  test("the engine's defaults, then the script's launchOptions over them; where names the scenarios on the engine", () => {
    expect(browserNeed(pw)).toEqual({
      where: ['scenario "shop"'],
      launchOptions: { headless: false, args: ['--enable-precise-memory-info', '--disable-dev-shm-usage'], executablePath: '/opt/chrome' },
      templated: false,
    });
  });
  test('config.engine: playwright makes every scenario without its own engine a browser scenario; no launchOptions keeps the defaults', () => {
    expect(browserNeed(script({ engine: 'playwright', engines: { playwright: {} } }, [{ testFunction: 'f' }]))).toEqual({
      where: ['scenario 1'],
      launchOptions: { headless: true, args: ['--enable-precise-memory-info', '--disable-dev-shm-usage'] },
      templated: false,
    });
  });
  test('a script without the engine needs no browser', () => {
    expect(browserNeed(script({ engines: { socketio: {} } }, [{ engine: 'socketio', flow: [] }]))).toBeUndefined();
  });
});

describe('assertBrowserStarts', () => {
  const checking = (launch: (o: Record<string, unknown>) => Promise<void>, env: Record<string, string> = {}) => {
    const lines: string[] = [];
    return { lines, check: { env, launch, log: (l: string) => lines.push(l) } };
  };
  test('starts the browser with the merged options and passes when it starts', async () => {
    const seen: unknown[] = [];
    const { check, lines } = checking(async (o) => void seen.push(o));
    await assertBrowserStarts(pw, check);
    expect(seen).toEqual([browserNeed(pw)?.launchOptions]);
    expect(lines).toEqual([]);
  });
  test("a missing executable: one line quoting the first line of Playwright's message, and the two fixes", async () => {
    const err = new Error("browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/chromium_headless_shell-1234/chrome\n╔════╗\n║ Looks like Playwright was just installed ║\n╚════╝");
    const p = assertBrowserStarts(pw, checking(() => Promise.reject(err)).check);
    await expect(p).rejects.toBeInstanceOf(UsageError);
    await expect(p).rejects.toThrow(`scenario "shop" uses the playwright engine, and its browser does not start on this machine (browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/chromium_headless_shell-1234/chrome); ${BROWSER_FIX}`);
  });
  test('another launch failure (headless: false without a display) points at the launch options', async () => {
    const p = assertBrowserStarts(pw, checking(() => Promise.reject(new Error('browserType.launch: Target page, context or browser has been closed\nBrowser logs:\nMissing X server or $DISPLAY'))).check);
    await expect(p).rejects.toThrow(/\(browserType\.launch: Target page, context or browser has been closed\); fix config\.engines\.playwright\.launchOptions \(Artillery starts the browser with them\)$/);
  });
  test('a launch that only ran out of the check\'s time is not a refusal (the run\'s own launches wait 180 s): said, and the run goes on', async () => {
    const timeout = Object.assign(new Error('browserType.launch: Timeout 30000ms exceeded.\nCall log:\n  - <launching>'), { name: 'TimeoutError' });
    const { check, lines } = checking(() => Promise.reject(timeout));
    await assertBrowserStarts(pw, check);
    expect(lines).toEqual(["note: scenario \"shop\": the playwright engine's browser did not start within the check's time (browserType.launch: Timeout 30000ms exceeded.); the run goes on, and its own launches wait longer"]);
  });
  // Artillery fills a config's {{ $env.NAME }} before the run (the review found the check launching the template itself).
  test('launch options read from the environment are filled as Artillery fills them (set or not); one filled per vuser is not tried, and said', async () => {
    const templated = script({ engines: { playwright: { launchOptions: { executablePath: '{{ $env.MY_CHROME }}' } } } }, [{ engine: 'playwright', testFunction: 'f' }]);
    const seen: Array<Record<string, unknown>> = [];
    await assertBrowserStarts(templated, checking(async (o) => void seen.push(o), { MY_CHROME: '/usr/bin/chromium' }).check);
    expect(seen.map((o) => o.executablePath)).toEqual(['/usr/bin/chromium']);
    // {{{ }}} as Artillery's own pattern takes it (the review found "{/usr/bin/chromium}" refused as a relative path).
    const triple = script({ engines: { playwright: { launchOptions: { executablePath: '{{{ $processEnvironment.MY_CHROME }}}' } } } }, [{ engine: 'playwright', testFunction: 'f' }]);
    await assertBrowserStarts(triple, checking(async (o) => void seen.push(o), { MY_CHROME: '/usr/bin/chromium' }).check);
    expect(seen.map((o) => o.executablePath)).toEqual(['/usr/bin/chromium', '/usr/bin/chromium']);
    // An unset variable, as Artillery renders it: the whole value undefined (Playwright's own browser then), "undefined" inside text.
    const unset = checking(async (o) => void seen.push(o));
    await assertBrowserStarts(templated, unset.check);
    expect(seen[2]?.executablePath).toBeUndefined();
    const inText = script({ engines: { playwright: { launchOptions: { executablePath: '/opt/{{ $env.NOPE }}/chrome' } } } }, [{ engine: 'playwright', testFunction: 'f' }]);
    await assertBrowserStarts(inText, unset.check);
    expect(seen[3]?.executablePath).toBe('/opt/undefined/chrome');
    expect(unset.lines).toEqual([]);
    // Text around a template (spaces too) stays text, as Artillery renders it: " {{ $env.NOPE }}" is " undefined".
    const spaced = script({ engines: { playwright: { launchOptions: { executablePath: ' {{ $env.NOPE }}' } } } }, [{ engine: 'playwright', testFunction: 'f' }]);
    expect(browserNeed(spaced)?.launchOptions.executablePath).toBe(' undefined');
    // A template Artillery fills per vuser is not tried, and said.
    const perVuser = script({ engines: { playwright: { launchOptions: { executablePath: '{{ chrome }}' } } } }, [{ engine: 'playwright', testFunction: 'f' }]);
    await assertBrowserStarts(perVuser, unset.check);
    expect(seen).toHaveLength(4);
    expect(unset.lines).toEqual(["note: scenario 1: the playwright engine's browser is not started before the run: config.engines.playwright.launchOptions hold a template Artillery fills at run time"]);
  });
  test('a relative executablePath is refused: each load process would read it from its own folder in the run folder', async () => {
    const relative = script({ engines: { playwright: { launchOptions: { executablePath: './chrome/chrome' } } } }, [{ name: 'shop', engine: 'playwright', testFunction: 'f' }]);
    let calls = 0;
    await expect(assertBrowserStarts(relative, checking(async () => void calls++).check)).rejects.toThrow(
      'scenario "shop": config.engines.playwright.launchOptions.executablePath ./chrome/chrome is a relative path, which each load process would read from its own folder in the run folder; give the browser\'s absolute path (e.g. /usr/bin/chromium)',
    );
    expect(calls).toBe(0);
  });
  test('a script without the engine starts nothing', async () => {
    let calls = 0;
    await assertBrowserStarts(script({}, [{ flow: [] }]), checking(async () => void calls++).check);
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
