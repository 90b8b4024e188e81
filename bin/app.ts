#!/usr/bin/env node
/**
 * CDK entry point: read context once, validate it into one typed config, compose the stacks,
 * and let cdk-nag fail the synth on any finding that has not been acknowledged with a reason.
 * A bad context value is the user's input: one line per problem (key, value, allowed values), exit 2; no context
 * value ends the synth in a raw stack trace (see composeApp).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { composeApp } from './rig';

/** The keys of cdk.json's own context (cdk.json sits beside bin/). */
function cdkJsonKeys(): string[] {
  try {
    return Object.keys((JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }).context ?? {});
  } catch {
    return [];
  }
}

const app = new App();
composeApp(app, { error: (line) => void process.stderr.write(`${line}\n`), exit: (code) => process.exit(code), debug: process.env.CDK_DEBUG === 'true', cdkJsonKeys: cdkJsonKeys() });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
