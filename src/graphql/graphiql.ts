import type { Context, Next } from 'koa';
import { packageAssets, packageFile, type Asset } from '../http/package-assets.js';

/** GraphiQL and its React runtime, served from installed packages: no CDN, works offline. */
const ASSETS: Record<string, Asset> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'application/javascript' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'application/javascript' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'application/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

const INIT = `
const headers = JSON.stringify({ Authorization: 'Bearer <paste your API token here>' }, null, 2);
const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).toString() });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultHeaders: headers,
    // The token stays in this tab only, never in localStorage.
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
  }),
);
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Store API · GraphiQL</title>
  <link rel="stylesheet" href="/graphql/assets/graphiql.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="/graphql/assets/react.js"></script>
  <script src="/graphql/assets/react-dom.js"></script>
  <script src="/graphql/assets/graphiql.js"></script>
  <script src="/graphql/assets/init.js"></script>
</body>
</html>`;

const assets = packageAssets('/graphql/assets', ASSETS, INIT);

/**
 * A browser's `GET /graphql` (Accept: text/html) gets the GraphiQL page; the page itself is public
 * (it holds no data), every operation it sends still needs a token, set in its Headers tab.
 */
export async function graphiqlMiddleware(ctx: Context, next: Next) {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
  if (ctx.path === '/graphql' && ctx.accepts(['application/json', 'text/html']) === 'text/html' && !ctx.query.query) {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
    return;
  }
  if (!(await assets(ctx))) return next();
}
