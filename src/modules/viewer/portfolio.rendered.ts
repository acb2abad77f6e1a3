import { type FieldNode, getNamedType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { tokensJson } from '../../read/columns.js';
import type { SelectionWalk } from '../../read/operation-walk.js';
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
 * The viewer's `portfolio` rendered: the selected fields as JSON over the user's portfolio
 * sums (money.service.ts, the loader's own SQL). The stake mint's decimals are the
 * predictions' (a user without predictions has only zeros, whatever the decimals). Owned:
 * written only for the viewer's own row (user.rendered.ts).
 */
export function renderedPortfolio(
  definition: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
): ((alias: string) => string) | null {
  const type = getNamedType(definition.type) as GraphQLObjectType;
  const entries: string[] = [];
  for (const [key, fieldNodes] of walk.fieldsOf(type, nodes)) {
    const name = fieldNodes[0]!.name.value;
    const value = name === '__typename' ? `'"${type.name}"'` : PORTFOLIO_FIELDS[name];
    if (!value) return null;
    entries.push(`'${entries.length ? ',' : '{'}"${key}":', ${value}`);
  }
  if (!entries.length) return null;
  return (alias) => `(SELECT concat(${entries.join(', ')}, '}') FROM (${portfolioSumsSql(`${alias}."id"`)}) s)`;
}
