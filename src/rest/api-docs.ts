import type { Context, Next } from 'koa';
import { packageAssets, packageFile } from '../http/package-assets.js';
import { openApiDocument } from './openapi.js';
import { API_PREFIX } from './router.js';
import type { RouteSpec } from './routes.js';

const ASSETS = {
  'swagger-ui.css': { file: packageFile('swagger-ui-dist', 'swagger-ui.css'), type: 'text/css' },
  'swagger-ui-bundle.js': { file: packageFile('swagger-ui-dist', 'swagger-ui-bundle.js'), type: 'application/javascript' },
  'swagger-ui-standalone-preset.js': { file: packageFile('swagger-ui-dist', 'swagger-ui-standalone-preset.js'), type: 'application/javascript' },
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
  const assets = packageAssets('/docs/assets', ASSETS, INIT);
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
    if (!(await assets(ctx))) return next();
  };
}
