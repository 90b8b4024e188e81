/**
 * `{{ $env.NAME }}` and `{{ $processEnvironment.NAME }}` in the parts of a script's config the rig must know before
 * the run: its phases (it splits them over the load processes), its processor and payload paths (it checks them and,
 * on AWS, ships them). Artillery resolves every config template from the environment before it reads any of these
 * (util.ts resolveConfigTemplates), so `arrivalRate: "{{ $processEnvironment.RATE }}"` runs under `artillery run`;
 * the rig refused it as "not a number". Resolved here, from this machine's environment, as `artillery run` here would.
 * Other config values keep their templates for Artillery (a `config.variables` secret is never copied into a slice:
 * scripts/generator-modules.ts assertEnvOnGenerators). Pure.
 */
import { UsageError } from './errors';

const TEMPLATE = /\{\{\s*\$(env|processEnvironment)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** One string with its environment templates replaced; an unset variable is bad input, named with where it is read. */
function resolveString(value: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return value.replace(TEMPLATE, (all, _kind: string, name: string) => {
    const v = env[name];
    if (v === undefined) throw new UsageError(`${where} reads the environment variable ${name} (${all}), which is not set; export it and run again`);
    return v;
  });
}

function resolveDeep(value: unknown, env: Readonly<Record<string, string | undefined>>, where: string): unknown {
  if (typeof value === 'string') return resolveString(value, env, where);
  if (Array.isArray(value)) return value.map((v, i) => resolveDeep(v, env, `${where}[${i}]`));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeep(v, env, `${where}.${k}`)]));
  return value;
}

/**
 * The config with the environment templates of `phases`, `processor` and every payload's `path` resolved (the
 * rest as it was). `name` is the script's, for the error line.
 */
export function resolveConfigEnv<C extends Record<string, unknown>>(config: C, env: Readonly<Record<string, string | undefined>>, name: string): C {
  const out: Record<string, unknown> = { ...config };
  if (config.phases !== undefined) out.phases = resolveDeep(config.phases, env, `${name}: config.phases`);
  if (typeof config.processor === 'string') out.processor = resolveString(config.processor, env, `${name}: config.processor`);
  const payload = config.payload;
  const withPath = (p: unknown, where: string) =>
    p && typeof p === 'object' && typeof (p as { path?: unknown }).path === 'string'
      ? { ...(p as Record<string, unknown>), path: resolveString((p as { path: string }).path, env, `${where}.path`) }
      : p;
  if (Array.isArray(payload)) out.payload = payload.map((p, i) => withPath(p, `${name}: config.payload[${i}]`));
  else if (payload !== undefined) out.payload = withPath(payload, `${name}: config.payload`);
  return out as C;
}
