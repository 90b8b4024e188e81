/**
 * Everything a run needs from its input, checked before anything starts (exit 2 on any problem):
 * the scenario (with `-e/--environment` applied), its files (processor, functions, payloads), every
 * ensure check parsed, and the target chosen and named.
 */
import * as path from 'node:path';
import type { RunOptions } from './options';
import { EnsureCheck, assertEnsureParses, ensureIgnoredNote, flagEnsureChecks, scriptEnsureChecks } from './report/thresholds';
import { LoadedScenario, applyOptions, loadScenario } from './scenario';
import { checkScriptFiles } from './script-check';
import { TargetSource, chooseTarget } from './target-choice';

/** The checked input of one run. */
export interface RunInput {
  /** The options with the chosen target filled in (a user script's own `config.target`). */
  readonly options: RunOptions;
  readonly scenario: LoadedScenario;
  /** `--ensure` flags, then the script's own ensure checks: evaluated once, on the merged data. */
  readonly ensure: readonly EnsureCheck[];
  readonly targetSource: TargetSource;
  /** The line naming the target, printed before the run (undefined: the platform names its reference target). */
  readonly targetLine?: string;
  /** Notes to print before the run (e.g. a config.ensure Artillery would not evaluate). */
  readonly notes: readonly string[];
}

/** Loads and checks the run's input; throws UsageError on the first class of problem found. */
export function prepareRunInput(flags: RunOptions, root: string, env: Readonly<Record<string, string | undefined>>): RunInput {
  const scenario = loadScenario(flags.scenario, path.join(root, 'load-generators', 'scenarios'), flags.environment);
  checkScriptFiles(scenario);
  // The flags applied to the script (pure): bad --var values and a script without phases are refused here.
  applyOptions(scenario.script, flags, 'http://127.0.0.1');
  const ensure = [...flagEnsureChecks(flags.ensure), ...scriptEnsureChecks(scenario.script.config, env)];
  assertEnsureParses(ensure);
  const note = ensureIgnoredNote(scenario.script.config, env);
  const choice = chooseTarget(flags, scenario, env);
  return {
    options: choice.options,
    scenario,
    ensure,
    targetSource: choice.source,
    ...(choice.line ? { targetLine: choice.line } : {}),
    notes: note ? [note] : [],
  };
}
