/**
 * GET /docs: Swagger UI from swagger-ui-dist, every asset served from the package folder (no CDN);
 * GET /docs/openapi.json: the document, built once at boot. Try-it-out calls the same origin.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { RequestState } from '../http/state';
import type { OpenApiDocument } from './types';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};
/** The dist's own page and initializer load the petstore example; ours replace them. */
const NOT_SERVED = new Set(['index.html', 'swagger-initializer.js', 'index.js', 'absolute-path.js']);
/** Assets change only with the package version: a day of caching, revalidated by ETag. */
const ASSET_CACHE = 'public, max-age=86400';
/** Pins the page to this origin: a CDN or third-party call would be refused (and show in the browser test). */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Record and Identity Service: API documentation</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="stylesheet" href="/docs/index.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/docs/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    displayRequestDuration: true,
    showExtensions: false,
    tryItOutEnabled: false
  });
});
`;

interface Asset {
  readonly file: string;
  readonly type: string;
  readonly etag: string;
}

function distAssets(): Map<string, Asset> {
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const out = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[extname(name)];
    if (!type || NOT_SERVED.has(name)) continue;
    const file = join(dir, name);
    const st = statSync(file);
    out.set(name, { file, type, etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"` });
  }
  return out;
}

const etagOf = (text: string): string => `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;

function sendText(ctx: Context, type: string, text: string, etag: string, cache: string): void {
  ctx.status = 200; // ctx.fresh compares validators only on a 2xx
  ctx.set('Cache-Control', cache);
  ctx.etag = etag;
  ctx.type = type;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = text;
}

/** Routes of /docs; `document` is serialized once here. */
export function docsRouter(document: OpenApiDocument): Router<RequestState> {
  const router = new Router<RequestState>();
  const json = JSON.stringify(document);
  const jsonTag = etagOf(json);
  const pageTag = etagOf(PAGE);
  const initTag = etagOf(INITIALIZER);
  const assets = distAssets();

  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP);
    sendText(ctx as unknown as Context, 'text/html; charset=utf-8', PAGE, pageTag, 'no-cache');
  });
  router.get('/docs/', (ctx) => ctx.redirect('/docs'));
  router.get('/docs/openapi.json', (ctx) => sendText(ctx as unknown as Context, 'application/json; charset=utf-8', json, jsonTag, 'no-cache'));
  router.get('/docs/swagger-initializer.js', (ctx) => sendText(ctx as unknown as Context, 'text/javascript; charset=utf-8', INITIALIZER, initTag, 'no-cache'));
  router.get('/docs/:file', (ctx) => {
    // Only the files listed at boot: no path from the URL ever reaches the file system.
    const asset = assets.get(ctx.params.file);
    if (!asset) return; // falls through to the 404 of the error mapper
    ctx.status = 200;
    ctx.set('Cache-Control', ASSET_CACHE);
    ctx.etag = asset.etag;
    ctx.type = asset.type;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = createReadStream(asset.file);
  });
  return router;
}
