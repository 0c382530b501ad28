// graphql-schema-linter (default rules but the documented exceptions in .graphql-schema-linterrc)
// against the schema the service builds: every type, field, argument, input value and enum value
// described, enum values in SCREAMING_CASE.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { printSchema } from 'graphql';
import { buildStoreSchema } from '../src/graphql/build-schema.js';

const run = promisify(execFile);
const linter = path.resolve('node_modules/.bin/graphql-schema-linter');

async function lint(sdl: string): Promise<{ message: string; rule: string }[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'schema-lint-'));
  try {
    await writeFile(path.join(dir, 'schema.graphql'), sdl);
    // Exit code 1 means findings; the JSON report is on stdout either way.
    const out = await run(linter, [
      '--config-directory',
      process.cwd(),
      '--format',
      'json',
      path.join(dir, 'schema.graphql'),
    ]).catch((e: { stdout: string }) => e);
    return JSON.parse(out.stdout).errors;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('the served schema passes graphql-schema-linter with no findings', async () => {
  expect(await lint(printSchema(await buildStoreSchema()))).toEqual([]);
});

it('the linter configuration keeps the description and naming rules on', async () => {
  const findings = await lint(
    '"""Reads"""\ntype Query {\n  orders(page: Int): Int\n}\n\n' +
      '"""A status"""\nenum Status {\n  """Open"""\n  open\n}\n\n' +
      '"""Kept"""\ntype Kept {\n  """S"""\n  s: Status\n}\n',
  );
  expect(findings.map((f) => f.rule).sort()).toEqual([
    'arguments-have-descriptions',
    'defined-types-are-used',
    'enum-values-all-caps',
    'fields-have-descriptions',
  ]);
  expect(await readFile('.graphql-schema-linterrc', 'utf8')).toMatch(/relay-page-info-spec:/);
});
