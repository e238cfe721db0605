/**
 * Bearer → verified token → live session → user + roles (Authenticator). The result is cached per
 * session for at most CACHE_TTL_MS, so a revocation in another process sharing the database holds
 * within that time; revocations in this process drop the entry at once. Concurrent requests of one
 * session whose entry has expired share one lookup (no burst of identical queries every TTL), and a
 * lookup that a revocation overtook is answered but not cached.
 */
import { UnauthorizedError } from '../../errors/errors';
import type { Actor, Authenticator } from '../../plugin-api';
import type { ApiTokens } from './api-tokens';
import type { Sessions } from './sessions';
import type { IdentityStore } from './store';
import type { Tokens } from './tokens';

/** ≤ 1 s: CONTRACT requires revocation to hold across processes within one second. */
export const CACHE_TTL_MS = 500;
const CACHE_MAX = 10_000;

export class IdentityAuthenticator implements Authenticator {
  private readonly cache = new Map<number, { actor: Actor; until: number }>();
  private readonly inFlight = new Map<number, Promise<Actor>>();
  /** Moves on every `forget`: a lookup begun before it must not cache what it read. */
  private generation = 0;

  constructor(private readonly tokens: Tokens, private readonly sessions: Sessions, private readonly store: IdentityStore, private readonly apiTokens: ApiTokens | null = null) {}

  /** Drops cached actors of ended sessions (or of every session of a user). */
  forget(sessionIds: readonly number[], userId: number | null): void {
    this.generation++;
    this.inFlight.clear(); // later requests look up afresh instead of joining a lookup begun before
    for (const id of sessionIds) this.cache.delete(id);
    if (userId !== null) for (const [sid, e] of this.cache) if (e.actor.id === userId) this.cache.delete(sid);
  }

  /** Drops every cached actor (a role renamed or deleted changes the actors of all its users). */
  forgetAll(): void {
    this.generation++;
    this.inFlight.clear();
    this.cache.clear();
  }

  async authenticate(authorization: string | undefined): Promise<Actor | null> {
    if (authorization === undefined || authorization.trim() === '') return null;
    const m = /^Bearer\s+([A-Za-z0-9_\-.=]+)\s*$/i.exec(authorization);
    if (!m) throw new UnauthorizedError('the Authorization header must be "Bearer <access token or API token>"');
    if (this.apiTokens?.owns(m[1])) return this.apiTokens.actorOf(m[1]);
    return this.actorOf(m[1]);
  }

  async actorOf(token: string): Promise<Actor> {
    const { userId, sessionId } = this.tokens.verify(token);
    const hit = this.cache.get(sessionId);
    if (hit && hit.until > Date.now() && hit.actor.id === userId) return hit.actor;
    let lookup = this.inFlight.get(sessionId);
    if (!lookup) {
      const started: Promise<Actor> = this.lookUp(sessionId, userId).finally(() => {
        if (this.inFlight.get(sessionId) === started) this.inFlight.delete(sessionId);
      });
      lookup = started;
      this.inFlight.set(sessionId, lookup);
    }
    const actor = await lookup;
    // A token names its user: one for another user of the same session id is not this session's.
    if (actor.id !== userId) throw new UnauthorizedError('the session has ended; sign in again');
    return actor;
  }

  private async lookUp(sessionId: number, userId: number): Promise<Actor> {
    const generation = this.generation;
    const owner = await this.sessions.live(sessionId);
    if (owner === null || owner !== userId) {
      this.cache.delete(sessionId);
      throw new UnauthorizedError('the session has ended; sign in again');
    }
    const user = await this.store.userById(userId, this.store.reads);
    if (!user || !user.active) {
      // As on refresh: a session used while its account is inactive ends, so reactivation does not revive it.
      if (user) await this.sessions.revoke([sessionId], 'inactive');
      throw new UnauthorizedError('the account is not active');
    }
    const actor: Actor = Object.freeze({
      id: user.id,
      username: user.username,
      email: user.email,
      fullName: user.fullName,
      active: user.active,
      roles: Object.freeze(await this.store.rolesOf(user.id, this.store.reads)),
      sessionId: String(sessionId),
    });
    if (generation === this.generation) {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(sessionId, { actor, until: Date.now() + CACHE_TTL_MS });
    }
    return actor;
  }
}
