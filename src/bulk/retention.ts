import type { MikroORM } from '@mikro-orm/postgresql';

/*
 * The "Retention" of src/bulk/runner.ts: what BULK_RETENTION_DAYS no longer keeps, deleted by the
 * runner's periodic purge (and by tests, directly).
 */

/**
 * Deletes what BULK_RETENTION_DAYS no longer keeps: uploads whose operation ended before the
 * cut-off, and uploads made before it that were never run; their lines, operation and results go
 * with them (foreign keys, on delete cascade). A few uploads per statement.
 */
export async function purgeBulkOperations(orm: MikroORM, days: number, at: Date = new Date()): Promise<number> {
  const cutoff = new Date(at.getTime() - days * 86_400_000);
  let total = 0;
  for (;;) {
    const rows = await orm.em.getConnection().execute<{ n: number }[]>(
      `with doomed as (
          select u.id from bulk_upload u left join bulk_operation o on o.upload_id = u.id
          where (o.id is null and u.created_at < ?) or o.completed_at < ?
          order by u.id limit 10
        ),
        deleted as (delete from bulk_upload where id in (select id from doomed) returning 1)
      select count(*)::int as n from deleted`,
      [cutoff, cutoff],
    );
    total += rows[0].n;
    if (rows[0].n < 10) return total;
  }
}
