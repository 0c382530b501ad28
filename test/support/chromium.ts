import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium (installed by test/support/ensure-chromium.sh), headless, with nothing that
 * phones home: the page tests count every request that leaves the service. `args` adds switches
 * (e.g. `--host-resolver-rules` to open the service by a host name).
 */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  });
}
