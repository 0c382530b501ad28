// `npm run token -- create --name X --scopes a,b`: create an API token and print its secret once.
// `npm run token -- list` / `npm run token -- revoke --id N`. Beside a running `npm start` it uses
// that server's database (the embedded one of the same DATA_DIR, or DATABASE_URL).
import 'reflect-metadata';
import { createApiToken } from '../auth/api-tokens.js';
import { SCOPES } from '../auth/scopes.js';
import { revokeApiToken } from '../auth/token-management.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { INT4_MAX } from '../domain/int4.js';
import { ApiToken } from '../entities/api-token.entity.js';
import { parseCommandLine, runCommand, UsageError } from './command-line.js';

const usage = `
usage: npm run token -- create --name NAME --scopes SCOPE[,SCOPE…]   create a token; prints its secret once
       npm run token -- list                                       every token, with its dates
       npm run token -- revoke --id ID                             refuse the token from now on
options:
  --name NAME       what the token is for (create)
  --scopes LIST     comma-separated scopes, or "all" (create)
  --id ID           the token's id, as list shows it (revoke)
  -h, --help        this text
scopes: ${SCOPES.join(' ')}
Uses DATABASE_URL, or the embedded PostgreSQL of DATA_DIR (the running store's, when it runs).`;

const { positionals, values } = parseCommandLine({
  usage,
  allowPositionals: true,
  options: { name: { type: 'string' }, scopes: { type: 'string' }, id: { type: 'string' } },
});

const date = (d: Date | null) => (d ? new Date(d).toISOString().slice(0, 16).replace('T', ' ') : '—');

/** Rows as aligned columns (the last one left ragged). */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

await runCommand(async () => {
  const command = positionals[0];
  if (positionals.length !== 1 || !['create', 'list', 'revoke'].includes(command)) {
    throw new UsageError(
      command ? `unknown command "${positionals.join(' ')}"` : 'name a command: create, list or revoke',
    );
  }
  let id = 0;
  if (command === 'revoke') {
    id = Number(values.id);
    if (!values.id || !Number.isInteger(id) || id <= 0 || id > INT4_MAX)
      throw new UsageError('revoke needs --id with a token id (see npm run token -- list)');
  }
  if (command === 'create' && (!values.name || !values.scopes))
    throw new UsageError('create needs --name and --scopes');

  const database = await openDatabase(loadConfig(), { shareRunning: true });
  try {
    const em = database.orm.em.fork();
    if (command === 'create') {
      const scopes =
        values.scopes === 'all'
          ? [...SCOPES]
          : values
              .scopes!.split(',')
              .map((s) => s.trim())
              .filter(Boolean);
      const { token, secret } = await createApiToken(em, values.name!, scopes);
      process.stdout.write(
        `Token ${token.id} "${token.name}" with scopes ` +
          `${token.scopes.join(',')}:\n${secret}\n(shown once; only ` +
          `its hash is stored)\n`,
      );
    } else if (command === 'list') {
      const tokens = await em.find(ApiToken, {}, { orderBy: { id: 'asc' } });
      const rows = tokens.map((t) => [
        String(t.id),
        t.name,
        t.revokedAt ? 'revoked' : 'active',
        date(t.createdAt),
        date(t.lastUsedAt),
        date(t.revokedAt),
        t.scopes.join(','),
      ]);
      process.stdout.write(
        `${table(['ID', 'NAME', 'STATUS', 'CREATED (UTC)', 'LAST USED', 'REVOKED', 'SCOPES'], rows)}\n`,
      );
    } else {
      const token = await revokeApiToken(em, null, id); // the operator: any token
      process.stdout.write(`Token ${token.id} "${token.name}" revoked at ${date(token.revokedAt)} UTC\n`);
    }
  } finally {
    await database.close();
  }
}, usage);
