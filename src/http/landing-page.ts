import type { Context, Next } from 'koa';

const PAGE =
  `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Store API</title>
  <style>
    body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1d2433; }
    a { color: #2a5bd7; } li { margin: .4rem 0; } code { background: #f5f6f8; padding: 0 .25rem; border-radius: 3px; }
  </style>
</head>
<body>
  <h1>Store API</h1>
  <p>A store-management service: GraphQL at <code>/graphql</code>, and REST v1 under <code>/api/v1</code> on top of it.
  Every API call needs <code>Authorization: Bearer &lt;token&gt;</code>; <code>npm start</code> ` +
  `prints one on the first start,
  <code>npm run token -- create --name &lt;name&gt; --scopes all</code> makes more.</p>
  <ul>
    <li><a href="/docs">REST API reference</a>: every operation with examples from the demo store and code samples</li>
    <li><a href="/docs/graphql">GraphQL reference</a>: every type and field of the schema, described</li>
    <li><a href="/graphql">GraphiQL</a>: run GraphQL queries in the browser (paste your token in <em>Headers</em>)</li>
    <li><a href="/api/v1/openapi.json">OpenAPI 3.1 document</a>: generate a typed client (<code>npx ` +
  `openapi-typescript</code>)</li>
    <li><a href="/healthz">Health</a> and <a href="/readyz">readiness</a>; <code>/metrics</code> ` +
  `for Prometheus (scope <code>read_metrics</code>)</li>
  </ul>
</body>
</html>`;

/** `GET /`: a public page linking the references, GraphiQL, the OpenAPI document and health. */
export async function landingPageMiddleware(ctx: Context, next: Next) {
  if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.path === '/') {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
    return;
  }
  return next();
}
