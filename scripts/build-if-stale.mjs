// Runs before the CLI scripts and `npm start`: compiles only when a source is newer than the last
// build (a stamp written after a successful `tsc`), so a current build starts at once.
// Every compile starts from an empty dist/src (`--clean` does only that, before the other `tsc`
// runs): entities, migrations and resolvers are found by listing their folders
// (src/folder-modules.ts), so the compiled file of a renamed or deleted source must not linger.
// tsc recompiles every file anyway, so this costs nothing.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const STAMP = 'dist/.build-stamp';
const SOURCES = [
  'src',
  'mikro-orm.config.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];

function newest(entry) {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(entry).reduce((max, name) => Math.max(max, newest(path.join(entry, name))), stat.mtimeMs);
}

const cleanCompiledSources = () => rmSync('dist/src', { recursive: true, force: true });

if (process.argv.includes('--clean')) {
  cleanCompiledSources();
  process.exit(0);
}

// `npm run build` compiles unconditionally, then only records that the build is current.
if (process.argv.includes('--stamp-only')) {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  process.exit(0);
}

const built = statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (SOURCES.some((s) => newest(s) > built)) {
  process.stderr.write('building (sources changed since the last build)…\n');
  const started = Date.now();
  cleanCompiledSources();
  // `tsc` from node_modules/.bin (npm scripts put it first on PATH).
  const result = spawnSync('tsc', ['-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // Dated when the compile started: a file saved during it is newer, so the next run builds again.
  writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
  utimesSync(STAMP, new Date(started), new Date(started));
}
