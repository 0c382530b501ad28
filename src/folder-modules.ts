import { readdir } from 'node:fs/promises';

/**
 * The modules of one folder whose names match, imported one after another in name order: how the
 * entity, migration and resolver lists are found, so that none of them is kept by hand.
 *
 * `folder` is built from the caller's own `import.meta.url`, so each runtime reads only its own
 * tree: compiled code (`npm start`, the CLI, Jest's global setup) finds the `.js` files of dist/
 * beside it, and ts-jest the `.ts` sources of src/. The builds empty dist/src first
 * (`scripts/build-if-stale.mjs`), so a renamed or deleted source leaves no compiled file behind to
 * be found. `name` is tested against the file name without its extension.
 */
export async function importFolder(folder: URL, name: RegExp): Promise<Record<string, unknown>[]> {
  const files = (await readdir(folder))
    .filter((file) => /\.[jt]s$/.test(file) && !file.endsWith('.d.ts') && name.test(file.slice(0, -3)))
    .sort();
  const modules: Record<string, unknown>[] = [];
  for (const file of files) modules.push(await import(new URL(file, folder).href));
  return modules;
}
