import type { ShipmentMail } from '../domain/shipment-mail.js';
import type { Mail } from './mailer.js';

/** The customer's e-mail for a shipment outbox message. */
export function shipmentMail(payload: ShipmentMail, outboxId: number): Mail {
  const subject =
    payload.event === 'shipped'
      ? `Your order ${payload.orderId} has shipped`
      : `Tracking for your order ${payload.orderId} has changed`;
  return {
    to: payload.to,
    subject,
    text: [
      `Hello,`,
      '',
      payload.event === 'shipped'
        ? `A parcel of your order ${payload.orderId} is on its way with ${payload.carrier}.`
        : `The tracking of a parcel of your order ${payload.orderId} was updated.`,
      `Tracking number: ${payload.trackingNumber}`,
      `Track it: ${payload.trackingUrl}`,
    ].join('\n'),
    messageId: `<outbox-${outboxId}.shipment-${payload.shipmentId}@store-api>`,
  };
}
