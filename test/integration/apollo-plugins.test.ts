import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginInlineTrace } from '@apollo/server/plugin/inlineTrace';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import type { GraphQLContext } from '../../src/server/context.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { listen, socketClient, type SocketClient, Subscription } from '../support/sockets.js';

/** What a hook-counting plugin saw of one operation: each hook's calls, and whether the read was rendered. */
interface Seen {
  hooks: Record<string, number>;
  rendered: boolean;
}

/** A plugin that only counts its hooks, per operation, as an operator would add one (createApp's `plugins`, src/server/apollo-plugins.ts). */
function hookCounter(seen: Seen[]): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      const entry: Seen = { hooks: { requestDidStart: 1 }, rendered: false };
      seen.push(entry);
      const count = (hook: string) => (entry.hooks[hook] = (entry.hooks[hook] ?? 0) + 1);
      return {
        async didResolveOperation() {
          count('didResolveOperation');
        },
        async responseForOperation() {
          count('responseForOperation');
          return null;
        },
        async executionDidStart() {
          count('executionDidStart');
          return {
            willResolveField() {
              count('willResolveField');
            },
          };
        },
        async didEncounterErrors() {
          count('didEncounterErrors');
        },
        async willSendResponse({ contextValue }) {
          count('willSendResponse');
          entry.rendered = contextValue.transport.record?.rendered === true;
        },
      };
    },
  };
}

const EVERY_OPERATION = ['requestDidStart', 'didResolveOperation', 'responseForOperation', 'executionDidStart', 'willSendResponse'];

describe.each(backends)('an Apollo plugin sees every operation, on %s', (kind) => {
  let t: TestApp;
  const servers: Array<{ rendering: boolean; app: FastifyInstance; socket: SocketClient; seen: Seen[] }> = [];
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    await t.seed.user().withPool({ title: 'Seen by plugins' });
    for (const rendering of [true, false]) {
      const seen: Seen[] = [];
      const config = testConfig({ RENDERED_READS: String(rendering) });
      const app = await createApp({ config, database: t.database, plugins: [hookCounter(seen)] });
      const socket = socketClient(await listen({ app }));
      await socket.connected;
      servers.push({ rendering, app, socket, seen });
    }
  });
  afterAll(async () => {
    for (const { app, socket } of servers) {
      await socket.dispose();
      await app.close();
    }
    await t.close();
  });

  const READ = '{ pools(first: 2) { totalCount nodes { id title } } }';
  const STREAK_ID = '00000000-0000-4000-8000-000000000000';
  // Fails in execution: only a signed-in viewer has streak details.
  const FAILING = `{ streakUserDetails(streakId: "${STREAK_ID}") { currentStreakCount } }`;
  // Fails before it: the checks refuse a forged cursor.
  const REFUSED = '{ pools(first: 1, after: "not-a-cursor") { totalCount } }';

  /** The one operation a request made the plugin see. */
  async function seenOf(seen: Seen[], send: () => Promise<unknown>): Promise<Seen> {
    const before = seen.length;
    await send();
    expect(seen.length).toBe(before + 1);
    return seen[before]!;
  }

  const REST_OF: Record<string, string> = {
    [READ]: '/pools?limit=2',
    [FAILING]: `/streak/user-details?streak_id=${STREAK_ID}`,
    [REFUSED]: '/pools?cursor=not-a-cursor',
  };
  const transports = {
    http: (app: FastifyInstance, _socket: SocketClient, query: string) =>
      app.inject({ method: 'POST', url: '/graphql', payload: { query } }).then((response) => response.json()),
    rest: (app: FastifyInstance, _socket: SocketClient, query: string) =>
      app.inject({ url: REST_OF[query]! }).then((response) => response.json()),
    socket: async (_app: FastifyInstance, socket: SocketClient, query: string) => {
      const subscription = new Subscription(socket.client, query);
      await subscription.waitForEnd();
      return subscription.results[0];
    },
  };

  for (const [transport, send] of Object.entries(transports)) {
    for (const rendering of [true, false]) {
      const mode = rendering ? 'rendered' : 'executed';
      it(`over ${transport}, a ${mode} read: every hook once, willResolveField for the executor's fields`, async () => {
        const { app, socket, seen } = servers.find((server) => server.rendering === rendering)!;
        const read = await seenOf(seen, () => send(app, socket, READ));
        expect(read.rendered).toBe(rendering);
        for (const hook of EVERY_OPERATION) expect(read.hooks[hook], hook).toBe(1);
        expect(read.hooks.didEncounterErrors).toBeUndefined();
        // Executed: pools, totalCount, nodes, and id and title of the one pool (REST's document asks more).
        if (!rendering && transport !== 'rest') expect(read.hooks.willResolveField).toBe(5);
        if (!rendering) expect(read.hooks.willResolveField).toBeGreaterThan(0);
      });

      it(`over ${transport}, a ${mode} read that fails: didEncounterErrors too`, async () => {
        const { app, socket, seen } = servers.find((server) => server.rendering === rendering)!;
        const failed = await seenOf(seen, () => send(app, socket, FAILING));
        for (const hook of [...EVERY_OPERATION, 'didEncounterErrors']) expect(failed.hooks[hook], hook).toBe(1);
        expect(failed.rendered).toBe(false);
      });

      it(`over ${transport}, a read the checks refuse: no execution phase, didEncounterErrors`, async () => {
        const { app, socket, seen } = servers.find((server) => server.rendering === rendering)!;
        const refused = await seenOf(seen, () => send(app, socket, REFUSED));
        for (const hook of ['requestDidStart', 'didResolveOperation', 'didEncounterErrors', 'willSendResponse'])
          expect(refused.hooks[hook], hook).toBe(1);
        expect(refused.hooks.executionDidStart).toBeUndefined();
      });
    }
  }

  it('a subscription over the socket: every hook but the execution phase, which graphql-ws runs', async () => {
    const { socket, seen } = servers[0]!;
    const before = seen.length;
    const subscription = new Subscription(socket.client, 'subscription { poolCreated { id } }');
    await expect.poll(() => seen.length).toBe(before + 1);
    subscription.unsubscribe();
    const hooks = seen[before]!.hooks;
    for (const hook of ['requestDidStart', 'didResolveOperation', 'responseForOperation', 'willSendResponse'])
      expect(hooks[hook], hook).toBe(1);
    expect(hooks.executionDidStart).toBeUndefined();
  });
});

describe("Apollo's inline trace plugin, added to the deployment's plugins", () => {
  it('returns a trace (ftv1) for a rendered read and an executed one', async () => {
    const t = await startEmptyTestApp('pglite');
    const apps: FastifyInstance[] = [];
    try {
      await t.seed.user().withPool();
      for (const rendering of [true, false]) {
        const config = testConfig({ RENDERED_READS: String(rendering) });
        const app = await createApp({ config, database: t.database, plugins: [ApolloServerPluginInlineTrace()] });
        apps.push(app);
        const response = await app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'apollo-federation-include-trace': 'ftv1' },
          payload: { query: '{ pools(first: 2) { nodes { id title } } }' },
        });
        const body = response.json();
        expect(body.data.pools.nodes).toHaveLength(1);
        expect(typeof body.extensions?.ftv1, String(rendering)).toBe('string');
        expect(body.extensions.ftv1.length).toBeGreaterThan(20);
      }
    } finally {
      for (const app of apps) await app.close();
      await t.close();
    }
  }, 180_000);
});

describe('a plugin following fields, on a rendered read kept for its operation', () => {
  it("sees each request's own variables, not those of the request the read was planned for", async () => {
    const t = await startEmptyTestApp('pglite');
    const told: unknown[] = [];
    let rendered = 0;
    const plugin: ApolloServerPlugin<GraphQLContext> = {
      async requestDidStart() {
        return {
          async executionDidStart() {
            return {
              willResolveField({ info }) {
                if (info.fieldName === 'pool') told.push(info.variableValues.id);
              },
            };
          },
          async willSendResponse({ contextValue }) {
            if (contextValue.transport.record?.rendered) rendered++;
          },
        };
      },
    };
    const app = await createApp({ config: testConfig(), database: t.database, plugins: [plugin] });
    try {
      const first = await t.seed.user().withPool({ title: 'First' });
      const second = await t.seed.user().withPool({ title: 'Second' });
      const ids = [first.pool!.id, second.pool!.id];
      for (const id of ids) {
        const response = await app.inject({
          method: 'POST',
          url: '/graphql',
          payload: { query: 'query ($id: ID!) { pool(id: $id) { id title } }', variables: { id } },
        });
        expect(response.json().data.pool.id).toBe(id);
      }
      // One plan serves both (a root field's arguments are read at each request), and it tells each request's own.
      expect(rendered).toBe(2);
      expect(told).toEqual(ids);
    } finally {
      await app.close();
      await t.close();
    }
  }, 180_000);
});
