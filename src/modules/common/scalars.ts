import { DateTimeResolver } from 'graphql-scalars';

/** ISO 8601 date-time (UTC), as the interface writes timestamps. */
export const DateTime = DateTimeResolver;
