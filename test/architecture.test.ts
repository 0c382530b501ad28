// The layer table of docs/architecture.md, as data: every folder and top-level file of src sits in
// exactly one layer, and a file imports only its own folder (or file) or a layer further down.
// Two folders in the same layer do not import each other either, so the table is the whole graph.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

interface Layer {
  /** Folders (`rest`) and top-level files (`app.ts`) of src. */
  units: string[];
  what: string;
}

/** Top to bottom: a unit may import from any layer below its own, never from its own or one above. */
const LAYERS: Layer[] = [
  { units: ['main.ts', 'cli'], what: 'entry points: `npm start` and the CLI commands' },
  { units: ['start-banner.ts'], what: 'what `npm start` prints' },
  { units: ['cluster.ts'], what: 'WEB_CONCURRENCY: the primary that starts the store and supervises workers' },
  { units: ['server.ts'], what: 'the running service: database, workers, HTTP server, shutdown' },
  { units: ['app.ts'], what: 'the Koa application: mounts the HTTP edge, GraphQL and REST' },
  { units: ['http'], what: 'HTTP edge around both APIs: timeouts, admission control, landing page' },
  {
    units: ['bulk'],
    what: 'bulk operations: NDJSON uploads and results, the runner applying REST lines and GraphQL mutations',
  },
  { units: ['rest'], what: 'REST v1: routes mapped onto GraphQL operations, problem+json, OpenAPI' },
  { units: ['graphql'], what: 'the schema build, Apollo, the in-process gateway, compiled execution, GraphiQL' },
  { units: ['resolvers'], what: 'GraphQL resolvers (transport only), their context, loaders and guards' },
  {
    units: ['auth', 'reads', 'webhooks', 'notifications', 'seed'],
    what: 'services beside the domain: tokens and limits, the read path, webhooks, e-mail, the demo store',
  },
  { units: ['domain'], what: 'business rules by use case, typed errors, one transaction per write' },
  { units: ['db', 'observability'], what: 'PostgreSQL (the ORM config, the embedded server, SQL helpers) and metrics' },
  { units: ['entities', 'migrations'], what: 'MikroORM entities (also GraphQL object types) and committed migrations' },
  { units: ['schema'], what: 'GraphQL vocabulary: scalars, enums, inputs, paging and sort types' },
  { units: ['periodic-task.ts'], what: 'the timer loop of background work (outbox, event purge)' },
  {
    units: ['config.ts', 'logger.ts', 'clock.ts', 'package-assets.ts', 'folder-modules.ts', 'bounded-map.ts'],
    what: 'shared basics that import nothing of src',
  },
];

const ROOT = path.resolve('.');
const SRC = path.join(ROOT, 'src');
/** Files outside src that src imports, and the folder they belong to (tools look for the ORM config at the root). */
const ROOT_FILES: Record<string, string> = { 'mikro-orm.config.ts': 'db' };

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  return nested.flat().filter((f) => f.endsWith('.ts'));
}

/** `src/domain/x.ts` → `domain`; `src/app.ts` → `app.ts`; `mikro-orm.config.ts` → `db`. */
function unitOf(file: string): string {
  const relative = path.relative(SRC, file);
  if (relative.startsWith('..')) return ROOT_FILES[path.relative(ROOT, file)] ?? path.relative(ROOT, file);
  return relative.split(path.sep)[0];
}

/** A relative specifier as the TypeScript file it names (`./x.js` → `./x.ts`; a folder stays a folder). */
function resolveSpecifier(from: string, specifier: string): string {
  return path.resolve(path.dirname(from), specifier).replace(/\.js$/, '.ts');
}

interface Import {
  file: string;
  specifier: string;
  target: string | null;
}

/**
 * Every module a file reaches: static and dynamic imports, re-exports, and folders it loads at run
 * time (`new URL('../resolvers/', import.meta.url)`, how discovery names the folder it scans).
 */
async function importsOf(file: string): Promise<Import[]> {
  const source = await readFile(file, 'utf8');
  const specifiers = [
    ...[...source.matchAll(/\bfrom\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
    ...[...source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]),
    ...[...source.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
    ...[...source.matchAll(/\bnew URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[1]),
  ];
  return [...new Set(specifiers)].map((specifier) => ({
    file,
    specifier,
    target: specifier.startsWith('.') ? resolveSpecifier(file, specifier) : null,
  }));
}

async function allImports(): Promise<Import[]> {
  const files = [...(await filesUnder(SRC)), ...Object.keys(ROOT_FILES).map((f) => path.join(ROOT, f))];
  return (await Promise.all(files.map(importsOf))).flat();
}

const layerIndex = new Map(LAYERS.flatMap((layer, index) => layer.units.map((unit) => [unit, index] as const)));
const show = (file: string) => path.relative(ROOT, file);

it('the layer table names every folder and top-level file of src, each once', async () => {
  const present = (await readdir(SRC, { withFileTypes: true }))
    .map((e) => e.name)
    .filter((name) => !name.startsWith('.'));
  const listed = LAYERS.flatMap((layer) => layer.units);
  expect(present.filter((unit) => !layerIndex.has(unit))).toEqual([]); // a new folder goes into the table first
  expect(listed.filter((unit) => !present.includes(unit))).toEqual([]); // no stale rows
  expect(new Set(listed).size).toBe(listed.length);
});

it('every import in src points to its own folder or a lower layer', async () => {
  const imports = await allImports();
  expect(imports.length).toBeGreaterThan(500);
  const offenders: string[] = [];
  for (const { file, specifier, target } of imports) {
    if (!target) continue;
    const from = unitOf(file);
    const to = unitOf(target);
    if (from === to) continue;
    const fromLayer = layerIndex.get(from);
    const toLayer = layerIndex.get(to);
    if (fromLayer === undefined || toLayer === undefined)
      offenders.push(`${show(file)} → ${specifier} (not in the layer table)`);
    else if (toLayer <= fromLayer) offenders.push(`${show(file)} → ${specifier} (${from} may not import ${to})`);
  }
  expect(offenders).toEqual([]);
});

// The REST layer maps onto GraphQL only; it never reaches the ORM, the entities or the resolvers.
it('src/rest imports nothing from src/entities, src/resolvers or @mikro-orm/*', async () => {
  const imports = (await allImports()).filter((i) => unitOf(i.file) === 'rest');
  expect(new Set(imports.map((i) => i.file)).size).toBeGreaterThan(5);
  const offenders = imports
    .filter(
      (i) =>
        i.specifier.startsWith('@mikro-orm/') || (i.target && ['entities', 'resolvers'].includes(unitOf(i.target))),
    )
    .map((i) => `${show(i.file)} → ${i.specifier}`);
  expect(offenders).toEqual([]);
});

// One concept per file: no file of src over 400 lines but the committed migrations and the demo
// store's generator (data more than code), so a file that grows past it is split by concern.
it('no file in src is over 400 lines, except migrations and the store generator', async () => {
  const exempt = (file: string) =>
    unitOf(file) === 'migrations' || path.relative(SRC, file) === path.join('seed', 'store-generator.ts');
  const files = (await filesUnder(SRC)).filter((file) => !exempt(file));
  expect(files.length).toBeGreaterThan(100);
  const lines = await Promise.all(
    files.map(async (file) => [show(file), (await readFile(file, 'utf8')).split('\n').length - 1] as const),
  );
  expect(lines.filter(([, count]) => count > 400)).toEqual([]);
});
