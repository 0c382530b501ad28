import Router from '@koa/router';
import { getNamedType, isEnumType, isInputObjectType, parse, validate, type GraphQLSchema } from 'graphql';
import type { Context } from 'koa';
import type { GraphQLGateway, OperationResult } from '../graphql/gateway.js';
import { listPage, type ListPage } from './list-wrapper.js';
import { gqlNameOf } from './fields.js';
import { getDocument, listDocument, listVariables, reshapeRecord } from './operations.js';
import { Problem } from './problem.js';
import { parseListParams, parseReadParams } from './query-params.js';
import { routes as allRoutes, type GetRoute, type ListRoute, type RouteSpec } from './routes.js';

export const API_PREFIX = '/api/v1';
const MAX_ID = 2_147_483_647;

export interface RestOptions {
  gateway: GraphQLGateway;
  /** PUBLIC_URL: base of absolute links; otherwise the request's own origin. */
  publicUrl?: string;
  routes?: RouteSpec[];
}

function idParam(raw: string | undefined): number {
  if (!raw || !/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_ID) {
    throw new Problem(404, `No record has the id "${raw}": ids are positive integers`);
  }
  return Number(raw);
}

function dataOf(result: OperationResult): Record<string, any> {
  if (result.errors?.length) throw Problem.fromGraphQL(result.errors);
  if (!result.data?.result) throw new Problem(500, 'Internal server error');
  return result.data.result as Record<string, any>;
}

async function handleList(ctx: Context, route: ListRoute, options: RestOptions) {
  const params = parseListParams(ctx.query, route.resource);
  const result = await options.gateway.run({
    document: listDocument(route.resource, route.operation, params),
    variables: listVariables(route.resource, params),
    authorization: ctx.get('authorization') || undefined,
  });
  const data = dataOf(result);
  const items = (data.items as Record<string, unknown>[]).map((node) => reshapeRecord(route.resource, params, node));
  const page: ListPage = listPage(items, { page: params.page, size: params.size, totalCount: data.totalCount }, baseUrl(ctx, options), ctx.querystring);
  ctx.set(page.headers);
  ctx.body = page.body;
}

async function handleGet(ctx: Context, route: GetRoute, options: RestOptions) {
  const id = idParam(ctx.params.id);
  const params = parseReadParams(ctx.query, route.resource);
  const result = await options.gateway.run({
    document: getDocument(route.resource, route.operation, params),
    variables: { id },
    authorization: ctx.get('authorization') || undefined,
  });
  ctx.body = reshapeRecord(route.resource, params, dataOf(result));
}

function baseUrl(ctx: Context, options: RestOptions): string {
  return `${options.publicUrl ? options.publicUrl.replace(/\/$/, '') : `${ctx.protocol}://${ctx.host}`}${ctx.path}`;
}

/**
 * Proves at start-up that every route's largest operation is valid against the schema (every
 * mapped field exists, every sortable key is a sort enum value), so a renamed GraphQL field fails
 * the boot and the tests, not a merchant's request.
 */
export function checkRoutesAgainstSchema(schema: GraphQLSchema, routes: RouteSpec[]): void {
  for (const route of routes) {
    const everything = { keys: Object.keys(route.resource.fields), expand: Object.keys(route.resource.expand) };
    const document = route.kind === 'list' ? listDocument(route.resource, route.operation, everything) : getDocument(route.resource, route.operation, everything);
    const errors = validate(schema, parse(document));
    if (errors.length) throw new Error(`REST route ${route.method} ${route.path} does not fit the schema: ${errors.map((e) => e.message).join('; ')}`);
    if (route.kind === 'list') {
      const sortInput = schema.getType(route.resource.sortInput ?? '');
      const enumType = sortInput && isInputObjectType(sortInput) ? getNamedType(sortInput.getFields().field.type) : undefined;
      const values = new Set(enumType && isEnumType(enumType) ? enumType.getValues().map((v) => v.name) : []);
      for (const [key, spec] of Object.entries(route.resource.fields)) {
        if (spec.sortable && !values.has(gqlNameOf(key, spec))) {
          throw new Error(`REST route ${route.method} ${route.path}: sortable "${key}" is not a value of ${route.resource.sortInput}.field`);
        }
      }
    }
  }
}

/** The Koa router for /api/v1, built from the route table. */
export function restRouter(options: RestOptions): Router {
  const router = new Router({ prefix: API_PREFIX });
  for (const route of options.routes ?? allRoutes) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    const handler = route.kind === 'list' ? (ctx: Context) => handleList(ctx, route, options) : (ctx: Context) => handleGet(ctx, route, options);
    router.register(path, [route.method], handler);
  }
  return router;
}
