import type { GraphQLResolveInfo } from 'graphql';
import {
  Arg,
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  Info,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
  UseMiddleware,
} from 'type-graphql';
import { eraseCustomer } from '../domain/customer-erasure.js';
import { createCustomer, deleteCustomer, updateCustomer } from '../domain/customer-profile.js';
import { customerWhere } from '../domain/customer-search.js';
import { metafieldCondition } from '../domain/metafield-search.js';
import type { ExpectedVersion } from '../domain/preconditions.js';
import { inTransaction } from '../domain/transaction.js';
import { Customer, type CustomerFilter, customerList } from '../entities/customer.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { ExpectedVersionArg } from '../schema/expected-version.arg.js';
import { CustomerCreate, CustomerPatch } from '../schema/inputs/customer.inputs.js';
import { KeysetPageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of customers' })
export class CustomerPage extends PageOf(Customer) {}

@ArgsType()
export class CustomerListArgs extends KeysetPageArgs {
  @Field(() => [customerList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default id descending)',
  })
  sort?: InstanceType<typeof customerList.SortInput>[];

  @Field(() => customerList.FilterInput, { nullable: true, description: 'Only customers matching every given filter' })
  filter?: CustomerFilter;
}

@Resolver(() => Customer)
@UseMiddleware(inputGuard)
export class CustomerResolver {
  @Authorized('read_customers')
  @Query(() => CustomerPage, { nullable: true, description: 'Customers, optionally filtered' })
  async customers(
    @Args(() => CustomerListArgs) args: CustomerListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Only a metafields filter reads their definitions first (a statement of its own).
    const metafields = await metafieldCondition(em, MetafieldOwnerType.CUSTOMER, args.filter?.metafields);
    const where = customerWhere(args.filter, metafields);
    return readPage(em, 'Customer', selectionOf(info), where, args, customerList.columns);
  }

  @Authorized('read_customers')
  @Query(() => Customer, {
    nullable: true,
    description: 'One customer by id; a missing one is null with a NOT_FOUND error',
  })
  customer(
    @Arg('id', () => Int, { description: 'Customer id' }) id: number,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readRecord(em, info, 'Customer', id);
  }

  @Authorized('write_customers')
  @Mutation(() => Customer, { description: 'Creates a customer' })
  async createCustomer(
    @Arg('input', () => CustomerCreate, { description: 'The new customer' }) input: CustomerCreate,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => createCustomer(tx, principal, input));
    return readRecord(em, info, 'Customer', result.id);
  }

  @Authorized('write_customers')
  @Mutation(() => Customer, { description: 'Changes the given fields; `address` is merged into the primary address' })
  async updateCustomer(
    @Arg('id', () => Int, { description: 'Customer id' }) id: number,
    @Arg('input', () => CustomerPatch, { description: 'Fields to change' }) input: CustomerPatch,
    @ExpectedVersionArg('customer') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => updateCustomer(tx, principal, id, input, expectedVersion));
    return readRecord(em, info, 'Customer', result.id);
  }

  @Authorized('write_customers')
  @Mutation(() => Customer, {
    description:
      "Erases a customer's personal data on request (GDPR art. 17), orders or not: names, e-mail, addresses, " +
      'phones, card digits and notes, on the customer and on every order of theirs (with the IP and conversion ' +
      'data), in stored events, unsent webhook deliveries and e-mails too. Order lines, amounts and statuses stay. ' +
      'Erasing again changes nothing and answers the same; an erased customer cannot be updated (CONFLICT)',
  })
  async eraseCustomer(
    @Arg('id', () => Int, { description: 'Customer id' }) id: number,
    @ExpectedVersionArg('customer') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => eraseCustomer(tx, principal, id, expectedVersion));
    return readRecord(em, info, 'Customer', result.id);
  }

  @Authorized('write_customers')
  @Mutation(() => Int, {
    description: 'Deletes a customer without orders; returns its id (CONFLICT while it has orders)',
  })
  deleteCustomer(
    @Arg('id', () => Int, { description: 'Customer id' }) id: number,
    @ExpectedVersionArg('customer') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => deleteCustomer(tx, principal, id, expectedVersion));
  }
}
