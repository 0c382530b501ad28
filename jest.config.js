// Jest runs TypeScript as native ESM through ts-jest (isolatedModules: no type-check here;
// `npm test` runs `tsc --noEmit` first). Each test file gets its own database cloned from a
// migrated, seeded template that the global setup builds once per run.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  testTimeout: 30000,
  maxWorkers: 2,
};
