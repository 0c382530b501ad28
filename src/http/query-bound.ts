import type { Context, Next } from 'koa';
import { Problem } from '../rest/problem.js';

/**
 * The most query parameters a request may have. No route takes more than a handful (GraphQL's GET
 * four, a REST list a few), and Koa parses `ctx.query` by calling URLSearchParams' `getAll` once per
 * parameter, quadratic in their number: the 8,000 that fit in a 16 KiB request line held the event
 * loop for about 0.3 s before any route or token was looked at.
 */
export const MAX_QUERY_PARAMETERS = 64;

/** A query string of more parameters than MAX_QUERY_PARAMETERS is a 414, before anything parses it. */
export async function queryBound(ctx: Context, next: Next) {
  const query = ctx.querystring;
  let parameters = query ? 1 : 0;
  for (let at = query.indexOf('&'); at !== -1 && parameters <= MAX_QUERY_PARAMETERS; at = query.indexOf('&', at + 1))
    parameters++;
  if (parameters > MAX_QUERY_PARAMETERS)
    throw new Problem(414, `The query string has more than ${MAX_QUERY_PARAMETERS} parameters`, [
      { field: 'query', message: `must have at most ${MAX_QUERY_PARAMETERS} parameters` },
    ]);
  return next();
}
