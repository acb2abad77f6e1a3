import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config.js';

/** The registered documents: SHA-256 (hex) of each document's text -> the text. */
export type TrustedDocuments = ReadonlyMap<string, string>;

/** The SHA-256 (hex) of a document's text: its id in a manifest, the hash clients send. */
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Reads a manifest of trusted documents, in either common format: Apollo's persisted query
 * manifest (`{ "format": "apollo-persisted-query-manifest", "operations": [{ "id", "body" }] }`)
 * or a plain map of hash to document (`{ "<sha256>": "query ..." }`, GraphQL Codegen's and
 * Relay's). Every id must be the SHA-256 of its document, the hash clients send. A file that
 * cannot be read or does not fit stops the start-up with one line saying why.
 */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  const fail = (reason: string): never => {
    throw new ConfigError([`TRUSTED_DOCUMENTS (${path}) ${reason}`]);
  };
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return fail(`cannot be read as JSON: ${(error as Error).message}`);
  }
  if (!manifest || typeof manifest !== 'object') return fail('must hold a JSON object');
  const entries: Array<[unknown, unknown]> =
    'operations' in manifest && Array.isArray(manifest.operations)
      ? manifest.operations.map((operation: { id?: unknown; body?: unknown }) => [operation?.id, operation?.body])
      : Object.entries(manifest);
  const documents = new Map<string, string>();
  for (const [id, body] of entries) {
    if (typeof id !== 'string' || typeof body !== 'string') return fail('must pair string ids with string documents');
    if (sha256(body) !== id.toLowerCase()) return fail(`lists id ${id}, which is not the SHA-256 of its document`);
    documents.set(id.toLowerCase(), body);
  }
  if (documents.size === 0) return fail('lists no documents');
  return documents;
}
