import { badInput } from '../../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Validates an id argument; every id of the API is a UUID. Returns it lower-cased. */
export function parseId(value: string, argumentName: string): string {
  if (!isUuid(value)) throw badInput(argumentName, `${argumentName} must be a UUID, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}
