import type { Context } from 'koa';
import type { OperationResult, Snapshot } from '../graphql/gateway.js';
import { exportChunks } from '../observability/metrics.js';
import { chunkOf, EXPORT_CHUNK, type ExportChunk, exportLines } from './export-lines.js';
import { reshape } from './fields.js';
import { toFilter } from './filters.js';
import { resultProblem } from './operation-result.js';
import { askedFieldsOf, exportDocument } from './operations.js';
import { Problem } from './problem.js';
import { parseExportParams } from './query-params.js';
import { renderingOf } from './record-rendering.js';
import { requestBody } from './request-input.js';
import { requireScope, sessionOf } from './request-session.js';
import type { ExportRoute } from './route-spec.js';
import type { RestOptions } from './router.js';

/*
 * The export route's handler on its own: unlike the other reads it holds a snapshot and one of the
 * token's export places for as long as its NDJSON streams (the lines themselves are
 * src/rest/export-lines.ts, the places src/rest/open-exports.ts).
 */

/**
 * An export (docs/rest.md#exports): the list's operation run chunk after chunk (keyset on id)
 * inside one snapshot, each record shaped as the list's items are (by PostgreSQL where the shape
 * is plain fields, else reshaped here), streamed as NDJSON. Every
 * refusal (scope, parameters, body, the token's places, the first chunk's errors) is a problem
 * before any line; the request is charged once, like any other. A HEAD is checked as the GET is
 * up to its first line and answered with the GET's headers, opening nothing: no snapshot, no place.
 */
export async function handleExport(ctx: Context, route: ExportRoute, options: RestOptions) {
  const session = await sessionOf(ctx, options);
  requireScope(session, route);
  const params = parseExportParams(ctx.query, route.resource);
  const filter = route.filtered
    ? toFilter(options.api.filters.get(route.resource)!, await requestBody(ctx, options.readBody, true))
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
  // PostgreSQL writes the lines (every key has its SQL form, checked at start-up); where the gateway
  // finds a field it cannot write (a computed one, named in test/postgres-writes-json), each chunk
  // is executed and reshaped here.
  const rendering = renderingOf(map, keys);
  let rendered = true;
  const readChunk = async (afterId: number | null): Promise<ExportChunk> => {
    if (!rendered) return executed(afterId);
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
