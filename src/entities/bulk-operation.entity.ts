import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

/** Where a bulk operation stands (docs/decisions.md#bulk-writes); REST shows the lower-case value. */
export enum BulkOperationStatus {
  CREATED = 'created',
  RUNNING = 'running',
  COMPLETED = 'completed',
  FAILED = 'failed',
  CANCELED = 'canceled',
}
registerEnumType(BulkOperationStatus, {
  name: 'BulkOperationStatus',
  description: 'Where a bulk operation stands (REST: the value in lower case)',
  valuesConfig: {
    CREATED: { description: 'Waiting to run (behind BULK_MAX_RUNNING operations of its token, or a free runner)' },
    RUNNING: { description: 'Lines are being applied, in file order' },
    COMPLETED: { description: 'Every line has its result (failed lines included)' },
    FAILED: { description: 'Stopped before its last line, for the reason in `error` (its token was revoked)' },
    CANCELED: { description: 'Canceled: no line started after the cancel; the lines before it keep their results' },
  },
});

/**
 * A bulk operation (docs/decisions.md#bulk-writes): the lines of one upload, applied in file order,
 * each exactly once, by whichever instance holds its lease (src/bulk/runner.ts). Its counters move in
 * the transaction of each line's effects and result, so they always agree with what was applied.
 */
@ObjectType({
  description:
    'A file of writes run in the background, line by line in file order, each exactly once; its results are ' +
    'GET /api/v1/bulk-operations/{id}/results (NDJSON, in input order)',
})
@Entity()
@Index({ name: 'bulk_operation_token_id_id_index', properties: ['tokenId', 'id'] })
@Index({ name: 'bulk_operation_completed_at_index', properties: ['completedAt'] })
@Index({
  name: 'bulk_operation_unfinished_index',
  expression:
    `create index "bulk_operation_unfinished_index" on "bulk_operation" ("id") ` +
    `where "status" in ('created', 'running')`,
})
@Index({
  name: 'bulk_operation_waiting_index',
  expression:
    `create index "bulk_operation_waiting_index" on "bulk_operation" ("token_id", "id") ` +
    `where "status" = 'created'`,
})
export class BulkOperation {
  @Field(() => Int, { description: 'Bulk operation id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The token that started it: its scopes apply to every line, and only it sees the operation. */
  @Property({ type: 'integer' })
  tokenId!: number;

  /** The upload whose lines it runs. */
  @Property({ type: 'integer', unique: 'bulk_operation_upload_id_unique' })
  uploadId!: number;

  /** The GraphQL form's mutation, run once per line with its variables; null for REST lines. */
  @Property({ type: 'text', nullable: true })
  mutation: string | null = null;

  @Field(() => BulkOperationStatus, { description: 'Where it stands: created, running, completed, failed or canceled' })
  @Property({ type: 'text', default: BulkOperationStatus.CREATED })
  status: BulkOperationStatus = BulkOperationStatus.CREATED;

  @Field(() => Int, { description: 'Lines in the file' })
  @Property({ type: 'integer' })
  totalLines!: number;

  @Field(() => Int, { description: 'Lines applied so far, each with its result (the failed ones included)' })
  @Property({ type: 'integer', default: 0 })
  processedLines: number = 0;

  /** Moved when its lines are rewritten (an erasure): a runner reads them again (src/bulk/runner.ts). */
  @Property({ type: 'integer', default: 0 })
  linesVersion: number = 0;

  @Field(() => Int, {
    description: 'Lines whose result is a refusal or an error (REST: a status of 400 or more; GraphQL: errors)',
  })
  @Property({ type: 'integer', default: 0 })
  failedLines: number = 0;

  @Field(() => String, { nullable: true, description: 'Why it failed (status failed); null otherwise' })
  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  /** The instance running it (a random id per process start), while its lease lasts. */
  @Property({ type: 'text', nullable: true })
  runner: string | null = null;

  /** Until when the runner holds it; one past this is taken over by another instance. */
  @Property({ type: 'timestamptz', nullable: true })
  leaseUntil: Date | null = null;

  @Field(() => TimestampScalar, { description: 'When it was created (its file uploaded)' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Property({ type: 'timestamptz', nullable: true })
  startedAt: Date | null = null;

  @Field(() => TimestampScalar, {
    nullable: true,
    description: 'When it completed, failed or was canceled; null while it is created or running',
  })
  @Property({ type: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  /**
   * The W3C `traceparent` of the request that made it, when that request was traced
   * (docs/operations.md#traces): each of its lines is a span of that trace (src/bulk/runner.ts).
   */
  @Property({ type: 'text', nullable: true })
  traceParent: string | null = null;
}

/** What a list of bulk operations sorts by (src/schema/list-fields.ts). */
export const bulkOperationList = listFields(BulkOperation, {
  id: { sort: true },
  createdAt: { sort: true },
});
