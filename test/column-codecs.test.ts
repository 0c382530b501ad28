// Every column the schema shows is read by its scalar's codec (src/schema/scalars/scalar-codecs.ts),
// or the service does not start (src/graphql/column-codecs.ts): a column of a type PostgreSQL's JSON writer does not
// know can no longer send its records' reads silently to execution.
import type { EntityProperty } from '@mikro-orm/core';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { checkColumnCodecs } from '../src/graphql/column-codecs.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

/** Runs the check with one column of `entity` given another column type. */
async function checkWith(entity: string, property: string, columnType: string): Promise<() => void> {
  const schema = await buildStoreSchema();
  const metadata = service.orm.getMetadata();
  const prop = [...metadata].find((meta) => meta.className === entity)!.properties[property] as EntityProperty;
  return () => {
    const before = prop.columnTypes;
    prop.columnTypes = [columnType];
    try {
      checkColumnCodecs(schema, metadata);
    } finally {
      prop.columnTypes = before;
    }
  };
}

it('passes the store as it is (the service started)', async () => {
  expect(await checkWith('Customer', 'email', 'varchar(255)')).not.toThrow();
});

it('refuses a column of a type it cannot write, naming the field and the type', async () => {
  expect(await checkWith('Customer', 'email', 'uuid')).toThrow(
    /No codec .* Customer\.email \(column type uuid: String column\)/,
  );
  expect(await checkWith('Order', 'total', 'bigint')).toThrow(/Order\.total \(column type bigint: Decimal column\)/);
  expect(await checkWith('Product', 'createdAt', 'date')).toThrow(/Product\.createdAt \(column type date/);
});

it('checks embedded columns as fields of their embeddable type', async () => {
  const metadata = service.orm.getMetadata();
  const embedded = [...metadata]
    .find((meta) => meta.className === 'Order')!
    .props.find((p) => p.embedded && p.kind === 'scalar' && p.type === 'string') as EntityProperty;
  expect(embedded).toBeDefined();
  expect(await checkWith('Order', embedded.name, 'uuid')).toThrow(
    new RegExp(`\\.${embedded.embedded![1]} \\(column type uuid`),
  );
});
