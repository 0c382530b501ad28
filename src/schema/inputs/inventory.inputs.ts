import { Field, InputType, Int } from 'type-graphql';

@InputType({ description: 'One change of an inventory adjustment: the units of a variant in a warehouse, by a delta' })
export class InventoryChange {
  @Field(() => Int, { description: 'Product variant id' }) variantId!: number;
  @Field(() => Int, { description: 'Warehouse id' }) warehouseId!: number;
  @Field(() => Int, { description: 'Units to add (positive) or take (negative); not 0' }) delta!: number;
  @Field(() => Int, {
    nullable: true,
    description:
      'The units the caller believes are there now: when the level holds any other number, nothing ' +
      'changes (PRECONDITION_FAILED naming the units now). Null or left out: no check',
  })
  changeFromQuantity?: number | null;
}
