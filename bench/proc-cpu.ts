// CPU time of processes from Linux's /proc, for the bench's per-process CPU per request: a single
// process, or a parent with its children (PostgreSQL's postmaster and its backends, the service's
// cluster supervisor and its workers).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Clock ticks per second of /proc/<pid>/stat's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100;

interface Stat {
  ppid: number;
  /** utime + stime, ms. */
  ownMs: number;
  /** cutime + cstime, ms: what its children that have exited and were waited for used. */
  exitedChildrenMs: number;
}

async function stat(pid: number): Promise<Stat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!text) return undefined;
  // Fields after the command (which may hold spaces): state is field 3, so field k is at k - 3.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ms = (ticks: string) => (Number(ticks) * 1000) / CLOCK_TICKS;
  return { ppid: Number(f[1]), ownMs: ms(f[11]) + ms(f[12]), exitedChildrenMs: ms(f[13]) + ms(f[14]) };
}

/** CPU time (user + system) a process has used so far, in ms. */
export async function cpuMs(pid: number): Promise<number> {
  const s = await stat(pid);
  if (!s) throw new Error(`process ${pid} is gone`);
  return s.ownMs;
}

export interface TreeCpu {
  /** The parent's own CPU, ms. */
  rootMs: number;
  /** Each live child's own CPU, ms, by pid. */
  children: Map<number, number>;
  /** The parent's cutime + cstime: children that have exited (PostgreSQL backends of closed connections). */
  exitedMs: number;
}

/** A parent's CPU and that of each of its live children (from every /proc/<pid>/stat's parent pid). */
export async function treeCpu(pid: number): Promise<TreeCpu> {
  const root = await stat(pid);
  if (!root) throw new Error(`process ${pid} is gone`);
  const children = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = await stat(Number(name));
    if (s?.ppid === pid) children.set(Number(name), s.ownMs);
  }
  return { rootMs: root.ownMs, children, exitedMs: root.exitedChildrenMs };
}

/** All of a tree's CPU so far: parent, live children, exited children. */
export const totalMs = (t: TreeCpu) => t.rootMs + t.exitedMs + [...t.children.values()].reduce((a, b) => a + b, 0);

/**
 * CPU used between two snapshots of a tree, in ms. A child that exited in between had its time
 * moved into the parent's cutime/cstime, so the totals' difference counts it once; a child born
 * in between counts from 0.
 */
export const treeCpuBetween = (before: TreeCpu, after: TreeCpu) => totalMs(after) - totalMs(before);

/** PostgreSQL's postmaster: line 1 of `postmaster.pid` in its data folder. */
export async function postmasterPid(pgDataDir: string): Promise<number> {
  const text = await readFile(path.join(pgDataDir, 'postmaster.pid'), 'utf8');
  return Number(text.split('\n')[0]);
}
