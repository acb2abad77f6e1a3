import { type Include, POOL_INCLUDES } from './mapping.js';
import { fragmentName } from './resources.js';

/**
 * The fixed GraphQL documents of the REST routes (trusted documents: made here once, at
 * start, never built from a request). Embedded relations are chosen with `@include`
 * variables, so each route has exactly one document whatever its `includes`. A resource's
 * fields are its fragment, spread as `...PoolFields`: derived from its GraphQL type, its
 * definition is appended when the route is registered (resources.ts).
 */

/** The selections of `includes`, each under its `@include` variable, a page by its size variable. */
function includeSelections(includes: readonly Include[], indent: string): string[] {
  return includes.flatMap((include) => {
    const fields = `...${fragmentName(include.type)}`;
    if (include.page) {
      return [
        `${indent}${include.field}(first: $${include.page.variable}) @include(if: $${include.variable}) {`,
        `${indent}  nodes {`,
        `${indent}    ${fields}`,
        ...includeSelections(include.children, `${indent}    `),
        `${indent}  }`,
        `${indent}}`,
      ];
    }
    if (include.children.length === 0) return [`${indent}${include.field} @include(if: $${include.variable}) { ${fields} }`];
    return [
      `${indent}${include.field} @include(if: $${include.variable}) {`,
      `${indent}  ${fields}`,
      ...includeSelections(include.children, `${indent}  `),
      `${indent}}`,
    ];
  });
}

/** The definitions of the variables of `includes`: each `Boolean! = false`, a page's size `Int = 1`. */
function includeVariableDefinitions(includes: readonly Include[]): string[] {
  return includes.flatMap((include) => [
    `$${include.variable}: Boolean! = false`,
    ...(include.page ? [`$${include.page.variable}: Int = 1`] : []),
    ...includeVariableDefinitions(include.children),
  ]);
}

/** A pool with the relations its `includes` variables ask for (mapping.ts, POOL_INCLUDES). */
const POOL_WITH_RELATIONS = [
  'fragment PoolWithRelations on Pool {',
  '  ...PoolFields',
  ...includeSelections(POOL_INCLUDES, '  '),
  '}',
].join('\n');

/** The variables of {@link POOL_WITH_RELATIONS}, declared by every document that uses it. */
const INCLUDE_VARIABLES = includeVariableDefinitions(POOL_INCLUDES).join(', ');

export const LIST_POOLS =
  `query RestListPools($first: Int, $offset: Int, $after: String, $filter: PoolFilter, $sort: PoolSort, $search: ` +
  `String, ${INCLUDE_VARIABLES}) {
  pools(first: $first, offset: $offset, after: $after, filter: $filter, sort: $sort, search: $search) {
    totalCount pageInfo { hasNextPage endCursor } nodes { ...PoolWithRelations }
  }
}
${POOL_WITH_RELATIONS}`;

export const GET_POOL = `query RestGetPool($id: ID!, ${INCLUDE_VARIABLES}) {
  pool(id: $id) { ...PoolWithRelations }
}
${POOL_WITH_RELATIONS}`;

export const STREAK_POOLS = `query RestStreakPools($streakId: ID!, $pastOnly: Boolean, $first: Int, $offset: Int, $after: String, ${INCLUDE_VARIABLES}) {
  streakPools(streakId: $streakId, pastOnly: $pastOnly, first: $first, offset: $offset, after: $after) {
    streak { ...StreakFields }
    pools { totalCount pageInfo { hasNextPage endCursor } nodes { ...PoolWithRelations } }
  }
}
${POOL_WITH_RELATIONS}`;

export const STREAK_USER_DETAILS = `query RestStreakUserDetails($streakId: ID!, $isClaimed: Boolean) {
  streakUserDetails(streakId: $streakId, isClaimed: $isClaimed) {
    streak { ...StreakFields }
    currentStreakCount lastStreakEvent lastPoolParticipatedAt currentStreakScores lastProcessedPoolId
    streakRewards { ...StreakRewardFields streak { ...StreakFields } }
  }
}`;

/** Everything of a build's preview. */
export const PREVIEW_FIELDS = `fragment PreviewFields on TransactionPreview {
  succeeds failure { error reason logs } feePayer feeLamports rent { account payer lamports }
  instructions { program programId name accounts { role address } amount mint lamports memo }
  balanceChanges { account owner mint before after change lamportsBefore lamportsAfter lamportsChange }
}`;
