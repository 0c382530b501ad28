// Every entity, listed explicitly so that src and dist never discover twice
// (docs/choices.md#toolchain-facts-the-code-relies-on).
import { ApiToken } from './api-token.entity.js';
import { Collection } from './collection.entity.js';
import { CollectionImage } from './collection-image.entity.js';
import { CollectionProduct } from './collection-product.entity.js';
import { CollectionRule } from './collection-rule.entity.js';
import { Customer } from './customer.entity.js';
import { CustomerAddress } from './customer-address.entity.js';
import { CustomerPaymentMethod } from './customer-payment-method.entity.js';
import { Fulfilment } from './fulfilment.entity.js';
import { FulfilmentItem } from './fulfilment-item.entity.js';
import { IdempotencyKey } from './idempotency-key.entity.js';
import { Image } from './image.entity.js';
import { InventoryLevel } from './inventory-level.entity.js';
import { LineItem } from './line-item.entity.js';
import { OptionThumbnail } from './option-thumbnail.entity.js';
import { Order } from './order.entity.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { PostalAddress } from './postal-address.embeddable.js';
import { Product } from './product.entity.js';
import { ProductImage } from './product-image.entity.js';
import { ProductOption } from './product-option.entity.js';
import { ProductTextarea } from './product-textarea.entity.js';
import { ProductVariant } from './product-variant.entity.js';
import { RateLimitBucket } from './rate-limit-bucket.entity.js';
import { Restock } from './restock.entity.js';
import { RestockItem } from './restock-item.entity.js';
import { RowCount } from './row-count.entity.js';
import { Shipment } from './shipment.entity.js';
import { ShipmentItem } from './shipment-item.entity.js';
import { ShippingCarrier } from './shipping-carrier.entity.js';
import { StoreEvent } from './store-event.entity.js';
import { StoreSettings } from './store-settings.entity.js';
import { TextareaPreset } from './textarea-preset.entity.js';
import { VariantImage } from './variant-image.entity.js';
import { Warehouse } from './warehouse.entity.js';
import { WebhookAttempt } from './webhook-attempt.entity.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookSubscription } from './webhook-subscription.entity.js';

export const entities = [
  ApiToken, Collection, CollectionImage, CollectionProduct, CollectionRule, Customer, CustomerAddress,
  CustomerPaymentMethod, Fulfilment, FulfilmentItem, IdempotencyKey, Image, InventoryLevel, LineItem, OptionThumbnail,
  Order, OutboxMessage, PostalAddress, Product, ProductImage, ProductOption, ProductTextarea,
  ProductVariant, RateLimitBucket, Restock, RestockItem, RowCount, Shipment, ShipmentItem, ShippingCarrier, StoreEvent, StoreSettings,
  TextareaPreset, VariantImage, Warehouse, WebhookAttempt, WebhookDelivery, WebhookSubscription,
];

export {
  ApiToken, Collection, CollectionImage, CollectionProduct, CollectionRule, Customer, CustomerAddress,
  CustomerPaymentMethod, Fulfilment, FulfilmentItem, IdempotencyKey, Image, InventoryLevel, LineItem, OptionThumbnail,
  Order, OutboxMessage, PostalAddress, Product, ProductImage, ProductOption, ProductTextarea,
  ProductVariant, RateLimitBucket, Restock, RestockItem, RowCount, Shipment, ShipmentItem, ShippingCarrier, StoreEvent, StoreSettings,
  TextareaPreset, VariantImage, Warehouse, WebhookAttempt, WebhookDelivery, WebhookSubscription,
};
