/**
 * GET/HEAD /uploads/<key>: locally stored files by their stable address (UPLOADS_DRIVER=local). Keys are
 * random and never reused, so answers are immutable (cached for a year; ETag = the sha256 of the bytes,
 * Last-Modified = when the file was stored; If-None-Match / If-Modified-Since → 304). One `Range` is
 * honoured (206 + Content-Range; outside the file 416; several ranges answer the whole file).
 * Only the `ab/<32 hex>.<ext>` key form reaches storage, so no path can leave the uploads folder.
 * Files are public by address, like most CMS upload folders (README: Media).
 */
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { NotFoundError, RangeNotSatisfiableError } from '../errors/errors';
import { ifNoneMatchHits } from '../http/etag';
import type { RequestState } from '../http/state';
import { toIsoTimestamp } from '../registry/attribute-kinds';
import { contentDisposition } from './mime';
import { parseRange } from './range';
import type { MediaService } from './service';
import { isStorageKey, type StorageProvider } from './storage';

export const UPLOADS_PREFIX = '/uploads/';

/**
 * RFC 9110 §13.1.3: If-Modified-Since counts only without If-None-Match, at the resolution of HTTP dates (seconds).
 * If-None-Match is the record reads' test (core/http/etag.ts): weak comparison, and a malformed header
 * matches nothing (README: a malformed header never yields 304).
 */
function notModified(inm: string, ims: string, etag: string, lastModified: Date): boolean {
  if (inm) return ifNoneMatchHits(inm, etag);
  if (!ims) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

/** If-Range: the range applies only while the validator still names this file (ETag or exact date). */
function rangeApplies(ifRange: string, etag: string, lastModified: Date): boolean {
  if (!ifRange) return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange.trim() === etag;
  return Date.parse(ifRange) === Math.floor(lastModified.getTime() / 1000) * 1000;
}

export function serveUploads(db: Knex, media: MediaService, storage: StorageProvider): Middleware<RequestState> {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(UPLOADS_PREFIX)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const key = ctx.path.slice(UPLOADS_PREFIX.length);
    if (!isStorageKey(key)) throw new NotFoundError('no such file');
    const row = await media.byKey(db, key);
    if (!row) throw new NotFoundError('no such file');
    const etag = `"${row.sha256}"`;
    const lastModified = new Date(toIsoTimestamp(row.created_at));
    const size = Number(row.size);
    ctx.set('ETag', etag);
    ctx.set('Last-Modified', lastModified.toUTCString());
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('X-Content-Type-Options', 'nosniff');
    // A stored file is never a page of ours: no scripts, no plugins, even if a browser renders it.
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    if (notModified(ctx.get('If-None-Match'), ctx.get('If-Modified-Since'), etag, lastModified)) {
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.status = 304;
      return;
    }
    const range = rangeApplies(ctx.get('If-Range'), etag, lastModified) ? parseRange(ctx.get('Range') || undefined, size) : { kind: 'whole' as const };
    if (range.kind === 'unsatisfiable') throw new RangeNotSatisfiableError(size);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('Content-Disposition', contentDisposition(row.mime, row.name));
    const part = range.kind === 'part' ? { start: range.start, end: range.end } : undefined;
    const body = ctx.method === 'HEAD' ? null : await storage.get(key, part);
    if (ctx.method === 'GET' && !body) throw new NotFoundError('no such file');
    ctx.status = part ? 206 : 200;
    if (part) ctx.set('Content-Range', `bytes ${part.start}-${part.end}/${size}`);
    if (body) ctx.body = body;
    ctx.type = row.mime;
    ctx.length = part ? part.end - part.start + 1 : size;
  };
}
