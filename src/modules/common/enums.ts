/**
 * The GraphQL enum object (`{ ACTIVE: 'ACTIVE', ... }`, what registerEnumType takes) of a
 * database enum's values: the schema's pgEnum is the one list of them.
 */
export function enumObject<const T extends readonly [string, ...string[]]>(values: T): { readonly [K in T[number]]: K } {
  return Object.freeze(Object.fromEntries(values.map((value) => [value, value]))) as { readonly [K in T[number]]: K };
}
