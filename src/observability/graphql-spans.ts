import type { Context, Next } from 'koa';
import { inSpan, setHttpRoute } from './tracing-state.js';

/** The operation a `/graphql` request names, or its first, from the request itself (not parsed again). */
export function operationOf(ctx: Context): { type: string; name?: string } {
  const given = (ctx.method === 'GET' ? ctx.query : ctx.request.body) as
    | Record<string, unknown>
    | unknown[]
    | undefined;
  if (Array.isArray(given)) return { type: 'batch' };
  const source = typeof given?.query === 'string' ? given.query : '';
  // Only a GraphQL name is looked for (Apollo refuses any other): it holds no character a pattern
  // reads, where `(a+)+c` held the process in backtracking and `(` threw, before any token check.
  const named =
    typeof given?.operationName === 'string' && /^[_A-Za-z]\w*$/.test(given.operationName)
      ? given.operationName
      : undefined;
  const pattern = named
    ? new RegExp(`\\b(query|mutation|subscription)\\s+(${named})\\b`)
    : /^(?:\s|#[^\n]*\n|,)*(query|mutation|subscription)?\s*([_A-Za-z]\w*)?/;
  const match = pattern.exec(source);
  return { type: match?.[1] ?? 'query', name: named ?? match?.[2] };
}

/** The cost an answer reports in `extensions.cost` (a string answer has its extensions at the end). */
function costOf(body: unknown): number | undefined {
  if (typeof body === 'string') {
    const cost = /"cost":(\d+)/.exec(body.slice(-256))?.[1];
    return cost === undefined ? undefined : Number(cost);
  }
  const cost = (body as { extensions?: { cost?: unknown } } | null)?.extensions?.cost;
  return typeof cost === 'number' ? cost : undefined;
}

/**
 * With tracing on (only then is it registered), a `/graphql` operation is a span of its own under
 * the HTTP server span, named as the semantic conventions say (`query ProductList`), with
 * `graphql.operation.type`, `graphql.operation.name` and the cost charged (`store.cost`). Made
 * here by hand: compiled execution (graphql-jit) and PostgreSQL's JSON answers never call
 * graphql-js's execute, which the graphql instrumentation wraps. The SQL statements the operation
 * sends are its children.
 */
export async function graphqlOperationSpans(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== '/graphql') return next();
  setHttpRoute('/graphql');
  const { type, name } = operationOf(ctx);
  const attributes = { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) };
  await inSpan(name ? `${type} ${name}` : type, attributes, async (span) => {
    await next();
    const cost = costOf(ctx.body);
    if (cost !== undefined) span.setAttribute('store.cost', cost);
    if (ctx.status >= 500) span.fail(`HTTP ${ctx.status}`);
  });
}
