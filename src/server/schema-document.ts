import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type GraphQLSchema, printSchema } from 'graphql';
import { ref } from './rest/resources.schema.js';

/** Where the GraphQL schema is served as SDL. */
export const SCHEMA_DOCUMENT_PATH = '/schema.graphql';

/** True when an If-None-Match header names `etag` (or is `*`); weak and strong forms compare alike. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * Serves the schema as SDL at /schema.graphql for code generators and clients, with an
 * ETag (its SHA-256), so a client asking again with If-None-Match gets 304 and no body
 * until the schema changes. Registered only where introspection is on: it tells exactly
 * what introspection tells.
 */
export function registerSchemaDocument(app: FastifyInstance, schema: GraphQLSchema): void {
  const sdl = `${printSchema(schema)}\n`;
  const etag = `"${createHash('sha256').update(sdl).digest('base64url')}"`;
  const routeSchema = {
    summary: 'The GraphQL schema (SDL)',
    description: 'For code generators. Carries an ETag: ask again with If-None-Match and get 304 until the schema changes.',
    tags: ['schema'],
    response: {
      200: { description: 'The schema in SDL.', content: { 'application/graphql': { schema: { type: 'string' } } } },
      304: { description: 'Unchanged since the ETag given in If-None-Match.', type: 'null' },
      '4xx': ref('Error'),
    },
  };
  app.get(SCHEMA_DOCUMENT_PATH, { schema: routeSchema }, async (request, reply) => {
    reply.header('etag', etag).header('cache-control', 'no-cache');
    if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type('application/graphql; charset=utf-8').send(sdl);
  });
}
