import { type FieldNode, getNamedType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { tokensJson } from '../../read/columns.js';
import type { SelectionWalk } from '../../read/operation-walk.js';
import { selectionSql } from '../../read/selection-json.js';
import { portfolioSumsSql } from './money.service.js';

/** Base units over the sums' row `s`, in whole tokens as JSON (toTokens: the exact decimal `<units>e-<decimals>`, rounded once to a double). */
const tokens = (units: string) => tokensJson(units, 'coalesce(s.decimals, 0)');

/** Each Portfolio field as SQL over the sums' row `s`, as the resolver computes it (viewer-money.resolver.ts). */
const PORTFOLIO_FIELDS: Record<string, string> = {
  activeCount: 's.active_n::text',
  activeStake: tokens('s.active_stake'),
  totalStaked: tokens('s.active_stake + s.resolved_stake'),
  resolvedCount: 's.resolved_n::text',
  resolvedStake: tokens('s.resolved_stake'),
  totalPayout: tokens('s.paid'),
  realizedPnl: tokens('s.paid - s.resolved_stake'),
};

/**
 * The viewer's `portfolio` over the loader's own sums SQL (money.service.ts). Decimals are the predictions' (a user without predictions
 * has only zeros, whatever the decimals). Owned: written only for the viewer's own row (user.rendered.ts).
 */
export function renderedPortfolio(
  definition: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
): ((alias: string) => string) | null {
  const object = selectionSql(getNamedType(definition.type) as GraphQLObjectType, nodes, walk, (name) => PORTFOLIO_FIELDS[name]);
  return object === null ? null : (alias) => `(SELECT ${object} FROM (${portfolioSumsSql(`${alias}."id"`)}) s)`;
}
