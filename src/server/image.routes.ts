import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ImageConfig } from '../config.js';
import { AppError, type ErrorCode, rateLimited } from '../errors.js';
import type { LimiterFactory } from '../modules/common/limiter.js';
import { sendRefusal } from './pipeline/refusals.js';
import type { ServiceContext } from '../modules/context.js';
import { readStoredImage, storeImage } from '../modules/images/image.service.js';

/** A stored image never changes (a new upload gets a new id), so caches may keep it for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Errors in the shape every route answers, with the catalogue's status. */
function sendError(reply: FastifyReply, code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return sendRefusal(reply, new AppError(code, message, details));
}

/**
 * What is wrong with a multipart Content-Type's boundary, or null: it must be given, and
 * RFC 2046 allows 1 to 70 characters of its set, the last not a space. Checked before the
 * parser sees the body, which would otherwise fail on it as an internal error.
 */
export function multipartBoundaryProblem(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]*)"|([^\s;]*))/i.exec(contentType);
  const boundary = match ? (match[1] ?? match[2]!) : null;
  if (boundary === null) return 'The multipart Content-Type has no boundary';
  if (!/^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/.test(boundary)) {
    return "The multipart boundary must be 1 to 70 characters (letters, digits and '()+_,-./:=? or a space not at the end)";
  }
  return null;
}

/**
 * POST /images: a multipart upload (one part named `file`), authenticated like /graphql
 * (bearer token, access cookie or x-api-key); `?use=avatar` also makes it the uploader's
 * avatar. Answers 201 with the Image record and what was read from the bytes. Each user
 * may attempt `uploadsPerMinute` uploads (RATE_LIMITED before the body is read) and store
 * `quotaBytes` (QUOTA_EXCEEDED, nothing written).
 * GET /images/{id}: the stored bytes, with their sniffed type and immutable caching.
 * Multipart parsing is registered in this scope only, so /graphql never accepts it.
 */
export function registerImageRoutes(
  app: FastifyInstance,
  limits: ImageConfig,
  /** The context of /graphql: the same credentials, and the same failed-authentication budget. */
  context: (request: FastifyRequest, reply: FastifyReply) => Promise<ServiceContext>,
  /** Where budgets are kept: shared by the replicas when Redis is configured. */
  limiters: LimiterFactory,
): void {
  // Attempts, not successes: each upload is read and checked, so each counts.
  const uploads = limits.uploadsPerMinute > 0 ? limiters('imageUploads', limits.uploadsPerMinute, 60_000) : null;
  // And per address, whoever uploads: fresh wallets from one address share this ceiling.
  const uploadsPerAddress =
    limits.uploadsPerAddressPerMinute > 0 ? limiters('imageUploadsPerAddress', limits.uploadsPerAddressPerMinute, 60_000) : null;
  /** Seconds to wait when the user's or the address's upload budget is spent (and nothing taken), else null (one taken from each). */
  const countUpload = async (userId: string, clientAddress: string): Promise<{ wait: number; limit: string } | null> => {
    const wait = uploads ? (await uploads.consume(userId)).retryAfterSeconds : null;
    if (wait !== null) return { wait, limit: `At most ${limits.uploadsPerMinute} image uploads per minute` };
    const addressWait = uploadsPerAddress ? (await uploadsPerAddress.consume(clientAddress)).retryAfterSeconds : null;
    if (addressWait === null) return null;
    await uploads?.giveBack(userId, 1);
    return { wait: addressWait, limit: `At most ${limits.uploadsPerAddressPerMinute} image uploads per minute from one address` };
  };
  app.register(async (scope) => {
    // One byte over the limit is enough to know the upload is too large; the rest is not read.
    await scope.register(multipart, { limits: { fileSize: limits.maxBytes + 1, files: 1, fields: 0, parts: 1 } });

    scope.post('/images', async (request, reply) => {
      let ctx: ServiceContext;
      try {
        ctx = await context(request, reply);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return sendRefusal(reply, error);
      }
      if (!ctx.viewer) return sendError(reply, 'UNAUTHENTICATED', 'Sign in to upload an image', { reason: 'NOT_SIGNED_IN' });
      const use = (request.query as Record<string, unknown>).use;
      if (use !== undefined && use !== 'avatar')
        return sendError(reply, 'BAD_USER_INPUT', 'use must be "avatar" or absent', { argumentName: 'use' });
      const refused = await countUpload(ctx.viewer.userId, ctx.clientAddress);
      if (refused) return sendRefusal(reply, rateLimited(refused.wait, `${refused.limit}; retry after ${refused.wait} s`));
      if (!request.isMultipart())
        return sendError(reply, 'BAD_USER_INPUT', 'Send the image as multipart/form-data with one part named "file"', {
          argumentName: 'file',
        });
      const boundaryProblem = multipartBoundaryProblem(request.headers['content-type']!);
      if (boundaryProblem) return sendError(reply, 'BAD_REQUEST', boundaryProblem, { reason: 'MULTIPART_BOUNDARY' });

      let bytes: Buffer;
      try {
        const part = await request.file({ throwFileSizeLimit: false });
        if (!part || part.fieldname !== 'file')
          return sendError(reply, 'BAD_USER_INPUT', 'Send one part named "file"', { argumentName: 'file' });
        bytes = await part.toBuffer();
        // The size check itself is the service's; a truncated part is one byte over the limit.
      } catch (error) {
        // Reading touches nothing but the request's own bytes: whatever fails here is the body's
        // fault. fastify's limits (parts, files) are the upload's; the parser's ("Unexpected end
        // of form" and kin) are the request's framing.
        request.log.info({ err: error }, 'image upload unreadable');
        const limit = ((error as { code?: string }).code ?? '').startsWith('FST_');
        return sendError(reply, limit ? 'BAD_USER_INPUT' : 'BAD_REQUEST', `The upload could not be read: ${(error as Error).message}`, {
          argumentName: 'file',
        });
      }
      try {
        const stored = await storeImage(ctx, limits, bytes, use === 'avatar');
        return reply.code(201).send({
          ...stored.image,
          contentType: stored.info.type,
          width: stored.info.width,
          height: stored.info.height,
          byteSize: stored.byteSize,
        });
      } catch (error) {
        if (error instanceof AppError) return sendError(reply, error.code, error.message, error.details);
        throw error;
      }
    });

    scope.get('/images/:id', async (request, reply) => {
      const stored = await readStoredImage(limits, (request.params as { id: string }).id);
      if (!stored) return sendError(reply, 'NOT_FOUND', 'No image has that id');
      return reply
        .header('content-type', stored.type)
        .header('cache-control', IMMUTABLE)
        .header('x-content-type-options', 'nosniff')
        .send(stored.bytes);
    });
  });
}
