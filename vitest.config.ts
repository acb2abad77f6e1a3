import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the packages in node_modules; our own files
    // must get the same instance, not the ESM build Vite prefers ("module" field).
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // graphql-js in its production build, as the entry points load it: a worker runs many
    // files, and the first to import graphql would otherwise fix the build for the rest.
    setupFiles: ['reflect-metadata', './src/server/graphql-production.ts'],
    // The integration suites' starting databases, made once per run (see the file).
    globalSetup: ['test/setup/database-templates.ts'],
    // A line at least every 30 s saying how far the run is and which files are running.
    reporters: ['default', './test/setup/progress-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker loads the app's modules once for all the files it runs, not once per file:
    // per file they cost about 3 CPU-seconds (Apollo, type-graphql, PGlite, the chain), two
    // fifths of the whole suite's CPU. The suites hold no state in modules (every test app is
    // made by the harness, with databases of its own, and nothing is mocked by module), so
    // they do not see each other.
    isolate: false,
    // Files run side by side in more processes than cores: most of a suite's time is spent
    // waiting (on child processes, sockets, timeouts the tests provoke, the chain), not
    // computing. vitest's default is one process fewer than the cores, one on a 2-core machine.
    maxWorkers: 4,
  },
});
