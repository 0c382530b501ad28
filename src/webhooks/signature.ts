import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes (the HMAC key). */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification:
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), the key being the secret's
 * base64 part decoded. Receivers verify it with the `standardwebhooks` package (or a few lines).
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
