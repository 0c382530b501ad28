import type { RenderedKey, Rendering } from '../graphql/rendering.js';
import { type FieldMap, gqlNameOf, INLINE } from './fields.js';

/**
 * A REST record's shape as data for PostgreSQL to write (src/graphql/answer-passthrough.ts): each
 * key with the GraphQL field it comes from (none for an `INLINE` grouping of the node's own
 * fields), its nested keys, and its conversion where it has one SQL knows (`shown`). Derived from
 * the field maps, nothing listed twice. Null when a key converts its value in a way only
 * `reshape` knows, or passes arguments: such records are reshaped here, after execution.
 */
export function renderingOf(map: FieldMap, keys: readonly string[] = Object.keys(map)): Rendering | null {
  let byKeys = renderings.get(map);
  if (!byKeys) renderings.set(map, (byKeys = new Map()));
  const id = keys.join(',');
  let rendering = byKeys.get(id);
  if (rendering === undefined) byKeys.set(id, (rendering = derive(map, keys)));
  return rendering;
}

// Per map and keys: a list or an export renders the same few shapes over and over.
const renderings = new WeakMap<FieldMap, Map<string, Rendering | null>>();

function derive(map: FieldMap, keys: readonly string[]): Rendering | null {
  const rendering: RenderedKey[] = [];
  for (const key of keys) {
    const spec = map[key];
    if ((spec.out && !spec.shown && !spec.either) || spec.args) return null;
    const sub = spec.sub ? derive(spec.sub, Object.keys(spec.sub)) : undefined;
    if (sub === null) return null;
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
