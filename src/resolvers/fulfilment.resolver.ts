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
import { NotFoundError } from '../domain/errors.js';
import { createFulfilment, deleteFulfilment, updateFulfilment, updateFulfilments } from '../domain/fulfilment.js';
import type { ExpectedVersion } from '../domain/preconditions.js';
import { restockOrderItems } from '../domain/restock.js';
import { inTransaction } from '../domain/transaction.js';
import { Fulfilment, fulfilmentList } from '../entities/fulfilment.entity.js';
import { Order } from '../entities/order.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { ExpectedVersionArg } from '../schema/expected-version.arg.js';
import {
  FulfilmentCreate,
  FulfilmentPatch,
  FulfilmentsChange,
  RestockInput,
} from '../schema/inputs/fulfilment.inputs.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of fulfilments' })
export class FulfilmentPage extends PageOf(Fulfilment) {}

@ArgsType()
export class FulfilmentListArgs extends PageArgs {
  @Field(() => Int, { description: 'Order id' }) orderId!: number;

  @Field(() => [fulfilmentList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties',
  })
  sort?: InstanceType<typeof fulfilmentList.SortInput>[];
}

/** Fulfilments and restocks of an order. Every write locks the order and answers the whole order. */
@Resolver(() => Fulfilment)
@UseMiddleware(inputGuard)
export class FulfilmentResolver {
  @Authorized('read_orders')
  @Query(() => FulfilmentPage, { nullable: true, description: 'The fulfilments of one order' })
  async orderFulfilments(
    @Args(() => FulfilmentListArgs) args: FulfilmentListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    if (!(await em.count(Order, { id: args.orderId }))) throw new NotFoundError('Order', args.orderId);
    return readPage(em, 'Fulfilment', selectionOf(info), { order: args.orderId }, args, fulfilmentList.columns);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Sends units to fulfilment (stock of tracked products drops)' })
  async createFulfilment(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('input', () => FulfilmentCreate, { description: 'Line items and quantities to fulfil' })
    input: FulfilmentCreate,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => createFulfilment(tx, principal, orderId, input, expectedVersion));
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Sets absolute quantities of several fulfilments' })
  async updateFulfilments(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('input', () => FulfilmentsChange, { description: 'The fulfilments to change' }) input: FulfilmentsChange,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) =>
      updateFulfilments(tx, principal, orderId, input.fulfilments, expectedVersion),
    );
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, {
    description: 'Sets absolute quantities of one fulfilment and/or moves it to another warehouse',
  })
  async updateFulfilment(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('fulfilmentId', () => Int, { description: 'Fulfilment id' }) fulfilmentId: number,
    @Arg('input', () => FulfilmentPatch, { description: 'Quantities and/or warehouse to set' }) input: FulfilmentPatch,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) =>
      updateFulfilment(tx, principal, orderId, fulfilmentId, input, expectedVersion),
    );
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Unmarks a fulfilment without shipments; its stock returns' })
  async deleteFulfilment(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('fulfilmentId', () => Int, { description: 'Fulfilment id' }) fulfilmentId: number,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) =>
      deleteFulfilment(tx, principal, orderId, fulfilmentId, expectedVersion),
    );
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Takes shipped units back into a warehouse' })
  async restockOrderItems(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('input', () => RestockInput, { description: 'The warehouse and the units to take back' }) input: RestockInput,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => restockOrderItems(tx, principal, orderId, input, expectedVersion));
    return readRecord(em, info, 'Order', result.id);
  }
}
