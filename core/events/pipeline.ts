/**
 * The event pipeline (issue 15): producers append events in the transaction of their change and call
 * `committed()` after it commits; consumers subscribe to committed events or read them after an id.
 * One per process (boot.ts builds it; PluginDeps.events hands it to plugins). README.md: the API.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import type { Dialect } from '../../database/dialects/dialect';
import { listenTarget } from '../../database/dialects/postgres-notify';
import { EventHub, type EventListener } from './hub';
import { appendEventsReturning, latestEventId, readAfter, readIds, type Returned } from './outbox';
import { type PruneStep, pruneEvents, startPruning } from './prune';
import { type EventSignal, noSignal, postgresSignal, redisSignal } from './signal';
import { EVENTS_TABLE } from './table';
import type { EventActor, NewEvent, StoredEvent } from './types';

/**
 * Runs inside the write's transaction right after its events are appended (webhook fan-out, say);
 * `probed`: the value of the listener's probe (see `onAppend`), read by the events' own INSERT.
 */
export type AppendListener = (trx: Knex.Transaction, events: readonly StoredEvent[], probed?: unknown) => Promise<void>;

/** A record as FindOne answers it, read through `db` (boot.ts sets one for every process: core/records/record-reader.ts). */
export type RecordReader = (db: Knex | Knex.Transaction, model: string, id: number) => Promise<Record<string, unknown> | null>;

export class EventPipeline {
  private readonly hub: EventHub;
  private readonly appendListeners: { readonly listener: AppendListener; readonly probe: Returned | null }[] = [];
  private reader: RecordReader | null = null;
  private readonly wakers = new Set<() => void>();
  private listening = false;

  constructor(
    private readonly db: Knex,
    private readonly dialect: Dialect,
    private readonly signal: EventSignal,
    opts: { pollMs: number; gapWaitMs: number },
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
    /** Where committed events are read (SQLite's read-only connections); absent: `db`. */
    private readonly readDb: Knex = db,
  ) {
    // The pipeline owns the one signal listener: it wakes the hub and every `onWake` listener.
    const fanSignal: EventSignal = {
      kind: signal.kind,
      publish: () => signal.publish(),
      listen: (fn) => {
        this.hubWake = fn;
        this.listen();
      },
      close: async () => undefined,
    };
    this.hub = new EventHub(readDb, fanSignal, opts, this.log);
  }

  private hubWake: (() => void) | null = null;

  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.signal.listen(() => this.wake());
  }

  private wake(): void {
    this.hubWake?.();
    for (const w of [...this.wakers]) w();
  }

  /** The cross-node signal in use: `redis`, `postgres` (LISTEN/NOTIFY) or `none` (polling only). */
  get signalKind(): EventSignal['kind'] {
    return this.signal.kind;
  }

  // ---- producers ----

  /** Writes `events` in `trx`, the transaction of the change they describe. Call `committed()` after it commits. */
  async append(trx: Knex.Transaction, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const now = this.now();
    // The outbox INSERT also evaluates the listeners' probes: one round trip per event.
    const probes = this.appendListeners.flatMap((l) => (l.probe ? [l.probe] : []));
    const { ids, extra: values } = await appendEventsReturning(trx, this.dialect, events, now, probes);
    const time = now.toISOString();
    const stored = events.map((e, i) => ({ ...e, id: ids[i], time }));
    let p = 0;
    for (const l of this.appendListeners) await l.listener(trx, stored, l.probe ? values[p++] : undefined);
    return stored;
  }

  /** After a commit that appended events: wake this node's subscribers now and tell the other nodes. */
  committed(): void {
    this.hub.poke();
    this.signal.publish();
  }

  /**
   * `fn` runs whenever another node signals that it committed events (or a signal may have been missed:
   * the signal's connection came back), without reading them: for consumers that read their own tables
   * and learn of this node's commits otherwise (the webhook dispatcher, from its fan-out). Cheaper than
   * `subscribe`, which reads the outbox. Returns the function that stops it.
   */
  onWake(fn: () => void): () => void {
    this.wakers.add(fn);
    this.listen();
    return () => this.wakers.delete(fn);
  }

  private stopPruning: (() => void) | null = null;
  private readonly pruneSteps: PruneStep[] = [];

  /** Server nodes delete events older than `retentionMs` (EVENTS_RETENTION), hourly at most, and run the `onPrune` steps. */
  startPruning(retentionMs: number): void {
    this.stopPruning ??= startPruning(this.db, retentionMs, Math.min(3_600_000, Math.max(1000, Math.round(retentionMs / 10))), this.log, this.pruneSteps);
  }

  /** One prune now (what the timer of `startPruning` runs): events older than `retentionMs`, then the `onPrune` steps; answers how many events went. */
  prune(retentionMs: number, now: Date = new Date()): Promise<number> {
    return pruneEvents(this.db, retentionMs, now, this.pruneSteps);
  }

  /** `step` deletes a consumer's rows older than the events pruned with them (prune.ts `PruneStep`). */
  onPrune(step: PruneStep): void {
    this.pruneSteps.push(step);
  }

  /** How `recordOf` reads a record: set by boot.ts in every process (server, admin CLI, test app). */
  setRecordReader(reader: RecordReader): void {
    this.reader = reader;
  }

  /** Record `id` of `model` as FindOne answers it (private fields never), for an event's `record`; `{ id }` with no reader set (a pipeline built without boot.ts). */
  async recordOf(db: Knex | Knex.Transaction, model: string, id: number): Promise<Record<string, unknown> | null> {
    return this.reader ? this.reader(db, model, id) : { id };
  }

  /**
   * A probe (see `onAppend`) answering `<count>:<newest id>` of `model`'s events: it changes whenever one
   * commits (the count catches a PostgreSQL id committing after a newer one) or is pruned.
   */
  versionProbe(model: string): Returned {
    return { sql: `(SELECT count(*) || ':' || coalesce(max(id), 0) FROM ${EVENTS_TABLE} WHERE model = ?)`, bindings: [model] };
  }

  /**
   * Adds a step every append runs inside the write's transaction (its failure fails the write).
   * `probe`: a scalar SQL expression the events' INSERT … RETURNING evaluates (no statement of its own),
   * handed to the listener: say, whether a table the listener keeps in memory changed.
   */
  onAppend(listener: AppendListener, probe: Returned | null = null): void {
    this.appendListeners.push({ listener, probe });
  }

  // ---- consumers ----

  /** Committed events from now on, each once per subscriber, on every node (within EVENTS_POLL_INTERVAL at worst). */
  subscribe(listener: EventListener): () => void {
    return this.hub.subscribe(listener);
  }

  /** Resolves once this node's subscribers have been handed every committed event up to `id` (best effort). */
  caughtUp(id: number): Promise<void> {
    return this.hub.caughtUp(id);
  }

  /** Committed events with id > `afterId`, oldest first (resume after a disconnect). */
  readAfter(afterId: number, limit = 500): Promise<StoredEvent[]> {
    return readAfter(this.readDb, afterId, limit);
  }

  /** The committed events among `ids`, oldest first (one statement: a consumer that knows which it needs). */
  readIds(ids: readonly number[]): Promise<StoredEvent[]> {
    return readIds(this.readDb, ids);
  }

  /** The newest event id (0: none yet). */
  latestId(): Promise<number> {
    return latestEventId(this.readDb);
  }

  /**
   * The highest event id ever handed out, including events pruned since (0: none): with the outbox pruned
   * empty, what a resume point is measured against (Dialect.lastIssuedId). May run ahead of the committed ones.
   */
  issuedId(): Promise<number> {
    return this.dialect.lastIssuedId(this.readDb, EVENTS_TABLE);
  }

  async close(): Promise<void> {
    this.stopPruning?.();
    await this.hub.close();
    await this.signal.close();
  }
}

/** The actor of an event: a user account, or an API token. */
export function eventActor(actor: { readonly id: number; readonly apiToken?: { readonly id: number } | null } | null): EventActor | null {
  if (!actor) return null;
  return actor.apiToken ? { userId: null, apiTokenId: actor.apiToken.id } : { userId: actor.id, apiTokenId: null };
}

/**
 * Redis pub/sub when REDIS_URL is set (one broker for every node, whatever the database); else
 * PostgreSQL LISTEN/NOTIFY (a NOTIFY after each commit that appended events, coalesced: see signal.ts);
 * else polling alone (SQLite: a single node, poked in process at commit).
 */
export function createEventPipeline(config: Config, db: Knex, dialect: Dialect, log: Logger, readDb: Knex = db): EventPipeline {
  let signal: EventSignal = noSignal();
  if (config.redisUrl) {
    signal = redisSignal(config.redisUrl, config.redisNamespace, log);
  } else {
    const target = listenTarget(config.database);
    if (target !== null) signal = postgresSignal(db, target, log);
  }
  return new EventPipeline(db, dialect, signal, config.events, log, undefined, readDb);
}
