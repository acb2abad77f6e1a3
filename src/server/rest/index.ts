import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ACCESS_COOKIE } from '../cookies.js';
import { authRoutes } from './auth.routes.js';
import { devRoutes } from './dev.routes.js';
import { poolRoutes } from './pools.routes.js';
import { ref, SHARED_SCHEMAS } from './resources.schema.js';
import { restResources } from './resources.js';
import { RestError } from './rest-error.js';
import { registerErrorShape, registerRoute, type RestOptions, type RestRoute } from './route.js';
import { registerSchemaDocument } from '../schema-document.js';
import { streakRoutes } from './streak.routes.js';
import { transactionRoutes } from './transactions.routes.js';

export type { RunOperation } from './run-operation.js';

/** Every route of the REST form, in the order the OpenAPI document lists them. */
export const REST_ROUTES: RestRoute[] = [...poolRoutes, ...streakRoutes, ...transactionRoutes, ...authRoutes];

/** Where the OpenAPI document and its docs page are served. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * A POST without a body (the SDK's /auth/refresh, say) is an empty object, unless its route
 * requires fields: then it is refused as a body that says nothing would be.
 */
function normalizeBody(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as { required?: string[] } | undefined;
  if (!schema || (request.body !== undefined && request.body !== null)) return;
  if (schema.required?.length) throw new RestError('BAD_USER_INPUT', 'This request needs a JSON body (Content-Type: application/json)');
  request.body = {};
}

/**
 * The interface's REST form (docs/rest.md) beside GraphQL: each route runs one fixed
 * GraphQL operation through the /graphql pipeline (see run-operation.ts), so credentials,
 * limits, rate limits, errors, metrics and logs are those of GraphQL. The resources' fields
 * and JSON schemas derive from the schema's types (resources.ts). Serves the OpenAPI 3.1
 * document generated from the routes at /openapi.json and its docs page at /docs.
 */
export async function registerRest(app: FastifyInstance, options: RestOptions): Promise<void> {
  const resources = restResources(options.schema);
  await app.register(async (scope) => {
    await scope.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'poolgraph REST API',
          version: '1.0.0',
          description:
            'The prediction-pool interface as REST. Every route runs a fixed GraphQL operation of /graphql, with the same credentials, limits and errors. ' +
            'Lists answer a JSON array; their paging metadata is in the X-Total-Count, X-Next-Cursor and Link headers. ' +
            'Failures answer `{ "error": { "code", "message", ... } }` with the status of the code; 429 and 503 carry Retry-After. ' +
            'Every answer of a counted operation carries its budget in the RateLimit-Policy and RateLimit headers. ' +
            'Lists in the query may be repeated, bracketed (`a[]=`), indexed (`a[0]=`) or comma-separated; enum values in any case; ' +
            'booleans as true/false or 1/0. ' +
            'A query parameter not listed here is refused (400 naming it); body fields not listed are ignored.',
        },
        components: {
          securitySchemes: {
            bearer: {
              type: 'http',
              scheme: 'bearer',
              description: 'An access token of a session (POST /auth/session or /auth/wallet/sign-in).',
            },
            cookie: { type: 'apiKey', in: 'cookie', name: ACCESS_COOKIE, description: 'The session cookie browsers get at sign-in.' },
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key (createApiKey).' },
          },
        },
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    });
    await scope.register(swaggerUi, { routePrefix: DOCS_PATH, uiConfig: { url: OPENAPI_PATH, validatorUrl: null } as never });
    scope.get(OPENAPI_PATH, { schema: { hide: true } }, async () => scope.swagger());

    for (const schema of [...resources.schemas, ...SHARED_SCHEMAS]) scope.addSchema(schema);
    // Only JSON bodies: a text/plain POST is a "simple" cross-site request a page could forge.
    scope.removeContentTypeParser('text/plain');
    scope.addHook('preValidation', async (request) => {
      normalizeBody(request);
    });
    registerErrorShape(scope, options);
    const errorResponses = { '4xx': ref('Error'), '5xx': ref('Error') };
    if (options.serveSchemaDocument) registerSchemaDocument(scope, options.schema);
    // The faucet's routes where the schema has the faucet (the chain is a devchain).
    const faucet = options.schema.getMutationType()?.getFields().requestDevTokens ? devRoutes : [];
    for (const route of [...REST_ROUTES, ...faucet]) {
      registerRoute(scope, options, {
        ...route,
        // Its document spreads the resources' fragments, whose definitions derive from the schema.
        operation(request) {
          const operation = route.operation(request);
          return { ...operation, query: resources.completeDocument(operation.query) };
        },
        schema: { ...route.schema, response: { ...(route.schema.response as object), ...errorResponses } },
      });
    }
  });
}
