import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

/** A package's folder, found from its main entry (some packages export no package.json). */
function packageDir(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!dir.endsWith(join('node_modules', name))) dir = dirname(dir);
  return dir;
}

/**
 * The explorer's assets, all from node_modules so the page works with no internet access:
 * GraphiQL's browser build, the React it runs on, and graphql-ws's browser build for
 * subscriptions.
 */
const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: join(packageDir('react'), 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': { file: join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), type: 'text/javascript' },
  'graphiql.js': { file: join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
  'graphql-ws.js': { file: join(packageDir('graphql-ws'), 'umd/graphql-ws.min.js'), type: 'text/javascript' },
};

export const EXPLORER_ASSET_PREFIX = '/graphql/explorer/';

const DEFAULT_QUERY = `# Welcome to poolgraph. Press the play button (or Ctrl-Enter) to run a query.
query OpenPools {
  pools(filter: { status: [ACTIVE] }, sort: END_DATE, first: 5) {
    totalCount
    nodes {
      title
      predictionEndDate
      totalVolume
      user { username }
      streak { title }
      predictions(first: 3) { nodes { prediction stake user { username } } }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`;

function page(endpoint: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>poolgraph explorer</title>
  <link rel="stylesheet" href="${EXPLORER_ASSET_PREFIX}graphiql.css">
  <style>html, body, #explorer { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="explorer">Loading the explorer…</div>
  <script src="${EXPLORER_ASSET_PREFIX}react.js"></script>
  <script src="${EXPLORER_ASSET_PREFIX}react-dom.js"></script>
  <script src="${EXPLORER_ASSET_PREFIX}graphiql.js"></script>
  <script src="${EXPLORER_ASSET_PREFIX}graphql-ws.js"></script>
  <script>
    // Subscriptions run over graphql-ws on the same path; the upgrade carries this origin's
    // cookies, so a session signed in from the explorer follows its own notifications.
    const wsClient = graphqlWs.createClient({
      url: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + ${JSON.stringify(endpoint)},
      lazy: true,
    });
    const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)}, wsClient });
    ReactDOM.createRoot(document.getElementById('explorer')).render(
      React.createElement(GraphiQL, { fetcher, defaultQuery: ${JSON.stringify(DEFAULT_QUERY)}, defaultEditorToolsVisibility: true })
    );
  </script>
</body>
</html>`;
}

/** What a browser opening the endpoint gets where the explorer is off (production's default). */
export const EXPLORER_OFF_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>poolgraph: the explorer is off</title></head>
<body>
  <h1>The explorer is off on this server</h1>
  <p>This is poolgraph's GraphQL endpoint. Its explorer and introspection are off (the default in production);
  the operator can serve them with <code>INTROSPECTION=true</code>.</p>
  <p>Send GraphQL requests here as POST with <code>Content-Type: application/json</code>.
  The REST form is described at <a href="/docs">/docs</a> (<a href="/openapi.json">/openapi.json</a>).</p>
</body>
</html>`;

/** True for a browser navigating to the endpoint (not a GraphQL request over GET). */
export function wantsExplorer(accept: string | undefined, query: Record<string, unknown>): boolean {
  return !query.query && !query.extensions && (accept ?? '').includes('text/html');
}

export function registerExplorerAssets(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  app.get<{ Params: { asset: string } }>(`${EXPLORER_ASSET_PREFIX}:asset`, async (request, reply) => {
    // Own names only: `constructor`, `__proto__` and kin are the object's, not assets.
    const asset = Object.hasOwn(ASSETS, request.params.asset) ? ASSETS[request.params.asset] : undefined;
    if (!asset) return reply.code(404).send({ error: 'not found' });
    let body = cache.get(asset.file);
    if (!body) cache.set(asset.file, (body = readFileSync(asset.file)));
    return reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(body);
  });
}

export function explorerPage(endpoint = '/graphql'): string {
  return page(endpoint);
}
