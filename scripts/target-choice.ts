/**
 * Which target a run aims at, decided once before anything starts and printed:
 *  - `--target URL` wins;
 *  - a user's own script runs against its own `config.target` (after `-e/--environment`), as plain
 *    `artillery run` would; the rig never replaces it silently;
 *  - the built-in scenarios (or `--target reference`) get the reference target the platform provides
 *    (started locally, or the deployed target stack on AWS).
 * Pure apart from the environment it is handed.
 */
import * as path from 'node:path';
import { redactUrl } from './core/redact';
import { isRecord } from './core/is-record';
import { UsageError } from './errors';
import { checkTargetUrl } from './target-url';
import { resolveConfigFunctions, resolveKnownTemplates } from './config-env';
import type { RunOptions } from './options';
import type { LoadedScenario } from './scenario';

/** Where the run's target came from. */
export type TargetSource = 'flag' | 'script' | 'reference';

/** The decision: the options to run with (target filled in for a script) and the line to print. */
export interface TargetChoice {
  readonly options: RunOptions;
  readonly source: TargetSource;
  /** Printed before the run; undefined when the platform prints its reference target itself. */
  readonly line?: string;
}

const TEMPLATE = /\{\{\s*([^}]*?)\s*\}\}/g;

/**
 * Resolves the `{{ $env.NAME }}` / `{{ $processEnvironment.NAME }}` templates Artillery allows in
 * `config.target`; anything else in braces cannot be known before the run and is bad input, and so is a template
 * that would name no server (`{{ $dirname }}`: {@link placeTemplateRefusal}, when the script is given).
 */
export function resolveTargetTemplate(value: string, env: Readonly<Record<string, string | undefined>>, where: string, scenario?: LoadedScenario): string {
  const refusal = scenario && placeTemplateRefusal(value, where, scenario);
  if (refusal) throw new UsageError(refusal);
  return value.replace(TEMPLATE, (_all, expr: string) => {
    const m = /^\$(env|processEnvironment)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
    if (!m) throw new UsageError(`${where} uses {{ ${expr} }}, which the rig cannot resolve before the run; write the URL, use {{ $env.NAME }}, set it with --var NAME=VALUE (as artillery run -v), or pass --target URL`);
    const v = env[m[2] as string];
    if (v === undefined || v === '') throw new UsageError(`${where} needs the environment variable ${m[2]} ({{ ${expr} }}), which is not set; export it or pass --target URL`);
    return v;
  });
}

/**
 * A target that uses `{{ $dirname }}`, `{{ $scenarioFile }}` or, with no `-e NAME`, `{{ $environment }}`: why the rig
 * refuses it, or undefined. Plain `artillery run` (and `-t`) fills them before the run (util.ts resolveConfigTemplates):
 * the script's folder as its path was typed (`sub` for `artillery run sub/my.yml`), the script's absolute path, and the
 * `-e` name, which without one renders as the text "undefined". The first two put a file path into the target's URL,
 * the third a word the script never names; no server is meant by either, so the run is refused with the fix instead of
 * sending its load there (as an `-e NAME` the script does not define is refused: a typo must not send it elsewhere).
 */
function placeTemplateRefusal(value: string, where: string, scenario: LoadedScenario): string | undefined {
  const names = [...value.matchAll(TEMPLATE)].map((m) => (m[1] ?? '').replace(/^\{\s*/, ''));
  const fix = 'write the URL out (a part that changes as {{ NAME }} with --var NAME=VALUE), or pass --target URL';
  if (names.includes('$dirname')) {
    return `${where} uses {{ $dirname }}: plain artillery run fills it with the script's folder as its path was typed (sub for artillery run sub/${path.basename(scenario.file)}, . from inside that folder), which puts a file path into the target URL; a target is a server's address: ${fix}`;
  }
  if (names.includes('$scenarioFile')) {
    return `${where} uses {{ $scenarioFile }}: plain artillery run fills it with the script's own path (${scenario.file}), which puts a file path into the target URL; a target is a server's address: ${fix}`;
  }
  if (names.includes('$environment')) {
    const defined = isRecord(scenario.script.config.environments) ? Object.keys(scenario.script.config.environments) : [];
    const pick = defined.length ? `pass -e NAME (${scenario.name} defines ${defined.join(', ')}), or --target URL` : `${scenario.name} defines no config.environments to pick with -e NAME: ${fix}`;
    return `${where} uses {{ $environment }} but no -e NAME was given: plain artillery run fills it with the text "undefined", a target the script never names; ${pick}`;
  }
  return undefined;
}

/** What the target line adds when the scheme was written in another case than the one the run uses. */
function schemeNote(given: string, used: string): string {
  const scheme = (u: string) => /^[^:]*:/.exec(u.trim())?.[0] ?? '';
  return scheme(given) === scheme(used) ? '' : `; scheme written as ${scheme(used)}// (Artillery fails every request to ${scheme(given)}//)`;
}

/**
 * Decides the run's target; throws {@link UsageError} when a user script has none and none was given. `known`: the
 * values the run knows before it starts (`--var`, `$testId`), which `artillery run -t URL` resolves in the flag's URL
 * as in `config.target` (it sets config.target before resolving the config's templates); the names read go to `used`.
 */
export function chooseTarget(options: RunOptions, scenario: LoadedScenario, env: Readonly<Record<string, string | undefined>>, known: Readonly<Record<string, unknown>> = {}, used = new Set<string>()): TargetChoice {
  if (options.target !== undefined) {
    const given = options.target.includes('{{') ? resolveTargetTemplate(String(resolveConfigFunctions(resolveKnownTemplates(options.target, known, used))), env, '--target', scenario) : options.target;
    const target = checkTargetUrl(given, '--target', !scenario.builtIn);
    return { options: { ...options, target }, source: 'flag', line: `target: ${redactUrl(target)} (--target${schemeNote(given, target)})` };
  }
  if (scenario.builtIn || options.referenceTarget) return { options, source: 'reference' };
  const raw = scenario.script.config.target;
  const where = options.environment && scenario.envTarget ? `config.environments.${options.environment}.target of ${scenario.name}` : `config.target of ${scenario.name}`;
  if (raw === undefined || raw === null || raw === '') {
    throw new UsageError(
      `${scenario.name} has no config.target${options.environment ? ` (nor config.environments.${options.environment}.target)` : ''}; add one, pick an environment with -e NAME, pass --target URL, or --target reference for the rig's reference target`,
    );
  }
  if (typeof raw !== 'string') throw new UsageError(`${where} must be a URL string`);
  const resolved = resolveTargetTemplate(raw, env, where, scenario);
  const target = checkTargetUrl(resolved, where, true);
  return { options: { ...options, target }, source: 'script', line: `target: ${redactUrl(target)} (${where}${schemeNote(resolved, target)}; --target URL overrides it)` };
}
