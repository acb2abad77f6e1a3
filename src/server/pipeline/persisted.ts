import { createHash } from 'node:crypto';
import { InMemoryLRUCache, type KeyValueCache } from '@apollo/utils.keyvaluecache';
import { AppError } from '../../errors.js';
import type { TrustedDocuments } from '../trusted-documents.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Where an operation's document comes from: its text, or a hash of a known one. */
export interface DocumentSource {
  query?: unknown;
  /** A trusted document's id (its SHA-256), as REST routes and clients of a manifest send it. */
  documentId?: unknown;
  extensions?: unknown;
}

/**
 * The documents a request may name by hash, one store for every transport. With a manifest
 * of trusted documents, only its documents run (by text or by hash), and nothing can be
 * added; without one, automatic persisted queries: a client sends a hash alone and, when
 * the server does not know it (PERSISTED_QUERY_NOT_FOUND), the document with its hash once.
 * Over HTTP, Apollo Server runs that protocol on {@link apolloCache}; graphql-ws, which runs
 * beside Apollo, calls {@link resolve}, and /graphql calls it first with a manifest (to refuse
 * an unregistered document before Apollo parses it).
 */
export class PersistedDocuments {
  /** Automatic persisted queries as clients registered them, over HTTP or WebSocket (Apollo's default store). */
  private readonly registered: InMemoryLRUCache<string> | null;

  constructor(private readonly trusted: TrustedDocuments | null) {
    this.registered = trusted ? null : new InMemoryLRUCache<string>();
  }

  /** The store Apollo Server's persisted queries use: it asks for `apq:<hash>`; with a manifest, a registration is dropped. */
  readonly apolloCache: KeyValueCache<string> = {
    get: async (key) => this.known(key.slice(key.indexOf(':') + 1).toLowerCase()),
    set: async (key, value, options) => {
      await this.registered?.set(key.slice(key.indexOf(':') + 1).toLowerCase(), value, options);
    },
    delete: async () => false,
  };

  /** The document text to run; throws the refusal (AppError) otherwise. */
  async resolve(source: DocumentSource): Promise<string> {
    const query = typeof source.query === 'string' && source.query.length > 0 ? source.query : null;
    if (source.query !== undefined && source.query !== null && typeof source.query !== 'string') {
      throw new AppError('BAD_REQUEST', 'The `query` must be a string');
    }
    const hash = hashOf(source);
    if (query !== null && hash !== null && sha256(query) !== hash) {
      throw new AppError('PERSISTED_QUERY_HASH_MISMATCH', 'The persisted query hash is not the SHA-256 of the document sent with it');
    }
    if (this.trusted) {
      if (query !== null) {
        if (this.trusted.has(sha256(query))) return query;
        throw new AppError('UNTRUSTED_DOCUMENT', 'Only registered documents run on this server');
      }
      if (hash === null) throw noDocument();
      const known = this.trusted.get(hash);
      if (known === undefined) throw new AppError('UNTRUSTED_DOCUMENT', 'No registered document has this hash');
      return known;
    }
    if (query !== null) {
      if (hash !== null) await this.registered!.set(hash, query);
      return query;
    }
    if (hash === null) throw noDocument();
    const known = await this.known(hash);
    if (known === undefined) throw new AppError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
    return known;
  }

  private async known(hash: string): Promise<string | undefined> {
    return this.trusted ? this.trusted.get(hash) : this.registered!.get(hash);
  }
}

function noDocument(): AppError {
  return new AppError('BAD_REQUEST', 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.');
}

/** The SHA-256 a request names (lower case), from `documentId` or `extensions.persistedQuery`; null when none. */
function hashOf(source: DocumentSource): string | null {
  if (typeof source.documentId === 'string') return source.documentId.replace(/^sha256:/, '').toLowerCase();
  const extensions = source.extensions;
  if (extensions === undefined || extensions === null) return null;
  if (typeof extensions !== 'object' || Array.isArray(extensions)) throw new AppError('BAD_REQUEST', 'The `extensions` must be an object');
  const persisted = (extensions as { persistedQuery?: unknown }).persistedQuery;
  if (persisted === undefined) return null;
  const { version, sha256Hash } = (persisted ?? {}) as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1) throw new AppError('BAD_REQUEST', 'Unsupported persisted query version; only version 1 is known');
  if (typeof sha256Hash !== 'string') throw new AppError('BAD_REQUEST', '`extensions.persistedQuery.sha256Hash` must be a string');
  return sha256Hash.toLowerCase();
}
