import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateTime } from '../common/scalars.js';

export const RateLimitSubject = { API_KEY: 'API_KEY', USER: 'USER', CLIENT: 'CLIENT', ADDRESS: 'ADDRESS' } as const;
registerEnumType(RateLimitSubject, {
  name: 'RateLimitSubject',
  description: 'Whose budget an operation is counted against: the one of its budgets that binds (refused it, or has less left).',
  valuesConfig: {
    API_KEY: {
      description: 'Never given: an API key counts against its user’s budget (USER).',
      deprecationReason: 'API keys share their user’s budget; see USER.',
    },
    USER: { description: 'The signed-in user: every session and API key of theirs together.' },
    CLIENT: { description: 'A signed-out client, by its address.' },
    ADDRESS: {
      description: 'Every operation from the client’s address, whoever is signed in there: the ceiling above each user’s budget.',
    },
  },
});

@ObjectType({
  simpleResolvers: true,
  description:
    'The budget this operation was counted against: queries and mutations have one each, per minute. ' +
    'Each root field costs 1 (`__typename` and `rateLimit` cost nothing); an operation whose cost exceeds `remaining` ' +
    'is refused with RATE_LIMITED (HTTP 429) until `resetAt`. ' +
    'HTTP answers carry the same figures in the RateLimit-Policy and RateLimit headers.',
})
export class RateLimit {
  @Field(() => RateLimitSubject, { description: 'Whose budget this is.' })
  subject!: keyof typeof RateLimitSubject;

  @Field(() => Int, { description: 'Units per window.' })
  limit!: number;

  @Field(() => Int, { description: 'What this operation cost: its root fields, as the limit counts them.' })
  cost!: number;

  @Field(() => Int, { description: 'Units left in this window, this operation’s cost taken.' })
  remaining!: number;

  @Field(() => DateTime, { description: 'When the window ends and the budget is whole again.' })
  resetAt!: Date;
}
