import { Field, Float, ObjectType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'An account an instruction names, with its role in it.' })
export class InstructionAccount {
  @Field(() => String, { description: 'The role: source, mint, destination, authority, payer, account, owner, signer, from or to.' })
  role!: string;

  @Field(() => String, { description: 'The account address (base58).' })
  address!: string;
}

@ObjectType({ simpleResolvers: true, description: 'One instruction of the transaction, decoded.' })
export class PreviewInstruction {
  @Field(() => String, { description: 'The program: spl-token, associated-token, memo, system, or the address of any other.' })
  program!: string;

  @Field(() => String, { description: 'The program’s address.' })
  programId!: string;

  @Field(() => String, { description: 'The instruction: transferChecked, createIdempotent, create, memo, transfer, or unknown.' })
  name!: string;

  @Field(() => [InstructionAccount], { description: 'Its accounts by role, in instruction order.' })
  accounts!: InstructionAccount[];

  @Field(() => Float, { nullable: true, description: 'The tokens it moves, in whole tokens; null when it moves none.' })
  amount!: number | null;

  @Field(() => String, { nullable: true, description: 'The mint of the tokens it moves.' })
  mint!: string | null;

  @Field(() => Float, { nullable: true, description: 'The lamports a System transfer moves.' })
  lamports!: number | null;

  @Field(() => String, { nullable: true, description: 'The memo text of a Memo instruction.' })
  memo!: string | null;
}

@ObjectType({
  simpleResolvers: true,
  description: 'An account the transaction writes: its balances now and as the simulation predicts them after.',
})
export class BalanceChange {
  @Field(() => String, { description: 'The account address.' })
  account!: string;

  @Field(() => String, { nullable: true, description: 'The wallet owning it, for a token account.' })
  owner!: string | null;

  @Field(() => String, { nullable: true, description: 'Its mint, for a token account.' })
  mint!: string | null;

  @Field(() => Float, { nullable: true, description: 'Token balance now, in whole tokens (null: not a token account).' })
  before!: number | null;

  @Field(() => Float, { nullable: true, description: 'Token balance after, in whole tokens.' })
  after!: number | null;

  @Field(() => Float, { nullable: true, description: 'after - before, in whole tokens.' })
  change!: number | null;

  @Field(() => Float, { description: 'SOL balance now, in lamports.' })
  lamportsBefore!: number;

  @Field(() => Float, { description: 'SOL balance after, in lamports.' })
  lamportsAfter!: number;

  @Field(() => Float, { description: 'lamportsAfter - lamportsBefore.' })
  lamportsChange!: number;
}

@ObjectType({ simpleResolvers: true, description: 'Rent moved into an account the transaction opens.' })
export class RentPayment {
  @Field(() => String, { description: 'The account opened.' })
  account!: string;

  @Field(() => String, { description: 'Who pays its rent (never the service).' })
  payer!: string;

  @Field(() => Float, { description: 'The rent, in lamports.' })
  lamports!: number;
}

@ObjectType({ simpleResolvers: true, description: 'Why the transaction would fail.' })
export class PreviewFailure {
  @Field(() => String, { description: 'The chain’s transaction error as JSON, e.g. {"InstructionError":[0,{"Custom":1}]}.' })
  error!: string;

  @Field(() => String, { description: 'The program’s reason, from its log.' })
  reason!: string;

  @Field(() => [String], { description: 'The simulation’s program logs.' })
  logs!: string[];
}

@ObjectType({
  simpleResolvers: true,
  description:
    'What the transaction will do, shown before the wallet signs: its instructions decoded and the balances the chain’s ' +
    'simulation of it predicts. Reads public chain state only; nothing is signed or sent.',
})
export class TransactionPreview {
  @Field(() => Boolean, { description: 'True when the simulation succeeds; false: submitting it would be refused, see failure.' })
  succeeds!: boolean;

  @Field(() => PreviewFailure, { nullable: true, description: 'Why it would fail, or null.' })
  failure!: PreviewFailure | null;

  @Field(() => String, { description: 'Who pays the fee: the service’s relayer.' })
  feePayer!: string;

  @Field(() => Float, { description: 'The fee, in lamports.' })
  feeLamports!: number;

  @Field(() => [RentPayment], { description: 'Rent of the accounts it opens (empty when it opens none).' })
  rent!: RentPayment[];

  @Field(() => [PreviewInstruction], { description: 'The instructions, in order.' })
  instructions!: PreviewInstruction[];

  @Field(() => [BalanceChange], { description: 'Every account it writes, in message order (unchanged when it would fail).' })
  balanceChanges!: BalanceChange[];
}
