import type { Constructor } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { importFolder } from '../folder-modules.js';

const modules = await importFolder(new URL('./', import.meta.url), /^Migration\d{14}_\w+$/);

/**
 * The committed migrations of this folder (`Migration<yyyyMMddHHmmss>_<name>.ts`, as
 * `npm run migration:create` writes them), in name order, which is the order they were written.
 * Each keeps its own `name`, so the names recorded in `mikro_orm_migrations` do not depend on where
 * the file is loaded from.
 */
export const migrationsList = modules
  .flatMap((module) => Object.values(module))
  .filter(
    (value): value is Constructor<Migration> => typeof value === 'function' && value.prototype instanceof Migration,
  );
