import type { UserRow } from '../../../schema/index.js';
import { badInput } from '../../errors.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function findUser(ctx: ServiceContext, id: string): Promise<UserRow | null> {
  return ctx.loaders.userById.load(parseId(id, 'id'));
}

export function findUserByWallet(ctx: ServiceContext, address: string): Promise<UserRow | null> {
  if (!BASE58_ADDRESS.test(address)) throw badInput('address', 'address must be a base58 Solana address');
  return ctx.loaders.userByWalletAddress.load(address);
}
