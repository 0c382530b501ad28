import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** One line of an upload, as it was sent (checked to be a JSON object of its form). */
@Entity()
export class BulkLine {
  @PrimaryKey({ type: 'integer' })
  uploadId!: number;

  /** 1 for the first line of the file. */
  @PrimaryKey({ type: 'integer' })
  line!: number;

  @Property({ type: 'json' })
  input!: Record<string, unknown>;
}
