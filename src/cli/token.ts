// `npm run token -- create --name X --scopes a,b`: create an API token and print its secret once.
// `npm run token -- list` / `npm run token -- revoke --id N`.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { createApiToken } from '../auth/api-tokens.js';
import { SCOPES } from '../auth/scopes.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { ValidationError } from '../domain/errors.js';
import { ApiToken } from '../entities/api-token.entity.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string' }, scopes: { type: 'string' }, id: { type: 'string' } },
});
const command = positionals[0];
if (!['create', 'list', 'revoke'].includes(command ?? '')) {
  process.stderr.write(`usage: npm run token -- create --name NAME --scopes ${SCOPES.slice(0, 2).join(',')}[,…]\n       npm run token -- list\n       npm run token -- revoke --id ID\nscopes: ${SCOPES.join(' ')}\n`);
  process.exit(2);
}

const database = await openDatabase(loadConfig());
try {
  const em = database.orm.em.fork();
  if (command === 'create') {
    const scopes = values.scopes === 'all' ? [...SCOPES] : (values.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const { token, secret } = await createApiToken(em, values.name ?? '', scopes);
    process.stdout.write(`Token ${token.id} "${token.name}" with scopes ${token.scopes.join(',')}:\n${secret}\n(shown once; only its hash is stored)\n`);
  } else if (command === 'list') {
    for (const t of await em.find(ApiToken, {}, { orderBy: { id: 'asc' } })) {
      process.stdout.write(`${t.id}\t${t.name}\t${t.scopes.join(',')}\t${t.revokedAt ? 'revoked' : 'active'}\n`);
    }
  } else {
    const token = await em.findOne(ApiToken, { id: Number(values.id) });
    if (!token) throw new ValidationError([{ field: 'id', message: `no token ${values.id}` }]);
    token.revokedAt = new Date();
    await em.flush();
    process.stdout.write(`Token ${token.id} revoked\n`);
  }
} catch (error) {
  process.stderr.write(`${error instanceof ValidationError ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
