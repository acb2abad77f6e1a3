import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_VARS, loadConfig } from '../../src/config.js';
import { CONFIG_DOC_PATH, ENV_EXAMPLE_PATH, renderConfigDoc, renderEnvExample } from '../../src/tools/config-doc.js';

/** A secret as `openssl rand -hex 32` prints one. */
const STRONG_SECRET = randomBytes(32).toString('hex');

/** The problems loadConfig reports for `env`, none when it loads. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
}

describe('configuration', () => {
  it('runs on embedded defaults with no environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      mode: 'development',
      port: 4000,
      databaseUrl: null,
      pgliteDataDir: './data/pglite',
      seedDemoData: true,
      introspection: true,
    });
  });

  it('turns introspection off in production and seeding off on Postgres', () => {
    const config = loadConfig({
      POOLGRAPH_MODE: 'production',
      DATABASE_URL: 'postgres://localhost/x',
      AUTH_SECRET: STRONG_SECRET,
      EMBEDDED_CHAIN_IN_PRODUCTION: 'true',
    });
    expect(config.introspection).toBe(false);
    expect(config.seedDemoData).toBe(false);
  });

  it('starts the embedded chain by default and needs keys and a mint for a real cluster', () => {
    expect(loadConfig({}).chain).toMatchObject({
      rpcUrl: null,
      devchainDataDir: './data/chain',
      proofTtlSeconds: 120,
      minWithdrawAmount: 1,
    });
    expect(loadConfig({ CHAIN_DATA_DIR: 'memory' }).chain.devchainDataDir).toBeNull();
    try {
      loadConfig({ SOLANA_RPC_URL: 'http://127.0.0.1:8899', MIN_WITHDRAW_AMOUNT: '-1', AUTH_SECRET: STRONG_SECRET });
      expect.unreachable();
    } catch (error) {
      expect([...(error as ConfigError).problems].sort()).toEqual([
        'CUSTODY_SECRET_KEY is required with SOLANA_RPC_URL',
        'MIN_WITHDRAW_AMOUNT must be a positive number of tokens, got "-1"',
        'RELAYER_SECRET_KEY is required with SOLANA_RPC_URL',
        'STAKE_MINT is required with SOLANA_RPC_URL',
      ]);
    }
  });

  it('requires a strong AUTH_SECRET in production', () => {
    expect(() => loadConfig({ POOLGRAPH_MODE: 'production' })).toThrow(/AUTH_SECRET is required in production/);
    expect(() => loadConfig({ AUTH_SECRET: 'short' })).toThrow(/AUTH_SECRET must be at least 32 characters/);
  });

  it('refuses, with one line naming AUTH_SECRET, a counted, repeated or placeholder secret of any length', () => {
    const weak = [
      '0123456789abcdef0123456789abcdef',
      'changeme-changeme-changeme-changeme',
      'changeme-0f3a9c71e2b84d56a0c9e7f1',
      'Password123Password123Password123',
      'Password1234567890!Password1234567890!',
      'local-cluster-secret-0123456789abcdef',
      'abcdefghijklmnopqrstuvwxyz0123456789',
    ];
    for (const secret of weak) {
      const problems = problemsOf({ POOLGRAPH_MODE: 'production', AUTH_SECRET: secret, EMBEDDED_CHAIN_IN_PRODUCTION: 'true' });
      expect(problems, secret).toHaveLength(1);
      expect(problems[0], secret).toMatch(/^AUTH_SECRET (is too predictable|contains "\w+": a placeholder).*openssl rand -hex 32/);
    }
  });

  it('refuses an AUTH_SECRET of few distinct or repeated characters, and takes generated ones', () => {
    for (const predictable of ['x'.repeat(32), 'ab'.repeat(16), 'k7Q2'.repeat(8), '0123'.repeat(10)]) {
      expect(() => loadConfig({ AUTH_SECRET: predictable }), predictable).toThrow(
        /AUTH_SECRET is too predictable: about \d+ bits.*openssl rand -hex 32/,
      );
    }
    // A generated secret from the estimate's tail (one in about 50,000 of 16 random bytes in hex
    // estimates under 86 bits); a threshold of 90 once refused such a one.
    expect(loadConfig({ AUTH_SECRET: '25a8962283cba9877264dd30404d4222' }).auth.secret.length).toBe(32);
    // As the documented command makes them (openssl rand -hex 32), and shorter generated ones.
    for (let i = 0; i < 200; i++) {
      for (const generated of [randomBytes(32).toString('hex'), randomBytes(16).toString('hex'), randomBytes(24).toString('base64')]) {
        expect(loadConfig({ AUTH_SECRET: generated }).auth.secret.length, generated).toBe(generated.length);
      }
    }
  });

  it('refuses production without SOLANA_RPC_URL, naming it, unless the embedded devchain is allowed explicitly', () => {
    expect(() => loadConfig({ POOLGRAPH_MODE: 'production', AUTH_SECRET: STRONG_SECRET })).toThrow(
      /SOLANA_RPC_URL is required in production.*EMBEDDED_CHAIN_IN_PRODUCTION=true/,
    );
    expect(
      loadConfig({ POOLGRAPH_MODE: 'production', AUTH_SECRET: STRONG_SECRET, EMBEDDED_CHAIN_IN_PRODUCTION: 'true' }).chain.rpcUrl,
    ).toBeNull();
    const cluster = { SOLANA_RPC_URL: 'https://api.devnet.solana.com', RELAYER_SECRET_KEY: 'k', CUSTODY_SECRET_KEY: 'k', STAKE_MINT: 'm' };
    expect(loadConfig({ POOLGRAPH_MODE: 'production', AUTH_SECRET: STRONG_SECRET, ...cluster }).chain.rpcUrl).toBe(cluster.SOLANA_RPC_URL);
    // Outside production the embedded chain needs no opt-in.
    expect(loadConfig({}).chain.rpcUrl).toBeNull();
  });

  it('takes a standby for reads only beside a Postgres primary', () => {
    expect(problemsOf({ DATABASE_READ_URL: 'postgres://standby/x' })).toEqual([
      expect.stringMatching(/DATABASE_READ_URL needs DATABASE_URL/),
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://primary/x', DATABASE_READ_URL: 'mysql://standby/x' })).toEqual([
      expect.stringMatching(/DATABASE_READ_URL must start with postgres/),
    ]);
    const config = loadConfig({ DATABASE_URL: 'postgres://primary/x', DATABASE_READ_URL: 'postgres://standby/x' });
    expect(config.databaseRead).toEqual({ url: 'postgres://standby/x', maxLagMs: 5000 });
    expect(loadConfig({}).databaseRead.url).toBeNull();
  });

  it('reports every bad setting at once, one line each', () => {
    try {
      loadConfig({ PORT: 'eighty', POOLGRAPH_MODE: 'staging', DATABASE_URL: 'mysql://x', INTROSPECTION: 'maybe' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(4);
      expect(problems.join('\n')).not.toMatch(/AUTH_SECRET/);
      expect(problems.join('\n')).toMatch(/PORT.*eighty/);
      expect(problems.join('\n')).toMatch(/POOLGRAPH_MODE.*staging/);
      expect(problems.join('\n')).toMatch(/DATABASE_URL/);
      expect(problems.join('\n')).toMatch(/INTROSPECTION.*maybe/);
    }
  });

  it('reads the hardening settings, with limits on and test-mode defaults off where they would get in the way', () => {
    const config = loadConfig({});
    expect(config.limits).toEqual({
      maxDepth: 15,
      maxAliases: 30,
      maxDirectives: 50,
      maxTokens: 2000,
      maxCost: 20_000,
      maxBytes: 2_000_000,
      largeAnswerBytes: 1_000_000,
    });
    expect(config.rateLimit).toEqual({
      queriesPerMinute: 600,
      mutationsPerMinute: 60,
      queriesPerAddressPerMinute: 3000,
      mutationsPerAddressPerMinute: 300,
    });
    expect([config.images.uploadsPerMinute, config.images.uploadsPerAddressPerMinute]).toEqual([10, 30]);
    expect(config.redis.commandTimeoutMs).toBe(250);
    expect(config.loadShedding).toEqual({ maxEventLoopDelayMs: 1000, maxHeapUsedRatio: 0.9, maxDatabaseWaitMs: 1000 });
    expect([config.statementTimeoutMs, config.shutdownTimeoutMs]).toEqual([5000, 10_000]);
    expect(config.http).toEqual({
      bodyLimitBytes: 102_400,
      requestTimeoutMs: 15_000,
      trustProxy: false,
      allowedOrigins: ['http://localhost:*', 'http://127.0.0.1:*'],
      allowedHosts: ['localhost', '127.0.0.1', '::1'],
      bodyTimeoutMs: 10_000,
      maxSocketsPerClient: 100,
      maxSubscriptionsPerClient: 1000,
      socketSetUpsAtOnce: 32,
    });
    // The queue has at least one place: none would set up no socket at all.
    expect(() => loadConfig({ SOCKET_SET_UPS_AT_ONCE: '0' })).toThrow(/SOCKET_SET_UPS_AT_ONCE/);
    const test = loadConfig({ POOLGRAPH_MODE: 'test' });
    expect(test.rateLimit).toEqual({
      queriesPerMinute: 0,
      mutationsPerMinute: 0,
      queriesPerAddressPerMinute: 0,
      mutationsPerAddressPerMinute: 0,
    });
    expect(test.loadShedding.maxEventLoopDelayMs).toBe(0);
    expect(test.loadShedding.maxDatabaseWaitMs).toBe(0);
    const tuned = loadConfig({ MAX_QUERY_DEPTH: '0', TRUST_PROXY: '10.0.0.0/8, loopback,::1', LOAD_SHED_HEAP_USED_RATIO: '0.75' });
    expect(tuned.limits.maxDepth).toBe(0);
    expect(tuned.http.trustProxy).toEqual(['10.0.0.0/8', 'loopback', '::1']);
    expect(tuned.loadShedding.maxHeapUsedRatio).toBe(0.75);
    expect(loadConfig({ TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
  });

  it('keeps each per-address ceiling at or above the per-user budget it bounds', () => {
    // A raised per-user budget raises the default ceiling with it; an explicit ceiling below it is refused.
    expect(loadConfig({ RATE_LIMIT_QUERIES_PER_MINUTE: '5000' }).rateLimit.queriesPerAddressPerMinute).toBe(5000);
    expect(loadConfig({ RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE: '0' }).rateLimit.queriesPerAddressPerMinute).toBe(0);
    expect(problemsOf({ RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE: '100', IMAGE_UPLOADS_PER_ADDRESS_PER_MINUTE: '5' })).toEqual([
      'RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE must be 0 or at least RATE_LIMIT_QUERIES_PER_MINUTE (600), got 100',
      'IMAGE_UPLOADS_PER_ADDRESS_PER_MINUTE must be 0 or at least IMAGE_UPLOADS_PER_MINUTE (10), got 5',
    ]);
  });

  it('names each bad hardening setting on its own line', () => {
    try {
      loadConfig({
        MAX_QUERY_COST: 'lots',
        BODY_LIMIT_BYTES: '10',
        TRUST_PROXY: '10.0.0.0/33,proxy.local',
        LOAD_SHED_HEAP_USED_RATIO: '1.5',
        METRICS: 'sometimes',
        METRICS_TOKEN: 'short',
      });
      expect.unreachable();
    } catch (error) {
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(6);
      expect(problems).toContain('MAX_QUERY_COST must be an integer of at least 0, got "lots"');
      expect(problems.join('\n')).toMatch(/BODY_LIMIT_BYTES must be an integer of at least 1024, got "10"/);
      expect(problems.join('\n')).toMatch(/TRUST_PROXY .*"10.0.0.0\/33", "proxy.local" is none of these/);
      expect(problems.join('\n')).toMatch(/LOAD_SHED_HEAP_USED_RATIO must be a number from 0 up to \(not including\) 1, got "1.5"/);
      expect(problems.join('\n')).toMatch(/METRICS must be true or false, got "sometimes"/);
      expect(problems.join('\n')).toMatch(/METRICS_TOKEN must be at least 16 characters/);
    }
  });

  describe('the auth secret', () => {
    const PUBLIC_SECRET = 'poolgraph-development-secret-not-for-production-use';
    const REAL_CLUSTER = {
      SOLANA_RPC_URL: 'https://api.devnet.solana.com',
      RELAYER_SECRET_KEY: 'k',
      CUSTODY_SECRET_KEY: 'k',
      STAKE_MINT: 'm',
    };
    const scratchFile = () => join(mkdtempSync(join(tmpdir(), 'poolgraph-secret-')), 'data', 'auth-secret');

    it('is required, and may not be the public development secret, beyond loopback, with a real cluster, or in production', () => {
      const exposures: Array<[Record<string, string>, RegExp]> = [
        [{ HOST: '0.0.0.0' }, /AUTH_SECRET is required when HOST \(0\.0\.0\.0\) is not a loopback address/],
        [{ HOST: '192.168.1.20' }, /AUTH_SECRET is required when HOST \(192\.168\.1\.20\)/],
        [REAL_CLUSTER, /AUTH_SECRET is required with SOLANA_RPC_URL/],
        [{ POOLGRAPH_MODE: 'production', EMBEDDED_CHAIN_IN_PRODUCTION: 'true' }, /AUTH_SECRET is required in production/],
        [{ POOLGRAPH_MODE: 'test', HOST: '::' }, /AUTH_SECRET is required when HOST/],
      ];
      for (const [env, message] of exposures) {
        expect(problemsOf(env).join('\n'), JSON.stringify(env)).toMatch(message);
        expect(problemsOf({ ...env, AUTH_SECRET: PUBLIC_SECRET }).join('\n'), JSON.stringify(env)).toMatch(
          /AUTH_SECRET is the public development secret/,
        );
        expect(problemsOf({ ...env, AUTH_SECRET: 'N4tq8WzK2vRb7YhLm3PxD9sCf6GjA1eU' }), JSON.stringify(env)).toEqual([]);
      }
      for (const host of ['127.0.0.1', '::1', 'localhost']) {
        expect(problemsOf({ HOST: host, AUTH_SECRET_FILE: scratchFile() }), host).toEqual([]);
      }
    });

    it('is generated on first start in loopback development, kept owner-only in the data directory, and reused', () => {
      const file = scratchFile();
      const first = loadConfig({ AUTH_SECRET_FILE: file }).auth.secret;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
      expect(Buffer.from(first).toString()).not.toBe(PUBLIC_SECRET);
      expect(Buffer.from(loadConfig({ AUTH_SECRET_FILE: file }).auth.secret)).toEqual(Buffer.from(first));
      const elsewhere = loadConfig({ AUTH_SECRET_FILE: scratchFile() }).auth.secret;
      expect(Buffer.from(elsewhere)).not.toEqual(Buffer.from(first));
    });
  });
});

describe('docs/configuration.md', () => {
  it('is ENV_VARS as generated (run `npm run docs:config` after changing a setting)', () => {
    expect(readFileSync(CONFIG_DOC_PATH, 'utf8')).toBe(renderConfigDoc());
  });

  it('has .env.example beside it, generated alike, one commented line per variable', () => {
    const example = readFileSync(ENV_EXAMPLE_PATH, 'utf8');
    expect(example).toBe(renderEnvExample());
    expect(example.match(/^# [A-Z][A-Z_]+=$/gm)).toHaveLength(Object.keys(ENV_VARS).length);
  });

  it('documents every variable src/config.ts reads', () => {
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/env\.([A-Z][A-Z_]+)/g), ...source.matchAll(/\('([A-Z][A-Z_]+)'/g)].map((m) => m[1]!));
    read.delete('NODE_ENV'); // read only to pick the mode; the doc says so in its introduction
    expect([...read].filter((name) => !(name in ENV_VARS))).toEqual([]);
  });
});
