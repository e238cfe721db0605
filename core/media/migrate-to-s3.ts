/**
 * media:migrate --to s3: copies every file the media tables name (working and published copies) from local
 * disk to the bucket under the same key (rows keep pointing at it), verifying sizes. Resumable: an object already in the bucket with
 * the row's size is skipped, so a run cut short is simply run again. Local files stay unless asked
 * (`removeLocal`: each is removed once its object is verified).
 */
import type { Knex } from 'knex';
import type { LocalDiskStorage } from './local-disk';
import { contentDisposition } from './mime';
import type { S3Storage } from './s3';
import { MEDIA_TABLE, PUBLISHED_MEDIA_TABLE, type MediaRow } from './table';

export interface MigrateReport {
  readonly total: number;
  readonly copied: number;
  /** Already in the bucket with the right size (an earlier run). */
  readonly skipped: number;
  readonly bytes: number;
  /** Files that could not be moved: the key and why (missing locally, size mismatch, storage error). */
  readonly failed: readonly { readonly key: string; readonly reason: string }[];
}

export interface MigrateOptions {
  readonly concurrency: number;
  readonly removeLocal: boolean;
  readonly onStart?: (total: number) => void;
  readonly onFile?: (bytes: number) => void;
}

type Row = Pick<MediaRow, 'storage_key' | 'size' | 'mime' | 'name'>;

/**
 * Every key a row names, once: the media table's, then those only a published copy still shows (issue 14:
 * a draft replaced or removed the file, `media_files__published` keeps it). Without the latter, a published
 * record's file stayed on local disk (or was lost with --remove-local) and its link broke on S3.
 */
async function filesToCopy(db: Knex): Promise<Row[]> {
  const rows = (await db(MEDIA_TABLE).select('storage_key', 'size', 'mime', 'name').orderBy('id')) as Row[];
  if (!(await db.schema.hasTable(PUBLISHED_MEDIA_TABLE))) return rows;
  const seen = new Set(rows.map((r) => r.storage_key));
  for (const r of (await db(PUBLISHED_MEDIA_TABLE).select('storage_key', 'size', 'mime', 'name').orderBy('id')) as Row[]) {
    if (seen.has(r.storage_key)) continue;
    seen.add(r.storage_key);
    rows.push(r);
  }
  return rows;
}

export async function migrateToS3(db: Knex, local: LocalDiskStorage, s3: S3Storage, opts: MigrateOptions): Promise<MigrateReport> {
  const rows = await filesToCopy(db);
  opts.onStart?.(rows.length);
  let copied = 0;
  let skipped = 0;
  let bytes = 0;
  const failed: { key: string; reason: string }[] = [];
  const one = async (row: Row): Promise<void> => {
    const key = row.storage_key;
    const size = Number(row.size);
    if ((await s3.size(key)) === size) {
      skipped++;
      if (opts.removeLocal) await local.delete(key);
      return;
    }
    const body = await local.get(key);
    if (!body) {
      failed.push({ key, reason: 'no local file' });
      return;
    }
    const sent = await s3.putAt(key, body, { extension: '', contentType: row.mime, contentDisposition: contentDisposition(row.mime, row.name) });
    const stored = await s3.size(key);
    if (sent !== size || stored !== size) {
      failed.push({ key, reason: `size mismatch: the row says ${size} bytes, the local file gave ${sent}, the bucket holds ${stored ?? 'nothing'}` });
      return;
    }
    copied++;
    bytes += size;
    if (opts.removeLocal) await local.delete(key);
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < rows.length) {
      const row = rows[next++];
      try {
        await one(row);
      } catch (e) {
        failed.push({ key: row.storage_key, reason: (e as Error).message });
      }
      opts.onFile?.(Number(row.size));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, rows.length)) }, worker));
  return { total: rows.length, copied, skipped, bytes, failed };
}
