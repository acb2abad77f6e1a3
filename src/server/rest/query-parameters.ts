import type { FastifyRequest } from 'fastify';
import { RestError } from './rest-error.js';

/**
 * The query string as the interface's clients write it, made the one form the route's
 * schema validates. Driven by that schema alone (parameter names map to GraphQL elsewhere):
 * - a list may come repeated (`a=1&a=2`), bracketed (`a[]=1`), indexed (`a[0]=1&a[1]=2`) or
 *   comma-separated (`a=1,2`);
 * - an enum value in any letter case (`sort_by=end_date`);
 * - a boolean as true/false or 1/0 (`past_only=1`);
 * - a date-time as a date alone (`reference_date=2026-03-01`: midnight UTC that day).
 * A parameter the route does not take, or a single-valued one given twice with different
 * values, is refused (400 BAD_USER_INPUT naming it): ignoring it would answer another
 * question than the one asked. Anything else unrecognised is left to the schema, which
 * refuses it naming the parameter.
 */
interface ParameterSchema {
  type?: string;
  enum?: readonly unknown[];
  format?: string;
  items?: ParameterSchema;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** `a[]` and `a[0]`, `a[1]`, ...: the bracketed and indexed list forms of PHP, Rails and qs. */
const LIST_SUFFIX = /\[\d*\]$/;

function normalizeValue(value: string, schema: ParameterSchema | undefined): unknown {
  if (!schema) return value;
  if (schema.enum) return enumLookup(schema.enum).get(value.trim().toUpperCase()) ?? value;
  if (schema.type === 'boolean') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    return value;
  }
  if (schema.format === 'date-time' && DATE_ONLY.test(value)) return `${value}T00:00:00.000Z`;
  return value;
}

/** An enum's string options by their upper case, made once per schema (a request's values are looked up, not compared with each). */
function enumLookup(options: readonly unknown[]): Map<string, unknown> {
  let lookup = enumLookups.get(options);
  if (!lookup) {
    lookup = new Map();
    for (const option of options)
      if (typeof option === 'string' && !lookup.has(option.toUpperCase())) lookup.set(option.toUpperCase(), option);
    enumLookups.set(options, lookup);
  }
  return lookup;
}

const enumLookups = new WeakMap<readonly unknown[], Map<string, unknown>>();

function refuse(parameter: string, message: string): never {
  throw new RestError('BAD_USER_INPUT', message, { argumentName: parameter });
}

/** Rewrites `request.query` in place into the form its route's querystring schema validates (see above). */
export function normalizeQuery(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const querystring = request.routeOptions.schema?.querystring as { properties?: Record<string, ParameterSchema> } | undefined;
  const properties = querystring?.properties ?? {};
  const given = new Map<string, string[]>();
  for (const key of Object.keys(query)) {
    const raw = query[key];
    const name = key.endsWith(']') ? key.replace(LIST_SUFFIX, '') : key;
    if (!Object.hasOwn(properties, name)) {
      const known = Object.keys(properties);
      refuse(name, `Unknown query parameter "${name}"; ${known.length ? `this route takes ${known.join(', ')}` : 'this route takes none'}`);
    }
    let values = given.get(name);
    if (!values) given.set(name, (values = []));
    if (Array.isArray(raw)) for (const value of raw) values.push(String(value));
    else values.push(String(raw));
  }
  const normalized: Record<string, unknown> = {};
  for (const [name, values] of given) {
    const schema = properties[name]!;
    if (schema.type === 'array') {
      const items = values
        .flatMap((value) => value.split(','))
        .map((item) => item.trim())
        .filter((item) => item !== '');
      normalized[name] = items.map((item) => normalizeValue(item, schema.items));
      continue;
    }
    const distinct = values.length === 1 ? values : [...new Set(values)];
    if (distinct.length > 1) refuse(name, `The query parameter "${name}" takes one value; it was given ${distinct.length}`);
    normalized[name] = normalizeValue(distinct[0]!, schema);
  }
  request.query = normalized;
}
