import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import { ApiTokenResolver } from '../resolvers/api-token.resolver.js';
import { EventFieldsResolver, EventResolver, OrderEventsFieldResolver } from '../resolvers/event.resolver.js';
import { WebhookDeliveryFieldsResolver, WebhookResolver, WebhookSubscriptionFieldsResolver } from '../resolvers/webhook.resolver.js';
import { CustomerFieldsResolver } from '../resolvers/customer-fields.resolver.js';
import { CustomerResolver } from '../resolvers/customer.resolver.js';
import { FulfilmentFieldsResolver, RestockFieldsResolver, ShipmentFieldsResolver } from '../resolvers/fulfilment-record-fields.resolver.js';
import { LineItemFieldsResolver } from '../resolvers/line-item-fields.resolver.js';
import { OrderFieldsResolver } from '../resolvers/order-fields.resolver.js';
import { OrderResolver } from '../resolvers/order.resolver.js';
import { FulfilmentResolver } from '../resolvers/fulfilment.resolver.js';
import { InventoryResolver } from '../resolvers/inventory.resolver.js';
import { ShipmentResolver } from '../resolvers/shipment.resolver.js';
import { CollectionFieldsResolver } from '../resolvers/collection-fields.resolver.js';
import { CollectionResolver } from '../resolvers/collection.resolver.js';
import { ImageResolver } from '../resolvers/image.resolver.js';
import { OptionFieldsResolver, ThumbnailFieldsResolver } from '../resolvers/option-fields.resolver.js';
import { ProductFieldsResolver } from '../resolvers/product-fields.resolver.js';
import { ProductResolver } from '../resolvers/product.resolver.js';
import { ShippingCarrierResolver } from '../resolvers/shipping-carrier.resolver.js';
import { VariantFieldsResolver } from '../resolvers/variant-fields.resolver.js';
import { InventoryLevelFieldsResolver, WarehouseFieldsResolver } from '../resolvers/warehouse-fields.resolver.js';
import { WarehouseResolver } from '../resolvers/warehouse.resolver.js';
import { authChecker } from './auth-checker.js';
import { inputGuard } from './input-guard.middleware.js';
import { restoreInheritedExtensions } from './inherited-extensions.js';

export const resolvers = [
  ProductResolver, ProductFieldsResolver, VariantFieldsResolver, OptionFieldsResolver, ThumbnailFieldsResolver,
  CollectionResolver, CollectionFieldsResolver,
  ImageResolver,
  ShippingCarrierResolver,
  CustomerResolver, CustomerFieldsResolver,
  FulfilmentResolver, ShipmentResolver, InventoryResolver,
  OrderResolver, OrderFieldsResolver, LineItemFieldsResolver, FulfilmentFieldsResolver, ShipmentFieldsResolver, RestockFieldsResolver,
  WarehouseResolver, WarehouseFieldsResolver, InventoryLevelFieldsResolver,
  ApiTokenResolver,
  EventResolver, EventFieldsResolver, OrderEventsFieldResolver,
  WebhookResolver, WebhookSubscriptionFieldsResolver, WebhookDeliveryFieldsResolver,
] as const;

/**
 * The one schema: served at /graphql and executed in-process by the REST layer.
 *
 * The input guard is put on the root resolver classes (`@UseMiddleware(inputGuard)`), not given
 * as a global middleware: type-graphql wraps every field of every type in the global middlewares,
 * which turned each scalar of each row into a chain of promises (measurable CPU on every list).
 * Without it, plain fields resolve synchronously. The check below keeps every root operation guarded.
 */
export async function buildStoreSchema(): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: resolvers as unknown as [Function, ...Function[]],
    authChecker,
    validate: { forbidUnknownValues: false },
  });
  const storage = getMetadataStorage();
  const unguarded = [...storage.queries, ...storage.mutations].filter((def) => !def.middlewares?.includes(inputGuard));
  if (unguarded.length) throw new Error(`root operations without @UseMiddleware(inputGuard): ${unguarded.map((d) => d.schemaName).join(', ')}`);
  describeRootOperations(schema);
  restoreInheritedExtensions(schema);
  return schema;
}

/**
 * The root types get their descriptions here (type-graphql has no place to write them), and every
 * root field's description names the scope its `@Authorized` asks for, taken from the same metadata
 * the auth checker runs on, so the reference cannot promise another scope than the one enforced.
 */
function describeRootOperations(schema: GraphQLSchema) {
  const storage = getMetadataStorage();
  const query = schema.getQueryType()!;
  const mutation = schema.getMutationType()!;
  query.description = 'Reads. Every request needs a bearer token; each field names the scope it needs.';
  mutation.description = 'Writes, each in one transaction. Every request needs a bearer token; each field names the scope it needs.';
  for (const [type, defs] of [[query, storage.queries], [mutation, storage.mutations]] as const) {
    for (const def of defs) {
      const scopes = storage.authorizedFields.find((a) => a.target === def.target && a.fieldName === def.methodName)?.roles ?? [];
      const field = type.getFields()[def.schemaName];
      if (!field || !scopes.length || field.description?.includes('Scope:')) continue;
      const text = field.description?.replace(/\.$/, '');
      field.description = `${text ? `${text}. ` : ''}Scope: ${scopes.map((s) => `\`${s}\``).join(' or ')}.`;
    }
  }
}
