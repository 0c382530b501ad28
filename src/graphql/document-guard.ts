import { type DocumentNode, GraphQLError, type GraphQLSchema, parse, specifiedRules, validate } from 'graphql';
import type { Context, Next } from 'koa';
import { type RateLimitState, rateLimitHeaders } from '../auth/rate-limit.js';
import { hasTooManyKeys, inputProblems, tooManyKeys } from '../domain/input-limits.js';
import { fieldSummary, reportedFields } from '../domain/reported-fields.js';
import { badInput, formatError } from './format-error.js';
import { bearerOf } from './request-context.js';
import { BEARER_CHALLENGE, rateLimitedError, unauthenticatedError } from './token-refusals.js';

/**
 * Brackets (`{`, `(`, `[`) a `/graphql` document may nest before it is even parsed. graphql-js
 * parses recursively, so thousands of levels overflow the stack; the depth limit of fields (10)
 * plus nested input values and GraphiQL's type references stay far below this.
 */
export const MAX_DOCUMENT_NESTING = 64;
/** Tokens a `/graphql` document may have (graphql-js stops parsing there): bounds parse and validation CPU. */
export const MAX_DOCUMENT_TOKENS = 20_000;

/**
 * How deep brackets nest in a GraphQL document, ignoring strings, block strings and comments; stops
 * counting past `limit`.
 */
export function documentNesting(source: string, limit = MAX_DOCUMENT_NESTING): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        const end = source.indexOf('"""', i + 3);
        i = end < 0 ? source.length : end + 2;
      } else {
        for (i++; i < source.length && source[i] !== '"' && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
      }
    } else if (c === '{' || c === '(' || c === '[') {
      max = Math.max(max, ++depth);
      if (max > limit) return max;
    } else if (c === '}' || c === ')' || c === ']') {
      depth--;
    }
  }
  return max;
}

/**
 * What an operation's source must pass before it is parsed, whatever carries it (POST or GET
 * /graphql, the subscription socket): a document nesting deeper than MAX_DOCUMENT_NESTING is
 * refused with QUERY_TOO_DEEP (never "Maximum call stack size exceeded"), and variables are held
 * to the structural input limits that coercion would otherwise trip over first (depth, list
 * length, keys per object, finite numbers) with BAD_USER_INPUT naming each one (`$input.weight`).
 * Text (length, valid Unicode, NUL) is checked after coercion by the input guard, which names the
 * argument's field. Undefined when the source passes.
 */
export function sourceRefusal(query: unknown, variables: unknown): GraphQLError | undefined {
  if (typeof query === 'string' && documentNesting(query) > MAX_DOCUMENT_NESTING) {
    return new GraphQLError(`The document nests brackets more than ${MAX_DOCUMENT_NESTING} levels deep`, {
      extensions: { code: 'QUERY_TOO_DEEP' },
    });
  }
  if (variables && typeof variables === 'object' && !Array.isArray(variables)) {
    const fields = hasTooManyKeys(variables)
      ? [tooManyKeys('variables')]
      : Object.entries(variables).flatMap(([name, value]) => inputProblems(value, { root: `$${name}`, text: false }));
    if (fields.length) {
      const summary = fieldSummary(reportedFields(fields), (f) => `${f.field} ${f.message}`);
      return new GraphQLError(`Invalid variables: ${summary}`, { extensions: badInput(fields) });
    }
  }
  return undefined;
}

/**
 * A document parsed with Apollo's token limit (parse and validation CPU bounded) and validated with
 * the rules Apollo validates with: the errors, or the document. Used where Apollo does not parse.
 */
export function parseOperation(schema: GraphQLSchema, source: string): DocumentNode | readonly GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parse(source, { maxTokens: MAX_DOCUMENT_TOKENS });
  } catch (error) {
    return [error as GraphQLError];
  }
  const errors = validate(schema, document, specifiedRules);
  return errors.length ? errors : document;
}

/**
 * `sourceRefusal` for a POST or GET of `/graphql`, before Apollo parses anything: a 400 with the
 * refusal. The token comes first, as on every carrier: a refused document is checked and charged
 * one request (`check`, as the socket charges a refused document): a token that is not valid gets
 * its 401, an empty bucket its 429. A document that passes has its token checked with its
 * operation (request-context.ts), often by the read's own statement.
 */
export const documentGuard = (
  check: (authorization: string | undefined) => Promise<'valid' | 'unknown' | RateLimitState>,
) =>
  async function guard(ctx: Context, next: Next) {
    if (ctx.path !== '/graphql' || (ctx.method !== 'POST' && ctx.method !== 'GET')) return next();
    const body = 'body' in ctx.request ? ctx.request.body : undefined;
    const params =
      ctx.method === 'POST' && body && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : (ctx.query as Record<string, unknown>);
    let variables = params.variables;
    if (typeof variables === 'string' && ctx.method === 'GET') {
      try {
        variables = JSON.parse(variables);
      } catch {
        variables = undefined; // Apollo answers the malformed JSON itself
      }
    }
    const refusal = sourceRefusal(params.query, variables);
    if (!refusal) return next();
    const token = await check(ctx.get('authorization') || undefined);
    if (token === 'unknown') return unauthenticated(ctx);
    if (token !== 'valid') {
      const error = rateLimitedError(token);
      ctx.status = 429;
      ctx.set(rateLimitHeaders(token));
      ctx.type = 'application/json';
      ctx.body = { errors: [formatError(error.toJSON(), error)] };
      return;
    }
    ctx.status = 400;
    ctx.type = 'application/json';
    // Its one request was charged with the token's check: nothing more.
    ctx.body = { errors: [{ message: refusal.message, extensions: refusal.extensions }], extensions: { cost: 0 } };
  };

/**
 * A `/graphql` request with no bearer token at all is a 401 before its body is read or judged, as a
 * REST request's is (docs/decisions.md#auth-and-scopes): a malformed or oversized body without a
 * token is not the client's first problem. A token given is looked up with the operation
 * (request-context.ts), where an unknown one gets the same 401.
 */
export async function anonymousRefusal(ctx: Context, next: Next) {
  if (ctx.path !== '/graphql' || ctx.method === 'OPTIONS' || bearerOf(ctx.get('authorization')) !== null) {
    return next();
  }
  unauthenticated(ctx);
}

function unauthenticated(ctx: Context) {
  const error = unauthenticatedError();
  ctx.status = 401;
  ctx.set('WWW-Authenticate', BEARER_CHALLENGE);
  ctx.type = 'application/json';
  ctx.body = { errors: [formatError(error.toJSON(), error)] };
}
