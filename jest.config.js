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
  // Decorated classes (type-graphql, MikroORM) need the metadata polyfill before the first of them
  // is evaluated, whichever module a test file happens to import first.
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  testTimeout: 30000,
  maxWorkers: 2,
};
