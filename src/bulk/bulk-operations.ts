import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/api-tokens.js';
import { bulkMutationProblems } from '../graphql/bulk-mutation.js';
import type { BulkMutationService } from '../resolvers/context.js';
import { RestLines } from '../rest/bulk-lines.js';
import type { RestOptions } from '../rest/router.js';
import { bulkRouter } from './bulk-http.js';
import { InteractiveGate } from './interactive-gate.js';
import type { LineSession } from './line-runs.js';
import { BulkRunner } from './runner.js';
import { type BulkSettings, DEFAULT_BULK_SETTINGS } from './runner-settings.js';

/** BULK_CONCURRENCY, BULK_MAX_RUNNING, BULK_RETENTION_DAYS, BULK_UPLOAD_MAX_BYTES and the runner's tuning. */
export type BulkOptions = Partial<BulkSettings> & { uploadMaxBytes?: number };

export const DEFAULT_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

/**
 * Bulk operations as the app mounts them (docs/decisions.md#bulk-writes): the NDJSON routes, the
 * runner of this process, the gate by which it yields to interactive requests, and what
 * `bulkOperationRunMutation` is given over /graphql.
 */
export function createBulkOperations(parts: {
  orm: MikroORM;
  schema: GraphQLSchema;
  rest: RestOptions;
  sessionAs(principal: Principal, em: EntityManager): LineSession;
  options?: BulkOptions;
}) {
  const { uploadMaxBytes = DEFAULT_UPLOAD_MAX_BYTES, ...settings } = parts.options ?? {};
  const gate = new InteractiveGate();
  const restLines = new RestLines(parts.rest);
  const runner = new BulkRunner(
    parts.orm,
    { schema: parts.schema, restLines, sessionAs: parts.sessionAs, gate },
    { ...DEFAULT_BULK_SETTINGS, ...settings },
  );
  const started = () => runner.wake();
  const router = bulkRouter({
    rest: parts.rest,
    restLines,
    orm: parts.orm,
    limits: { maxBytes: uploadMaxBytes },
    started,
  });
  const mutations: BulkMutationService = {
    check: (source) => bulkMutationProblems(parts.schema, source),
    started,
  };
  return { gate, router, runner, mutations };
}
