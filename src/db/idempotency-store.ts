import type { MikroORM } from '@mikro-orm/postgresql';
import type { IdempotencyStore, KeyScope, StoredAnswer } from '../rest/idempotency.js';

const TTL = "interval '24 hours'";

/**
 * Idempotency keys in PostgreSQL, shared by every server process. A claim inserts the key
 * (autocommit, outside the request's transaction): exactly one request wins it and runs; the
 * others see it running, or find its stored answer. Keys older than 24 h are forgotten.
 */
export function postgresIdempotencyStore(orm: MikroORM): IdempotencyStore {
  const sql = <T>(text: string, params: unknown[]) => orm.em.getConnection().execute(text, params) as Promise<T>;
  const where = 'token_id = ? and key = ? and method = ? and path = ?';
  const args = (s: KeyScope) => [s.tokenId, s.key, s.method, s.path];
  return {
    async claim(scope, bodyHash) {
      await sql(`delete from idempotency_key where ${where} and created_at < now() - ${TTL}`, args(scope));
      const inserted = await sql<{ id: number }[]>(
        `insert into idempotency_key (token_id, key, method, path, body_hash, created_at) values (?, ?, ?, ?, ?, now())
         on conflict (token_id, key, method, path) do nothing returning id`,
        [...args(scope), bodyHash],
      );
      if (inserted.length) return { state: 'new' };
      const [row] = await sql<{ body_hash: string; status: number | null; response: StoredAnswer | null }[]>(
        `select body_hash, status, response from idempotency_key where ${where}`,
        args(scope),
      );
      if (!row) return { state: 'running' }; // released a moment ago: claim again
      if (row.body_hash !== bodyHash) return { state: 'conflict' };
      if (row.status === null || !row.response) return { state: 'running' };
      return { state: 'replay', answer: row.response };
    },
    async complete(scope, answer) {
      await sql(`update idempotency_key set status = ?, response = ? where ${where}`, [answer.status, JSON.stringify(answer), ...args(scope)]);
    },
    async release(scope) {
      await sql(`delete from idempotency_key where ${where} and status is null`, args(scope));
    },
  };
}
