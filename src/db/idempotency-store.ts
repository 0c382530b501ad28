import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';

/** Which request a key belongs to: the same key from another token, method or path is another key. */
export interface KeyScope {
  tokenId: number;
  key: string;
  method: string;
  path: string;
}

/** A kept answer of a write sent with an Idempotency-Key (`src/rest/idempotency.ts` replays it). */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export type Claim =
  | { state: 'new'; holder: Holder }
  | { state: 'running' }
  | { state: 'conflict' }
  | { state: 'replay'; answer: StoredAnswer };

/** A won claim's own id: what renews, completes and releases it (a lapsed one no longer can). */
export type Holder = string;

/** Runs one SQL statement (autocommit, or inside the write's own transaction) and answers its rows. */
export type SqlRunner = (text: string, params: unknown[]) => Promise<unknown[]>;

/** Where Idempotency-Key answers are kept; the REST layer (`src/rest/idempotency.ts`) sees only this. */
export interface IdempotencyStore {
  /** How long a claim stays held without its holder renewing it. */
  leaseMs: number;
  claim(scope: KeyScope, bodyHash: string): Promise<Claim>;
  /** Extends the holder's lease (while its request runs). */
  renew(scope: KeyScope, holder: Holder): Promise<void>;
  /**
   * Keeps the answer; `sql` is the write's transaction when the answer commits with the write.
   * False when `holder` no longer holds the key (its lease lapsed and another request took it over):
   * nothing is kept, and a write in `sql` must not commit.
   */
  complete(scope: KeyScope, holder: Holder, answer: StoredAnswer, sql?: SqlRunner): Promise<boolean>;
  release(scope: KeyScope, holder: Holder): Promise<void>;
}

const TTL = "interval '24 hours'";

/**
 * Idempotency keys in PostgreSQL, shared by every server process. A claim inserts the key
 * (autocommit, outside the request's transaction) with a lease: exactly one request wins it and
 * runs, renewing the lease while it is alive; the others see it running, or find its stored
 * answer. A claim whose lease expired (its holder crashed, or lost the database) is taken over by
 * the next request with the same key and body. Each claim won has its own holder id, and only that
 * holder renews, completes or releases it: a holder still alive after its lease was taken over
 * cannot keep a second answer, and its write rolls back. The answer is written by the write's own
 * transaction (`complete` with its SQL runner), so it exists exactly when the write committed.
 * Keys older than 24 h are forgotten.
 */
export function postgresIdempotencyStore(orm: MikroORM, leaseMs: number): IdempotencyStore {
  const autocommit: SqlRunner = (text, params) => orm.em.getConnection().execute(text, params);
  const where = 'token_id = ? and key = ? and method = ? and path = ?';
  const args = (s: KeyScope) => [s.tokenId, s.key, s.method, s.path];
  const lease = `now() + make_interval(secs => ${leaseMs / 1000})`;
  return {
    leaseMs,
    async claim(scope, bodyHash) {
      await autocommit(`delete from idempotency_key where ${where} and created_at < now() - ${TTL}`, args(scope));
      const holder = randomUUID();
      const inserted = await autocommit(
        `insert into idempotency_key (token_id, key, method, path, body_hash, created_at, locked_until, holder)
          values (?, ?, ?, ?, ?, now(), ${lease}, ?)
         on conflict (token_id, key, method, path) do nothing returning id`,
        [...args(scope), bodyHash, holder],
      );
      if (inserted.length) return { state: 'new', holder };
      const taken = await autocommit(
        `update idempotency_key set locked_until = ${lease}, holder = ? where ${where} and body_hash = ?
          and status is null and (locked_until is null or locked_until < now()) returning id`,
        [holder, ...args(scope), bodyHash],
      );
      if (taken.length) return { state: 'new', holder };
      const [row] = (await autocommit(
        `select body_hash, status, response from idempotency_key where ${where}`,
        args(scope),
      )) as {
        body_hash: string;
        status: number | null;
        response: StoredAnswer | string | null;
      }[];
      if (!row) return { state: 'running' }; // released a moment ago: claim again
      if (row.body_hash !== bodyHash) return { state: 'conflict' };
      if (row.status === null || !row.response) return { state: 'running' };
      return { state: 'replay', answer: typeof row.response === 'string' ? JSON.parse(row.response) : row.response };
    },
    async renew(scope, holder) {
      await autocommit(
        `update idempotency_key set locked_until = ${lease} where ${where} and status is null and holder = ?`,
        [...args(scope), holder],
      );
    },
    async complete(scope, holder, answer, sql = autocommit) {
      const kept = await sql(
        `update idempotency_key set status = ?, response = ?::json, locked_until = null
          where ${where} and status is null and holder = ? returning id`,
        [answer.status, JSON.stringify(answer), ...args(scope), holder],
      );
      return kept.length > 0;
    },
    async release(scope, holder) {
      await autocommit(`delete from idempotency_key where ${where} and status is null and holder = ?`, [
        ...args(scope),
        holder,
      ]);
    },
  };
}
