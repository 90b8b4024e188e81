/**
 * One GET of a small JSON document (the reference target's /metrics), settled whatever the answer does.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { readText, requestWithin } from '../../load-generators/lib/http-deadline';

/** The most of an answer read (a /metrics document is a few hundred bytes). */
const MAX_BYTES = 1024 * 1024;

/**
 * GETs `url` and parses its body. Rejects on a status other than 200, a body that does not parse or is larger than
 * 1 MiB, an answer cut off before its end, or no whole answer within `timeoutMs`, the connect included. An answer cut
 * off after its headers emits no error on a response nothing listens to, and a socket timeout restarts at every
 * chunk: a GET that waited only for the end and the request's error could stay pending for ever (lib/http-deadline.js).
 */
export function getJson(url: string, timeoutMs: number): Promise<unknown> {
  return requestWithin<unknown>(
    timeoutMs,
    (onResponse) => (url.startsWith('https:') ? https : http).get(url, onResponse),
    (res, done, fail) =>
      readText(res, MAX_BYTES, fail, (body) => {
        if (res.statusCode !== 200) return fail(new Error(`HTTP ${res.statusCode}`));
        try {
          done(JSON.parse(body));
        } catch (err) {
          fail(err as Error);
        }
      }),
  );
}
