import type { MetafieldOwner } from '../domain/metafield-owners.js';
import { JSON_VALUED_TYPES } from '../domain/metafield-types.js';
import { Metafield } from '../entities/metafield.entity.js';
import type { ComputedRelation } from '../reads/field-reads.js';

/**
 * A record's metafields as computed relations of its read (docs/architecture.md, "a computed
 * relation such as metafields"): declared once here per owner column and put on each owner type by
 * src/resolvers/metafield-fields.resolver.ts, so every road that reads a record (GraphQL, REST lists,
 * records and exports, the passthrough and the executed road alike) reads them in the record's own
 * statement, through the unique index of the owner column.
 */

/** `Metafield` rows of the record, by namespace and key (the read plan builds them from the entity). */
export const metafieldRows = (column: MetafieldOwner['column']): ComputedRelation => ({
  kind: 'many',
  entity: () => Metafield,
  where: (child, parent) => `${child}.${column} = ${parent}.id`,
  orderBy: (child) => `${child}.namespace, ${child}.key`,
});

const jsonValued = JSON_VALUED_TYPES.map((type) => `'${type}'`).join(', ');

/**
 * The record's metafields as REST shows them (docs/decisions.md#custom-data-metafields):
 * `{"namespace.key": value}` in name order, each value typed from its stored text
 * (src/domain/metafield-types.ts): integers, booleans and json read as JSON, the rest as JSON strings.
 * A record without any is `{}`. The stored texts hold no raw line break in JSON (json values are kept
 * on one line, src/domain/metafield-types.ts), so an export's line stays one line.
 */
export const metafieldObject = (column: MetafieldOwner['column']): ComputedRelation => ({
  kind: 'json',
  // Written as text (JSON.stringify's form, no spaces) and read as json once: json_object_agg would
  // space its keys and values out. No rows: `{}` (string_agg is null, concat skips it).
  sql: (parent) =>
    `(select concat('{', string_agg(to_json(mfv.namespace || '.' || mfv.key)::text || ':' || ` +
    `case when mfv.type in (${jsonValued}) then mfv.value else to_json(mfv.value)::text end, ',' ` +
    `order by mfv.namespace, mfv.key), '}')::json from metafield mfv where mfv.${column} = ${parent}.id)`,
});
