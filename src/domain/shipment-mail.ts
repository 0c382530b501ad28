import type { EntityManager } from '@mikro-orm/postgresql';
import type { Order } from '../entities/order.entity.js';
import { OutboxMessage } from '../entities/outbox-message.entity.js';
import type { Shipment } from '../entities/shipment.entity.js';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { trackingUrlOf } from './tracking-url.js';

export interface ShipmentMail {
  to: string;
  orderId: number;
  shipmentId: number;
  trackingNumber: string;
  trackingUrl: string;
  carrier: string;
  event: 'shipped' | 'updated';
}

/** An address of the reserved `invalid` top-level domain, which no mail reaches. */
const isUndeliverable = (email: string) => /(^|[@.])invalid$/i.test(email);

/**
 * Writes the customer's shipment e-mail to the outbox in the caller's transaction: it is sent
 * after commit by the outbox worker, never while the order row is locked, and never for a change
 * that rolled back.
 */
export async function enqueueShipmentMail(
  em: EntityManager,
  order: Order,
  shipment: Shipment,
  event: ShipmentMail['event'],
): Promise<void> {
  // An erased customer's orders hold an address under `.invalid` (RFC 2606: never delivered): no
  // mail is written for them, rather than one the outbox would retry for days.
  if (isUndeliverable(order.email)) return;
  await em.flush();
  const carrier = await em.findOneOrFail(ShippingCarrier, { id: shipment.carrier.id });
  const payload: ShipmentMail = {
    to: order.email,
    orderId: order.id,
    shipmentId: shipment.id,
    trackingNumber: shipment.trackingNumber,
    trackingUrl: trackingUrlOf(carrier.url, shipment.trackingNumber),
    carrier: carrier.title,
    event,
  };
  em.persist(Object.assign(new OutboxMessage(), { kind: 'shipment_mail', payload: { ...payload } }));
  await em.flush();
}
