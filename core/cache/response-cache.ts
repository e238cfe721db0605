/**
 * The response cache (issue 17, CACHE=memory|redis; DESIGN-NOTES: Response cache). The controller
 * calls `answer` AFTER authentication, the caller gate and every permission check of the read have
 * run, so a hit never bypasses them; only the database work and the serializing are saved.
 *
 * An answer depends on the generations of: ALL; the model; every model the query reads (relation
 * filters, sorts, populate, groupBy: `CheckedQuery.reads`) or the caller's row rules walk through
 * (`CheckedQuery.ruleReads`; the controller passes both as `reads`); MEDIA when one of those has a media field;
 * and the models the Authorizer names for the caller (roles and permissions; the caller's API token).
 * Its key holds the model, the endpoint, the canonical query and the caller's permission scope.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import type { Actor, Authorizer } from '../plugin-api';
import type { ListQuery } from '../query/ast';
import type { ContentType, Registry } from '../registry/types';
import { type ReadKind, readKey } from './key';
import { MemoryStore } from './memory-store';
import { RedisStore } from './redis-store';
import { ALL, type CacheStore, type CachedAnswer } from './store';
import { MEDIA, WriteTracker, tableMap } from './write-tracker';

export type { CachedAnswer } from './store';

/** Raw query strings remembered with their key (ResponseCache.keyMemo), at most. */
export const KEY_MEMO_MAX = 4096;
/**
 * Bytes of the remembered strings (2 per character, whatever V8 uses), at most: without it one user's
 * distinct long query strings (MAX_QUERY_STRING, 32 KiB each) could make it hold ~134 MB.
 */
export const KEY_MEMO_MAX_BYTES = 4 * 1024 * 1024;
/** Raw query strings longer than this are not remembered (parsing them costs far more than the hash the memo saves). */
export const KEY_MEMO_MAX_RAW = 2048;

/** Who the answer is for, as the Authorizer sees it (`Authorizer.cacheScope`). */
export interface CacheScope {
  /** Equal for callers who may see exactly the same answers (e.g. the sorted role names). */
  readonly key: string;
  /** Models whose writes may change what this caller sees (roles, permissions, its API token). */
  readonly models: readonly string[];
}

export class ResponseCache {
  private readonly mediaModels: ReadonlySet<string>;
  /**
   * Raw query string (with model, endpoint, id, scope) → key: a repeated request skips the canonical
   * form and its hash (~25 µs). Sound because parsing is a pure function of the raw string. Bounded:
   * only raw strings up to KEY_MEMO_MAX_RAW characters; cleared when it would pass KEY_MEMO_MAX entries
   * or KEY_MEMO_MAX_BYTES.
   */
  private readonly keyMemo = new Map<string, string>();
  private keyMemoBytes = 0;
  /** Hits and misses since start (bench and tests read them). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    readonly store: CacheStore,
    private readonly tracker: WriteTracker,
    registry: Registry,
  ) {
    this.mediaModels = new Set(registry.contentTypes.filter((c) => c.attributes.some((a) => a.kind === 'media')).map((c) => c.name));
  }

  /** Runs one HTTP request so that the models it wrote are purged before its answer is sent. */
  around<T>(fn: () => Promise<T>): Promise<T> {
    return this.tracker.around(fn);
  }

  private dependencies(model: ContentType, reads: readonly string[], scope: CacheScope): string[] {
    const models = new Set([ALL, model.name, ...reads]);
    if ([...models].some((m) => this.mediaModels.has(m))) models.add(MEDIA);
    for (const m of scope.models) models.add(m);
    return [...models];
  }

  /**
   * The answer of one read: from the cache when an entry for the same key was computed after the last
   * write to everything it depends on; else `compute()`, stored.
   */
  async answer(
    read: { readonly model: ContentType; readonly kind: ReadKind; readonly id: number | null; readonly version?: string; readonly query: ListQuery; readonly reads: readonly string[]; readonly scope: CacheScope; readonly raw?: string },
    compute: () => Promise<CachedAnswer>,
  ): Promise<CachedAnswer> {
    const key = this.keyOf(read);
    return this.answerFor(key, read, compute);
  }

  /** `version`: what the read names outside its parsed query (issue 14: `status` and `locale`). */
  private keyOf(read: { readonly model: ContentType; readonly kind: ReadKind; readonly id: number | null; readonly version?: string; readonly query: ListQuery; readonly scope: CacheScope; readonly raw?: string }): string {
    const version = read.version ?? '';
    if (read.raw === undefined || read.raw.length > KEY_MEMO_MAX_RAW) return readKey(read.model.name, read.kind, read.id, read.query, read.scope.key, version);
    const memo = `${read.model.name}\n${read.kind}\n${read.id ?? ''}\n${read.scope.key}\n${version}\n${read.raw}`;
    let key = this.keyMemo.get(memo);
    if (key === undefined) {
      key = readKey(read.model.name, read.kind, read.id, read.query, read.scope.key, version);
      const bytes = 2 * (memo.length + key.length);
      if (bytes > KEY_MEMO_MAX_BYTES) return key;
      if (this.keyMemo.size >= KEY_MEMO_MAX || this.keyMemoBytes + bytes > KEY_MEMO_MAX_BYTES) {
        this.keyMemo.clear();
        this.keyMemoBytes = 0;
      }
      this.keyMemo.set(memo, key);
      this.keyMemoBytes += bytes;
    }
    return key;
  }

  private async answerFor(
    key: string,
    read: { readonly model: ContentType; readonly reads: readonly string[]; readonly scope: CacheScope },
    compute: () => Promise<CachedAnswer>,
  ): Promise<CachedAnswer> {
    const models = this.dependencies(read.model, read.reads, read.scope);
    const found = await this.store.lookup(key, models);
    if (found.hit) {
      this.stats.hits++;
      return found.hit;
    }
    this.stats.misses++;
    const answer = await compute();
    if (found.storable !== false) await this.store.store(key, models, found.gens, answer);
    return answer;
  }

  async close(): Promise<void> {
    await this.tracker.close();
    await this.store.close();
  }
}

/** The scope of a caller when the Authorizer does not say (no Authorizer: everyone sees the same). */
export function scopeOf(authorizer: Authorizer | null, actor: Actor | null): CacheScope | null {
  if (!authorizer) return { key: '', models: [] };
  return authorizer.cacheScope ? authorizer.cacheScope(actor) : null;
}

/**
 * CACHE_TTL, but with a private S3 bucket at most half of S3_SIGNED_URL_TTL: answers carry presigned
 * `_full_url`s, and a cached one must still have half its lifetime left when it is served.
 */
export function entryTtlMs(config: Config): number {
  const s3 = config.uploads.driver === 's3' ? config.uploads.s3 : null;
  if (!s3 || s3.publicUrl !== null) return config.cache.ttlMs;
  return Math.max(1, Math.min(config.cache.ttlMs, Math.floor((s3.signedUrlTtlSeconds * 1000) / 2)));
}

/** CACHE=off: null; memory / redis: the cache, tracking writes on `db` from now on. */
export function createResponseCache(config: Config, db: Knex, registry: Registry, log: Logger, namespace: string): ResponseCache | null {
  const c = config.cache;
  if (c.mode === 'off') return null;
  const ttlMs = entryTtlMs(config);
  const store: CacheStore =
    c.mode === 'memory'
      ? new MemoryStore({ maxEntries: c.maxEntries, maxBytes: c.maxBytes, maxEntryBytes: c.maxEntryBytes, ttlMs })
      : new RedisStore(config.redisUrl ?? '', namespace, { ttlMs, maxEntryBytes: c.maxEntryBytes, maxBytes: c.maxBytes }, log);
  const tracker = new WriteTracker(db, tableMap(registry), (keys) => store.bump(keys), (err) => log.warn({ err }, 'response cache: a purge failed'));
  return new ResponseCache(store, tracker, registry);
}
