import 'reflect-metadata';
import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLEnumType,
  GraphQLError,
  type GraphQLFieldResolver,
  GraphQLInt,
  GraphQLScalarType,
  type GraphQLSchema,
  isEnumType,
  isObjectType,
  specifiedDirectives,
} from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import { OperatorResolver } from '../modules/pools/operator.resolver.js';
import { PoolImageResolver } from '../modules/images/image.resolver.js';
import { ReferralCodeOperatorResolver } from '../modules/referrals/referral-operator.resolver.js';
import { StreakOperatorResolver } from '../modules/streaks/streak-operator.resolver.js';
import { StreakFundingResolver } from '../modules/streaks/streak-funding.resolver.js';
import { UserLookupResolver } from '../modules/discovery/user-lookup.resolver.js';
import { LeaderboardResolver } from '../modules/leaderboard/leaderboard.resolver.js';
import { NodeResolver } from '../modules/node/node.resolver.js';
import { FederationResolver } from '../modules/federation/federation.resolver.js';
import { RateLimitResolver } from '../modules/rate-limit/rate-limit.resolver.js';
import { withNodeTypesResolved } from '../modules/node/node.type.js';
import { PoolStatisticsResolver } from '../modules/leaderboard/pool-statistics.resolver.js';
import { PoolViewerResolver, UserMoneyResolver, UserTransactionResolver } from '../modules/viewer/viewer-money.resolver.js';
import { PoolResolver, ResolutionResolver } from '../modules/pools/pool.resolver.js';
import { PredictionResolver, RewardResolver } from '../modules/predictions/prediction.resolver.js';
import { StreakResolver, StreakRewardResolver } from '../modules/streaks/streak.resolver.js';
import { ApiKeyResolver, AuthResolver, RefreshTokenResolver } from '../modules/auth/auth.resolver.js';
import { SubscriptionResolver, TransactionStatusUpdateResolver } from '../modules/events/subscription.resolver.js';
import { DevTokensResolver, TransactionResolver } from '../modules/transactions/transaction.resolver.js';
import { ViewerNotificationResolver } from '../modules/notifications/notification.resolver.js';
import {
  DeviceTokenResolver,
  ImageResolver,
  NotificationResolver,
  ReferralCodeResolver,
  ReferralRedemptionResolver,
  SettingsResolver,
  UserResolver,
} from '../modules/users/user.resolver.js';

const schemas = new Map<string, Promise<GraphQLSchema>>();

/**
 * `@cacheControl` as Apollo Server's cache-control plugin reads it (the hints themselves are
 * on the types and fields: modules/common/cache-hints.ts). Declared so the SDL is valid
 * wherever it is read: by a gateway composing it, by tools.
 */
const cacheControlDirective = new GraphQLDirective({
  name: 'cacheControl',
  description: 'How long, and for whom, a cache may keep an answer holding this type or field.',
  locations: [DirectiveLocation.FIELD_DEFINITION, DirectiveLocation.OBJECT, DirectiveLocation.INTERFACE, DirectiveLocation.UNION],
  args: {
    maxAge: { type: GraphQLInt, description: 'Seconds an answer may be kept; 0: not kept.' },
    scope: {
      type: new GraphQLEnumType({
        name: 'CacheControlScope',
        description: 'Who an answer may be kept for.',
        values: { PUBLIC: { description: 'Anyone: a shared cache may keep it.' }, PRIVATE: { description: 'The viewer alone.' } },
      }),
      description: 'PUBLIC unless given.',
    },
    inheritMaxAge: { type: GraphQLBoolean, description: "The field's maxAge is its parent's." },
  },
});

/**
 * The executable schema, built once per process. `devTokens` adds `requestDevTokens`, which
 * exists only where the chain is a devchain; `subgraph` adds Apollo Federation's `_entities`
 * and `_service` (FEDERATION_SUBGRAPH); the committed SDL is the embedded default's.
 */
export function getSchema({
  devTokens = true,
  subgraph = false,
}: { devTokens?: boolean; subgraph?: boolean } = {}): Promise<GraphQLSchema> {
  const key = `${devTokens}:${subgraph}`;
  const cached = schemas.get(key);
  if (cached) return cached;
  const schema = buildSchema({
    resolvers: [
      PoolResolver,
      OperatorResolver,
      ResolutionResolver,
      PredictionResolver,
      RewardResolver,
      StreakResolver,
      StreakRewardResolver,
      UserResolver,
      ImageResolver,
      SettingsResolver,
      ReferralCodeResolver,
      ReferralRedemptionResolver,
      NotificationResolver,
      DeviceTokenResolver,
      ViewerNotificationResolver,
      AuthResolver,
      ApiKeyResolver,
      RefreshTokenResolver,
      TransactionResolver,
      SubscriptionResolver,
      TransactionStatusUpdateResolver,
      StreakOperatorResolver,
      StreakFundingResolver,
      ReferralCodeOperatorResolver,
      PoolImageResolver,
      UserMoneyResolver,
      UserTransactionResolver,
      PoolViewerResolver,
      UserLookupResolver,
      LeaderboardResolver,
      PoolStatisticsResolver,
      NodeResolver,
      RateLimitResolver,
      ...(devTokens ? [DevTokensResolver] : []),
      ...(subgraph ? [FederationResolver] : []),
    ],
    // Arguments are validated by the services, which know the domain's rules.
    validate: false,
    directives: [...specifiedDirectives, cacheControlDirective],
    // Every subscription opens its own stream of the event hub (`subscribe`), so type-graphql's
    // topic-based pub/sub is never used; it insists on one being given all the same.
    pubSub: {
      publish: () => {
        throw new Error('topics are not used: services publish through the event hub');
      },
      subscribe: () => {
        throw new Error('topics are not used: subscriptions follow the event hub');
      },
    },
  });
  const ready = schema
    .then(withDirectFieldResolvers)
    .then(withLazyFieldsResolved)
    .then(withNodeTypesResolved)
    .then(withRootTypesDescribed)
    .then(withEnumErrorsListingValues)
    .then(withErrorsAsRejections);
  schemas.set(key, ready);
  return ready;
}

/**
 * Every resolver reports a failure as a rejected promise, never by throwing. When a field
 * throws synchronously, graphql-js stops completing the object (or list) it is in and
 * drops the promises its earlier fields (or items) already started; one of those that
 * later rejects is a rejection nobody handles. A rejected promise instead joins the others
 * the executor waits for, so every failure is answered on its own path.
 */
function withErrorsAsRejections(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve) continue;
      field.resolve = (root, args, context, info) => {
        try {
          return resolve(root, args, context, info);
        } catch (error) {
          return Promise.reject(error);
        }
      };
    }
  }
  return schema;
}

/**
 * An enum value the schema does not have is refused naming every value it does have
 * (graphql-js suggests only the close ones, and none when nothing is close), in a literal
 * and in a variable alike. The list goes before graphql-js's "Did you mean ...?", which
 * production strips: the values are public anyway (the REST form's OpenAPI lists them).
 */
export function withEnumErrorsListingValues(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isEnumType(type) || type.name.startsWith('__')) continue;
    const allowed = `allowed values: ${type
      .getValues()
      .map((value) => value.name)
      .join(', ')}`;
    const listing = (error: unknown): unknown => {
      if (!(error instanceof GraphQLError)) return error;
      const suggestion = error.message.indexOf(' Did you mean');
      const [head, tail] = suggestion === -1 ? [error.message, ''] : [error.message.slice(0, suggestion), error.message.slice(suggestion)];
      return new GraphQLError(`${head.replace(/\.$/, '')}; ${allowed}.${tail}`, { nodes: error.nodes, extensions: error.extensions });
    };
    const { parseValue, parseLiteral } = type;
    type.parseValue = function (value) {
      try {
        return parseValue.call(this, value);
      } catch (error) {
        throw listing(error);
      }
    };
    type.parseLiteral = function (node, variables) {
      try {
        return parseLiteral.call(this, node, variables);
      } catch (error) {
        throw listing(error);
      }
    };
  }
  return schema;
}

/** type-graphql has no option for the root types' descriptions, which explorers show. */
const ROOT_TYPE_DESCRIPTIONS = {
  query: 'Reads: pools, streaks, users, the leaderboard and the signed-in viewer.',
  mutation:
    "Changes: sign-in, the two-step chain transactions, claims, the viewer's profile and notifications, and the " +
    "operators' (ADMIN) pools, streaks and referral codes.",
  subscription: 'Live updates over WebSocket (graphql-ws, same path as HTTP): notifications, pools and transaction status.',
} as const;

function withRootTypesDescribed(schema: GraphQLSchema): GraphQLSchema {
  const roots = { query: schema.getQueryType(), mutation: schema.getMutationType(), subscription: schema.getSubscriptionType() };
  for (const [operation, type] of Object.entries(roots)) {
    if (type) type.description = ROOT_TYPE_DESCRIPTIONS[operation as keyof typeof ROOT_TYPE_DESCRIPTIONS];
  }
  return schema;
}

/**
 * Every runtime value's fields are plain except a connection's `totalCount`, which is
 * counted only when selected (a promise, see Page in modules/common/pagination.ts): it gets
 * a resolver of its own, so every executor awaits it rather than reading it as a value.
 */
function withLazyFieldsResolved(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    const field = type.getFields().totalCount;
    if (field && !field.resolve) field.resolve = (page: { totalCount: unknown }) => page.totalCount;
  }
  return schema;
}

type ResolverMethod = (...params: unknown[]) => unknown;
type Storage = ReturnType<typeof getMetadataStorage>;
type ParamMetadata = NonNullable<Storage['fieldResolvers'][number]['params']>[number];
/** How one parameter of a resolver method is read from graphql's (root, args, context, info). */
type ParamReader = (root: unknown, args: Record<string, unknown>, context: unknown, info: unknown) => unknown;

/**
 * type-graphql calls every resolver through a wrapper that, per call, allocates its
 * arguments, sorts the method's parameter list and maps it, and with any argument goes
 * through an async validation step (a Promise.all and extra ticks even with validation
 * off): about a fifth of what a 200-prediction read allocated. A field resolver without
 * middleware or roles whose parameters type-graphql passes unchanged or builds from
 * scalars alone needs none of that: its method is called directly with the same values,
 * so the same code runs (services keep every rule, private fields included). Parameters
 * that need type-graphql's conversion (a `@Root` class, input objects, validation) keep
 * the wrapper.
 *
 * Resolver classes hold no state (checked: an instance has no own properties), so one
 * instance per class is what type-graphql's default container holds too.
 */
function withDirectFieldResolvers(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  const instances = new Map<Function, Record<string, ResolverMethod> | null>();
  const instanceOf = (target: Function) => {
    if (!instances.has(target)) {
      const instance = new (target as new () => Record<string, ResolverMethod>)();
      instances.set(target, Object.keys(instance).length === 0 ? instance : null);
    }
    return instances.get(target)!;
  };
  const replacements = new Map<GraphQLFieldResolver<unknown, unknown>, GraphQLFieldResolver<unknown, unknown>>();
  for (const metadata of storage.fieldResolvers) {
    if (metadata.kind !== 'external' || metadata.middlewares?.length || metadata.roles?.length) continue;
    const typeName = storage.objectTypes.find((type) => type.target === metadata.getObjectType?.())?.name;
    const type = typeName ? schema.getType(typeName) : undefined;
    const original = type && isObjectType(type) ? type.getFields()[metadata.schemaName]?.resolve : undefined;
    const instance = instanceOf(metadata.target);
    const direct = original && instance ? directResolver(storage, instance, metadata.methodName, metadata.params ?? []) : null;
    if (direct) replacements.set(original!, direct);
  }
  // By the wrapper's identity: an object type extending another shares its fields' resolvers.
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const direct = field.resolve && replacements.get(field.resolve);
      if (direct) field.resolve = direct;
    }
  }
  return schema;
}

/** The direct call of `instance[methodName]`, or null when a parameter needs type-graphql's conversion. */
function directResolver(
  storage: Storage,
  instance: Record<string, ResolverMethod>,
  methodName: string,
  params: readonly ParamMetadata[],
): GraphQLFieldResolver<unknown, unknown> | null {
  const method = instance[methodName];
  if (typeof method !== 'function') return null;
  const readers: ParamReader[] = [];
  const ordered = [...params].sort((a, b) => a.index - b.index);
  for (const [position, param] of ordered.entries()) {
    const reader = param.index === position ? paramReader(storage, param) : null;
    if (!reader) return null;
    readers.push(reader);
  }
  const [first, second] = readers;
  if (readers.length === 1) return (root, args, context, info) => method.call(instance, first!(root, args, context, info));
  if (readers.length === 2)
    return (root, args, context, info) => method.call(instance, first!(root, args, context, info), second!(root, args, context, info));
  return (root, args, context, info) =>
    method.apply(
      instance,
      readers.map((read) => read(root, args, context, info)),
    );
}

const passRoot: ParamReader = (root) => root;
const passContext: ParamReader = (_root, _args, context) => context;
const passInfo: ParamReader = (_root, _args, _context, info) => info;

/** Reads a parameter exactly as type-graphql would, where that needs no conversion of its own; null otherwise. */
function paramReader(storage: Storage, param: ParamMetadata): ParamReader | null {
  switch (param.kind) {
    case 'root':
      // @Root() of a row type (reflected as Object) is the value as is; a class would be converted.
      return !param.propertyName && (!param.getType || param.getType() === Object) ? passRoot : null;
    case 'context':
      return param.propertyName ? null : passContext;
    case 'info':
      return passInfo;
    case 'arg': {
      if (param.validateFn || param.validateSettings !== undefined || !isPlainValueType(storage, param.getType())) return null;
      const name = param.name;
      // type-graphql copies a list argument (mapping each item to itself).
      return (_root, args) => (Array.isArray(args[name]) ? [...(args[name] as unknown[])] : args[name]);
    }
    case 'args': {
      if (param.validateFn || param.validateSettings !== undefined) return null;
      const ArgsClass = param.getType() as new () => Record<string, unknown>;
      const fields = scalarArgsFields(storage, ArgsClass);
      if (!fields) return null;
      // As type-graphql builds it: an instance of the class holding the arguments given.
      return (_root, args) => {
        const instance = new ArgsClass();
        for (const name of fields) if (args[name] !== undefined) instance[name] = args[name];
        return instance;
      };
    }
    default:
      return null;
  }
}

/** The field names of an @ArgsType class (its own, then its superclasses'), when all are scalars or enums and the class is plain data; else null. */
function scalarArgsFields(storage: Storage, ArgsClass: new () => Record<string, unknown>): string[] | null {
  if (Object.keys(new ArgsClass()).length > 0) return null;
  const names: string[] = [];
  for (let target: Function = ArgsClass; target.prototype !== undefined; target = Object.getPrototypeOf(target)) {
    if (Object.getOwnPropertyNames(target.prototype).some((name) => name !== 'constructor')) return null;
    const argsType = storage.argumentTypes.find((type) => type.target === target);
    if (!argsType) continue;
    for (const field of argsType.fields ?? []) {
      if (!isPlainValueType(storage, field.getType())) return null;
      names.push(field.name);
    }
  }
  return names;
}

/** A type whose values type-graphql passes on as they are: a scalar or an enum. */
function isPlainValueType(storage: Storage, type: unknown): boolean {
  return (
    type instanceof GraphQLScalarType ||
    type === String ||
    type === Number ||
    type === Boolean ||
    storage.enums.some((e) => e.enumObj === type)
  );
}
