/**
 * docs/errors.md, generated from the error catalogue (src/errors.ts):
 * `npm run docs:errors` writes it; test/unit/errors.test.ts fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../errors.js';

export const ERRORS_DOC_PATH = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));

export function renderErrorsDoc(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, spec]) => `| \`${code}\` | ${spec.status} | ${spec.retryable ? 'yes' : 'no'} | ${spec.description.replace(/\|/g, '\\|')} |`,
  );
  return `<!-- Generated from src/errors.ts by \`npm run docs:errors\`; do not edit by hand. -->
# Errors

Every refusal, from every layer (fastify's own, the GraphQL pipeline, the services), over
HTTP, WebSocket (graphql-ws) and the REST routes, carries a code from one catalogue in
\`extensions.code\`:

\`\`\`json
{ "errors": [{ "message": "Too many operations; retry after 12 seconds", "extensions": { "code": "RATE_LIMITED", "retryAfter": 12 } }] }
\`\`\`

Messages are for people; programs read the code and the other \`extensions\` (\`argumentName\`,
\`retryAfter\`, \`limit\`, \`reason\`, \`requestId\`). Outside development no error carries a stack
trace or an internal message: an unexpected failure is \`INTERNAL_SERVER_ERROR\` with the
\`requestId\` that finds it in the logs.

## HTTP status

- A request refused before its operation runs (unreadable body, CSRF prevention, a document
  that does not parse or validate, a limit, bad credentials, the rate limit, an unknown
  persisted query) answers the code's status below.
- An operation that ran answers 200, its errors beside its \`data\` (GraphQL over HTTP), with
  one exception: when one of its errors has a code that retrying can cure (the **retry**
  column: \`DATABASE_UNAVAILABLE\`, \`RATE_LIMITED\`, ...), the response takes the first such
  code's status, whatever data came with it, so generic HTTP clients and proxies see 503 or
  429 for one cause and retry. A mutation that produced data keeps 200: retrying the request
  would repeat what it did. So a sign-in refused as \`RATE_LIMITED\` answers 429, like an
  operation over the rate limit.
- Every 429 and 503 carries \`Retry-After\`: the error's \`retryAfter\`, else 5 seconds.
- Over WebSocket the same codes arrive in \`error\` and \`next\` messages.

## Codes

| code | HTTP status | retry | meaning |
|---|---|---|---|
${rows.join('\n')}
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(ERRORS_DOC_PATH, renderErrorsDoc());
  console.log(`wrote ${ERRORS_DOC_PATH}`);
}
