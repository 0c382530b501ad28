// docs/choices.md#design-choices: the REST layer maps onto GraphQL only; it never reaches the ORM.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])));
  return nested.flat().filter((f) => f.endsWith('.ts'));
}

it('src/rest imports nothing from src/entities or @mikro-orm/*', async () => {
  const files = await filesUnder(path.resolve('src/rest'));
  expect(files.length).toBeGreaterThan(5);
  const offenders: string[] = [];
  for (const file of files) {
    const source = await readFile(file, 'utf8');
    for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      const resolved = specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : specifier;
      if (specifier.startsWith('@mikro-orm/') || resolved.includes(`${path.sep}src${path.sep}entities`) || resolved.includes(`${path.sep}resolvers`)) {
        offenders.push(`${path.relative('.', file)} → ${specifier}`);
      }
    }
  }
  expect(offenders).toEqual([]);
});
