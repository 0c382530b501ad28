import { Readable } from 'node:stream';
import { type ApolloServer, HeaderMap } from '@apollo/server';
import type { Context, Middleware } from 'koa';
import type { GraphQLContext } from '../resolvers/context.js';
import { withAnswerText } from './answer-passthrough.js';

/**
 * Every `/graphql` request, whatever it holds, through Apollo Server's own request handling
 * (`executeHTTPGraphQLRequest`, the entry point Apollo documents for framework integrations): its
 * parsing, document cache, plugins (src/graphql/apollo.ts: limits, cost, refusal statuses),
 * execution by the gateway and its response. There is no other road to an answer, and a request
 * runs once.
 *
 * In place of `@as-integrations/koa`, which does the same with two differences that matter here:
 * it parsed every request's URL with Node's legacy `url.parse`, a measurable part of a small read's
 * CPU (bench/analysis.md "One pipeline" has the figures), and it could only hand Koa a finished string,
 * so the page PostgreSQL wrote (answer-passthrough.ts) was spliced in by a second pass over that
 * string afterwards. Here the splice happens where the body is written.
 */
export function koaApollo(
  server: ApolloServer<GraphQLContext>,
  context: (ctx: Context) => Promise<GraphQLContext>,
): Middleware {
  server.assertStarted('koaApollo()');
  return async (ctx) => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(ctx.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const { result, write } = await withAnswerText(() =>
      server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: ctx.method.toUpperCase(),
          headers,
          // Koa has split the query string off already: `?` and what follows, as Apollo expects.
          search: ctx.querystring ? `?${ctx.querystring}` : '',
          body: ctx.request.body,
        },
        context: () => context(ctx),
      }),
    );
    if (result.status !== undefined) ctx.status = result.status;
    for (const [name, value] of result.headers) ctx.set(name, value);
    const { body } = result;
    // Incremental delivery (@defer) is not enabled, so a chunked body does not occur; were it
    // enabled, its chunks would stream as Apollo writes them.
    ctx.body = body.kind === 'complete' ? write(body.string) : Readable.from(body.asyncIterator);
  };
}
