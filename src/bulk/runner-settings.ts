import type { EntityManager } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/api-tokens.js';
import type { RestLines } from '../rest/bulk-lines.js';
import type { InteractiveGate } from './interactive-gate.js';
import type { LineSession } from './line-runs.js';

/*
 * What a bulk runner (src/bulk/runner.ts) is made with: the settings the environment gives it and
 * the parts of the app it runs lines through. Kept apart so the app's wiring (bulk-operations.ts)
 * and the claiming code read them without the runner itself.
 */

export interface BulkSettings {
  /** BULK_CONCURRENCY: operations this instance runs at once; 0 runs none here. */
  concurrency: number;
  /** BULK_MAX_RUNNING: operations one token may have running at once, over all instances. */
  maxRunning: number;
  /** BULK_RETENTION_DAYS: how long finished operations and their results are kept. */
  retentionDays: number;
  /** How long a runner's hold lasts without renewal; a dead runner's operation resumes after it. */
  leaseMs?: number;
  /** How often an idle runner looks for work (this process's own new operations wake it at once). */
  pollMs?: number;
  /** BULK_LINES_PER_TRANSACTION: lines per transaction, each in a savepoint of its own. */
  linesPerTransaction: number;
}

/** What the runner runs lines with: the schema, the REST route table and sessions as a given token. */
export interface RunnerParts {
  schema: GraphQLSchema;
  restLines: RestLines;
  /** Operations as `principal` on `em` (the runner's transaction), charging and checking nothing. */
  sessionAs(principal: Principal, em: EntityManager): LineSession;
  gate: InteractiveGate;
}
