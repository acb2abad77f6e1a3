import { type DocumentNode, Kind, parse, print, visit } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { POOL_READ, PREDICTION_READ } from '../../src/modules/common/read-specs.js';
import { GET_POOL, LIST_POOLS, STREAK_POOLS } from '../../src/server/rest/documents.js';
import { INCLUDABLE, includeVariables } from '../../src/server/rest/mapping.js';
import { buildOpenApiDocument } from '../../src/server/rest/openapi.js';
import { getSchema } from '../../src/server/schema.js';

/**
 * The pool routes' includes, derived from the read graph (src/server/rest/mapping.ts,
 * documents.ts): against the hand-written documents, paths and variables they replace
 * (src/server/rest/documents.ts and mapping.ts at c85a237), kept here as they were. For the
 * includes those had, the generated ones are the same, so every REST answer is what it was;
 * a relation added to the graph since is one more include, skipped unless asked for.
 */

const HAND_WRITTEN_FRAGMENT = `fragment PoolWithRelations on Pool {
  ...PoolFields
  user @include(if: $user) { ...UserFields }
  resolution @include(if: $resolution) { ...ResolutionFields }
  image @include(if: $image) { ...ImageFields }
  streak @include(if: $streak) { ...StreakFields }
  predictions(first: $predictionsFirst) @include(if: $predictions) {
    nodes {
      ...PredictionFields
      user @include(if: $predictionsUser) { ...UserFields }
      reward @include(if: $predictionsReward) { ...RewardFields }
      streak @include(if: $predictionsStreak) { ...StreakFields }
      pool @include(if: $predictionsPool) { ...PoolFields }
    }
  }
}`;

const HAND_WRITTEN_VARIABLES = `$user: Boolean! = false, $resolution: Boolean! = false, $image: Boolean! = false, $streak: Boolean! = false,
  $predictions: Boolean! = false, $predictionsFirst: Int = 1, $predictionsUser: Boolean! = false,
  $predictionsReward: Boolean! = false, $predictionsStreak: Boolean! = false, $predictionsPool: Boolean! = false`;

const HAND_WRITTEN_DOCUMENTS = {
  LIST_POOLS:
    `query RestListPools($first: Int, $offset: Int, $after: String, $filter: PoolFilter, $sort: PoolSort, $search: ` +
    `String, ${HAND_WRITTEN_VARIABLES}) {
  pools(first: $first, offset: $offset, after: $after, filter: $filter, sort: $sort, search: $search) {
    totalCount pageInfo { hasNextPage endCursor } nodes { ...PoolWithRelations }
  }
}
${HAND_WRITTEN_FRAGMENT}`,
  GET_POOL: `query RestGetPool($id: ID!, ${HAND_WRITTEN_VARIABLES}) {
  pool(id: $id) { ...PoolWithRelations }
}
${HAND_WRITTEN_FRAGMENT}`,
  STREAK_POOLS: `query RestStreakPools($streakId: ID!, $pastOnly: Boolean, $first: Int, $offset: Int, $after: String, ${HAND_WRITTEN_VARIABLES}) {
  streakPools(streakId: $streakId, pastOnly: $pastOnly, first: $first, offset: $offset, after: $after) {
    streak { ...StreakFields }
    pools { totalCount pageInfo { hasNextPage endCursor } nodes { ...PoolWithRelations } }
  }
}
${HAND_WRITTEN_FRAGMENT}`,
};

const HAND_WRITTEN_INCLUDABLE = [
  'user',
  'resolution',
  'image',
  'streak',
  'predictions',
  'predictions.user',
  'predictions.reward',
  'predictions.streak',
  'predictions.pool',
];

/** The hand-written `includeVariables`. */
function handWrittenIncludeVariables(includes: readonly string[], predictionsLimit: number): Record<string, unknown> {
  const wanted = new Set<string>(includes);
  const predictions = includes.some((path) => path === 'predictions' || path.startsWith('predictions.'));
  return {
    user: wanted.has('user'),
    resolution: wanted.has('resolution'),
    image: wanted.has('image'),
    streak: wanted.has('streak'),
    predictions,
    predictionsFirst: predictions ? predictionsLimit : 1,
    predictionsUser: wanted.has('predictions.user'),
    predictionsReward: wanted.has('predictions.reward'),
    predictionsStreak: wanted.has('predictions.streak'),
    predictionsPool: wanted.has('predictions.pool'),
  };
}

const HAND_WRITTEN_VARIABLE_NAMES = Object.keys(handWrittenIncludeVariables([], 1));

/** The `@include` variable a selection is under, if any. */
const includeVariableOf = (node: { directives?: readonly { name: { value: string }; arguments?: readonly any[] }[] }) =>
  node.directives?.find((directive) => directive.name.value === 'include')?.arguments?.[0]?.value?.name?.value as string | undefined;

/** `document` without the selections and variables of includes the hand-written documents did not have. */
function withHandWrittenIncludesOnly(document: DocumentNode): DocumentNode {
  const known = new Set([
    ...HAND_WRITTEN_VARIABLE_NAMES,
    'first',
    'offset',
    'after',
    'filter',
    'sort',
    'search',
    'id',
    'streakId',
    'pastOnly',
  ]);
  return visit(document, {
    [Kind.FIELD]: (node) => {
      const variable = includeVariableOf(node);
      return variable === undefined || known.has(variable) ? undefined : null;
    },
    [Kind.VARIABLE_DEFINITION]: (node) => (known.has(node.variable.name.value) ? undefined : null),
  });
}

/** The variables of a document's `@include`s. */
function includeVariablesIn(document: DocumentNode): string[] {
  const variables: string[] = [];
  visit(document, { [Kind.FIELD]: (node) => void (includeVariableOf(node) && variables.push(includeVariableOf(node)!)) });
  return variables;
}

describe('the pool routes’ includes, derived from the read graph', () => {
  it('restricted to the includes the hand-written documents had, are those documents, token for token', () => {
    const generated = { LIST_POOLS, GET_POOL, STREAK_POOLS };
    for (const [name, handWritten] of Object.entries(HAND_WRITTEN_DOCUMENTS)) {
      const document = parse(generated[name as keyof typeof generated]);
      expect(print(withHandWrittenIncludesOnly(document)), name).toBe(print(parse(handWritten)));
    }
  });

  it('take every path the hand-written list took, in its order, each setting the variables it set', () => {
    expect(INCLUDABLE.filter((path) => HAND_WRITTEN_INCLUDABLE.includes(path))).toEqual(HAND_WRITTEN_INCLUDABLE);
    const cases = [[], ...HAND_WRITTEN_INCLUDABLE.map((path) => [path]), HAND_WRITTEN_INCLUDABLE, ['predictions.user', 'streak']];
    for (const includes of cases) {
      const variables = includeVariables(includes, 7);
      const expected = handWrittenIncludeVariables(includes, 7);
      expect(Object.fromEntries(Object.entries(variables).filter(([name]) => name in expected)), includes.join()).toEqual(expected);
      // An include added since is off unless asked for.
      for (const [name, value] of Object.entries(variables)) if (!(name in expected)) expect([false, 1], name).toContain(value);
    }
  });

  it('embed every relation of a pool, and of its predictions under `predictions.`: a relation added to the graph follows', () => {
    const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const expected = [
      ...Object.keys(POOL_READ.relations).map(snake),
      ...Object.keys(PREDICTION_READ.relations).map((field) => `predictions.${snake(field)}`),
    ];
    expect([...INCLUDABLE].sort()).toEqual(expected.sort());
    // Each selected in the document under a variable includeVariables sets when its path is asked for.
    const document = parse(LIST_POOLS);
    for (const path of INCLUDABLE) {
      const variables = includeVariables([path], 3);
      const on = Object.keys(variables).filter((name) => variables[name] === true);
      expect(includeVariablesIn(document), path).toEqual(expect.arrayContaining(on));
      expect(on.length, path).toBe(path.split('.').length);
    }
  });

  it('are the OpenAPI document’s: the includes enum, each page’s size parameter, and the embedded properties', async () => {
    const openapi = await buildOpenApiDocument(await getSchema({ devTokens: false }));
    const parameters = openapi.paths['/pools'].get.parameters as Array<{ name: string; schema: any }>;
    expect(parameters.find((parameter) => parameter.name === 'includes')!.schema.items.enum).toEqual([...INCLUDABLE]);
    expect(parameters.find((parameter) => parameter.name === 'predictions_limit')!.schema).toMatchObject({ default: 20, minimum: 1 });
    const pool = openapi.components.schemas.Pool;
    const prediction = openapi.components.schemas.Prediction;
    for (const path of INCLUDABLE) {
      const [first, second] = path.split('.');
      const properties = second === undefined ? pool.properties : prediction.properties;
      expect(properties[second ?? first!], path).toBeDefined();
      expect(second === undefined ? pool.required : prediction.required, path).not.toContain(second ?? first);
    }
  });
});

describe('the pool routes’ documents', () => {
  let documents: string[];
  beforeAll(() => {
    documents = [LIST_POOLS, GET_POOL, STREAK_POOLS];
  });

  it('declare every variable they use, once', () => {
    for (const text of documents) {
      const document = parse(text);
      const declared: string[] = [];
      const used = new Set<string>();
      visit(document, {
        [Kind.VARIABLE_DEFINITION]: (node) => void declared.push(node.variable.name.value),
        [Kind.VARIABLE]: (node) => void used.add(node.name.value),
      });
      expect(new Set(declared).size).toBe(declared.length);
      expect([...used].filter((name) => !declared.includes(name))).toEqual([]);
    }
  });
});
