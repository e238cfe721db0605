/**
 * GET/HEAD /uploads/<key>: stored files by their stable address. Keys are random and never reused, so
 * answers are immutable (cached for a year; ETag = the sha256 of the bytes; If-None-Match → 304).
 * Only the `ab/<32 hex>.<ext>` key form reaches storage, so no path can leave the uploads folder.
 * Files are public by address, like most CMS upload folders (README: Media).
 */
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { NotFoundError } from '../errors/errors';
import type { RequestState } from '../http/state';
import { isActiveContent } from './mime';
import type { MediaService } from './service';
import { isStorageKey, type StorageProvider } from './storage';

export const UPLOADS_PREFIX = '/uploads/';

/** RFC 6266: an ASCII fallback plus the UTF-8 name. */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(etag);
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
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    // A stored file is never a page of ours: no scripts, no plugins, even if a browser renders it.
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    ctx.set('Content-Disposition', disposition(isActiveContent(row.mime) ? 'attachment' : 'inline', row.name));
    const inm = ctx.get('If-None-Match');
    if (inm && matchesEtag(inm, etag)) {
      ctx.status = 304;
      return;
    }
    const body = ctx.method === 'HEAD' ? null : await storage.get(key);
    if (ctx.method === 'GET' && !body) throw new NotFoundError('no such file');
    ctx.status = 200;
    if (body) ctx.body = body;
    ctx.type = row.mime;
    ctx.length = Number(row.size);
  };
}
