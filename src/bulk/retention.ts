import type { MikroORM } from '@mikro-orm/postgresql';

/*
 * The "Retention" of src/bulk/runner.ts: what BULK_RETENTION_DAYS no longer keeps, deleted by the
 * runner's periodic purge (and by tests, directly).
 */

/** Rows one statement deletes at most: each statement ends well within the read statement timeout. */
const SLICE = 10_000;

/**
 * Deletes what BULK_RETENTION_DAYS no longer keeps: uploads whose operation ended before the
 * cut-off, and uploads made before it that were never run, with their lines, operation and
 * results. One upload at a time, oldest first, its results and lines in slices of SLICE rows
 * before the upload itself (whose operation goes with it, on delete cascade): ten uploads of a
 * million lines in one statement ran past the statement timeout, and the next purge tried the same
 * ten again, so nothing was ever purged.
 */
export async function purgeBulkOperations(orm: MikroORM, days: number, at: Date = new Date()): Promise<number> {
  const cutoff = new Date(at.getTime() - days * 86_400_000);
  const connection = orm.em.getConnection();
  let total = 0;
  for (;;) {
    const [doomed] = await connection.execute<{ upload: number; operation: number | null }[]>(
      `select u.id as upload, o.id as operation from bulk_upload u left join bulk_operation o on o.upload_id = u.id
        where (o.id is null and u.created_at < ?) or o.completed_at < ? order by u.id limit 1`,
      [cutoff, cutoff],
    );
    if (!doomed) return total;
    // (table, key column, id): an upload never run has no operation, so no results.
    const slices = [
      ['bulk_result', 'operation_id', doomed.operation],
      ['bulk_line', 'upload_id', doomed.upload],
    ] as const;
    for (const [table, key, id] of slices) {
      if (id === null) continue;
      const slice = `with gone as (delete from ${table} where (${key}, line) in
        (select ${key}, line from ${table} where ${key} = ? limit ${SLICE}) returning 1)
        select count(*)::int as n from gone`;
      while ((await connection.execute<{ n: number }[]>(slice, [id]))[0].n === SLICE);
    }
    await connection.execute('delete from bulk_upload where id = ?', [doomed.upload]);
    total++;
  }
}
