import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateTime } from '../common/scalars.js';

export const RateLimitSubject = { API_KEY: 'API_KEY', USER: 'USER', CLIENT: 'CLIENT' } as const;
registerEnumType(RateLimitSubject, {
  name: 'RateLimitSubject',
  description: 'Whose budget an operation is counted against.',
  valuesConfig: {
    API_KEY: { description: 'The API key the request came with (x-api-key): each key has its own budget.' },
    USER: { description: 'The signed-in user (a session’s bearer token or cookie).' },
    CLIENT: { description: 'A signed-out client, by its address.' },
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
