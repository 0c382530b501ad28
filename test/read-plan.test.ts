// The read path is derived from the entities' metadata (src/reads/read-plan.ts): src/reads names
// no table and no column of its own, so a relation lives in one place, the entity.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { FieldResolver, Resolver, Root } from 'type-graphql';
import ts from 'typescript';
import { Reads } from '../src/reads/field-reads.js';
import { checkDeclaredReads } from '../src/reads/read-plan.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

/** The text of every string and template literal of a TypeScript file (template parts without their `${}`). */
function literalsOf(file: string, source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      // Module specifiers are paths, not SQL.
      if (!ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent)) found.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return found;
}

it('src/reads holds no table or column name as a string literal', async () => {
  const names = new Set<string>();
  for (const meta of service.orm.getMetadata().getAll().values()) {
    if (meta.embeddable || meta.virtual || !meta.tableName) continue;
    names.add(meta.tableName);
    for (const prop of meta.props) for (const column of prop.fieldNames ?? []) names.add(column);
  }
  expect([...names]).toEqual(expect.arrayContaining(['orders', 'line_item', 'order_id', 'id']));

  const dir = path.resolve('src/reads');
  const offending: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.ts'))) {
    for (const literal of literalsOf(file, await readFile(path.join(dir, file), 'utf8'))) {
      // Words after `::` are PostgreSQL types (`::text`), not names of this store.
      for (const word of literal.match(/(?<!::)\b[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
        if (names.has(word)) offending.push(`${file}: '${word}' in ${JSON.stringify(literal)}`);
      }
    }
  }
  expect(offending).toEqual([]);
});

it(
  'reads an entity list relation through its @Field alone, ' + 'in its orderBy (Order.lineItems, Product.images)',
  async () => {
    const [order] = await service.sql<{ id: number }>(
      'select order_id as id from line_item group by order_id having count(*) > 1 order by order_id limit 1',
    );
    const lines = await service.sql<{ id: number; title: string }>(
      'select id, title from line_item where order_id = ? order by id',
      [order.id],
    );
    const res = await service.graphql('query ($id: Int!) { order(id: $id) { lineItems { id title } } }', {
      id: order.id,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.order.lineItems).toEqual(lines);

    const [product] = await service.sql<{ id: number }>(
      'select product_id as id from product_image group by product_id having count(*) > 1 order by product_id limit 1',
    );
    const images = await service.sql<{ id: number }>(
      'select image_id as id from product_image where product_id = ? order by position, id',
      [product.id],
    );
    const shown = await service.graphql('query ($id: Int!) { product(id: $id) { images { id } } }', { id: product.id });
    expect(shown.body.errors).toBeUndefined();
    expect(shown.body.data.product.images).toEqual(images);
  },
);

it('src types rows as what they are: no double cast (`as unknown as`) anywhere', async () => {
  const files = (await readdir(path.resolve('src'), { recursive: true })).filter((f) => f.endsWith('.ts'));
  const casts: string[] = [];
  for (const file of files) {
    const text = await readFile(path.resolve('src', file), 'utf8');
    if (/\bas unknown as\b/.test(text)) casts.push(file);
  }
  expect(files.length).toBeGreaterThan(50);
  expect(casts).toEqual([]);
});

it('refuses to start with a field resolver that @Reads a property its entity lacks', () => {
  expect(() => checkDeclaredReads(service.orm.getMetadata())).not.toThrow();
  // Declared here, after the service started, on the entity class the service's ORM discovered.
  const order = service.orm.getMetadata().getByClassName('Order').class;
  @Resolver(() => order)
  class MisspeltReads {
    @Reads('ipFial')
    @FieldResolver(() => Boolean)
    misspelt(@Root() order: { ipFail: boolean }): boolean {
      return order.ipFail;
    }
  }
  expect(MisspeltReads).toBeDefined();
  expect(() => checkDeclaredReads(service.orm.getMetadata())).toThrow("@Reads('ipFial'): Order has no ipFial");
});
