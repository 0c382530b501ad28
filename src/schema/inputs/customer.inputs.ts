import { Field, InputType } from 'type-graphql';
import { Optional } from '../optional-field.js';
import { MetafieldsPatch } from './metafield.inputs.js';

/** Text filters are lists: any of the strings, each matched case-insensitively as a substring. */
@InputType({ description: 'Address fields to match; all given ones must match the same address' })
export class AddressBlockFilter {
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the first name' })
  firstName?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the last name' })
  lastName?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the company' }) company?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the street' }) street?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the suite' }) suite?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the city' }) city?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the country' }) country?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the state' }) state?: string[];
  @Field(() => [String], { nullable: true, description: 'Any of these substrings of the postal code' }) zip?: string[];
}

@InputType({ description: 'Fields of an address block to set; omitted ones are kept, null clears' })
export class AddressBlockPatch {
  @Field(() => String, { nullable: true, description: 'First name' }) firstName?: string | null;
  @Field(() => String, { nullable: true, description: 'Last name' }) lastName?: string | null;
  @Field(() => String, { nullable: true, description: 'Company' }) company?: string | null;
  @Field(() => String, { nullable: true, description: 'Street and number' }) street?: string | null;
  @Field(() => String, { nullable: true, description: 'Suite, floor or apartment' }) suite?: string | null;
  @Field(() => String, { nullable: true, description: 'City' }) city?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2' }) country?: string | null;
  @Field(() => String, { nullable: true, description: 'Subdivision part of ISO 3166-2 (CA for US-CA)' }) state?:
    | string
    | null;
  @Field(() => String, { nullable: true, description: 'Postal code' }) zip?: string | null;
}

@InputType({ description: "A customer's primary address to set; omitted parts are kept" })
export class CustomerAddressPatch {
  @Optional(() => AddressBlockPatch, { description: 'Shipping address block' }) shipping?: AddressBlockPatch;
  @Optional(() => AddressBlockPatch, { description: 'Billing address block' }) billing?: AddressBlockPatch;
  @Field(() => String, { nullable: true, description: 'Phone number; null clears' }) phone?: string | null;
}

@InputType({ description: 'Customer fields to change; omitted ones are kept' })
export class CustomerPatch {
  @Optional(() => String, { description: 'E-mail address, unique in the store' }) email?: string;
  @Optional(() => String, { description: 'First name' }) firstName?: string;
  @Optional(() => String, { description: 'Last name' }) lastName?: string;
  @Field(() => String, { nullable: true, description: 'Null clears' }) notes?: string | null;
  @Optional(() => CustomerAddressPatch, { description: 'Merged into the primary address (created if none)' })
  address?: CustomerAddressPatch;
  @MetafieldsPatch() metafields?: Record<string, unknown>;
}

@InputType({ description: 'A new customer' })
export class CustomerCreate {
  @Field({ description: 'E-mail address, unique in the store' }) email!: string;
  @Field(() => String, { nullable: true, description: 'First name' }) firstName?: string;
  @Field(() => String, { nullable: true, description: 'Last name' }) lastName?: string;
  @Field(() => String, { nullable: true, description: 'Merchant notes' }) notes?: string | null;
  @Field(() => CustomerAddressPatch, { nullable: true, description: 'Primary address' }) address?: CustomerAddressPatch;
}
