import { Field, InputType, Int } from 'type-graphql';
import { Optional } from '../optional-field.js';

@InputType({ description: 'Units of one line item' })
export class RecordItemInput {
  @Field(() => Int, { description: 'Line item id of the order' }) id!: number;
  @Field(() => Int, { description: 'Units' }) quantity!: number;
}

@InputType({ description: 'Units of one line item to fulfil, optionally from a given warehouse' })
export class FulfilmentItemInput {
  @Field(() => Int, { description: 'Line item id of the order' }) id!: number;
  @Field(() => Int, { description: 'Units, ≥ 1' }) quantity!: number;
  @Optional(() => Int, { description: 'Required when the product tracks inventory' }) warehouse?: number;
}

@InputType({ description: 'Units to send to fulfilment' })
export class FulfilmentCreate {
  @Field(() => [FulfilmentItemInput], { description: 'Line items and units' }) items!: FulfilmentItemInput[];
}

@InputType({ description: 'Absolute quantities for the listed lines; 0 removes a line; unlisted lines stay' })
export class FulfilmentPatch {
  @Optional(() => [RecordItemInput], { description: 'Absolute quantities for the listed lines' })
  items?: RecordItemInput[];
  @Optional(() => Int, { description: 'Move the fulfilment (and its stock) to another warehouse' }) warehouse?: number;
}

@InputType({ description: 'New quantities of one fulfilment' })
export class FulfilmentChange {
  @Field(() => Int, { description: 'The fulfilment' }) id!: number;
  @Field(() => [RecordItemInput], { description: 'Absolute quantities; 0 removes a line' }) items!: RecordItemInput[];
}

@InputType({ description: 'Changes to several fulfilments of one order' })
export class FulfilmentsChange {
  @Field(() => [FulfilmentChange], { description: 'The fulfilments to change' }) fulfilments!: FulfilmentChange[];
}

@InputType({ description: 'A shipment of (units of) one fulfilment' })
export class ShipmentCreate {
  @Field(() => Int, { description: 'The fulfilment to ship from' }) fulfilmentId!: number;
  @Field({ description: 'Tracking number' }) trackingNumber!: string;
  @Field(() => Int, { description: 'Carrier id' }) shippingCarrier!: number;
  @Optional(() => [RecordItemInput], { description: 'Omitted: everything the fulfilment holds unshipped' })
  items?: RecordItemInput[];
}

@InputType({ description: 'Shipments to create for one order' })
export class ShipmentsCreate {
  @Field(() => [ShipmentCreate], { description: 'The shipments' }) data!: ShipmentCreate[];
  @Field({ defaultValue: false, description: 'E-mail the customer about each shipment' }) notify!: boolean;
}

@InputType({ description: 'New tracking data of one shipment' })
export class ShipmentChange {
  @Field(() => Int, { description: 'Shipment id' }) id!: number;
  @Optional(() => String, { description: 'Tracking number' }) trackingNumber?: string;
  @Optional(() => Int, { description: 'Shipping carrier id' }) shippingCarrier?: number;
}

@InputType({ description: 'New tracking data of several shipments' })
export class ShipmentsChange {
  @Field(() => [ShipmentChange], { description: 'The shipments to change' }) data!: ShipmentChange[];
  @Field({ defaultValue: false, description: 'E-mail the customer about the change' }) notify!: boolean;
}

@InputType({ description: 'Tracking data of a shipment; omitted fields are kept' })
export class ShipmentPatchData {
  @Optional(() => String, { description: 'Tracking number' }) trackingNumber?: string;
  @Optional(() => Int, { description: 'Shipping carrier id' }) shippingCarrier?: number;
}

@InputType({ description: 'New tracking data of one shipment' })
export class ShipmentPatch {
  @Field(() => ShipmentPatchData, { description: 'Tracking data to set' }) data!: ShipmentPatchData;
  @Field({ defaultValue: false, description: 'E-mail the customer about the change' }) notify!: boolean;
}

@InputType({ description: 'Shipped units to take back into a warehouse' })
export class RestockInput {
  @Field(() => Int, { description: 'Warehouse id the units go back to' }) warehouse!: number;
  @Field(() => [RecordItemInput], { description: 'Line items and units to take back' }) items!: RecordItemInput[];
}
