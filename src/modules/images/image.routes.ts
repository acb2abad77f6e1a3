import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ImageConfig } from '../../config.js';
import { AppError, type ErrorCode } from '../../errors.js';
import { sendRefusal } from '../../server/pipeline/refusals.js';
import type { ServiceContext } from '../context.js';
import { readStoredImage, storeImage } from './image.service.js';

/** A stored image never changes (a new upload gets a new id), so caches may keep it for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Errors in the shape every route answers, with the catalogue's status. */
function sendError(reply: FastifyReply, code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return sendRefusal(reply, new AppError(code, message, details));
}

/**
 * POST /images: a multipart upload (one part named `file`), authenticated like /graphql
 * (bearer token, access cookie or x-api-key); `?use=avatar` also makes it the uploader's
 * avatar. Answers 201 with the Image record and what was read from the bytes.
 * GET /images/{id}: the stored bytes, with their sniffed type and immutable caching.
 * Multipart parsing is registered in this scope only, so /graphql never accepts it.
 */
export function registerImageRoutes(
  app: FastifyInstance,
  limits: ImageConfig,
  /** The context of /graphql: the same credentials, and the same failed-authentication budget. */
  context: (request: FastifyRequest, reply: FastifyReply) => Promise<ServiceContext>,
): void {
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
      if (use !== undefined && use !== 'avatar') return sendError(reply, 'BAD_USER_INPUT', 'use must be "avatar" or absent', { argumentName: 'use' });
      if (!request.isMultipart()) return sendError(reply, 'BAD_USER_INPUT', 'Send the image as multipart/form-data with one part named "file"', { argumentName: 'file' });

      let bytes: Buffer;
      try {
        const part = await request.file({ throwFileSizeLimit: false });
        if (!part || part.fieldname !== 'file') return sendError(reply, 'BAD_USER_INPUT', 'Send one part named "file"', { argumentName: 'file' });
        bytes = await part.toBuffer();
        // The size check itself is the service's; a truncated part is one byte over the limit.
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (!code.startsWith('FST_')) throw error;
        return sendError(reply, 'BAD_USER_INPUT', `The upload could not be read: ${(error as Error).message}`, { argumentName: 'file' });
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
      return reply.header('content-type', stored.type).header('cache-control', IMMUTABLE).header('x-content-type-options', 'nosniff').send(stored.bytes);
    });
  });
}
