import Negotiator from 'negotiator';
import { KeptValues } from './kept-values.js';

/**
 * The media types Apollo Server answers a single result in, in the order it offers them to
 * the client's Accept (its `chooseContentTypeForSingleResultResponse`).
 */
const SINGLE_RESULT_MEDIA_TYPES = [
  'application/json; charset=utf-8',
  'application/graphql-response+json; charset=utf-8',
  'application/json; callbackSpec=1.0; charset=utf-8',
];

const chosen = new KeptValues<string | null>();

/**
 * The Content-Type of a GraphQL response to a request with this `Accept`: Apollo Server's
 * own choice, by the same negotiation (application/json when there is no Accept); null when
 * Accept allows none of them (406).
 *
 * Apollo negotiates at every request, after executing, unless the response already has a
 * Content-Type; the negotiation is a quarter of its own cost per request. Clients send the
 * same few Accept headers, so each is negotiated once (kept-values.ts bounds what is kept), refused
 * before anything runs when it allows nothing, and its choice set on the response by the
 * plugin (poolgraphPlugin's willSendResponse).
 */
export function responseMediaType(accept: string | undefined): string | null {
  if (!accept) return SINGLE_RESULT_MEDIA_TYPES[0]!;
  return chosen.of(accept, () => new Negotiator({ headers: { accept } }).mediaType(SINGLE_RESULT_MEDIA_TYPES) ?? null);
}
