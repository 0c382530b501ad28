import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';

const require = createRequire(import.meta.url);

/** A file inside an installed package (browser bundles sit outside the packages' `exports`). */
export const packageFile = (pkg: string, file: string) => path.join(packageDir(pkg), file);

/** The package's folder: from its package.json, or (when `exports` hides that) from its main entry. */
function packageDir(pkg: string): string {
  try {
    return path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    const entry = require.resolve(pkg);
    return (
      entry.slice(
        0,
        entry.lastIndexOf(`${path.sep}node_modules${path.sep}${pkg.split('/').join(path.sep)}${path.sep}`),
      ) + path.join(path.sep, 'node_modules', pkg)
    );
  }
}

/**
 * A file of this project kept outside `src` (a generated asset such as assets/openapi-examples.json),
 * from the folder that holds package.json: the same file whether the code runs from `src` (Jest)
 * or from `dist/src` (compiled).
 */
export function projectFile(file: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return path.join(dir, file);
}

export interface Asset {
  file: string;
  type: string;
}

/**
 * Serves the browser assets of an offline page (GraphiQL, the API reference) from installed
 * packages under `prefix/<name>`, read once and cached, plus the page's own `init.js`. Answers
 * whether it served the request.
 */
export function packageAssets(prefix: string, assets: Record<string, Asset>, initScript: string) {
  const cache = new Map<string, Buffer>();
  const pattern = new RegExp(`^${prefix}/([\\w.-]+)$`);
  return async (ctx: Context): Promise<boolean> => {
    const name = pattern.exec(ctx.path)?.[1];
    if (name === 'init.js') {
      ctx.type = 'application/javascript';
      ctx.body = initScript;
      return true;
    }
    const asset = name ? assets[name] : undefined;
    if (!name || !asset) return false;
    let content = cache.get(name);
    if (!content) {
      content = await readFile(asset.file);
      cache.set(name, content);
    }
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = content;
    return true;
  };
}
