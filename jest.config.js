/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  testMatch: ['**/*.test.ts'],
  // End-to-end tests start real processes; give them room, they still wait on conditions.
  testTimeout: 120000,
  // One temporary folder per jest run, removed at its end (test/helpers/global-tmp.js).
  globalSetup: '<rootDir>/test/helpers/global-setup.js',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.js',
  reporters: ['default', '<rootDir>/test/helpers/plain-summary-reporter.js'],
};
