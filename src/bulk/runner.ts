import { randomUUID } from 'node:crypto';
import { type EntityManager, type MikroORM, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { Counter } from 'prom-client';
import type { Principal } from '../auth/api-tokens.js';
import { isScope } from '../auth/scopes.js';
import { setBounded } from '../bounded-map.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { runPrepared } from '../db/prepared-statements.js';
import { endBulkOperation } from '../domain/bulk-operation.js';
import { asOneMutation, inTransaction } from '../domain/transaction.js';
import { BulkOperationStatus } from '../entities/bulk-operation.entity.js';
import { logger } from '../logger.js';
import { registry } from '../observability/metrics.js';
import { inSpanOf } from '../observability/tracing-state.js';
import { PeriodicTask } from '../periodic-task.js';
import { measuredRows } from '../reads/answer-bytes.js';
import { claimOperation, type Held, tokenOf } from './claims.js';
import {
  graphqlLineRun,
  internalErrorOutcome,
  type LineOutcome,
  type LineRun,
  restLineRun,
  TransientLineError,
} from './line-runs.js';
import { purgeBulkOperations } from './retention.js';
import type { BulkSettings, RunnerParts } from './runner-settings.js';

/**
 * Runs bulk operations (docs/decisions.md#bulk-writes), on every instance at once:
 *
 * - **Claiming.** A runner takes an operation with `FOR UPDATE SKIP LOCKED` and holds it by a lease
 *   (`runner`, `lease_until`) that each of its transactions renews; one whose lease ran out (its
 *   instance died) is taken over first. A token's created operations start while fewer than
 *   BULK_MAX_RUNNING of its operations are running (counted under a per-token advisory lock, so two
 *   instances cannot both start one).
 * - **Exactly once.** Lines run in file order, a few to a transaction, each in a savepoint of its
 *   own with its result: the line's effects and its result commit together or not at all, and a
 *   failing line rolls back alone. The transaction first takes the operation's row `FOR SHARE`
 *   (checking the runner still holds it and where it stands), and ends by moving its counters and
 *   lease. After a crash the next runner resumes at `processed_lines + 1`, the first line without a
 *   result; and should two runners ever apply one line, the result's primary key lets only one of
 *   them commit.
 * - **Sharing the service.** BULK_CONCURRENCY operations per instance, each one transaction at a
 *   time, and none starts while this process has interactive requests in flight (for at most
 *   YIELD_MS). The token was charged once, when the operation was made; its scopes are read again
 *   with every transaction of lines, and a revoked token fails the operation before its next line.
 * - **Retention.** Finished operations, their lines and results, and uploads never run, are
 *   deleted BULK_RETENTION_DAYS after they ended (or were uploaded).
 */

/** Lines read from the upload at a time, at most… */
const CHUNK = 500;
/**
 * … and at most this many bytes of them (always one): a line may be as large as its file, and 500
 * lines of a megabyte each, parsed at once, took a process past its heap, and the next one too. A
 * line is parsed when it runs.
 */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** The longest a transaction of lines waits for this process's interactive requests to end. */
const YIELD_MS = 100;
/** A line that meets the database's trouble this many times in a row gets that as its result. */
const TRANSIENT_ATTEMPTS = 5;
/** Operations whose last trouble is remembered (far more than run at once on a process). */
const TRANSIENT_KEPT = 256;

registry.removeSingleMetric('bulk_lines_total');
const linesApplied = new Counter({
  name: 'bulk_lines_total',
  help: 'bulk operation lines applied, by form (rest, graphql) and whether their result is a refusal or error',
  labelNames: ['form', 'failed'],
  registers: [registry],
});

/** `reread`: the lines were rewritten (an erasure) since the chunk was read. */
type BatchEnd = 'done' | 'lost' | 'retry' | 'revoked' | 'reread';

/** Lines as read a chunk ahead: their text, and the operation's `lines_version` they were read at. */
interface Line {
  line: number;
  input: string;
  version: number;
}

/** A line whose mutation threw: thrown out of the line's savepoint to roll it back, with the line's result. */
class UndoneLine extends Error {
  constructor(readonly outcome: LineOutcome) {
    super('the line was undone');
  }
}

export class BulkRunner {
  /** This process's id in `bulk_operation.runner`. */
  readonly id = randomUUID();
  private readonly settings: Required<BulkSettings>;
  private stopped = true;
  private slots: Promise<void>[] = [];
  private idlers: (() => void)[] = [];
  private readonly purge: PeriodicTask;
  /**
   * Per operation, its line that last met the database's trouble and how many times in a row: one
   * count for the process let two operations failing in turn reset each other's, forever.
   */
  private readonly transient = new Map<number, { line: number; count: number }>();

  constructor(
    private readonly orm: MikroORM,
    private readonly parts: RunnerParts,
    settings: BulkSettings,
  ) {
    this.settings = { leaseMs: 10_000, pollMs: 1000, ...settings };
    this.purge = new PeriodicTask(
      'bulk operation purge',
      async () => {
        const deleted = await purgeBulkOperations(orm, this.settings.retentionDays);
        if (deleted) logger.info({ deleted, retentionDays: this.settings.retentionDays }, 'purged bulk uploads');
        return 3_600_000;
      },
      60_000,
    );
  }

  start(): void {
    this.stopped = false;
    for (let i = 0; i < this.settings.concurrency; i++) this.slots.push(this.slot());
    this.purge.start();
  }

  /**
   * Lets each slot finish the transaction under way, then gives up its leases, so another instance
   * (or the next start) resumes those operations at once.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake();
    await Promise.all(this.slots);
    this.slots = [];
    await this.purge.stop();
    await this.orm.em
      .getConnection()
      .execute(`update bulk_operation set lease_until = now() where runner = ? and status = 'running'`, [this.id])
      .catch((error: unknown) => logger.warn({ err: error }, 'could not give up the bulk leases'));
  }

  /** An operation was made here: idle slots look for work now. */
  wake(): void {
    const idlers = this.idlers;
    this.idlers = [];
    for (const wake of idlers) wake();
  }

  private idle(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.idlers.push(done);
    });
  }

  private async slot(): Promise<void> {
    while (!this.stopped) {
      try {
        const held = await claimOperation(this.orm, this.id, this.settings);
        if (held) await this.run(held);
        else await this.idle(this.settings.pollMs);
      } catch (error) {
        logger.warn({ err: error }, 'bulk runner failed; retrying');
        await this.idle(this.settings.pollMs);
      }
    }
  }

  /** Applies the held operation's lines from the first without a result, until done, lost or stopped. */
  private async run(held: Held): Promise<void> {
    const form = held.mutation === null ? 'rest' : 'graphql';
    const lineRunOf = (mutation: string | null) =>
      mutation === null ? restLineRun(this.parts.restLines) : graphqlLineRun(this.parts.schema, mutation);
    let lineRun = lineRunOf(held.mutation);
    let processed = held.processedLines;
    const batchSize = this.settings.linesPerTransaction;
    while (!this.stopped) {
      const { principal, revoked } = await tokenOf(this.orm, held.tokenId);
      if (revoked || processed >= held.totalLines) {
        const [status, error] = revoked
          ? ([BulkOperationStatus.FAILED, 'the token that started it was revoked'] as const)
          : ([BulkOperationStatus.COMPLETED, null] as const);
        // Traced: the end is a span of the operation's trace too, as are the deliveries of the
        // `bulk_operation.finished` event it records (inTransaction keeps the trace for them).
        const attributes = { 'bulk.operation.id': held.id, 'bulk.operation.status': status };
        await inSpanOf(held.traceParent, 'bulk operation end', attributes, () =>
          inTransaction(this.orm.em.fork(), (tx) => endBulkOperation(tx, principal, held.id, this.id, status, error)),
        );
        return;
      }
      // Read with the operation's lines version in the same snapshot (see runBatch).
      const lines = await this.orm.em
        .fork()
        .getConnection()
        .execute<Line[]>(
          `select w.line, w.input, o.lines_version as version from (${measuredRows(
            'select line, input::text as input from bulk_line where upload_id = ? and line > ? order by line limit ?',
            'q.input',
            'm.line',
            CHUNK_BYTES,
          )}) w, bulk_operation o where o.id = ? and w.kept order by w.line`,
          [held.uploadId, processed, CHUNK, held.id],
        );
      if (!lines.length) throw new Error(`bulk operation ${held.id} has no line after ${processed}`);
      for (let at = 0; at < lines.length && !this.stopped; at += batchSize) {
        await this.parts.gate.idle(YIELD_MS);
        const batch = lines.slice(at, at + batchSize);
        const end = await this.runBatch(held, principal, lineRun, form, batch, processed);
        if (end === 'lost') return;
        if (end === 'revoked') break; // the loop's next look at the token ends the operation
        if (end === 'reread') {
          // An erasure rewrote the lines, and a GraphQL form's document too: both read again.
          const [{ mutation }] = await this.orm.em
            .fork()
            .getConnection()
            .execute<{ mutation: string | null }[]>('select mutation from bulk_operation where id = ?', [held.id]);
          lineRun = lineRunOf(mutation);
          break;
        }
        if (end === 'retry') {
          await this.idle(this.settings.pollMs);
          break;
        }
        processed += batch.length;
      }
    }
  }

  /**
   * One transaction of lines: all of them with their results and the counters, or none. The
   * results and counters are written by one statement at its end, in the transaction of the lines'
   * effects.
   */
  private async runBatch(
    held: Held,
    principal: Principal,
    lineRun: LineRun,
    form: 'rest' | 'graphql',
    batch: Line[],
    processed: number,
  ): Promise<BatchEnd> {
    try {
      return await this.orm.em.fork().transactional(async (tx): Promise<BatchEnd> => {
        // Held FOR SHARE to the commit: a cancel waits for these lines, a claim skips the operation.
        // The token is read in the same statement: a revoked one applies no further line, and the
        // lines run with its scopes as they are now.
        // An erasure moves the lines version under a lock this waits for: lines read before it
        // are read again, never run with the data it took out.
        const [row] = await tx.execute<
          {
            status: string;
            runner: string | null;
            processed: number;
            version: number;
            revoked: boolean | null;
            scopes: string[];
          }[]
        >(
          `select b.status, b.runner, b.processed_lines as processed, b.lines_version as version,
            t.revoked_at is not null as revoked, t.scopes
            from bulk_operation b left join api_token t on t.id = b.token_id where b.id = ? for share of b`,
          [held.id],
        );
        if (row?.status !== 'running' || row.runner !== this.id || row.processed !== processed) return 'lost';
        if (row.revoked !== false) return 'revoked';
        if (row.version !== batch[0].version) return 'reread';
        const asNow: Principal = { ...principal, scopes: new Set(row.scopes.filter(isScope)) };
        const results = { lines: [] as number[], failed: [] as boolean[], answers: [] as string[] };
        for (const { line, input } of batch) {
          const outcome = await this.runLine(tx, asNow, lineRun, form, held, line, input);
          results.lines.push(line);
          results.failed.push(outcome.failed);
          results.answers.push(JSON.stringify({ line, ...outcome.result }));
        }
        await runPrepared(
          tx,
          `with kept as (
            insert into bulk_result (operation_id, line, failed, answer)
            select ?::int, r.line, r.failed, r.answer
            from unnest(?::int[], ?::boolean[], ?::text[]) as r(line, failed, answer)
          )
          update bulk_operation set processed_lines = processed_lines + ?, failed_lines = failed_lines + ?,
            lease_until = now() + make_interval(secs => ?) where id = ?`,
          [
            held.id,
            results.lines,
            results.failed,
            results.answers,
            batch.length,
            results.failed.filter(Boolean).length,
            this.settings.leaseMs / 1000,
            held.id,
          ],
        );
        return 'done';
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException || (error as { code?: unknown }).code === '23505')
        return 'lost'; // another runner applied these lines
      if (error instanceof TransientLineError || isDatabaseUnavailable(error)) return 'retry';
      throw error;
    }
  }

  /**
   * One line in a savepoint of its own, so a line that fails rolls back alone. The line's mutation
   * joins that savepoint (asOneMutation) instead of opening one inside it: a mutation that threw
   * (refused: a single request's 4xx, or an error) rolls the line's savepoint back. A line whose run
   * throws (a bug) gets the 500 its single request would have had, its effects rolled back; the
   * database's trouble rolls the whole transaction back to be tried again (TRANSIENT_ATTEMPTS times,
   * then it is the line's result).
   *
   * Traced (only when the request that made the operation was): the line is a span of that
   * request's trace, with its statements under it, and the webhook deliveries its write queues
   * (inTransaction keeps the active trace for them). A line tried again is a span per try.
   */
  private async runLine(
    tx: EntityManager,
    principal: Principal,
    lineRun: LineRun,
    form: 'rest' | 'graphql',
    held: Held,
    line: number,
    input: string,
  ): Promise<LineOutcome> {
    const attributes = { 'bulk.operation.id': held.id, 'bulk.line': line, 'bulk.form': form };
    const outcome = await inSpanOf(held.traceParent, 'bulk line', attributes, async (span): Promise<LineOutcome> => {
      try {
        const answered = await tx
          .transactional(
            async (savepoint) => {
              const { result, mutationFailed } = await asOneMutation(savepoint, (em) =>
                lineRun(this.parts.sessionAs(principal, em), JSON.parse(input)),
              );
              if (mutationFailed) throw new UndoneLine(result);
              return result;
            },
            { clear: true },
          )
          .catch((error: unknown) => {
            if (error instanceof UndoneLine) return error.outcome;
            throw error;
          });
        const status = answered.result.status; // the REST form's
        if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
        if (typeof status === 'number' && status >= 500) span.fail(`HTTP ${status}`);
        span.setAttribute('bulk.line.failed', answered.failed);
        return answered;
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        if (error instanceof TransientLineError) {
          if (this.transientAgain(held.id, line) < TRANSIENT_ATTEMPTS) throw error;
          span.fail(error.message);
          return error.outcome;
        }
        logger.error({ err: error, operationId: held.id, line }, 'a bulk line failed unexpectedly');
        span.fail(`internal error: ${error instanceof Error ? error.message : String(error)}`);
        return internalErrorOutcome(form);
      }
    });
    linesApplied.inc({ form, failed: String(outcome.failed) });
    return outcome;
  }

  /** How many times in a row this line met the database's trouble (this one included). */
  private transientAgain(operation: number, line: number): number {
    const last = this.transient.get(operation);
    const count = last?.line === line ? last.count + 1 : 1;
    setBounded(this.transient, operation, { line, count }, TRANSIENT_KEPT);
    return count;
  }
}
