import type { RenderedKey, Rendering } from '../graphql/rendering.js';
import { type FieldMap, gqlNameOf, INLINE, perKeySet } from './fields.js';

/**
 * A REST record's shape as data for PostgreSQL to write (src/graphql/answer-passthrough.ts): each
 * key with the GraphQL field it comes from (none for an `INLINE` grouping of the node's own
 * fields), its nested keys, and its conversion in the form SQL knows (`shown`). Derived from the
 * field maps, nothing listed twice. A key that converts its value only in JS (`out` with no
 * `shown`) or passes arguments has no such shape: `checkRenderings` refuses it at start-up, so no
 * list or export of its resource falls silently to execution.
 */
export const renderingOf = perKeySet((map, keys): Rendering => derive(map, keys));

function derive(map: FieldMap, keys: readonly string[], path = ''): Rendering {
  const rendering: RenderedKey[] = [];
  for (const key of keys) {
    const spec = map[key];
    if (spec.out && !spec.shown && !spec.either)
      throw new Error(`REST key ${path}${key} converts its value with \`out\` but declares no SQL form (\`shown\`)`);
    if (spec.args) throw new Error(`REST key ${path}${key} passes arguments, which the SQL writer does not take`);
    const sub = spec.sub ? derive(spec.sub, Object.keys(spec.sub), `${path}${key}.`) : undefined;
    rendering.push({
      key,
      ...(spec.gql === INLINE ? {} : { field: gqlNameOf(key, spec) }),
      ...(spec.shown ? { shown: spec.shown } : {}),
      ...(sub ? { sub } : {}),
      ...(spec.either ? { either: spec.either } : {}),
    });
  }
  return rendering;
}

/** Every key of every resource has the shape PostgreSQL writes (`renderingOf`), or start-up fails naming it. */
export function checkRenderings(resources: Iterable<{ name: string; fields: FieldMap; expand?: FieldMap }>): void {
  for (const resource of resources) {
    try {
      renderingOf({ ...resource.fields, ...resource.expand });
    } catch (error) {
      throw new Error(`${resource.name}: ${(error as Error).message}`);
    }
  }
}
