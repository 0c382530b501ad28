import { FieldResolver, Resolver, Root } from 'type-graphql';
import { InventoryMovement } from '../entities/inventory-movement.entity.js';
import { Projects } from '../reads/field-reads.js';
import { projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';
import { ACTOR, EventActor } from './event.resolver.js';

@Resolver(() => InventoryMovement)
export class InventoryMovementFieldsResolver {
  @Projects(ACTOR)
  @FieldResolver(() => EventActor, {
    nullable: true,
    description: 'The token that made the change; null for the service itself (the starting levels)',
  })
  actor(@Root() movement: ReadRow<InventoryMovement>): EventActor | null {
    return projectRow(movement, ACTOR);
  }
}
