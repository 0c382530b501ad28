// Bulk operations (docs/decisions.md#bulk-writes) as a test drives them: a file uploaded, the
// operation waited for, its results read. For a service started with bulk options (its runner runs).
import type { TestService } from './harness.js';
import { until } from './until.js';

/** Uploads `lines` as NDJSON to `/bulk-operations<path>`: '' for a REST form's file, '/uploads' for variables. */
export const uploadBulk = (service: TestService, path: string, lines: unknown[]) =>
  service.send(
    'POST',
    `/api/v1/bulk-operations${path}`,
    `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
    undefined,
    { 'content-type': 'application/x-ndjson' },
  );

/** Waits for the operation to end, then answers its results as served: the text, and its lines parsed. */
export async function bulkResults(service: TestService, operation: number, ms = 30_000) {
  await until(async () => {
    const { status } = (await service.get(`/api/v1/bulk-operations/${operation}`)).body;
    return ['completed', 'failed', 'canceled'].includes(status);
  }, ms);
  const res = await service.get(`/api/v1/bulk-operations/${operation}/results`);
  if (res.status !== 200) throw new Error(`results of bulk operation ${operation}: ${res.status} ${res.text}`);
  return {
    text: res.text,
    lines: res.text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  };
}
