import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { type FieldError, ValidationError } from './errors.js';
import { type MetafieldType, type StoredValue, storedFromJson, storedFromText } from './metafield-types.js';
import { definitionsByName, dottedName } from './metafield-values.js';

/**
 * One metafield a search asks for (GraphQL's MetafieldFilter): its namespace, key and value, as
 * text (Metafield.value's form) or typed (REST's form), one of the two.
 */
export interface MetafieldMatch {
  namespace: string;
  key: string;
  value?: string | null;
  typedValue?: unknown;
}

/** The stored form of a match's value (metafield-types.ts), or why there is none. */
function storedOf(type: MetafieldType, match: MetafieldMatch): StoredValue {
  const typed = match.typedValue !== undefined && match.typedValue !== null;
  if (typed === (match.value !== undefined && match.value !== null)) {
    return { problem: 'give either value (as text) or typedValue (as REST shows it), one of them' };
  }
  if (typed) return storedFromJson(type, match.typedValue);
  // As text; a json value that is not JSON text is the JSON string of that text.
  const stored = storedFromText(type, match.value!);
  return 'problem' in stored && type === 'json' ? storedFromJson('json', match.value) : stored;
}

type Condition = Record<string, unknown>;

/** md5 of a text's UTF-8 bytes as a uuid: what the value_hash column holds (`md5(value)::uuid`). */
const md5Uuid = (text: string) =>
  createHash('md5')
    .update(text, 'utf8')
    .digest('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * The search by metafields (docs/decisions.md#custom-data-metafields): records having every given
 * metafield at exactly the given value. Each value is brought to its definition's stored form
 * first (`12.50` finds a decimal kept as `12.5`; a json value that is not JSON text is the JSON
 * string of it), so an exact search compares texts; it is found through the index on (definition,
 * md5 of the value) and the owner column's unique index, a semi-join per metafield through the
 * owner's `metafieldRows`: at a million records it costs about what a search by id does. Answers
 * the condition for the list's WHERE (undefined when none is asked), after one statement that reads
 * the definitions; an unknown key or a value its type cannot hold is BAD_USER_INPUT naming
 * `metafields.<namespace.key>`. A typed value given as an array is any of its values (but for a
 * json metafield, whose value may itself be an array).
 */
export async function metafieldCondition(
  em: EntityManager,
  ownerType: MetafieldOwnerType,
  matches: readonly MetafieldMatch[] | null | undefined,
): Promise<Condition | undefined> {
  if (!matches?.length) return undefined;
  const errors: FieldError[] = [];
  const definitions = await definitionsByName(em, ownerType, matches);
  const conditions: Condition[] = [];
  for (const match of matches) {
    const name = dottedName(match.namespace, match.key);
    const field = `metafields.${name}`;
    const definition = definitions.get(name);
    if (!definition) {
      errors.push({ field, message: `no ${ownerType} metafield definition is named ${name}` });
      continue;
    }
    // An array means "any of" (a search body's rule), but for json, whose value may be an array.
    const anyOf = Array.isArray(match.typedValue) && definition.type !== 'json';
    const given = anyOf ? (match.typedValue as unknown[]) : [undefined];
    if (!given.length) {
      errors.push({ field, message: 'an array of values must list at least one' });
      continue;
    }
    const values: string[] = [];
    for (const one of given) {
      const stored = storedOf(definition.type, anyOf ? { ...match, typedValue: one } : match);
      if ('problem' in stored) errors.push({ field, message: `${definition.type}: ${stored.problem}` });
      else values.push(stored.value);
    }
    if (values.length < given.length) continue;
    // A plain filter (no raw SQL), so its statement is built once per shape and its values bound
    // (src/reads/filter-statements.ts): `id in (select … join metafield … where definition_id, value_hash, value)`.
    // The hash is the value's own, so both lists together match exactly the values listed.
    const [valueHash, value] =
      values.length === 1 ? [md5Uuid(values[0]), values[0]] : [{ $in: values.map(md5Uuid) }, { $in: values }];
    conditions.push({ metafieldRows: { $some: { definition: definition.id, valueHash, value } } });
  }
  if (errors.length) throw new ValidationError(errors);
  return conditions.length === 1 ? conditions[0] : { $and: conditions };
}
