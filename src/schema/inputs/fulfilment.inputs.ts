import { Field, InputType, Int } from 'type-graphql';

@InputType({ description: 'Units of one line item' })
export class RecordItemInput {
  @Field(() => Int, { description: 'line item id of the order' }) id!: number;
  @Field(() => Int) quantity!: number;
}

@InputType()
export class FulfilmentItemInput {
  @Field(() => Int, { description: 'line item id of the order' }) id!: number;
  @Field(() => Int) quantity!: number;
  @Field(() => Int, { nullable: true, description: 'required when the product tracks inventory' }) warehouse?: number;
}

@InputType()
export class FulfilmentCreate {
  @Field(() => [FulfilmentItemInput]) items!: FulfilmentItemInput[];
}

@InputType({ description: 'Absolute quantities for the listed lines; 0 removes a line; unlisted lines stay' })
export class FulfilmentPatch {
  @Field(() => [RecordItemInput], { nullable: true }) items?: RecordItemInput[];
  @Field(() => Int, { nullable: true, description: 'move the fulfilment (and its stock) to another warehouse' }) warehouse?: number;
}

@InputType()
export class FulfilmentChange {
  @Field(() => Int, { description: 'the fulfilment' }) id!: number;
  @Field(() => [RecordItemInput]) items!: RecordItemInput[];
}

@InputType()
export class FulfilmentsChange {
  @Field(() => [FulfilmentChange]) fulfilments!: FulfilmentChange[];
}

@InputType()
export class ShipmentCreate {
  @Field(() => Int) fulfilmentId!: number;
  @Field() trackingNumber!: string;
  @Field(() => Int, { description: 'carrier id' }) shippingCarrier!: number;
  @Field(() => [RecordItemInput], { nullable: true, description: 'omitted: everything the fulfilment holds unshipped' }) items?: RecordItemInput[];
}

@InputType()
export class ShipmentsCreate {
  @Field(() => [ShipmentCreate]) data!: ShipmentCreate[];
  @Field({ defaultValue: false, description: 'e-mail the customer about each shipment' }) notify!: boolean;
}

@InputType()
export class ShipmentChange {
  @Field(() => Int) id!: number;
  @Field(() => String, { nullable: true }) trackingNumber?: string;
  @Field(() => Int, { nullable: true }) shippingCarrier?: number;
}

@InputType()
export class ShipmentsChange {
  @Field(() => [ShipmentChange]) data!: ShipmentChange[];
  @Field({ defaultValue: false }) notify!: boolean;
}

@InputType()
export class ShipmentPatchData {
  @Field(() => String, { nullable: true }) trackingNumber?: string;
  @Field(() => Int, { nullable: true }) shippingCarrier?: number;
}

@InputType()
export class ShipmentPatch {
  @Field(() => ShipmentPatchData) data!: ShipmentPatchData;
  @Field({ defaultValue: false }) notify!: boolean;
}

@InputType({ description: 'Shipped units to take back into a warehouse' })
export class RestockInput {
  @Field(() => Int) warehouse!: number;
  @Field(() => [RecordItemInput]) items!: RecordItemInput[];
}
