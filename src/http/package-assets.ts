import type { Context } from 'koa';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** A file inside an installed package (browser bundles sit outside the packages' `exports`). */
export const packageFile = (pkg: string, file: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

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
