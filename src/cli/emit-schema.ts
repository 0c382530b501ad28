// `npm run schema:emit`: writes the GraphQL schema the service runs to schema.graphql, committed
// so reviewers see API changes in diffs (a test fails when it is stale).
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { buildStoreSchema, schemaDocument } from '../graphql/build-schema.js';
import { parseCommandLine, runCommand } from './command-line.js';

parseCommandLine({
  usage:
    'usage: npm run schema:emit\nWrites the GraphQL schema the ' +
    'service runs to schema.graphql.\n  -h, --help   this text',
  options: {},
});

await runCommand(async () => {
  await writeFile('schema.graphql', schemaDocument(await buildStoreSchema()));
  process.stdout.write('wrote schema.graphql\n');
});
