import { z } from 'zod';

/**
 * Seconds a client is told to wait (`Retry-After`) when the database is unreachable, on every edge
 * (REST, `/graphql`, `/metrics`): a fixed policy, here because every layer answers with it.
 */
export const UNAVAILABLE_RETRY_AFTER = '2';

/** Bytes of JSON one answer holds unless ANSWER_MAX_BYTES says otherwise (why: src/reads/answer-bytes.ts). */
export const DEFAULT_ANSWER_MAX_BYTES = 4 * 1024 * 1024;

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce.number().int().min(0).max(65535);

/** The environment the service reads (docs/decisions.md#start-up-contract), validated once at start. */
const schema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Host headers (host[:port], lower-case) that may be echoed into links when PUBLIC_URL is unset. */
  ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Slow clients: headers, the whole request, and a body must arrive within these (ms). */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /**
   * Where each process's one LISTEN connection (the wake-ups of GraphQL subscriptions) goes, when
   * DATABASE_URL is a pooler that cannot carry LISTEN (PgBouncer in transaction mode,
   * docs/deployment.md#pgbouncer); unset, it goes to DATABASE_URL.
   */
  DATABASE_LISTEN_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /** Streaming replicas for reads (docs/operations.md#read-replicas), comma-separated postgres:// URLs. */
  DATABASE_READ_URL: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, 'must be postgres:// URLs, comma-separated'))),
  /** A replica further behind the primary than this is skipped until it catches up. */
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(2000),
  DATA_DIR: z.string().min(1).default('./.data'),
  EMBEDDED_PG_PORT: port.default(0),
  SEED_DEMO: bool.default(true),
  SEED: z.coerce.number().int().min(0).default(1),
  // Any secret a bearer header can carry (one word of visible ASCII): the start-up contract honours
  // what it is given. A letter such as `€` is sent as UTF-8 bytes that Node reads back as Latin-1:
  // such a token could never be presented over HTTP (the socket's JSON would take it).
  ADMIN_TOKEN: z
    .string()
    .regex(
      /^[\x21-\x7e]+$/,
      'must be one word of visible ASCII characters (no spaces), as an Authorization: Bearer header carries it',
    )
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Store <store@localhost>'),
  OUTBOX_WORKER: bool.default(true),
  CORS_ORIGINS: z.string().optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Worker processes serving one port (node:cluster); 1 serves from the started process itself. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(1),
  /**
   * Admission control: API requests one process works on at once (default 2 × CPU cores), and per
   * token (default one less).
   */
  MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).optional(),
  MAX_IN_FLIGHT_PER_TOKEN: z.coerce.number().int().min(1).max(100_000).optional(),
  /** How long a request over those limits waits for a slot, and how many may wait, before a 503 overloaded. */
  ADMISSION_QUEUE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  ADMISSION_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).default(200),
  /**
   * REST exports one token may hold open at once on one process (each holds a pooled connection,
   * and a process holds at most half its pool of them).
   */
  EXPORTS_PER_TOKEN: z.coerce.number().int().min(1).max(10_000).default(2),
  /** An export whose client takes nothing for this long is cut (its connection closed, its snapshot ended). */
  EXPORT_STALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** How long an Idempotency-Key claim outlives a holder that stopped renewing it (crashed). */
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(200).max(600_000).default(10_000),
  /**
   * Bytes of JSON one answer holds at most (src/reads/answer-bytes.ts): a feed page or an export's
   * chunk ends early there, a list page over it is refused. 64 KiB to 256 MiB.
   */
  ANSWER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(256 * 1024 * 1024)
    .default(DEFAULT_ANSWER_MAX_BYTES),
  /** Statement timeout of reads (writes raise theirs to 30 s inside their transaction). */
  DB_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Per-token bucket (docs/decisions.md#rate-limits): refill in requests per second; 0 turns limiting off. */
  RATE_LIMIT_RPS: z.coerce.number().min(0).max(1_000_000).default(50),
  /** Per-token bucket size (the burst a token may spend at once); 0 turns limiting off. */
  RATE_LIMIT_BURST: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** Webhooks to loopback/private addresses are refused (SSRF) unless this is true (local development, tests). */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  /** Events (the feed, order timelines) are kept this many days; older ones are purged hourly by the worker. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  /** GraphQL subscriptions: WebSocket connections one token may hold open, over all instances. */
  SUBSCRIPTION_CONNECTIONS_PER_TOKEN: z.coerce.number().int().min(1).max(10_000).default(10),
  /** GraphQL subscriptions one token may run at once, over all its connections on all instances. */
  SUBSCRIPTIONS_PER_TOKEN: z.coerce.number().int().min(1).max(100_000).default(50),
  /**
   * How often an instance renews the rows of its open WebSocket connections; a row not renewed for
   * 3 beats (a killed instance's) stops counting against its token's limits.
   */
  SUBSCRIPTION_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** A webhook receiver's whole answer must arrive within this. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Bulk operations one process runs at once (docs/decisions.md#bulk-writes); 0: none run on it. */
  BULK_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(1),
  /** Bulk operations one token may have running at once, over all processes; the rest wait in `created`. */
  BULK_MAX_RUNNING: z.coerce.number().int().min(1).max(1000).default(1),
  /** The largest bulk file accepted (bytes), streamed into PostgreSQL in constant memory. */
  BULK_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024 * 1024)
    .default(100 * 1024 * 1024),
  /** Finished bulk operations, their lines and results, are kept this many days. */
  BULK_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(7),
  /** Lines a bulk runner applies per transaction, each in a savepoint of its own (a cancel waits for them). */
  BULK_LINES_PER_TRANSACTION: z.coerce.number().int().min(1).max(1000).default(1),
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {}

/** Parses the environment; a bad value fails with one line per variable naming what is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty or blank is unset (`PORT=` in a compose file): a blank PORT would otherwise be coerced to 0,
  // a random port.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
