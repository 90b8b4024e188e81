/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  testMatch: ['**/*.test.ts'],
  // End-to-end tests start real processes; give them room, they still wait on conditions.
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/helpers/plain-summary-reporter.js'],
};
