import cluster from 'node:cluster';
import { createServer } from 'node:net';
import { type Config, ConfigError } from '../config.js';

/** The port the service is to listen on is taken (or not ours to take): said in one line, with what to do. */
export class PortUnavailableError extends ConfigError {}

/**
 * Refuses a start whose PORT is busy before anything else happens: before the embedded PostgreSQL
 * cluster is created or started, migrations run or the first token is made (the listen comes last
 * in the start, docs/decisions.md#start-up-contract). The port is bound and let go at once; a
 * process that takes it in between still fails the listen itself. PORT=0 (any free port) and a
 * WEB_CONCURRENCY worker (its primary checked) skip the check.
 */
export async function ensurePortFree(config: Pick<Config, 'HOST' | 'PORT'>): Promise<void> {
  if (config.PORT === 0 || cluster.isWorker) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(portError(error, config) ?? error));
    probe.listen({ port: config.PORT, host: config.HOST, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The one-line refusal for a listen's error, or null when the error is not about the port. */
export function portError(error: NodeJS.ErrnoException, { HOST, PORT }: Pick<Config, 'HOST' | 'PORT'>) {
  const where = `${HOST.includes(':') ? `[${HOST}]` : HOST}:${PORT}`;
  if (error.code === 'EADDRINUSE')
    return new PortUnavailableError(
      `Port ${PORT} is already in use on ${HOST} (is the store already running?): ` +
        `stop what listens on ${where}, or set PORT to a free port, e.g. PORT=${PORT === 3000 ? 3001 : 3000} npm start`,
    );
  if (error.code === 'EACCES')
    return new PortUnavailableError(
      `Port ${PORT} on ${HOST} needs privileges this process lacks: set PORT to 1024 or above ` +
        '(and put a reverse proxy on 80 and 443: docs/deployment.md#tls-reverse-proxy)',
    );
  if (error.code === 'EADDRNOTAVAIL')
    return new PortUnavailableError(`HOST ${HOST} is not an address of this machine: set HOST (e.g. HOST=0.0.0.0)`);
  return null;
}
