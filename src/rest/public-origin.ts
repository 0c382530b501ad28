import type { Context } from 'koa';

export interface OriginOptions {
  /** PUBLIC_URL: the base of absolute links when set. */
  publicUrl?: string;
  /** ALLOWED_HOSTS: `Host` header values that may be echoed into links (`shop.example.com:8080`). */
  allowedHosts?: readonly string[];
}

/**
 * The origin absolute links are built on (docs/decisions.md#start-up-contract): `PUBLIC_URL` when
 * configured; else the request's `Host` only when it is in `ALLOWED_HOSTS`; else the address the
 * request arrived on (the server's own listening address). A client-chosen `Host` never reaches a
 * link otherwise, so a cache or a proxy cannot be made to serve links to someone else's site.
 */
export function publicOrigin(ctx: Context, { publicUrl, allowedHosts = [] }: OriginOptions): string {
  if (publicUrl) return publicUrl.replace(/\/$/, '');
  const host = ctx.get('host').toLowerCase();
  if (host && allowedHosts.includes(host)) return `${ctx.protocol}://${host}`;
  const address = ctx.socket.localAddress ?? '127.0.0.1';
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  return `http://${bare.includes(':') ? `[${bare}]` : bare}:${ctx.socket.localPort}`;
}
