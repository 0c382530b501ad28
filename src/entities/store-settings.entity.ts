import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** The store's single settings row (id 1): display prefixes for order numbers. */
@Entity()
export class StoreSettings {
  @PrimaryKey({ type: 'integer', autoincrement: false })
  id: number = 1;

  @Property({ type: 'text', default: '' })
  orderNumberPrefix: string = '';

  @Property({ type: 'text', default: '' })
  orderNumberSuffix: string = '';
}
