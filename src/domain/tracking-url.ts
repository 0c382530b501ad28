/**
 * A shipment's tracking URL (docs/decisions.md#records): the carrier's URL followed by the tracking
 * number, as is (a carrier's URL ends where the number goes). Nothing before the number when the
 * carrier is not loaded or has no URL. The read field, the event record and the e-mail all call it.
 */
export function trackingUrlOf(carrierUrl: string | null | undefined, trackingNumber: string): string {
  return `${carrierUrl ?? ''}${trackingNumber}`;
}
