// A TypeScript processor: Artillery 2 bundles it with esbuild into dist/ beside it and loads that, so __dirname is
// that dist/ folder and a file beside the processor is path.join(__dirname, '..', name).
import * as fs from 'fs';
import * as path from 'path';

interface Events {
  emit(type: 'counter' | 'histogram', name: string, value: number): void;
}

const beside: number = Number(fs.readFileSync(path.join(__dirname, '..', 'ts-beside.txt'), 'utf8'));
const inDist: number = path.basename(__dirname) === 'dist' && path.basename(__filename) === 'ts-processor.js' ? 1 : 0;

export async function typedStep(context: { vars: Record<string, unknown> }, events: Events): Promise<void> {
  const n: number = Number(context.vars.$loopCount ?? 0) + 1;
  events.emit('counter', 'compat.ts_step', n);
  events.emit('counter', 'compat.ts_beside', beside);
  events.emit('counter', 'compat.ts_in_dist', inDist);
  events.emit('histogram', 'compat.ts_value', 7);
}
