// @ts-check
'use strict';
/**
 * Preloaded into a process under test (NODE_OPTIONS=--require …/exit-spy.js): says on stderr when the process is ended
 * with process.exit(), for a test of an exit that must come from the entry returning its code (with nothing left
 * running), not from process.exit cutting off whatever was still in flight.
 */
const exit = process.exit;
process.exit = /** @type {typeof process.exit} */ (
  (code) => {
    process.stderr.write(`exit-spy: process.exit(${code ?? ''})\n`);
    return exit.call(process, code);
  }
);
