import { type DocumentNode, getOperationAST } from 'graphql';
import type { Context, Middleware } from 'koa';
import { rateLimitHeaders } from '../auth/rate-limit.js';
import { graphqlOperations } from '../observability/metrics.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { withAnswerText } from './answer-passthrough.js';
import type { createGateway } from './gateway.js';
import { operationCost } from './operation-cost.js';
import { QueryLimitError } from './query-limits.js';

/**
 * `/graphql` queries answered without Apollo's request pipeline (docs/performance.md#direct-queries).
 *
 * A small read spent much of the service's CPU in the layers around its answer (bench/analysis.md,
 * "Direct queries"): Apollo's request context, plugins, document cache and response, none of which
 * decides anything for a plain query by a caller this process has seen. Such a request is
 * answered here with the same parts in the same order: the document parsed and validated once per
 * text (the rules and token limit Apollo uses), its cost measured and refused past a limit as
 * Apollo would, the caller's token check carried by the read (src/auth/carried-token-check.ts)
 * charging that cost, and the gateway's `answer`, which writes PostgreSQL's JSON or executes.
 *
 * Everything else goes to Apollo as before: GET, batches, mutations, persisted queries, answers
 * negotiated to other media types, documents that do not parse or validate or are over a limit,
 * callers checked first (unknown, a bucket near empty), read replicas. So does a request whose
 * answer holds an error: Apollo runs it again with the same, already checked and charged, caller
 * (`carriedOver`) and formats the error as for every other request. Queries write nothing, so the
 * second run changes nothing; it only costs a failed read a second statement.
 */
export function directQueries(gateway: ReturnType<typeof createGateway>) {
  const handedOver = new WeakMap<Context, GraphQLContext>();

  /** The query's document, parsed and validated once (`gateway.prepared`), or undefined: Apollo answers it. */
  function queryOf(text: string, operationName: string | undefined): DocumentNode | undefined {
    if (text.length > TEXT_MAX) return undefined;
    const entry = gateway.prepared(text);
    if (!('document' in entry)) return undefined;
    return getOperationAST(entry.document, operationName)?.operation === 'query' ? entry.document : undefined;
  }

  const middleware: Middleware = async (ctx, next) => {
    const request = plainQuery(ctx);
    if (!request) return next();
    const { query, operationName, variables } = request;
    const document = queryOf(query, operationName);
    if (!document) return next();
    let cost: number;
    try {
      cost = operationCost(gateway.schema, document, operationName, variables).cost;
    } catch (error) {
      if (error instanceof QueryLimitError) return next();
      throw error;
    }
    const context = gateway.carriedContext(ctx.get('authorization') || undefined);
    const check = context?.check;
    if (!context || !check) return next();
    check.cost = cost;
    const answered = await withAnswerText(() => gateway.answer(document, operationName, context, variables)).catch(
      () => undefined,
    );
    if (!answered || answered.result.errors?.length || !answered.result.data) {
      handedOver.set(ctx, context);
      return next();
    }
    const { result, write } = answered;
    graphqlOperations.inc({ type: 'query', via: 'graphql' });
    if (check.limit) for (const [name, value] of Object.entries(rateLimitHeaders(check.limit))) ctx.set(name, value);
    ctx.type = 'application/json; charset=utf-8';
    // As Apollo writes a result (its `prettyJSONStringify`): data, then extensions, and a newline.
    ctx.body = `${write(JSON.stringify({ data: result.data, extensions: { ...result.extensions, cost } }))}\n`;
  };

  return {
    middleware,
    /** The caller a request handed over to Apollo was already checked and charged as. */
    carriedOver: (ctx: Context): GraphQLContext | undefined => handedOver.get(ctx),
  };
}

// The gateway keeps prepared documents by their text, a bounded number of them; only bounded texts
// go there (a longer document goes to Apollo, whose cache is bounded by size).
const TEXT_MAX = 10_000;
// What Apollo answers as plain `application/json` (it negotiates anything else, after execution).
const JSON_ACCEPTED = /^\s*(application\/json|\*\/\*)\s*(;[^,]*)?$/i;

interface PlainQuery {
  query: string;
  operationName?: string;
  variables?: Record<string, unknown>;
}

/** A POST of one operation as Apollo reads it, with nothing Apollo would handle differently; else undefined. */
function plainQuery(ctx: Context): PlainQuery | undefined {
  if (ctx.method !== 'POST') return undefined;
  const body = (ctx.request as { body?: unknown }).body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  if (typeof query !== 'string' || extensions !== undefined) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  const accept = ctx.get('accept');
  if (accept && !JSON_ACCEPTED.test(accept)) return undefined;
  return {
    query,
    operationName: operationName ?? undefined,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
  };
}
