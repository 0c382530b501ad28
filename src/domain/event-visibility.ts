// What of an event a token may see (docs/integrations.md#what-a-token-sees-of-an-event): the one
// rule every reader of events applies (the order timeline now; a feed or a webhook can reuse it).

/**
 * Keys of an order event's data that hold the customer's contact details: the order's e-mail and
 * its address blocks (names, street, phone). `customer` holds them too, apart from its id.
 */
const CONTACT_KEYS = new Set(['email', 'address']);

/**
 * An event's data as a token sees it. An order event keeps the customer's contact details of the
 * time of the change: after a customer change, that is another person's e-mail, name and phone
 * than the order now shows. Those belong to the customer records, so without `read_customers`
 * they are left out (the customer's id stays); everything else is as it was recorded.
 */
export function eventDataShownTo(
  event: { subject: string; data: Record<string, unknown> },
  scopes: ReadonlySet<string>,
): Record<string, unknown> {
  if (event.subject !== 'order' || scopes.has('read_customers')) return event.data;
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event.data)) {
    if (CONTACT_KEYS.has(key)) continue;
    const customer = key === 'customer' && value && typeof value === 'object';
    shown[key] = customer ? { id: (value as { id?: unknown }).id } : value;
  }
  return shown;
}
