import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * A line's result, written in the transaction of the line's effects (src/bulk/runner.ts): the line
 * of `GET /bulk-operations/{id}/results` as its JSON text. Its primary key is the exactly-once
 * guard: a line applied twice cannot commit twice.
 */
@Entity()
export class BulkResult {
  @PrimaryKey({ type: 'integer' })
  operationId!: number;

  @PrimaryKey({ type: 'integer' })
  line!: number;

  /** A refusal or an error: a REST status of 400 or more, or GraphQL errors. */
  @Property({ type: 'boolean' })
  failed!: boolean;

  @Property({ type: 'text' })
  answer!: string;
}
