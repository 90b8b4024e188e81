/** Whether a parsed value is a plain object (not null, not an array): the shape a YAML/JSON mapping reads as. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
