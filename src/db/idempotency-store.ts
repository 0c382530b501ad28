import type { MikroORM } from '@mikro-orm/postgresql';
import type { IdempotencyStore, KeyScope, SqlRunner, StoredAnswer } from '../rest/idempotency.js';

const TTL = "interval '24 hours'";

/**
 * Idempotency keys in PostgreSQL, shared by every server process. A claim inserts the key
 * (autocommit, outside the request's transaction) with a lease: exactly one request wins it and
 * runs, renewing the lease while it is alive; the others see it running, or find its stored
 * answer. A claim whose lease expired (its holder crashed, or lost the database) is taken over by
 * the next request with the same key and body. The answer is written by the write's own
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
      const inserted = (await autocommit(
        `insert into idempotency_key (token_id, key, method, path, body_hash, created_at, locked_until) values (?, ?, ?, ?, ?, now(), ${lease})
         on conflict (token_id, key, method, path) do nothing returning id`,
        [...args(scope), bodyHash],
      )) as unknown[];
      if (inserted.length) return { state: 'new' };
      const taken = (await autocommit(
        `update idempotency_key set locked_until = ${lease} where ${where} and body_hash = ? and status is null and (locked_until is null or locked_until < now()) returning id`,
        [...args(scope), bodyHash],
      )) as unknown[];
      if (taken.length) return { state: 'new' };
      const [row] = (await autocommit(`select body_hash, status, response from idempotency_key where ${where}`, args(scope))) as {
        body_hash: string;
        status: number | null;
        response: StoredAnswer | string | null;
      }[];
      if (!row) return { state: 'running' }; // released a moment ago: claim again
      if (row.body_hash !== bodyHash) return { state: 'conflict' };
      if (row.status === null || !row.response) return { state: 'running' };
      return { state: 'replay', answer: typeof row.response === 'string' ? JSON.parse(row.response) : row.response };
    },
    async renew(scope) {
      await autocommit(`update idempotency_key set locked_until = ${lease} where ${where} and status is null`, args(scope));
    },
    async complete(scope, answer, sql = autocommit) {
      await sql(`update idempotency_key set status = ?, response = ?::json, locked_until = null where ${where}`, [answer.status, JSON.stringify(answer), ...args(scope)]);
    },
    async release(scope) {
      await autocommit(`delete from idempotency_key where ${where} and status is null`, args(scope));
    },
  };
}
