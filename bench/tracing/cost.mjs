// The CPU cost of tracing per request (docs/performance.md#tracing): server processes already
// running (each given as name=pid:port, e.g. today=1234:4101 off=1235:4102 on=1236:4103), each sent
// the same requests in interleaved rounds, and the CPU time its process used (utime + stime from
// /proc) divided by the requests. CPU per request moves far less than req/s on a machine that
// other work shares, which is why this and not throughput: run on 2 cores beside other test runs,
// req/s moved ±20 % between rounds of the same build.
//   node bench/tracing/cost.mjs today=PID:PORT off=PID:PORT on=PID:PORT [requests=3000] [rounds=5]
// The servers share a database and a token (BENCH_TOKEN, default the one below, as ADMIN_TOKEN).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const args = process.argv.slice(2);
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`${name}=`))?.split('=')[1] ?? fallback);
const servers = args
  .filter((a) => /^[a-z]+=\d+:\d+$/.test(a))
  .map((a) => {
    const [name, where] = a.split('=');
    const [pid, port] = where.split(':');
    return { name, pid, port };
  });
const AMOUNT = option('requests', 3000);
const ROUNDS = option('rounds', 5);
const token = process.env.BENCH_TOKEN ?? 'bench-token-0123456789abcdef';
/** CPU milliseconds a process has used (clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const loads = {
  'REST GET /orders?size=20': { path: '/api/v1/orders?size=20', method: 'GET' },
  'GraphQL products(size: 20)': {
    path: '/graphql',
    method: 'POST',
    body: JSON.stringify({ query: 'query P { products(size: 20) { items { id title price } } }' }),
  },
};
const perRequest = {};
for (let round = 1; round <= ROUNDS; round++) {
  for (const server of servers) {
    for (const [load, spec] of Object.entries(loads)) {
      const before = cpuMs(server.pid);
      const url = `http://127.0.0.1:${server.port}${spec.path}`;
      const run = await autocannon({
        url,
        method: spec.method,
        body: spec.body,
        headers,
        connections: 4,
        amount: AMOUNT,
      });
      if (run.non2xx || run.errors)
        throw new Error(`${server.name} ${load}: ${run.non2xx} non-2xx, ${run.errors} errors`);
      const micros = ((cpuMs(server.pid) - before) / AMOUNT) * 1000;
      (perRequest[`${load} ${server.name}`] ??= []).push(micros);
      console.log(`round ${round} ${server.name} ${load}: ${micros.toFixed(0)} µs CPU per request`);
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const load of Object.keys(loads)) {
  const [first, ...others] = servers.map((s) => ({ name: s.name, us: median(perRequest[`${load} ${s.name}`]) }));
  const against = others.map((o) => `${o.name} ${o.us.toFixed(0)} (${((o.us / first.us - 1) * 100).toFixed(1)} %)`);
  console.log(`${load}: median µs CPU per request: ${first.name} ${first.us.toFixed(0)}, ${against.join(', ')}`);
}
