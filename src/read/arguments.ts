import { type FieldNode, getArgumentValues, type GraphQLField, isNonNullType, Kind, type ValueNode, valueFromAST, visit } from 'graphql';

/** A field's arguments as its resolver receives them, from the coerced variables. */
export type ArgumentReader = (variables: Record<string, unknown>) => Record<string, unknown>;

/**
 * graphql-js's `getArgumentValues(field, node, variables)` prepared once, for a field node a kept plan reads at every request:
 * literals coerced once (graphql-js re-keys the arguments in a dictionary-mode object and coerces every literal per call, about 1 µs
 * and 800 bytes). What this does not answer the same way by construction goes to graphql-js: a literal with a variable inside, an
 * object or list literal (resolvers get a fresh one), and what graphql-js refuses (a required argument missing or null), so its
 * error is the one thrown.
 */
export function argumentReader(field: GraphQLField<unknown, unknown>, node: FieldNode): ArgumentReader {
  const general: ArgumentReader = (variables) => getArgumentValues(field, node, variables);
  const given = new Map((node.arguments ?? []).map((argument) => [argument.name.value, argument.value]));
  const steps: Array<{ name: string; variable: string | null; value: unknown; required: boolean; fallback: unknown }> = [];
  for (const argument of field.args) {
    const { name, type, defaultValue } = argument;
    const value = given.get(name);
    const required = isNonNullType(type);
    if (value === undefined) {
      if (defaultValue === undefined) {
        if (required) return general;
        continue;
      }
      if (defaultValue !== null && typeof defaultValue === 'object') return general;
      steps.push({ name, variable: null, value: defaultValue, required, fallback: undefined });
    } else if (value.kind === Kind.VARIABLE) {
      if (defaultValue !== null && typeof defaultValue === 'object') return general;
      steps.push({ name, variable: value.name.value, value: undefined, required, fallback: defaultValue });
    } else {
      const constant = hasVariables(value) ? undefined : valueFromAST(value, type);
      if (constant === undefined || (constant !== null && typeof constant === 'object')) return general;
      steps.push({ name, variable: null, value: constant, required, fallback: undefined });
    }
  }
  return (variables) => {
    const args: Record<string, unknown> = {};
    for (const step of steps) {
      if (step.variable === null) {
        args[step.name] = step.value;
        continue;
      }
      if (!Object.hasOwn(variables, step.variable)) {
        if (step.fallback !== undefined) args[step.name] = step.fallback;
        else if (step.required) return general(variables);
        continue;
      }
      const value = variables[step.variable];
      if (value == null && step.required) return general(variables);
      args[step.name] = value;
    }
    return args;
  };
}

/** Whether a value literal holds a variable anywhere inside. */
export function hasVariables(value: ValueNode): boolean {
  let found = false;
  visit(value, {
    Variable() {
      found = true;
    },
  });
  return found;
}
