/**
 * moto has no GetMetricWidgetImage. This loopback endpoint stands in for CloudWatch in the emulated-AWS e2e:
 * it answers that one call itself with a real PNG of the size the widget asks for, and passes every other
 * CloudWatch request through to moto untouched (the rest of CloudWatch stays moto's). Point the CLI at it with
 * AWS_ENDPOINT_URL_CLOUDWATCH. The SDK speaks CloudWatch's AWS JSON 1.0 protocol (query-compatible) here:
 * `X-Amz-Target: GraniteServiceVersion20100801.<Operation>`, blobs as base64.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid PNG, width × height, one grey (8-bit greyscale, no filter). */
export function solidPng(width: number, height: number, grey = 0xe0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, no filter, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width, grey)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Width and height from a PNG's IHDR. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export interface WidgetImageEndpoint {
  readonly url: string;
  /** The widget definitions asked for, parsed. */
  readonly widgets: Array<{ title?: string; width?: number; height?: number; start?: string; end?: string; metrics?: unknown[] }>;
  /** Operations passed through to moto, by name. */
  readonly passed: string[];
  stop(): Promise<void>;
}

export function startWidgetImageEndpoint(motoEndpoint: string): Promise<WidgetImageEndpoint> {
  const widgets: WidgetImageEndpoint['widgets'] = [];
  const passed: string[] = [];
  const upstream = new URL(motoEndpoint);
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const op = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
      if (op === 'GetMetricWidgetImage') {
        const input = JSON.parse(body.toString('utf8')) as { MetricWidget: string; OutputFormat?: string };
        const widget = JSON.parse(input.MetricWidget) as WidgetImageEndpoint['widgets'][number];
        widgets.push(widget);
        res.setHeader('content-type', 'application/x-amz-json-1.0');
        if (input.OutputFormat !== 'png') {
          res.statusCode = 400;
          res.end(JSON.stringify({ __type: 'InvalidParameterValue', message: `OutputFormat ${input.OutputFormat} not served here` }));
          return;
        }
        res.end(JSON.stringify({ MetricWidgetImage: solidPng(widget.width ?? 600, widget.height ?? 300).toString('base64') }));
        return;
      }
      passed.push(op || `${req.method} ${req.url}`);
      const fwd = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      fwd.on('error', (err) => {
        res.statusCode = 502;
        res.end(String(err));
      });
      fwd.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ url: `http://127.0.0.1:${port}`, widgets, passed, stop: () => new Promise<void>((r) => server.close(() => r())) });
    }),
  );
}
