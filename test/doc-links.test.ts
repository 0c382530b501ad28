// The docs live in the repository (README.md, docs/): every document a comment or a doc cites
// exists here, with the section it names; no comment points at a document outside the repository;
// the README says why each dependency is there and docs/operations.md lists every variable the
// configuration reads; what it shows a new user (the start banner, curl lines, where each page is
// documented) is what they get. Pure file checks: no database, no server.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { startBanner } from '../src/start-banner.js';

const root = path.resolve('.');

/** Source files whose comments may cite documents: everything we write, no generated output. */
const CODE_DIRS = ['src', 'test', 'scripts', 'bench', 'examples', '.ci'];
const CODE_FILE = /\.(ts|js|mjs|cjs|yaml|yml|json)$|^run$|^\.[\w-]+rc$/;
const ROOT_FILES = [
  'jest.config.js',
  'mikro-orm.config.ts',
  'redocly.yaml',
  '.spectral.yaml',
  '.graphql-schema-linterrc',
];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'results', '.data', '.bench-data']);

/**
 * Documents that the README links and another change is writing. Once one exists, it is checked
 * like any other: take it off this list (the test says so).
 */
const BEING_WRITTEN: string[] = [];

/** A citation of a document that is not in the repository. */
const OUTSIDE = new RegExp(
  [/decisions §|§\s?\d|store-api\.md|\.\.\/shared\/|\/work\//, /toolchain[- ]notes|style\.md|DEVELOPERS\.md/]
    .map((part) => part.source)
    .join('|'),
);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? (SKIP_DIRS.has(e.name) ? [] : filesUnder(path.join(dir, e.name))) : [path.join(dir, e.name)],
    ),
  );
  return nested.flat();
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Every code file but this one, which has to name what it looks for. */
async function codeFiles(): Promise<string[]> {
  const found = (await Promise.all(CODE_DIRS.map((d) => filesUnder(path.join(root, d))))).flat();
  const self = path.join(root, 'test', 'doc-links.test.ts');
  return [
    ...found.filter((f) => CODE_FILE.test(path.basename(f)) && f !== self),
    ...ROOT_FILES.map((f) => path.join(root, f)),
  ];
}

async function markdownFiles(): Promise<string[]> {
  const docs = (await filesUnder(path.join(root, 'docs'))).filter((f) => f.endsWith('.md'));
  return [
    path.join(root, 'README.md'),
    path.join(root, 'BENCHMARKS.md'),
    path.join(root, 'bench', 'analysis.md'),
    ...docs,
  ];
}

/** GitHub's anchors for a Markdown file's headings (lower-case, punctuation dropped, spaces → -). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one cited target (`docs/x.md#part`), seen from `from`; undefined when fine. */
async function checkTarget(target: string, from: string, candidates: string[]): Promise<string | undefined> {
  const [file, anchor] = target.split('#');
  let resolved: string | undefined;
  for (const base of candidates) {
    const full = path.resolve(base, file);
    if (full.startsWith(root + path.sep) && (await exists(full))) {
      resolved = full;
      break;
    }
  }
  if (!resolved) {
    const pending = candidates.some((base) => BEING_WRITTEN.includes(path.relative(root, path.resolve(base, file))));
    return pending ? undefined : `${path.relative(root, from)} cites ${target}, which is not in the repository`;
  }
  if (anchor === undefined || !resolved.endsWith('.md')) return undefined;
  if (!headingAnchors(await readFile(resolved, 'utf8')).has(anchor))
    return `${path.relative(root, from)} cites ${target}: ${file} has no section #${anchor}`;
  return undefined;
}

it('finds sections the way GitHub names them', () => {
  const anchors = headingAnchors(
    '# Choices\n## REST choices\n### `Idempotency-Key`\n' +
      '## GraphQL depth, complexity and cost\n## Tokens\n## Tokens\n```\n# not a heading\n```',
  );
  expect([...anchors]).toEqual([
    'choices',
    'rest-choices',
    'idempotency-key',
    'graphql-depth-complexity-and-cost',
    'tokens',
    'tokens-1',
  ]);
});

it('every document a code comment cites is in the repository, with the section it names', async () => {
  const problems: string[] = [];
  const files = await codeFiles();
  expect(files.length).toBeGreaterThan(100);
  let citations = 0;
  for (const file of files) {
    const source = await readFile(file, 'utf8');
    for (const [target] of source.matchAll(/(?<![\w/.:-])(?:[\w-]+\/)*[\w.-]+\.md(?:#[\w-]+)?/g)) {
      citations++;
      // A path is read from the repository root, or (a bare name) beside the citing file.
      const problem = await checkTarget(target, file, [root, path.dirname(file)]);
      if (problem) problems.push(problem);
    }
  }
  expect(citations).toBeGreaterThan(50);
  expect(problems).toEqual([]);
});

it('no comment cites a document outside the repository', async () => {
  const offenders: string[] = [];
  for (const file of await codeFiles()) {
    const relative = path.relative(root, file);
    const source = await readFile(file, 'utf8');
    offenders.push(
      ...source.split('\n').flatMap((line, i) => (OUTSIDE.test(line) ? [`${relative}:${i + 1}: ${line.trim()}`] : [])),
    );
  }
  expect(offenders).toEqual([]);
});

it('every link between the Markdown documents leads to a file and section that exist', async () => {
  const problems: string[] = [];
  const files = await markdownFiles();
  for (const file of files) {
    const markdown = await readFile(file, 'utf8');
    for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // http(s), mailto: not ours to check
      const problem = target.startsWith('#')
        ? headingAnchors(markdown).has(target.slice(1))
          ? undefined
          : `${path.relative(root, file)} links ${target}, a section it does not have`
        : await checkTarget(target, file, [path.dirname(file)]);
      if (problem) problems.push(problem);
    }
  }
  expect(problems).toEqual([]);
});

it('lists as being written only documents that do not exist yet', async () => {
  const written = await Promise.all(
    BEING_WRITTEN.map(async (file) => ((await exists(path.join(root, file))) ? [file] : [])),
  );
  expect(written.flat()).toEqual([]); // these exist now: take them off BEING_WRITTEN
});

it('the README links every document in docs/', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const docs = (await readdir(path.join(root, 'docs'))).filter((f) => f.endsWith('.md'));
  expect(docs.length).toBeGreaterThan(3);
  expect(docs.filter((doc) => !readme.includes(`](docs/${doc}`))).toEqual([]);
});

it('the README says why each dependency is there', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Dependencies and why'));
  expect(table.length).toBeGreaterThan(1000);
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  const named = (name: string) =>
    table.includes(`\`${name}\``) || (name.startsWith('@types/') && table.includes('`@types/*`'));
  const unexplained = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
    (name) => !named(name),
  );
  expect(unexplained).toEqual([]);
});

it('docs/operations.md lists every variable the configuration reads', async () => {
  const config = await readFile(path.join(root, 'src', 'config.ts'), 'utf8');
  const variables = [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  expect(variables).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'RATE_LIMIT_RPS']));
  const operations = await readFile(path.join(root, 'docs', 'operations.md'), 'utf8');
  expect(variables.filter((name) => !operations.includes(`| \`${name}\` |`))).toEqual([]);
});

it('the README sends each page it describes to the document about that page', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const pages = { '/docs': 'docs/rest.md', '/docs/graphql': 'docs/graphql.md' };
  for (const [page, doc] of Object.entries(pages)) {
    const name = `**\`${page}\`**`;
    const from = readme.indexOf(name) + name.length;
    expect(from).toBeGreaterThan(name.length);
    // What the README says of the page: up to the next page it names, or the next item.
    const said = readme.slice(from).split(/\*\*`|\n- /)[0];
    const links = [...said.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]);
    expect({ page, links }).toEqual({ page, links: [doc] });
  }
});

it('the README shows the start banner as `npm start` prints it', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const shown = /On first start you see:\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
  const base = 'http://127.0.0.1:3000';
  expect(shown).toBe(startBanner({ url: base, seeded: true, firstToken: 'sk_…' }, base));
});

/** The parts of a shell line outside quotes, where zsh and bash expand `?`, `*` and `[`. */
const unquoted = (line: string) => line.replace(/'[^']*'|"[^"]*"/g, '');

it('every curl line of the docs can be pasted into zsh (its URL quoted where it has a query)', async () => {
  const offenders: string[] = [];
  let lines = 0;
  for (const file of await markdownFiles()) {
    let fenced = false;
    for (const [i, line] of (await readFile(file, 'utf8')).split('\n').entries()) {
      if (line.startsWith('```')) fenced = !fenced;
      const curl = fenced ? line.indexOf('curl ') : -1;
      if (curl < 0) continue;
      lines++;
      if (/[?*[]/.test(unquoted(line.slice(curl)))) offenders.push(`${path.relative(root, file)}:${i + 1}: ${line}`);
    }
  }
  expect(lines).toBeGreaterThanOrEqual(5);
  expect(offenders).toEqual([]);
});
