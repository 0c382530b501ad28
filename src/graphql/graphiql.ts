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
  // The graphql-ws client's own browser build (global `graphqlWs`): subscriptions from the page.
  'graphql-ws.js': { file: packageFile('graphql-ws', 'umd/graphql-ws.min.js'), type: 'application/javascript' },
};

/**
 * The page works on first paste: nothing is sent until the headers name a token (so no
 * UNAUTHENTICATED error greets the user); when they do, the schema is fetched with that token and
 * handed to GraphiQL (Docs and autocomplete appear without the re-fetch button), and again whenever
 * the token changes. The page has one token: the last pasted in any tab shows in the Headers of
 * every tab opened after (GraphiQL keeps headers per tab, and the placeholder left in the others
 * looked unauthenticated); their other headers stay their own.
 * A subscription runs over WebSocket at /graphql with the graphql-ws client (docs/graphql.md#graphiql):
 * the fetcher hands GraphiQL an observable of its results, the token goes in `connectionParams`, and
 * the pane lists the results received so far, newest first (GraphiQL shows only the latest).
 */
const INIT =
  `
const PLACEHOLDER = 'Bearer <paste your API token here>';
const headers = JSON.stringify({ Authorization: PLACEHOLDER }, null, 2);
const endpoint = new URL('/graphql', location.href).toString();
const wsEndpoint = endpoint.replace(/^http/, 'ws');
const INTROSPECTION = ${JSON.stringify(getIntrospectionQuery())};
const EXAMPLES = ${JSON.stringify(GRAPHIQL_EXAMPLES)};
let token = null;

function tokenIn(text) {
  try {
    const parsed = JSON.parse(text || '{}');
    const value = parsed.Authorization ?? parsed.authorization;
    return typeof value === 'string' && value !== PLACEHOLDER && ` +
  `/^Bearer\\s+\\S+$/i.test(value.trim()) ? value.trim() : null;
  } catch {
    return null;
  }
}

/** A tab's headers text with the page's token in it; unchanged while it is not a JSON object (mid-edit). */
function withToken(text, auth) {
  let parsed;
  try {
    parsed = JSON.parse(text || '{}');
  } catch {
    return text;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
  const name = 'authorization' in parsed && !('Authorization' in parsed) ? 'authorization' : 'Authorization';
  return parsed[name] === auth ? text : JSON.stringify({ ...parsed, [name]: auth }, null, 2);
}

/**
 * Puts the page's token into the Headers of the tab shown, whenever another tab (or a new one) is
 * shown or the token changes. Rendered inside GraphiQL, whose editor context it reads.
 */
function TokenInEveryTab({ auth }) {
  const { headerEditor, activeTabIndex, tabs } = GraphiQL.React.useEditorContext({ nonNull: true });
  React.useEffect(() => {
    if (!headerEditor || !auth) return;
    const text = headerEditor.getValue();
    const next = withToken(text, auth);
    if (next !== text) headerEditor.setValue(next);
  }, [headerEditor, activeTabIndex, tabs.length, auth]);
  return null;
}

async function post(body, extraHeaders) {
  const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': ` +
  `'application/json', accept: 'application/json', ...extraHeaders }, body: JSON.stringify(body) });
  return res.json();
}

// One graphql-ws client (one socket) for the token in use; another token closes it and opens its own.
let live = null;

function closeLive() {
  if (live) live.client.dispose();
  live = null;
}

function liveClient(auth) {
  if (live && live.auth === auth) return live.client;
  closeLive();
  const client = graphqlWs.createClient({
    url: wsEndpoint,
    connectionParams: auth ? { Authorization: auth } : {},
    // A reconnect would subscribe again without \`after\` and skip what committed meanwhile: show the
    // close instead, so the user can run it again with \`after\` set to the last id seen.
    retryAttempts: 0,
  });
  live = { auth, client };
  return client;
}

/**
 * Whether the operation to run (the named one, or the document's only one) is a subscription; from
 * the text sent, as GraphiQL's documentAST lags an edit by 100 ms. GraphiQL's bundle carries graphql-js.
 */
function isSubscription(params) {
  const { parse, getOperationAST } = GraphiQL.GraphQL;
  try {
    const operation = getOperationAST(parse(params.query || ''), params.operationName || undefined);
    return Boolean(operation) && operation.operation === 'subscription';
  } catch {
    return false;
  }
}

/** A socket's close (e.g. 4403 for a bad token, 4429 over the limit) as an error the result pane can show. */
function readable(error) {
  if (Array.isArray(error)) return error;
  if (error && typeof error.code === 'number') {
    return { message: 'The WebSocket closed: ' + error.code + (error.reason ? ' ' + error.reason : '') };
  }
  return { message: error instanceof Error ? error.message : 'The WebSocket to ' + wsEndpoint + ' failed' };
}

/** Results a subscription's pane keeps: enough to follow a burst, few enough for the editor to stay quick. */
const KEPT_RESULTS = 50;

/**
 * An observable (what GraphiQL 3 takes for a stream) of the subscription's results; Stop disposes
 * it. GraphiQL shows each value in place of the last, so each value is every result received so far
 * (the last KEPT_RESULTS), newest first. A close after some results keeps them, with the error on top.
 */
function subscribe(params, auth) {
  return {
    subscribe(sink) {
      let received = 0;
      const newestFirst = [];
      const dispose = liveClient(auth).subscribe(params, {
        next: (result) => {
          received++;
          newestFirst.unshift(result);
          if (newestFirst.length > KEPT_RESULTS) newestFirst.pop();
          sink.next({ received, newestFirst });
        },
        error: (error) => {
          if (!received) return sink.error(readable(error));
          sink.next({ errors: [].concat(readable(error)), received, newestFirst });
          sink.complete();
        },
        complete: () => sink.complete(),
      });
      return { unsubscribe: dispose };
    },
  };
}

function fetcher(params, options) {
  const own = { ...((options && options.headers) || {}) };
  for (const name of ['Authorization', 'authorization']) if (own[name] === PLACEHOLDER) delete own[name];
  const auth = own.Authorization || own.authorization || !token ? {} : { Authorization: token };
  // GraphiQL can keep the operation name of the tab shown before: send it only if this document has it.
  const name = params.operationName;
  const named = name && new RegExp('(query|mutation|subscription)\\\\s+' + name + '\\\\b').test(params.query || '');
  const body = named || !name ? params : { ...params, operationName: undefined };
  if (isSubscription(body)) {
    return subscribe(body, own.Authorization || own.authorization || token);
  }
  return post(body, { ...own, ...auth });
}

function StoreGraphiQL() {
  const [schema, setSchema] = React.useState(null);
  const [shared, setShared] = React.useState(null);
  const timer = React.useRef(null);
  const onEditHeaders = React.useCallback((text) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(async () => {
      const next = tokenIn(text);
      if (!next || next === token) return;
      token = next;
      setShared(next);
      if (live && live.auth !== next) closeLive();
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
    toolbar: { additionalContent: React.createElement(TokenInEveryTab, { auth: shared }) },
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
  <script src="/graphql/assets/graphql-ws.js"></script>
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
