import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { CustomerAddress } from './customer-address.entity.js';
import { CustomerPaymentMethod } from './customer-payment-method.entity.js';

/**
 * A customer. `orderCount`, `lifetimeSpent` and `lastPurchase` are derived from the customer's
 * orders and kept in columns by the same transaction that changes an order, so lists can sort and
 * filter on them in SQL. E-mail is unique case-insensitively (index in the migration).
 */
@Entity()
@Index({ properties: ['lastName'] })
export class Customer {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'text' })
  email!: string;

  @Property({ type: 'text', default: '' })
  firstName: string = '';

  @Property({ type: 'text', default: '' })
  lastName: string = '';

  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  @Property({ type: 'integer', default: 0 })
  orderCount: number = 0;

  @Property({ type: 'decimal', precision: 14, scale: 2, default: 0 })
  lifetimeSpent: string = '0.00';

  @Property({ type: 'timestamptz', nullable: true })
  lastPurchase: Date | null = null;

  @Property({ type: 'timestamptz', onCreate: () => new Date() })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @Property({ type: 'integer', version: true })
  version!: number;

  @OneToMany({ entity: () => CustomerAddress, mappedBy: 'customer', orderBy: { position: 'asc', id: 'asc' } })
  addresses = new Collection<Rel<CustomerAddress>>(this);

  @OneToMany({ entity: () => CustomerPaymentMethod, mappedBy: 'customer', orderBy: { id: 'asc' } })
  paymentMethods = new Collection<Rel<CustomerPaymentMethod>>(this);
}
