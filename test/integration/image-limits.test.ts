import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { type EmptyApp, makePng, startEmptyApp } from '../support/operator-fixture.js';
import { backends } from '../support/harness.js';

const UPLOADS_PER_MINUTE = 12;
/** Room for two of the large images below, not three. */
const QUOTA_BYTES = 2500;
const small = () => makePng(4, 4);
const large = () => Buffer.concat([makePng(4, 4), randomBytes(1100)]);

describe.each(backends)('image upload limits (%s)', (kind) => {
  let t: EmptyApp;

  beforeAll(async () => {
    t = await startEmptyApp(kind, {
      env: { IMAGE_UPLOADS_PER_MINUTE: String(UPLOADS_PER_MINUTE), IMAGE_QUOTA_BYTES: String(QUOTA_BYTES) },
    });
  }, 60_000);
  afterAll(() => t?.close());

  const rows = async () => (await t.database.db.select().from(tables.images)).length;
  /** What is written on disk and in the table around `work`: files and rows added. */
  const written = async (work: () => Promise<unknown>) => {
    const [files, before] = [(await t.imageFiles()).length, await rows()];
    await work();
    return { files: (await t.imageFiles()).length - files, rows: (await rows()) - before };
  };

  it('refuses uploads past the per-user rate with RATE_LIMITED and Retry-After, unread; other users are not affected', async () => {
    const user = await t.signIn();
    const statuses: number[] = [];
    const effect = await written(async () => {
      for (let i = 0; i < UPLOADS_PER_MINUTE + 5; i++) {
        const response = await t.upload(small(), user.headers);
        statuses.push(response.status);
        if (response.status === 429)
          expect(response.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
      }
    });
    expect(statuses).toEqual([...Array(UPLOADS_PER_MINUTE).fill(201), ...Array(5).fill(429)]);
    expect(effect).toEqual({ files: UPLOADS_PER_MINUTE, rows: UPLOADS_PER_MINUTE });
    expect((await t.upload(small(), (await t.signIn()).headers)).status).toBe(201);
  });

  it('refuses an upload past the storage quota with QUOTA_EXCEEDED (413), nothing written, parallel uploads included', async () => {
    const user = await t.signIn();
    const sequential = await written(async () => {
      expect((await t.upload(large(), user.headers)).status).toBe(201);
      expect((await t.upload(large(), user.headers)).status).toBe(201);
      const over = await t.upload(large(), user.headers);
      expect(over.status).toBe(413);
      expect(over.body.errors[0].extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: QUOTA_BYTES, argumentName: 'file' });
      // A small one still fits.
      expect((await t.upload(small(), user.headers)).status).toBe(201);
    });
    expect(sequential).toEqual({ files: 3, rows: 3 });

    const racer = await t.signIn();
    let statuses: number[] = [];
    const parallel = await written(async () => {
      statuses = (await Promise.all(Array.from({ length: 10 }, () => t.upload(large(), racer.headers)))).map((r) => r.status).sort();
    });
    expect(statuses).toEqual([201, 201, ...Array(8).fill(413)]);
    expect(parallel).toEqual({ files: 2, rows: 2 });
  });

  it('answers a multipart body with no boundary, an overlong one or broken framing with 400 BAD_REQUEST, nothing written', async () => {
    const user = await t.signIn();
    const send = (contentType: string, payload: Buffer) =>
      t.app.inject({ method: 'POST', url: '/images', payload, headers: { ...user.headers, 'content-type': contentType } });
    const part = (boundary: string) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`),
        small(),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const long = 'b'.repeat(1000);
    const effect = await written(async () => {
      for (const [contentType, payload] of [
        ['multipart/form-data', part('x')],
        ['multipart/form-data; boundary=', part('')],
        [`multipart/form-data; boundary=${long}`, part(long)],
        [`multipart/form-data; boundary="${long}"`, part(long)],
        ['multipart/form-data; boundary=xyz', part('xyz').subarray(0, 60)],
        ['multipart/form-data; boundary=xyz', randomBytes(500)],
      ] as const) {
        const response = await send(contentType, payload);
        expect([response.statusCode, response.json().errors[0].extensions.code], `${contentType.slice(0, 50)}`).toEqual([
          400,
          'BAD_REQUEST',
        ]);
      }
    });
    expect(effect).toEqual({ files: 0, rows: 0 });
    // The same body with a boundary of 70 characters, the most allowed, is stored.
    expect((await send(`multipart/form-data; boundary=${'c'.repeat(70)}`, part('c'.repeat(70)))).statusCode).toBe(201);
  });
});
