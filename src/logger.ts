import { pino } from 'pino';

/**
 * Structured JSON logs. Authorization headers and cookies are redacted wherever they appear, so a
 * token can never reach a log line.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  redact: {
    paths: ['req.headers.authorization', 'req.headers.cookie', '*.authorization', 'secret', '*.secret'],
    censor: '[redacted]',
  },
  // Readable lines in a terminal, JSON everywhere else (log shippers, CI).
  ...(process.stdout.isTTY
    ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
    : {}),
});
