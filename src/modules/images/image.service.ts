import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq, sum } from 'drizzle-orm';
import { images, type ImageRow, users } from '../../../schema/index.js';
import type { ImageConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import { isUuid } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { type ImageInfo, type ImageType, readImageInfo, sniffImageType } from './image-format.js';

/**
 * Uploaded images: checked from their bytes, stored as one file per image id under the
 * storage directory, and served at `/images/{id}`. An image never changes once stored, so
 * its URL can be cached for ever.
 */

export const imageUrl = (id: string) => `/images/${id}`;

export interface StoredImage {
  image: ImageRow;
  info: ImageInfo;
  byteSize: number;
}

/** The bytes as an image within the limits, or BAD_USER_INPUT saying why not. */
export function checkImage(bytes: Uint8Array, limits: ImageConfig): ImageInfo {
  if (bytes.length === 0) throw badInput('file', 'The upload is empty');
  if (bytes.length > limits.maxBytes)
    throw new AppError('BAD_USER_INPUT', `Images may be at most ${limits.maxBytes} bytes`, {
      argumentName: 'file',
      reason: 'IMAGE_TOO_LARGE',
      limit: limits.maxBytes,
    });
  const info = readImageInfo(bytes);
  if (!info)
    throw new AppError('BAD_USER_INPUT', 'The file is not a PNG, JPEG, WebP or GIF image', {
      argumentName: 'file',
      reason: 'NOT_AN_IMAGE',
    });
  if (info.width > limits.maxDimension || info.height > limits.maxDimension) {
    throw new AppError(
      'BAD_USER_INPUT',
      `Images may be at most ${limits.maxDimension} pixels wide and high; this one is ${info.width}x${info.height}`,
      {
        argumentName: 'file',
        reason: 'IMAGE_TOO_LARGE',
        limit: limits.maxDimension,
      },
    );
  }
  return info;
}

/** Bytes of images `userId` has stored. */
async function storedBytesOf(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ total: sum(images.byteSize) })
    .from(images)
    .where(eq(images.userId, userId));
  return Number(row?.total ?? 0);
}

/** QUOTA_EXCEEDED when `size` more bytes would take a user who has `used` past the quota. */
function assertWithinQuota(used: number, size: number, limits: ImageConfig): void {
  if (limits.quotaBytes === 0 || used + size <= limits.quotaBytes) return;
  throw new AppError(
    'QUOTA_EXCEEDED',
    `Each user may store at most ${limits.quotaBytes} bytes of images; ${used} are stored and this upload has ${size}`,
    {
      argumentName: 'file',
      limit: limits.quotaBytes,
      used,
    },
  );
}

/**
 * Stores an upload of the viewer's: checks it and the viewer's storage quota, writes the
 * file (under a temporary name, renamed once complete, so a reader never sees half a
 * file), then the row, and with `asAvatar` makes it the viewer's avatar in the same
 * transaction. The quota is checked before the file is written (an upload over it writes
 * nothing) and again in the transaction with the user's row locked, so parallel uploads
 * cannot pass it together. When the row cannot be written the file is removed again:
 * nothing is left of a failed upload.
 */
export async function storeImage(ctx: ServiceContext, limits: ImageConfig, bytes: Uint8Array, asAvatar: boolean): Promise<StoredImage> {
  const viewer = requireViewer(ctx.viewer);
  const info = checkImage(bytes, limits);
  if (limits.quotaBytes > 0) assertWithinQuota(await storedBytesOf(ctx.database.db, viewer.userId), bytes.length, limits);
  const id = randomUUID();
  await mkdir(limits.storageDir, { recursive: true });
  const path = join(limits.storageDir, id);
  const partial = `${path}.partial`;
  await writeFile(partial, bytes, { flag: 'wx' });
  try {
    await rename(partial, path);
    const image = await ctx.database.db.transaction(async (transaction) => {
      const tx = transaction as unknown as Db;
      if (limits.quotaBytes > 0) {
        await tx.select({ id: users.id }).from(users).where(eq(users.id, viewer.userId)).for('update');
        assertWithinQuota(await storedBytesOf(tx, viewer.userId), bytes.length, limits);
      }
      const [row] = await tx
        .insert(images)
        .values({ id, userId: viewer.userId, url: imageUrl(id), byteSize: bytes.length, createdAt: ctx.now, updatedAt: ctx.now })
        .returning();
      if (asAvatar) await tx.update(users).set({ avatarId: id, updatedAt: ctx.now }).where(eq(users.id, viewer.userId));
      return row!;
    });
    return { image, info, byteSize: bytes.length };
  } catch (error) {
    await Promise.all([unlink(partial).catch(() => {}), unlink(path).catch(() => {})]);
    throw error;
  }
}

/** A stored image's bytes and type, or null when there is none with that id. */
export async function readStoredImage(limits: ImageConfig, id: string): Promise<{ bytes: Buffer; type: ImageType } | null> {
  if (!isUuid(id)) return null;
  let bytes: Buffer;
  try {
    bytes = await readFile(join(limits.storageDir, id.toLowerCase()));
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
  const type = sniffImageType(bytes);
  return type ? { bytes, type } : null;
}
