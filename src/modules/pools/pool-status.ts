/** A pool's lifecycle filters: which pools a list keeps, by their dates and resolution. */

export const POOL_STATUS_FILTERS = ['ACTIVE', 'ENDED', 'RESOLVED', 'NOT_RESOLVED'] as const;
export type PoolStatusFilter = (typeof POOL_STATUS_FILTERS)[number];

const HAS_RESOLUTION = 'EXISTS (SELECT 1 FROM "resolutions" r WHERE r."pool_id" = p."id")';

/**
 * The one definition of the lifecycle filters, as SQL over the pools alias `p`; `now`
 * gives the SQL of the request's time (a parameter, or a literal where no parameters run).
 */
export function statusCondition(now: () => string, status: PoolStatusFilter): string {
  switch (status) {
    case 'ACTIVE':
      return `(p."status" = 'ACTIVE' AND NOT p."is_closed" AND p."prediction_start_date" <= ${now()} AND p."prediction_end_date" > ${now()})`;
    case 'ENDED':
      return `p."prediction_end_date" <= ${now()}`;
    case 'RESOLVED':
      return HAS_RESOLUTION;
    case 'NOT_RESOLVED':
      return `(p."prediction_end_date" <= ${now()} AND NOT ${HAS_RESOLUTION})`;
  }
}
