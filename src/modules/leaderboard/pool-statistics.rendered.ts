import { type FieldNode, getArgumentValues, getNamedType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { jsonNumber, tokensJson } from '../../read/columns.js';
import type { SelectionWalk } from '../../read/operation-walk.js';
import { selectionSql } from '../../read/selection-json.js';
import { bucketOfSql, isBucketCount, stakeWeightedMedianSql } from './pool-statistics.service.js';

/**
 * A pool's `statistics` over the pool's row `a` (a computed field of common/read-specs.ts), by the statistics loader's SQL. Bucket
 * bounds use float8 in the resolver's order (minOutcome + width * i, the last maxOutcome) so each is the double the resolver computes.
 * Null for a bucket count poolStatistics refuses (the resolver reports it).
 */
export function renderedPoolStatistics(
  definition: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
): ((alias: string) => string) | null {
  let count: unknown;
  try {
    count = getArgumentValues(definition, nodes[0]!, walk.variables).buckets;
  } catch {
    return null;
  }
  if (!isBucketCount(count)) return null;
  const n = String(count);
  const type = getNamedType(definition.type) as GraphQLObjectType;
  const bucketType = getNamedType(type.getFields().buckets!.type) as GraphQLObjectType;
  const width = (a: string) => `((${a}.max_outcome::float8 - ${a}.min_outcome::float8) / ${n})`;
  // The buckets' selection (merged from every node selecting it).
  const bucketSelections = [...walk.fieldsOf(type, nodes).values()].filter(([node]) => node!.name.value === 'buckets').flat();
  const bucketsSql = (a: string) => {
    const bucket = selectionSql(bucketType, bucketSelections, walk, (name) => {
      if (name === 'from') return jsonNumber(`${a}.min_outcome::float8 + ${width(a)} * (g.i - 1)`);
      if (name === 'to')
        return jsonNumber(`CASE WHEN g.i = ${n} THEN ${a}.max_outcome::float8 ELSE ${a}.min_outcome::float8 + ${width(a)} * g.i END`);
      if (name === 'count') return 'coalesce(h.n, 0)::text';
      if (name === 'stake') return tokensJson('coalesce(h.stake, 0)', `${a}.decimals`);
      return null;
    });
    if (bucket === null) return null;
    return (
      `(SELECT '[' || string_agg(${bucket}, ',' ORDER BY g.i) || ']' FROM generate_series(1, ${n}) g(i) LEFT JOIN ` +
      `(SELECT ${bucketOfSql('q.prediction', a, n)} AS b, count(*)::int AS n, sum(q.stake) AS stake FROM predictions q ` +
      `WHERE q.pool_id = ${a}.id GROUP BY 1) h ON h.b = g.i)`
    );
  };
  const statistics = (a: string) =>
    selectionSql(type, nodes, walk, (name) => {
      if (name === 'predictionCount') return 's.n::text';
      if (name === 'totalStake') return tokensJson('s.stake', `${a}.decimals`);
      if (name === 'stakeWeightedMedian') return `coalesce(${jsonNumber(stakeWeightedMedianSql(`${a}.id`))}, 'null')`;
      if (name === 'buckets') return bucketsSql(a);
      return null;
    });
  if (statistics('a') === null) return null;
  return (a) =>
    `(SELECT ${statistics(a)} FROM (SELECT count(*)::int AS n, coalesce(sum(q.stake), 0) AS stake FROM predictions q WHERE q.pool_id = ${a}.id) s)`;
}
