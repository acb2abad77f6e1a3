import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from '../../modules/common/pagination.js';
import { POOL_SORTS } from '../../modules/pools/pool.service.js';
import { POOL_STATUS_FILTERS } from '../../modules/pools/pool-status.js';
import { GET_POOL, LIST_POOLS } from './documents.js';
import { INCLUDABLE, type Include, type Includable, includeVariables, POOL_INCLUDES } from './mapping.js';
import { snakeCaseName } from '../../read/answer-form.js';
import { ref } from './resources.schema.js';
import { RestError } from './rest-error.js';
import type { RestRoute } from './route.js';

/** Embedded rows per page (predictions per pool) when its `<page>_limit` is not given. */
const DEFAULT_EMBEDDED_PAGE = 20;

export const includesParameter = {
  type: 'array',
  items: { type: 'string', enum: [...INCLUDABLE] },
  description:
    'Relations to embed; dotted paths embed a relation of the predictions (and the predictions with them). ' +
    'Repeated, `includes[]=` or comma-separated (`includes=user,predictions`).',
} as const;

/** The size parameter of each page among `includes` (`predictions_limit`: embedded predictions per pool), by parameter name. */
function pageSizeParametersOf(
  includes: readonly Include[],
  parent: string,
  parameters: Record<string, object> = {},
): Record<string, object> {
  for (const include of includes) {
    if (include.page) {
      parameters[include.page.parameter] = {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_EMBEDDED_PAGE,
        description: `Embedded ${include.field} per ${parent} (newest first) when \`includes\` has ${include.path}.`,
      };
    }
    // A type's name in words: `StreakReward` is a streak reward.
    pageSizeParametersOf(include.children, snakeCaseName(include.type).slice(1).replaceAll('_', ' '), parameters);
  }
  return parameters;
}

export const pageSizeParameters = pageSizeParametersOf(POOL_INCLUDES, 'pool');

/** `offset`/`limit` or `cursor`/`limit` paging, shared by the lists of pools. */
export const pagingParameters = {
  limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Page size.' },
  offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, description: 'Rows to skip; not with `cursor`.' },
  cursor: {
    type: 'string',
    description: 'Continue after this position: the `X-Next-Cursor` header (or `Link` rel="next") of the previous page.',
  },
} as const;

export const pagingHeaders = {
  'x-total-count': { type: 'integer', description: 'Pools matching the query, all pages together.' },
  'x-next-cursor': { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page.' },
  link: { type: 'string', description: 'RFC 8288 `<…>; rel="next"` of the next page; absent on the last page.' },
} as const;

export interface PagingQuery {
  limit?: number;
  offset?: number;
  cursor?: string;
}

export const pagingVariables = (query: PagingQuery) => ({ first: query.limit, offset: query.offset, after: query.cursor });

/**
 * The paging metadata of a list answered as a bare JSON array: headers, so the body stays
 * the interface's array. `X-Total-Count`; and, when there is a next page, `X-Next-Cursor`
 * and a `Link` rel="next" carrying the same query with that cursor.
 */
export function setPagingHeaders(
  reply: FastifyReply,
  request: FastifyRequest,
  totalCount: number,
  pageInfo: { hasNextPage: boolean; endCursor: string | null },
): void {
  reply.header('x-total-count', String(totalCount));
  const { hasNextPage, endCursor } = pageInfo;
  if (!hasNextPage || !endCursor) return;
  reply.header('x-next-cursor', endCursor);
  // The request's own path and query (no URL parsed: only the query changes).
  const question = request.url.indexOf('?');
  const next = new URLSearchParams(question === -1 ? '' : request.url.slice(question + 1));
  next.delete('offset');
  next.set('cursor', endCursor);
  reply.header('link', `<${question === -1 ? request.url : request.url.slice(0, question)}?${next}>; rel="next"`);
}

interface ListPoolsQuery extends PagingQuery {
  sort_by?: string;
  filter_by?: string[];
  query?: string;
  streak_id?: string;
  reference_date?: string;
  created_by?: string;
  includes?: Includable[];
}

const listPools: RestRoute = {
  method: 'GET',
  url: '/pools',
  schema: {
    summary: 'List pools',
    description: 'Pools filtered, searched and sorted, a page at a time. Paging metadata is in the headers (the body is the array).',
    tags: ['pools'],
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sort_by: { type: 'string', enum: [...POOL_SORTS], default: 'END_DATE' },
        filter_by: {
          type: 'array',
          items: { type: 'string', enum: [...POOL_STATUS_FILTERS] },
          description: 'Pool states; several mean any of them: repeated, `filter_by[]=` or comma-separated.',
        },
        query: { type: 'string', description: 'Full-text search over title and description: every word must start a word of either.' },
        streak_id: { type: 'string', format: 'uuid' },
        reference_date: {
          type: 'string',
          format: 'date-time',
          description: 'Pools whose reference date falls on the same UTC day; a date alone (`2026-03-01`) works too.',
        },
        created_by: { type: 'string', format: 'uuid' },
        mint_address: {
          type: 'string',
          description: 'Accepted as the interface’s clients send it: every pool here stakes the one stake mint (`stake_token_mint`).',
        },
        includes: includesParameter,
        ...pageSizeParameters,
        ...pagingParameters,
      },
    },
    response: { 200: { type: 'array', items: ref('Pool'), headers: pagingHeaders } },
  },
  operation(request) {
    const query = request.query as ListPoolsQuery;
    const filter = {
      ...(query.filter_by?.length ? { status: query.filter_by } : {}),
      ...(query.streak_id ? { streakId: query.streak_id } : {}),
      ...(query.reference_date ? { referenceDate: query.reference_date } : {}),
      ...(query.created_by ? { createdBy: query.created_by } : {}),
    };
    return {
      query: LIST_POOLS,
      operationName: 'RestListPools',
      variables: includeVariables(query.includes, query, { sort: query.sort_by, search: query.query, filter, ...pagingVariables(query) }),
    };
  },
  respond(data, reply, request) {
    setPagingHeaders(reply, request, data.value('pools.totalCount'), data.value('pools.pageInfo'));
    return data.rest('pools.nodes');
  },
};

const getPool: RestRoute = {
  method: 'GET',
  url: '/pools/:id',
  schema: {
    summary: 'Get a pool',
    tags: ['pools'],
    params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { includes: includesParameter, ...pageSizeParameters },
    },
    response: { 200: ref('Pool') },
  },
  operation(request) {
    const { id } = request.params as { id: string };
    const query = request.query as { includes?: Includable[] };
    return {
      query: GET_POOL,
      operationName: 'RestGetPool',
      variables: includeVariables(query.includes, query, { id }),
    };
  },
  respond(data, _reply, request) {
    const pool = data.rest('pool');
    if (!pool) throw new RestError('NOT_FOUND', `No pool has id ${(request.params as { id: string }).id}`, { argumentName: 'id' });
    return pool;
  },
};

export const poolRoutes = [listPools, getPool];
