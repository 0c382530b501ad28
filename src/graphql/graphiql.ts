import { getIntrospectionQuery } from 'graphql';
import type { Context, Next } from 'koa';
import { type Asset, packageAssets, packageFile } from '../package-assets.js';
import { GRAPHIQL_EXAMPLES } from './graphiql-examples.js';

/** GraphiQL and its React runtime, served from installed packages: no CDN, works offline. */
const ASSETS: Record<string, Asset> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'application/javascript' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'application/javascript' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'application/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

/**
 * The page works on first paste: nothing is sent until the headers name a token (so no
 * UNAUTHENTICATED error greets the user); when they do, the schema is fetched with that token and
 * handed to GraphiQL (Docs and autocomplete appear without the re-fetch button), and again whenever
 * the token changes. A token pasted in one tab is used by the others (tabs keep their own headers).
 */
const INIT =
  `
const PLACEHOLDER = 'Bearer <paste your API token here>';
const headers = JSON.stringify({ Authorization: PLACEHOLDER }, null, 2);
const endpoint = new URL('/graphql', location.href).toString();
const INTROSPECTION = ${JSON.stringify(getIntrospectionQuery())};
const EXAMPLES = ${JSON.stringify(GRAPHIQL_EXAMPLES)};
let token = null;

function tokenIn(text) {
  try {
    const parsed = JSON.parse(text || '{}');
    const value = parsed.Authorization ?? parsed.authorization;
    return typeof value === 'string' && value !== PLACEHOLDER && ` +
  `/^Bearer\\s+\\S+$/.test(value.trim()) ? value.trim() : null;
  } catch {
    return null;
  }
}

async function post(body, extraHeaders) {
  const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': ` +
  `'application/json', accept: 'application/json', ...extraHeaders }, body: JSON.stringify(body) });
  return res.json();
}

function fetcher(params, options) {
  const own = { ...((options && options.headers) || {}) };
  for (const name of ['Authorization', 'authorization']) if (own[name] === PLACEHOLDER) delete own[name];
  const auth = own.Authorization || own.authorization || !token ? {} : { Authorization: token };
  // GraphiQL can keep the operation name of the tab shown before: send it only if this document has it.
  const name = params.operationName;
  const named = name && new RegExp('(query|mutation|subscription)\\\\s+' + name + '\\\\b').test(params.query || '');
  return post(named || !name ? params : { ...params, operationName: undefined }, { ...own, ...auth });
}

function StoreGraphiQL() {
  const [schema, setSchema] = React.useState(null);
  const timer = React.useRef(null);
  const onEditHeaders = React.useCallback((text) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(async () => {
      const next = tokenIn(text);
      if (!next || next === token) return;
      token = next;
      const result = await post({ query: INTROSPECTION, operationName: 'IntrospectionQuery' }, { ` +
  `Authorization: next }).catch(() => null);
      if (result && result.data) setSchema(result.data);
    }, 300);
  }, []);
  return React.createElement(GraphiQL, {
    fetcher,
    schema,
    onEditHeaders,
    defaultHeaders: headers,
    defaultTabs: EXAMPLES.map((tab) => ({ ...tab, headers })),
    // The token stays in this tab only, never in localStorage.
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
  });
}

ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(StoreGraphiQL));
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
