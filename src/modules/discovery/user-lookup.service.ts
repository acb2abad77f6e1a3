import type { UserRow } from '../../../schema/index.js';
import { badInput } from '../../errors.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The user of `id`, or null, through the request's loader. */
export async function findUser(ctx: ServiceContext, id: string): Promise<UserRow | null> {
  return ctx.loaders.userById.load(parseId(id, 'id'));
}

/** A wallet address argument, checked (BAD_USER_INPUT unless base58 of a Solana key's length). */
export function walletAddressOf(address: string): string {
  if (!BASE58_ADDRESS.test(address)) throw badInput('address', 'address must be a base58 Solana address');
  return address;
}

/** The user owning wallet `address`, or null, through the request's loader. */
export async function findUserByWallet(ctx: ServiceContext, address: string): Promise<UserRow | null> {
  return ctx.loaders.userByWalletAddress.load(walletAddressOf(address));
}
