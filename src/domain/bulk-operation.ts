import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { BulkOperation, BulkOperationStatus } from '../entities/bulk-operation.entity.js';
import { BulkUpload } from '../entities/bulk-upload.entity.js';
import { activeTraceparent } from '../observability/tracing-state.js';
import { ConflictError, NotFoundError, ValidationError } from './errors.js';
import { type Actor, recordEvent } from './events.js';

/**
 * Bulk operations (docs/decisions.md#bulk-writes): what the operation itself is and how it ends.
 * Its lines are applied by src/bulk/runner.ts, each through the road its single request takes.
 */

/** Lines one operation holds at most. */
export const BULK_MAX_LINES = 1_000_000;

/**
 * The scopes that admit starting (and reading) a bulk operation: any scope some write needs. Each
 * line is then checked against the scope of its own write, as its single request is.
 */
export const BULK_SCOPES = [
  'write_orders',
  'write_customers',
  'write_products',
  'write_collections',
  'write_shipping',
  'write_inventory',
  'manage_tokens',
  'manage_webhooks',
] as const;

/** The statuses in which an operation still has lines to apply. */
export const UNFINISHED: readonly BulkOperationStatus[] = [BulkOperationStatus.CREATED, BulkOperationStatus.RUNNING];

/** The operation in its REST shape, for the `bulk_operation.finished` event (webhooks send `data` as it is). */
export function bulkOperationData(operation: BulkOperation): Record<string, unknown> {
  const seconds = (time: Date | null) => (time ? Math.floor(time.getTime() / 1000) : null);
  return {
    id: operation.id,
    status: operation.status,
    total_lines: operation.totalLines,
    processed_lines: operation.processedLines,
    failed_lines: operation.failedLines,
    error: operation.error,
    created_at: seconds(operation.createdAt),
    completed_at: seconds(operation.completedAt),
  };
}

/** One of the caller's operations, locked for the rest of the transaction; another token's is not found. */
async function lockOwn(em: EntityManager, caller: Actor, id: number): Promise<BulkOperation> {
  const operation = await em.findOne(BulkOperation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!operation || operation.tokenId !== caller.tokenId) throw new NotFoundError('BulkOperation', id);
  return operation;
}

/** Whether the operation is the caller's (reads show a caller only its own). */
export async function ownsBulkOperation(em: EntityManager, caller: Actor, id: number): Promise<boolean> {
  return (await em.count(BulkOperation, { id, tokenId: caller.tokenId })) > 0;
}

/** An operation reaches its end: completed, failed or canceled, with the event carrying its counts. */
function finish(em: EntityManager, operation: BulkOperation, actor: Actor, status: BulkOperationStatus): void {
  operation.status = status;
  operation.completedAt = now();
  operation.runner = null;
  operation.leaseUntil = null;
  const subject = { subject: 'bulk_operation', subjectId: operation.id } as const;
  recordEvent(em, actor, 'bulk_operation.finished', subject, bulkOperationData(operation));
}

/**
 * `cancelBulkOperation` / `POST /bulk-operations/{id}/cancel`. Under the operation's row lock: a line
 * under way holds that lock from its start (src/bulk/runner.ts), so the cancel waits for it and the
 * line is applied whole; no line starts after the cancel. Canceling again answers the same; a
 * completed or failed operation cannot be canceled (409).
 */
export async function cancelBulkOperation(em: EntityManager, caller: Actor, id: number): Promise<BulkOperation> {
  const operation = await lockOwn(em, caller, id);
  if (operation.status === BulkOperationStatus.CANCELED) return operation;
  if (!UNFINISHED.includes(operation.status))
    throw new ConflictError(`Bulk operation ${id} is already ${operation.status}: there is nothing to cancel`);
  finish(em, operation, caller, BulkOperationStatus.CANCELED);
  await em.flush();
  return operation;
}

/**
 * The runner's end of an operation it holds (`runner`): every line done (completed) or a reason to
 * stop (failed, with `error`). Nothing when it no longer holds it (canceled meanwhile, or taken over).
 */
export async function endBulkOperation(
  em: EntityManager,
  actor: Actor,
  id: number,
  runner: string,
  status: BulkOperationStatus.COMPLETED | BulkOperationStatus.FAILED,
  error: string | null = null,
): Promise<boolean> {
  const operation = await em.findOne(BulkOperation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!operation || operation.status !== BulkOperationStatus.RUNNING || operation.runner !== runner) return false;
  operation.error = error;
  finish(em, operation, actor, status);
  await em.flush();
  return true;
}

/**
 * `bulkOperationRunMutation(mutation, uploadId)`: an operation of the caller's upload of variables
 * (`POST /bulk-operations/uploads`), whose lines each run `mutation` (already checked as /graphql
 * checks a document, and to hold one mutation field). An upload is run once.
 */
export async function startBulkMutation(
  em: EntityManager,
  caller: Actor,
  mutation: string,
  uploadId: number,
): Promise<BulkOperation> {
  const upload = await em.findOne(BulkUpload, { id: uploadId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!upload || upload.tokenId !== caller.tokenId) {
    throw new ValidationError([{ field: 'uploadId', message: `no upload ${uploadId} of this token` }]);
  }
  if (upload.form !== 'graphql') {
    throw new ValidationError([
      { field: 'uploadId', message: `upload ${uploadId} holds REST lines, not variables (POST /bulk-operations)` },
    ]);
  }
  if ((await em.count(BulkOperation, { uploadId })) > 0)
    throw new ConflictError(`Upload ${uploadId} was run already: upload the variables again to run them again`);
  const operation = Object.assign(new BulkOperation(), {
    tokenId: caller.tokenId,
    uploadId,
    mutation,
    totalLines: upload.lines,
    // Traced (only then): its lines are spans of this request's trace (docs/operations.md#traces).
    traceParent: activeTraceparent(),
  });
  await em.persist(operation).flush();
  return operation;
}
