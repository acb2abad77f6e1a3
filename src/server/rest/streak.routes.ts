import { MAX_PAGE_SIZE } from '../../modules/common/pagination.js';
import { STREAK_POOLS, STREAK_USER_DETAILS } from './documents.js';
import { type Includable, includeVariables, toSnakeCase } from './mapping.js';
import {
  includesParameter,
  pagingHeaders,
  pageSizeParameters,
  pagingParameters,
  type PagingQuery,
  pagingVariables,
  setPagingHeaders,
} from './pools.routes.js';
import { objectOf } from './answer.js';
import { AUTHENTICATED, ref } from './resources.schema.js';
import type { RestRoute } from './route.js';

interface StreakPoolsQuery extends PagingQuery {
  streak_id: string;
  past_only?: boolean;
  includes?: Includable[];
}

const streakPools: RestRoute = {
  method: 'GET',
  url: '/streak/pools',
  schema: {
    summary: 'List the pools of a streak',
    description:
      'All pools of the streak, newest first, not filtered by the caller’s participation. Paging metadata is in the headers, as for GET /pools.',
    tags: ['streaks'],
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: ['streak_id'],
      properties: {
        streak_id: { type: 'string', format: 'uuid' },
        past_only: { type: 'boolean', default: false, description: 'Only pools whose prediction window has ended (`true`/`1`).' },
        participated_only: {
          type: 'boolean',
          const: false,
          description:
            'Only `false` (or absent) is served: the list is never filtered by the caller’s participation, ' +
            'so `true` is refused rather than ignored.',
        },
        includes: includesParameter,
        ...pageSizeParameters,
        ...pagingParameters,
      },
    },
    response: {
      200: {
        type: 'object',
        additionalProperties: false,
        required: ['pools', 'streak'],
        properties: { pools: { type: 'array', items: ref('Pool') }, streak: ref('Streak') },
        headers: pagingHeaders,
      },
    },
  },
  operation(request) {
    const query = request.query as StreakPoolsQuery;
    return {
      query: STREAK_POOLS,
      operationName: 'RestStreakPools',
      variables: includeVariables(query.includes, query, {
        streakId: query.streak_id,
        pastOnly: query.past_only,
        ...pagingVariables(query),
      }),
    };
  },
  respond(data, reply, request) {
    setPagingHeaders(reply, request, data.value('streakPools.pools.totalCount'), data.value('streakPools.pools.pageInfo'));
    return objectOf({ pools: data.rest('streakPools.pools.nodes'), streak: data.rest('streakPools.streak') });
  },
};

const streakUserDetails: RestRoute = {
  method: 'GET',
  url: '/streak/user-details',
  schema: {
    summary: "The caller's progress in a streak and their streak rewards",
    tags: ['streaks'],
    security: AUTHENTICATED,
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: ['streak_id'],
      properties: {
        streak_id: { type: 'string', format: 'uuid' },
        is_claimed: { type: 'boolean', description: 'Only claimed (true) or unclaimed (false) streak rewards; all when absent.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'At most this many streak rewards (all when absent).' },
        offset: { ...pagingParameters.offset, description: 'Streak rewards to skip.' },
      },
    },
    response: {
      200: {
        type: 'object',
        additionalProperties: false,
        required: [
          'streak',
          'current_streak_count',
          'last_streak_event',
          'last_pool_participated_at',
          'streak_rewards',
          'current_streak_scores',
          'last_processed_pool_id',
        ],
        properties: {
          streak: ref('Streak'),
          current_streak_count: { type: 'integer' },
          last_streak_event: { type: 'string', enum: ['NONE', 'QUALIFIED', 'RESET', 'REWARDED'] },
          last_pool_participated_at: { type: ['string', 'null'], format: 'date-time' },
          streak_rewards: { type: 'array', items: ref('StreakReward'), description: 'Each with its streak embedded.' },
          current_streak_scores: { type: 'array', items: { type: 'number' } },
          last_processed_pool_id: { type: ['string', 'null'], format: 'uuid' },
        },
      },
    },
  },
  operation(request) {
    const query = request.query as { streak_id: string; is_claimed?: boolean };
    return {
      query: STREAK_USER_DETAILS,
      operationName: 'RestStreakUserDetails',
      variables: { streakId: query.streak_id, isClaimed: query.is_claimed },
    };
  },
  respond(data, _reply, request) {
    const { offset = 0, limit } = request.query as { offset?: number; limit?: number };
    const details = toSnakeCase(data.value('streakUserDetails'));
    return { ...details, streak_rewards: details.streak_rewards.slice(offset, limit === undefined ? undefined : offset + limit) };
  },
};

export const streakRoutes = [streakPools, streakUserDetails];
