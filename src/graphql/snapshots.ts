import type { MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import { CompiledQuery, type Kysely } from 'kysely';
import { graphqlOperations } from '../observability/metrics.js';
import type { AnswerLines } from '../reads/read-query.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import { linesFromPostgres } from './answer-passthrough.js';
import type { compiledExecutor } from './compiled-execution.js';
import { formatted, type OperationRequest, type OperationResult, type OperationRun } from './operation-run.js';
import type { PreparedDocuments } from './prepared-documents.js';
import type { Rendering } from './rendering.js';
import type { ReplicaRouter } from './replica-routing.js';

/** Operations reading one consistent state of the store (see `Session.snapshot`). */
export interface Snapshot {
  run(request: Omit<OperationRequest, 'beforeCommit'>): Promise<OperationResult>;
  /**
   * A page operation sorted by id, its items as lines of JSON PostgreSQL writes with `rendering`'s
   * keys (answer-passthrough.ts), or its errors; undefined when the rendering asks for what only
   * execution gives: `run` answers it then.
   */
  lines(
    request: Omit<OperationRequest, 'beforeCommit' | 'inputChecked'>,
    rendering: Rendering,
  ): Promise<AnswerLines | OperationResult | undefined>;
  /** Ends the transaction and gives its connection back; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Snapshots of the store for a request's context (see `Session.snapshot`), at most half the pool
 * open at once.
 */
export function createSnapshots(
  orm: MikroORM,
  [compiled, schema]: [ReturnType<typeof compiledExecutor>, GraphQLSchema],
  router: ReplicaRouter,
  run: OperationRun,
  prepared: PreparedDocuments,
) {
  // Snapshots (exports) hold a pooled connection each for as long as their client reads: at most
  // half the pool, so the other requests always have connections.
  const SNAPSHOTS_MAX = Math.max(1, Math.floor((orm.config.get('pool')?.max ?? 10) / 2));
  let snapshotsOpen = 0;

  /**
   * A snapshot transaction on a connection of its own, on a fork of its own (of the primary's or a
   * replica's EntityManager: a REPEATABLE READ READ ONLY transaction runs on a hot standby too).
   * Its fork is not routed (replica-routing.ts), so its operations run where the snapshot is. Each
   * operation gets fresh loaders and an empty identity map, so a long export keeps nothing of
   * earlier pages.
   *
   * The connection is Kysely's single-connection scope rather than MikroORM's `begin`: that scope
   * gives the connection back to the pool however the work ends, while a transaction whose ROLLBACK
   * fails (the backend was terminated, the database restarted) would keep its pooled client checked
   * out for good. A dead client given back is dropped by the pool.
   */
  async function snapshot(context: GraphQLContext): Promise<Snapshot | undefined> {
    if (snapshotsOpen >= SNAPSHOTS_MAX) return undefined;
    snapshotsOpen++;
    try {
      // On a read replica when the request's reads may go to one, as a query's do; one that cannot
      // be opened there is opened on the primary (replica-routing.ts routed). A replica that goes
      // away mid-export cuts the export (no complete line, so the client can tell), as a primary
      // restart would.
      return await router.routed(
        context,
        true,
        (on) => openSnapshot(context, on.em),
        () => undefined,
      );
    } catch (error) {
      snapshotsOpen--;
      throw error;
    }
  }

  async function openSnapshot(context: GraphQLContext, on: GraphQLContext['em']): Promise<Snapshot> {
    const em = on.fork();
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let opened!: (connection: Kysely<unknown>) => void;
    const open = new Promise<Kysely<unknown>>((resolve) => (opened = resolve));
    const held = (em.getConnection().getClient() as Kysely<unknown>).connection().execute(async (connection) => {
      // An export reads its next chunk only once its client took the last: a slow, steady reader
      // leaves the snapshot idle in its transaction longer than the pool's bound (60 s), which
      // PostgreSQL ended mid-export. Its stall cut (open-exports.ts) bounds a reader that stops.
      await connection.executeQuery(
        CompiledQuery.raw(
          'begin isolation level repeatable read read only; set local idle_in_transaction_session_timeout = 0',
        ),
      );
      opened(connection);
      await finished;
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    });
    const ended = held.then(() => Promise.reject(new Error('snapshot ended before it began')));
    const connection = await Promise.race([open, ended]);
    em.setTransactionContext(connection as never);
    let closed = false;
    return {
      run: (request) => {
        em.clear();
        return run({ ...context, em, loaders: new Loaders(em) }, request);
      },
      lines: async (request, rendering) => {
        const entry = prepared(request.document);
        if (!('document' in entry)) return run(context, request); // its validation errors
        graphqlOperations.inc({ type: entry.operation, via: 'rest' });
        em.clear();
        const own = { ...context, em, loaders: new Loaders(em) };
        const answer = await linesFromPostgres([compiled, schema, entry.document, own, request.variables], rendering);
        return !answer || 'parts' in answer ? answer : formatted(answer);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        finish();
        // A failed ROLLBACK means the connection is gone: nothing of the snapshot outlives it.
        await held.catch(() => undefined);
        snapshotsOpen--;
      },
    };
  }

  return snapshot;
}
