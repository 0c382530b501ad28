// A running service for one test file: its own database cloned from the seeded template, the real
// Koa app on a free port, tokens with chosen scopes, and a counter of SQL statements.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ormConfig } from '../../mikro-orm.config.js';
import { createApp } from '../../src/app.js';
import { createApiToken } from '../../src/auth/api-tokens.js';
import type { RateLimitSettings } from '../../src/auth/rate-limit.js';
import { SCOPES } from '../../src/auth/scopes.js';
import type { BulkOptions } from '../../src/bulk/bulk-operations.js';
import type { AdmissionLimits } from '../../src/http/admission.js';
import { createHttpServer, DEFAULT_TIMEOUTS, type HttpTimeouts } from '../../src/http/timeouts.js';
import type { ExportLimits } from '../../src/rest/open-exports.js';
import { checkAgainstOpenApi, loadOpenApiDocument } from './openapi-check.js';

export interface TestService {
  url: string;
  orm: MikroORM;
  /** Token holding every scope. */
  token: string;
  /** Creates a token with exactly these scopes. */
  tokenWith(scopes: string[]): Promise<string>;
  /** Statements sent to PostgreSQL since the last reset. */
  /** Statements sent since the last reset: how many, and their texts (values are bound, not in the text). */
  statements: { count: number; texts: string[]; reset(): void };
  /** Runs a query directly on this file's database (to check what a request changed). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  get(path: string, token?: string | null, headers?: Record<string, string>): Promise<TestResponse>;
  send(
    method: string,
    path: string,
    body?: unknown,
    token?: string | null,
    headers?: Record<string, string>,
  ): Promise<TestResponse>;
  graphql(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('the Jest global setup did not start PostgreSQL');
  return url;
}

/** A new database on the test server: a clone of the seeded template, or empty. */
export async function createDatabase(kind: 'seeded' | 'empty' = 'seeded'): Promise<string> {
  const name = `test_${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    // Identifiers cannot be parameters; both names are made here.
    await client.query(
      `create database "${name}"${kind === 'seeded' ? ` template "${process.env.TEST_PG_TEMPLATE}"` : ''}`,
    );
  } finally {
    await client.end();
  }
  return adminUrl().replace(/\/postgres$/, `/${name}`);
}

/** Suites fire hundreds of requests at once; the admission suites set small limits themselves. */
const UNLIMITED_ADMISSION = { maxInFlight: 100_000, maxPerToken: 100_000 };

/**
 * `rateLimit`: off unless given (suites fire hundreds of requests per token at once); the
 * rate-limit suites switch it on with small buckets.
 */
export async function startTestService(
  options: {
    publicUrl?: string;
    databaseUrl?: string;
    rateLimit?: RateLimitSettings;
    allowedHosts?: string[];
    timeouts?: Partial<HttpTimeouts>;
    readTimeoutMs?: number;
    admission?: Partial<AdmissionLimits>;
    poolMax?: number;
    exports?: Partial<ExportLimits>;
    bulk?: BulkOptions;
  } = {},
): Promise<TestService> {
  const dbUrl = options.databaseUrl ?? (await createDatabase());
  const statements = {
    count: 0,
    texts: [] as string[],
    reset() {
      this.count = 0;
      this.texts = [];
    },
  };
  const orm = await MikroORM.init(
    ormConfig(
      dbUrl,
      {
        onQuery: (sql: string) => {
          statements.count++;
          statements.texts.push(sql);
          return sql;
        },
        ...(options.poolMax ? { pool: { min: 0, max: options.poolMax } } : {}),
      },
      options.readTimeoutMs,
    ),
  );
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  await loadOpenApiDocument();
  const { app, stop } = await createApp({
    orm,
    publicUrl: options.publicUrl,
    rateLimit: options.rateLimit,
    allowedHosts: options.allowedHosts,
    bodyTimeoutMs: timeouts.bodyMs,
    admission: options.admission ?? UNLIMITED_ADMISSION,
    exports: options.exports,
    // A test that sets no bulk options runs no bulk work at all (src/app.ts): no background poll
    // counts in `statements`, and an operation made through this service stays created.
    bulk: options.bulk,
  });
  const server: Server = createHttpServer(app.callback(), timeouts);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { secret: token } = await createApiToken(orm.em.fork(), 'test (all scopes)', [...SCOPES]);

  async function request(
    method: string,
    path: string,
    body: unknown,
    tokenToUse: string | null | undefined,
    headers: Record<string, string> = {},
  ) {
    const auth = tokenToUse === null ? {} : { authorization: `Bearer ${tokenToUse ?? token}` };
    const init: RequestInit = { method, headers: { ...auth, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(url + path, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const type = response.headers.get('content-type');
    checkAgainstOpenApi(method, path, response.status, type, type?.startsWith('application/x-ndjson') ? text : parsed);
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  return {
    url,
    orm,
    token,
    statements,
    async tokenWith(scopes) {
      // A name within the 200 characters every token's name is held to.
      return (await createApiToken(orm.em.fork(), `test ${scopes.join(',')}`.slice(0, 200), scopes)).secret;
    },
    async sql(text, params = []) {
      return orm.em.getConnection().execute(text, params) as never;
    },
    get: (path, t, headers) => request('GET', path, undefined, t, headers),
    send: (method, path, body, t, headers) => request(method, path, body, t, headers),
    graphql: (query, variables, t) => request('POST', '/graphql', { query, variables }, t),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stop();
      await orm.close();
    },
  };
}
