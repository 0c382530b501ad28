import type { ReadPath } from './field-reads.js';

/**
 * What a field resolver's value is, declared once (`@Projects`, field-reads.ts) and read two ways:
 * here, on the row the executor passes (projectRow), and as SQL by the `/graphql` passthrough
 * (src/graphql/answer-passthrough.ts), which builds the same object in PostgreSQL. Nothing else
 * decides the value, so the two roads cannot drift apart.
 *
 * - a ReadPath: a property of the row (a reference gives its id, an embeddable its object) or of a
 *   single relation (`'customer.email'`, null when the related row is missing);
 * - `{ constant }`: a constant;
 * - `{ concat }`: a text, its parts' values one after the other, a null part as nothing (as
 *   PostgreSQL's `concat` does; parts are numbers and texts);
 * - a list of them: the first that is not null (`['customer.email', 'email']`);
 * - `{ each, fields }`: a list relation of the row, each related row projected by `fields`;
 * - `{ fields }`: an object, each sub-field projected by its own projection; with `when` (a
 *   column of the row), null where that column is null (`EventActor`: no token, no actor);
 * - `{ one }`: a single relation of the row, its row as the field's selection asks (null when
 *   there is no related row).
 */
export type Projection =
  | ReadPath
  | { readonly constant: string | number | boolean }
  | { readonly concat: readonly Projection[] }
  | readonly Projection[]
  | { readonly each: string; readonly fields: Readonly<Record<string, Projection>> }
  | { readonly fields: Readonly<Record<string, Projection>>; readonly when?: string }
  | { readonly one: string };

// Array.isArray does not narrow a readonly array type.
export const isChoice = (projection: Projection): projection is readonly Projection[] => Array.isArray(projection);

type Row = Readonly<Record<string, unknown>>;

/** The key a single relation's row lands under on its parent's row (read-plan.ts#landingKey). */
const related = (row: Row, relation: string): Row | null => (row[`$${relation}`] as Row | null | undefined) ?? null;

/** The value `projection` gives for `row` (see Projection). */
export function projectRow<T = unknown>(row: Row, projection: Projection): T {
  return projected(row, projection) as T;
}

function projected(row: Row, projection: Projection): unknown {
  if (typeof projection === 'string') {
    const [head, property] = projection.split('.');
    if (property === undefined) return row[head] ?? null;
    return related(row, head)?.[property] ?? null;
  }
  if (isChoice(projection)) {
    for (const choice of projection) {
      const value = projected(row, choice);
      if (value !== null) return value;
    }
    return null;
  }
  if ('constant' in projection) return projection.constant;
  if ('concat' in projection) {
    return projection.concat.map((part) => projected(row, part) ?? '').join('');
  }
  if ('one' in projection) return related(row, projection.one);
  if ('each' in projection) {
    const rows = (row[projection.each] as readonly Row[] | undefined) ?? [];
    return rows.map((each) => projectFields(each, projection.fields));
  }
  if ('when' in projection && projection.when !== undefined && (row[projection.when] ?? null) === null) return null;
  return projectFields(row, projection.fields);
}

function projectFields(row: Row, fields: Readonly<Record<string, Projection>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, projection] of Object.entries(fields)) out[field] = projected(row, projection);
  return out;
}

/** The ReadPaths a projection reads (its resolver's `@Reads`). */
export function pathsOf(projection: Projection): ReadPath[] {
  if (typeof projection === 'string') return [projection];
  if (isChoice(projection)) return projection.flatMap(pathsOf);
  if ('constant' in projection) return [];
  if ('concat' in projection) return projection.concat.flatMap(pathsOf);
  if ('one' in projection) return [projection.one];
  const inner = Object.values(projection.fields).flatMap(pathsOf);
  if ('each' in projection) return inner.map((path) => `${projection.each}.${path}`);
  return projection.when === undefined ? inner : [projection.when, ...inner];
}
