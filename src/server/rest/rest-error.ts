import type { ErrorCode } from '../../errors.js';

/** A failure in the REST shape: `{ "error": { "code", "message", ... } }` with the catalogue's status. */
export class RestError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
