// `npm run openapi:examples`: calls every REST operation once against a fresh demo store (an
// embedded PostgreSQL in a temporary folder) and writes the answers to
// assets/openapi-examples.json, the examples of the OpenAPI document. Committed, so
// reviewers see them change; test/openapi-examples.test.ts fails when they are stale.
import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.js';
import { createApp } from '../app.js';
import { createApiToken } from '../auth/api-tokens.js';
import { SCOPES } from '../auth/scopes.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { logger } from '../logger.js';
import { projectFile } from '../package-assets.js';
import { collectExamples, EXAMPLE_BASE_URL } from '../rest/examples/collect-examples.js';
import { EXAMPLES_FILE } from '../rest/examples/stored-examples.js';
import { seedIfEmpty } from '../seed/seed-store.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'store-examples-'));
const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
try {
  await postgres.createDatabase('demo');
  const orm = await MikroORM.init(ormConfig(postgres.url('demo')));
  await orm.migrator.up();
  await seedIfEmpty(orm);
  const { app, stop } = await createApp({
    orm,
    publicUrl: EXAMPLE_BASE_URL,
    // No bulk settings: the app runs no bulk work, so the example bulk operation stays created and can be canceled.
    requestLogger: logger.child({}, { level: 'warn' }),
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { secret } = await createApiToken(orm.em.fork(), 'openapi examples', [...SCOPES]);
  try {
    const examples = await collectExamples(async (method, requestPath, body) => {
      const res = await fetch(url + requestPath, {
        method,
        headers: {
          authorization: `Bearer ${secret}`,
          // A string is a bulk operation's file.
          ...(body === undefined
            ? {}
            : { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' }),
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      // An export's answer (NDJSON) is its text.
      const type = res.headers.get('content-type') ?? '';
      const json = type.includes('json') && !type.includes('ndjson');
      return { status: res.status, body: json ? await res.json() : await res.text() };
    });
    await writeFile(projectFile(EXAMPLES_FILE), `${JSON.stringify(examples, null, 2)}\n`);
    process.stdout.write(`wrote ${Object.keys(examples).length} examples to ${EXAMPLES_FILE}\n`);
  } finally {
    server.close();
    server.closeAllConnections();
    await stop();
    await orm.close();
  }
} finally {
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
