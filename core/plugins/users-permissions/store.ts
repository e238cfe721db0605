/** Users, roles and permissions in the database (knex; tables and join tables read from the registry). */
import type { Knex } from 'knex';
import { ConflictError } from '../../errors/errors';
import { deleteAnnounced, type EventActor, insertRows, type PluginDeps, withFolds } from '../../plugin-api';
import type { ContentType, JoinTable } from '../../registry/types';
import { bool, type IdentifierType, insertedId, normalize, normalizeMobile, nowIso } from './util';

export type Db = Knex | Knex.Transaction;

export interface UserRow {
  readonly id: number;
  readonly fullName: string | null;
  readonly username: string;
  readonly email: string;
  readonly mobile: string | null;
  readonly passwordHash: string | null;
  readonly active: boolean;
  readonly forcePasswordChange: boolean;
  readonly lastLoginProvider: string | null;
  readonly emailVerified: boolean;
  readonly mobileVerified: boolean;
  readonly pendingVerification: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface NewUser {
  readonly fullName?: string | null;
  readonly username: string;
  readonly email: string;
  readonly mobile?: string | null;
  readonly passwordHash?: string | null;
  readonly active: boolean;
  readonly roles: readonly string[];
  readonly pendingVerification?: string | null;
  /** The e-mail address is proven or asserted (CLI: the operator vouches for it). Default false. */
  readonly emailVerified?: boolean;
  /** An OTP registration's `customPayload` (a JSON object), kept as sent. */
  readonly customPayload?: Readonly<Record<string, unknown>> | null;
}

const KEY_FIELDS: Record<string, string> = { username_key: 'username', email_key: 'email', mobile_key: 'mobile', username: 'username', email: 'email', name: 'name', action: 'action' };

function iso(v: unknown): string {
  return v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();
}

function model(deps: PluginDeps, name: string): ContentType {
  const m = deps.registry.get(name);
  if (!m) throw new Error(`users-permissions: model ${name} is not in the registry`);
  return m;
}

function join(m: ContentType, attr: string): JoinTable {
  const a = m.byName.get(attr);
  if (!a || a.kind !== 'relation' || !a.joinTable) throw new Error(`users-permissions: ${m.name}.${attr} is not a many-to-many relation`);
  return a.joinTable;
}

export class IdentityStore {
  readonly users: string;
  readonly roles: string;
  readonly permissions: string;
  readonly sessions: string;
  readonly refreshTokens: string;
  readonly codes: string;
  readonly userRoles: JoinTable;
  readonly rolePermissions: JoinTable;
  /** The models whose rows this plugin writes with their case-fold columns (withFolds). */
  readonly userModel: ContentType;
  readonly roleModel: ContentType;
  readonly permissionModel: ContentType;

  constructor(readonly deps: PluginDeps) {
    this.userModel = model(deps, 'user');
    this.roleModel = model(deps, 'role');
    this.permissionModel = model(deps, 'permission');
    this.users = model(deps, 'user').table;
    this.roles = model(deps, 'role').table;
    this.permissions = model(deps, 'permission').table;
    this.sessions = model(deps, 'session').table;
    this.refreshTokens = model(deps, 'refresh-token').table;
    this.codes = model(deps, 'one-time-code').table;
    this.userRoles = join(model(deps, 'user'), 'roles');
    this.rolePermissions = join(model(deps, 'role'), 'permissions');
  }

  get db(): Knex {
    return this.deps.db;
  }

  /**
   * Where this plugin's reads that need not see an open transaction's writes go: who a bearer is and what
   * its roles may do. On SQLite the read-only connections, so a long write on the one writer (another
   * caller's bulk call) does not hold every other caller's sign-in check; elsewhere `db`.
   */
  get reads(): Knex {
    return this.deps.readDb ?? this.deps.db;
  }

  /** A unique violation → 409 naming the field (also under races: the indexes decide); anything else unchanged. */
  asConflict(err: unknown): unknown {
    const fault = this.deps.dialect.classifyError(err);
    if (fault?.kind === 'unique') {
      const fields = [...new Set(fault.columns.filter((c) => c !== 'deleted_tracker').map((c) => KEY_FIELDS[c] ?? c))];
      const named = fields.length ? fields : ['record'];
      return new ConflictError(`${named.join(', ')} already taken`, { fields: Object.fromEntries(named.map((f) => [f, ['is already taken']])) });
    }
    return err;
  }

  private toUser(r: Record<string, unknown>): UserRow {
    return {
      id: Number(r.id),
      fullName: (r.full_name as string | null) ?? null,
      username: String(r.username),
      email: String(r.email),
      mobile: (r.mobile as string | null) ?? null,
      passwordHash: (r.password as string | null) ?? null,
      active: bool(r.active),
      forcePasswordChange: bool(r.force_password_change),
      lastLoginProvider: (r.last_login_provider as string | null) ?? null,
      emailVerified: bool(r.email_verified),
      mobileVerified: bool(r.mobile_verified),
      pendingVerification: (r.pending_verification as string | null) ?? null,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    };
  }

  async userById(id: number, db: Db = this.db): Promise<UserRow | undefined> {
    const r = (await db(this.users).where('id', id).first()) as Record<string, unknown> | undefined;
    return r ? this.toUser(r) : undefined;
  }

  /** Case-insensitive lookup; also finds users written through /api/user (whose key columns may be empty). */
  async userBy(type: IdentifierType, value: string, db: Db = this.db): Promise<UserRow | undefined> {
    const v = type === 'mobile' ? normalizeMobile(value) : normalize(value);
    if (v === '') return undefined;
    const r = (await db(this.users)
      .where((q) => {
        if (type === 'mobile') q.where('mobile_key', v).orWhere('mobile', v);
        else q.where(`${type}_key`, v).orWhereRaw('lower(??) = ?', [type, v]);
      })
      .orderBy('id')
      .first()) as Record<string, unknown> | undefined;
    return r ? this.toUser(r) : undefined;
  }

  async rolesOf(userId: number, db: Db = this.db): Promise<string[]> {
    const { table, ownerColumn, targetColumn } = this.userRoles;
    const rows = (await db(table).join(this.roles, `${this.roles}.id`, `${table}.${targetColumn}`).where(`${table}.${ownerColumn}`, userId).orderBy(`${this.roles}.name`).select(`${this.roles}.name as name`)) as { name: string }[];
    return rows.map((r) => r.name);
  }

  async roleIds(names: readonly string[], db: Db = this.db): Promise<Map<string, number>> {
    if (names.length === 0) return new Map();
    const rows = (await db(this.roles).whereIn('name', [...names]).select('id', 'name')) as { id: number; name: string }[];
    return new Map(rows.map((r) => [r.name, Number(r.id)]));
  }

  /** Replaces the roles of a user; unknown role names → Error naming them. */
  async setRoles(userId: number, names: readonly string[], db: Db = this.db): Promise<void> {
    const ids = await this.roleIds(names, db);
    const missing = names.filter((n) => !ids.has(n));
    if (missing.length) throw new Error(`unknown role ${missing.join(', ')}`);
    const { table, ownerColumn, targetColumn } = this.userRoles;
    await db(table).where(ownerColumn, userId).del();
    await insertRows(db, table, [...ids.values()].map((r) => ({ [ownerColumn]: userId, [targetColumn]: r })));
  }

  async createUser(u: NewUser, db: Db = this.db): Promise<number> {
    const now = nowIso();
    const row = {
      created_at: now,
      updated_at: now,
      full_name: u.fullName ?? null,
      username: u.username,
      email: u.email,
      mobile: u.mobile ?? null,
      password: u.passwordHash ?? null,
      active: u.active,
      force_password_change: false,
      email_verified: u.emailVerified ?? false,
      mobile_verified: false,
      username_key: normalize(u.username),
      email_key: normalize(u.email),
      mobile_key: u.mobile ? normalizeMobile(u.mobile) : null,
      pending_verification: u.pendingVerification ?? null,
      custom_payload: u.customPayload ? JSON.stringify(u.customPayload) : null,
    };
    const run = async (trx: Knex.Transaction): Promise<number> => {
      const id = insertedId(await trx(this.users).insert(withFolds(this.userModel, row)).returning('id'));
      await this.setRoles(id, u.roles, trx);
      // issue 15: the account is a record (GET /api/user/{id}), so it is announced as POST /api/user announces
      // one, in its transaction: its record.create, and the user.create the runtime's append step derives
      // from it (runtime.ts), both with the FindOne answer. Sign-up, OTP registration, user:create, user:import.
      const events = this.deps.events;
      if (events) await events.append(trx, [{ type: 'record.create', model: 'user', recordId: id, actor: null, record: await events.recordOf(trx, 'user', id) }]);
      return id;
    };
    try {
      if (db.isTransaction) return await run(db as Knex.Transaction);
      const id = await this.db.transaction(run);
      this.deps.events?.committed();
      return id;
    } catch (e) {
      throw this.asConflict(e);
    }
  }

  /**
   * An identity flow's change to account `id` (sign-in, password, verification; not the record API's, which
   * announces its own): its `record.update` commits with it (issue 15), by `actor` (the account's owner
   * in self-service flows; null: the system, e.g. the CLI).
   */
  async updateUser(id: number, changes: Record<string, unknown>, actor: EventActor | null = null): Promise<void> {
    const events = this.deps.events;
    await this.db.transaction((trx) => this.writeUser(trx, id, changes, actor));
    events?.committed();
  }

  /**
   * As updateUser, with the changes computed by `change` from the account as it is in the write's
   * transaction (locked where the database has row locks): two flows changing the same account at once
   * (two confirmations of one registration) each see the other's committed change, none is lost.
   * Undefined: no such account.
   */
  async updateUserFrom<T>(id: number, change: (u: UserRow) => { readonly changes: Record<string, unknown>; readonly result: T }, actor: EventActor | null = null): Promise<T | undefined> {
    const { events } = this.deps;
    const out = await this.db.transaction(async (trx) => {
      const u = await this.lockedUser(trx, id);
      if (!u) return undefined;
      const { changes, result } = change(u);
      await this.writeUser(trx, id, changes, actor);
      return { result };
    });
    if (!out) return undefined;
    events?.committed();
    return out.result;
  }

  /** Account `id` as it is in `trx`, its row locked where the database has row locks. */
  private async lockedUser(trx: Knex.Transaction, id: number): Promise<UserRow | undefined> {
    const q = trx(this.users).where('id', id);
    if (this.deps.dialect.rowLocks) q.forUpdate();
    const r = (await q.first()) as Record<string, unknown> | undefined;
    return r ? this.toUser(r) : undefined;
  }

  private async writeUser(trx: Knex.Transaction, id: number, changes: Record<string, unknown>, actor: EventActor | null): Promise<void> {
    const events = this.deps.events;
    await trx(this.users).where('id', id).update(withFolds(this.userModel, { ...changes, updated_at: nowIso() }));
    if (events) await events.append(trx, [{ type: 'record.update', model: 'user', recordId: id, actor, record: await events.recordOf(trx, 'user', id) }]);
  }

  /**
   * Deletes account `id` when `may` allows it, given the account as it is in the delete's transaction
   * (locked where the database has row locks), and announces it as DELETE /api/user/{id} does, in that
   * transaction (issue 15): its `record.delete` (the account as FindOne answered it just before), the
   * `user.delete` the runtime's append step derives from it (runtime.ts), then the records its foreign keys
   * remove or set null with it (PluginDeps.foreignKeyEvents); by the system (actor null). False: refused or gone.
   */
  async deleteUserIf(id: number, may: (u: UserRow) => boolean): Promise<boolean> {
    const { events, foreignKeyEvents } = this.deps;
    const deleted = await this.db.transaction(async (trx) => {
      const u = await this.lockedUser(trx, id);
      if (!u || !may(u)) return false;
      const fallout = (await foreignKeyEvents?.beforeDelete(trx, 'user', [id], null)) ?? null;
      await deleteAnnounced(events, trx, this.users, 'user', [id]);
      await fallout?.announce(trx);
      return true;
    });
    if (deleted) events?.committed();
    return deleted;
  }

  /** `<model>.<action>` names granted to the given roles. */
  async permissionsOf(roleNames: readonly string[]): Promise<Set<string>> {
    if (roleNames.length === 0) return new Set();
    const { table, ownerColumn, targetColumn } = this.rolePermissions;
    const rows = (await this.reads(table)
      .join(this.roles, `${this.roles}.id`, `${table}.${ownerColumn}`)
      .join(this.permissions, `${this.permissions}.id`, `${table}.${targetColumn}`)
      .whereIn(`${this.roles}.name`, [...roleNames])
      .select(`${this.permissions}.action as action`)) as { action: string }[];
    return new Set(rows.map((r) => r.action));
  }
}
