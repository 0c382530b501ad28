import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * Exact row counts of the big tables without scanning them: statement triggers, on the tables
 * that migration big_store_indexes_and_row_counts lists, add one row `(table, +n / −n)` per
 * INSERT, COPY or DELETE, and fold a table's rows into one when they pile up. The count is the
 * sum of a table's deltas, MVCC-exact for the reader's snapshot, and writers never wait on one
 * another (no single counter row).
 * Read by `countQuery` (src/domain/listing.ts) for unfiltered lists.
 */
@Entity({ tableName: 'row_count' })
@Index({ properties: ['tableName'] })
export class RowCount {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @Property({ type: 'text' })
  tableName!: string;

  @Property({ type: 'bigint' })
  delta!: string;
}
