import type { Context, Next } from 'koa';
import { packageAssets, packageFile } from '../package-assets.js';
import { openApiDocument } from './openapi.js';
import type { RestApi } from './rest-api.js';
import { API_PREFIX } from './router.js';

const ASSETS = {
  'scalar.js': {
    file: packageFile('@scalar/api-reference', 'dist/browser/standalone.js'),
    type: 'application/javascript',
  },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Store API · REST reference</title>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/scalar.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

// Everything Scalar could fetch from its vendor is off: fonts, telemetry, the AI agent and MCP
// buttons, the developer tools; "Try it" sends requests straight to this service (no proxy).
const INIT = `Scalar.createApiReference('#reference', {
  url: '${API_PREFIX}/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  authentication: { preferredSecurityScheme: 'bearerAuth' },
});`;

/**
 * The REST reference, public: `GET /api/v1/openapi.json` (generated from the route table, with the
 * demo store's examples) and `/docs`, rendered by Scalar from the installed
 * @scalar/api-reference bundle (no CDN, works offline): every operation with its parameters,
 * examples and code samples (curl, JavaScript and more), the conventions in the introduction.
 */
export function apiDocsMiddleware(api: RestApi, publicUrl?: string) {
  // Generated on its first request and kept: a process that never serves it does not hold it.
  let document: string | undefined;
  const assets = packageAssets('/docs/assets', ASSETS, INIT);
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === `${API_PREFIX}/openapi.json`) {
      ctx.type = 'application/json';
      ctx.body = document ??= JSON.stringify(openApiDocument(api, publicUrl?.replace(/\/$/, '')));
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
