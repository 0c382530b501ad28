import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface ServerProcess {
  url: string;
  /** The started process (with WEB_CONCURRENCY > 1, the primary whose children are the workers). */
  pid: number;
  stop(): Promise<void>;
  /** Sends a signal; resolves with the exit code. */
  signal(name: NodeJS.Signals): Promise<number | null>;
}

/**
 * The Node flags `npm start` runs the service with (its heap limit among them), read from the
 * `start` script itself so a crash test keeps the production limits when they change.
 */
export function npmStartNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { scripts: Record<string, string> };
  const { scripts } = pkg;
  const command = /\bnode ((?:--\S+ )+)dist\/src\/main\.js/.exec(scripts.start);
  if (!command) throw new Error(`npm start runs no "node --flags dist/src/main.js": ${scripts.start}`);
  return command[1].trim().split(' ');
}

/**
 * Starts the built service (`dist/src/main.js`, compiled by `npm test` before Jest) as a separate
 * OS process on a free port against the given database, and resolves once it listens. `nodeFlags`
 * go to Node itself (`npmStartNodeFlags()` for the heap limit `npm start` uses).
 */
export async function startServerProcess(
  databaseUrl: string,
  adminToken: string,
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, path.resolve('dist/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: adminToken,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      OUTBOX_WORKER: 'false',
      LOG_LEVEL: 'silent',
      NODE_OPTIONS: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    // 'close' (not 'exit'): by then the output the process wrote has been read, so the error shows it.
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
    signal: (name) =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(name);
      }),
  };
}
