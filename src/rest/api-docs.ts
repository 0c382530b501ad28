import type { Context, Next } from 'koa';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { openApiDocument } from './openapi.js';
import { API_PREFIX } from './router.js';
import type { RouteSpec } from './routes.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Store API · reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '${API_PREFIX}/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});`;

/**
 * The API reference, public: `GET /api/v1/openapi.json` (generated from the route table) and
 * `/docs`, Swagger UI served from the installed swagger-ui-dist package (no CDN, works offline).
 */
export function apiDocsMiddleware(routes: RouteSpec[], publicUrl?: string) {
  const document = JSON.stringify(openApiDocument(routes, publicUrl?.replace(/\/$/, '')));
  const cache = new Map<string, Buffer>();
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === `${API_PREFIX}/openapi.json`) {
      ctx.type = 'application/json';
      ctx.body = document;
      return;
    }
    if (ctx.path === '/docs' || ctx.path === '/docs/') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
      return;
    }
    const asset = /^\/docs\/assets\/([\w.-]+)$/.exec(ctx.path)?.[1];
    if (asset === 'init.js') {
      ctx.type = 'application/javascript';
      ctx.body = INIT;
      return;
    }
    if (!asset || !ASSETS[asset]) return next();
    let content = cache.get(asset);
    if (!content) {
      content = await readFile(path.join(swaggerDir, asset));
      cache.set(asset, content);
    }
    ctx.type = ASSETS[asset];
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = content;
  };
}
