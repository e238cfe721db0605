/**
 * Realtime over Server-Sent Events (issue 15): one subscription to the event pipeline per process
 * (made at the first stream, left IDLE_MS after the last one ends), handed to every open stream of
 * the event's model.
 * Each stream decides per event, at send time, what its caller may see (access.ts, match.ts).
 */
import { hasDrafts } from '../drafts/names';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import { BadRequestError, ForbiddenError, RateLimitedError, UnauthorizedError } from '../errors/errors';
import { AppError } from '../errors/app-error';
import type { EventPipeline } from '../events/pipeline';
import { EVENTS_TABLE } from '../events/table';
import type { StoredEvent } from '../events/types';
import type { Actor, Authenticator, Authorizer } from '../plugin-api';
import type { ContentType, Registry } from '../registry/types';
import type { RequestState } from '../http/state';
import { type QueryChecker, StreamAccess, parseStreamFilters } from './access';
import { CheckGate, checkTurns } from './check-gate';
import { FilterMatcher } from './match';
import { matchesSnapshot } from './snapshot-match';
import { RenderEnd, SseStream, frame } from './stream';
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { clip } from '../errors/client-text';

/** 410: the stream cannot resume from so far back; the client reloads its data, then subscribes afresh. */
export class ResumeGoneError extends AppError {
  readonly status = 410;
}

/** The oldest event the outbox still holds (null: none). */
async function oldestEventId(db: Knex): Promise<number | null> {
  const row = (await db(EVENTS_TABLE).min({ id: 'id' }).first()) as { id: number | string | null } | undefined;
  return row?.id === null || row?.id === undefined ? null : Number(row.id);
}

/**
 * A node with no stream leaves the event pipeline after this long (reconnections in between keep the
 * subscription; a new stream after it subscribes again and reads its backlog from the newest id).
 */
const IDLE_MS = 30_000;

/** How often, at most, a stream re-authenticates and re-reads its permissions (the plugin caches for 0.5 s). */
const REFRESH_MS = 250;

export interface RealtimeDeps {
  readonly config: Config;
  /** Reads only (the outbox, filter checks): SQLite's read-only connections when there are. */
  readonly db: Knex;
  readonly dialect: Dialect;
  readonly registry: Registry;
  readonly events: EventPipeline;
  readonly authenticator: Authenticator | null;
  readonly authorizer: Authorizer | null;
  readonly check: QueryChecker;
  readonly log: Logger;
}

export interface OpenStream {
  /** `Authorization` header value (from the header, or sealed in a ticket); undefined: anonymous. */
  readonly bearer: string | undefined;
  readonly state: RequestState;
  /** The `models` parameter. */
  readonly models: unknown;
  readonly filters: unknown;
  /** Last-Event-ID (header, or `lastEventId` parameter). */
  readonly lastEventId: string | undefined;
  readonly res: ServerResponse;
}

/** The data line of an event frame: the event without its actor (who wrote is not the reader's business). */
function payload(e: StoredEvent, record: Record<string, unknown> | null): Record<string, unknown> {
  return { id: e.id, type: e.type, model: e.model, recordId: e.recordId, time: e.time, record };
}

export class Realtime {
  private readonly byModel = new Map<string, Set<SseStream>>();
  private readonly perCaller = new Map<string, number>();
  private unsubscribe: (() => void) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly matcher: FilterMatcher;
  /** Serialized frames of events shown whole, per event object (collected with it). */
  private readonly frames = new WeakMap<StoredEvent, string>();

  /** Turns of the per-event filter checks, shared by every stream of this node (REALTIME_CHECK_CONCURRENCY). */
  readonly checks: CheckGate;

  constructor(private readonly deps: RealtimeDeps) {
    this.checks = new CheckGate(checkTurns(deps.config.realtime.checkConcurrency, deps.db));
    this.matcher = new FilterMatcher(deps.db, deps.dialect, this.checks);
  }

  /** Open streams on this node (tests, metrics). */
  get size(): number {
    let n = 0;
    for (const v of this.perCaller.values()) n += v;
    return n;
  }

  private models(raw: unknown): ContentType[] {
    if (typeof raw !== 'string' || raw.trim() === '') throw new BadRequestError('models: name the models to follow, comma-separated (models=fee-type,institute)', { parameter: 'models' });
    const parts = raw.split(',').map((s) => s.trim());
    // An empty name (`a,,b`, a leading or trailing comma) is a typo, refused like an unknown name rather than skipped.
    const empty = parts.indexOf('');
    if (empty >= 0) throw new BadRequestError(`models: empty model name at position ${empty + 1} (no doubled, leading or trailing comma: models=fee-type,institute)`, { parameter: 'models' });
    const names = [...new Set(parts)];
    if (names.length > 50) throw new BadRequestError('models: at most 50 models per stream', { parameter: 'models' });
    return names.map((n) => {
      const m = this.deps.registry.get(n);
      if (!m || !m.api) throw new BadRequestError(`models: unknown model "${clip(n)}"`, { parameter: 'models' });
      return m;
    });
  }

  private async actorOf(bearer: string | undefined, state: RequestState): Promise<Actor | null> {
    return this.deps.authenticator ? this.deps.authenticator.authenticate(bearer, state) : null;
  }

  /** Validates, authorizes and opens a stream on `res` (throws the JSON errors before any byte is sent). */
  async open(o: OpenStream): Promise<void> {
    const { config, registry, authorizer } = this.deps;
    const models = this.models(o.models);
    const filters = parseStreamFilters(o.filters);
    const access = new StreamAccess(authorizer, registry, this.deps.check, models, filters, JSON.stringify(o.filters ?? null));
    const actor = await this.actorOf(o.bearer, o.state);
    const refused = await access.refused(actor);
    if (refused.length > 0) {
      const { model, missing } = refused[0];
      // A draft-enabled model streams its working copies: its events need findDrafts besides find.
      // A filter through a relation reads the related model: its `find` (as Find names it).
      const needed =
        missing === `${model}.find` || missing === `${model}.findDrafts`
          ? hasDrafts(registry.get(model))
            ? `${model}.find and ${model}.findDrafts (its events carry drafts)`
            : missing
          : `${missing} (the filter of ${model} reads it)`;
      if (!actor) throw new UnauthorizedError(`authentication required: ${needed}`);
      throw new ForbiddenError(`missing permission ${needed}`);
    }
    access.checkFilters();

    let resumeFrom: number | null = null;
    if (o.lastEventId !== undefined && o.lastEventId.trim() !== '') {
      const raw = o.lastEventId.trim();
      if (!/^\d{1,15}$/.test(raw)) throw new BadRequestError(`Last-Event-ID "${clip(raw)}" is not an event id (a whole number)`, { parameter: 'Last-Event-ID' });
      resumeFrom = Number(raw);
    }

    const key = actor?.apiToken ? `token:${actor.apiToken.id}` : actor ? `user:${actor.id}` : `ip:${o.state.clientIp}`;
    const open = this.perCaller.get(key) ?? 0;
    if (open >= config.realtime.maxConnections) {
      throw new RateLimitedError(`at most ${config.realtime.maxConnections} realtime streams per caller (setting REALTIME_MAX_CONNECTIONS); close one first`, 1, {
        limit: 'realtimeConnections',
        setting: 'REALTIME_MAX_CONNECTIONS',
      });
    }
    // The place is taken now (before any await), so concurrent opens of one caller cannot pass the limit together.
    this.perCaller.set(key, open + 1);
    let opened = false;
    try {
      await this.start(o, key, models, access, actor, resumeFrom);
      opened = true;
    } finally {
      if (!opened) {
        this.release(key);
        this.idle();
      }
    }
  }

  private release(key: string): void {
    const n = (this.perCaller.get(key) ?? 1) - 1;
    if (n <= 0) this.perCaller.delete(key);
    else this.perCaller.set(key, n);
  }

  private async start(o: OpenStream, key: string, models: readonly ContentType[], access: StreamAccess, first: Actor | null, resumeFrom: number | null): Promise<void> {
    const { config, events } = this.deps;
    let actor = first;
    // Subscribe before reading where to start: every event after that point comes live or from the backlog.
    this.subscribe();
    const latest = await events.latestId();
    if (resumeFrom !== null && (resumeFrom > latest || latest === 0)) await this.pastNewest(resumeFrom, latest);
    if (resumeFrom !== null && latest - resumeFrom > config.realtime.resumeWindow) {
      throw new ResumeGoneError(
        `cannot resume after event ${resumeFrom}: more than ${config.realtime.resumeWindow} events have happened since (setting REALTIME_RESUME_WINDOW); reload the data, then subscribe again without Last-Event-ID`,
        { limit: 'realtimeResumeWindow', setting: 'REALTIME_RESUME_WINDOW', latestEventId: latest },
      );
    }
    if (resumeFrom !== null && latest > resumeFrom) {
      // Events after the resume point no longer kept (the outbox is pruned by age): the gap cannot be filled.
      const oldest = await oldestEventId(this.deps.db);
      if (oldest !== null && oldest > resumeFrom + 1) {
        throw new ResumeGoneError(`cannot resume after event ${resumeFrom}: the events after it are no longer kept (the outbox keeps events for a limited time); reload the data, then subscribe again without Last-Event-ID`, {
          limit: 'realtimeResumeWindow',
          setting: 'REALTIME_RESUME_WINDOW',
          oldestEventId: oldest,
        });
      }
    }
    const from = resumeFrom ?? latest;
    // The hub may not have read that far yet (another node's write, its signal still on the way): it
    // would hand this stream, once registered below, events at or before `from` live, which the client
    // has (resume) or which precede its connection. Registered after the hub has passed `latest`, the
    // stream gets live only later events (and late commits of skipped ids); the backlog reads the rest.
    await events.caughtUp(latest);

    let checkedAt = Date.now();
    const unauthorized = (e: unknown): RenderEnd => {
      const err = e instanceof AppError ? e : new UnauthorizedError('the credentials are no longer valid');
      return new RenderEnd('credentials no longer valid', frame(null, 'error', { error: { status: err.status, name: err.name, message: err.message, details: err.details } }));
    };
    /** Re-authenticate (the session may have ended, the token been revoked) and re-read permissions. */
    const refresh = async (force: boolean): Promise<void> => {
      if (!force && Date.now() - checkedAt < REFRESH_MS) return;
      checkedAt = Date.now();
      try {
        actor = await this.actorOf(o.bearer, o.state);
      } catch (e) {
        // Refused credentials end the stream with their answer; a fault (the database away) just
        // drops the connection, and the client reconnects with Last-Event-ID.
        if (e instanceof AppError) throw unauthorized(e);
        throw e;
      }
      await access.refresh(actor);
    };
    // The client may leave at any await: no statement is started for a stream that is gone.
    const isOpen = (): boolean => !stream.closed;
    const render = async (e: StoredEvent): Promise<string | null> => {
      if (e.model === null || !isOpen()) return null;
      await refresh(false);
      const view = access.view(e.model);
      if (!view?.allowed || !isOpen()) return null;
      if (view.query) {
        if (e.recordId === null) return null;
        // The stream's own filter (no rule) is judged on the record the event carries, in memory, where it can be.
        const model = this.deps.registry.get(e.model);
        const judged = !view.ruled && e.record && model ? matchesSnapshot(view.query.filter, model, e.record) : null;
        if (judged === false) return null;
        if (judged === null) {
          // In SQL: a rule, or a filter through a relation. Against the version the event carries (pinned).
          const version = view.pinned && typeof e.record?.updatedAt === 'string' ? e.record.updatedAt : null;
          const query = version && view.pinned ? view.pinned(version) : view.query;
          if (!(await this.matcher.matches(e.id, view.key, query, e.recordId, isOpen, key))) return null;
          if (!isOpen()) return null;
        }
      }
      const record = access.shown(e.model, view, e.record);
      if (record !== e.record) return frame(e.id, e.type, payload(e, record));
      // The same frame for every stream that shows the whole record: serialized once per event.
      let f = this.frames.get(e);
      if (f === undefined) {
        f = frame(e.id, e.type, payload(e, record));
        this.frames.set(e, f);
      }
      return f;
    };

    const stream: SseStream = new SseStream(
      o.res,
      { queueMax: config.realtime.queueMax, queueMaxBytes: config.realtime.queueMaxBytes, heartbeatMs: config.realtime.heartbeatMs, flushMs: config.realtime.flushMs },
      render,
      async () => {
        try {
          await refresh(false);
          return null;
        } catch (e) {
          if (e instanceof RenderEnd) return e.frame;
          throw e;
        }
      },
      // Runs once the stream's work has stopped (not when the socket closes): its place is counted until then.
      (reason) => {
        for (const m of models) this.byModel.get(m.name)?.delete(stream);
        this.release(key);
        this.idle();
        o.state.log.info({ reason, models: models.map((m) => m.name) }, 'realtime stream ended');
      },
    );
    for (const m of models) {
      let set = this.byModel.get(m.name);
      if (!set) this.byModel.set(m.name, (set = new Set()));
      set.add(stream);
    }
    const wanted = new Set(models.map((m) => m.name));
    // The backlog: events after `from` (the resume point, or the newest at connect, which covers the
    // moment between connecting and the hub's first read). Live events of these ids are skipped.
    stream.open(async () => {
      let after = from;
      let left = config.realtime.resumeWindow;
      while (left > 0 && !stream.closed) {
        const batch = await events.readAfter(after, Math.min(500, left));
        for (const e of batch) {
          // Looked at before every event, not every batch: an abandoned catch-up stops at once.
          if (stream.closed) return;
          if (e.model !== null && wanted.has(e.model)) await stream.writeBacklog(e);
        }
        if (batch.length === 0) break;
        after = batch[batch.length - 1].id;
        left -= batch.length;
      }
    });
  }

  /**
   * A resume point past the newest event the outbox holds (`latest`), or any with the outbox empty
   * (`latest` 0). With events kept, no event after
   * `latest` has committed: the id is none the server gave (400). With the outbox pruned empty, the
   * highest id ever handed out decides: past it, 400; before it, the events in between were pruned (410);
   * at it, nothing was missed.
   */
  private async pastNewest(resumeFrom: number, latest: number): Promise<void> {
    const newest = latest > 0 ? latest : await this.deps.events.issuedId();
    if (resumeFrom > newest) {
      throw new BadRequestError(`Last-Event-ID ${resumeFrom} is past the newest event (${newest}): not an id this server sent; subscribe without Last-Event-ID`, {
        parameter: 'Last-Event-ID',
        latestEventId: newest,
      });
    }
    if (resumeFrom < newest) {
      throw new ResumeGoneError(`cannot resume after event ${resumeFrom}: the events after it are no longer kept (the outbox keeps events for a limited time); reload the data, then subscribe again without Last-Event-ID`, {
        limit: 'realtimeResumeWindow',
        setting: 'REALTIME_RESUME_WINDOW',
        oldestEventId: null,
        latestEventId: newest,
      });
    }
  }

  private subscribe(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.unsubscribe) return;
    this.unsubscribe = this.deps.events.subscribe((e) => {
      if (e.model === null) return;
      const set = this.byModel.get(e.model);
      if (set) for (const s of set) s.push(e);
    });
  }

  /** No stream left on this node: leave the pipeline after IDLE_MS (an idle node runs no outbox reads for us). */
  private idle(): void {
    if (this.size > 0 || !this.unsubscribe || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.size > 0) return;
      this.unsubscribe?.();
      this.unsubscribe = null;
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
