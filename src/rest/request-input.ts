import type { Context } from 'koa';
import { inputProblems } from '../domain/input-limits.js';
import { inputChecks } from '../observability/metrics.js';
import { POSITIVE_INT, parseInteger } from './integer-param.js';
import { Problem } from './problem.js';

/*
 * What a REST handler reads of its request besides the token, checked at the edge before any of it
 * reaches an operation: the ids in the path and the query string, and the JSON body held to the
 * shared input limits.
 */

/** A path `{id}`: a positive GraphQL Int, or a 404 (no record has any other id). */
export function idParam(raw: string | undefined): number {
  const id = raw === undefined ? undefined : parseInteger(raw, POSITIVE_INT);
  if (id === undefined) throw new Problem(404, `No record has the id "${raw}": ids are positive integers`);
  return id;
}

/** Path parameters as GraphQL Int arguments (`{id}` → `orderId`), each a positive id or a 404. */
export function pathVariables(
  params: Record<string, string> | undefined,
  pathArgs: Record<string, string> | undefined,
): Record<string, number> {
  return Object.fromEntries(Object.entries(pathArgs ?? {}).map(([param, arg]) => [arg, idParam(params?.[param])]));
}

/**
 * Query parameters that narrow a list, as GraphQL Int arguments (`variant_id` → `variantId`): each
 * a positive id when given (else a 400 naming it), null when not.
 */
export function queryVariables(
  ctx: Context,
  queryArgs: Record<string, string> | undefined,
): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(queryArgs ?? {}).map(([param, arg]) => {
      const raw = ctx.query[param];
      if (raw === undefined) return [arg, null];
      const id = typeof raw === 'string' ? parseInteger(raw, POSITIVE_INT) : undefined;
      if (id === undefined) throw Problem.parameter(param, 'must be given once, as a positive integer id');
      return [arg, id];
    }),
  );
}

/** The largest JSON body a request may send (the body parser's limit), and a bulk line's body. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The answer to a body over MAX_BODY_BYTES. */
export const bodyTooLarge = () => new Problem(413, 'The request body is larger than 1 MiB');

/**
 * Reads and parses a request's JSON body into `ctx.request.body` (the HTTP edge's body parser,
 * bounded by MAX_BODY_BYTES and the body timeout). REST calls it once the caller is authenticated
 * and its route's scope checked: a body is neither read nor judged for a request refused before.
 */
export type BodyReader = (ctx: Context) => Promise<void>;

/**
 * The parsed JSON body, checked against the shared input limits (src/domain/input-limits.ts)
 * before anything else reads it: nesting depth, text length, valid Unicode, no NUL, finite
 * numbers; a search body (`filter`) against the tighter limits of filter values. A body breaking
 * one is a 422 naming the field, so nothing later (idempotency hashing, schema validation, the
 * domain) ever sees a value it could choke on.
 */
export async function requestBody(ctx: Context, read: BodyReader, filter = false): Promise<unknown> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json', 'application/*+json')) {
    throw new Problem(415, 'Send the request body as application/json');
  }
  // Read once per request: a request handled again (a caller whose scopes changed, asCaller) takes
  // the same body, or the same refusal, not a second read of a stream already consumed.
  if (hasBody) await (bodiesRead.get(ctx) ?? bodiesRead.set(ctx, read(ctx)).get(ctx));
  return checkedBody(hasBody && 'body' in ctx.request ? ctx.request.body : undefined, filter);
}

const bodiesRead = new WeakMap<Context, Promise<void>>();

/** A parsed body (undefined: none) held to the input limits: the check of `requestBody`, a bulk line's too. */
export function checkedBody(body: unknown, filter = false): unknown {
  if (body !== undefined) inputChecks.inc({ check: 'input_limits', at: 'rest_edge' });
  const problems = body === undefined ? [] : inputProblems(body, { filter });
  if (problems.length)
    throw new Problem(
      422,
      `Invalid request body: ${problems.map((e) => `${e.field} ${e.message}`).join('; ')}`,
      problems,
    );
  return body;
}
