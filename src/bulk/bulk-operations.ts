import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/api-tokens.js';
import { type Config, loadConfig } from '../config.js';
import { bulkMutationProblems } from '../graphql/bulk-mutation.js';
import type { BulkMutationService } from '../resolvers/context.js';
import { RestLines } from '../rest/bulk-lines.js';
import type { RestOptions } from '../rest/router.js';
import { bulkRouter } from './bulk-http.js';
import { InteractiveGate } from './interactive-gate.js';
import type { LineSession } from './line-runs.js';
import { BulkRunner } from './runner.js';
import type { BulkSettings } from './runner-settings.js';

/** BULK_CONCURRENCY, BULK_MAX_RUNNING, BULK_RETENTION_DAYS, BULK_UPLOAD_MAX_BYTES and the runner's tuning. */
export type BulkOptions = Partial<BulkSettings> & { uploadMaxBytes?: number };

/** The bulk settings of a configuration (src/config.ts holds each one's default, once). */
export const bulkOptionsOf = (config: Config): Required<Omit<BulkOptions, 'leaseMs' | 'pollMs'>> => ({
  concurrency: config.BULK_CONCURRENCY,
  maxRunning: config.BULK_MAX_RUNNING,
  retentionDays: config.BULK_RETENTION_DAYS,
  uploadMaxBytes: config.BULK_UPLOAD_MAX_BYTES,
  linesPerTransaction: config.BULK_LINES_PER_TRANSACTION,
});

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
  // An app built without options (a test's) runs with every setting at its default.
  const { uploadMaxBytes, ...settings } = { ...bulkOptionsOf(loadConfig({})), ...parts.options };
  const gate = new InteractiveGate();
  const restLines = new RestLines(parts.rest);
  const runner = new BulkRunner(
    parts.orm,
    { schema: parts.schema, restLines, sessionAs: parts.sessionAs, gate },
    settings,
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
