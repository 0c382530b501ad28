import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Server-side request forgery guard (docs/integrations.md#ssrf-guard): webhooks go to public
 * http(s) endpoints only. Loopback, private, link-local, shared (CGNAT), multicast and reserved
 * addresses are refused, both when a subscription is made and at every connection (the resolved
 * address is checked as the socket connects, so a name that later resolves to 10.0.0.1 is still
 * refused). `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` lifts it for local development and the tests.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function allowPrivateTargets(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['true', '1'].includes(env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? '');
}

/** Whether an IP address is loopback, private or otherwise not a public destination. */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isNonPublicAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class TargetRefusedError extends Error {}

/** `dns.lookup` for webhook sockets: refuses a non-public address unless allowed. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true as const }, (error, list) => {
      if (error) return callback(error, '', 4);
      const refused = allowPrivate ? undefined : list.find((a) => isNonPublicAddress(a.address));
      if (refused) return callback(new TargetRefusedError(`${hostname} resolves to ${refused.address}, a private or loopback address`), '', 4);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** Problems of a webhook URL (scheme, credentials, literal private address), empty when fine. */
export function urlProblems(raw: string, allowPrivate: boolean): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['must be an absolute http(s) URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('must be an http or https URL');
  if (url.username || url.password) problems.push('must not contain credentials');
  if (raw.length > 2000) problems.push('must be at most 2000 characters');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isNonPublicAddress(host)))) {
    problems.push('points to a loopback or private address (set WEBHOOK_ALLOW_PRIVATE_TARGETS=true for local development)');
  }
  return problems;
}
