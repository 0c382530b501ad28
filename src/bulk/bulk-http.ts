import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context } from 'koa';
import type { Pool, PoolClient } from 'pg';
import { SQL_NOW } from '../clock.js';
import type { SqlRunner } from '../db/idempotency-store.js';
import { numberedPlaceholders } from '../db/prepared-statements.js';
import { BULK_SCOPES } from '../domain/bulk-operation.js';
import type { Session } from '../graphql/gateway.js';
import { activeTraceparent } from '../observability/tracing-state.js';
import { measuredRows } from '../reads/answer-bytes.js';
import type { RestLines } from '../rest/bulk-lines.js';
import { idempotencyKeyOf, idempotent } from '../rest/idempotency.js';
import { NDJSON } from '../rest/openapi-responses.js';
import { getDocument, reshapeRecord } from '../rest/operations.js';
import { Problem } from '../rest/problem.js';
import { parseReadParams } from '../rest/query-params.js';
import { idParam } from '../rest/request-input.js';
import { requireScope, sessionOf } from '../rest/request-session.js';
import type { DerivedRoute } from '../rest/rest-api.js';
import { API_PREFIX, type RestOptions } from '../rest/router.js';
import { storeUpload, type Upload, type UploadLimits } from './uploads.js';

/**
 * The NDJSON ends of bulk operations (docs/decisions.md#bulk-writes), beside the route table's
 * `GET /bulk-operations[/{id}]` and `POST /bulk-operations/{id}/cancel` (src/rest/bulk-routes.ts):
 *
 * - `POST /bulk-operations`: a file of REST writes → 202 with the operation (its `Location`);
 * - `POST /bulk-operations/uploads`: a file of GraphQL variables → 201 `{id, lines}`, for
 *   `bulkOperationRunMutation(mutation, uploadId)`;
 * - `GET /bulk-operations/{id}/results`: one result line per applied line, in input order.
 *
 * Each is one request: authenticated and charged once (the operation's one charge), the token
 * needing one of BULK_SCOPES; the lines' own scopes are checked as they run.
 */

/** Result lines read per statement while streaming. */
const RESULTS_CHUNK = 1000;

export interface BulkHttpOptions {
  rest: RestOptions;
  restLines: RestLines;
  orm: MikroORM;
  limits: UploadLimits;
  /** A new operation is ready to run: wake this process's runners. */
  started(): void;
}

/** The scope these requests need, as a route of the table declares it: any of a write's. */
const bulkRoute = { scope: BULK_SCOPES } as const;

/** An upload's own refusals: a body that is not uncompressed NDJSON. */
function requireNdjson(ctx: Context): void {
  if (!ctx.is(NDJSON)) throw new Problem(415, `Send the file as ${NDJSON}: one JSON object per line`);
  const encoding = ctx.get('content-encoding').toLowerCase();
  if (encoding && encoding !== 'identity')
    throw new Problem(415, 'Send the file uncompressed (no Content-Encoding)', [
      { field: 'Content-Encoding', message: 'is not taken by uploads' },
    ]);
}

/** The kept answer of an Idempotency-Key was replayed: the upload just read rolls back. */
class Replayed extends Error {}

/** Statements with `?` placeholders (the key store's) on an upload's own connection. */
const sqlOn =
  (client: PoolClient): SqlRunner =>
  async (text, params) =>
    (await client.query(numberedPlaceholders(text, params.length), params)).rows;

/** Uploads being received, per pool (one per process; tests run several). */
const uploading = new WeakMap<Pool, number>();

/**
 * An upload with an `Idempotency-Key` (docs/decisions.md#retries), as any writing POST: the file is
 * streamed into its transaction and hashed as it comes, then the key is claimed with that hash
 * (idempotency.ts `idempotent`). The first request makes its record (`make`, on the upload's
 * connection) and keeps its answer in the same transaction; a repeat of the same file gets that
 * answer, its own copy rolled back; another file under the key is a 422. Answers what `make` made,
 * undefined when an answer was replayed (ctx holds it).
 */
async function storeOnce<T>(
  ctx: Context,
  options: BulkHttpOptions,
  tokenId: number,
  upload: Parameters<typeof storeUpload>[2],
  make: (client: PoolClient, stored: Upload) => Promise<T>,
): Promise<T | undefined> {
  idempotencyKeyOf(ctx); // a key that is not valid is refused before the file is read
  const pool = await (options.orm.em.getConnection().getNativeClient() as Promise<Pool> | Pool);
  // An upload holds a pooled connection for as long as its client sends (up to REQUEST_TIMEOUT_MS):
  // a quarter of the pool at most (exports' snapshots may hold half), so trickling uploads and
  // exports together leave the rest for everything else.
  const most = Math.max(1, Math.floor((pool.options.max ?? 10) / 4));
  const held = uploading.get(pool) ?? 0;
  if (held >= most)
    throw Problem.overloaded(`${held} bulk uploads are being received on this process, its most at once`);
  uploading.set(pool, held + 1);
  let made: T | undefined;
  try {
    await storeUpload(pool, ctx.req, upload, options.limits, async (client, stored) => {
      await idempotent(
        ctx,
        options.rest.idempotency,
        tokenId,
        null,
        async (commit) => {
          made = await make(client, stored);
          await commit?.(sqlOn(client));
        },
        { bodyHash: stored.hash, outerTransaction: true },
      );
      if (made === undefined) throw new Replayed();
    });
  } catch (error) {
    if (!(error instanceof Replayed)) throw error;
  } finally {
    uploading.set(pool, (uploading.get(pool) ?? 1) - 1);
  }
  return made;
}

/** The operation id a `Location` of `/bulk-operations/{id}` names, if it does. */
function operationAt(location: string): number | undefined {
  const id = /\/bulk-operations\/(\d+)$/.exec(location)?.[1];
  return id === undefined ? undefined : Number(id);
}

export function bulkRouter(options: BulkHttpOptions): Router {
  const router = new Router({ prefix: API_PREFIX, sensitive: true, strict: true });
  const getRoute = options.rest.api.routes.find((route) => route.kind === 'get' && route.operation === 'bulkOperation');
  if (!getRoute) throw new Error('the route table has no GET /bulk-operations/{id}');

  /** The operation in its REST shape, as `GET /bulk-operations/{id}` answers it (`fields` too). */
  async function operationRecord(ctx: Context, session: Session, route: DerivedRoute, id: number) {
    const params = parseReadParams(ctx.query, route.resource);
    const result = await session.run({
      document: getDocument(route.resource, route.operation, params),
      variables: { id },
    });
    if (result.errors?.length || !result.data?.result) throw Problem.fromGraphQL(result.errors ?? []);
    return reshapeRecord(route.resource, params, result.data.result as Record<string, unknown>);
  }

  router.post('/bulk-operations', async (ctx) => {
    const session = await sessionOf(ctx, options.rest, true);
    requireScope(session, bulkRoute);
    requireNdjson(ctx);
    parseReadParams(ctx.query, getRoute.resource); // a bad `fields` is refused before the file is read
    const upload = {
      tokenId: session.tokenId,
      form: 'rest' as const,
      check: (v: unknown) => options.restLines.lineProblem(v),
    };
    // Traced (only then): its lines are spans of this request's trace (docs/operations.md#traces).
    const traceParent = activeTraceparent();
    const made = await storeOnce(ctx, options, session.tokenId, upload, async (client, stored) => {
      const inserted = await client.query<{ id: number }>(
        `insert into bulk_operation (token_id, upload_id, total_lines, trace_parent, created_at)
          values ($1, $2, $3, $4, ${SQL_NOW}) returning id`,
        [session.tokenId, stored.id, stored.lines, traceParent],
      );
      const id = inserted.rows[0].id;
      // What an Idempotency-Key keeps (with the upload's transaction): the operation's id and place.
      ctx.status = 202;
      ctx.set('Location', `${API_PREFIX}/bulk-operations/${id}`);
      ctx.body = { id };
      return id;
    });
    // A replayed answer names its operation by its Location: answered as the operation is now.
    const id = made ?? operationAt(ctx.response.get('Location'));
    if (id === undefined) return; // a replayed refusal, as it was kept
    // The answer is the operation as it was made (created), read before this process's runners are
    // woken: one of them claiming it first made the answer `running` at random.
    try {
      ctx.body = await operationRecord(ctx, session, getRoute, id);
    } finally {
      if (made !== undefined) options.started();
    }
  });

  router.post('/bulk-operations/uploads', async (ctx) => {
    const session = await sessionOf(ctx, options.rest, true);
    requireScope(session, bulkRoute);
    requireNdjson(ctx);
    const check = (value: unknown) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? undefined
        : 'is not a JSON object (a line holds the variables of one run of the mutation)';
    const upload = { tokenId: session.tokenId, form: 'graphql' as const, check };
    await storeOnce(ctx, options, session.tokenId, upload, async (_, stored) => {
      ctx.status = 201;
      ctx.body = { id: stored.id, lines: stored.lines };
      return stored.id;
    });
  });

  router.get('/bulk-operations/:id/results', async (ctx) => {
    const session = await sessionOf(ctx, options.rest);
    requireScope(session, bulkRoute);
    const id = idParam(ctx.params.id);
    const unknown = Object.keys(ctx.query).filter((name) => name !== 'failed');
    if (unknown.length) throw Problem.parameter(unknown[0], 'is not a parameter of results; valid: failed');
    const failed = ctx.query.failed;
    if (failed !== undefined && failed !== 'true' && failed !== 'false')
      throw Problem.parameter('failed', 'must be true or false');
    const connection = options.orm.em.getConnection();
    const [own] = await connection.execute<unknown[]>('select 1 from bulk_operation where id = ? and token_id = ?', [
      id,
      session.tokenId,
    ]);
    if (!own) throw new Problem(404, `BulkOperation ${id} does not exist`);
    ctx.type = NDJSON;
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method === 'HEAD') return;
    const onlyFailed = failed === 'true';
    // The results so far, in line order, a chunk per statement: results only ever grow at the end.
    // A chunk holds at most the answer's bound of them (always one): a result can be 4 MiB, and a
    // thousand such took a process past its heap. Those past it come without their text.
    async function* lines() {
      for (let after = 0; ; ) {
        const results = `select line, answer from bulk_result where operation_id = ? and line > ?${
          onlyFailed ? ' and failed' : ''
        } order by line limit ${RESULTS_CHUNK}`;
        const rows = await connection.execute<{ line: number; answer: string | null; kept: boolean }[]>(
          `select b.line, case when b.kept then b.answer end as answer, b.kept
            from (${measuredRows(results, 'q.answer', 'm.line')}) b order by b.line`,
          [id, after],
        );
        const kept = rows.filter((row) => row.kept);
        for (const row of kept) yield `${row.answer}\n`;
        if (rows.length < RESULTS_CHUNK && kept.length === rows.length) return;
        after = kept[kept.length - 1].line;
      }
    }
    ctx.body = Readable.from(lines());
  });

  return router;
}
