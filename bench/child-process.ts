import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

/** The repository's root (the bench runs from dist/bench). */
export const root = path.resolve(import.meta.dirname, '../..');

/**
 * The V8 flags `npm start` runs the service with (package.json): a heap sized for the service
 * (≈ 60 MB live) rather than for the machine's 24 GB, which V8 would otherwise let grow to several
 * hundred MB of garbage before collecting; no Maglev (its concurrent compile jobs held ~50 MB of
 * malloc at the peak, docs/performance.md#memory); no allocation-site pretenuring (it promoted
 * every request's rows to the old generation, docs/performance.md#memory); and two malloc arenas
 * (MALLOC_ARENA_MAX=2, as npm start) instead of one per thread. The baseline runs with the same,
 * so both pay the same garbage collection and compilation.
 */
export const V8_FLAGS = [
  // As `npm start`: the tracing preload, which does nothing without OTEL_EXPORTER_OTLP_ENDPOINT.
  `--import=${path.join(root, 'dist/src/observability/tracing-preload.js')}`,
  '--max-semi-space-size=8',
  '--max-old-space-size=256',
  '--no-maglev',
  '--no-allocation-site-pretenuring',
];

/**
 * Starts a built entry point as a child on a free port of 127.0.0.1 and resolves with its URL once
 * it prints "listening on" (within `startMs`). Everything the child prints goes to `<logDir>/<logName>.log`, to tell
 * why a child stopped.
 */
export async function startChild(
  entry: string,
  env: Record<string, string>,
  options: {
    logDir: string;
    logName?: string;
    flags?: string[];
    /** How long it may take to listen. */
    startMs?: number;
    onSpawn?: (child: ChildProcess) => void;
  },
): Promise<{ url: string; child: ChildProcess }> {
  const { logDir, logName, flags = V8_FLAGS, startMs = 60_000, onSpawn } = options;
  const child = spawn(process.execPath, [...flags, path.join(root, entry)], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_OPTIONS: '', MALLOC_ARENA_MAX: '2', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Known to the caller at once, so a child that never starts is stopped with the rest.
  onSpawn?.(child);
  const logFile = createWriteStream(path.join(logDir, `${logName ?? path.basename(entry, '.js')}.log`));
  child.stdout!.pipe(logFile);
  child.stderr!.pipe(logFile);
  child.once('exit', (code, signal) => logFile.write(`\n[exited: code ${code}, signal ${signal}]\n`));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output}`)), startMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${output}`)));
  });
  return { url, child };
}
