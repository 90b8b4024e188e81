#!/usr/bin/env node
/**
 * CDK entry point: read context once, validate it into one typed config, compose the stacks,
 * and let cdk-nag fail the synth on any finding that has not been acknowledged with a reason.
 * A bad context value is the user's input: one line per problem (key, value, allowed values), exit 2.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { RigConfigError, parseRigConfig, readRigContext } from '../lib/config';
import { buildRig } from './rig';

const app = new App();
let config;
try {
  config = parseRigConfig(readRigContext((key) => app.node.tryGetContext(key)));
} catch (err) {
  if (!(err instanceof RigConfigError)) throw err;
  for (const problem of err.problems) process.stderr.write(`error: ${problem}\n`);
  process.exit(2);
}
buildRig(app, config);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
