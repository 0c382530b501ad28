import type { RunningService } from './server.js';

/**
 * What `npm start` prints: where everything is (home, REST reference, OpenAPI, GraphQL, health),
 * the first token when this start created it, otherwise how to get one.
 */
export function startBanner(
  service: Pick<RunningService, 'url' | 'seeded' | 'firstToken'>,
  base: string,
  adminToken = false,
): string {
  const lines = [
    `Store API listening on ${service.url}`,
    `  Home       ${base}/`,
    `  REST docs  ${base}/docs (OpenAPI: ${base}/api/v1/openapi.json)`,
    `  GraphQL    ${base}/graphql (GraphiQL in a browser; reference: ${base}/docs/graphql)`,
    `  Health     ${base}/healthz, ${base}/readyz`,
  ];
  if (service.seeded) lines.push('  Seeded the demo store.');
  if (service.firstToken) {
    lines.push(
      '',
      `  First API token (all scopes; shown once, store it now):`,
      `    ${service.firstToken}`,
      // The URL quoted: zsh takes an unquoted `?` for a glob and refuses the line (no matches found).
      `  Try: curl -H "Authorization: Bearer ${service.firstToken}" '${base}/api/v1/products?size=2'`,
    );
  } else {
    // The first token is printed once only: say how to get another on every later start.
    lines.push(
      '',
      adminToken
        ? '  API token: the ADMIN_TOKEN this start was given (all scopes), or make one with'
        : '  API token: use the one printed on the first start, or make one with',
      '    npm run token -- create --name "my app" --scopes all',
    );
  }
  return `${lines.join('\n')}\n`;
}
