import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startWarnings } from '../../src/start-warnings.js';

const production = { POOLGRAPH_MODE: 'production', AUTH_SECRET: 'Zq7v1Xw3Rk9pLm2Tn8Yb4Hc6Jd0Gf5Se' };

describe('start warnings', () => {
  it('says HOST=0.0.0.0 leaves sign-in messages naming localhost, unless AUTH_DOMAIN is set', () => {
    const env = { POOLGRAPH_MODE: 'development', HOST: '0.0.0.0', PORT: '4100', AUTH_SECRET: production.AUTH_SECRET };
    const [warning] = startWarnings(loadConfig(env), env);
    expect(warning).toMatch(/^HOST=0\.0\.0\.0 listens beyond this machine, but sign-in messages name localhost:4100, .*set AUTH_DOMAIN/);
    const named = { ...env, AUTH_DOMAIN: 'api.example.com' };
    expect(startWarnings(loadConfig(named), named)).toEqual([]);
    const local = { ...env, HOST: '127.0.0.1' };
    expect(startWarnings(loadConfig(local), local)).toEqual([]);
  });

  it("says loudly that production's embedded chain has an open faucet, and where its ledger is kept", () => {
    const env = { ...production, EMBEDDED_CHAIN_IN_PRODUCTION: 'true' };
    const [warning] = startWarnings(loadConfig(env), env);
    expect(warning).toMatch(/its faucet is open/);
    expect(warning).toContain('kept in ./data/chain (the default CHAIN_DATA_DIR), and reused if already there');
    const inMemory = { ...env, CHAIN_DATA_DIR: 'memory' };
    expect(startWarnings(loadConfig(inMemory), inMemory)[0]).toContain('its ledger is in memory');
  });
});
