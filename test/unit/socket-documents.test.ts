import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { RequestErrors, SocketDocuments } from '../../src/server/websocket/documents.js';

const schema = buildSchema(`
  type Query { pool(id: ID!): Pool }
  type Subscription { poolUpdated(poolId: ID!): Pool! }
  type Pool { id: ID! title: String! owner: Pool }
`);
const limits = { maxDepth: 3, maxAliases: 30, maxDirectives: 50, maxTokens: 2000, maxCost: 20_000 };
const POOL_UPDATED = 'subscription A { poolUpdated(poolId: "p") { id } } subscription B { poolUpdated(poolId: "p") { title } }';

/** The errors a document is refused with, or null when it is not refused here. */
function refusalOf(documents: SocketDocuments, text: string): Array<{ message: string; code: unknown }> | null {
  try {
    documents.operationOf(text, undefined);
    return null;
  } catch (error) {
    if (!(error instanceof RequestErrors)) throw error;
    return error.errors.map((e) => ({ message: e.message, code: e.extensions.code }));
  }
}

describe('the documents of graphql-ws (SocketDocuments)', () => {
  it('gives subscriptions open on one text its one parsed form, per operation name', () => {
    const documents = new SocketDocuments(schema, limits, false);
    const a = documents.operationOf(POOL_UPDATED, 'A')!;
    expect(a).toMatchObject({ type: 'subscription', name: 'A' });
    // The same object, so subscribers of the same text share each event's execution (subscription.ts keys on it).
    expect(documents.operationOf(POOL_UPDATED, 'A')).toBe(a);
    expect(documents.operationOf(POOL_UPDATED, 'B')).toMatchObject({ type: 'subscription', name: 'B' });
    expect(documents.operationOf(POOL_UPDATED, 'B')).not.toBe(a);
  });

  it("refuses a subscription by Apollo's rules: coded, no suggestions, limits with their own code, introspection", () => {
    const documents = new SocketDocuments(schema, limits, false);
    const [unknownField] = refusalOf(documents, 'subscription { poolUpdated(poolId: "p") { titel } }')!;
    expect(unknownField).toEqual({ message: 'Cannot query field "titel" on type "Pool".', code: 'GRAPHQL_VALIDATION_FAILED' });
    expect(refusalOf(documents, 'subscription { poolUpdated(poolId: "p") { owner { owner { owner { id } } } } }')).toEqual([
      { message: expect.stringMatching(/depth/i), code: 'QUERY_TOO_COMPLEX' },
    ]);
    // The whole document is validated, as Apollo does: another operation's introspection refuses it too.
    const withIntrospection = 'subscription S { poolUpdated(poolId: "p") { id } } query Q { __schema { queryType { name } } }';
    expect(() => documents.operationOf(withIntrospection, 'S')).toThrow(/introspection is not allowed/);
    expect(new SocketDocuments(schema, limits, true).operationOf(withIntrospection, 'S')).toMatchObject({ type: 'subscription' });
    // With introspection on, suggestions are shown, as Apollo shows them.
    expect(
      refusalOf(new SocketDocuments(schema, limits, true), 'subscription { poolUpdated(poolId: "p") { titel } }')![0]!.message,
    ).toMatch(/Did you mean "title"\?/);
  });

  it('leaves queries, mutations and what does not parse or name one operation to Apollo Server', () => {
    const documents = new SocketDocuments(schema, limits, false);
    // Not validated here: Apollo answers GRAPHQL_VALIDATION_FAILED for it.
    expect(documents.operationOf('{ pool(id: "p") { titel } }', undefined)).toMatchObject({ type: 'query' });
    expect(documents.operationOf('{ pool(id: "p") {', undefined)).toBeNull();
    expect(documents.operationOf(POOL_UPDATED, undefined)).toBeNull();
    expect(documents.operationOf(POOL_UPDATED, 'C')).toBeNull();
  });
});
