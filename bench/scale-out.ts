// `npm run bench -- --replica` and `--processes N` (issue 24): the read scenarios against two
// configurations of the service in the same run, seconds apart, each with the CPU every process
// used per request (/proc): primary-only vs primary + one streaming replica of the bench's store,
// or WEB_CONCURRENCY=1 vs N. Driven by bench/run.ts, which owns the store, the children and the
// rule that no figure is reported when any answer was not a 2xx (its `drive` throws first).
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type StreamingReplica, startStreamingReplica } from '../src/db/streaming-replica.js';
import { postmasterPid, treeCpu, treeCpuBetween } from './proc-cpu.js';
import {
  type DriveLoad,
  readsOnReplica,
  type ScaleOutResults,
  type ScaleOutScenario,
  type ScaleOutSide,
} from './report.js';
import type { Scenario } from './scenario.js';

/** What bench/run.ts lends this mode. */
export interface Harness {
  dataDir: string;
  databaseUrl: string;
  adminToken: string;
  scenarios: Scenario[];
  connections: number;
  duration: number;
  warmup: number;
  log(line: string): void;
  /** Starts the service with these variables over the bench's own configuration; `name` names its log. */
  startService(env: Record<string, string>, name: string): Promise<{ url: string; child: ChildProcess }>;
  stopChild(child: ChildProcess): Promise<void>;
  /** Drives a scenario for some seconds or requests; throws (so nothing is reported) when any answer was not a 2xx. */
  drive(what: string, url: string, scenario: Scenario, length: DriveLength, connections: number): Promise<DriveLoad>;
}

type Side = { label: string; url: string; child: ChildProcess };

/** How long a drive lasts: seconds, or a number of requests. */
export type DriveLength = number | { requests: number };

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The service's counters `db_reads_total{target}` and `db_read_fallbacks_total{reason}`. */
async function readCounters(h: Harness, url: string): Promise<Record<string, number>> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${h.adminToken}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${text.slice(0, 300)}`);
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(db_reads_total|db_read_fallbacks_total)\{(?:target|reason)="([^"]+)"\} (\S+)$/.exec(line);
    if (m) out[`${m[1] === 'db_reads_total' ? 'reads' : 'fallbacks'}:${m[2]}`] = Number(m[3]);
  }
  return out;
}

const diff = (after: Record<string, number>, before: Record<string, number>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v !== 0),
  );

/**
 * Warm-up, then the measured drive, with snapshots around it of the service's processes (the
 * process, or a supervisor and its workers), PostgreSQL's (postmaster and backends, of the
 * primary and of the replica when there is one) and the bench's own (autocannon runs in it).
 * Also says how many requests the warm-up made.
 */
async function measure(
  h: Harness,
  side: Side,
  scenario: Scenario,
  pids: { primary: number; replica?: number },
  warmup: DriveLength = h.warmup,
): Promise<{ side: ScaleOutSide; warmupRequests: number }> {
  const warmed = await h.drive(`${side.label} warm-up`, side.url, scenario, warmup, h.connections);
  const servicePid = side.child.pid!;
  const snapshot = async () => ({
    service: await treeCpu(servicePid),
    primary: await treeCpu(pids.primary),
    replica: pids.replica ? await treeCpu(pids.replica) : undefined,
    bench: process.cpuUsage(),
  });
  const before = await snapshot();
  const load = await h.drive(side.label, side.url, scenario, h.duration, h.connections);
  const after = await snapshot();
  const perRequest = (ms: number) => round2(ms / load.requests);
  // Workers: the supervisor's children alive at both snapshots (a replaced worker would show as gone and new).
  const workers = [...after.service.children.entries()]
    .filter(([pid]) => before.service.children.has(pid))
    .map(([pid, ms]) => perRequest(ms - before.service.children.get(pid)!));
  const bench = (after.bench.user + after.bench.system - before.bench.user - before.bench.system) / 1000;
  const measured: ScaleOutSide = {
    rps: load.rps,
    p50: load.p50,
    p99: load.p99,
    requests: load.requests,
    non2xx: load.non2xx,
    errors: load.errors,
    cpuMsPerRequest: {
      service: perRequest(treeCpuBetween(before.service, after.service)),
      ...(workers.length ? { supervisor: perRequest(after.service.rootMs - before.service.rootMs), workers } : {}),
      postgres: perRequest(treeCpuBetween(before.primary, after.primary)),
      ...(before.replica && after.replica
        ? { replica: perRequest(treeCpuBetween(before.replica, after.replica)) }
        : {}),
      bench: perRequest(bench),
    },
  };
  return { side: measured, warmupRequests: warmed.requests };
}

function describe(s: ScaleOutSide): string {
  const c = s.cpuMsPerRequest;
  const parts = [`service ${c.service}`];
  if (c.workers) parts.push(`(supervisor ${c.supervisor}, workers ${c.workers.join(' + ')})`);
  parts.push(`PostgreSQL ${c.postgres}`);
  if (c.replica !== undefined) parts.push(`replica ${c.replica}`);
  parts.push(`bench ${c.bench}`);
  return `${s.rps.toFixed(0)} req/s p50 ${s.p50} ms p99 ${s.p99} ms; CPU ms/req: ${parts.join(', ')}`;
}

/** Until the service's /readyz shows its replica streaming within the allowed lag. */
async function replicaInUse(url: string): Promise<void> {
  for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    const body = (await res?.json().catch(() => undefined)) as { replicas?: { state?: string }[] } | undefined;
    if (body?.replicas?.[0]?.state === 'streaming') return;
  }
  throw new Error('the service did not report its replica streaming within 60 s (/readyz)');
}

/** Drops a replication slot an interrupted earlier run left on the primary (it would keep WAL forever). */
async function dropLeftoverSlot(databaseUrl: string, slot: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      'select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1 and not active',
      [slot],
    );
  } finally {
    await client.end();
  }
}

/** The replica the run started, for the bench's interrupt handler to stop too. */
export let runningReplica: StreamingReplica | undefined;

/** What a scale-out run measured; bench/run.ts adds the command, date, machine and store. */
type Measured = Omit<ScaleOutResults, 'command' | 'date' | 'machine' | 'store'>;

export async function runReplicaComparison(h: Harness): Promise<Measured> {
  const loadAverage = os.loadavg().map(round2);
  const replicaDir = path.join(h.dataDir, 'replica');
  await dropLeftoverSlot(h.databaseUrl, 'replica_replica');
  h.log('Starting a streaming replica of the store (base backup of <dataDir>/pg)…');
  const replica = await startStreamingReplica({
    primaryUrl: h.databaseUrl,
    primaryDataDir: path.join(h.dataDir, 'pg'),
    dataDir: replicaDir,
  });
  runningReplica = replica;
  const scenarios: ScaleOutScenario[] = [];
  const metrics: Record<string, number> = {};
  try {
    const pids = { primary: await postmasterPid(path.join(h.dataDir, 'pg')), replica: await postmasterPid(replicaDir) };
    const primaryOnly: Side = { label: 'primary only', ...(await h.startService({}, 'main-primary-only')) };
    const withReplica: Side = {
      label: 'primary + replica',
      ...(await h.startService({ DATABASE_READ_URL: replica.url('store'), REPLICA_MAX_LAG_MS: '' }, 'main-replica')),
    };
    try {
      await replicaInUse(withReplica.url);
      for (const scenario of h.scenarios) {
        h.log(`${scenario.name}: primary only…`);
        const { side: a } = await measure(h, primaryOnly, scenario, pids);
        h.log(`  ${describe(a)}`);
        h.log(`${scenario.name}: primary + replica…`);
        const countersBefore = await readCounters(h, withReplica.url);
        const { side: b } = await measure(h, withReplica, scenario, pids);
        const counted = diff(await readCounters(h, withReplica.url), countersBefore);
        for (const [k, v] of Object.entries(counted)) metrics[k] = (metrics[k] ?? 0) + v;
        const onReplica = counted['reads:replica-1'] ?? 0;
        h.log(`  ${describe(b)}`);
        h.log(
          `  req/s with ÷ without the replica ${(b.rps / a.rps).toFixed(2)}; primary's CPU per read ` +
            `${a.cpuMsPerRequest.postgres} → ${b.cpuMsPerRequest.postgres} ms; reads counted on replica-1 during ` +
            `warm-up and drive: ${onReplica} (${JSON.stringify(counted)})`,
        );
        scenarios.push({ name: scenario.name, connections: h.connections, a, b, counters: counted });
      }
    } finally {
      await h.stopChild(primaryOnly.child);
      await h.stopChild(withReplica.child);
    }
  } finally {
    h.log('Stopping the replica and removing its data folder…');
    await replica.destroy();
    runningReplica = undefined;
  }
  h.log(`Reads of the replica side by target over the run (/metrics): ${JSON.stringify(metrics)}`);
  const missed = scenarios.filter((s) => !readsOnReplica(s)).map((s) => s.name);
  h.log(`Every scenario's reads landed on replica-1: ${missed.length ? `NOT met for ${missed.join('; ')}` : 'met'}`);
  return {
    mode: 'replica',
    duration: h.duration,
    connections: h.connections,
    loadAverage,
    sides: ['primary only', 'primary + one streaming replica'],
    metrics,
    scenarios,
  };
}

export async function runProcessesComparison(h: Harness, processes: number): Promise<Measured> {
  const loadAverage = os.loadavg().map(round2);
  const pids = { primary: await postmasterPid(path.join(h.dataDir, 'pg')) };
  const one: Side = { label: 'WEB_CONCURRENCY=1', ...(await h.startService({ WEB_CONCURRENCY: '1' }, 'main-1')) };
  const many: Side = {
    label: `WEB_CONCURRENCY=${processes}`,
    ...(await h.startService({ WEB_CONCURRENCY: String(processes) }, `main-${processes}`)),
  };
  const scenarios: ScaleOutScenario[] = [];
  try {
    for (const scenario of h.scenarios) {
      h.log(`${scenario.name}: ${one.label}…`);
      const { side: a, warmupRequests } = await measure(h, one, scenario, pids);
      h.log(`  ${describe(a)}`);
      h.log(`${scenario.name}: ${many.label}…`);
      // Each worker compiles its own hot code from the requests it gets (connections are dealt out
      // round robin): N workers get N times the single process's warm-up requests, each as many as it
      // had, however fast this side turns out to be (N times the seconds would warm a faster side more).
      const { side: b } = await measure(h, many, scenario, pids, { requests: warmupRequests * processes });
      h.log(`  ${describe(b)}`);
      h.log(`  req/s ${processes} ÷ 1 process: ${(b.rps / a.rps).toFixed(2)}`);
      scenarios.push({ name: scenario.name, connections: h.connections, a, b });
    }
  } finally {
    await h.stopChild(one.child);
    await h.stopChild(many.child);
  }
  return {
    mode: 'processes',
    processes,
    duration: h.duration,
    connections: h.connections,
    loadAverage,
    sides: ['WEB_CONCURRENCY=1', `WEB_CONCURRENCY=${processes}`],
    scenarios,
  };
}
