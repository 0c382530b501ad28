/** Every scope a token can hold (docs/decisions.md#auth-and-scopes). Resolvers name the one they need. */
export const SCOPES = [
  'read_orders',
  'write_orders',
  'read_customers',
  'write_customers',
  'read_products',
  'write_products',
  'read_collections',
  'write_collections',
  'read_shipping',
  'write_shipping',
  'read_inventory',
  'write_inventory',
  'manage_tokens',
  // Webhook subscriptions and their delivery logs (docs/decisions.md#webhooks).
  'manage_webhooks',
  // Not in the contract's list: lets a Prometheus scraper read /metrics and nothing else.
  'read_metrics',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
