/**
 * API tokens (issue 16): long-lived credentials for servers and build pipelines, made by admins.
 *
 * - The secret is `ris_` + 43 URL-safe characters (256 bits): the prefix lets secret scanners find a
 *   leaked one and lets the authenticator tell it from a JWT without trying to verify it.
 * - Only its keyed hash is stored: HMAC-SHA256 under a key derived from IAM_JWT_SECRET, so a copy of
 *   the database alone cannot be used to test guesses offline (and the secret is never readable).
 * - A token's permissions are its own: `read-only` = find + findOne on every model, `full-access` = every
 *   permission, `custom` = the listed `<model>.<action>` names. The Authorizer asks `allows`.
 * - A resolved token is cached for at most CACHE_TTL_MS (like sessions), so a revocation, a regeneration
 *   or an expiry written by another node holds there within that time; in this process, and on every
 *   node sharing REDIS_URL, `onChange` drops the entries at once. Expiry itself is checked on every hit.
 * - `lastUsedAt` is written at most once a minute per token, by a conditional UPDATE (also across nodes).
 */
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../errors/errors';
import { type Actor, type EventActor, withFolds } from '../../plugin-api';
import type { ContentType } from '../../registry/types';
import { CACHE_TTL_MS } from './authenticate';
import { type Body, bodyOf, FieldCheck } from './input';
import type { IdentityStore } from './store';
import { insertedId, nowIso, randomSecret, timeOf } from './util';

export const API_TOKEN_PREFIX = 'ris_';
export const API_TOKEN_KINDS = ['read-only', 'full-access', 'custom'] as const;
export type ApiTokenKind = (typeof API_TOKEN_KINDS)[number];
export const API_TOKEN_LIFETIMES = [7, 30, 90] as const;
/** lastUsedAt is written at most this often per token. */
export const LAST_USED_EVERY_MS = 60_000;
const READ_ACTIONS: ReadonlySet<string> = new Set(['find', 'findOne']);
const CACHE_MAX = 10_000;
/** At most this many unknown permission names are spelled out in one 422. */
const NAMED_UNKNOWN_MAX = 20;

/** A token as listed: never its secret or hash. */
export interface ApiTokenView {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly kind: ApiTokenKind;
  readonly permissions: readonly string[];
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

interface Grants {
  readonly kind: ApiTokenKind;
  readonly permissions: ReadonlySet<string>;
}

interface Entry {
  readonly actor: Actor;
  readonly expiresAtMs: number;
  readonly until: number;
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(timeOf(v)).toISOString());
const listOf = (v: unknown): string[] => (typeof v === 'string' ? v.split('\n').filter(Boolean) : []);

function onlyFields(body: Body, allowed: readonly string[], check: FieldCheck, why: string): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) check.fail(k, why);
}

export class ApiTokens {
  private readonly key: Buffer;
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly grants = new WeakMap<Actor, Grants>();
  /** Moves on every `forget`: a lookup begun before it must not cache what it read. */
  private generation = 0;
  /** Called with the ids of revoked or regenerated tokens (runtime.ts: drop here, publish to the other nodes). */
  onChange: (tokenIds: readonly number[]) => void = (ids) => this.forget(ids);

  constructor(private readonly store: IdentityStore, jwtSecret: string, private readonly log: Logger) {
    // A key of its own, derived (so the JWT key itself never hashes tokens). Changing IAM_JWT_SECRET
    // therefore invalidates every API token too (README: API tokens).
    this.key = createHmac('sha256', jwtSecret).update('record-and-identity-service api-token hash key v1').digest();
  }

  private get model(): ContentType {
    const m = this.store.deps.registry.get('api-token');
    if (!m) throw new Error('users-permissions: model api-token is not in the registry');
    return m;
  }

  private get table(): string {
    return this.model.table;
  }

  /** Is this bearer an API token (by its prefix; a JWT starts with `eyJ`)? */
  owns(bearer: string): boolean {
    return bearer.startsWith(API_TOKEN_PREFIX);
  }

  hash(secret: string): string {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('hex');
  }

  /** Drops cached resolutions of these tokens (revoked or regenerated here or on another node). */
  forget(tokenIds: readonly number[]): void {
    this.generation++;
    this.inFlight.clear();
    const ids = new Set(tokenIds);
    for (const [hash, e] of this.cache) if (e.actor.apiToken && ids.has(e.actor.apiToken.id)) this.cache.delete(hash);
  }

  // ---- authentication and authorization ----

  /** Bearer secret → the token's actor, or 401 (unknown, revoked, regenerated or expired). */
  async actorOf(secret: string): Promise<Actor> {
    const hash = this.hash(secret);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) {
      if (hit.expiresAtMs <= now) throw new UnauthorizedError('the API token has expired');
      return hit.actor;
    }
    let lookup = this.inFlight.get(hash);
    if (!lookup) {
      const started: Promise<Entry> = this.lookUp(hash).finally(() => {
        if (this.inFlight.get(hash) === started) this.inFlight.delete(hash);
      });
      lookup = started;
      this.inFlight.set(hash, lookup);
    }
    const entry = await lookup;
    if (entry.expiresAtMs <= Date.now()) throw new UnauthorizedError('the API token has expired');
    return entry.actor;
  }

  private async lookUp(hash: string): Promise<Entry> {
    const generation = this.generation;
    const row = (await this.store.reads(this.table).where('token_hash', hash).first()) as Record<string, unknown> | undefined;
    if (!row) {
      this.cache.delete(hash);
      throw new UnauthorizedError('invalid or revoked API token');
    }
    const id = Number(row.id);
    const name = String(row.name);
    const actor: Actor = Object.freeze({ id: 0, username: `api-token:${name}`, email: '', fullName: name, active: true, roles: Object.freeze([]), sessionId: null, apiToken: Object.freeze({ id, name }) });
    this.grants.set(actor, { kind: row.kind as ApiTokenKind, permissions: new Set(listOf(row.permissions)) });
    const entry: Entry = { actor, expiresAtMs: row.expires_at === null || row.expires_at === undefined ? Infinity : timeOf(row.expires_at), until: Date.now() + CACHE_TTL_MS };
    if (entry.expiresAtMs > Date.now()) await this.touch(id, row.last_used_at);
    if (generation === this.generation) {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(hash, entry);
    }
    return entry;
  }

  /** lastUsedAt, at most once a minute: skipped when the row read is recent, and guarded in SQL against other nodes. */
  private async touch(id: number, lastUsedAt: unknown): Promise<void> {
    const now = Date.now();
    if (lastUsedAt !== null && lastUsedAt !== undefined && now - timeOf(lastUsedAt) < LAST_USED_EVERY_MS) return;
    const cutoff = nowIso(new Date(now - LAST_USED_EVERY_MS));
    try {
      await this.store.db(this.table).where('id', id).where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<=', cutoff)).update({ last_used_at: nowIso(new Date(now)) });
    } catch (err) {
      // Bookkeeping only: a failed write must not fail the request it describes.
      this.log.warn({ err, apiTokenId: id }, 'identity: could not record lastUsedAt of an API token');
    }
  }

  /** The token's answer for `<model>.<action>`; false for an actor that is no token actor of this process. */
  allows(actor: Actor, model: string, action: string): boolean {
    const g = this.grants.get(actor);
    if (!g) return false;
    if (g.kind === 'full-access') return true;
    if (g.kind === 'read-only') return READ_ACTIONS.has(action);
    return g.permissions.has(`${model}.${action}`);
  }

  // ---- management (admins; routes.ts and cli.ts) ----

  private view(r: Record<string, unknown>): ApiTokenView {
    return {
      id: Number(r.id),
      name: String(r.name),
      description: (r.description as string | null) ?? null,
      kind: r.kind as ApiTokenKind,
      permissions: listOf(r.permissions),
      expiresAt: iso(r.expires_at),
      lastUsedAt: iso(r.last_used_at),
      createdAt: iso(r.created_at) ?? '',
      updatedAt: iso(r.updated_at) ?? '',
    };
  }

  private async row(id: number, db: Knex | Knex.Transaction = this.store.db, forUpdate = false): Promise<Record<string, unknown>> {
    const qb = db(this.table).where('id', id).first();
    if (forUpdate) qb.forUpdate();
    const r = Number.isSafeInteger(id) && id > 0 ? ((await qb) as Record<string, unknown> | undefined) : undefined;
    if (!r) throw new NotFoundError(`no API token ${id}`);
    return r;
  }

  async list(): Promise<ApiTokenView[]> {
    const rows = (await this.store.db(this.table).orderBy('id')) as Record<string, unknown>[];
    return rows.map((r) => this.view(r));
  }

  /** Every `<model>.<action>` a custom token may hold: the permission table (seeded from the registry). */
  private async unknownPermissions(names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const known = new Set(((await this.store.db(this.store.permissions).whereIn('action', [...names]).select('action')) as { action: string }[]).map((r) => r.action));
    return names.filter((n) => !known.has(n));
  }

  async create(raw: unknown, creatorId: number | null): Promise<ApiTokenView & { secret: string }> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    onlyFields(body, ['name', 'description', 'kind', 'permissions', 'lifetimeDays'], check, 'is not a field of an API token');
    const name = check.string(body, 'name', { required: true, max: 100 })?.trim();
    if (name === '') check.fail('name', 'is required');
    const description = check.string(body, 'description', { max: 500 }) ?? null;
    const kind = body.kind;
    if (kind === undefined || kind === null) check.fail('kind', 'is required');
    else if (!API_TOKEN_KINDS.includes(kind as ApiTokenKind)) check.fail('kind', `must be one of ${API_TOKEN_KINDS.join(', ')}`);
    let permissions: string[] = [];
    const p = body.permissions;
    if (kind === 'custom') {
      if (!Array.isArray(p) || p.length === 0 || p.some((x) => typeof x !== 'string')) check.fail('permissions', 'must be a non-empty array of <model>.<action> names for kind custom');
      else permissions = [...new Set(p as string[])].sort();
    } else if (p !== undefined && p !== null && !(Array.isArray(p) && p.length === 0)) {
      check.fail('permissions', 'is only for kind custom (read-only and full-access fix their own)');
    }
    const lifetime = body.lifetimeDays;
    if (lifetime !== undefined && lifetime !== null && !API_TOKEN_LIFETIMES.includes(lifetime as 7)) check.fail('lifetimeDays', `must be ${API_TOKEN_LIFETIMES.join(', ')} or null (unlimited)`);
    check.done('invalid API token');
    const unknown = await this.unknownPermissions(permissions);
    if (unknown.length) {
      const named = unknown.slice(0, NAMED_UNKNOWN_MAX).join(', ') + (unknown.length > NAMED_UNKNOWN_MAX ? ` and ${unknown.length - NAMED_UNKNOWN_MAX} more` : '');
      throw new ValidationError('invalid API token', { permissions: [`unknown permission ${named} (form: <model>.<action>, as GET /api/permission lists them)`] });
    }
    const secret = API_TOKEN_PREFIX + randomSecret();
    const now = new Date();
    const row = {
      created_at: nowIso(now),
      updated_at: nowIso(now),
      created_by_id: creatorId,
      updated_by_id: creatorId,
      name: name as string,
      description,
      kind: kind as ApiTokenKind,
      permissions: kind === 'custom' ? permissions.join('\n') : null,
      token_hash: this.hash(secret),
      expires_at: typeof lifetime === 'number' ? nowIso(new Date(now.getTime() + lifetime * 86_400_000)) : null,
      last_used_at: null,
    };
    let id: number;
    try {
      id = insertedId(await this.store.db(this.table).insert(withFolds(this.model, row)).returning('id'));
    } catch (e) {
      throw this.store.asConflict(e);
    }
    return { ...this.view(await this.row(id)), secret };
  }

  /** Rename / describe; kind, permissions and lifetime are fixed at creation (make a new token instead). */
  async update(id: number, raw: unknown, editorId: number | null): Promise<ApiTokenView> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    onlyFields(body, ['name', 'description'], check, 'cannot be changed (only name and description can; create a new token instead)');
    const name = check.string(body, 'name', { max: 100 })?.trim();
    if (name === '' || (body.name !== undefined && name === undefined)) check.fail('name', 'must be a non-empty string');
    const description = check.string(body, 'description', { max: 500 });
    check.done('invalid API token');
    await this.row(id);
    const changes: Record<string, unknown> = { updated_at: nowIso(), updated_by_id: editorId };
    if (name !== undefined) changes.name = name;
    if ('description' in body) changes.description = description ?? null;
    try {
      await this.store.db(this.table).where('id', id).update(withFolds(this.model, changes));
    } catch (e) {
      throw this.store.asConflict(e);
    }
    if (name !== undefined) this.onChange([id]); // the cached actors carry the name
    return this.view(await this.row(id));
  }

  /** A new secret; the old one is dead at once (here, and on every node within CACHE_TTL_MS or at once with Redis). */
  async regenerate(id: number, editorId: number | null): Promise<ApiTokenView & { secret: string }> {
    await this.row(id);
    const secret = API_TOKEN_PREFIX + randomSecret();
    await this.store.db(this.table).where('id', id).update({ token_hash: this.hash(secret), updated_at: nowIso(), updated_by_id: editorId });
    this.onChange([id]);
    return { ...this.view(await this.row(id)), secret };
  }

  /**
   * Deletes token `id`. Its access rules go with it (access-rule.yaml: onDelete cascade); they are records with
   * events, so each gets its `record.delete` (as FindOne answered it just before), by `by`, in the delete's
   * transaction (issue 15; core/events/README.md), found and read by the record service's own finder.
   */
  async revoke(id: number, by: EventActor | null): Promise<ApiTokenView> {
    const { dialect, events, foreignKeyEvents } = this.store.deps;
    let announced = false;
    const r = await this.store.db.transaction(async (trx) => {
      // Locked first, so no access rule can be linked to it between finding its rules and the DELETE.
      const row = await this.row(id, trx, dialect.rowLocks);
      const fallout = (await foreignKeyEvents?.beforeDelete(trx, 'api-token', [id], by)) ?? null;
      await trx(this.table).where('id', id).del();
      await fallout?.announce(trx);
      announced = fallout !== null;
      return row;
    });
    if (announced) events?.committed();
    this.onChange([id]);
    return this.view(r);
  }

  /** The kind of token `id`, or null when there is none (access rules: custom tokens only). */
  async kindOf(id: number): Promise<ApiTokenKind | null> {
    if (!Number.isSafeInteger(id) || id < 1) return null;
    const r = (await this.store.db(this.table).where('id', id).first('kind')) as { kind: ApiTokenKind } | undefined;
    return r ? r.kind : null;
  }

  /** By id or by name (CLI). */
  async idOf(idOrName: string): Promise<number | null> {
    const r = (await this.store.db(this.table).where('name', idOrName.trim()).first('id')) as { id: number } | undefined;
    if (r) return Number(r.id);
    return /^[1-9]\d{0,15}$/.test(idOrName) ? Number(idOrName) : null;
  }
}
