// @ts-check
'use strict';
/**
 * One HTTP request bounded as a whole: the connect, the headers and the body must all arrive within one deadline.
 *
 * Node's request `timeout` is a socket idle timeout that every received chunk restarts, so a target that trickles an
 * endless (or very slow) answer, or its headers a line at a time, held whoever waited for it for ever: a vuser's
 * cookie request, the clock samples and the publisher's POSTs, the CLI's reachability check. Used by the load
 * processes' processors and, through the orchestrator's adapters, by the CLI.
 */

/**
 * What a request gets when its deadline passes: ETIMEDOUT, as a socket timeout gave, naming the deadline.
 * @param {number} ms
 * @returns {NodeJS.ErrnoException}
 */
function deadlineError(ms) {
  return Object.assign(new Error(`no whole answer within the ${ms} ms deadline`), { code: 'ETIMEDOUT' });
}

/**
 * Sends the request `send` makes and settles once: as `onAnswer` decides (it gets the response, `done` and `fail`), or
 * with an error — the request's, the answer's, an answer cut off before its end (ECONNRESET), or
 * {@link deadlineError} once `deadlineMs` have passed since the call without a settlement, the request then destroyed.
 *
 * `onAnswer` may settle early (at the headers, when they are all it needs): the deadline still bounds what is left
 * of the answer, destroying the request if it has not ended by then, so a body that never ends is not read for ever.
 * Once the answer has ended (or closed) nothing is left to bound.
 * @template T
 * @param {number} deadlineMs
 * @param {(onResponse: (res: import('node:http').IncomingMessage) => void) => import('node:http').ClientRequest} send makes
 *   the request with `onResponse` as its response callback and ends it; a throw (a header Node will not send, a URL
 *   it will not request) rejects
 * @param {(res: import('node:http').IncomingMessage, done: (value: T) => void, fail: (err: Error) => void) => void} onAnswer
 * @param {{ fromSocket?: boolean }} [opts] fromSocket: the deadline runs from when the request gets its socket, not
 *   from the call: a wait in the process's own keep-alive pool (its maxSockets all busy) is not the target's time
 * @returns {Promise<T>}
 */
function requestWithin(deadlineMs, send, onAnswer, opts = {}) {
  return new Promise((resolve, reject) => {
    let settled = false;
    /** @type {import('node:http').ClientRequest | undefined} */
    let req;
    /** @param {Error} err */
    const fail = (err) => {
      clearTimeout(timer);
      req?.destroy();
      if (settled) return;
      settled = true;
      reject(err);
    };
    /** @param {T} value */
    const done = (value) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    const over = () => clearTimeout(timer);
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const arm = () => {
      if (timer === undefined && !settled) timer = setTimeout(() => fail(deadlineError(deadlineMs)), deadlineMs);
    };
    if (!opts.fromSocket) arm();
    try {
      req = send((res) => {
        res.on('error', fail);
        res.on('end', over);
        res.on('close', () => (res.complete ? over() : fail(Object.assign(new Error('the answer was cut off before its end'), { code: 'ECONNRESET' }))));
        onAnswer(res, done, fail);
      });
    } catch (err) {
      fail(/** @type {Error} */ (err));
      return;
    }
    req.on('error', fail);
    if (opts.fromSocket) req.once('socket', arm);
  });
}

/**
 * Collects an answer's body as text and hands it to `onText` at its end; one longer than `maxBytes` fails
 * (EBODYTOOLARGE, naming the cap) at once, its request destroyed by `fail`, instead of being held in memory whole.
 * @param {import('node:http').IncomingMessage} res
 * @param {number} maxBytes
 * @param {(err: Error) => void} fail
 * @param {(text: string) => void} onText
 */
function readText(res, maxBytes, fail, onText) {
  /** @type {Buffer[]} */
  const chunks = [];
  let bytes = 0;
  res.on('data', (/** @type {Buffer} */ chunk) => {
    bytes += chunk.length;
    if (bytes > maxBytes) return fail(Object.assign(new Error(`the answer's body is larger than ${maxBytes} bytes`), { code: 'EBODYTOOLARGE' }));
    chunks.push(chunk);
  });
  res.on('end', () => {
    if (bytes <= maxBytes) onText(Buffer.concat(chunks).toString('utf8'));
  });
}

module.exports = { requestWithin, readText, deadlineError };
