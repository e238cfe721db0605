/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` + base64 key
 * bytes; the signature is `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function isSecret(s: unknown): s is string {
  if (typeof s !== 'string' || !s.startsWith(SECRET_PREFIX)) return false;
  const key = Buffer.from(s.slice(SECRET_PREFIX.length), 'base64');
  return key.length >= 24 && key.length <= 64;
}

/** The three headers of one attempt (`timestamp`: seconds since the epoch). */
export function signedHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

/**
 * A delivery's `webhook-id`: `msg_<delivery id>_<its event's time in ms>`. The same on every attempt and
 * resend of the delivery (receivers deduplicate on it); the event's time makes it differ between two
 * deployments, or one whose database was reset, whose delivery ids overlap (`msg_<id>` alone repeated, and
 * a receiver deduplicating on it dropped the second deployment's deliveries).
 */
export function messageId(deliveryId: number, eventTime: string): string {
  return `msg_${deliveryId}_${Date.parse(eventTime)}`;
}
