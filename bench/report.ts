// Renders BENCHMARKS.md from the results files of bench/run.ts (bench/results/orders-N.json), the
// "before" figures of the read-path work (bench/results/before/: the 100k results file of the run
// before it, and the GraphQL figures measured in issue 13) and the hand-written analysis in
// bench/analysis.md.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { EXPORT_RATIO_GOAL, EXPORT_RSS_GOAL_MB, type ExportResult } from './export-scenario.js';
import type { FeedResult } from './feed-scenario.js';

/** What one autocannon drive of a side measured. */
export interface DriveLoad {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface Load extends DriveLoad {
  statements?: number | null;
  /** CPU time of the side's process (user + system) per request during the measured part (absent in older runs). */
  cpuMsPerRequest?: number;
  peakRssMb?: number;
}

export interface ScenarioResult {
  name: string;
  /** Connections this result was driven with (absent in older runs: the run's `connections`). */
  connections?: number;
  service: Load & { peakRssMb: number };
  baseline: Load | null;
  sameJson: boolean | null;
  items: number | null;
  /** The same read through PostGraphile (runs with `--peer postgraphile`, scenarios with a PostGraphile operation). */
  postgraphile?: Load | null;
  /** PostGraphile's data equal to the service's after normalising names and shapes. */
  samePostGraphileData?: boolean | null;
}

export interface BenchResults {
  command: string;
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; postgres: string };
  store: { orders: number; products: number; customers: number };
  seedSeconds: number | null;
  duration: number;
  connections: number;
  /** Every connection count the run drove (the users workload: 4 and 32). */
  connectionCounts?: number[];
  /** `standard` (the scenario list) or `users` (bench/user-workload.ts); absent in older runs: standard. */
  workload?: 'standard' | 'users';
  /** Distinct search terms the users workload drew from. */
  searchTerms?: number;
  /** The GraphQL peer of the run, e.g. "PostGraphile 5.1.5". */
  peer?: string;
  /** The service's rate limit during the run (absent in runs before the bench set it itself). */
  rateLimit?: { burst: number; rps: number };
  scenarios: ScenarioResult[];
}

/** One configuration's drive of a scenario in a `--replica` or `--processes` run, CPU per request by process. */
export interface ScaleOutSide extends DriveLoad {
  cpuMsPerRequest: {
    /** The service: its process, or a supervisor and all its workers. */
    service: number;
    supervisor?: number;
    /** Each worker (WEB_CONCURRENCY > 1). */
    workers?: number[];
    /** The primary PostgreSQL: postmaster, its backends and exited children. */
    postgres: number;
    /** The streaming replica's PostgreSQL (`--replica`). */
    replica?: number;
    /** The bench process, which runs autocannon on the same cores. */
    bench: number;
  };
}

export interface ScaleOutScenario {
  name: string;
  connections: number;
  /** Primary only, or WEB_CONCURRENCY=1. */
  a: ScaleOutSide;
  /** Primary + replica, or WEB_CONCURRENCY=N. */
  b: ScaleOutSide;
  /** `--replica`: the service's db_reads_total / db_read_fallbacks_total counted during side b (warm-up included). */
  counters?: Record<string, number>;
}

/** bench/results/replica-orders-N.json and processes-orders-N.json. */
export interface ScaleOutResults {
  mode: 'replica' | 'processes';
  processes?: number;
  command: string;
  date: string;
  machine: BenchResults['machine'];
  store: BenchResults['store'];
  duration: number;
  connections: number;
  /** The machine's 1, 5 and 15 minute load averages when the run started (the cores are shared). */
  loadAverage: number[];
  sides: [string, string];
  /** `--replica`: the counters over the whole run. */
  metrics?: Record<string, number>;
  scenarios: ScaleOutScenario[];
}

/** bench/results/feed-orders-N.json: the feed scenario (bench/feed-scenario.ts) with its run. */
export interface FeedResults extends FeedResult {
  command: string;
  date: string;
  machine: BenchResults['machine'];
  store: BenchResults['store'];
  connections: number;
}

/** bench/results/export-orders-N.json: the export scenario (bench/export-scenario.ts) with its run. */
export interface ExportResults extends ExportResult {
  command: string;
  date: string;
  machine: BenchResults['machine'];
  store: BenchResults['store'];
}

/** GraphQL figures measured before the read-path work (bench/results/before/graphql-issue-13.json). */
interface GraphQLBefore {
  source: string;
  reference: string;
  scenarios: {
    name: string;
    serviceRps: [number, number];
    referenceRps: [number, number];
    ratio: number | null;
    statements: number | null;
    referenceStatements: number | null;
    cpuMsPerRequest: string | null;
    referenceCpuMsPerRequest: string | null;
  }[];
}

const MAIN_ORDERS = 100_000;
const n = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => `${x} ms`;

const latency = (l: Pick<Load, 'p50' | 'p99'>) => `${ms(l.p50)} / ${ms(l.p99)}`;
const cpu = (l: Load) => (l.cpuMsPerRequest === undefined ? '–' : `${l.cpuMsPerRequest.toFixed(2)} ms`);
/** a ÷ b to two places, or – when b is 0 (whole-millisecond latencies can be). */
export const ratioOf = (a: number, b: number) => (b ? (a / b).toFixed(2) : '–');
const same = (x: boolean | null | undefined) => (x == null ? '–' : x ? 'yes' : '**no**');

function mainTable(r: BenchResults): string {
  const rows = r.scenarios.map((s) => {
    const b = s.baseline;
    return [
      s.name,
      n(s.service.rps),
      `${ms(s.service.p50)} / ${ms(s.service.p99)}`,
      s.service.statements ?? '–',
      cpu(s.service),
      `${s.service.peakRssMb} MB`,
      b ? n(b.rps) : '–',
      b ? `${ms(b.p50)} / ${ms(b.p99)}` : '–',
      b?.statements ?? '–',
      b ? cpu(b) : '–',
      b ? (s.service.rps / b.rps).toFixed(2) : '–',
      s.sameJson === null ? '–' : s.sameJson ? 'yes' : '**no**',
      s.service.non2xx + s.service.errors,
    ];
  });
  return [
    '| scenario | service req/s | service p50 / p99 | SQL / req ' +
      '| service CPU / req | service peak RSS | baseline req/s ' +
      '| baseline p50 / p99 | baseline SQL / req | baseline CPU / req ' +
      '| ratio service/baseline | same JSON | service non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|--:|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

/**
 * The GraphQL scenarios beside PostGraphile
 * (service ÷ PostGraphile: above 1 is better for req/s, below for the rest).
 */
function peerTable(r: BenchResults): string {
  const rows = r.scenarios
    .filter((s) => s.postgraphile)
    .map((s) => {
      const p = s.postgraphile!;
      return [
        s.name,
        ...(r.connectionCounts ? [s.connections ?? r.connections] : []),
        n(s.service.rps),
        n(p.rps),
        ratioOf(s.service.rps, p.rps),
        latency(s.service),
        latency(p),
        `${ratioOf(s.service.p50, p.p50)} / ${ratioOf(s.service.p99, p.p99)}`,
        cpu(s.service),
        cpu(p),
        p.cpuMsPerRequest && s.service.cpuMsPerRequest !== undefined
          ? ratioOf(s.service.cpuMsPerRequest, p.cpuMsPerRequest)
          : '–',
        `${s.service.peakRssMb} MB`,
        p.peakRssMb === undefined ? '–' : `${p.peakRssMb} MB`,
        same(s.samePostGraphileData),
      ];
    });
  return [
    `| scenario |${r.connectionCounts ? ' connections |' : ''} service req/s | ` +
      `${r.peer} req/s | req/s service ÷ PostGraphile | ` +
      `service p50 / p99 | PostGraphile p50 / p99 | p50 / p99 service ÷ PostGraphile | ` +
      `service CPU / req | PostGraphile CPU / req | CPU service ÷ PostGraphile | ` +
      `service peak RSS | PostGraphile peak RSS | same data |`,
    `|---|${r.connectionCounts ? '--:|' : ''}--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|`,
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

/** The users workload: every scenario at every connection count, with the p99 ≤ 3 × p50 check. */
function usersTable(r: BenchResults): string {
  const rows = r.scenarios.map((s) => {
    const b = s.baseline;
    const p = s.postgraphile;
    return [
      s.name,
      s.connections ?? r.connections,
      n(s.service.rps),
      latency(s.service),
      s.service.p99 <= 3 * s.service.p50 ? 'yes' : '**no**',
      cpu(s.service),
      s.service.statements ?? '–',
      b ? n(b.rps) : '–',
      b ? latency(b) : '–',
      b ? ratioOf(s.service.rps, b.rps) : '–',
      same(s.sameJson),
      p ? n(p.rps) : '–',
      p ? latency(p) : '–',
      p ? ratioOf(s.service.rps, p.rps) : '–',
      same(s.samePostGraphileData),
      s.service.non2xx + s.service.errors,
    ];
  });
  return [
    '| scenario | connections | service req/s | service p50 / p99 | p99 ≤ 3 × p50 (goal at the widest) | ' +
      'service CPU / req | SQL / req | baseline req/s | baseline p50 / p99 | ratio ÷ baseline | same JSON | ' +
      'PostGraphile req/s | PostGraphile p50 / p99 | ratio ÷ PostGraphile | same data | service non-2xx |',
    '|---|--:|--:|--:|:-:|--:|--:|--:|--:|--:|:-:|--:|--:|--:|:-:|--:|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

function machine(r: BenchResults): string {
  const m = r.machine;
  return (
    `${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GiB memory, ` +
    `Node ${m.node}, PostgreSQL ${m.postgres} (embedded)`
  );
}

async function readJson<T>(file: string): Promise<T | undefined> {
  return readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as T,
    () => undefined,
  );
}

/**
 * Per scenario: the run before the read-path work against the 100k run now. REST "before" is
 * that run's results file; GraphQL "before" is issue 13's measurement, whose reference was
 * PostGraphile (the hand-written GraphQL baselines came with the read-path work).
 */
function beforeAfterTable(
  before: BenchResults | undefined,
  graphqlBefore: GraphQLBefore | undefined,
  after: BenchResults | undefined,
): string {
  // Until the next 100k run, "after" is the before file itself: show no after figures then.
  const afterRun = before && before.date === after?.date ? undefined : after;
  const names = [
    ...new Set([
      ...(before?.scenarios ?? []).map((s) => s.name),
      ...(graphqlBefore?.scenarios ?? []).map((s) => s.name),
      ...(afterRun?.scenarios ?? []).map((s) => s.name),
    ]),
  ];
  const range = ([low, high]: [number, number]) => (low === high ? n(low) : `${n(low)}–${n(high)}`);
  const rows = names.map((name) => {
    const rest = before?.scenarios.find((s) => s.name === name);
    const gql = graphqlBefore?.scenarios.find((s) => s.name === name);
    const now = afterRun?.scenarios.find((s) => s.name === name);
    const ratio = (s?: ScenarioResult) => (s?.baseline ? (s.service.rps / s.baseline.rps).toFixed(2) : '–');
    return [
      name,
      rest ? n(rest.service.rps) : gql ? range(gql.serviceRps) : '–',
      now ? n(now.service.rps) : '–',
      rest ? ratio(rest) : gql?.ratio != null ? `${gql.ratio.toFixed(2)} (÷ ${graphqlBefore!.reference})` : '–',
      ratio(now),
      rest ? (rest.service.statements ?? '–') : (gql?.statements ?? '–'),
      now?.service.statements ?? '–',
      rest ? `${rest.service.peakRssMb} MB` : '–',
      now ? `${now.service.peakRssMb} MB` : '–',
      rest ? ms(rest.service.p50) : '–',
      now ? ms(now.service.p50) : '–',
      now ? now.service.non2xx + now.service.errors : '–',
    ];
  });
  const peak = (r: BenchResults | undefined) =>
    r ? Math.max(...r.scenarios.map((s) => s.service.peakRssMb)) : undefined;
  return [
    ...(before
      ? [
          `- Before, REST: \`${before.command}\`, ${before.date} ` +
            `(bench/results/before/orders-${before.store.orders}.json)` +
            `; the bench then left the service's rate limit to the caller's environment and ` +
            `counted statements without it.`,
        ]
      : []),
    ...(graphqlBefore ? [`- Before, GraphQL: ${graphqlBefore.source}`] : []),
    afterRun
      ? `- After: \`${afterRun.command}\`, ${afterRun.date}, the table above` +
        `; rate limiting on (never refusing) and counted in SQL / req.`
      : '- After: no 100,000-order run since the "before" one yet (`npm run bench`).',
    ...(peak(before) !== undefined
      ? [
          `- Peak RSS of the service over the run: ${peak(before)} MB before, ` +
            `${peak(afterRun) ?? '–'} MB after (goal ≤ 250 MB).`,
        ]
      : []),
    '',
    '| scenario | req/s before | req/s after | ratio before | ratio after (÷ baseline) | ' +
      'SQL / req before | SQL / req after | ' +
      'peak RSS before | peak RSS after | p50 before | p50 after | non-2xx after |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

function scaleTable(all: BenchResults[]): string {
  const sizes = all.map((r) => r.store.orders);
  const names = all[0].scenarios.filter((s) => s.baseline).map((s) => s.name);
  const header =
    `| scenario | ${sizes.map((o) => `p50 at ${n(o)} orders`).join(' | ')} | ` +
    `${sizes.length > 1 ? `p50 ${n(sizes.at(-1)!)} ÷ p50 ${n(sizes[0])}` : ''} |`;
  const rows = names.map((name) => {
    const p50s = all.map((r) => r.scenarios.find((s) => s.name === name)?.service.p50);
    const first = p50s[0];
    const last = p50s.at(-1);
    const growth = first && last ? (last / first).toFixed(2) : '–';
    return `| ${name} | ${p50s.map((p) => (p === undefined ? '–' : ms(p))).join(' | ')} | ${growth} |`;
  });
  const rps = names.map(
    (name) =>
      `| ${name} | ${all
        .map((r) => {
          const s = r.scenarios.find((x) => x.name === name);
          return s ? `${n(s.service.rps)} (baseline ${s.baseline ? n(s.baseline.rps) : '–'})` : '–';
        })
        .join(' | ')} |`,
  );
  return [
    header,
    `|---|${sizes.map(() => '--:').join('|')}|--:|`,
    ...rows,
    '',
    `| scenario | ${sizes.map((o) => `req/s at ${n(o)} orders`).join(' | ')} |`,
    `|---|${sizes.map(() => '--:').join('|')}|`,
    ...rps,
  ].join('\n');
}

/** Cores of the machine the `--processes` section projects to. */
export const PROJECTED_CORES = 16;

function scaleOutHeader(r: ScaleOutResults): string[] {
  const load = r.loadAverage.map((x) => x.toFixed(1)).join(', ');
  return [
    `- Command: \`${r.command}\`, ${r.date}; ${machine(r as unknown as BenchResults)}`,
    `- Store: ${n(r.store.orders)} orders, ${n(r.store.products)} products, ${n(r.store.customers)} customers; ` +
      `autocannon, ${r.connections} connections, ${r.duration} s per scenario and side after a warm-up, ` +
      'the two sides ' +
      `seconds apart; load average at the start ${load} (the 2 cores are shared with other work: read the ratios)`,
    '- CPU / req: user + system time from /proc over the measured part ÷ requests, per process group: the service ' +
      '(its process, or the supervisor and every worker), PostgreSQL (the postmaster, every backend, and the ' +
      "postmaster's cutime/cstime for backends that exited), and the bench itself (autocannon). A worker's " +
      "figure is its CPU ÷ all the requests of the drive, so the workers' figures add up to the service's.",
  ];
}

/** The `db_read_fallbacks_total` reasons among counters, with their counts. */
const fallbacksOf = (counters: Record<string, number>) =>
  Object.entries(counters)
    .filter(([k]) => k.startsWith('fallbacks:'))
    .map(([k, v]) => [k.slice('fallbacks:'.length), v] as const);

const cpuMs = (x: number | undefined) => (x === undefined ? '–' : `${x.toFixed(2)} ms`);

/** A `--replica` scenario whose reads went to the replica (bench/scale-out.ts counts them from /metrics). */
export const readsOnReplica = (s: ScaleOutScenario) =>
  (s.counters?.['reads:replica-1'] ?? 0) >= s.b.requests && (s.counters?.['reads:primary'] ?? 0) * 100 <= s.b.requests;

function replicaSection(r: ScaleOutResults): string {
  const rows = r.scenarios.map((s) => {
    const c = s.counters ?? {};
    const reasons = fallbacksOf(c).map(([reason, v]) => `${reason} ${n(v)}`);
    return [
      s.name,
      n(s.a.rps),
      n(s.b.rps),
      ratioOf(s.b.rps, s.a.rps),
      latency(s.a),
      latency(s.b),
      cpuMs(s.a.cpuMsPerRequest.postgres),
      cpuMs(s.b.cpuMsPerRequest.postgres),
      cpuMs(s.b.cpuMsPerRequest.replica),
      `${cpuMs(s.a.cpuMsPerRequest.service)} / ${cpuMs(s.b.cpuMsPerRequest.service)}`,
      `${n(c['reads:replica-1'] ?? 0)} / ${n(c['reads:primary'] ?? 0)}` +
        (reasons.length ? ` (fallbacks: ${reasons.join(', ')})` : ''),
      s.a.non2xx + s.a.errors + s.b.non2xx + s.b.errors,
    ];
  });
  const m = r.metrics ?? {};
  const missed = r.scenarios.filter((s) => !readsOnReplica(s)).map((s) => s.name);
  return [
    '## A streaming replica for reads (`--replica`)',
    '',
    ...scaleOutHeader(r),
    '- Sides: the service on the primary alone, and the service with `DATABASE_READ_URL` set to one streaming ' +
      "replica of the same store (src/db/streaming-replica.ts: a base backup of the bench's data folder, then " +
      'streaming); both on the same machine. The token check and rate-limit charge stay on the primary by design ' +
      "(docs/operations.md#read-replicas), so the primary's CPU per read falls to that statement's cost, " +
      'not to zero.',
    `- Reads counted by the service's \`/metrics\` over the replica side: replica-1 ${n(m['reads:replica-1'] ?? 0)}, ` +
      `primary ${n(m['reads:primary'] ?? 0)}` +
      (fallbacksOf(m).length
        ? `; fallbacks ${fallbacksOf(m)
            .map(([reason, v]) => `${reason} ${n(v)}`)
            .join(', ')}`
        : '; no fallbacks') +
      '.',
    `- Every scenario's reads on replica-1 (at least one counted per measured request, next to none on the primary): ` +
      `${missed.length ? `**not met** for ${missed.join('; ')} (their reads ran on the primary, uncounted)` : 'met'}.`,
    '',
    '| scenario | req/s primary only | req/s with replica | ratio | p50 / p99 primary only | p50 / p99 with replica ' +
      '| primary PostgreSQL CPU / read, primary only | primary PostgreSQL CPU / read, with replica ' +
      '| replica PostgreSQL CPU / read | service CPU / req (without / with) | reads on replica-1 / primary | non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

function processesSection(r: ScaleOutResults): string {
  const k = r.processes ?? 2;
  const rows = r.scenarios.map((s) => {
    const c = s.b.cpuMsPerRequest;
    const both = c.service + c.postgres;
    return [
      s.name,
      n(s.a.rps),
      n(s.b.rps),
      ratioOf(s.b.rps, s.a.rps),
      latency(s.a),
      latency(s.b),
      cpuMs(s.a.cpuMsPerRequest.service),
      cpuMs(c.service) +
        (c.workers ? ` (supervisor ${cpuMs(c.supervisor)}; workers ${c.workers.map(cpuMs).join(' + ')})` : ''),
      `${cpuMs(s.a.cpuMsPerRequest.postgres)} / ${cpuMs(c.postgres)}`,
      cpuMs(c.bench),
      n((r.machine.cpus * 1000) / (both + c.bench)),
      n((PROJECTED_CORES * 1000) / both),
      n((PROJECTED_CORES * 1000) / c.service),
      `${((c.postgres / both) * 100).toFixed(0)} %`,
      s.a.non2xx + s.a.errors + s.b.non2xx + s.b.errors,
    ];
  });
  return [
    `## Every core: WEB_CONCURRENCY=1 vs ${k} (\`--processes ${k}\`)`,
    '',
    ...scaleOutHeader(r),
    `- Sides: the service with one process, and with a supervisor and ${k} workers on one port (src/cluster.ts); ` +
      'both on the same PostgreSQL.',
    `- Projections (from the ${k}-process side's measured CPU per request, not from its req/s): a CPU-bound ` +
      'machine serves at most cores × 1000 ÷ (CPU ms per request of everything on it) req/s. ' +
      `"${r.machine.cpus}-core model" ` +
      "counts service + PostgreSQL + the bench's autocannon, to set beside the measured req/s; " +
      `"${PROJECTED_CORES} cores, service + PostgreSQL" is one ${PROJECTED_CORES}-core machine running both ` +
      `(WEB_CONCURRENCY=${PROJECTED_CORES}, load from elsewhere); "${PROJECTED_CORES} cores, service only" is that ` +
      'machine with PostgreSQL on its own (which then needs the PostgreSQL share of that rate in cores of its own). ' +
      'These are ceilings: they assume the per-request costs stay as measured (no lock or I/O limit, ' +
      'enough connections).',
    '',
    `| scenario | req/s 1 process | req/s ${k} processes | ratio | p50 / p99, 1 | p50 / p99, ${k} ` +
      `| service CPU / req, 1 | service CPU / req, ${k} | PostgreSQL CPU / req (1 / ${k}) | bench CPU / req ` +
      `| ${r.machine.cpus}-core model req/s ` +
      `| ${PROJECTED_CORES} cores, service + PostgreSQL, req/s | ${PROJECTED_CORES} cores, service only, req/s ` +
      '| PostgreSQL share of the CPU | non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

function feedSection(r: FeedResults): string {
  const lag = (l: FeedResults['readerLagMs']) => `${ms(l.p50)} / ${ms(l.p99)} (max ${ms(l.max)})`;
  const w = r.writes;
  return [
    `## The event feed while the write mix runs, on two processes (\`--scenario feed\`)`,
    '',
    `- Command: \`${r.command}\`, ${r.date}; ${machine(r as unknown as BenchResults)}; load average at the start ` +
      `${r.loadAverage.map((x) => x.toFixed(1)).join(', ')}`,
    `- Two service processes on one store: the write mix (POST + DELETE fulfilment, ${r.connections} connections, ` +
      `${r.seconds} s after a warm-up) drives one; on the other, one reader follows \`GET /api/v1/events?after=…\` ` +
      '(size 250, the next page as soon as one arrives) and one graphql-ws client receives `Subscription.events`. ' +
      `Both received each of the ${n(r.checkedEvents)} events the scenario committed exactly once (checked ` +
      'against the event table; the run fails otherwise).',
    "- Lag: arrival at the bench minus the commit time PostgreSQL recorded for the event's transaction " +
      '(`pg_xact_commit_timestamp`, with `track_commit_timestamp` on), same machine and clock. ' +
      `The bench's own event-loop delay (p99 ${ms(r.benchLoopDelayP99Ms)}) is part of every lag.`,
    '',
    '| events committed / s | events / s the reader followed | reader caught up after the drive | ' +
      'reader lag p50 / p99 | subscriber lag p50 / p99 | reader pages | write mix req/s | write mix p50 / p99 |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|',
    `| ${n(r.committedPerSecond)} | ${n(r.followedPerSecond)} | ${ms(r.readerCatchUpMs)} | ${lag(r.readerLagMs)} | ` +
      `${lag(r.subscriberLagMs)} | ${n(r.readerPages)} | ${n(w.rps)} | ${latency(w)} |`,
  ].join('\n');
}

function exportSection(r: ExportResults): string {
  const goal = (met: boolean) => (met ? 'met' : '**not met**');
  return [
    `## The export of every order beside COPY (\`--scenario export\`)`,
    '',
    `- Command: \`${r.command}\`, ${r.date}; ${machine(r as unknown as BenchResults)}`,
    '- `GET /api/v1/orders/export` read to its complete line as fast as the bench can, beside ' +
      '`COPY (SELECT json of the same records) TO STDOUT` through the same driver (each order in its REST ' +
      "shape, every relation the export holds, by the baseline's hand-written SQL): " +
      `the export's rate ÷ COPY's is the ratio (goal ≥ ${EXPORT_RATIO_GOAL}: ${goal(r.ratio >= EXPORT_RATIO_GOAL)}).`,
    `- The service's peak RSS during that export, and during another read slowly for ${r.slowSeconds} s ` +
      `(goal ≤ ${EXPORT_RSS_GOAL_MB} MB: ${goal(Math.max(r.peakRssMb, r.slowReaderPeakRssMb) <= EXPORT_RSS_GOAL_MB)}).`,
    '',
    '| orders | export rows / s | COPY rows / s | ratio | peak RSS | peak RSS, slow reader |',
    '|--:|--:|--:|--:|--:|--:|',
    `| ${n(r.rows)} | ${n(r.rowsPerSecond)} | ${n(r.copyRowsPerSecond)} | ${r.ratio.toFixed(2)} | ` +
      `${r.peakRssMb} MB | ${r.slowReaderPeakRssMb} MB |`,
    ...(r.ordersWithItems
      ? [
          '',
          `COPY of each order's row with its line items only (less JSON per order than the export writes, ` +
            `the limit of the first runs): ${n(r.ordersWithItems.copyRowsPerSecond)} rows/s; the export ÷ that: ` +
            `${r.ordersWithItems.ratio.toFixed(2)}.`,
        ]
      : []),
    ...(r.plain
      ? [
          '',
          `The orders' own columns (\`?fields=id,email,status,…\`): ${n(r.plain.rowsPerSecond)} rows/s against ` +
            `COPY of those columns' ${n(r.plain.copyRowsPerSecond)}: ${r.plain.ratio.toFixed(2)}.`,
        ]
      : []),
  ].join('\n');
}

export async function renderBenchmarks(resultsDir: string): Promise<string> {
  const files = (await readdir(resultsDir)).filter((f) => /^orders-\d+\.json$/.test(f));
  const all: BenchResults[] = [];
  for (const file of files) all.push(JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')));
  all.sort((a, b) => a.store.orders - b.store.orders);
  const main = all.find((r) => r.store.orders === MAIN_ORDERS) ?? all.at(-1);
  const users: BenchResults[] = [];
  for (const file of (await readdir(resultsDir)).filter((f) => /^users-orders-\d+\.json$/.test(f))) {
    users.push(JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')));
  }
  users.sort((a, b) => a.store.orders - b.store.orders);
  const analysis = await readFile(path.join(resultsDir, '..', 'analysis.md'), 'utf8').catch(() => '');
  const before = await readJson<BenchResults>(path.join(resultsDir, 'before', `orders-${MAIN_ORDERS}.json`));
  const graphqlBefore = await readJson<GraphQLBefore>(path.join(resultsDir, 'before', 'graphql-issue-13.json'));
  const parts = [
    '# Benchmarks',
    '',
    '_Generated by `npm run bench` (bench/run.ts) from bench/results/*.json; ' +
      'the analysis at the end is bench/analysis.md._',
    '',
  ];
  if (main) {
    parts.push(
      `## ${n(main.store.orders)} orders, ${n(main.store.products)} products, ${n(main.store.customers)} customers`,
      '',
      `- Command: \`${main.command}\``,
      `- Date: ${main.date}`,
      `- Machine: ${machine(main)}`,
      `- Load: autocannon, ${main.connections} connections, ${main.duration} s per scenario after a short warm-up; ` +
        `service and baseline are child processes on 127.0.0.1 sharing the machine with PostgreSQL and autocannon` +
        (main.seedSeconds ? `; seeding this store took ${main.seedSeconds.toFixed(1)} s` : ''),
      '- SQL / req: statements of one request, counted on in-process instances ' +
        '(MikroORM `onQuery` for the service, a counting query function for the baseline); ' +
        'the token lookup is one of them' +
        (main.rateLimit ? ", and so is the service's rate-limit charge." : '.'),
      main.rateLimit
        ? `- Service configuration: authentication and rate limiting on (a bucket of ${n(main.rateLimit.burst)} ` +
            `refilled at ${n(main.rateLimit.rps)}/s, so nothing is refused)` +
            `; the run stops without figures if any answer of either side is not a 2xx.`
        : "- Service configuration: as the caller's environment had it (this run predates the bench setting it).",
      '- Peak RSS: VmHWM of the service process during the measured part of the scenario.',
      '',
      mainTable(main),
      '',
    );
    if (main.scenarios.some((s) => s.postgraphile)) {
      parts.push(
        `### GraphQL beside ${main.peer}`,
        '',
        `${main.peer} (bench/peers/postgraphile: Amber preset, simplified inflection, connection filters; no auth) ` +
          "serves the same database in the same run; its answers are mapped onto the service's shape and compared as " +
          'data. The service runs with auth and rate limiting on. ' +
          'CPU / req: user + system time of the server process ' +
          "(not PostgreSQL's) over the measured part ÷ requests.",
        '',
        peerTable(main),
        '',
      );
    }
  }
  for (const r of users) {
    parts.push(
      `## The users workload at ${n(r.store.orders)} orders`,
      '',
      `- Command: \`${r.command}\`, ${r.date}; ${machine(r)}`,
      `- ${r.searchTerms ? `${n(r.searchTerms)} distinct search terms, ` : ''}sorts and pages with a long tail, ` +
        `ids at random over the store (bench/user-workload.ts); ${r.duration} s per scenario and connection count; ` +
        'each connection a user with its own token; auth, rate limiting and admission control on for the service; ' +
        '12 requests per scenario compared between the sides.',
      '',
      usersTable(r),
      '',
    );
  }
  if (before || graphqlBefore) {
    parts.push(
      `## Before / after the read-path work (${n(MAIN_ORDERS)} orders)`,
      '',
      beforeAfterTable(
        before,
        graphqlBefore,
        all.find((r) => r.store.orders === MAIN_ORDERS),
      ),
      '',
    );
  }
  if (all.length > 1) {
    parts.push(
      '## Scale: the read scenarios by store size',
      '',
      ...all.map(
        (r) =>
          `- ${n(r.store.orders)} orders: \`${r.command}\`, ${r.date}` +
          `${r.seedSeconds ? `, seeded in ${r.seedSeconds.toFixed(0)} s` : ''}`,
      ),
      '',
      scaleTable(all),
      '',
    );
  }
  for (const mode of ['replica', 'processes'] as const) {
    for (const file of (await readdir(resultsDir)).filter((f) => new RegExp(`^${mode}-orders-\\d+\\.json$`).test(f))) {
      const r = JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')) as ScaleOutResults;
      parts.push(mode === 'replica' ? replicaSection(r) : processesSection(r), '');
    }
  }
  for (const file of (await readdir(resultsDir)).filter((f) => /^export-orders-\d+\.json$/.test(f))) {
    parts.push(exportSection(JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')) as ExportResults), '');
  }
  for (const file of (await readdir(resultsDir)).filter((f) => /^feed-orders-\d+\.json$/.test(f))) {
    parts.push(feedSection(JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')) as FeedResults), '');
  }
  if (analysis) parts.push(analysis.trim(), '');
  return parts.join('\n');
}
