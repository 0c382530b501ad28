import { type GraphQLSchema, isInputObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

/**
 * type-graphql 2.0 rc.4 builds an input type that extends another (`ProductPatch extends
 * ProductFields`) by copying the parent's fields without their `extensions`, so a mark such as
 * `@Optional` (src/schema/optional-field.ts) would vanish from every inherited field. This puts the
 * extensions declared on a class or its ancestors back on the built fields.
 */
export function restoreInheritedExtensions(schema: GraphQLSchema): void {
  const storage = getMetadataStorage();
  for (const def of storage.inputTypes) {
    const type = schema.getType(def.name);
    if (!isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const declared = storage.fieldExtensions.filter(
        (entry) =>
          entry.fieldName === field.name &&
          (entry.target === def.target || Object.prototype.isPrototypeOf.call(entry.target, def.target)),
      );
      if (!declared.length) continue;
      (field as { extensions: Record<string, unknown> }).extensions = Object.assign(
        {},
        ...declared.map((entry) => entry.extensions),
        field.extensions,
      );
    }
  }
}
