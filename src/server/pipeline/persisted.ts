import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { AppError } from '../../errors.js';
import { sha256, type TrustedDocuments } from '../trusted-documents.js';

/** Where an operation's document comes from: its text, or a hash of a registered one. */
export interface DocumentSource {
  query?: unknown;
  /** A trusted document's id (its SHA-256), as REST routes and clients of a manifest send it. */
  documentId?: unknown;
  extensions?: unknown;
}

/**
 * Trusted documents: with a manifest, only its documents run, sent in full or by hash.
 * Apollo Server's persisted queries read them by hash from {@link apolloCache}, where nothing
 * can be registered; {@link textOf} refuses any other document before Apollo parses it, over
 * HTTP and graphql-ws alike. Without a manifest, automatic persisted queries are Apollo's own
 * (its protocol and its cache), for both transports: graphql-ws hands them to executeOperation.
 */
export class TrustedDocumentStore {
  constructor(private readonly documents: TrustedDocuments) {}

  /** The store Apollo Server's persisted queries use: it asks for `apq:<hash>`; a registration is dropped. */
  readonly apolloCache: KeyValueCache<string> = {
    get: async (key) => this.documents.get(key.slice(key.indexOf(':') + 1).toLowerCase()),
    set: async () => {},
    delete: async () => false,
  };

  /**
   * The registered document `source` names, by its text or its hash; throws UNTRUSTED_DOCUMENT
   * for any other. Null when it names none: Apollo refuses that request as it is.
   */
  textOf(source: DocumentSource): string | null {
    const { query } = source;
    if (typeof query === 'string' && query.length > 0) {
      if (this.documents.has(sha256(query))) return query;
      throw new AppError('UNTRUSTED_DOCUMENT', 'Only registered documents run on this server');
    }
    const hash = hashOf(source);
    if (hash === null) return null;
    const known = this.documents.get(hash);
    if (known === undefined) throw new AppError('UNTRUSTED_DOCUMENT', 'No registered document has this hash');
    return known;
  }
}

/** The SHA-256 a request names (lower case), from `documentId` or `extensions.persistedQuery`; null when none. */
function hashOf(source: DocumentSource): string | null {
  if (typeof source.documentId === 'string') return source.documentId.replace(/^sha256:/, '').toLowerCase();
  const persisted = (source.extensions as { persistedQuery?: { sha256Hash?: unknown } | null } | null | undefined)?.persistedQuery;
  return typeof persisted?.sha256Hash === 'string' ? persisted.sha256Hash.toLowerCase() : null;
}
