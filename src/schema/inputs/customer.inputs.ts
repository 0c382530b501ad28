import { Field, InputType, Int } from 'type-graphql';
import { IntFilter } from './range-filters.js';

/** Text filters are lists: any of the strings, each matched case-insensitively as a substring. */
@InputType({ description: 'Address fields to match; all given ones must match the same address' })
export class AddressBlockFilter {
  @Field(() => [String], { nullable: true }) firstName?: string[];
  @Field(() => [String], { nullable: true }) lastName?: string[];
  @Field(() => [String], { nullable: true }) company?: string[];
  @Field(() => [String], { nullable: true }) street?: string[];
  @Field(() => [String], { nullable: true }) suite?: string[];
  @Field(() => [String], { nullable: true }) city?: string[];
  @Field(() => [String], { nullable: true }) country?: string[];
  @Field(() => [String], { nullable: true }) state?: string[];
  @Field(() => [String], { nullable: true }) zip?: string[];
}

@InputType({ description: 'Customer search: strings match any of the given substrings, case-insensitively' })
export class CustomerFilter {
  @Field(() => [String], { nullable: true }) email?: string[];
  @Field(() => [String], { nullable: true }) firstName?: string[];
  @Field(() => [String], { nullable: true }) lastName?: string[];
  @Field(() => [String], { nullable: true }) notes?: string[];
  @Field(() => [String], { nullable: true, description: "phone of one of the customer's addresses" }) phone?: string[];
  @Field(() => AddressBlockFilter, { nullable: true }) shipping?: AddressBlockFilter;
  @Field(() => AddressBlockFilter, { nullable: true }) billing?: AddressBlockFilter;
  @Field(() => [String], { nullable: true, description: 'shipping country of one of the addresses' }) shippingCountry?: string[];
  @Field(() => [Int], { nullable: true, description: 'customers having any of these orders' }) orders?: number[];
  @Field(() => IntFilter, { nullable: true }) orderCount?: IntFilter;
}

@InputType({ description: 'Fields of an address block to set; omitted ones are kept, null clears' })
export class AddressBlockPatch {
  @Field(() => String, { nullable: true }) firstName?: string | null;
  @Field(() => String, { nullable: true }) lastName?: string | null;
  @Field(() => String, { nullable: true }) company?: string | null;
  @Field(() => String, { nullable: true }) street?: string | null;
  @Field(() => String, { nullable: true }) suite?: string | null;
  @Field(() => String, { nullable: true }) city?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2' }) country?: string | null;
  @Field(() => String, { nullable: true, description: 'subdivision part of ISO 3166-2 (CA for US-CA)' }) state?: string | null;
  @Field(() => String, { nullable: true }) zip?: string | null;
}

@InputType()
export class CustomerAddressPatch {
  @Field(() => AddressBlockPatch, { nullable: true }) shipping?: AddressBlockPatch;
  @Field(() => AddressBlockPatch, { nullable: true }) billing?: AddressBlockPatch;
  @Field(() => String, { nullable: true }) phone?: string | null;
}

@InputType({ description: 'Customer fields to change; omitted ones are kept' })
export class CustomerPatch {
  @Field(() => String, { nullable: true }) email?: string;
  @Field(() => String, { nullable: true }) firstName?: string;
  @Field(() => String, { nullable: true }) lastName?: string;
  @Field(() => String, { nullable: true, description: 'null clears' }) notes?: string | null;
  @Field(() => CustomerAddressPatch, { nullable: true, description: 'merged into the primary address (created if none)' })
  address?: CustomerAddressPatch;
}

@InputType()
export class CustomerCreate {
  @Field() email!: string;
  @Field(() => String, { nullable: true }) firstName?: string;
  @Field(() => String, { nullable: true }) lastName?: string;
  @Field(() => String, { nullable: true }) notes?: string | null;
  @Field(() => CustomerAddressPatch, { nullable: true }) address?: CustomerAddressPatch;
}
