/**
 * The webhook and delivery tables, as the plugin reads and writes them itself (the record API serves
 * them to admins). Column names come from the registry; times are ISO text on both databases.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { insertRows, pruneInBatches, withFolds, type PluginDeps } from '../../plugin-api';
import type { ContentType } from '../../registry/types';

export const WEBHOOK = 'webhook';
export const DELIVERY = 'webhook-delivery';

export interface Webhook {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly model: string | null;
  readonly enabled: boolean;
  readonly secret: string | null;
}

export interface Claimed {
  readonly id: number;
  readonly webhookId: number;
  readonly eventId: number;
  readonly attemptCount: number;
  readonly retryUntil: string;
  readonly attempts: unknown[];
  readonly leaseToken: string;
}

export interface AttemptLog {
  readonly at: string;
  readonly status: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly response: string | null;
}

/** An attempt to record, and the delivery's next state. */
export interface Finish {
  readonly claimed: Claimed;
  readonly attempt: AttemptLog;
  readonly next: { readonly status: 'succeeded' | 'failed' | 'pending'; readonly nextAttemptAt: string | null };
}

/** A delivery to create: one event for one webhook. */
export interface NewDelivery {
  readonly webhookId: number;
  readonly eventId: number;
  readonly eventType: string;
  readonly model: string | null;
  readonly recordId: number | null;
}

/** Which deliveries keep their order among themselves: one webhook's of one record. */
export function recordKey(webhookId: number, model: string | null, recordId: number | null): string {
  return `${webhookId}:${model}:${recordId}`;
}

/** A claim's share per webhook (store.claim): at most `perHook` held here per webhook, `held` already held. */
export interface ClaimShare {
  readonly perHook: number;
  /** Deliveries this node holds per webhook id (being sent, waiting to be, reserved for a write). */
  readonly held: ReadonlyMap<number, number>;
}

/** A fair claim ranks this many times its limit of the oldest due deliveries. */
export const CLAIM_SCAN = 4;

/** Rows per INSERT of insertOwned (its own VALUES list, with seven more bound values per row for the order check). */
const INSERT_CHUNK = 200;

/** Attempts kept per delivery (the oldest are dropped beyond). */
export const MAX_ATTEMPT_LOG = 100;

type Db = Knex | Knex.Transaction;
type Dialect = PluginDeps['dialect'];

function model(deps: PluginDeps, name: string): ContentType {
  const m = deps.registry.get(name);
  if (!m) throw new Error(`webhooks: model ${name} missing from the registry`);
  return m;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));

export class WebhookStore {
  readonly hooks: ContentType;
  readonly deliveries: ContentType;
  private readonly dialect: Dialect;

  constructor(readonly deps: PluginDeps) {
    this.hooks = model(deps, WEBHOOK);
    this.deliveries = model(deps, DELIVERY);
    this.dialect = deps.dialect;
  }

  /** The registry's model `name` (a webhook's `model` filter must name one). */
  modelOf(name: string): ContentType | undefined {
    return this.deps.registry.get(name);
  }

  /** Column of attribute `name` of `m`. */
  col(m: ContentType, name: string): string {
    const a = m.byName.get(name);
    if (!a || a.kind !== 'scalar') throw new Error(`webhooks: ${m.name}.${name} is not a field`);
    return a.column;
  }

  private toHook(r: Record<string, unknown>): Webhook {
    const h = this.hooks;
    const events = parseJson(r[this.col(h, 'events')]);
    return {
      id: Number(r.id),
      name: String(r[this.col(h, 'name')]),
      url: String(r[this.col(h, 'url')]),
      events: Array.isArray(events) ? events.map(String) : [],
      model: (r[this.col(h, 'model')] as string | null) ?? null,
      enabled: Boolean(r[this.col(h, 'enabled')]),
      secret: (r[this.col(h, 'secret')] as string | null) ?? null,
    };
  }

  async enabledHooks(db: Db): Promise<Webhook[]> {
    const rows = (await db(this.hooks.table).where(this.col(this.hooks, 'enabled'), true)) as Record<string, unknown>[];
    return rows.map((r) => this.toHook(r));
  }

  /** The webhooks of `ids` as they are now, in one statement. */
  async hooksByIds(db: Db, ids: readonly number[]): Promise<Map<number, Webhook>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = (await db(this.hooks.table).whereIn('id', unique)) as Record<string, unknown>[];
    return new Map(rows.map((r) => [Number(r.id), this.toHook(r)]));
  }

  /** The webhooks of `source` (`api`: made through the API; `config`: declared in WEBHOOK_CONFIG_FILE), by id. */
  async hooksOfSource(db: Db, source: 'api' | 'config'): Promise<Webhook[]> {
    const rows = (await db(this.hooks.table).where(this.col(this.hooks, 'source'), source).orderBy('id')) as Record<string, unknown>[];
    return rows.map((r) => this.toHook(r));
  }

  async hookByName(db: Db, name: string): Promise<(Webhook & { source: string }) | undefined> {
    const r = (await db(this.hooks.table).where(this.col(this.hooks, 'name'), name).first()) as Record<string, unknown> | undefined;
    return r && { ...this.toHook(r), source: String(r[this.col(this.hooks, 'source')]) };
  }

  /** The rows of new deliveries, pending and due now. */
  private newRows(rows: readonly NewDelivery[], now: Date, retryForMs: number): Record<string, unknown>[] {
    const d = this.deliveries;
    const at = now.toISOString();
    const until = new Date(now.getTime() + retryForMs).toISOString();
    const c = (n: string): string => this.col(d, n);
    return rows.map((r) =>
      withFolds(d, {
        created_at: at,
        updated_at: at,
        [c('webhookId')]: r.webhookId,
        [c('eventId')]: r.eventId,
        [c('eventType')]: r.eventType,
        [c('model')]: r.model,
        [c('recordId')]: r.recordId,
        [c('status')]: 'pending',
        [c('attemptCount')]: 0,
        [c('nextAttemptAt')]: at,
        [c('retryUntil')]: until,
        [c('attempts')]: '[]',
      }),
    );
  }

  /** Deletes succeeded and failed deliveries created before `before` (ISO timestamp), in batches; answers how many. */
  pruneFinished(db: Knex, before: string): Promise<number> {
    const status = this.col(this.deliveries, 'status');
    return pruneInBatches(db, this.deliveries.table, (qb) => qb.whereIn(status, ['succeeded', 'failed']).andWhere('created_at', '<', before));
  }

  /** New pending deliveries (in the transaction of the events they carry), for any node to claim. */
  async insertDeliveries(trx: Db, rows: readonly NewDelivery[], now: Date, retryForMs: number): Promise<void> {
    const values = this.newRows(rows, now, retryForMs);
    await insertRows(trx, this.deliveries.table, values);
  }

  /**
   * New deliveries (in the transaction of the events they carry) already claimed by this node under
   * `lease`, to be sent as soon as the transaction commits: no claim, no read of their events. A delivery
   * whose webhook has an earlier one of the same record still unfinished (pending or delivering, on any
   * node) is inserted pending instead, and waits for its turn as any pending one (in order per record).
   * Only where `Dialect.freshInsertReturning`: the check must see every delivery committed before it (two
   * writes of one record are ordered by the record's row lock), and the statement answers the rows.
   * A pending row keeps the lease columns it was inserted with; they mean nothing until it is claimed.
   * `own[i]` false: row i is inserted pending whatever (its webhook has no room left here: the lease's
   * share per webhook, Dispatcher.reserve), for a claim.
   * Answers the deliveries inserted as delivering (this node's to send).
   */
  async insertOwned(trx: Db, rows: readonly NewDelivery[], now: Date, retryForMs: number, lease: { readonly token: string; readonly until: Date }, own: readonly boolean[]): Promise<Claimed[]> {
    const d = this.deliveries;
    const c = (n: string): string => this.col(d, n);
    const statusColumns = new Set(Object.keys(withFolds(d, { [c('status')]: 'pending' })));
    const values = this.newRows(rows, now, retryForMs).map((v) => ({ ...v, [c('leaseUntil')]: lease.until.toISOString(), [c('leaseToken')]: lease.token }));
    const earlier = `(SELECT 1 FROM ?? e WHERE e.?? = ? AND e.?? = ? AND e.?? = ? AND e.?? IN ('pending', 'delivering'))`;
    const retryUntil = new Date(now.getTime() + retryForMs).toISOString();
    const owned: Claimed[] = [];
    // a record's second delivery to one webhook in the same statement would not see the first: it waits
    const seen = new Set<string>();
    for (let i = 0; i < values.length; i += INSERT_CHUNK) {
      const chunk = values.slice(i, i + INSERT_CHUNK);
      const columns = Object.keys(chunk[0]);
      const bindings: Knex.RawBinding[] = [d.table, ...columns];
      const tuples = chunk.map((row, k) => {
        const r = rows[i + k];
        const key = recordKey(r.webhookId, r.model, r.recordId);
        const first = r.recordId === null || !seen.has(key);
        seen.add(key);
        const cells = columns.map((col) => {
          if (!statusColumns.has(col)) {
            bindings.push(row[col] as Knex.RawBinding);
            return '?';
          }
          if (!first || !own[i + k]) return `'pending'`;
          bindings.push(d.table, c('webhookId'), r.webhookId, c('model'), r.model, c('recordId'), r.recordId, c('status'));
          return `CASE WHEN EXISTS ${earlier} THEN 'pending' ELSE 'delivering' END`;
        });
        return `(${cells.join(', ')})`;
      });
      bindings.push(c('webhookId'), c('eventId'), c('status'));
      const sql = `INSERT INTO ?? (${columns.map(() => '??').join(', ')}) VALUES ${tuples.join(', ')} RETURNING id, ??, ??, ??`;
      for (const r of this.dialect.rawRows(await trx.raw(sql, bindings))) {
        if (r[c('status')] !== 'delivering') continue;
        owned.push({ id: Number(r.id), webhookId: Number(r[c('webhookId')]), eventId: Number(r[c('eventId')]), attemptCount: 0, retryUntil, attempts: [], leaseToken: lease.token });
      }
    }
    return owned;
  }

  /**
   * Claims up to `limit` due deliveries for this node until `leaseMs` from now: pending ones whose time
   * has come, and delivering ones whose node let the lease run out (it died). A delivery waits while an
   * earlier one of the same webhook and record is pending or delivering (in order per record). The
   * dialect's `claimRows` locks the candidates with FOR UPDATE SKIP LOCKED where there are row locks, so
   * two nodes never claim the same row (SQLite runs the one UPDATE … RETURNING alone: one writer at a time).
   *
   * Fair between webhooks (`share`): of one webhook at most `perHook` less what this node holds of it
   * already (`held`); a webhook holding `perHook` or more is passed over. The first `limit` ×
   * CLAIM_SCAN due deliveries by id are ranked per webhook (a window function, on all three databases),
   * those within their webhook's room are candidates; one webhook's backlog (a receiver that hangs)
   * no longer fills a claim, and so the node, ahead of every other webhook's deliveries.
   * The ranking reads without locks; the candidates are locked (SKIP LOCKED) and their state checked
   * again on the locked row (PostgreSQL re-reads a row another claim changed meanwhile), as before.
   */
  async claim(limit: number, leaseMs: number, share: ClaimShare | null = null, now: Date = new Date()): Promise<Claimed[]> {
    const d = this.deliveries;
    const c = (n: string): string => this.col(d, n);
    const token = randomBytes(12).toString('hex');
    const at = now.toISOString();
    const lease = new Date(now.getTime() + leaseMs).toISOString();
    // the status with its folded shadow column (what the `…i` filter operators read)
    const status = Object.entries(withFolds(d, { [c('status')]: 'delivering' }));
    const set = {
      sql: `${status.map(() => '?? = ?').join(', ')}, ?? = ?, ?? = ?, updated_at = ?`,
      bindings: [...status.flat(), c('leaseUntil'), lease, c('leaseToken'), token, at],
    };
    const due = (alias: string) => {
      const waits = this.waitsForEarlier(alias);
      return {
        sql: `((${alias}.?? = 'pending' AND ${alias}.?? <= ?) OR (${alias}.?? = 'delivering' AND ${alias}.?? < ?)) AND NOT ${waits.sql}`,
        bindings: [c('status'), c('nextAttemptAt'), at, c('status'), c('leaseUntil'), at, ...waits.bindings] as Knex.RawBinding[],
      };
    };
    const outer = due('d');
    let fair = { sql: '', bindings: [] as Knex.RawBinding[] };
    if (share) {
      const inner = due('x');
      const full = [...share.held].filter(([, n]) => n >= share.perHook).map(([id]) => id);
      const partial = [...share.held].filter(([, n]) => n > 0 && n < share.perHook);
      const notFull = full.length ? ` AND x.?? NOT IN (${full.map(() => '?').join(', ')})` : '';
      // the room per webhook written as integer literals (whole numbers of this node's, not input): as
      // parameters PostgreSQL typed the CASE text, and `rn <= text` failed the claim
      const int = (n: number): string => String(Math.trunc(Number(n)));
      const room = partial.length ? `CASE r.wh ${partial.map(([id, n]) => `WHEN ${int(id)} THEN ${int(share.perHook - n)}`).join(' ')} ELSE ${int(share.perHook)} END` : int(share.perHook);
      fair = {
        sql: ` AND d.id IN (SELECT r.id FROM (
            SELECT k.id, k.wh, row_number() OVER (PARTITION BY k.wh ORDER BY k.id) AS rn FROM (
              SELECT x.id, x.?? AS wh FROM ?? x WHERE ${inner.sql}${notFull} ORDER BY x.id LIMIT ?
            ) k
          ) r WHERE r.rn <= ${room})`,
        bindings: [
          c('webhookId'), d.table, ...inner.bindings,
          ...(full.length ? [c('webhookId'), ...full] : []),
          limit * CLAIM_SCAN,
        ],
      };
    }
    const candidates = {
      sql: `SELECT d.id FROM ?? d WHERE ${outer.sql}${fair.sql} ORDER BY d.id LIMIT ?`,
      bindings: [d.table, ...outer.bindings, ...fair.bindings, limit],
    };
    const columns = [c('webhookId'), c('eventId'), c('attemptCount'), c('retryUntil'), c('attempts')];
    const rows = await this.dialect.claimRows(this.deps.db, { table: d.table, set, candidates, columns });
    return rows
      .map((r) => ({
        id: Number(r.id),
        webhookId: Number(r[c('webhookId')]),
        eventId: Number(r[c('eventId')]),
        attemptCount: Number(r[c('attemptCount')] ?? 0),
        retryUntil: iso(r[c('retryUntil')]),
        attempts: (parseJson(r[c('attempts')]) as unknown[] | null) ?? [],
        leaseToken: token,
      }))
      .sort((a, b) => a.id - b.id);
  }

  /**
   * `alias`'s delivery has an earlier one of the same webhook and record still unfinished (pending or
   * delivering): it waits for it (in order per record).
   */
  private waitsForEarlier(alias: string): { sql: string; bindings: Knex.RawBinding[] } {
    const d = this.deliveries;
    const c = (n: string): string => this.col(d, n);
    return {
      sql: `EXISTS (SELECT 1 FROM ?? e WHERE e.?? = ${alias}.?? AND e.?? = ${alias}.?? AND e.?? = ${alias}.?? AND e.id < ${alias}.id AND e.?? IN ('pending', 'delivering'))`,
      bindings: [d.table, c('webhookId'), c('webhookId'), c('model'), c('model'), c('recordId'), c('recordId'), c('status')],
    };
  }

  /**
   * When the next unfinished delivery falls due (a pending one's time, a delivering one's lease end), in
   * ms; null: none. A pending one that waits for an earlier one of its record counts for nothing: the
   * earlier one's time stands for it (it was counted as "due now", and a node polled every few ms for as
   * long as a receiver stayed down).
   */
  async nextDue(): Promise<number | null> {
    const d = this.deliveries;
    const c = (n: string): string => this.col(d, n);
    const waits = this.waitsForEarlier('x');
    // One statement, one snapshot: read as two, a delivery whose outcome (delivering → pending) committed
    // between them was seen by neither, and the node went idle with a retry due (IDLE_POLL_MS late).
    const [row] = this.dialect.rawRows(
      await this.deps.db.raw(`SELECT min(CASE WHEN x.?? = 'pending' THEN x.?? ELSE x.?? END) AS ?? FROM ?? x WHERE x.?? IN ('pending', 'delivering') AND NOT (x.?? = 'pending' AND ${waits.sql})`, [
        c('status'), c('nextAttemptAt'), c('leaseUntil'), 'at', d.table, c('status'), c('status'), ...waits.bindings,
      ]),
    ) as { at: unknown }[];
    return row?.at === null || row?.at === undefined ? null : Date.parse(iso(row.at));
  }

  /**
   * Records attempts and the deliveries' next states, each if this node still holds its lease: one
   * UPDATE for them all (a CASE per column over their ids), one commit. A delivery another node took
   * over meanwhile (its lease ran out) keeps that node's state.
   */
  async finishAll(items: readonly Finish[]): Promise<void> {
    if (items.length === 0) return;
    const d = this.deliveries;
    const c = (n: string): string => this.col(d, n);
    const typed = new Map<string, string>([
      ['updated_at', this.dialect.typedParam('timestamp')],
      [c('nextAttemptAt'), this.dialect.typedParam('timestamp')],
      [c('deliveredAt'), this.dialect.typedParam('timestamp')],
      [c('attempts'), this.dialect.typedParam('json')],
    ]);
    const changes = items.map(({ claimed, attempt, next }) => {
      const row: Record<string, unknown> = {
        [c('status')]: next.status,
        [c('attempts')]: JSON.stringify([...claimed.attempts, attempt].slice(-MAX_ATTEMPT_LOG)),
        [c('lastError')]: attempt.error,
        updated_at: attempt.at,
      };
      if (next.nextAttemptAt) row[c('nextAttemptAt')] = next.nextAttemptAt;
      if (next.status === 'succeeded') row[c('deliveredAt')] = attempt.at;
      return withFolds(d, row);
    });
    const columns = [...new Set(changes.flatMap((r) => Object.keys(r)))];
    const bindings: Knex.RawBinding[] = [d.table];
    const sets = columns.map((col) => {
      bindings.push(col);
      const whens = items.flatMap(({ claimed }, i) => {
        if (!(col in changes[i])) return [];
        bindings.push(claimed.id, changes[i][col] as Knex.RawBinding);
        return [`WHEN ? THEN ${typed.get(col) ?? '?'}`];
      });
      bindings.push(col);
      // a column only some set (the next attempt's time, the delivery time) keeps its value in the others
      return `?? = CASE id ${whens.join(' ')} ELSE ?? END`;
    });
    // the lease holder alone writes the count, so the count it claimed plus one is the column's plus one
    bindings.push(c('attemptCount'), c('attemptCount'), c('leaseUntil'), c('leaseToken'));
    const where = items.map(({ claimed }) => {
      bindings.push(claimed.id, c('leaseToken'), claimed.leaseToken);
      return '(id = ? AND ?? = ?)';
    });
    await this.deps.db.raw(`UPDATE ?? SET ${sets.join(', ')}, ?? = ?? + 1, ?? = NULL, ?? = NULL WHERE ${where.join(' OR ')}`, bindings);
  }
}
