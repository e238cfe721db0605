/** Security headers (helmet) and CORS from an allowlist (CONTRACT: CORS_ORIGINS). */
import cors from '@koa/cors';
import type { Middleware } from 'koa';
import helmet from 'koa-helmet';
import type { RequestState } from './state';

/**
 * helmet's defaults, with a strict CSP for the JSON API. helmet sets no CSP under `/docs`: the page
 * sets its own, for swagger-ui (core/openapi/docs.ts: local sources only, inline style; CONTRACT:
 * Documentation); its assets and the JSON document need none. Stored files
 * under `/uploads/` may be embedded by pages of other sites (`<img src>`), so they are
 * `Cross-Origin-Resource-Policy: cross-origin`; core/media/serve.ts sets their own sandboxing CSP.
 */
export function securityHeaders(): Middleware<RequestState> {
  const base = { referrerPolicy: { policy: 'no-referrer' as const } };
  const api = helmet({
    ...base,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: 'same-site' },
  }) as unknown as Middleware<RequestState>;
  const docs = helmet({ ...base, contentSecurityPolicy: false }) as unknown as Middleware<RequestState>;
  const uploads = helmet({ ...base, contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } }) as unknown as Middleware<RequestState>;
  return (ctx, next) => {
    if (ctx.path === '/docs' || ctx.path.startsWith('/docs/')) return docs(ctx, next);
    if (ctx.path.startsWith('/uploads/')) return uploads(ctx, next);
    return api(ctx, next);
  };
}

/**
 * CORS for the listed origins only: a request without `Origin`, or from an origin not listed, gets
 * no Access-Control-Allow-Origin (the browser then refuses to hand the answer to the page).
 * `*` in the list allows every origin (without credentials).
 */
export function corsAllowlist(origins: readonly string[]): Middleware<RequestState> {
  const any = origins.includes('*');
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, '')));
  return cors({
    origin: (ctx) => {
      const o = ctx.get('Origin');
      if (o === '') return undefined;
      return any ? '*' : allowed.has(o) ? o : undefined;
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // Last-Event-ID: a fetch-based realtime client resumes with it (core/realtime); not safelisted, so preflighted.
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'If-None-Match', 'Last-Event-ID'],
    exposeHeaders: ['X-Request-Id', 'Retry-After', 'ETag'],
    maxAge: 600,
    keepHeadersOnError: true,
  }) as unknown as Middleware<RequestState>;
}
