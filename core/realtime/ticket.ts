/**
 * Realtime tickets: a browser's EventSource cannot send an Authorization header, and a long-lived JWT
 * must never travel in a URL (access logs, history, Referer). POST /api/realtime/ticket (bearer in the
 * header) answers a ticket: the caller's bearer sealed with AES-256-GCM under a key derived from
 * IAM_JWT_SECRET, with its expiry (REALTIME_TICKET_TTL, 30 s) and its one purpose. Only
 * GET /api/realtime opens it; no other endpoint takes it (it is no JWT). Any node sharing the secret
 * opens it (no state), and it may be used again until it expires (EventSource reconnects with the
 * same URL). The stream re-authenticates with the sealed bearer as it runs (stream.ts), so a ticket
 * never outlives the session or token it was made from.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { UnauthorizedError } from '../errors/errors';

const PREFIX = 'rt1.';
const PURPOSE = 'realtime';

export class Tickets {
  private readonly key: Buffer;

  constructor(secret: string | null, private readonly ttlMs: number, private readonly now: () => number = Date.now) {
    // Without a secret (no identity plugin) a key of this process: its tickets open on this node only.
    this.key = createHmac('sha256', secret ?? randomBytes(32)).update('record-and-identity-service realtime ticket key v1').digest();
  }

  /** A ticket for `bearer` (the caller's Authorization header value), valid for the TTL. */
  issue(bearer: string): { ticket: string; expiresAt: string } {
    const exp = this.now() + this.ttlMs;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ p: PURPOSE, exp, b: bearer }), 'utf8'), cipher.final()]);
    const ticket = PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    return { ticket, expiresAt: new Date(exp).toISOString() };
  }

  /** The bearer a ticket seals; 401 when it is not a ticket of this service, or has expired. */
  open(ticket: string): string {
    const bad = (why: string): never => {
      throw new UnauthorizedError(`the realtime ticket ${why}; ask POST /api/realtime/ticket for a new one`, { setting: 'REALTIME_TICKET_TTL' });
    };
    if (!ticket.startsWith(PREFIX) || ticket.length > 8192) return bad('is not valid');
    const raw = Buffer.from(ticket.slice(PREFIX.length), 'base64url');
    if (raw.length < 29) return bad('is not valid');
    let payload: { p?: unknown; exp?: unknown; b?: unknown };
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      payload = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as typeof payload;
    } catch {
      return bad('is not valid');
    }
    if (payload.p !== PURPOSE || typeof payload.b !== 'string' || typeof payload.exp !== 'number') return bad('is not valid');
    if (payload.exp <= this.now()) return bad('has expired');
    return payload.b;
  }
}
