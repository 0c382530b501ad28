// A race test's rendezvous: a request known to wait for a row another connection holds.
import type { TestService } from './harness.js';
import { until } from './until.js';

/** Resolves once `count` statements of the service's database wait for a lock. */
export const lockWaits = (service: TestService, count = 1) =>
  until(async () => {
    const [{ n }] = await service.sql<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    return n >= count;
  }, 10_000);
