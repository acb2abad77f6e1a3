import type { Config } from './config.js';

/**
 * What a start must say loudly because the settings are legal but probably not what the
 * operator means: sign-in messages naming an address only this machine has, and in
 * production an embedded chain whose faucet anyone may call.
 */
export function startWarnings(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  if ((config.host === '0.0.0.0' || config.host === '::') && !env.AUTH_DOMAIN) {
    warnings.push(
      `HOST=${config.host} listens beyond this machine, but sign-in messages name ${config.auth.domain}, ` +
        'which a wallet elsewhere will not match: set AUTH_DOMAIN (and AUTH_URI) to the address users reach, e.g. AUTH_DOMAIN=api.example.com',
    );
  }
  if (config.mode === 'production' && !config.chain.rpcUrl) {
    const ledger = config.chain.devchainDataDir
      ? `its ledger and service keys are kept in ${config.chain.devchainDataDir}${env.CHAIN_DATA_DIR ? '' : ' (the default CHAIN_DATA_DIR), and reused if already there'}`
      : 'its ledger is in memory and lost at exit';
    warnings.push(
      'The embedded devchain serves in production (EMBEDDED_CHAIN_IN_PRODUCTION=true): its faucet is open, anyone ' +
        `signed in may mint test tokens and SOL (requestDevTokens, requestDevSol, POST /dev/tokens, POST /dev/sol); ${ledger}. ` +
        'Set SOLANA_RPC_URL for a real cluster.',
    );
  }
  return warnings;
}
