import { Embeddable, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';

/** The address block shared by customers' profiles and orders (shipping and billing alike). */
@ObjectType({ description: 'A postal address block' })
@Embeddable()
export class PostalAddress {
  @Field(() => String, { nullable: true, description: 'First name' })
  @Property({ type: 'text', nullable: true })
  firstName: string | null = null;

  @Field(() => String, { nullable: true, description: 'Last name' })
  @Property({ type: 'text', nullable: true })
  lastName: string | null = null;

  @Field(() => String, { nullable: true, description: 'Company' })
  @Property({ type: 'text', nullable: true })
  company: string | null = null;

  @Field(() => String, { nullable: true, description: 'Street and number' })
  @Property({ type: 'text', nullable: true })
  street: string | null = null;

  @Field(() => String, { nullable: true, description: 'Suite, floor or apartment' })
  @Property({ type: 'text', nullable: true })
  suite: string | null = null;

  @Field(() => String, { nullable: true, description: 'City' })
  @Property({ type: 'text', nullable: true })
  city: string | null = null;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country code' })
  @Property({ type: 'string', columnType: 'varchar(2)', nullable: true })
  country: string | null = null;

  @Field(() => String, { nullable: true, description: 'Subdivision part of an ISO 3166-2 code' })
  @Property({ type: 'string', columnType: 'varchar(3)', nullable: true })
  state: string | null = null;

  @Field(() => String, { nullable: true, description: 'Postal code' })
  @Property({ type: 'text', nullable: true })
  zip: string | null = null;
}
