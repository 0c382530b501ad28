// A stand-in for `systemctl` in test/deployment.test.ts, where CI has no systemd: it runs the
// units of $SYSTEMD_UNITS as systemd would run what docs/deployment.md uses of them, no more.
// - `start`, `enable --now`: `ExecStart` (through /bin/sh, so its quoting holds) as `User`/`Group`
//   (when run as root), in `WorkingDirectory`, with systemd's PATH, the variables of
//   `EnvironmentFile` and then of `Environment`, `%i` as the instance; stdout and stderr to
//   $SHIM_STATE/<unit>.log (the journal's place). Type=simple: started once the process runs.
// - `stop`: `KillSignal` (SIGTERM) to the unit's process group (KillMode=control-group), or to
//   its main process only (KillMode=mixed), then SIGKILL to the group after `TimeoutStopSec`;
//   `restart` is stop then start; `reload` runs `ExecReload` with $MAINPID; `is-active`;
//   `daemon-reload` and plain `enable` change nothing here.
// Everything else a unit says (sandboxing, Restart=, dependencies) is not done.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const UNITS = process.env.SYSTEMD_UNITS ?? '/etc/systemd/system';
const STATE = process.env.SHIM_STATE ?? '/run/systemctl-shim';
const SYSTEMD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function fail(message, code = 1) {
  process.stderr.write(`systemctl (test stand-in): ${message}\n`);
  process.exit(code);
}

/** A unit's name with `.service` (`store-api@1` → `store-api@1.service`). */
const full = (name) => (name.includes('.') ? name : `${name}.service`);

/** The unit's settings, `%i` filled in: single values, and the lists Environment and EnvironmentFile. */
function unitOf(name) {
  const unit = full(name);
  const [, prefix, instance] = /^(.*?)@(.*)\.service$/.exec(unit) ?? [];
  const file = path.join(UNITS, prefix !== undefined ? `${prefix}@.service` : unit);
  if (!existsSync(file)) fail(`Unit ${unit} not found.`, 5);
  const text = readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  const settings = { Environment: [], EnvironmentFile: [] };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';') || line.startsWith('[')) continue;
    const at = line.indexOf('=');
    const key = line.slice(0, at).trim();
    const value = line
      .slice(at + 1)
      .trim()
      .replaceAll('%i', instance ?? '');
    if (Array.isArray(settings[key])) settings[key].push(value);
    else settings[key] = value;
  }
  return { unit, settings };
}

/** `A=b "C=d e"` → [['A', 'b'], ['C', 'd e']]. */
function assignments(text) {
  return (text.match(/"[^"]*"|\S+/g) ?? []).map((word) => {
    const plain = word.startsWith('"') ? word.slice(1, -1) : word;
    const at = plain.indexOf('=');
    return [plain.slice(0, at), plain.slice(at + 1)];
  });
}

function environmentOf(settings) {
  const env = { PATH: SYSTEMD_PATH, LANG: 'C.UTF-8' };
  for (const file of settings.EnvironmentFile) {
    const optional = file.startsWith('-');
    const name = optional ? file.slice(1) : file;
    if (!existsSync(name)) {
      if (optional) continue;
      fail(`EnvironmentFile ${name} not found`);
    }
    for (const raw of readFileSync(name, 'utf8').split('\n')) {
      const line = raw.trim();
      if (!line || line.startsWith('#')) continue;
      const at = line.indexOf('=');
      env[line.slice(0, at).trim()] = line
        .slice(at + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
    }
  }
  for (const value of settings.Environment) for (const [key, val] of assignments(value)) env[key] = val;
  return env;
}

function ids(settings) {
  if (process.getuid?.() !== 0 || !settings.User) return {};
  const uid = Number(spawnSync('id', ['-u', settings.User], { encoding: 'utf8' }).stdout.trim());
  const group = settings.Group ?? settings.User;
  const gid = Number(spawnSync('getent', ['group', group], { encoding: 'utf8' }).stdout.split(':')[2]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) fail(`no user ${settings.User} or group ${group}`);
  return { uid, gid };
}

const pidFile = (unit) => path.join(STATE, `${unit}.pid`);
function mainPid(unit) {
  if (!existsSync(pidFile(unit))) return undefined;
  const pid = Number(readFileSync(pidFile(unit), 'utf8'));
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  // A zombie is not running: in a container without an init, nobody may ever collect its exit.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') return undefined;
  } catch {
    return undefined;
  }
  return pid;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(name) {
  const { unit, settings } = unitOf(name);
  if (mainPid(unit)) return;
  mkdirSync(STATE, { recursive: true });
  const log = openSync(path.join(STATE, `${unit}.log`), 'a');
  const child = spawn('/bin/sh', ['-c', `exec ${settings.ExecStart}`], {
    cwd: settings.WorkingDirectory ?? '/',
    env: environmentOf(settings),
    ...ids(settings),
    detached: true,
    stdio: ['ignore', log, log],
  });
  writeFileSync(pidFile(unit), String(child.pid));
  child.unref();
  await sleep(300);
  if (!mainPid(unit)) {
    const tail = readFileSync(path.join(STATE, `${unit}.log`), 'utf8')
      .split('\n')
      .slice(-20)
      .join('\n');
    fail(`${unit} failed to start:\n${tail}`);
  }
}

async function stop(name) {
  const { unit, settings } = unitOf(name);
  const pid = mainPid(unit);
  if (!pid) return;
  const signal = settings.KillSignal ?? 'SIGTERM';
  const timeoutMs = Number.parseFloat(settings.TimeoutStopSec ?? '90') * 1000;
  const group = (sig) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // the group is gone
    }
  };
  // KillMode=mixed: the signal to the main process only (it stops its children), SIGKILL to all.
  if (settings.KillMode === 'mixed') {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  } else group(signal);
  for (const until = Date.now() + timeoutMs; Date.now() < until && mainPid(unit); ) await sleep(100);
  group('SIGKILL');
  rmSync(pidFile(unit), { force: true });
}

function reload(name) {
  const { unit, settings } = unitOf(name);
  const pid = mainPid(unit);
  if (!pid) fail(`Job for ${unit} failed: the unit is not active.`);
  if (!settings.ExecReload) fail(`Job type reload is not applicable for unit ${unit}.`);
  const command = settings.ExecReload.replaceAll('$MAINPID', String(pid));
  const run = spawnSync('/bin/sh', ['-c', command], {
    env: environmentOf(settings),
    stdio: 'inherit',
    ...ids(settings),
  });
  if (run.status !== 0) fail(`reload of ${unit} failed`);
}

const [command, ...rest] = process.argv.slice(2);
const now = rest.includes('--now');
const units = rest.filter((arg) => !arg.startsWith('-'));
switch (command) {
  case 'daemon-reload':
    break;
  case 'enable':
    if (now) for (const unit of units) await start(unit);
    else for (const unit of units) unitOf(unit);
    break;
  case 'start':
    for (const unit of units) await start(unit);
    break;
  case 'stop':
    for (const unit of units) await stop(unit);
    break;
  case 'restart':
    for (const unit of units) {
      await stop(unit);
      await start(unit);
    }
    break;
  case 'reload':
    for (const unit of units) reload(unit);
    break;
  case 'is-active': {
    const active = units.every((unit) => mainPid(full(unit)));
    process.stdout.write(`${active ? 'active' : 'inactive'}\n`);
    process.exit(active ? 0 : 3);
    break;
  }
  default:
    fail(`"${command}" is not something the test stand-in does`);
}
