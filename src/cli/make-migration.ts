// Developer tool: `npm run migration:create` diffs the entities against the committed
// migrations (applied to a throw-away embedded PostgreSQL) and writes the next migration.
import 'reflect-metadata';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { parseCommandLine, runCommand, UsageError } from './command-line.js';

const { positionals } = parseCommandLine({
  usage:
    'usage: npm run migration:create -- NAME\nDiffs the entities ' +
    'against the committed migrations and writes the next one.\n' +
    '  -h, --help   this text',
  options: {},
  allowPositionals: true,
});

/**
 * Checks, foreign keys, indexes, triggers and functions that earlier migrations wrote by hand
 * because the entities cannot declare them (a check on a text column, a foreign key on a plain id
 * column, an expression index, the row-count triggers): in the database, not in the entities'
 * schema. The generator would propose to drop each of them (and, in `down`, to recreate the
 * triggers as empty functions it names `<table>_<trigger>_fn`).
 */
async function handWrittenObjects(orm: MikroORM): Promise<Set<string>> {
  const rows: { name: string }[] = await orm.em.getConnection().execute(
    `select conname as name from pg_constraint join pg_namespace on pg_namespace.oid = connamespace
      where nspname = 'public' and contype in ('c', 'f')
     union
     select index.relname from pg_index join pg_class index on index.oid = indexrelid
       join pg_namespace on pg_namespace.oid = index.relnamespace
      where nspname = 'public' and not indisprimary
     union
     select unnest(array[tgname, relname || '_' || tgname || '_fn']) from pg_trigger
       join pg_class on pg_class.oid = tgrelid join pg_namespace on pg_namespace.oid = relnamespace
      where nspname = 'public' and not tgisinternal
     union
     select proname from pg_proc join pg_namespace on pg_namespace.oid = pronamespace where nspname = 'public'`,
  );
  const target = orm.schema.getTargetSchema();
  const declared = new Set<string>(target.getRoutines().map((routine) => routine.name));
  for (const table of target.getTables()) {
    for (const fk of Object.values(table.getForeignKeys())) declared.add(fk.constraintName);
    for (const index of table.getIndexes()) declared.add(index.keyName);
    for (const check of table.getChecks()) declared.add(check.name);
    for (const trigger of table.getTriggers()) declared.add(trigger.name);
  }
  return new Set(rows.map((r) => r.name).filter((name) => !declared.has(name)));
}

/**
 * The generated migration without the statements that name a hand-written object; undefined when
 * nothing else is left. (`ignoreTriggers` and `ignoreRoutines` already keep hand-written triggers
 * and functions out of `up`, not out of `down`.)
 */
function withoutHandWritten(source: string, names: Set<string>): string | undefined {
  const mentions = (sql: string) => [...names].some((name) => new RegExp(`\\b${name}\\b`).test(sql));
  let kept = 0;
  const trimmed = source.replace(/^ *this\.addSql\(`[\s\S]*?`\);\n/gm, (statement) => {
    if (mentions(statement)) return '';
    kept++;
    return statement;
  });
  const tidy = trimmed
    .replace(/\n{3,}/g, '\n\n')
    .replace(/(Promise<void> \{\n)\n+/g, '$1')
    .replace(/\n\n+( {2}\}\n)/g, '\n$1');
  return kept ? tidy : undefined;
}

await runCommand(async () => {
  if (positionals.length !== 1 || !/^[a-z][a-z0-9_]*$/.test(positionals[0])) {
    throw new UsageError('name the migration: one word of a-z, 0-9 and _ (npm run migration:create -- add_x)');
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'store-migration-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  try {
    await server.createDatabase('store');
    const orm = await MikroORM.init(
      ormConfig(server.url('store'), {
        migrations: {
          path: path.resolve('src/migrations'),
          emit: 'ts',
          snapshot: false,
          migrationsList: (await import('../migrations/index.js')).migrationsList,
        },
        schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
      }),
    );
    try {
      await orm.migrator.up();
      const handWritten = await handWrittenObjects(orm);
      const result = await orm.migrator.create(path.resolve('src/migrations'), false, false, positionals[0]);
      const file = result.fileName ? path.resolve('src/migrations', result.fileName) : undefined;
      const source = file && withoutHandWritten(await readFile(file, 'utf8'), handWritten);
      if (file && source) await writeFile(file, source);
      else if (file) await rm(file);
      const wrote = `wrote src/migrations/${result.fileName} (found at the next start; nothing to register)`;
      console.log(source ? wrote : 'no changes');
    } finally {
      await orm.close();
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
