import type { UserRow } from '../../../schema/index.js';
import { type ReadPlan, readByKey } from '../../db/nested-read.js';
import { badInput } from '../../errors.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The user of `id`, or null: with `plan`, it and the plan's relations in one statement; without, through the request's loader. */
export async function findUser(ctx: ServiceContext, id: string, plan?: ReadPlan): Promise<UserRow | null> {
  const userId = parseId(id, 'id');
  if (!plan) return ctx.loaders.userById.load(userId);
  return (await readByKey(ctx.database.query, plan, 'id', userId)) as UserRow | null;
}

/** The user owning wallet `address`, or null; read as {@link findUser} reads. */
export async function findUserByWallet(ctx: ServiceContext, address: string, plan?: ReadPlan): Promise<UserRow | null> {
  if (!BASE58_ADDRESS.test(address)) throw badInput('address', 'address must be a base58 Solana address');
  if (!plan) return ctx.loaders.userByWalletAddress.load(address);
  return (await readByKey(ctx.database.query, plan, 'walletAddress', address)) as UserRow | null;
}
