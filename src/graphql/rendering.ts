/**
 * A key of a rendered object: the response key, the field of the node it comes from (none: an
 * object of the node's own fields, `sub`), how a leaf is shown, and the keys of a nested object.
 */
export interface RenderedKey {
  key: string;
  field?: string;
  /**
   * A leaf shown otherwise than GraphQL's serialiser shows it: an enum as its integer value
   * (`code`), a Decimal as a JSON number (`number`) or as whole units rounded half away from zero
   * (`wholeUnits`), a null Timestamp as 0 (`zeroForNull`), an enum's name in lower case
   * (`lowerCase`).
   */
  shown?: 'code' | 'number' | 'wholeUnits' | 'zeroForNull' | 'lowerCase';
  sub?: Rendering;
  /**
   * Two keys of `sub` of which each object shows one: the first when its value is not null, else
   * the second (a thumbnail's colour or image).
   */
  either?: readonly [string, string];
}

/**
 * The keys of a record as an edge shows them (the REST layer's, derived from its field maps):
 * PostgreSQL writes the record's JSON with them where every key is a plain field or a grouping.
 */
export type Rendering = readonly RenderedKey[];

export type Shown = NonNullable<RenderedKey['shown']>;
