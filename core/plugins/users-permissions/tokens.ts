/**
 * Access tokens: HS256 with the algorithm pinned, issuer/audience/expiry checked, a KeyObject key.
 * A token that verified once is remembered until its expiry (a bounded map keyed by the whole token
 * string, which only the key holder can make): a verify costs ~7 µs, a hit well under one.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { UnauthorizedError } from '../../errors/errors';

export const ISSUER = 'record-and-identity-service';
export const AUDIENCE = 'record-and-identity-service:api';

export interface AccessClaims {
  readonly userId: number;
  readonly sessionId: number;
}

/** Most verified tokens remembered at once (about 300 bytes each); the map starts over when full. */
const VERIFIED_MAX = 10_000;

export class Tokens {
  private readonly key: KeyObject;
  private readonly verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>();

  constructor(secret: string, private readonly ttlSeconds: number) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  sign(c: AccessClaims): string {
    return jwt.sign({ sid: String(c.sessionId), typ: 'access' }, this.key, {
      algorithm: 'HS256',
      issuer: ISSUER,
      audience: AUDIENCE,
      subject: String(c.userId),
      expiresIn: Math.max(1, Math.round(this.ttlSeconds)),
    });
  }

  /** Tampered, expired, foreign or `alg: none` tokens → 401. */
  verify(token: string): AccessClaims {
    const hit = this.verified.get(token);
    if (hit) {
      if (Date.now() < hit.expiresAtMs) return hit.claims;
      this.verified.delete(token);
    }
    let payload: jwt.JwtPayload | string;
    try {
      payload = jwt.verify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    } catch {
      throw new UnauthorizedError('invalid or expired access token');
    }
    if (typeof payload === 'string' || payload.typ !== 'access') throw new UnauthorizedError('invalid access token');
    const userId = Number(payload.sub);
    const sessionId = Number(payload.sid);
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(sessionId) || typeof payload.exp !== 'number') throw new UnauthorizedError('invalid access token');
    const claims = { userId, sessionId };
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(token, { claims, expiresAtMs: payload.exp * 1000 });
    return claims;
  }
}
