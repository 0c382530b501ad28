// The served OpenAPI document passes Spectral (spectral:oas) and Redocly (recommended) with no
// errors and no warnings; the only rule off is documented in redocly.yaml.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestService } from './support/harness.js';

const run = promisify(execFile);
const bin = (name: string) => path.resolve('node_modules/.bin', name);
// No update checks or telemetry from the linters: the suite runs offline.
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_UPDATE_NOTIFIER: '1',
};

let service: TestService;
let dir: string;
let file: string;
beforeAll(async () => {
  service = await startTestService();
  dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
  file = path.join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify((await service.get('/api/v1/openapi.json', null)).body));
});
afterAll(async () => {
  await service.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a linter; a non-zero exit (findings) still has its report on stdout. */
const report = (command: string, args: string[]) =>
  run(bin(command), args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }).catch((e: { stdout: string }) => e);

it('Spectral (spectral:oas) finds nothing', async () => {
  const { stdout } = await report('spectral', [
    'lint',
    '--ruleset',
    path.resolve('.spectral.yaml'),
    '--format',
    'json',
    '--quiet',
    file,
  ]);
  const findings = JSON.parse(stdout || '[]') as { code: string; message: string; path: string[] }[];
  expect(findings.map((f) => `${f.code}: ${f.message} at ${f.path.join('.')}`)).toEqual([]);
}, 60_000);

it('Redocly (recommended) finds nothing', async () => {
  const { stdout } = await report('redocly', [
    'lint',
    '--config',
    path.resolve('redocly.yaml'),
    '--format',
    'json',
    file,
  ]);
  const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; message: string }[];
  };
  expect(result.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 60_000);
