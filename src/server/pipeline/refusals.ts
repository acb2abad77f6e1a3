import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors.js';
import { CODE_OF_STATUS, formatError } from './format-error.js';

/** Sends `error` as a refusal: its catalogue status, its body as the one formatter shapes it, and Retry-After when it says how long to wait. */
export function sendRefusal(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfter !== null) reply.header('retry-after', String(error.retryAfter));
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ errors: [formatError(error)] }));
}

/**
 * Gives fastify's own refusals (an unreadable JSON body, a lying Content-Length, an unknown
 * content type, a body over the limit, no route) and any AppError thrown by a hook the same
 * shape as GraphQL's: `{ errors: [{ message, extensions: { code } }] }`, with the
 * catalogue's status. Anything else is logged and answered INTERNAL_SERVER_ERROR.
 */
export function registerRefusals(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const error = new AppError('ROUTE_NOT_FOUND', `No route answers ${request.method} ${path}`);
    // GraphQL is served at one path; any other unknown path is a REST client's, answered in the REST shape.
    if (path.startsWith('/graphql')) return sendRefusal(reply, error);
    return reply.code(error.status).send({ error: { code: error.code, message: error.message } });
  });
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) return sendRefusal(reply, error);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendRefusal(
        reply,
        new AppError('REQUEST_TOO_LARGE', `The request body exceeds the limit of ${bodyLimitBytes} bytes`, { limit: bodyLimitBytes }),
      );
    }
    const status = error.statusCode ?? 500;
    const code = CODE_OF_STATUS[status];
    // An HTML form's body (or any other unread type): say what to send instead.
    if (code === 'UNSUPPORTED_MEDIA_TYPE') {
      const given = String(request.headers['content-type'] ?? 'none').split(';', 1)[0];
      return sendRefusal(
        reply,
        new AppError(code, `The body's Content-Type (${given}) is not read here: send JSON with Content-Type: application/json`),
      );
    }
    if (code && status < 500) return sendRefusal(reply, new AppError(code, error.message));
    request.log.error({ err: error }, 'request failed');
    return sendRefusal(reply, new AppError('INTERNAL_SERVER_ERROR', 'Internal server error', { requestId: request.id }));
  });
}
