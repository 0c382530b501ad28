import { AsyncLocalStorage } from 'node:async_hooks';
import { PreconditionFailedError } from './errors.js';

/** A client's `If-Match` for one record: the write goes ahead only while its ETag is one of these. */
export interface Precondition {
  entity: 'Order' | 'Customer' | 'Product' | 'Collection';
  id: number;
  etags: string[] | '*';
}

const current = new AsyncLocalStorage<Precondition | undefined>();

/** Runs one operation under the caller's precondition (set by the REST edge from `If-Match`). */
export function withPrecondition<T>(precondition: Precondition | undefined, work: () => Promise<T>): Promise<T> {
  return current.run(precondition, work);
}

/** The strong ETag of a record version; `fields`/`expand` never change it. */
export const etagOf = (version: number) => `"v${version}"`;

/**
 * Called by a use case right after it locked the record, inside its transaction: a stale ETag
 * refuses the write (412) before anything changed, so two editors cannot overwrite each other.
 */
export function checkPrecondition(entity: Precondition['entity'], id: number, version: number): void {
  const precondition = current.getStore();
  if (!precondition || precondition.entity !== entity || precondition.id !== id || precondition.etags === '*') return;
  if (!precondition.etags.includes(etagOf(version))) {
    throw new PreconditionFailedError(`${entity} ${id} has changed since it was read (its ETag is now ${etagOf(version)}); read it again before writing`);
  }
}
