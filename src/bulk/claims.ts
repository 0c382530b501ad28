import type { MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/api-tokens.js';
import { isScope } from '../auth/scopes.js';
import { SQL_NOW } from '../clock.js';
import type { BulkSettings } from './runner-settings.js';

/*
 * How a runner takes an operation to run and whom it runs as (the "Claiming" of src/bulk/runner.ts):
 * the claim under `FOR UPDATE SKIP LOCKED` and the per-token advisory lock, and the operation's
 * token read again for each chunk of lines.
 */

/** An operation as its runner holds it. */
export interface Held {
  id: number;
  tokenId: number;
  uploadId: number;
  mutation: string | null;
  totalLines: number;
  processedLines: number;
  /** The `traceparent` of the request that made it, when traced: its lines are spans of that trace. */
  traceParent: string | null;
}

/** The first of two advisory-lock keys: per-token claims (the second is the token's id). */
const CLAIM_LOCK = 0x42554c4b;

/**
 * The next operation for this runner, now held by it: one whose runner's lease ran out first, else
 * the oldest created one of a token below BULK_MAX_RUNNING, each token's in the order they were
 * made. Undefined when there is none.
 */
export async function claimOperation(
  orm: MikroORM,
  runner: string,
  settings: Pick<Required<BulkSettings>, 'maxRunning' | 'leaseMs'>,
): Promise<Held | undefined> {
  return orm.em.fork().transactional(async (tx) => {
    // A token at its limit has no created operation among the candidates: however many it has
    // waiting, they never stand in front of another token's (the count is taken again below, under
    // the token's lock, for claims racing this one). Of a token below it, only its oldest waiting
    // operation is one: its operations run in the order they were made, even while two claims
    // race (one holding the oldest row skips the next; the other does not see past it).
    const candidates = await tx.execute<{ id: number; token_id: number; status: string }[]>(
      `with full_tokens as (select token_id from bulk_operation where status = 'running'
          group by token_id having count(*) >= ?)
      select id, token_id, status from bulk_operation b
        where (status = 'created' and token_id not in (select token_id from full_tokens)
            and id = (select min(w.id) from bulk_operation w where w.token_id = b.token_id and w.status = 'created'))
          or (status = 'running' and lease_until < now())
        order by status = 'running' desc, id limit 20 for update skip locked`,
      [settings.maxRunning],
    );
    for (const candidate of candidates) {
      if (candidate.status === 'created') {
        // Another instance claiming for this token now: leave it to that one (never wait: no deadlock).
        const [{ locked }] = await tx.execute<{ locked: boolean }[]>(
          'select pg_try_advisory_xact_lock(?, ?) as locked',
          [CLAIM_LOCK, candidate.token_id],
        );
        if (!locked) continue;
        const [{ running }] = await tx.execute<{ running: number }[]>(
          `select count(*)::int as running from bulk_operation where token_id = ? and status = 'running'`,
          [candidate.token_id],
        );
        if (running >= settings.maxRunning) continue;
      }
      const [held] = await tx.execute<Held[]>(
        `update bulk_operation set status = 'running', runner = ?, lease_until = now() + make_interval(secs => ?),
          started_at = coalesce(started_at, ${SQL_NOW})
        where id = ? returning id, token_id as "tokenId", upload_id as "uploadId", mutation,
          total_lines as "totalLines", processed_lines as "processedLines", trace_parent as "traceParent"`,
        [runner, settings.leaseMs / 1000, candidate.id],
      );
      return held;
    }
    return undefined;
  });
}

/** The operation's token as it is now (scopes included), and whether it was revoked. */
export async function tokenOf(orm: MikroORM, tokenId: number): Promise<{ principal: Principal; revoked: boolean }> {
  const [row] = await orm.em
    .fork()
    .getConnection()
    .execute<{ id: number; name: string; scopes: string[]; revoked: boolean }[]>(
      'select id, name, scopes, revoked_at is not null as revoked from api_token where id = ?',
      [tokenId],
    );
  const principal = { tokenId, name: row?.name ?? '', scopes: new Set((row?.scopes ?? []).filter(isScope)) };
  return { principal, revoked: !row || row.revoked };
}
