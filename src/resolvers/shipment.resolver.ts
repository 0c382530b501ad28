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
import type { ExpectedVersion } from '../domain/preconditions.js';
import { createShipments, deleteShipment, updateShipments } from '../domain/shipment.js';
import { inTransaction } from '../domain/transaction.js';
import { Order } from '../entities/order.entity.js';
import { Shipment, shipmentList } from '../entities/shipment.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { ExpectedVersionArg } from '../schema/expected-version.arg.js';
import { ShipmentPatch, ShipmentsChange, ShipmentsCreate } from '../schema/inputs/fulfilment.inputs.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of shipments' })
export class ShipmentPage extends PageOf(Shipment) {}

@ArgsType()
export class ShipmentListArgs extends PageArgs {
  @Field(() => Int, { description: 'Order id' }) orderId!: number;

  @Field(() => [shipmentList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties',
  })
  sort?: InstanceType<typeof shipmentList.SortInput>[];
}

/** Shipments of an order. Every write locks the order and answers the whole order. */
@Resolver(() => Shipment)
@UseMiddleware(inputGuard)
export class ShipmentResolver {
  @Authorized('read_orders')
  @Query(() => ShipmentPage, { nullable: true, description: 'The shipments of one order' })
  async orderShipments(
    @Args(() => ShipmentListArgs) args: ShipmentListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    if (!(await em.count(Order, { id: args.orderId }))) throw new NotFoundError('Order', args.orderId);
    return readPage(em, 'Shipment', selectionOf(info), { order: args.orderId }, args, shipmentList.columns);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Ships units of existing fulfilments; notify e-mails the customer' })
  async createShipments(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('input', () => ShipmentsCreate, { description: 'The shipments to create' }) input: ShipmentsCreate,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) =>
      createShipments(tx, principal, orderId, input.data, input.notify, expectedVersion),
    );
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Changes tracking numbers and/or carriers of several shipments' })
  async updateShipments(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('input', () => ShipmentsChange, { description: 'The shipments to change' }) input: ShipmentsChange,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) =>
      updateShipments(tx, principal, orderId, input.data, input.notify, expectedVersion),
    );
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Changes the tracking number and/or carrier of one shipment' })
  async updateShipment(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('shipmentId', () => Int, { description: 'Shipment id' }) shipmentId: number,
    @Arg('input', () => ShipmentPatch, { description: 'Tracking data to set' }) input: ShipmentPatch,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) =>
      updateShipments(
        tx,
        principal,
        orderId,
        [{ id: shipmentId, ...input.data }],
        input.notify,
        expectedVersion,
        shipmentId,
      ),
    );
    return readRecord(em, info, 'Order', result.id);
  }

  @Authorized('write_orders')
  @Mutation(() => Order, { description: 'Unmarks a shipment; its units return to fulfilled' })
  async deleteShipment(
    @Arg('orderId', () => Int, { description: 'Order id' }) orderId: number,
    @Arg('shipmentId', () => Int, { description: 'Shipment id' }) shipmentId: number,
    @ExpectedVersionArg('order') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => deleteShipment(tx, principal, orderId, shipmentId, expectedVersion));
    return readRecord(em, info, 'Order', result.id);
  }
}
