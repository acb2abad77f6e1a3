import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pools, type PoolRow } from '../../schema/index.js';
import { parseNewestFirstPage } from '../../src/modules/common/loaders.js';
import { createLoaders } from '../../src/modules/loaders.js';
import { forgetReads } from '../../src/modules/transactions/two-step.js';
import { backends, startTestApp, type TestApp } from '../support/harness.js';

/**
 * A mutation answers with what it wrote, read after the write: forgetReads drops every read
 * the request's loaders cached before it, the per-key loaders and the page loaders alike.
 */
describe.each(backends)('forgetReads (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { seed: false });
  });
  afterAll(() => t?.close());

  it('makes every loader read again, the pages of children included', async () => {
    const { user, pool } = await t.seed.user().withPool();
    const loaders = createLoaders(t.database.db);
    const page = parseNewestFirstPage({ first: 5 });
    // The loader the read graph's User.pools reads through when the executor answers it.
    const poolsByCreator = loaders.graph.pages<PoolRow>(pools, pools.createdBy);
    const pageBefore = await poolsByCreator(page).load(user.id);
    const byIdBefore = await loaders.poolById.load(pool!.id);
    expect(pageBefore.nodes.map((p) => p.title)).toEqual([pool!.title]);

    await t.database.db.update(pools).set({ title: 'Renamed after the read' }).where(eq(pools.id, pool!.id));
    // Cached: the same request still sees the earlier read.
    expect((await poolsByCreator(page).load(user.id)).nodes[0]!.title).toBe(pool!.title);

    forgetReads({ loaders });
    expect((await poolsByCreator(page).load(user.id)).nodes[0]!.title).toBe('Renamed after the read');
    expect((await loaders.poolById.load(pool!.id))!.title).toBe('Renamed after the read');
    expect(byIdBefore!.title).toBe(pool!.title);
  });
});
