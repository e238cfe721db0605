/**
 * CACHE=memory: answers in this process, least recently used first out, bounded by entries
 * (CACHE_MAX_ENTRIES) and bytes (CACHE_MAX_BYTES, answer bytes plus a fixed per-entry overhead),
 * each living at most CACHE_TTL. Eviction never fails a request: a full cache drops its oldest
 * entries, an answer larger than CACHE_MAX_ENTRY_BYTES is not stored. Generations are counters in
 * this process (a second process has its own cache: use CACHE=redis for several nodes).
 *
 * An answer is kept in a buffer of its own, exactly its size (ownBytes): the serializer's buffers are
 * often views into larger memory (a 256 KiB chunk of json-answer.ts, Node's shared 8 KiB pool for small
 * ones), and keeping the view would keep all of that alive while CACHE_MAX_BYTES counts only the view.
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

/** `b` itself when it owns exactly its memory, else a copy that does (allocUnsafeSlow: never from the pool). */
export function ownBytes(b: Buffer): Buffer {
  if (b.byteOffset === 0 && b.buffer.byteLength === b.length) return b;
  const own = Buffer.allocUnsafeSlow(b.length);
  b.copy(own);
  return own;
}

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

  /** Bytes of memory the kept answers' buffers hold alive (tests: never more than `size.bytes` counts). */
  get heldBytes(): number {
    const held = new Set<ArrayBufferLike>();
    for (const e of this.entries.values()) held.add(e.answer.body.buffer);
    let bytes = 0;
    for (const b of held) bytes += b.byteLength;
    return bytes;
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
    const kept = { etag: answer.etag, body: ownBytes(answer.body) };
    this.entries.set(key, { gens, answer: kept, bytes, expiresAt: this.now() + this.limits.ttlMs });
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
