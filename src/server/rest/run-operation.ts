/**
 * What a REST route runs its fixed GraphQL operation through: the pipeline's own runner
 * (src/server/pipeline/run-operation.ts), so credentials, limits, rate limits, errors,
 * metrics and logs are those of /graphql and no rule of the API exists twice.
 */
export type { GraphQLOperation, OperationResult, RunOperation } from '../pipeline/run-operation.js';
export type { FormattedError as OperationError } from '../pipeline/format-error.js';
