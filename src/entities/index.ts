import { type Constructor, MetadataStorage } from '@mikro-orm/core';
import { importFolder } from '../folder-modules.js';

const modules = await importFolder(new URL('./', import.meta.url), /\.(entity|embeddable)$/);
const declared = new Set(Object.values(MetadataStorage.getMetadata()).map((meta) => meta.class));

/**
 * Every entity and embeddable of this folder, found at start: a class declared with `@Entity()` or
 * `@Embeddable()` in a `*.entity.ts` or `*.embeddable.ts` file here is known to the ORM, with no list
 * to add it to.
 */
export const entities = modules
  .flatMap((module) => Object.values(module))
  .filter(
    (value): value is Constructor<object> => typeof value === 'function' && declared.has(value as Constructor<object>),
  );
