// @ts-check
'use strict';
/**
 * Ctrl-C (or SIGTERM) while an entry is still loading its modules. An entry installs its interrupt handling once its
 * imports are loaded (the CLI's main() after ~0.5 s); with no listener yet, a signal ended the process at once and
 * silently: no `interrupted` line, no `--output` file. scripts/launch.js listens from its own start, so a signal that
 * comes during the load waits in the event loop; it is then delivered to the handlers the entry has installed by
 * then, as one that comes at that moment. An entry that installs none gets Node's default for it (the process ends by
 * it), as without this module.
 */

/** @type {NodeJS.Signals | undefined} */
let pending;
const SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM']);
/** @param {NodeJS.Signals} signal */
const record = (signal) => {
  pending ??= signal;
};

/** Starts listening (launch.js, before it loads the entry). */
function listen() {
  for (const s of SIGNALS) process.on(s, record);
}

/**
 * Stops listening once the entry has loaded, after one turn of the event loop (a signal that came during the load is
 * delivered then, to every listener). A signal no handler of the entry's received is raised again with none of ours:
 * Node's default ends the process.
 */
function release() {
  setImmediate(() => {
    for (const s of SIGNALS) process.off(s, record);
    const signal = pending;
    pending = undefined;
    if (signal && process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

module.exports = { listen, release };
