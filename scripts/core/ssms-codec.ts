/**
 * Wire format of Artillery's `SSMS.serializeMetrics` / `SSMS.deserializeMetrics`
 * (artillery 2.0.34, `lib/core/ssms.ts`), re-implemented so the merge can read
 * what agents write without importing Artillery's ESM TypeScript sources.
 *
 * Format: JSON of one period object whose `histograms` map holds each
 * `DDSketch.toProto()` Buffer. Node's `Buffer#toJSON` turns it into
 * `{ "type": "Buffer", "data": [bytes] }`, which Artillery's replacer rewrites to
 * `"data": "base64:<b64>"` (or `""` when empty). Pure: no I/O.
 */
import { DDSketch } from '@artilleryio/sketches-js';

/** Relative accuracy Artillery uses for every histogram it records. */
export const ARTILLERY_RELATIVE_ACCURACY = 0.01;

/** A JSON-encoded Node Buffer as it appears in Artillery's serialized metrics. */
export interface BufferJson {
  type: 'Buffer';
  data: number[] | string;
}

/** True when `value` has the `{ type: 'Buffer', data }` shape of a JSON-encoded Buffer. */
export function isBufferJson(value: unknown): value is BufferJson {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { type?: unknown; data?: unknown };
  return v.type === 'Buffer' && (Array.isArray(v.data) || typeof v.data === 'string');
}

/**
 * Artillery's JSON replacer: a Buffer-like value's byte array becomes a
 * `base64:` string (an empty one becomes `""`). Returns a new object rather than
 * rewriting `value` in place.
 */
export function ssmsReplacer(_key: string, value: unknown): unknown {
  if (isBufferJson(value) && Array.isArray(value.data)) {
    return {
      type: 'Buffer',
      data: value.data.length > 0 ? `base64:${Buffer.from(value.data).toString('base64')}` : '',
    };
  }
  return value;
}

/**
 * Artillery's JSON reviver: every Buffer-like value (`data` as a byte array, a
 * `base64:` string, or any other string read as UTF-8, including `""`) becomes a Buffer.
 */
export function ssmsReviver(_key: string, value: unknown): unknown {
  if (!isBufferJson(value)) return value;
  if (Array.isArray(value.data)) return Buffer.from(value.data);
  if (value.data.startsWith('base64:')) return Buffer.from(value.data.slice('base64:'.length), 'base64');
  return Buffer.from(value.data);
}

/** `JSON.stringify` with Artillery's replacer (Buffers → `base64:` strings). */
export function ssmsStringify(value: unknown): string {
  return JSON.stringify(value, ssmsReplacer);
}

/** `JSON.parse` with Artillery's reviver (Buffer-like values → Buffers). */
export function ssmsParse(text: string): unknown {
  return JSON.parse(text, ssmsReviver);
}

/** A new, empty sketch with Artillery's accuracy. */
export function emptySketch(): DDSketch {
  return new DDSketch({ relativeAccuracy: ARTILLERY_RELATIVE_ACCURACY });
}

/**
 * Decode one serialized histogram. An empty payload (Artillery writes `""` for a
 * zero-length buffer, which `DDSketch.fromProto` cannot decode) yields an empty sketch.
 *
 * @throws Error naming `name` when the bytes are not a DDSketch protobuf.
 */
export function decodeSketch(bytes: Uint8Array, name: string): DDSketch {
  if (bytes.length === 0) return emptySketch();
  try {
    return DDSketch.fromProto(bytes);
  } catch (err) {
    throw new Error(`histogram "${name}" is not a DDSketch protobuf: ${(err as Error).message}`, { cause: err });
  }
}

/** Encode a sketch as Artillery does (`toProto()`, as a Node Buffer so it JSON-encodes as one). */
export function encodeSketch(h: DDSketch): Buffer {
  const bytes = h.toProto();
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
}

/** An independent copy of a sketch (Artillery's `SSMS.cloneHistogram`). */
export function cloneSketch(h: DDSketch): DDSketch {
  return DDSketch.fromProto(h.toProto());
}
