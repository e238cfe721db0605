/**
 * Which models a write touched, read off the SQL itself (knex's `query` event), so every write path
 * is seen (the record service, plugins, media, link tables, bulk calls) without each one having to
 * remember to purge. Tables map to generation keys through the registry:
 * - a model's table → the model; a many-to-many join table → both ends; the media table → MEDIA;
 * - a DELETE on a model's table also touches every model related to it (a foreign key's ON DELETE
 *   may change their rows without a statement of its own), and, following ON DELETE CASCADE, every model
 *   related to the models whose rows go with it (deleteReach);
 * - DDL (create/alter/drop/…) and statements the tracker cannot read → ALL;
 * - tables no record answer reads (knex's migration tables, other branches' bookkeeping) → nothing.
 *
 * When the bump happens (store.ts explains why after the commit): statements run inside an HTTP
 * request (AsyncLocalStorage) are collected and bumped once the request's handler has finished (the
 * write committed or rolled back), before its answer is sent: read-your-writes. Statements outside a
 * request (start-up seeding, background jobs, the admin CLI) are bumped at once and again when knex
 * reports them finished ('query-response' / 'query-error': an autocommit statement has committed by
 * then, however long it waited for a lock held elsewhere); inside a transaction, once more when its
 * COMMIT is sent and again COMMIT_SETTLE_MS later (knex reports no COMMIT finishing). Bumps still
 * pending when the tracker closes (a CLI command ending) are sent then, and awaited.
 */
import { PUBLISHED_SUFFIX } from '../drafts/names';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { MEDIA_TABLE } from '../media/table';
import type { Registry } from '../registry/types';
import { ALL } from './store';

/** The generation key of the media table (every model with a media field depends on it). */
export const MEDIA = '#media';
/** A COMMIT sent outside a request: bumped again this much later (the commit has run by then). */
export const COMMIT_SETTLE_MS = 250;
/** Transactions outside requests followed at once; past it the oldest bookkeeping is dropped (their writes were bumped already). */
export const MAX_OPEN_TRANSACTIONS = 1000;

export interface TableMap {
  /** Generation keys a write to the table touches; undefined: no answer reads the table. */
  readonly writes: ReadonlyMap<string, readonly string[]>;
  /** Extra keys a DELETE on the table touches (related models, for ON DELETE actions, through cascades). */
  readonly deletes: ReadonlyMap<string, readonly string[]>;
}

export function tableMap(registry: Registry): TableMap {
  const writes = new Map<string, readonly string[]>([[MEDIA_TABLE, [MEDIA]]]);
  const related = new Map<string, Set<string>>(registry.contentTypes.map((ct) => [ct.name, new Set<string>()]));
  const cascades = new Map<string, Set<string>>(registry.contentTypes.map((ct) => [ct.name, new Set<string>()]));
  for (const ct of registry.contentTypes) {
    writes.set(ct.table, [ct.name]);
    for (const a of ct.attributes) {
      if (a.kind !== 'relation') continue;
      // Both sides of a many-to-many name its join table: the same two models either way.
      if (a.joinTable) writes.set(a.joinTable.table, [...new Set([ct.name, a.target])]);
      related.get(ct.name)?.add(a.target);
      related.get(a.target)?.add(ct.name);
      if (a.column && a.onDelete === 'cascade') cascades.get(a.target)?.add(ct.name);
    }
  }
  const deletes = new Map(registry.contentTypes.map((ct) => [ct.table, deleteReach(ct.name, related, cascades)]));
  return { writes, deletes };
}

/**
 * The models a DELETE of `model`'s rows may change besides it: every model related to it (its join
 * tables' rows go, a foreign key's ON DELETE acts on the other table), and the same again for every model
 * whose rows go with them by ON DELETE CASCADE, transitively: deleting an institute deletes its rooms
 * (cascade), which sets their desks' room to null (set null). A row set null is only updated: it changes
 * its own model, already among the related ones, and no foreign key acts further on an update.
 */
function deleteReach(model: string, related: ReadonlyMap<string, ReadonlySet<string>>, cascades: ReadonlyMap<string, ReadonlySet<string>>): readonly string[] {
  const reached = new Set<string>();
  const deleted = new Set([model]);
  // A Set's walk visits what is added during it: every model deleted along the chains, each once.
  for (const m of deleted) {
    for (const r of related.get(m) ?? []) reached.add(r);
    for (const c of cascades.get(m) ?? []) deleted.add(c);
  }
  reached.delete(model);
  return [...reached];
}

const PUBLISHED_SUFFIX_AT_END = new RegExp(`${PUBLISHED_SUFFIX}$`);

const READS = /^\s*(select|pragma|begin|commit|rollback|savepoint|release|set|show|explain|values|start|end|declare|fetch|close|listen|unlisten|notify|lock|vacuum|analyze)\b/i;
const WRITE = /^\s*(insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update|delete\s+from|truncate(?:\s+table)?|merge\s+into)\s+((?:(?:"[^"]+"|`[^`]+`|\w+)\s*\.\s*)?(?:"[^"]+"|`[^`]+`|\w+))/i;

/** The generation keys one statement touches: [] for reads and tables no answer reads. */
export function keysOfStatement(sql: string, map: TableMap): readonly string[] {
  if (READS.test(sql)) return [];
  const m = WRITE.exec(sql);
  if (!m) return [ALL];
  // A published copy (issue 14: `<table>__published`) belongs to the model or join table it copies.
  const name = m[2].split('.').pop()!.trim().replace(/^["`]|["`]$/g, '').replace(PUBLISHED_SUFFIX_AT_END, '');
  const own = map.writes.get(name) ?? [];
  if (!/^\s*(delete|truncate)/i.test(m[1])) return own;
  return [...own, ...(map.deletes.get(name) ?? [])];
}

interface RequestWrites {
  readonly keys: Set<string>;
  /** Set once the request's keys were bumped: a statement its context runs later (fire and forget) is bumped like one outside a request. */
  done: boolean;
}

export class WriteTracker {
  private readonly als = new AsyncLocalStorage<RequestWrites>();
  private readonly inTx = new Map<string, Set<string>>();
  private readonly listener: (q: { sql?: string; __knexTxId?: string }) => void;
  private readonly finished: (a: unknown, b?: { sql?: string; __knexTxId?: string }) => void;
  /** Delayed bumps not yet sent, with their keys (sent at once by `close`). */
  private readonly delayed = new Map<NodeJS.Timeout, Iterable<string>>();
  /** Bumps sent and not yet answered (`close` waits for them). */
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly db: Knex,
    private readonly map: TableMap,
    private readonly bump: (keys: Iterable<string>) => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {
    this.listener = (q) => this.seen(q.sql ?? '', q.__knexTxId);
    // 'query-response' passes (response, query); 'query-error' (error, query).
    this.finished = (_r, q) => this.ran(q?.sql ?? '', q?.__knexTxId);
    db.on('query', this.listener);
    db.on('query-response', this.finished);
    db.on('query-error', this.finished);
  }

  private fire(keys: Iterable<string>): void {
    const sent: Promise<void> = this.bump(keys)
      .catch(this.onError)
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  private later(keys: Iterable<string>): void {
    const t = setTimeout(() => {
      this.delayed.delete(t);
      this.fire(keys);
    }, COMMIT_SETTLE_MS).unref();
    this.delayed.set(t, keys);
  }

  /** A statement outside a request and outside a transaction has finished: it has committed (or changed nothing). */
  private ran(sql: string, txId: string | undefined): void {
    if (txId) return;
    const store = this.als.getStore();
    if (store && !store.done) return;
    const keys = keysOfStatement(sql, this.map);
    if (keys.length > 0) this.fire(keys);
  }

  private seen(sql: string, txId: string | undefined): void {
    const store = this.als.getStore();
    const req = store && !store.done ? store : undefined;
    if (txId && /^\s*(commit|rollback)\b/i.test(sql)) {
      const keys = this.inTx.get(txId);
      this.inTx.delete(txId);
      if (keys && !req) {
        this.fire(keys);
        this.later(keys);
      }
      return;
    }
    const keys = keysOfStatement(sql, this.map);
    if (keys.length === 0) return;
    if (req) {
      for (const k of keys) req.keys.add(k);
      return;
    }
    if (txId) {
      // A transaction that never sent COMMIT/ROLLBACK (its connection died) must not stay here forever.
      if (this.inTx.size >= MAX_OPEN_TRANSACTIONS && !this.inTx.has(txId)) this.inTx.clear();
      const s = this.inTx.get(txId) ?? new Set<string>();
      for (const k of keys) s.add(k);
      this.inTx.set(txId, s);
    }
    // Outside a transaction the statement commits as it runs: bumped again when it has (`ran`).
    this.fire(keys);
  }

  /** Runs one request; the models its statements wrote are bumped when `fn` settles, before it returns. */
  async around<T>(fn: () => Promise<T>): Promise<T> {
    const writes: RequestWrites = { keys: new Set(), done: false };
    try {
      return await this.als.run(writes, fn);
    } finally {
      writes.done = true;
      if (writes.keys.size > 0) await this.bump(writes.keys).catch(this.onError);
    }
  }

  /** Stops following `db`; sends the delayed bumps now and waits for every bump sent. */
  async close(): Promise<void> {
    this.db.off('query', this.listener);
    this.db.off('query-response', this.finished);
    this.db.off('query-error', this.finished);
    for (const [t, keys] of this.delayed) {
      clearTimeout(t);
      this.fire(keys);
    }
    this.delayed.clear();
    await Promise.all([...this.sending]);
  }
}
