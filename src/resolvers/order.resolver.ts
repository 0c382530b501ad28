import { Max, Min } from 'class-validator';
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
import { metafieldCondition } from '../domain/metafield-search.js';
import { changeOrderCustomer, updateOrderAddress, updateOrderNotes } from '../domain/order-edit.js';
import { PLAIN_NUMBERS } from '../domain/order-number.js';
import { pageOfOrder } from '../domain/order-page.js';
import { placeOrder } from '../domain/order-placement.js';
import { orderWhere } from '../domain/order-search.js';
import type { ExpectedVersion } from '../domain/preconditions.js';
import { inTransaction } from '../domain/transaction.js';
import { Order, type OrderFilter, orderList } from '../entities/order.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { ExpectedVersionArg } from '../schema/expected-version.arg.js';
import { OrderAddressPatch, OrderCreate, OrderCustomerChange, OrderPatch } from '../schema/inputs/order.inputs.js';
import { DEFAULT_PAGE_SIZE, KeysetPageArgs, MAX_PAGE_SIZE, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';
import { requestOrderNumberFormat } from './order-number-format.js';

@ObjectType({ description: 'A page of orders' })
export class OrderPage extends PageOf(Order) {}

@ArgsType()
export class OrderListArgs extends KeysetPageArgs {
  @Field(() => [orderList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default id descending)',
  })
  sort?: InstanceType<typeof orderList.SortInput>[];

  @Field(() => orderList.FilterInput, { nullable: true, description: 'Only orders matching every given filter' })
  filter?: OrderFilter;
}

@ArgsType()
export class OrderPageArgs {
  @Field(() => Int, { description: 'Order id' })
  id!: number;

  @Field(() => Int, { defaultValue: DEFAULT_PAGE_SIZE, description: 'Page size, 1..250' })
  @Min(1, { message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  size: number = DEFAULT_PAGE_SIZE;

  @Field(() => [orderList.SortInput], { nullable: true, description: "The list's sort terms" })
  sort?: InstanceType<typeof orderList.SortInput>[];
}

@Resolver(() => Order)
@UseMiddleware(inputGuard)
export class OrderResolver {
  @Authorized('read_orders')
  @Query(() => OrderPage, { nullable: true, description: 'Orders, optionally filtered' })
  async orders(
    @Args(() => OrderListArgs) args: OrderListArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Only a display-number filter needs the store's number format (a statement of its own).
    const format = args.filter?.displayNumber ? await requestOrderNumberFormat(ctx) : PLAIN_NUMBERS;
    // Only a metafields filter reads their definitions first (a statement of its own).
    const metafields = await metafieldCondition(ctx.em, MetafieldOwnerType.ORDER, args.filter?.metafields);
    const where = orderWhere(args.filter, format, metafields);
    return readPage(ctx.em, 'Order', selectionOf(info), where, args, orderList.columns);
  }

  @Authorized('read_orders')
  @Query(() => Order, { nullable: true, description: 'One order by id; a missing one is null with a NOT_FOUND error' })
  order(
    @Arg('id', () => Int, { description: 'Order id (the order number)' }) id: number,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readRecord(em, info, 'Order', id);
  }

  @Authorized('read_orders')
  @Query(() => Int, {
    nullable: true,
    description: 'The page on which the order lies in the list with this sort and size',
  })
  orderPage(@Args(() => OrderPageArgs) args: OrderPageArgs, @Ctx() { em }: GraphQLContext) {
    return pageOfOrder(em, args.id, args.size, args.sort, orderList.columns);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Places an order (line items snapshot the products; status starts at 0)' })
  async createOrder(
    @Arg('input', () => OrderCreate, { description: 'The new order' }) input: OrderCreate,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const order = await inTransaction(em, (tx) => placeOrder(tx, principal, input));
    return readRecord(em, info, 'Order', order.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Edits the notes of an order' })
  async updateOrder(
    @Arg('id', () => Int, { description: 'Order id' }) id: number,
    @Arg('input', () => OrderPatch, { description: 'Fields to change' }) input: OrderPatch,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const order = await inTransaction(em, (tx) => updateOrderNotes(tx, principal, id, input, expectedVersion));
    return readRecord(em, info, 'Order', order.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: "Merges shipping/billing fields into the order's address" })
  async updateOrderAddress(
    @Arg('id', () => Int, { description: 'Order id' }) id: number,
    @Arg('input', () => OrderAddressPatch, { description: 'Address parts to change' }) input: OrderAddressPatch,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const order = await inTransaction(em, (tx) => updateOrderAddress(tx, principal, id, input, expectedVersion));
    return readRecord(em, info, 'Order', order.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, {
    description: "Moves the order to another customer, copying that customer's primary address",
  })
  async changeOrderCustomer(
    @Arg('id', () => Int, { description: 'Order id' }) id: number,
    @Arg('input', () => OrderCustomerChange, { description: 'The new customer' }) input: OrderCustomerChange,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const order = await inTransaction(em, (tx) => changeOrderCustomer(tx, principal, id, input.id, expectedVersion));
    return readRecord(em, info, 'Order', order.id);
  }
}
