import Router from '@koa/router';
import type { Context } from 'koa';
import type { IdempotencyStore } from '../db/idempotency-store.js';
import { inputProblems } from '../domain/input-limits.js';
import type { GraphQLGateway, OperationResult, Session, Snapshot } from '../graphql/gateway.js';
import { answersByRoad, exportChunks, inputChecks } from '../observability/metrics.js';
import { checkBody, restFieldPath, toInput } from './body.js';
import { etagOf, expectedVersionOf, matches } from './etags.js';
import { chunkOf, EXPORT_CHUNK, type ExportChunk, exportLines } from './export-lines.js';
import { reshape } from './fields.js';
import { toFilter } from './filters.js';
import { type CommitAnswer, idempotent } from './idempotency.js';
import { POSITIVE_INT, parseInteger } from './integer-param.js';
import { feedPage, listPage } from './list-wrapper.js';
import type { OpenExports } from './open-exports.js';
import {
  askedFieldsOf,
  exportDocument,
  feedDocument,
  getDocument,
  listDocument,
  listVariables,
  mutationDocument,
  positionDocument,
  reshapeRecord,
  reshapeRecords,
} from './operations.js';
import { Problem } from './problem.js';
import { publicOrigin } from './public-origin.js';
import { parseExportParams, parseFeedParams, parseListParams, parseReadParams } from './query-params.js';
import { renderingOf } from './record-rendering.js';
import type { DerivedRoute, RestApi } from './rest-api.js';
import { answerRoute } from './route-answer.js';
import {
  type ExportRoute,
  type FeedRoute,
  type GetRoute,
  type ListRoute,
  type PositionRoute,
  type RouteSpec,
  routeScopes,
  type SearchRoute,
  type WriteRoute,
} from './route-spec.js';

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
}

/** A path `{id}`: a positive GraphQL Int, or a 404 (no record has any other id). */
export function idParam(raw: string | undefined): number {
  const id = raw === undefined ? undefined : parseInteger(raw, POSITIVE_INT);
  if (id === undefined) throw new Problem(404, `No record has the id "${raw}": ids are positive integers`);
  return id;
}

/** The operation's result, or the problem its errors stand for (field paths in the body's names). */
/** The operation's `result` field, or the problem its errors (or its absence) make. */
function resultOf(result: OperationResult): unknown {
  if (result.errors?.length) throw Problem.fromGraphQL(result.errors);
  if (result.data?.result == null) throw new Problem(500, 'Internal server error');
  return result.data.result;
}

function dataOf(result: OperationResult): Record<string, unknown> {
  return resultOf(result) as Record<string, unknown>;
}

/**
 * The parsed JSON body, checked against the shared input limits (src/domain/input-limits.ts)
 * before anything else reads it: nesting depth, text length, valid Unicode, no NUL, finite
 * numbers; a search body (`filter`) against the tighter limits of filter values. A body breaking
 * one is a 422 naming the field, so nothing later (idempotency hashing, schema validation, the
 * domain) ever sees a value it could choke on.
 */
function requestBody(ctx: Context, filter = false): unknown {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json', 'application/*+json')) {
    throw new Problem(415, 'Send the request body as application/json');
  }
  return checkedBody(hasBody && 'body' in ctx.request ? ctx.request.body : undefined, filter);
}

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

/**
 * The route's scope is checked right after authentication, before the body is read: a token
 * that may not write gets 403 whatever it sent (the resolver's @Authorized checks it again).
 */
export function requireScope(session: Pick<Session, 'scopes'>, route: Pick<RouteSpec, 'scope'>): void {
  const scopes = routeScopes(route);
  if (scopes.length && !scopes.some((scope) => session.scopes.has(scope))) {
    throw new Problem(403, `This token lacks the scope ${scopes.join(' or ')}`);
  }
}

/** A longer query string is a 414, refused before the token is even looked up (links echo the list's parameters). */
export const MAX_QUERY = 4096;

/**
 * Authentication comes first: without a valid token nothing else is checked or revealed (only an
 * over-long query string is refused before it). A valid token spends one request of its rate
 * limit; every answer from here on (problems included) carries the `RateLimit-*` headers, and an
 * empty bucket is a 429 with `Retry-After`.
 */
export async function sessionOf(ctx: Context, options: RestOptions, writes = false): Promise<Session> {
  if (ctx.querystring.length > MAX_QUERY)
    throw new Problem(414, `The query string is longer than ${MAX_QUERY} characters`);
  const session = await options.gateway.session(ctx.get('authorization') || undefined, writes);
  if (session.headers) ctx.set(session.headers);
  if ('errors' in session) throw Problem.fromGraphQL(session.errors);
  return session;
}

function baseUrl(ctx: Context, options: RestOptions): string {
  return `${publicOrigin(ctx, options)}${ctx.path}`;
}

async function handleList(
  ctx: Context,
  route: (ListRoute | SearchRoute) & Pick<DerivedRoute, 'resource'>,
  options: RestOptions,
) {
  const session = await sessionOf(ctx, options);
  requireScope(session, route);
  const pathId = route.kind === 'search' && route.idFilter ? idParam(ctx.params.id) : undefined;
  const params = parseListParams(ctx.query, route.resource);
  const filter =
    route.kind === 'search' ? toFilter(options.api.filters.get(route.resource)!, requestBody(ctx, true)) : undefined;
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
  // The route's query filters stay in the page links, as its list parameters do.
  const filters = route.kind === 'list' ? Object.keys(route.queryArgs ?? {}) : [];
  // Where every key is a plain field or a grouping of them, PostgreSQL writes the items' JSON and
  // the wrapper is put around its text (docs/rest.md#lists-from-postgresql); otherwise they are
  // executed and reshaped here.
  const { map, keys } = askedFieldsOf(route.resource, params);
  const rendering = matchesNone ? null : renderingOf(map, keys);
  const rendered = rendering && (await session.page(request, rendering));
  if (!matchesNone) answersByRoad.inc({ carrier: 'rest_list', road: rendered ? 'postgres' : 'executed' });
  if (rendered) {
    if (!('items' in rendered)) throw resultProblem(rendered);
    const page = listPage([], facts(rendered.totalCount), baseUrl(ctx, options), ctx.querystring, filters);
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
  const page = listPage(items, facts(data.totalCount as number), baseUrl(ctx, options), ctx.querystring, filters);
  ctx.set(page.headers);
  ctx.body = route.kind === 'search' && route.bare ? items : page.body;
}

/**
 * The event feed: the page after the cursor, with `_links.next` carrying the next one. The
 * operation's refusals of a query parameter (an unknown event type, a cursor naming no event) are
 * 400s naming it, as every bad query parameter is; an expired cursor is the operation's 410.
 */
async function handleFeed(ctx: Context, route: FeedRoute, options: RestOptions) {
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

/**
 * An export (docs/rest.md#exports): the list's operation run chunk after chunk (keyset on id)
 * inside one snapshot, each record shaped as the list's items are (by PostgreSQL where the shape
 * is plain fields, else reshaped here), streamed as NDJSON. Every
 * refusal (scope, parameters, body, the token's places, the first chunk's errors) is a problem
 * before any line; the request is charged once, like any other. A HEAD is checked as the GET is
 * up to its first line and answered with the GET's headers, opening nothing: no snapshot, no place.
 */
async function handleExport(ctx: Context, route: ExportRoute, options: RestOptions) {
  const session = await sessionOf(ctx, options);
  requireScope(session, route);
  const params = parseExportParams(ctx.query, route.resource);
  const filter = route.filtered
    ? toFilter(options.api.filters.get(route.resource)!, requestBody(ctx, true))
    : undefined;
  const document = exportDocument(route.resource, route.operation, params, { filtered: route.filtered });
  if (ctx.method === 'HEAD') {
    ctx.status = 200;
    ctx.type = 'application/x-ndjson';
    ctx.set('Cache-Control', 'no-store');
    return;
  }
  const giveBack = options.exports.admit(session.tokenId);
  let snapshot: Snapshot | undefined;
  try {
    snapshot = await session.snapshot();
  } finally {
    if (!snapshot) giveBack();
  }
  if (!snapshot) throw Problem.overloaded('The service is running as many exports as it allows at once; retry shortly');
  const opened = snapshot;
  const end = async () => {
    await opened.close();
    giveBack();
  };
  const variables = (afterId: number | null) => ({ size: EXPORT_CHUNK, afterId, ...(filter ? { filter } : {}) });
  const refuse = (result: OperationResult): never => {
    throw resultProblem(result);
  };
  const { map, keys } = askedFieldsOf(route.resource, params);
  const line = (record: Record<string, unknown>) => reshape(map, record, keys);
  const executed = async (afterId: number | null) => {
    exportChunks.inc({ road: 'reshaped' });
    return chunkOf(await opened.run({ document, variables: variables(afterId) }), line, refuse);
  };
  // Where every key is a plain field or a grouping of them, PostgreSQL writes the lines; otherwise
  // (or when the gateway finds a computed field) each chunk is executed and reshaped here.
  const rendering = renderingOf(map, keys);
  let rendered = rendering !== null;
  const readChunk = async (afterId: number | null): Promise<ExportChunk> => {
    if (!rendered || !rendering) return executed(afterId);
    const answer = await opened.lines({ document, variables: variables(afterId) }, rendering);
    if (answer === undefined) {
      rendered = false;
      return executed(afterId);
    }
    if (!('parts' in answer)) return refuse(answer);
    exportChunks.inc({ road: 'postgres' });
    return { parts: answer.parts, count: answer.count, lastId: answer.lastKey, more: answer.more };
  };
  let first: ExportChunk;
  try {
    first = await readChunk(null);
  } catch (error) {
    await end();
    throw error;
  }
  ctx.type = 'application/x-ndjson';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options.exports.body(ctx, exportLines(opened, first, readChunk), end);
}

/** The problem an operation's errors (or its missing result) stand for. */
function resultProblem(result: OperationResult): Problem {
  return result.errors?.length ? Problem.fromGraphQL(result.errors) : new Problem(500, 'Internal server error');
}

async function handleGet(ctx: Context, route: GetRoute, options: RestOptions) {
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

async function handlePosition(
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

/** Path parameters as GraphQL Int arguments (`{id}` → `orderId`), each a positive id or a 404. */
function pathVariables(
  params: Record<string, string> | undefined,
  pathArgs: Record<string, string> | undefined,
): Record<string, number> {
  return Object.fromEntries(Object.entries(pathArgs ?? {}).map(([param, arg]) => [arg, idParam(params?.[param])]));
}

/**
 * Query parameters that narrow a list, as GraphQL Int arguments (`variant_id` → `variantId`): each
 * a positive id when given (else a 400 naming it), null when not.
 */
function queryVariables(ctx: Context, queryArgs: Record<string, string> | undefined): Record<string, number | null> {
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

async function handleWrite(
  ctx: Context,
  route: WriteRoute & Pick<DerivedRoute, 'bodyArgTypes' | 'answersList'>,
  options: RestOptions,
) {
  const session = await sessionOf(ctx, options, true);
  requireScope(session, route);
  const body = route.body ? requestBody(ctx) : null;
  await idempotent(ctx, options.idempotency, session.tokenId, body ?? null, (commit) =>
    write(ctx, route, options, session, body, commit),
  );
}

/**
 * What a write reads of its request and writes of its answer: a Koa context, or a bulk line's
 * (src/rest/bulk-lines.ts).
 */
export type WriteContext = Pick<Context, 'query' | 'get' | 'set' | 'status' | 'body' | 'type'> & {
  params?: Record<string, string>;
};

export function renderProblem(ctx: WriteContext, problem: Problem) {
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.type = 'application/problem+json';
  ctx.body = problem.body;
}

/** `commit`: with an Idempotency-Key, the answer is stored inside the write's transaction. */
export async function write(
  ctx: WriteContext,
  route: WriteRoute & Pick<DerivedRoute, 'bodyArgTypes' | 'answersList'>,
  options: Pick<RestOptions, 'api'>,
  session: Pick<Session, 'run'>,
  body: unknown,
  commit?: CommitAnswer,
) {
  const variables: Record<string, unknown> = pathVariables(ctx.params, route.pathArgs);
  const params = parseReadParams(ctx.query, route.resource);
  const validator = options.api.bodies.get(route);
  let fieldName = (field: string) => restFieldPath(route.body, field);
  if (validator) {
    const shown = { ...route.resource.fields, ...route.resource.expand };
    const checked = checkBody(validator, body ?? (route.listBody ? undefined : {}), route.listBody ? {} : shown);
    const map = validator.map;
    if (route.bodyArgs) {
      // The body's keys are the mutation's arguments themselves.
      Object.assign(variables, toInput(map, checked.value as Record<string, unknown>));
      fieldName = (field) => checked.unwrap(restFieldPath(map, field));
    } else if (route.listBody) {
      const prefix = new RegExp(`^${route.listBody}(?=\\[)`);
      variables.input = {
        [route.listBody]: (checked.value as Record<string, unknown>[]).map((item) => toInput(map, item)),
      };
      fieldName = (field) => restFieldPath(map, field.replace(prefix, ''));
    } else {
      variables.input = toInput(map, checked.value as Record<string, unknown>);
      fieldName = (field) => checked.unwrap(restFieldPath(map, field));
    }
  }
  // If-Match becomes the argument the route maps it onto; the use case compares it under the row lock.
  if (route.ifMatch) {
    const expected = expectedVersionOf(ctx.get('if-match'));
    if (expected) variables[route.ifMatch] = expected;
  }
  const respond = (result: OperationResult) => {
    if (result.errors?.length) throw Problem.fromGraphQL(result.errors, fieldName);
    if (route.answersList) {
      // A mutation answering several records (an adjustment's levels): a JSON array of them, no ETag.
      ctx.status = route.status;
      ctx.body = reshapeRecords(route.resource, params, resultOf(result) as Record<string, unknown>[]);
      return;
    }
    const data = dataOf(result);
    if (typeof data.version === 'number') ctx.set('ETag', etagOf(data.version));
    ctx.status = route.status;
    ctx.body = reshapeRecord(route.resource, params, data);
  };
  let answered: OperationResult | undefined;
  const result = await session.run({
    document: mutationDocument(route.resource, route.operation, params, {
      intArgs: Object.values(route.pathArgs),
      input: route.input,
      ifMatch: route.ifMatch,
      bodyArgs: route.bodyArgTypes,
    }),
    variables,
    // Every variable was checked here: the body by `requestBody` and `checkBody`, the ids by `idParam`.
    inputChecked: true,
    beforeCommit: commit
      ? async (outcome, sql) => {
          try {
            respond(outcome);
          } catch (error) {
            if (!(error instanceof Problem) || error.status >= 500) throw error; // rolls back; nothing kept
            renderProblem(ctx, error);
          }
          await commit(sql);
          answered = outcome;
        }
      : undefined,
  });
  // Answered inside the transaction unless it failed (then `result` is the failure).
  if (result !== answered) respond(result);
}

/** The Koa router for /api/v1, built from the route table. */
export function restRouter(options: RestOptions): Router {
  // Exact paths only: /api/v1/PRODUCTS or a trailing slash is not a route (and would echo into links).
  const router = new Router({ prefix: API_PREFIX, sensitive: true, strict: true });
  for (const route of options.api.routes) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    const handler = (ctx: Context) => {
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
  return router;
}
