import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const state = globalThis.__storeTestPg;
  if (!state) return;
  await state.server.stop();
  await rm(state.dir, { recursive: true, force: true });
}
