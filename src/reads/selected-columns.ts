import type { EntityMetadata } from '@mikro-orm/core';
import { getMetadataStorage } from 'type-graphql';
import type { TypeModel } from './read-model.js';
import type { SelectionTree } from './selection.js';

/**
 * GraphQL field → entity property, for fields a type declares with `@Field` on the entity itself
 * (the names may differ: `ProductVariant.variant` is `optionValues`). Fields served by a field
 * resolver are left out: what they read is the read model's `columns`, or every column.
 */
const fieldProperties = new Map<string, Map<string, string>>();

function propertiesOf(meta: EntityMetadata): Map<string, string> {
  let map = fieldProperties.get(meta.className);
  if (!map) {
    const storage = getMetadataStorage();
    const resolved = new Set(
      storage.fieldResolvers.filter((r) => r.getObjectType?.() === meta.class).map((r) => r.schemaName),
    );
    map = new Map(
      storage.fields
        .filter((f) => f.target === meta.class && !resolved.has(f.schemaName) && meta.properties[f.name as never])
        .map((f) => [f.schemaName, f.name]),
    );
    fieldProperties.set(meta.className, map);
  }
  return map;
}

/**
 * The entity properties a selection needs, or null for every column: the properties behind the
 * selected fields, what the read model says derived fields read, and `always` (values a field
 * resolver of a parent reads, e.g. a record item's line item). A selected field the model knows
 * nothing about (a field resolver without `columns`) falls back to every column: never a
 * missing value, at worst a wider row.
 */
export function selectedProperties(meta: EntityMetadata, model: TypeModel, tree: SelectionTree): Set<string> | null {
  const properties = new Set<string>(['id', ...(model.always ?? [])]);
  const byField = propertiesOf(meta);
  for (const field of tree.keys()) {
    if (field === '__typename') continue;
    const declared = model.columns?.[field];
    if (declared) {
      for (const property of declared) properties.add(property);
      continue;
    }
    const property = byField.get(field);
    if (property) properties.add(property);
    else if (!model.relations?.[field]) return null;
  }
  return properties;
}
