import { pino } from 'pino';

/**
 * pino-pretty's options in a terminal: one line per entry, a request as `request GET /route 200
 * 3.1ms` and its request id, the rest of an entry's fields on the same line as JSON. (The default
 * puts every field on a line of its own: six lines per request, and the first token printed at
 * start scrolled away within seconds.)
 */
export const PRETTY_OPTIONS = {
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname,method,route,status,durationMs',
  singleLine: true,
  messageFormat: '{msg}{if method} {method} {route} {status} {durationMs}ms{end}',
};

/**
 * The level asked for, if pino knows it, else the default. The logger is built when this module is
 * imported, before the configuration is read: a value pino does not know (`verbose`) must not throw
 * here, where it would be a stack trace, but reach loadConfig (src/config.ts), which refuses it with
 * its one line naming the variable; an empty value is unset there too.
 */
function levelOf(asked: string | undefined): string {
  if (asked && (asked === 'silent' || Object.hasOwn(pino.levels.values, asked))) return asked;
  return process.env.NODE_ENV === 'test' ? 'silent' : 'info';
}

/**
 * Structured JSON logs. Authorization headers and cookies are redacted wherever they appear, so a
 * token can never reach a log line.
 */
export const logger = pino({
  level: levelOf(process.env.LOG_LEVEL),
  redact: {
    paths: ['req.headers.authorization', 'req.headers.cookie', '*.authorization', 'secret', '*.secret'],
    censor: '[redacted]',
  },
  // Readable lines in a terminal, JSON everywhere else (log shippers, CI).
  ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: PRETTY_OPTIONS } } : {}),
});
