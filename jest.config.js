import { swcOptions } from './test/support/child/swc-options.mjs';

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcOptions],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // A deadline, not a timing goal: a loaded 2-core CI machine makes RSA keys, PDFs and browsers slow.
  testTimeout: 90_000,
  maxWorkers: 2,
};
