// @ts-check
'use strict';
/**
 * Worker ⇄ primary messages of the target itself (the adapter's own messages use source "_sio_adapter").
 * Every message carries `source: SOURCE` and a type `t`; requests carry `reqId` and get one reply with the same reqId.
 */
const SOURCE = '_target';

/** @type {Map<number, (msg: any) => void>} */
const pending = new Map();
let nextReqId = 0;
let listening = false;

function ensureListener() {
  if (listening) return;
  listening = true;
  process.on('message', (/** @type {any} */ msg) => {
    if (!msg || msg.source !== SOURCE || msg.reqId === undefined || !msg.reply) return;
    const resolve = pending.get(msg.reqId);
    if (resolve) {
      pending.delete(msg.reqId);
      resolve(msg);
    }
  });
}

/**
 * Send a fire-and-forget message to the primary.
 * @param {Record<string, unknown>} msg
 */
function send(msg) {
  if (process.send && process.connected) process.send({ source: SOURCE, ...msg }, undefined, {}, () => {});
}

/**
 * Send a request to the primary and resolve with its reply (rejects after timeoutMs).
 * @param {Record<string, unknown>} msg
 * @param {number} [timeoutMs]
 * @returns {Promise<any>}
 */
function request(msg, timeoutMs = 5000) {
  ensureListener();
  const reqId = ++nextReqId;
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      pending.delete(reqId);
      reject(new Error(`target: no answer from the primary to ${String(msg.t)} within ${timeoutMs} ms`));
    }, timeoutMs);
    pending.set(reqId, (reply) => {
      clearTimeout(t);
      resolve(reply);
    });
    send({ ...msg, reqId });
  });
}

/**
 * Listen for primary → worker messages of a given type (not replies).
 * @param {string} t
 * @param {(msg: any) => void} handler
 */
function on(t, handler) {
  process.on('message', (/** @type {any} */ msg) => {
    if (msg && msg.source === SOURCE && msg.t === t && !msg.reply) handler(msg);
  });
}

/**
 * Primary side: send a message to one worker (dropped when it is gone; an EPIPE never crashes the primary).
 * @param {import('node:cluster').Worker} worker
 * @param {Record<string, unknown>} msg
 */
function sendToWorker(worker, msg) {
  if (worker.isConnected()) worker.send({ source: SOURCE, ...msg }, undefined, () => {});
}

/**
 * Primary side: answer a worker's request (see `request`).
 * @param {import('node:cluster').Worker} worker
 * @param {{ reqId?: unknown }} req
 * @param {Record<string, unknown>} body
 */
function replyTo(worker, req, body) {
  sendToWorker(worker, { reply: true, reqId: req.reqId, ...body });
}

module.exports = { SOURCE, send, request, on, sendToWorker, replyTo };
