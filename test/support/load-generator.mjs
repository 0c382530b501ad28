// A load generator in its own process: autocannon parsing 200 connections' answers in the test's
// process would delay the test's own /healthz probe, and the probe would measure the test, not the
// service. Usage: node load-generator.mjs '<json: {url, path, tokens, connections, duration}>'.
// Prints `started` once the load runs, then one JSON line: statuses, unavailable answers, errors.
import autocannon from 'autocannon';

const { url, path, tokens, connections, duration } = JSON.parse(process.argv[2]);
const statuses = {};
let unavailable = 0;
const onResponse = (status, body) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (/database is unavailable/i.test(body)) unavailable++;
  if (status === 503 && !body.includes('/problems/overloaded')) unavailable++;
};
const runs = tokens.map((token) =>
  autocannon({
    url,
    connections,
    duration,
    timeout: 30, // latency is not what the load pins; a dropped or 5xx answer is
    requests: [{ method: 'GET', path, headers: { authorization: `Bearer ${token}` }, onResponse }],
  }),
);
console.log('started');
const results = await Promise.all(runs);
const errors = results.reduce((n, r) => n + r.errors + r.timeouts, 0);
console.log(JSON.stringify({ statuses, unavailable, errors }));
