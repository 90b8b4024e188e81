#!/usr/bin/env node
/**
 * CDK entry point: read context once, validate it into one typed config, compose the stacks,
 * and let cdk-nag fail the synth on any finding that has not been acknowledged with a reason.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseRigConfig, readRigContext } from '../lib/config';
import { buildRig } from '../lib/rig';

const app = new App();
const config = parseRigConfig(readRigContext((key) => app.node.tryGetContext(key)));
buildRig(app, config);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
