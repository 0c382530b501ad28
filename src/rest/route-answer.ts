import type { Context } from 'koa';
import { inSpan, tracingOn } from '../observability/tracing-state.js';
import { announceDeprecations } from './deprecation.js';
import type { RouteSpec } from './route-spec.js';
import { API_PREFIX } from './router.js';

/**
 * Answers a REST route with `handler`, then announces the deprecated keys its answer holds
 * (src/rest/deprecation.ts). With tracing on, the GraphQL operation the route runs is a span (made
 * by hand, as /graphql's are: src/observability/graphql-spans.ts) under the route's span, with the
 * operation's type and root field and the request's cost (a REST request is charged one).
 */
export async function answerRoute(
  ctx: Context,
  route: RouteSpec,
  handler: (ctx: Context) => Promise<void> | undefined,
): Promise<void> {
  if (tracingOn()) {
    const type = route.kind === 'write' ? 'mutation' : 'query';
    const attributes = {
      'graphql.operation.type': type,
      'graphql.operation.name': route.operation,
      'http.route': `${API_PREFIX}${route.path}`,
      'store.cost': 1,
    };
    await inSpan(`${type} ${route.operation}`, attributes, async (span) => {
      await handler(ctx);
      if (ctx.status >= 500) span.fail(`HTTP ${ctx.status}`);
    });
  } else {
    await handler(ctx);
  }
  announceDeprecations(ctx, route);
}
