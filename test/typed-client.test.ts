// A client generated from the served document is usable under `strict`: openapi-typescript makes
// the types, examples/typed-client.ts (openapi-fetch) must type-check with them and then run
// against the service (list, read with expand, search, patch).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestService, type TestService } from './support/harness.js';

const run = promisify(execFile);

let service: TestService;
let dir: string;
beforeAll(async () => {
  service = await startTestService();
  // Inside the project, so `openapi-fetch` resolves from its node_modules.
  await mkdir(path.resolve('node_modules/.cache'), { recursive: true });
  dir = await mkdtemp(path.resolve('node_modules/.cache/typed-client-'));
});
afterAll(async () => {
  await service.stop();
  await rm(dir, { recursive: true, force: true });
});

it('types generated from the served document type-check a strict openapi-fetch program, which then runs', async () => {
  const document = (await service.get('/api/v1/openapi.json', null)).body;
  await writeFile(path.join(dir, 'store-api.d.ts'), astToString(await openapiTS(document)));
  await copyFile('examples/typed-client.ts', path.join(dir, 'typed-client.ts'));
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: false,
        target: 'es2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        skipLibCheck: false,
        types: [],
        lib: ['es2023', 'dom'],
        outDir: 'out',
      },
      files: ['typed-client.ts', 'store-api.d.ts'],
    }),
  );
  const tsc = await run(path.resolve('node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json')]).catch(
    (e: { stdout: string }) => e,
  );
  expect(tsc.stdout).toBe('');

  const { tour } = await import(pathToFileURL(path.join(dir, 'out', 'typed-client.js')).href);
  const result = await tour(service.url, service.token);
  expect(result).toMatchObject({
    newestId: expect.any(Number),
    newestStatus: expect.any(Number),
    notes: 'Call before delivery',
    etag: expect.stringMatching(/^"/),
  });
  expect(result.units).toBeGreaterThan(0);
  expect(result.collectionProducts.length).toBeGreaterThan(0);
  expect(result.orderTotal).toMatch(/^\d+\.\d{2}$/);
}, 60_000);
