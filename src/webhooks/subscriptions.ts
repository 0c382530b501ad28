import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, type FieldError, ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.js';
import { missingReadScopes } from '../domain/event-read-scopes.js';
import { type Actor, EVENT_TYPES, type EventType } from '../domain/events.js';
import { inTransaction } from '../domain/transaction.js';
import { ApiToken } from '../entities/api-token.entity.js';
import { WebhookSubscription } from '../entities/webhook-subscription.entity.js';
import { newWebhookSecret } from './signature.js';
import { ownerRefusal } from './subscription-authority.js';
import { allowPrivateTargets, isNonPublicAddress, urlProblems } from './target-policy.js';

const MAX_SUBSCRIPTIONS = 100;

/**
 * How long a subscription's host may take to resolve. The lookup (getaddrinfo) cannot be cancelled:
 * past this the subscription is refused and the lookup left to end on its own.
 */
const LOOKUP_TIMEOUT_MS = 5000;

/** The host's addresses, null when it does not resolve, `timeout` past `timeoutMs`. */
async function addressesOf(
  host: string,
  resolve: (host: string) => Promise<{ address: string }[]>,
  timeoutMs: number,
): Promise<{ address: string }[] | null | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((done) => {
    timer = setTimeout(() => done('timeout'), timeoutMs);
  });
  try {
    return await Promise.race([resolve(host).catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks a webhook URL before it is stored: http(s), no credentials, and (unless private targets
 * are allowed) a host that resolves to public addresses only, within LOOKUP_TIMEOUT_MS. The worker
 * checks again on every connection, since DNS may change.
 */
export async function checkWebhookUrl(
  url: string,
  {
    allowPrivate = allowPrivateTargets(),
    resolve = (host) => lookup(host, { all: true }),
    timeoutMs = LOOKUP_TIMEOUT_MS,
  }: {
    allowPrivate?: boolean;
    resolve?: (host: string) => Promise<{ address: string }[]>;
    timeoutMs?: number;
  } = {},
): Promise<FieldError[]> {
  const problems = urlProblems(url, allowPrivate);
  if (!problems.length && !allowPrivate) {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!isIP(host)) {
      const addresses = await addressesOf(host, resolve, timeoutMs);
      if (addresses === 'timeout') problems.push(`the host ${host} did not resolve within ${timeoutMs / 1000} s`);
      else if (!addresses?.length) problems.push(`the host ${host} does not resolve`);
      else if (addresses.some((a) => isNonPublicAddress(a.address)))
        problems.push(`the host ${host} resolves to a loopback or private address`);
    }
  }
  return problems.map((message) => ({ field: 'url', message }));
}

/** The caller of a subscription mutation: who it is and the scopes its token holds. */
export type WebhookManager = Actor & { scopes: ReadonlySet<string> };

/**
 * `createWebhookSubscription` (docs/decisions.md#webhooks): the secret is returned this once. The
 * caller must hold the read scope of every event type's record kind (`read_customers` for
 * `customer.updated`): a subscription sends those records to a URL of the caller's choosing. The
 * URL is checked before the write's transaction opens: its host's lookup may take seconds, and
 * would hold a pooled connection idle in a transaction all that time.
 */
export async function createWebhookSubscription(
  em: EntityManager,
  caller: WebhookManager,
  url: string,
  events: string[],
): Promise<{ subscription: WebhookSubscription; secret: string }> {
  const eventErrors: FieldError[] = [];
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (!events.length) eventErrors.push({ field: 'events', message: 'name at least one event type' });
  if (unknown.length) {
    const message = `unknown event type ${unknown.join(', ')}; valid: ${EVENT_TYPES.join(', ')}`;
    eventErrors.push({ field: 'events', message });
  }
  if (!eventErrors.length) refuseUnreadableEvents(events as EventType[], caller.scopes);
  const errors = [...(await checkWebhookUrl(url.trim())), ...eventErrors];
  if (errors.length) throw new ValidationError(errors);
  return inTransaction(em, async (tx) => {
    if ((await tx.count(WebhookSubscription, {})) >= MAX_SUBSCRIPTIONS) {
      throw new ValidationError([
        { field: 'url', message: `a store has at most ${MAX_SUBSCRIPTIONS} webhook subscriptions; delete one first` },
      ]);
    }
    const secret = newWebhookSecret();
    const subscription = Object.assign(new WebhookSubscription(), {
      url: url.trim(),
      events: [...new Set(events)],
      secret,
      createdByTokenId: caller.tokenId,
    });
    await tx.persist(subscription).flush();
    return { subscription, secret };
  });
}

function refuseUnreadableEvents(events: EventType[], held: ReadonlySet<string>): void {
  const missing = missingReadScopes(events, held);
  if (!missing.length) return;
  const error = new ForbiddenError(missing);
  error.message =
    `Subscribing to these event types needs ${missing.join(' and ')}, ` +
    'which this token lacks (the read scope of their records)';
  throw error;
}

/** Deletes a subscription with its queue and log; nothing more is sent to it. */
export async function deleteWebhookSubscription(em: EntityManager, id: number): Promise<number> {
  const subscription = await em.findOne(WebhookSubscription, { id });
  if (!subscription) throw new NotFoundError('WebhookSubscription', id);
  await em.remove(subscription).flush();
  return id;
}

/**
 * Re-enables a subscription disabled after repeated failure: new events are queued for it again
 * and its pending deliveries resume. Deliveries that failed, and events made while it was
 * disabled, are not sent (the receiver can read the order timeline for what it missed). One whose
 * creating token was revoked or lost a scope stays disabled: it would send under no one's authority.
 */
export async function enableWebhookSubscription(em: EntityManager, id: number): Promise<WebhookSubscription> {
  const subscription = await em.findOne(WebhookSubscription, { id });
  if (!subscription) throw new NotFoundError('WebhookSubscription', id);
  const tokenId = subscription.createdByTokenId;
  const token = tokenId === null ? null : await em.findOne(ApiToken, { id: tokenId, revokedAt: null });
  const refusal = ownerRefusal({ tokenId, scopes: token?.scopes ?? null }, subscription.events);
  if (refusal) {
    throw new ConflictError(`Cannot enable webhook subscription ${id}: ${refusal}; delete it and subscribe again`);
  }
  Object.assign(subscription, { disabledAt: null, disabledReason: null, consecutiveFailures: 0 });
  await em.flush();
  return subscription;
}
