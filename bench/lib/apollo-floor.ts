import { readFileSync } from 'node:fs';
import { ApolloServer, HeaderMap } from '@apollo/server';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { buildSchema, type GraphQLFieldResolver, type GraphQLResolveInfo } from 'graphql';
import type { Database } from '../../src/db/client.js';
import { floorQuery, paramsOf } from './floor.js';
import { SHAPES } from './query.js';

const SDL = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');

/** A request's context: its page's floor answer, read at most once (the root fields of a page share it). */
interface FloorContext {
  data(): Promise<Record<string, unknown>>;
}

/**
 * The floor's statements behind Apollo Server (the `apollo` target of `npm run bench`): what a
 * service built as Apollo's docs build one reaches on a page with perfect SQL, the floor's
 * own. Apollo Server at its defaults (as its docs build one: a schema, resolvers,
 * no plugin of its own) behind plain fastify through `executeHTTPGraphQLRequest`, on the app's
 * schema (schema/schema.graphql). Each root field's resolver takes its part of the page's floor
 * answer (the statement run once a request, the JSON parsed); graphql-js completes it with
 * the default resolvers (the floor writes every field under its own name), Apollo serializes
 * it. Against the floor: what Apollo's request pipeline and graphql-js execution cost a page.
 */
export async function createApolloFloorApp(
  database: Database,
  databaseUrl: string | null,
  authSecret: Uint8Array,
): Promise<FastifyInstance> {
  const query = await floorQuery(database, databaseUrl, 'poolgraph_bench_apollo');
  const rootField: GraphQLFieldResolver<unknown, FloorContext> = async (_source, _args, context, info: GraphQLResolveInfo) =>
    (await context.data())[info.path.key];
  const schema = buildSchema(SDL);
  for (const field of Object.values(schema.getQueryType()!.getFields())) field.resolve = rootField;
  const apollo = new ApolloServer<FloorContext>({ schema });
  await apollo.start();
  const shapes = new Map(SHAPES.map((shape) => [shape.query, shape]));

  const contextOf = (request: FastifyRequest) => (): Promise<FloorContext> => {
    const shape = shapes.get((request.body as { query?: string }).query ?? '');
    let answer: Promise<Record<string, unknown>> | undefined;
    const read = async () => {
      if (!shape) throw new Error('not a page of the corpus');
      const body = await query.run(shape, await paramsOf(shape, request, authSecret));
      return (JSON.parse(body) as { data: Record<string, unknown> }).data;
    };
    return Promise.resolve({ data: () => (answer ??= read()) });
  };
  const app = Fastify({ logger: false });
  app.addHook('onClose', async () => {
    await apollo.stop();
    await query.close();
  });
  app.post('/graphql', async (request, reply) => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body: request.body },
      context: contextOf(request),
    });
    if (response.body.kind !== 'complete') throw new Error('Apollo Server answered incrementally');
    for (const [name, value] of response.headers) reply.header(name, value);
    return reply.code(response.status ?? 200).send(response.body.string);
  });
  return app;
}
