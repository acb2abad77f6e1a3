import { type ASTNode, type DocumentNode, getVariableValues, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { AnswerForm } from './answer-form.js';
import { OperationWalk } from './operation-walk.js';

/**
 * Walks (with their rendered read's plan) kept per operation, one per value of what shapes them; past it, walked per request. A
 * nested page's cursor and a refetch's type shape a walk, so a page paged through by many clients is that many walks, and a walk
 * per request pays the walk, its plan and telling cache control every field (at 16, DEEP_CURSOR's 32 pages cost 0.87 against 0.55
 * CPU ms a request).
 */
const WALKS_PER_OPERATION = 64;

/** Plans a walk's operation while the walk is being made (so what it reads of the variables shapes the walk too); true: provisional. */
export type WalkPlanner = (walk: OperationWalk) => boolean;

/**
 * Keyed by operation node, as Apollo Server's document store keeps one parsed document per text, so walks live as long as it does;
 * and by answer form, as a REST route's document sent to /graphql as it is answers GraphQL's form there.
 */
export class OperationWalks {
  private readonly byOperation: Record<AnswerForm, WeakMap<OperationDefinitionNode, KeptWalks>> = {
    graphql: new WeakMap(),
    rest: new WeakMap(),
  };

  constructor(
    private readonly schema: GraphQLSchema,
    /** Plans queries with their walk (the rendered read), where reads render. */
    private readonly planner: WalkPlanner | null = null,
  ) {}

  /** An operation's variables coerced as graphql-js coerces them, or null when they do not coerce (the executor reports it). */
  coerce(operation: OperationDefinitionNode, inputs: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> | null {
    if (!operation.variableDefinitions?.length) return NO_VARIABLES;
    const coerced = getVariableValues(this.schema, operation.variableDefinitions, inputs ?? {});
    return coerced.errors ? null : coerced.coerced;
  }

  /**
   * The walk kept for the values of what shaped it, or a new one (kept unless its plan is provisional). May throw, as a derivation
   * or a planner may.
   */
  of(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown>,
    form: AnswerForm = 'graphql',
  ): OperationWalk {
    const byOperation = this.byOperation[form];
    let kept = byOperation.get(operation);
    if (!kept) byOperation.set(operation, (kept = new KeptWalks()));
    const found = kept.get(variables);
    if (found) return found;
    const dependencies = new WalkDependencies(variables);
    let walk: OperationWalk | undefined;
    let provisional = false;
    try {
      walk = new OperationWalk(this.schema, document, operation, dependencies.variables, dependencies.dependOn, form);
      if (this.planner && operation.operation === 'query') provisional = this.planner(walk);
    } finally {
      dependencies.close();
      walk?.close();
    }
    if (!provisional) kept.keep(variables, walk, dependencies);
    return walk;
  }
}

const NO_VARIABLES: Record<string, unknown> = Object.freeze({});

/**
 * One operation's walks, keyed by the variables their making read and what it derived from them (SelectionWalk.dependOn). A variable
 * never read (a root field's id, which a plan reads at each request) is not in the key, so requests share a walk whatever its value.
 */
class KeptWalks {
  /** The variables some making read, by name. */
  private readonly read = new Set<string>();
  /** What some making derived from the variables, by the node it is read for. */
  private readonly derived = new Map<ASTNode, (variables: Record<string, unknown>) => unknown>();
  private readonly walks = new Map<string, OperationWalk>();

  /** May throw, as a derivation may. */
  get(variables: Record<string, unknown>): OperationWalk | undefined {
    return this.walks.get(this.keyOf(variables));
  }

  /** A making that read what no earlier one did makes the key longer: the walks kept under the shorter key are dropped. */
  keep(variables: Record<string, unknown>, walk: OperationWalk, dependencies: WalkDependencies): void {
    const size = this.read.size + this.derived.size;
    for (const name of dependencies.read) this.read.add(name);
    for (const [source, derive] of dependencies.derived) if (!this.derived.has(source)) this.derived.set(source, derive);
    if (this.read.size + this.derived.size > size) this.walks.clear();
    if (this.walks.size < WALKS_PER_OPERATION) this.walks.set(this.keyOf(variables), walk);
  }

  private keyOf(variables: Record<string, unknown>): string {
    let key = '';
    // JSON writes a control character escaped, so \u0000 separates the parts unambiguously; `-` is an absent variable.
    for (const name of this.read) key += `${Object.hasOwn(variables, name) ? JSON.stringify(variables[name]) : '-'}\u0000`;
    for (const derive of this.derived.values()) key += `${JSON.stringify(derive(variables)) ?? '-'}\u0000`;
    return key;
  }
}

/**
 * What one walk's making read of the variables (each name asked, present or not: an absent variable shapes a walk too) and derived.
 * Closed once the walk is made: a kept walk reading at a later request would be kept for values it did not record, so that throws.
 */
class WalkDependencies {
  readonly read = new Set<string>();
  readonly derived = new Map<ASTNode, (variables: Record<string, unknown>) => unknown>();
  private closed = false;
  readonly variables: Record<string, unknown>;

  constructor(private readonly values: Record<string, unknown>) {
    const record = (name: string | symbol) => {
      if (this.closed) throw new Error('a kept walk read the variables after its making');
      if (typeof name === 'string') this.read.add(name);
    };
    this.variables = new Proxy(values, {
      get: (target, name) => (record(name), Reflect.get(target, name)),
      has: (target, name) => (record(name), Reflect.has(target, name)),
      getOwnPropertyDescriptor: (target, name) => (record(name), Reflect.getOwnPropertyDescriptor(target, name)),
      ownKeys: (target) => {
        for (const name of Reflect.ownKeys(target)) record(name);
        return Reflect.ownKeys(target);
      },
    });
  }

  readonly dependOn = <T>(source: ASTNode, derive: (variables: Record<string, unknown>) => T): T => {
    if (this.closed) throw new Error('a kept walk derived from the variables after its making');
    this.derived.set(source, derive);
    return derive(this.values);
  };

  close(): void {
    this.closed = true;
  }
}
