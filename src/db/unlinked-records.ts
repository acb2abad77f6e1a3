/**
 * The stake mint named by pool and prediction records written before any chain was known
 * (the demo seed; test fixtures): an address no token lives at. Start-up links such records
 * to its chain's custody accounts and mint (modules/transactions/custody-sync.ts). A record
 * naming any other mint was linked by some chain already, and start-up never rewrites it.
 */
export const UNLINKED_STAKE_MINT = '2yme9Zac22rvPDK68j1vjuTwXkUCSayEi9fTkuvYYTT1';
