// Lines of the project's code are at most 120 characters (docs/architecture.md#code-style). Biome
// wraps code at that width but cannot shorten a string, a template or a comment; this catches those.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs', '*.js'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const long = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // listed by git but deleted in the work tree
  }
  text.split('\n').forEach((line, i) => {
    const length = [...line].length;
    if (length > MAX) long.push(`${file}:${i + 1}: ${length} characters`);
  });
}
if (long.length) {
  process.stderr.write(`Lines over ${MAX} characters:\n${long.join('\n')}\n`);
  process.exit(1);
}
