/**
 * Where cached answers and the per-model generations live (CACHE=memory: this process; CACHE=redis:
 * shared by every node). An entry is stored with the generations of every model its answer depends on
 * as they were read BEFORE the answer was computed; it is served only while they are all unchanged.
 * A write bumps the generations of the models it touched AFTER it committed. So an entry computed
 * from data older than a committed write always carries an older generation than the one readers see
 * after that write: it can never be served again (no stale answer, no purge list to keep).
 */
export interface CachedAnswer {
  readonly etag: string;
  readonly body: Buffer;
}

export interface Lookup {
  /** The generations of the asked models, in order, as read now (store the answer with these). */
  readonly gens: readonly string[];
  readonly hit: CachedAnswer | null;
  /** False: the store could not read the generations (Redis down): do not store the answer. */
  readonly storable?: boolean;
}

export interface CacheStore {
  readonly kind: 'memory' | 'redis';
  lookup(key: string, models: readonly string[]): Promise<Lookup>;
  store(key: string, models: readonly string[], gens: readonly string[], answer: CachedAnswer): Promise<void>;
  /** Makes every entry depending on one of `models` unusable, here and (redis) on every node. */
  bump(models: Iterable<string>): Promise<void>;
  close(): Promise<void>;
}

/** Every entry depends on this generation too: writes the tracker cannot place (DDL, unknown tables) bump it. */
export const ALL = '*';

/** Same generations in the same order. */
export function sameGens(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
