// `npm run api:release`: at a release, records the API it ships in api/last-release/ (the GraphQL
// schema, the OpenAPI document's structure, the version and day), the copies `npm test` compares
// every later change with (docs/operations.md#api-versioning). Run it when the release is tagged,
// after moving CHANGELOG.md's "Unreleased" under the version's heading.
import 'reflect-metadata';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { buildStoreSchema, schemaDocument } from '../graphql/build-schema.js';
import { openApiDocument } from '../rest/openapi.js';
import { releaseCopy } from '../rest/openapi-release.js';
import { deriveRestApi } from '../rest/rest-api.js';
import { routes } from '../rest/routes.js';
import { parseCommandLine, runCommand, UsageError } from './command-line.js';

const DIR = 'api/last-release';

const { values } = parseCommandLine({
  usage:
    'usage: npm run api:release [-- --version X.Y.Z]\n' +
    `Writes the API this tree serves to ${DIR}/ as the last release's (default version: package.json's).\n` +
    "  --version X.Y.Z   the release's version\n  -h, --help        this text",
  options: { version: { type: 'string' } },
});

await runCommand(async () => {
  if (values.version !== undefined && !/^\d+\.\d+\.\d+$/.test(values.version)) {
    throw new UsageError('--version must be X.Y.Z (digits)');
  }
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
  const version = values.version ?? pkg.version;
  const schema = await buildStoreSchema();
  await mkdir(DIR, { recursive: true });
  await writeFile(`${DIR}/schema.graphql`, schemaDocument(schema));
  await writeFile(
    `${DIR}/openapi.json`,
    `${JSON.stringify(releaseCopy(openApiDocument(deriveRestApi(schema, routes))), null, 1)}\n`,
  );
  await writeFile(
    `${DIR}/release.json`,
    `${JSON.stringify({ version, date: new Date().toISOString().slice(0, 10) })}\n`,
  );
  process.stdout.write(`wrote ${DIR}/ (schema.graphql, openapi.json, release.json) for ${version}\n`);
});
