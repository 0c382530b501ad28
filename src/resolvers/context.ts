import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/api-tokens.js';
import type { CarriedTokenCheck } from '../auth/carried-token-check.js';
import type { RateLimitState } from '../auth/rate-limit.js';
import type { FieldError } from '../domain/errors.js';
import type { Loaders } from './loaders.js';

/** What every resolver gets: a request-scoped EntityManager, the caller, and batching loaders. */
export interface GraphQLContext {
  em: EntityManager;
  principal: Principal;
  loaders: Loaders;
  /** The caller's bucket after the request's charge, when limits are on (for the `RateLimit-*` headers). */
  limit?: RateLimitState;
  /**
   * A `/graphql` read's token check while it rides on the read (src/auth/carried-token-check.ts):
   * `principal` is then the caller as last seen, and the answer waits for the check.
   */
  check?: CarriedTokenCheck;
  /** The hash of the caller's secret: this process's lease on their bucket is kept by it (src/auth/rate-limit.ts). */
  secretHash?: string;
  /** Over WebSocket only: wakes live subscriptions when events commit on any instance (src/db/event-wakeups.ts). */
  feedWakeups?: { wait(ms: number, signal?: AbortSignal): Promise<void> };
  /**
   * Set only by the gateway for a REST write: the REST edge has already held every argument to the
   * input limits and refused null where a field may only be left out, so the input guard does not
   * run them again (docs/architecture.md#each-check-once). No `/graphql` request can set it.
   */
  inputChecked?: boolean;
  /**
   * Given to `/graphql` requests only (src/app.ts): what `bulkOperationRunMutation` needs from the
   * layers above the resolvers. A REST operation or a bulk line has none, so no bulk line starts one.
   */
  bulkMutations?: BulkMutationService;
}

/** The checks and wake-up of `bulkOperationRunMutation` (docs/decisions.md#bulk-writes). */
export interface BulkMutationService {
  /**
   * The problems of a line's mutation, as /graphql refuses a document (nesting, parse, validation,
   * depth and complexity) and because a line runs one mutation field that is no bulk operation's:
   * none when it may run.
   */
  check(source: string): FieldError[];
  /** An operation was created: the runners of this process look for work now. */
  started(): void;
}
