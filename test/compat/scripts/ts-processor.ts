// A TypeScript processor: Artillery 2 bundles it with esbuild into dist/ beside it and loads that.
interface Events {
  emit(type: 'counter' | 'histogram', name: string, value: number): void;
}

export async function typedStep(context: { vars: Record<string, unknown> }, events: Events): Promise<void> {
  const n: number = Number(context.vars.$loopCount ?? 0) + 1;
  events.emit('counter', 'compat.ts_step', n);
  events.emit('histogram', 'compat.ts_value', 7);
}
