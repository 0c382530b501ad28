import { Migration } from '@mikro-orm/migrations';

/**
 * When a token was last used (docs/integrations.md#api-tokens-over-graphql): written by the
 * authenticating statement at most once a minute.
 */
export class Migration20261123200000_api_token_last_used extends Migration {
  override name = 'Migration20261123200000_api_token_last_used';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_token" add column "last_used_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_token" drop column "last_used_at";`);
  }
}
