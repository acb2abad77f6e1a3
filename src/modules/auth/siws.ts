/**
 * Sign-In With Solana messages (the SIWS / EIP-4361 text layout): what the wallet signs.
 * The server writes the message; at sign-in it parses the signed text back and checks every
 * field against the stored challenge, the configured domain and the clock.
 */
export interface SignInMessage {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  version: '1';
  chainId: string;
  nonce: string;
  issuedAt: Date;
  expirationTime: Date;
}

export const SIGN_IN_STATEMENT = 'Sign in to poolgraph. This request costs nothing and sends no transaction.';

export function formatSignInMessage(m: SignInMessage): string {
  return [
    `${m.domain} wants you to sign in with your Solana account:`,
    m.address,
    '',
    m.statement,
    '',
    `URI: ${m.uri}`,
    `Version: ${m.version}`,
    `Chain ID: ${m.chainId}`,
    `Nonce: ${m.nonce}`,
    `Issued At: ${m.issuedAt.toISOString()}`,
    `Expiration Time: ${m.expirationTime.toISOString()}`,
  ].join('\n');
}

const LAYOUT = new RegExp(
  String.raw`^(?<domain>[^\s]+) wants you to sign in with your Solana account:\n(?<address>[1-9A-HJ-NP-Za-km-z]{32,44})\n\n` +
    String.raw`(?<statement>[^\n]*)\n\nURI: (?<uri>[^\n]+)\nVersion: (?<version>1)\nChain ID: (?<chainId>[^\n]+)\n` +
    String.raw`Nonce: (?<nonce>[A-Za-z0-9]{8,64})\nIssued At: (?<issuedAt>[^\n]+)\nExpiration Time: (?<expirationTime>[^\n]+)$`,
);

/** Parses a message in exactly the layout `formatSignInMessage` writes; null otherwise. */
export function parseSignInMessage(text: string): SignInMessage | null {
  const groups = LAYOUT.exec(text)?.groups;
  if (!groups) return null;
  const issuedAt = new Date(groups.issuedAt!);
  const expirationTime = new Date(groups.expirationTime!);
  if (Number.isNaN(issuedAt.getTime()) || Number.isNaN(expirationTime.getTime())) return null;
  return {
    domain: groups.domain!,
    address: groups.address!,
    statement: groups.statement!,
    uri: groups.uri!,
    version: '1',
    chainId: groups.chainId!,
    nonce: groups.nonce!,
    issuedAt,
    expirationTime,
  };
}
