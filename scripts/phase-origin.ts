/**
 * Where a refused value was written when `-e NAME` merged `config.environments.NAME` into `config` (lodash merge, as
 * `artillery run -e`: its phases element by element into `config.phases`). The refusal names the place the user edits:
 * `config.environments.NAME.phases[0].duration`, not the merged `config.phases[0]` they would find nothing wrong in.
 * Pure.
 */
import { isRecord } from './core/is-record';
import { type Phase, type PlanError, phaseWhere } from './core/phases';

/** The `-e NAME` environment of a script: its name and its entry of `config.environments`. */
export interface ChosenEnvironment {
  readonly name: string;
  readonly entry: Record<string, unknown>;
}

/** `config.environments[name]` of a script's config (after the merge, which keeps it), when `-e name` chose one. */
export function chosenEnvironment(config: Record<string, unknown>, name: string | undefined): ChosenEnvironment | undefined {
  const entry = name === undefined || !isRecord(config.environments) ? undefined : config.environments[name];
  return name !== undefined && isRecord(entry) ? { name, entry } : undefined;
}

/**
 * The refusal of a bad phase, starting with the script's `file`: the phase named where its bad value is written. Its
 * field set by the environment's phase of that index: `config.environments.NAME.phases[i]`; set by the script's own (or
 * past the environment's list): `config.phases[i] ("name")`; the phase's fields together (none of them holds the bad
 * value): `config.phases[i] with config.environments.NAME.phases[i] merged in (-e NAME)`. A refusal of the whole list
 * says the environment's phases were merged in.
 */
export function phaseRefusal(file: string, err: PlanError, env: ChosenEnvironment | undefined): string {
  const list = environmentPhases(env);
  if (!env || list.length === 0) return `${file}: ${err.message}`;
  const place = err.phase;
  if (!place) return `${file} with config.environments.${env.name}.phases merged in (-e ${env.name}): ${err.message}`;
  if (place.index >= list.length) return `${file}: ${err.message}`;
  const rest = err.message.slice(place.where.length);
  // lodash merge puts a value that is no mapping in place of the script's phase: the environment's.
  if (!isRecord(list[place.index])) return `${file}: config.environments.${env.name}.phases[${place.index}]${rest}`;
  if (place.field !== undefined) return `${file}: ${renamed(place.where, place.index, place.field, env)}${rest}`;
  return `${file}: ${place.where} with config.environments.${env.name}.phases[${place.index}] merged in (-e ${env.name})${rest}`;
}

/**
 * How a line names the phase whose `field` it is about (a refusal's, a `note:`'s): {@link phaseWhere}'s
 * `config.phases[i] ("name")`, or `config.environments.NAME.phases[i] ("name")` when `-e NAME`'s phase of that index
 * sets the field (it wins the merge).
 */
export function phaseFieldWhere(phase: Phase, index: number, field: string, env: ChosenEnvironment | undefined): string {
  return renamed(phaseWhere(phase, index), index, field, env);
}

/** The environment's phases, or none. */
const environmentPhases = (env: ChosenEnvironment | undefined): unknown[] => (env && Array.isArray(env.entry.phases) ? env.entry.phases : []);

/** `where` (`config.phases[i]…`) named in the environment when its phase `index` sets `field`. */
function renamed(where: string, index: number, field: string, env: ChosenEnvironment | undefined): string {
  const own = environmentPhases(env)[index];
  if (!env || !isRecord(own) || !Object.prototype.hasOwnProperty.call(own, field)) return where;
  return `config.environments.${env.name}.phases[${index}]${where.slice(`config.phases[${index}]`.length)}`;
}

/**
 * What Artillery's script check says of a `config` key the environment set (`"config.phases" must be an array` after
 * `-e ci` merged `config.environments.ci.phases: 5`): its place in the environment, or '' when it names no such key.
 */
export function environmentKeyOrigin(problem: string, env: ChosenEnvironment | undefined): string {
  const key = /"config\.([A-Za-z_$][\w$]*)/.exec(problem)?.[1];
  if (!env || key === undefined || !Object.prototype.hasOwnProperty.call(env.entry, key)) return '';
  return ` (written as config.environments.${env.name}.${key}, which -e ${env.name} merges into config.${key})`;
}
