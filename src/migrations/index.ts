// Committed migrations, in order. `npm run migration:create -- name` writes the next one;
// append it here (the list is explicit so src and dist never discover each other's files).
import { Migration20261122024227_initial } from './Migration20261122024227_initial.js';
import { Migration20261122040050_rate_limit } from './Migration20261122040050_rate_limit.js';
import { Migration20261122041119_big_store_indexes_and_row_counts } from './Migration20261122041119_big_store_indexes_and_row_counts.js';
import { Migration20261122043141_idempotency_keys } from './Migration20261122043141_idempotency_keys.js';
import { Migration20261123200000_api_token_last_used } from './Migration20261123200000_api_token_last_used.js';
import { Migration20261123200000_idempotency_lease } from './Migration20261123200000_idempotency_lease.js';
import { Migration20261123201000_events } from './Migration20261123201000_events.js';
import { Migration20261123202000_webhooks } from './Migration20261123202000_webhooks.js';
import { Migration20261123210000_rate_limit_bucket_unlogged } from './Migration20261123210000_rate_limit_bucket_unlogged.js';
import { Migration20261124100000_webhook_stamps_from_the_clock } from './Migration20261124100000_webhook_stamps_from_the_clock.js';

export const migrationsList = [
  Migration20261122024227_initial,
  Migration20261122040050_rate_limit,
  Migration20261122041119_big_store_indexes_and_row_counts,
  Migration20261122043141_idempotency_keys,
  Migration20261123200000_api_token_last_used,
  Migration20261123200000_idempotency_lease,
  Migration20261123201000_events,
  Migration20261123202000_webhooks,
  Migration20261123210000_rate_limit_bucket_unlogged,
  Migration20261124100000_webhook_stamps_from_the_clock,
];
