/**
 * Media rules: which part goes to which field, type checks by content, storing, the media rows of a
 * record (replace, append, keep-lists), `_media` resolution in one query per page, and pruning.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { insertRows } from '../../database/dialects/insert-rows';
import { clip } from '../errors/client-text';
import { ValidationError } from '../errors/errors';
import { toIsoTimestamp } from '../registry/attribute-kinds';
import type { ContentType, MediaAttribute, Registry } from '../registry/types';
import type { IncomingFile } from './intake';
import { MAX_FILES_PER_FIELD } from './limits';
import { contentDisposition, effectiveMime, extensionFor, isAllowed, normalizeMime, sanitizeFileName } from './mime';
import { SNIFF_BYTES, sniffType } from './sniff';
import type { StorageProvider } from './storage';
import { isPublishedView } from '../drafts/view';
import { MEDIA_TABLE, PUBLISHED_MEDIA_TABLE, type MediaRow } from './table';
import { isMediaField, type RemovedMediaField } from './removed-fields';

type Db = Knex | Knex.Transaction;
type Row = Record<string, unknown>;

/** The part name the spec's update form uses for files (spec 4.3 Update): the model's only media field. */
export const FILES_PART = 'files';

/** A checked file, stored under `key`, whose media row is not written yet. */
export interface PreparedFile {
  readonly field: MediaAttribute;
  readonly name: string;
  readonly mime: string;
  readonly size: number;
  readonly sha256: string;
  readonly key: string;
}

/**
 * Spec 2.5: one entry of `_media.<field>`. `_full_url` is null in a write answer to a caller who may not
 * `find` the model: a link (a presigned one above all) is minted only for callers who may read the record.
 */
export interface MediaLink {
  readonly id: number;
  readonly name: string;
  readonly _full_url: string | null;
}

/** Pauses (ms) before the retries of a failed object delete; the first attempt is immediate. */
export const DELETE_RETRY_MS: readonly number[] = [500, 2_000, 8_000];

export interface MediaServiceDeps {
  readonly storage: StorageProvider;
  readonly registry: Registry;
  /** config.publicUrl, without a trailing slash. */
  readonly publicUrl: string;
  readonly now?: () => Date;
  /** Failed deletes are logged here (default: not logged). */
  readonly log?: Logger;
}

export interface PruneReport {
  readonly rows: number;
  readonly files: number;
  /** Media of fields the models no longer have, kept (prune without `removedFields`): core/media/removed-fields.ts. */
  readonly kept: readonly RemovedMediaField[];
}

export function mediaFields(model: ContentType): MediaAttribute[] {
  return model.attributes.filter((a): a is MediaAttribute => a.kind === 'media' && !a.private);
}

async function readHead(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

const add = (errors: Record<string, string[]>, field: string, message: string): void => {
  (errors[field] ??= []).push(message);
};

export class MediaService {
  private readonly now: () => Date;

  constructor(private readonly deps: MediaServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Where a client fetches a stored file: the provider's own address (S3: public object URL or presigned
   * GET), else `/uploads/<key>` under the public base (served by serve.ts).
   */
  async url(key: string): Promise<string> {
    const { storage, publicUrl } = this.deps;
    return storage.url ? storage.url(key) : `${publicUrl}/uploads/${key}`;
  }

  /** The field a part targets: its own name, or `files` for a model with exactly one media field. */
  private target(model: ContentType, part: string): MediaAttribute | string {
    const fields = mediaFields(model);
    const named = fields.find((f) => f.name === part);
    if (named) return named;
    if (part === FILES_PART) return fields.length === 1 ? fields[0] : `names no field: ${model.name} has ${fields.length === 0 ? 'no media field' : 'several media fields; name the part after one'}`;
    return `is not a media field of ${model.name}`;
  }

  /**
   * Checks every file (target field, count, type by content) and stores them. 422 with
   * details.fields.<field> names every problem before anything is stored.
   */
  async prepare(model: ContentType, files: readonly IncomingFile[]): Promise<PreparedFile[]> {
    if (files.length === 0) return [];
    const errors: Record<string, string[]> = {};
    const checked: { file: IncomingFile; field: MediaAttribute; mime: string }[] = [];
    for (const file of files) {
      const field = this.target(model, file.part);
      if (typeof field === 'string') {
        add(errors, clip(file.part), field);
        continue;
      }
      const mime = effectiveMime(sniffType(await readHead(file.tmpPath)), normalizeMime(file.declaredType));
      if (!isAllowed(mime, field.allowedTypes)) {
        add(errors, field.name, `${clip(sanitizeFileName(file.originalName))}: type ${mime} (from the file's content) is not allowed; allowed: ${field.allowedTypes.join(', ')}`);
        continue;
      }
      checked.push({ file, field, mime });
    }
    for (const f of mediaFields(model)) {
      if (!f.multiple && checked.filter((c) => c.field === f).length > 1) add(errors, f.name, 'takes a single file');
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(`invalid ${model.name} files`, errors);
    const out: PreparedFile[] = [];
    try {
      for (const { file, field, mime } of checked) {
        const opts = { extension: extensionFor(mime), contentType: mime, contentDisposition: contentDisposition(mime, sanitizeFileName(file.originalName)) };
        const { storage } = this.deps;
        const stored = storage.adopt ? await storage.adopt(file.tmpPath, opts) : await storage.put(createReadStream(file.tmpPath), opts);
        out.push({ field, name: sanitizeFileName(file.originalName), mime, size: stored.size, sha256: file.sha256, key: stored.key });
      }
    } catch (e) {
      await this.deleteKeys(out.map((p) => p.key));
      throw e;
    }
    return out;
  }

  /**
   * Writes the media rows of one record inside the record's transaction: keep-lists (`<field>: [ids]`
   * or null) remove the others, an upload to a single field replaces its file, to a multiple field
   * appends. Answers the storage keys to delete once the transaction has committed.
   */
  async write(trx: Db, model: ContentType, recordId: number, data: Readonly<Record<string, unknown>>, prepared: readonly PreparedFile[], creating: boolean): Promise<string[]> {
    const errors: Record<string, string[]> = {};
    const obsolete: string[] = [];
    for (const field of mediaFields(model)) {
      const uploads = prepared.filter((p) => p.field === field);
      const keepGiven = Object.hasOwn(data, field.name);
      if (creating && field.required && uploads.length === 0) add(errors, field.name, 'is required (send a file part)');
      if (!keepGiven && uploads.length === 0) continue;
      const existing = creating ? [] : ((await trx(MEDIA_TABLE).select('id', 'storage_key').where({ model: model.name, field: field.name, record_id: recordId }).orderBy('id')) as Pick<MediaRow, 'id' | 'storage_key'>[]);
      let removed = [] as typeof existing;
      if (keepGiven) {
        const keep = new Set((data[field.name] as number[] | null) ?? []);
        const unknown = [...keep].filter((id) => !existing.some((r) => Number(r.id) === id));
        if (unknown.length > 0) add(errors, field.name, `no ${field.name} file with id ${unknown.join(', ')} on this record`);
        removed = existing.filter((r) => !keep.has(Number(r.id)));
      }
      if (!field.multiple && uploads.length > 0) removed = existing; // a single field: the upload replaces the file
      const total = existing.length - removed.length + uploads.length;
      if (!field.multiple && total > 1) add(errors, field.name, 'takes a single file');
      if (total > MAX_FILES_PER_FIELD) add(errors, field.name, `holds at most ${MAX_FILES_PER_FIELD} files`);
      if (removed.length > 0) await trx(MEDIA_TABLE).whereIn('id', removed.map((r) => r.id)).del();
      for (const r of removed) obsolete.push(r.storage_key);
      const at = toIsoTimestamp(this.now());
      if (uploads.length > 0) {
        await insertRows(trx, MEDIA_TABLE, uploads.map((u) => ({ name: u.name, mime: u.mime, size: u.size, sha256: u.sha256, storage_key: u.key, model: model.name, field: field.name, record_id: recordId, created_at: at })));
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(`invalid ${model.name} files`, errors);
    return this.unpublishedKeys(trx, model, obsolete);
  }

  /** Issue 14: of `keys` dropped by a draft, those no published copy still shows (only those may be deleted). */
  private async unpublishedKeys(trx: Db, model: ContentType, keys: readonly string[]): Promise<string[]> {
    if (model.draftAndPublish !== true || keys.length === 0) return [...keys];
    const held = new Set(((await trx(PUBLISHED_MEDIA_TABLE).select('storage_key').whereIn('storage_key', [...keys])) as Pick<MediaRow, 'storage_key'>[]).map((r) => r.storage_key));
    return keys.filter((k) => !held.has(k));
  }

  /** A record removed for good takes its media rows along; answers the keys to delete after commit. */
  async removeForRecord(trx: Db, model: ContentType, recordId: number): Promise<string[]> {
    if (mediaFields(model).length === 0) return [];
    const rows = (await trx(MEDIA_TABLE).select('storage_key').where({ model: model.name, record_id: recordId })) as Pick<MediaRow, 'storage_key'>[];
    if (rows.length > 0) await trx(MEDIA_TABLE).where({ model: model.name, record_id: recordId }).del();
    return this.unpublishedKeys(trx, model, rows.map((r) => r.storage_key));
  }

  /**
   * Deletes stored objects; never throws. Resolves after the first attempt of each key; a failed one is
   * logged and retried in the background (DELETE_RETRY_MS), so callers after a commit need not wait at
   * all. A file still left behind is found by `media:prune`.
   */
  deleteKeys(keys: readonly string[]): Promise<void> {
    return Promise.all(keys.map((k) => this.deleteOne(k))).then(() => undefined);
  }

  private deleteOne(key: string): Promise<void> {
    const { storage, log } = this.deps;
    const attempt = async (n: number): Promise<boolean> => {
      try {
        await storage.delete(key);
        if (n > 1) log?.info({ key, attempt: n }, 'file storage: delete succeeded on retry');
        return true;
      } catch (e) {
        log?.warn({ key, attempt: n, reason: String((e as Error).message) }, 'file storage: delete failed');
        return false;
      }
    };
    const first = attempt(1);
    // Retry timers do not hold the process open: at exit, what is left is media:prune's to find.
    void first.then(async (ok) => {
      for (const [i, pause] of DELETE_RETRY_MS.entries()) {
        if (ok) return;
        await new Promise((r) => setTimeout(r, pause).unref());
        ok = await attempt(i + 2);
      }
      if (!ok) log?.error({ key }, 'file storage: delete given up; media:prune removes the file later');
    });
    return first.then(() => undefined);
  }

  /**
   * Sets `_media: { <field>: [{ id, name, _full_url }] }` on each record (spec 2.5): one query for the
   * whole page, never one per record. `rows[i]` (with its id) belongs to `records[i]`. `urls: false`
   * (a write answer to a caller who may not read the model): `_full_url` null, no link minted.
   */
  async attach(db: Db, model: ContentType, rows: readonly Row[], records: Record<string, unknown>[], fields: readonly MediaAttribute[], opts: { readonly urls: boolean } = { urls: true }): Promise<void> {
    if (fields.length === 0 || rows.length === 0) return;
    const ids = [...new Set(rows.map((r) => Number(r.id)))];
    // A published copy (issue 14) shows the files it was published with.
    const found = (await db(isPublishedView(model) ? PUBLISHED_MEDIA_TABLE : MEDIA_TABLE)
      .select('id', 'name', 'storage_key', 'field', 'record_id')
      .where('model', model.name)
      .whereIn('field', fields.map((f) => f.name))
      .whereIn('record_id', ids)
      .orderBy('id')) as Pick<MediaRow, 'id' | 'name' | 'storage_key' | 'field' | 'record_id'>[];
    const byRecord = new Map<string, MediaLink[]>();
    for (const m of found) {
      const k = `${Number(m.record_id)}:${m.field}`;
      const list = byRecord.get(k) ?? [];
      list.push({ id: Number(m.id), name: m.name, _full_url: opts.urls ? await this.url(m.storage_key) : null });
      byRecord.set(k, list);
    }
    rows.forEach((r, i) => {
      records[i]._media = Object.fromEntries(fields.map((f) => [f.name, byRecord.get(`${Number(r.id)}:${f.name}`) ?? []]));
    });
  }

  /** The row behind a served key (null: no such file). */
  async byKey(db: Db, key: string): Promise<MediaRow | null> {
    const row = (await db(MEDIA_TABLE).where('storage_key', key).first()) as MediaRow | undefined;
    if (row || !this.publishedMedia()) return row ?? null;
    // A file only a published copy still shows (its draft dropped it; issue 14).
    return ((await db(PUBLISHED_MEDIA_TABLE).where('storage_key', key).first()) as MediaRow | undefined) ?? null;
  }

  /** True when the schema has PUBLISHED_MEDIA_TABLE: some `draftAndPublish` model has a media field. */
  private publishedMedia(): boolean {
    return this.deps.registry.contentTypes.some((m) => m.draftAndPublish === true && mediaFields(m).length > 0);
  }

  /**
   * Removes media rows whose record is gone (a soft-deleted record still counts as present), rows whose
   * model or field is gone only with `removedFields` (without, they and their files are kept and
   * reported: a renamed field's files can still be moved), rows whose file is missing, and stored files no row names that are older than `graceMs`
   * (younger ones may belong to an upload in flight).
   *
   * No event (issue 15): it changes no record. MEDIA_TABLE is a core system table, no model of the
   * registry (no FindOne answers its rows, no event model covers them), and the record a row points at
   * is gone, or keeps the same FindOne answer (without `populateMedia` it shows no `_media`).
   */
  async prune(db: Knex, opts: { graceMs: number; dryRun: boolean; removedFields?: boolean }): Promise<PruneReport> {
    const rows = (await db(MEDIA_TABLE).select('id', 'model', 'field', 'record_id', 'storage_key')) as Pick<MediaRow, 'id' | 'model' | 'field' | 'record_id' | 'storage_key'>[];
    const doomed = new Map<number, string>();
    const byModel = new Map<string, typeof rows>();
    const kept = new Map<string, RemovedMediaField>();
    for (const r of rows) {
      if (isMediaField(this.deps.registry, r.model, r.field)) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r]);
      else if (opts.removedFields === true) doomed.set(Number(r.id), r.storage_key);
      else {
        // A removed or renamed field's files stay until the operator says so (--removed-fields).
        const k = `${r.model}.${r.field}`;
        kept.set(k, { model: r.model, field: r.field, files: (kept.get(k)?.files ?? 0) + 1 });
      }
    }
    for (const [name, list] of byModel) {
      const model = this.deps.registry.get(name) as ContentType;
      const ids = [...new Set(list.map((r) => Number(r.record_id)))];
      const present = new Set<number>();
      for (let i = 0; i < ids.length; i += 500) {
        const found = (await db(model.table).select('id').whereIn('id', ids.slice(i, i + 500))) as { id: number }[];
        for (const f of found) present.add(Number(f.id));
      }
      for (const r of list) if (!present.has(Number(r.record_id))) doomed.set(Number(r.id), r.storage_key);
    }
    for (const r of rows) if (!doomed.has(Number(r.id)) && !(await this.deps.storage.exists(r.storage_key))) doomed.set(Number(r.id), r.storage_key);
    const named = new Set(rows.filter((r) => !doomed.has(Number(r.id))).map((r) => r.storage_key));
    // Files a published copy shows (issue 14) stay, and so do the rows of those keys.
    if (this.publishedMedia()) {
      for (const r of (await db(PUBLISHED_MEDIA_TABLE).select('storage_key')) as Pick<MediaRow, 'storage_key'>[]) named.add(r.storage_key);
      for (const [id, key] of [...doomed]) if (named.has(key)) doomed.delete(id);
    }
    const strayFiles: string[] = [];
    const cutoff = this.now().getTime() - opts.graceMs;
    for await (const o of this.deps.storage.list()) if (!named.has(o.key) && o.modifiedAt.getTime() <= cutoff) strayFiles.push(o.key);
    const files = new Set(strayFiles);
    for (const k of doomed.values()) if (await this.deps.storage.exists(k)) files.add(k);
    if (!opts.dryRun) {
      const ids = [...doomed.keys()];
      for (let i = 0; i < ids.length; i += 500) await db(MEDIA_TABLE).whereIn('id', ids.slice(i, i + 500)).del();
      await this.deleteKeys([...files]);
    }
    return { rows: doomed.size, files: files.size, kept: [...kept.values()] };
  }
}
