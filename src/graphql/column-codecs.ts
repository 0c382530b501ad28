import type { EntityProperty, MetadataStorage } from '@mikro-orm/core';
import { type GraphQLSchema, getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import { leafSql } from './leaf-sql.js';
import { NotPlain } from './not-plain.js';

/**
 * Every column the schema shows as a scalar field has a way to be written as JSON by PostgreSQL
 * (its scalar's codec, src/schema/scalars/scalar-codecs.ts, through leaf-sql.ts), or the service
 * does not start. A column of a type no codec reads (bigint, uuid, date, …) used to send every read
 * of its record silently to execution; now adding one means adding it to its scalar's codec.
 */
export function checkColumnCodecs(schema: GraphQLSchema, metadata: MetadataStorage): void {
  const missing: string[] = [];
  for (const meta of metadata) {
    if (meta.embeddable || meta.virtual) continue;
    for (const prop of meta.props as EntityProperty[]) {
      if (prop.kind !== 'scalar' || prop.persist === false) continue;
      // A top-level column is the field of the entity's type; an embedded one (`shippingAddress`'s
      // `city`) the field of the embeddable's type.
      const owner = prop.embedded ? meta.properties[prop.embedded[0]]?.embeddable : meta.class;
      const typeName = prop.embedded ? (owner as { name?: string } | undefined)?.name : meta.className;
      const type = typeName ? schema.getType(typeName) : undefined;
      const fieldName = prop.embedded ? prop.embedded[1] : prop.name;
      const field = type && isObjectType(type) ? type.getFields()[fieldName] : undefined;
      if (!field) continue; // not shown by the schema (a foreign key, an internal column)
      const list = isListType(getNullableType(field.type));
      try {
        leafSql(prop, getNamedType(field.type), list, 'x', Boolean(prop.embedded));
      } catch (error) {
        if (!(error instanceof NotPlain)) throw error;
        missing.push(`${typeName}.${field.name} (column type ${prop.columnTypes?.[0]}: ${error.message})`);
      }
    }
  }
  if (missing.length) {
    const named = missing.join('; ');
    throw new Error(
      `No codec in src/schema/scalars/scalar-codecs.ts reads these columns, so PostgreSQL cannot write them: ${named}`,
    );
  }
}
