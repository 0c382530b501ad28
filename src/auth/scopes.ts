/** Every scope a token can hold (decisions §2). Resolvers name the one they need. */
export const SCOPES = [
  'read_orders', 'write_orders',
  'read_customers', 'write_customers',
  'read_products', 'write_products',
  'read_collections', 'write_collections',
  'read_shipping', 'write_shipping',
  'read_inventory', 'write_inventory',
  'manage_tokens',
  // Issue 16 (decisions §5): webhook subscriptions and their delivery logs.
  'manage_webhooks',
  // Not in decisions §2's list: lets a Prometheus scraper read /metrics and nothing else.
  'read_metrics',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
