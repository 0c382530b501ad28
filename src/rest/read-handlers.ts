import type { Context } from 'koa';
import type { Session } from '../graphql/gateway.js';
import { answersByRoad } from '../observability/metrics.js';
import { etagOf, matches } from './etags.js';
import { toFilter } from './filters.js';
import { feedPage, listPage } from './list-wrapper.js';
import { dataOf, resultOf, resultProblem } from './operation-result.js';
import {
  askedFieldsOf,
  feedDocument,
  getDocument,
  listDocument,
  listVariables,
  positionDocument,
  reshapeRecord,
  reshapeRecords,
} from './operations.js';
import { Problem } from './problem.js';
import { publicOrigin } from './public-origin.js';
import { parseFeedParams, parseListParams, parseReadParams } from './query-params.js';
import { renderingOf } from './record-rendering.js';
import { idParam, pathVariables, queryVariables, requestBody } from './request-input.js';
import { asCaller, requireScope, sessionOf } from './request-session.js';
import type { DerivedRoute } from './rest-api.js';
import type { FeedRoute, GetRoute, ListRoute, PositionRoute, SearchRoute } from './route-spec.js';
import type { RestOptions } from './router.js';

/*
 * The handlers of the routes that read records and answer with JSON: a list or search page, the
 * event feed, one record, and a record's page in a list. Exports stream instead
 * (src/rest/export-handler.ts); writes are src/rest/write-handler.ts.
 */

function baseUrl(ctx: Context, options: RestOptions): string {
  return `${publicOrigin(ctx, options)}${ctx.path}`;
}

type PageRoute = (ListRoute | SearchRoute) & Pick<DerivedRoute, 'resource'>;

/** A list or search page; a caller seen before has the token check carried by the page's statement. */
export const handleList = (ctx: Context, route: PageRoute, options: RestOptions) =>
  asCaller(ctx, options, (session) => listAs(session, ctx, route, options));

async function listAs(session: Session, ctx: Context, route: PageRoute, options: RestOptions) {
  requireScope(session, route);
  const pathId = route.kind === 'search' && route.idFilter ? idParam(ctx.params.id) : undefined;
  const params = parseListParams(ctx.query, route.resource);
  const filter =
    route.kind === 'search'
      ? toFilter(options.api.filters.get(route.resource)!, await requestBody(ctx, options.readBody, true))
      : undefined;
  let matchesNone = false;
  if (filter && pathId !== undefined && route.kind === 'search' && route.idFilter) {
    // The path's id narrows whatever ids the body asked for; none left matches nothing (an empty
    // "any of" is not a filter GraphQL takes).
    const asked = filter[route.idFilter] as number[] | undefined;
    filter[route.idFilter] = asked ? asked.filter((id) => id === pathId) : [pathId];
    matchesNone = (filter[route.idFilter] as number[]).length === 0;
  }
  const request = {
    document: listDocument(route.resource, route.operation, params, {
      filtered: filter !== undefined,
      intArgs: Object.values(route.kind === 'list' ? (route.pathArgs ?? {}) : {}),
      optionalIntArgs: Object.values(route.kind === 'list' ? (route.queryArgs ?? {}) : {}),
    }),
    variables: {
      ...listVariables(params, filter),
      ...(route.kind === 'list' ? pathVariables(ctx.params, route.pathArgs) : {}),
      ...(route.kind === 'list' ? queryVariables(ctx, route.queryArgs) : {}),
    },
  };
  const facts = (totalCount: number) => ({ page: params.page, size: params.size, totalCount });
  // Where every key is a plain field or a grouping of them, PostgreSQL writes the items' JSON and
  // the wrapper is put around its text (docs/rest.md#lists-from-postgresql); otherwise they are
  // executed and reshaped here.
  const { map, keys } = askedFieldsOf(route.resource, params);
  const rendering = matchesNone ? null : renderingOf(map, keys);
  const rendered = rendering && (await session.page(request, rendering));
  if (!matchesNone) answersByRoad.inc({ carrier: 'rest_list', road: rendered ? 'postgres' : 'executed' });
  if (rendered) {
    if (!('items' in rendered)) throw resultProblem(rendered);
    const page = listPage([], facts(rendered.totalCount), baseUrl(ctx, options), ctx.querystring);
    const { items: _none, ...wrapper } = page.body;
    ctx.set(page.headers);
    ctx.type = 'application/json';
    ctx.body =
      route.kind === 'search' && route.bare
        ? rendered.items
        : `{"items":${rendered.items},${JSON.stringify(wrapper).slice(1)}`;
    return;
  }
  const data = matchesNone ? { items: [], totalCount: 0 } : dataOf(await session.run(request));
  const items = reshapeRecords(route.resource, params, data.items as Record<string, unknown>[]);
  const page = listPage(items, facts(data.totalCount as number), baseUrl(ctx, options), ctx.querystring);
  ctx.set(page.headers);
  ctx.body = route.kind === 'search' && route.bare ? items : page.body;
}

/**
 * The event feed: the page after the cursor, with `_links.next` carrying the next one. The
 * operation's refusals of a query parameter (an unknown event type, a cursor naming no event) are
 * 400s naming it, as every bad query parameter is; an expired cursor is the operation's 410.
 */
export async function handleFeed(ctx: Context, route: FeedRoute, options: RestOptions) {
  const session = await sessionOf(ctx, options);
  requireScope(session, route);
  const params = parseFeedParams(ctx.query, route.resource);
  const result = await session.run({
    document: feedDocument(route.resource, route.operation, params),
    variables: { after: params.after, size: params.size, types: params.types },
  });
  if (result.errors?.length) {
    const problem = Problem.fromGraphQL(result.errors);
    if (problem.status !== 422) throw problem;
    const [first] = problem.errors ?? [];
    throw Problem.parameter(first?.field ?? 'types', first?.message ?? problem.detail);
  }
  const data = dataOf(result);
  const items = reshapeRecords(route.resource, params, data.items as Record<string, unknown>[]);
  const next = data.next as number | null;
  const facts = { after: params.after, next, size: params.size, totalCount: data.totalCount as number };
  const page = feedPage(items, facts, baseUrl(ctx, options), ctx.querystring);
  ctx.set(page.headers);
  ctx.body = page.body;
}

export async function handleGet(ctx: Context, route: GetRoute, options: RestOptions) {
  const session = await sessionOf(ctx, options);
  requireScope(session, route);
  const id = idParam(ctx.params.id);
  const params = parseReadParams(ctx.query, route.resource);
  const result = await session.run({
    document: getDocument(route.resource, route.operation, params),
    variables: { id },
  });
  const data = dataOf(result);
  const etag = typeof data.version === 'number' ? etagOf(data.version) : undefined;
  if (etag) {
    ctx.set('ETag', etag);
    if (matches(ctx.get('if-none-match'), etag)) {
      ctx.status = 304;
      return;
    }
  }
  ctx.body = reshapeRecord(route.resource, params, data);
}

export async function handlePosition(
  ctx: Context,
  route: PositionRoute & Pick<DerivedRoute, 'resource'>,
  options: RestOptions,
) {
  const session = await sessionOf(ctx, options);
  requireScope(session, route);
  const id = idParam(ctx.params.id);
  const params = parseListParams(ctx.query, route.resource);
  const { size, sort } = listVariables(params);
  const result = await session.run({
    document: positionDocument(route.resource, route.operation),
    variables: { id, size, sort },
  });
  const page = resultOf(result);
  if (typeof page !== 'number') throw new Problem(500, 'Internal server error');
  ctx.body = { page };
}
