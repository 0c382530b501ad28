import { lookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard (docs/integrations.md#ssrf-guard): webhooks go to public
 * http(s) endpoints only. Loopback, private, link-local, shared (CGNAT), multicast and reserved
 * addresses are refused, both when a subscription is made and at every connection (the resolved
 * address is checked as the socket connects, so a name that later resolves to 10.0.0.1 is still
 * refused). `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` lifts it for local development and the tests.
 */

/**
 * IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291). ipaddr.js reads the dotted spelling
 * as IPv4-mapped but counts the hex one (`::7f00:1`, how URLs print it) as unicast, so both are
 * read here as the IPv4 address they carry, as IPv4-mapped addresses are.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

export function allowPrivateTargets(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['true', '1'].includes(env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? '');
}

/**
 * Whether an IP address is loopback, private or otherwise not a public destination. An IPv6
 * address that carries an IPv4 one (`::ffff:7f00:1`, `::7f00:1`) is read as that IPv4 address;
 * then only what ipaddr.js classes as plain `unicast` passes, so every special-purpose block of
 * either family (IANA's registries: NAT64, 6to4, Teredo and the like included) is refused, and so
 * is anything that is not an address.
 */
export function isNonPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.process(address);
  if (parsed instanceof ipaddr.IPv6 && parsed.range() === 'unicast' && parsed.match(IPV4_COMPATIBLE)) {
    parsed = ipaddr.fromByteArray(parsed.toByteArray().slice(12));
  }
  return parsed.range() !== 'unicast';
}

export class TargetRefusedError extends Error {}

/** `dns.lookup` for webhook sockets: refuses a non-public address unless allowed. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true as const }, (error, list) => {
      if (error) return callback(error, '', 4);
      const refused = allowPrivate ? undefined : list.find((a) => isNonPublicAddress(a.address));
      // The address itself stays out of the message: the delivery log would otherwise tell whoever
      // manages webhooks what an internal name resolves to.
      if (refused)
        return callback(new TargetRefusedError(`${hostname} resolves to a private or loopback address`), '', 4);
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
  if (
    !allowPrivate &&
    (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isNonPublicAddress(host)))
  ) {
    problems.push(
      'points to a loopback or private address (set WEBHOOK_ALLOW_PRIVATE_TARGETS=true for local development)',
    );
  }
  return problems;
}
