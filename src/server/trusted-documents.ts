import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PersistedQueryOptions } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError } from '../config.js';

/** The registered documents: SHA-256 (hex) of each document's text -> the text. */
export type TrustedDocuments = ReadonlyMap<string, string>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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

/**
 * Apollo's persisted-query cache, answered from the manifest and never written to: a
 * client sends a registered document by hash alone (`extensions.persistedQuery`), and no
 * client can register a new one.
 */
export function trustedDocumentsCache(documents: TrustedDocuments): NonNullable<PersistedQueryOptions['cache']> {
  return {
    // Apollo prefixes its keys; the hash is the last 64 characters.
    async get(key: string) {
      return documents.get(key.slice(-64));
    },
    async set() {},
    async delete() {
      return false;
    },
  };
}

function refuse(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).send({ errors: [{ message, extensions: { code: 'UNTRUSTED_DOCUMENT' } }] });
}

/**
 * A preHandler for the GraphQL route: a document given in full runs only when its hash is
 * registered, and a hash only when it is registered; anything else is refused with 400
 * UNTRUSTED_DOCUMENT before it is parsed.
 */
export function trustedDocumentsGuard(documents: TrustedDocuments) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const params = (request.method === 'GET' ? request.query : request.body) as Record<string, unknown> | null;
    if (!params || typeof params !== 'object' || Array.isArray(params)) return undefined; // malformed: Apollo answers
    const { query } = params;
    if (typeof query === 'string') {
      return documents.has(sha256(query)) ? undefined : refuse(reply, 'Only registered documents run on this server');
    }
    let extensions = params.extensions;
    if (typeof extensions === 'string') {
      try {
        extensions = JSON.parse(extensions);
      } catch {
        return undefined;
      }
    }
    const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
    if (typeof hash === 'string' && !documents.has(hash.toLowerCase())) {
      return refuse(reply, 'No registered document has this hash');
    }
    return undefined;
  };
}
