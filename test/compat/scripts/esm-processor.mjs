/**
 * An ES-module processor as many users write one now: a default export object (Artillery merges its functions with
 * the named exports) and a top-level await. Plain `artillery run` import()s it; the rig's check once require()d it
 * and refused the script ("function esmStep is not exported").
 */
const prefix = await Promise.resolve('compat.esm');

export default {
  esmStep(context, events, done) {
    events.emit('counter', `${prefix}_default`, 1);
    return done();
  },
};

export async function esmNamed(context, events) {
  events.emit('counter', `${prefix}_named`, 1);
}
