/**
 * A TypeScript processor is compiled once per load process into its own spool (Artillery's own esbuild call), not
 * by every load process into one dist/ beside the script; and before the run, so a compile error or a function it
 * does not export is bad input (exit 2), as for a .js processor.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadScenario } from '../../scripts/scenario';
import { checkScriptFiles } from '../../scripts/script-check';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { bundleTypescriptProcessor, SliceError } = require('../../load-generators/lib/agent-slice') as {
  bundleTypescriptProcessor(script: { config: Record<string, unknown> }, spool: string): false | { metafile: { inputs: Record<string, unknown> } };
  SliceError: new (m: string) => Error;
};

const SCENARIOS = path.join(__dirname, '..', '..', 'load-generators', 'scenarios');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ts-proc-'));
fs.writeFileSync(path.join(dir, 'proc.ts'), 'export async function typed(ctx: { vars: Record<string, unknown> }): Promise<void> { const n: number = 1; ctx.vars.n = n; }\n');
fs.writeFileSync(path.join(dir, 'broken.ts'), 'export function typed(: number {\n');

describe('bundleTypescriptProcessor', () => {
  test("bundles into the process's spool and points the script at it; nothing is written beside the script", () => {
    const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ts-spool-'));
    const script = { config: { processor: path.join(dir, 'proc.ts') } };
    const bundled = bundleTypescriptProcessor(script, spool);
    // esbuild's metafile names what it bundled (the pre-run check reads it), relative to the working folder.
    expect(bundled && Object.keys(bundled.metafile.inputs).map((f) => path.resolve(f))).toEqual([path.join(dir, 'proc.ts')]);
    expect(script.config.processor).toBe(path.join(spool, 'processor', 'proc.js'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(Object.keys(require(script.config.processor as string))).toEqual(['typed']);
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test("__dirname and __filename are what plain Artillery's bundle sees (<processor's folder>/dist/<name>.js), not the spool", () => {
    const sub = fs.mkdtempSync(path.join(dir, 'beside-'));
    fs.writeFileSync(path.join(sub, 'beside.txt'), 'found');
    fs.writeFileSync(path.join(sub, 'reader.ts'), "import * as fs from 'fs';\nimport * as path from 'path';\nexport const where = { dir: __dirname, file: __filename, beside: fs.readFileSync(path.join(__dirname, '..', 'beside.txt'), 'utf8') };\n");
    const script = { config: { processor: path.join(sub, 'reader.ts') } };
    bundleTypescriptProcessor(script, fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ts-spool-')));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(require(script.config.processor as string).where).toEqual({ dir: path.join(sub, 'dist'), file: path.join(sub, 'dist', 'reader.js'), beside: 'found' });
    expect(fs.existsSync(path.join(sub, 'dist'))).toBe(false);
  });

  test('a .js processor is left alone; a processor that does not compile is a SliceError naming the file', () => {
    const js = { config: { processor: '/x/p.js' } };
    expect(bundleTypescriptProcessor(js, dir)).toBe(false);
    expect(js.config.processor).toBe('/x/p.js');
    expect(() => bundleTypescriptProcessor({ config: { processor: path.join(dir, 'broken.ts') } }, dir)).toThrow(SliceError);
    expect(() => bundleTypescriptProcessor({ config: { processor: path.join(dir, 'broken.ts') } }, dir)).toThrow(/broken\.ts does not compile: .*Expected identifier/);
  });
});

describe('checkScriptFiles with a TypeScript processor', () => {
  const check = (name: string, body: string) => () => {
    fs.writeFileSync(path.join(dir, name), body);
    checkScriptFiles(loadScenario(path.join(dir, name), SCENARIOS));
  };
  test('a function it does not export is named with its exports', () => {
    expect(check('typo.yml', 'config: { target: "http://x", processor: ./proc.ts }\nscenarios:\n  - flow: [ { function: typo } ]\n')).toThrow(/function "typo" is not exported by .*proc\.ts \(exports: typed\)/);
    expect(check('ok.yml', 'config: { target: "http://x", processor: ./proc.ts }\nscenarios:\n  - flow: [ { function: typed } ]\n')).not.toThrow();
  });
  test('a processor that reads a file beside it through __dirname at load time passes the check, as under plain artillery', () => {
    fs.writeFileSync(path.join(dir, 'beside.txt'), 'here');
    fs.writeFileSync(path.join(dir, 'loads-beside.ts'), "import * as fs from 'fs';\nimport * as path from 'path';\nconst text: string = fs.readFileSync(path.join(__dirname, '..', 'beside.txt'), 'utf8');\nexport function typed(ctx: { vars: Record<string, unknown> }): void { ctx.vars.text = text; }\n");
    expect(check('beside.yml', 'config: { target: "http://x", processor: ./loads-beside.ts }\nscenarios:\n  - flow: [ { function: typed } ]\n')).not.toThrow();
  });
  test('a package left external (config.bundling.external) is found in node_modules beside the script, as plain artillery finds it', () => {
    fs.mkdirSync(path.join(dir, 'node_modules', 'beside-pkg'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'beside-pkg', 'index.js'), 'module.exports = { n: 5 };\n');
    fs.writeFileSync(path.join(dir, 'external.ts'), "import { n } from 'beside-pkg';\nexport function typed(ctx: { vars: Record<string, unknown> }): void { ctx.vars.n = n; }\n");
    expect(check('external.yml', 'config: { target: "http://x", processor: ./external.ts, bundling: { external: [beside-pkg] } }\nscenarios:\n  - flow: [ { function: typed } ]\n')).not.toThrow();
  });
  test('a compile error is bad input, with the compiler\'s line', () => {
    expect(check('broken.yml', 'config: { target: "http://x", processor: ./broken.ts }\nscenarios:\n  - flow: [ { function: typed } ]\n')).toThrow(/config\.processor .*broken\.ts: does not compile: .*Expected identifier/);
  });
});

describe("a bundled TypeScript processor's errors point into the .ts file (load process started with source maps)", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { supervisor } = require('../../load-generators/lib/agent-supervisor') as {
    supervisor(opts: { clock: { now(): number; sleep(ms: number): Promise<void> } }): {
      procs: Array<{ exit?: number | null; why: string }>;
      start(k: number, spool: string, secrets: Record<string, string>, rigEnv: Record<string, string>, how?: { sourceMaps?: boolean }): void;
    };
  };
  test('a processor that throws outside a step: the crash line names thrower.ts, not the bundle', async () => {
    fs.writeFileSync(path.join(dir, 'thrower.ts'), "const late: number = 5;\nexport function boom(_c: unknown, _e: unknown, done: () => void): void {\n  setTimeout(() => { throw new Error('from ts'); }, late);\n  done();\n}\n");
    const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ts-crash-'));
    const script = { config: { target: 'http://127.0.0.1:9', processor: path.join(dir, 'thrower.ts'), phases: [{ duration: 1, arrivalCount: 1 }] }, scenarios: [{ flow: [{ function: 'boom' }] }] };
    expect(bundleTypescriptProcessor(script, spool)).toBeTruthy();
    fs.writeFileSync(path.join(spool, 'script.json'), JSON.stringify(script));
    const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
    const sup = supervisor({ clock });
    sup.start(0, spool, {}, {}, { sourceMaps: true });
    const deadline = Date.now() + 60_000;
    while (sup.procs[0]!.exit === undefined && Date.now() < deadline) await clock.sleep(100);
    expect(sup.procs[0]!.why).toMatch(/Error: from ts \(thrown by your code at \S*thrower\.ts:3:\d+\)$/);
  }, 90_000);
});
