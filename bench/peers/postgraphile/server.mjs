// PostGraphile 5 over the bench's store: the peer that `npm run bench -- --peer postgraphile`
// measures the service's /graphql beside. It plans each GraphQL query into SQL from PostgreSQL's
// catalog, with nothing written by hand. The setup the read-path work measured against
// (docs/performance.md#postgraphile-as-a-peer): Amber preset, simplified inflection, connection
// filters; GraphiQL, watch mode and auth off.
// Run by bench/run.ts with the project's Node (≥ 22: PostGraphile uses Promise.withResolvers):
// `node bench/peers/postgraphile/server.mjs` with DATABASE_URL and PORT (0 picks a free port).
import { createServer } from 'node:http';
import { PgSimplifyInflectionPreset } from '@graphile/simplify-inflection';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PgSimplifyInflectionPreset, PostGraphileConnectionFilterPreset],
  pgServices: [
    makePgService({ connectionString: process.env.DATABASE_URL, schemas: ['public'], poolConfig: { max: 10 } }),
  ],
  grafserv: { graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on('error', (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
await serv.addTo(server);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`PostGraphile listening on http://127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => void pgl.release().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
