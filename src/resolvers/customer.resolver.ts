import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver, UseMiddleware } from 'type-graphql';
import { createCustomer, deleteCustomer, updateCustomer } from '../domain/customer-profile.js';
import { customerWhere } from '../domain/customer-search.js';
import { NotFoundError } from '../domain/errors.js';
import { findPage } from '../domain/listing.js';
import { inTransaction } from '../domain/transaction.js';
import { Customer } from '../entities/customer.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { CustomerCreate, CustomerFilter, CustomerPatch } from '../schema/inputs/customer.inputs.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';
import { inputGuard } from '../schema/input-guard.middleware.js';

export const customerSort = sortableFields('Customer', {
  id: 'id',
  email: 'email',
  firstName: 'firstName',
  lastName: 'lastName',
  notes: 'notes',
  orderCount: 'orderCount',
  lifetimeSpent: 'lifetimeSpent',
  lastPurchase: 'lastPurchase',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
});

@ObjectType()
export class CustomerPage extends PageOf(Customer) {}

@ArgsType()
export class CustomerListArgs extends PageArgs {
  @Field(() => [customerSort.SortInput], { nullable: true })
  sort?: InstanceType<typeof customerSort.SortInput>[];

  @Field(() => CustomerFilter, { nullable: true })
  filter?: CustomerFilter;
}

@Resolver(() => Customer)
@UseMiddleware(inputGuard)
export class CustomerResolver {
  @Authorized('read_customers')
  @Query(() => CustomerPage, { nullable: true, description: 'Customers, optionally filtered' })
  customers(@Args(() => CustomerListArgs) args: CustomerListArgs, @Ctx() { em }: GraphQLContext) {
    return findPage(em, Customer, customerWhere(args.filter), args, customerSort.columns);
  }

  @Authorized('read_customers')
  @Query(() => Customer, { nullable: true })
  async customer(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext) {
    const customer = await em.findOne(Customer, { id });
    if (!customer) throw new NotFoundError('Customer', id);
    return customer;
  }

  @Authorized('write_customers')
  @Mutation(() => Customer)
  createCustomer(@Arg('input', () => CustomerCreate) input: CustomerCreate, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => createCustomer(tx, principal, input));
  }

  @Authorized('write_customers')
  @Mutation(() => Customer, { description: 'Changes the given fields; `address` is merged into the primary address' })
  updateCustomer(@Arg('id', () => Int) id: number, @Arg('input', () => CustomerPatch) input: CustomerPatch, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => updateCustomer(tx, principal, id, input));
  }

  @Authorized('write_customers')
  @Mutation(() => Int, { description: 'Deletes a customer without orders; returns its id (CONFLICT while it has orders)' })
  deleteCustomer(@Arg('id', () => Int) id: number, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => deleteCustomer(tx, principal, id));
  }
}
