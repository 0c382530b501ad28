// What every `npm run <cli>` shares: `--help`, strict options with a one-line error, and expected
// failures (bad input, configuration, an unreachable database) as one line instead of a stack.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { DatabaseInUseError } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { DomainError } from '../domain/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLine<O extends Options> {
  /** Printed by `--help` (and after a usage error). */
  usage: string;
  options: O;
  allowPositionals?: boolean;
}

/** A usage mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export function parseCommandLine<O extends Options>(spec: CommandLine<O>, argv = process.argv.slice(2)) {
  const parse = () =>
    parseArgs({
      args: argv,
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } } as O & {
        help: { type: 'boolean'; short: 'h' };
      },
      allowPositionals: spec.allowPositionals ?? false,
      strict: true,
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    // node:util names the problem well ("Unknown option '--nme'"); say it in one line, then how to call.
    fail(
      new UsageError((error as Error).message.split('\n')[0].replace(/\. To specify a positional.*$/, '')),
      spec.usage,
    );
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${spec.usage.trim()}\n`);
    process.exit(0);
  }
  return parsed;
}

function fail(error: unknown, usage?: string): never {
  const expected =
    error instanceof UsageError ||
    error instanceof DomainError ||
    error instanceof ConfigError ||
    error instanceof DatabaseInUseError;
  let line: string;
  if (error instanceof UsageError) line = `error: ${error.message}\n${usage ? `${usage.trim()}\n` : ''}`;
  else if (isDatabaseUnavailable(error))
    line = `error: the database is not reachable (${firstLine(error)}); check DATABASE_URL, or start the store\n`;
  else if (error instanceof ConfigError) line = `${error.message}\n`;
  else if (expected) line = `error: ${firstLine(error)}\n`;
  else line = `error: ${firstLine(error)} (LOG_LEVEL=debug shows the details)\n`;
  process.stderr.write(line);
  if (!expected && process.env.LOG_LEVEL === 'debug') process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.trim().split('\n')[0];
}

/** Runs a command; whatever it throws ends the process with one line on stderr. */
export async function runCommand(main: () => Promise<void>, usage?: string): Promise<void> {
  try {
    await main();
  } catch (error) {
    fail(error, usage);
  }
}
