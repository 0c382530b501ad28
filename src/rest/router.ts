import Router from '@koa/router';
import type { Context } from 'koa';
import type { IdempotencyStore } from '../db/idempotency-store.js';
import type { GraphQLGateway } from '../graphql/gateway.js';
import { BULK_STREAM_ROUTES } from './bulk-routes.js';
import { handleExport } from './export-handler.js';
import type { OpenExports } from './open-exports.js';
import { Problem } from './problem.js';
import { handleFeed, handleGet, handleList, handlePosition } from './read-handlers.js';
import type { BodyReader } from './request-input.js';
import type { RestApi } from './rest-api.js';
import { answerRoute } from './route-answer.js';
import { handleWrite } from './write-handler.js';

/*
 * The Koa router of the REST layer: its prefix and options, and each route of the table sent to the
 * handler of its kind (read-handlers.ts, export-handler.ts, write-handler.ts).
 */

export const API_PREFIX = '/api/v1';

export interface RestOptions {
  gateway: GraphQLGateway;
  /** Where Idempotency-Key answers are kept (writes ignore the header without one). */
  idempotency?: IdempotencyStore;
  /** PUBLIC_URL: base of absolute links; otherwise an ALLOWED_HOSTS Host, else the listening address. */
  publicUrl?: string;
  allowedHosts?: readonly string[];
  /** The route table completed from the schema (src/rest/rest-api.ts). */
  api: RestApi;
  /** The exports open on this process: their places per token, stalls, shutdown. */
  exports: OpenExports;
  /** Reads a JSON body, called once the caller and its scope are known (request-input.ts). */
  readBody: BodyReader;
}

/** The Koa router for /api/v1, built from the route table. */
export function restRouter(options: RestOptions): Router {
  // Exact paths only: /api/v1/PRODUCTS or a trailing slash is not a route (and would echo into links).
  const router = new Router({ prefix: API_PREFIX, sensitive: true, strict: true });
  const methods = methodsByPath(options.api);
  /** A request to a path of the table (or of the bulk streams) by a method it does not take: a 405 naming them. */
  const methodNotAllowed = (allowed: string[]) => (ctx: Context) => {
    if (allowed.includes(ctx.method)) return;
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      // As the router answers OPTIONS on every other path: its methods, nothing else.
      ctx.set('Allow', allow);
      ctx.body = '';
      return;
    }
    throw new Problem(405, `${ctx.method} is not allowed here; allowed: ${allow}`, undefined, { Allow: allow });
  };
  /** A path without parameters (`/orders/search`) with another method would match `/orders/{id}`. */
  const literalMethodNotAllowed = (ctx: Context) => {
    const path = ctx.path.slice(API_PREFIX.length);
    const allowed = path.includes('{') ? undefined : methods.get(path);
    if (allowed) methodNotAllowed(allowed)(ctx);
  };
  for (const route of options.api.routes) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    const handler = (ctx: Context) => {
      if (route.path.includes('{')) literalMethodNotAllowed(ctx);
      switch (route.kind) {
        case 'list':
        case 'search':
          return handleList(ctx, route, options);
        case 'export':
          return handleExport(ctx, route, options);
        case 'get':
          return handleGet(ctx, route, options);
        case 'position':
          return handlePosition(ctx, route, options);
        case 'write':
          return handleWrite(ctx, route, options);
        case 'feed':
          return handleFeed(ctx, route, options);
      }
    };
    // Deprecated keys announced, the operation traced (src/rest/route-answer.ts).
    router.register(path, [route.method], (ctx: Context) => answerRoute(ctx, route, handler));
  }
  // Last, so only a method no route of the path has reaches it: its 405 names the path's own methods.
  // A path with parameters of the table has the router's own 405s (allowedMethods); the bulk streams'
  // are served by another router.
  for (const [path, allowed] of methods) {
    if (!path.includes('{') || BULK_STREAM_ROUTES.some((route) => route.path === path))
      router.all(path.replace(/\{(\w+)\}/g, ':$1'), methodNotAllowed(allowed));
  }
  return router;
}

/** Each path of the table and of the bulk streams (`/orders/{id}`), with the methods it takes. */
export function methodsByPath(api: Pick<RestApi, 'routes'>): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const route of [...api.routes, ...BULK_STREAM_ROUTES]) {
    const known = methods.get(route.path) ?? [];
    if (!known.includes(route.method)) methods.set(route.path, [...known, route.method]);
  }
  return methods;
}
