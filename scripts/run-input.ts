/**
 * Everything a run needs from its input, checked before anything starts (exit 2 on any problem):
 * the scenario (with `-e/--environment` applied), its files (processor, functions, payloads), every
 * ensure check parsed, the target chosen and named, and the `--baseline` run folder read.
 */
import * as path from 'node:path';
import type { RunOptions } from './options';
import { RunFolder, readRunFolder } from './report/read-run';
import { EnsureCheck, assertEnsureParses, ensureIgnoredNote, flagEnsureChecks, scriptEnsureChecks, scriptMaxErrorRate } from './report/thresholds';
import { ArtilleryScript, LoadedScenario, applyOptions, phasesNote, checkInsecure, loadScenario, unreadVariableNotes } from './scenario';
import { PlanError, normalizeProfile } from './core/phases';
import { UsageError } from './errors';
import { resolveConfigFunctions, resolveVarTemplates } from './config-env';
import { artilleryScriptProblem } from './artillery-validate';
import { chosenEnvironment, environmentKeyOrigin, phaseRefusal } from './phase-origin';
import { endlessLoopNotes } from './loop-notes';
import { checkBuiltInVars, noHoldStepNote } from './builtin-variables';
import { artilleryPluginFinder, checkScriptFiles, missingPluginNotes, namedFiles, scriptInputFiles } from './script-check';
import type { ScriptFiles } from './generator-modules';
import { checkOutputNotInput } from './adapters/run-folder';
import { TargetSource, chooseTarget } from './target-choice';
import { scriptAcceptsAnyCertificate, untrustedCertFix } from './preflight';
import { newRunId, testRunIdOf } from './run-id';
import { errorOriginsOf } from './engines';
import { BuiltInScenario, rigConnects, rigProcessorName, rigScenarioOf } from './rig-processor';
import type { ErrorOrigins } from './core/verdict';

/** The checked input of one run. */
export interface RunInput {
  /** The run's id (`runs/<run-id>/`), drawn before the script was read: its config's `{{ $testId }}` may be made from it. */
  readonly runId: string;
  /**
   * The run's `{{ $testId }}`, one for every load process as one plain `artillery run` has one: the user's
   * ARTILLERY_TEST_RUN_ID when set (as Artillery takes it), else `runId`.
   */
  readonly testRunId: string;
  /** The options with the chosen target filled in (a user script's own `config.target`). */
  readonly options: RunOptions;
  readonly scenario: LoadedScenario;
  /** The scenario's script with the flags applied, once (phases, variables); the target is set when known. */
  readonly script: ArtilleryScript;
  /** `--ensure` flags, then the script's own ensure checks: evaluated once, on the merged data. */
  readonly ensure: readonly EnsureCheck[];
  readonly targetSource: TargetSource;
  /** The line naming the target, printed before the run (undefined: the platform names its reference target). */
  readonly targetLine?: string;
  /** Notes to print before the run (e.g. a config.ensure Artillery would not evaluate). */
  readonly notes: readonly string[];
  /** `--baseline`: the earlier run this one is compared with. */
  readonly baseline?: RunFolder;
  /**
   * Where the run's errors can come from besides the script's own code (the verdict tells them apart by it): its
   * scenarios' engines, and whether it runs one of the rig's own processors (scripts/rig-processor.ts).
   */
  readonly errorOrigins: ErrorOrigins;
  /**
   * The built-in scenario whose measurements the script makes (its figure rows, its delivery checks): the one whose
   * rig processor it runs and whose functions its flows call (scripts/rig-processor.ts), a built-in or a user's copy of
   * it alike; undefined for a script of the user's own.
   */
  readonly rigScenario?: BuiltInScenario;
  /** The scenarios connect through the rig's own processor functions (a built-in, or a copy keeping its processor). */
  readonly rigConnect: boolean;
  /** A user's script: the files it names and the modules its processor loaded (an AWS run checks they ship). */
  readonly scriptFiles?: ScriptFiles;
}

/**
 * Loads and checks the run's input; throws UsageError on the first class of problem found. `runId`: the run's id (default:
 * a new one, scripts/run-id.ts), drawn before the script is read as plain `artillery run` draws its test id before it
 * resolves the config: the `{{ $testId }}` it makes (or `env`'s ARTILLERY_TEST_RUN_ID) is resolved in a user script's
 * config, its `config.target` too.
 */
export function prepareRunInput(given: RunOptions, root: string, env: Readonly<Record<string, string | undefined>>, runId = newRunId(new Date())): RunInput {
  const testRunId = testRunIdOf(runId, env.ARTILLERY_TEST_RUN_ID);
  // As `artillery run -v` resolves its values (copied into config.variables, then the config resolved: util.js
  // addVariables): `--var room=r-{{ $randomNumber(1, 9999) }}` is one room for the run, and `--var b={{ a }}` beside
  // `--var a=1` is b = 1. Function calls are drawn first, so a --var that reads another gets the same number.
  const readByVars = new Set<string>();
  const flags: RunOptions = { ...given, vars: resolveVarTemplates(resolveConfigFunctions(given.vars) as RunOptions['vars'], readByVars) };
  // What the run knows before it starts: the --var values, and the hold --hold or --vusers sets (the variable hold,
  // as applyOptions gives it; `--var hold=` beside --hold is refused in options.ts). The script's phases are checked
  // for templates only when they run: --vusers replaces them.
  // `{{ $testId }}` too: one value per run, which plain `artillery run` resolves in config with the -v values.
  const known = { $testId: testRunId, ...(flags.holdSeconds !== undefined ? { hold: flags.holdSeconds } : {}), ...flags.vars };
  const scenario = loadScenario(flags.scenario, path.join(root, 'load-generators', 'scenarios'), flags.environment, env, known, flags.vusers !== undefined);
  // Artillery's own check first (with -e merged, as `artillery run` checks it): what it refuses never starts.
  const invalid = artilleryScriptProblem(scenario.script);
  const chosen = chosenEnvironment(scenario.script.config, flags.environment);
  if (invalid) {
    const origin = environmentKeyOrigin(invalid, chosen);
    throw new UsageError(`scenario file ${scenario.file}: ${invalid}${origin} (Artillery's script check: \`artillery run\` stops on it with "Scenario validation error"); fix ${origin ? `config.environments.${chosen?.name}` : 'the script'} and run again`);
  }
  const { loads } = checkScriptFiles(scenario);
  const rigProcessor = rigProcessorName(scenario.script.config.processor, scenario.dir, root);
  const rigConnect = scenario.builtIn || rigConnects(scenario.script, rigProcessor);
  const tlsNote = checkInsecure(scenario.script, flags, scenario.builtIn, scenario.name, rigConnect);
  // The built-in scenarios' own rules first (their words say what is wrong: too large, not in digits, a path without
  // its /): names they read, values they can run as given; without --target URL they run against the reference target.
  if (scenario.builtIn) checkBuiltInVars(flags.scenario, builtInVars(flags.vars), flags.holdSeconds !== undefined && flags.plateauSeconds === undefined, flags.target === undefined);
  // The flags applied to the script (pure): bad --var values and a script without phases are refused here.
  // Bad phases are bad input found here, before a platform is chosen or named (planning reads them again); the line
  // names the script's file, then the phase where its bad value is written (config.phases[i] and its name, or the
  // -e environment's config.environments.NAME.phases[i]: scripts/phase-origin.ts) and the fix.
  let script: ArtilleryScript;
  try {
    script = applyOptions(scenario.script, flags);
    if (script.config.phases !== undefined) normalizeProfile(script.config.phases);
  } catch (err) {
    if (err instanceof PlanError) throw new UsageError(phaseRefusal(scenario.name, err, chosen));
    throw err;
  }
  const ensure = [...flagEnsureChecks(flags.ensure), ...scriptEnsureChecks(scenario.script.config, env)];
  assertEnsureParses(ensure);
  const note = ensureIgnoredNote(scenario.script.config, env);
  // Without --max-error-rate, a script's own ensure.maxErrorRate is its failed-vuser budget (as under `artillery run`),
  // not the rig's default 0%; said before the run.
  const budget = flags.maxErrorRateGiven ? undefined : scriptMaxErrorRate(scenario.script.config, env);
  const budgetNote = budget === undefined ? undefined : `note: failed vusers are judged by your script's ensure.maxErrorRate (${budget}%) instead of the rig's default --max-error-rate 0%; pass --max-error-rate to set another`;
  // `-e NAME` also sets {{ $environment }}, which `artillery run -e NAME -t URL` resolves in the flag's URL.
  const choice = chooseTarget(flags, scenario, env, flags.environment !== undefined ? { ...known, $environment: flags.environment } : known, readByVars);
  // A missing or unfinished baseline is bad input too, found before anything starts.
  const baseline = flags.baseline === undefined ? undefined : readRunFolder(flags.baseline, '--baseline');
  if (flags.output !== undefined) checkOutputNotInput(flags.output, scenario.builtIn ? [] : scriptInputFiles(scenario), { ...(baseline ? { baseline: baseline.dir } : {}), ...(flags.out !== undefined ? { out: flags.out } : {}) });
  const certFix = scenario.builtIn ? undefined : untrustedCertFix(script);
  const rigScenario = rigScenarioOf(script, rigProcessor);
  return {
    runId,
    testRunId,
    options: { ...choice.options, ...(scriptAcceptsAnyCertificate(script) ? { insecureTls: true } : {}), ...(certFix ? { untrustedCertFix: certFix } : {}), ...(budget !== undefined ? { maxErrorRate: budget / 100, maxErrorRateFromScript: true as const } : {}) },
    scenario,
    script,
    ensure,
    errorOrigins: errorOriginsOf(script, rigProcessor !== undefined),
    ...(rigScenario ? { rigScenario } : {}),
    rigConnect,
    targetSource: choice.source,
    ...(choice.line ? { targetLine: choice.line } : {}),
    notes: [
      ...[note, budgetNote].filter((n): n is string => n !== undefined),
      ...(tlsNote ? [tlsNote] : []),
      ...(scenario.builtIn ? [noHoldStepNote(flags.scenario, flags.vusers, script.config.variables ?? {})].filter((n): n is string => n !== undefined) : []),
      ...(scenario.builtIn ? [] : unreadVariableNotes(scenario.script, flags, scenario.name, [...(scenario.configVars ?? []), ...readByVars])),
      ...(scenario.builtIn ? [] : endlessLoopNotes(scenario.script, scenario.name)),
      ...(scenario.builtIn ? [] : [phasesNote(scenario.script, flags, scenario.name)].filter((n): n is string => n !== undefined)),
      ...missingPluginNotes(scenario.script, artilleryPluginFinder(env.ARTILLERY_PLUGIN_PATH)),
    ],
    ...(baseline ? { baseline } : {}),
    ...(scenario.builtIn ? {} : { scriptFiles: { file: scenario.file, dir: scenario.dir, named: namedFiles(scenario), loads } }),
  };
}

/** The `--var` values of a built-in scenario, which reads numbers and text: a JSON array or object is refused. */
function builtInVars(vars: RunOptions['vars']): Readonly<Record<string, string | number | boolean>> {
  for (const [key, value] of Object.entries(vars)) {
    if (typeof value === 'object') throw new UsageError(`--var ${key}=${JSON.stringify(value)}: the built-in scenarios read numbers and text, not JSON; e.g. --var ${key}=10`);
  }
  return vars as Readonly<Record<string, string | number | boolean>>;
}
