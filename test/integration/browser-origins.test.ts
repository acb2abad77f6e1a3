import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import * as tables from '../../schema/index.js';
import { CHROMIUM, renderedDom } from '../support/chromium.js';
import { startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';

/** A page server on its own port: another origin than the API's (same site, so Lax cookies travel). */
async function servePage(html: () => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    // The page polls /tick while it waits for a socket: a request in flight keeps headless
    // Chromium's virtual time (which ends the page) from running past the socket's events.
    if (request.url === '/tick') return void setTimeout(() => response.end('tick'), 20);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, server };
}

/**
 * What a frontend on another origin does: exchanges an API key for session cookies, then
 * reads the viewer over /graphql and over REST with those cookies alone, and opens a
 * socket (which the browser sends the cookie with). Each outcome lands in the DOM, which headless Chromium dumps.
 */
function frontendPage(api: string, apiKey: string, withSocket = true): string {
  return `<!doctype html><html><body><pre id="out"></pre><script>
const out = (line) => { document.getElementById('out').textContent += line + '\\n'; };
const gql = (query) => fetch('${api}/graphql', { method: 'POST', credentials: 'include',
  headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then((r) => r.json());
(async () => {
  try {
    const session = await gql('mutation { signInWithApiKey(apiKey: "${apiKey}") { user { id } } }');
    out('signed-in:' + JSON.stringify(session.data ?? session.errors));
    const viewer = await gql('{ viewer { id } }');
    out('graphql-viewer:' + (viewer.data && viewer.data.viewer ? viewer.data.viewer.id : JSON.stringify(viewer)));
  } catch (error) { out('graphql-blocked:' + error.name); }
  try {
    const me = await fetch('${api}/auth/me', { credentials: 'include' }).then((r) => r.json());
    out('rest-me:' + (me.id ?? me.user?.id ?? JSON.stringify(me)));
  } catch (error) { out('rest-blocked:' + error.name); }
  if (${withSocket}) {
    let settled = false;
    const socket = new WebSocket('${api.replace(/^http/, 'ws')}/graphql', 'graphql-transport-ws');
    socket.onopen = () => { out('socket-open'); socket.send(JSON.stringify({ type: 'connection_init', payload: {} })); };
    socket.onmessage = (event) => { out('socket:' + JSON.parse(event.data).type); settled = true; socket.close(); };
    socket.onclose = (event) => { out('socket-closed:' + event.code); settled = true; };
    for (let i = 0; i < 250 && !settled; i++) await fetch('/tick');
  }
  out('done');
})();
</script></body></html>`;
}

describe.skipIf(!CHROMIUM)('browsers on other origins (headless Chromium)', () => {
  let t: TestApp;
  let api: string;
  let profile: string;
  let allowed: { origin: string; server: Server };
  let foreign: { origin: string; server: Server };
  let apiKey = '';
  let userId = '';

  beforeAll(async () => {
    allowed = await servePage(() => frontendPage(api, apiKey, true));
    foreign = await servePage(() => frontendPage(api, apiKey, true));
    // Empty but for the one user the frontend signs in as.
    t = await startEmptyTestApp('pglite', {
      config: testConfig({ ALLOWED_ORIGINS: allowed.origin, SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }),
    });
    api = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { user } = await t.seed.user();
    const signedIn = await signInAs(t, user.id);
    userId = signedIn.userId;
    apiKey = (await t.gql(`mutation { createApiKey(name: "frontend") { apiKey } }`, {}, signedIn.headers)).data.createApiKey.apiKey;
    profile = mkdtempSync(join(tmpdir(), 'poolgraph-chromium-'));
  });
  afterAll(async () => {
    await t?.close();
    allowed?.server.close();
    foreign?.server.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** The user's sessions (refresh tokens); the database holds no other user's. */
  const sessions = async () =>
    (await t.database.db.select({ n: count() }).from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, userId)))[0]!.n;

  async function visit(origin: string): Promise<string> {
    // One profile for both visits: the foreign page runs in the browser the user signed in with.
    const stdout = await renderedDom(`${origin}/`, { profile, budgetMs: 20_000, timeoutMs: 25_000 });
    return /<pre id="out">([\s\S]*?)<\/pre>/.exec(stdout)?.[1] ?? stdout;
  }

  it('lets a listed origin call /graphql and REST with its cookies, and open a socket as the signed-in user', async () => {
    expect(await sessions()).toBe(1);
    const lines = (await visit(allowed.origin)).trim().split('\n');
    expect(lines.slice(0, 5)).toEqual([
      `signed-in:${JSON.stringify({ signInWithApiKey: { user: { id: userId } } })}`,
      `graphql-viewer:${userId}`,
      `rest-me:${userId}`,
      'socket-open',
      'socket:connection_ack',
    ]);
    // The page closes the socket itself (1005: no code given) once acknowledged; whether the
    // close event or the last poll lands first is the browser's timing.
    expect(lines.slice(5).sort()).toEqual(['done', 'socket-closed:1005']);
    // The API key sign-in opened the user's second session (the wallet sign-in was the first).
    expect(await sessions()).toBe(2);
  });

  it('keeps an origin not listed out, though the browser holds the session cookie: no read, no write, no socket', async () => {
    // The wallet sign-in's session and the listed origin's (the test above, in this browser profile).
    expect(await sessions()).toBe(2);
    const out = await visit(foreign.origin);
    expect(out.trim().split('\n')).toEqual([
      // The preflight finds no Access-Control-Allow-Origin for it: the browser sends nothing more.
      'graphql-blocked:TypeError',
      'rest-blocked:TypeError',
      // Its socket carries the cookie; the server refuses to let it act as the cookie's owner: no ack.
      'socket-open',
      'socket-closed:4403',
      'done',
    ]);
    expect(await sessions()).toBe(2);
    expect(await t.database.db.select({ n: count() }).from(tables.refreshTokens)).toEqual([{ n: 2 }]);
  });
});
