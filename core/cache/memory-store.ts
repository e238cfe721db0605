/**
 * CACHE=memory: answers in this process, least recently used first out, bounded by entries
 * (CACHE_MAX_ENTRIES) and bytes (CACHE_MAX_BYTES, answer bytes plus a fixed per-entry overhead),
 * each living at most CACHE_TTL. Eviction never fails a request: a full cache drops its oldest
 * entries, an answer larger than CACHE_MAX_ENTRY_BYTES is not stored. Generations are counters in
 * this process (a second process has its own cache: use CACHE=redis for several nodes).
 */
import { type CacheStore, type CachedAnswer, type Lookup, sameGens } from './store';

export interface MemoryLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  readonly ttlMs: number;
}

/** Bookkeeping counted per entry on top of its answer bytes (key, tag, generations, Map slot). */
export const ENTRY_OVERHEAD_BYTES = 512;

interface Entry {
  readonly gens: readonly string[];
  readonly answer: CachedAnswer;
  readonly bytes: number;
  readonly expiresAt: number;
}

export class MemoryStore implements CacheStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly gens = new Map<string, number>();
  private bytes = 0;

  constructor(
    private readonly limits: MemoryLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private gensOf(models: readonly string[]): string[] {
    return models.map((m) => String(this.gens.get(m) ?? 0));
  }

  async lookup(key: string, models: readonly string[]): Promise<Lookup> {
    return this.lookupNow(key, models);
  }

  lookupNow(key: string, models: readonly string[]): Lookup {
    const gens = this.gensOf(models);
    const e = this.entries.get(key);
    if (!e) return { gens, hit: null };
    if (e.expiresAt <= this.now() || !sameGens(e.gens, gens)) {
      this.drop(key, e);
      return { gens, hit: null };
    }
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, e);
    return { gens, hit: e.answer };
  }

  async store(key: string, _models: readonly string[], gens: readonly string[], answer: CachedAnswer): Promise<void> {
    const bytes = answer.body.length + ENTRY_OVERHEAD_BYTES;
    if (answer.body.length > this.limits.maxEntryBytes || bytes > this.limits.maxBytes) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { gens, answer, bytes, expiresAt: this.now() + this.limits.ttlMs });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.drop(k, e);
    }
  }

  private drop(key: string, e: Entry): void {
    if (this.entries.get(key) !== e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }

  async bump(models: Iterable<string>): Promise<void> {
    for (const m of models) this.gens.set(m, (this.gens.get(m) ?? 0) + 1);
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.bytes = 0;
  }
}
