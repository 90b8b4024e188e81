/**
 * One GET of a small JSON document (the reference target's /metrics), settled whatever the answer does.
 */
import * as http from 'node:http';
import * as https from 'node:https';

/**
 * GETs `url` and parses its body. Rejects on a status other than 200, a body that does not parse, an answer cut off
 * before its end, or no whole answer within `timeoutMs`, the connect included. An answer cut off after its headers
 * emits no error on a response nothing listens to, and a socket timeout restarts at every chunk: a GET that waited
 * only for the end and the request's error could stay pending for ever.
 */
export function getJson(url: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const client = url.startsWith('https:') ? https : http;
    let req: http.ClientRequest | undefined;
    const fail = (err: Error) => {
      clearTimeout(timer);
      req?.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
    const onAnswer = (res: http.IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        clearTimeout(timer);
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(body));
        } catch (err) {
          reject(err as Error);
        }
      });
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(new Error('the answer was cut off before its end'));
      });
    };
    try {
      req = client.get(url, onAnswer);
    } catch (err) {
      return fail(err as Error); // refused before any connection (a URL Node will not request)
    }
    req.on('error', fail);
  });
}
