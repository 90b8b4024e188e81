/**
 * Paths on the rig's instances that both the CDK app (user-data) and the CLI (SSM commands) name.
 * No imports: the CLI loads this without aws-cdk-lib.
 */

/** Where rig files live on instances. */
export const RIG_HOME = '/opt/loadtest-rig';

/** Written by a generator's user-data as its very last step: the install finished. */
export const BOOT_MARKER = `${RIG_HOME}/boot-finished`;

/** Prefix of the line user-data logs before each boot step, so a failed boot is reported by its step. */
export const BOOT_STEP_PREFIX = 'loadtest-rig boot step:';
