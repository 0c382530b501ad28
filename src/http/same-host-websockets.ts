import type { IncomingMessage } from 'node:http';

/** A Host header that is only a host name or an IP literal, with an optional port (nothing a policy could split on). */
const PLAIN_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The `connect-src` sources for WebSockets to the host the page was loaded from (GraphiQL's
 * subscriptions at /graphql). CSP 3 lets `'self'` match ws:/wss: of the page's own host, but older
 * browsers do not (Chrome before 71; Safari until WebKit fixed bug 201591 in 2022; see
 * w3c/webappsec-csp#7), so the host is named; both schemes, as a TLS proxy in front hides whether
 * the page came over https. The Host header is the one the browser sent for this very page, so
 * this allows no host the page could not reach already.
 */
export function sameHostWebSockets(req: IncomingMessage): string {
  const host = req.headers.host;
  return host && PLAIN_HOST.test(host) ? `ws://${host} wss://${host}` : "'self'";
}
