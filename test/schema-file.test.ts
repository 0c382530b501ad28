// The committed schema.graphql is the schema that runs (`npm run schema:emit` refreshes it).
import { readFile } from 'node:fs/promises';
import { buildStoreSchema, schemaDocument } from '../src/graphql/build-schema.js';

it('schema.graphql matches the schema built from the resolvers', async () => {
  const committed = await readFile('schema.graphql', 'utf8');
  expect(committed).toBe(schemaDocument(await buildStoreSchema()));
});
