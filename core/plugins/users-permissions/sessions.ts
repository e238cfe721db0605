/**
 * Sessions and their refresh tokens. Refresh tokens are opaque, stored as SHA-256 hashes, single use:
 * a spent token presented within IAM_REFRESH_REUSE_INTERVAL gets a fresh pair of the same session,
 * later it revokes the whole session (reuse detection). Revoking a session ends its access tokens too.
 */
import type { Knex } from 'knex';
import { UnauthorizedError } from '../../errors/errors';
import type { IamConfig } from '../../../config/schema';
import type { IdentityStore } from './store';
import type { EventActor } from '../../plugin-api';
import { bool, insertedId, later, nowIso, randomSecret, sha256, timeOf } from './util';

export interface IssuedSession {
  readonly sessionId: number;
  readonly userId: number;
  readonly refreshToken: string;
}

interface RefreshRow {
  id: number;
  session_id: number;
  expires_at: unknown;
  spent_at: unknown;
}

interface SessionRow {
  id: number;
  user_id: number;
  revoked_at: unknown;
  expires_at: unknown;
}

export class Sessions {
  /** Called with the ended session ids (the authenticator drops them from its cache). */
  onRevoke: (sessionIds: readonly number[], userId: number | null) => void = () => undefined;

  constructor(private readonly store: IdentityStore, private readonly iam: IamConfig) {}

  private get db(): Knex {
    return this.store.db;
  }

  private async newRefresh(db: Knex | Knex.Transaction, sessionId: number): Promise<string> {
    const token = randomSecret();
    const now = nowIso();
    await db(this.store.refreshTokens).insert({ created_at: now, updated_at: now, session_id: sessionId, token_hash: sha256(token), expires_at: later(this.iam.refreshTokenTtlSeconds) });
    await db(this.store.sessions).where('id', sessionId).update({ expires_at: later(this.iam.refreshTokenTtlSeconds), updated_at: now });
    return token;
  }

  /**
   * A new session. `verifiedHash`: the password hash a sign-in just checked the password against. The
   * check took a bcrypt's time, during which a password change or reset may have committed and ended
   * every session: the account's row is re-read here, locked (PostgreSQL, MariaDB; SQLite has one
   * writer), and a changed password or an inactive account opens no session (401, as a wrong password).
   * A change that waits on the lock instead ends this session with the others once it commits.
   */
  async create(userId: number, provider: string, verifiedHash?: string): Promise<IssuedSession> {
    return this.db.transaction(async (trx) => {
      if (verifiedHash !== undefined) {
        const q = trx(this.store.users).where('id', userId).first('password', 'active');
        if (this.store.deps.dialect.rowLocks) q.forUpdate();
        const now = (await q) as { password: string | null; active: unknown } | undefined;
        if (!now || now.password !== verifiedHash || !bool(now.active)) throw new UnauthorizedError('invalid credentials');
      }
      const now = nowIso();
      const sessionId = insertedId(await trx(this.store.sessions).insert({ created_at: now, updated_at: now, user_id: userId, provider, expires_at: later(this.iam.refreshTokenTtlSeconds) }).returning('id'));
      return { sessionId, userId, refreshToken: await this.newRefresh(trx, sessionId) };
    });
  }

  /** The live session a refresh token belongs to (spent or not), or null. */
  private async lookup(token: string): Promise<{ refresh: RefreshRow; session: SessionRow } | null> {
    if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null;
    const refresh = (await this.db(this.store.refreshTokens).where('token_hash', sha256(token)).first()) as RefreshRow | undefined;
    if (!refresh) return null;
    const session = (await this.db(this.store.sessions).where('id', refresh.session_id).first()) as SessionRow | undefined;
    if (!session) return null;
    return { refresh, session };
  }

  /** Rotation: a fresh pair of the same session, or 401. */
  async refresh(token: string): Promise<IssuedSession> {
    const found = await this.lookup(token);
    const invalid = new UnauthorizedError('invalid or expired refresh token');
    if (!found || found.session.revoked_at !== null) throw invalid;
    const { refresh, session } = found;
    if (timeOf(refresh.expires_at) <= Date.now()) throw invalid;
    const sessionId = Number(session.id);
    const userId = Number(session.user_id);
    // An inactive account gets no new pair; its session ends here too, so that a reactivation does
    // not revive it (deactivation through the record API ends them already: this covers any other way).
    const user = await this.store.userById(userId);
    if (!user || !user.active) {
      await this.revoke([sessionId], 'inactive');
      throw invalid;
    }
    // Spend it atomically: of two parallel refreshes exactly one spends, the other is a reuse.
    const spent = await this.db(this.store.refreshTokens).where('id', refresh.id).whereNull('spent_at').update({ spent_at: nowIso(), updated_at: nowIso() });
    if (spent === 0) {
      const row = (await this.db(this.store.refreshTokens).where('id', refresh.id).first()) as RefreshRow;
      const age = Date.now() - timeOf(row.spent_at);
      if (age > this.iam.refreshReuseIntervalSeconds * 1000) {
        await this.revoke([sessionId], 'refresh-token-reuse');
        throw new UnauthorizedError('refresh token reuse detected; the session has ended');
      }
    }
    return { sessionId, userId, refreshToken: await this.newRefresh(this.db, sessionId) };
  }

  /**
   * The session a refresh token names (for logout), or 401. The token must be one a refresh would take:
   * an expired one is refused, and a spent one presented after IAM_REFRESH_REUSE_INTERVAL is a reuse
   * as on refresh (its session ends, 401). Otherwise an old token from a rotated chain, which a refresh
   * no longer accepts, could still sign its owner out of every device (allDevices).
   */
  async sessionOf(token: string): Promise<{ sessionId: number; userId: number }> {
    const found = await this.lookup(token);
    if (!found || found.session.revoked_at !== null || timeOf(found.refresh.expires_at) <= Date.now()) throw new UnauthorizedError('invalid or expired refresh token');
    const sessionId = Number(found.session.id);
    if (found.refresh.spent_at !== null && Date.now() - timeOf(found.refresh.spent_at) > this.iam.refreshReuseIntervalSeconds * 1000) {
      await this.revoke([sessionId], 'refresh-token-reuse');
      throw new UnauthorizedError('refresh token reuse detected; the session has ended');
    }
    return { sessionId, userId: Number(found.session.user_id) };
  }

  async revoke(sessionIds: readonly number[], reason: string, actor: EventActor | null = null): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.revokeWhere((q) => q.whereIn('id', [...sessionIds]), reason, actor);
    this.onRevoke(sessionIds, null);
  }

  /** Ends every session of a user (logout allDevices, password change, reset, first verified proof). */
  async revokeAll(userId: number, reason: string, actor: EventActor | null = null): Promise<void> {
    await this.revokeWhere((q) => q.where('user_id', userId), reason, actor);
    this.onRevoke([], userId);
  }

  /**
   * Revokes the live sessions `where` picks; one `session.revoke` event each, in the same transaction
   * (issue 15), by `actor` (the account's owner in self-service flows, the admin who deactivated it; null: the system).
   */
  private async revokeWhere(where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, reason: string, actor: EventActor | null): Promise<void> {
    const events = this.store.deps.events;
    const now = nowIso();
    const revoked = await this.db.transaction(async (trx) => {
      const live = (await where(trx(this.store.sessions).whereNull('revoked_at')).select('id', 'user_id')) as { id: number | string; user_id: number | string }[];
      if (live.length === 0) return 0;
      await trx(this.store.sessions).whereIn('id', live.map((s) => Number(s.id))).whereNull('revoked_at').update({ revoked_at: now, revoked_reason: reason, updated_at: now });
      await events?.append(trx, live.map((s) => ({ type: 'session.revoke' as const, model: 'session', recordId: Number(s.id), actor, record: { id: Number(s.id), userId: Number(s.user_id), reason } })));
      return live.length;
    });
    if (revoked > 0) events?.committed();
  }

  /** Is the session live (not revoked)? Its user id, or null. */
  async live(sessionId: number): Promise<number | null> {
    const s = (await this.store.reads(this.store.sessions).where('id', sessionId).first('user_id', 'revoked_at')) as { user_id: number; revoked_at: unknown } | undefined;
    return s && s.revoked_at === null ? Number(s.user_id) : null;
  }
}
