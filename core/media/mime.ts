/** Declared vs sniffed types, allowed-type patterns, and which types a browser would run. */
import type { SniffedType } from './sniff';

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** `Image/PNG; charset=x` → `image/png`; anything malformed → null. */
export function normalizeMime(raw: string | null | undefined): string | null {
  const t = (raw ?? '').split(';')[0].trim().toLowerCase();
  return MIME.test(t) ? t : null;
}

function isTextLike(t: string): boolean {
  return t.startsWith('text/') || t.endsWith('+xml') || t.endsWith('+json') ||
    ['application/json', 'application/xml', 'application/javascript', 'application/x-yaml', 'application/yaml'].includes(t);
}

function isZipBased(t: string): boolean {
  return t.endsWith('+zip') || t.startsWith('application/vnd.openxmlformats-officedocument.') ||
    t.startsWith('application/vnd.oasis.opendocument.') || t === 'application/java-archive';
}

/**
 * The type a file is stored and served with: the sniffed type for recognised binaries; the declared
 * type only where the bytes cannot tell (a text subtype for text, a zip-based format for a zip).
 */
export function effectiveMime(sniffed: SniffedType, declared: string | null): string {
  switch (sniffed) {
    case 'application/zip':
      return declared && isZipBased(declared) ? declared : sniffed;
    case 'text/plain':
    case 'text/html':
    case 'image/svg+xml':
    case 'application/xml':
      return declared && isTextLike(declared) ? declared : sniffed;
    default:
      return sniffed;
  }
}

/** `allowedTypes: [image/*, application/pdf]`; an empty list allows every type. */
export function isAllowed(mime: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  return allowed.some((p) => {
    const pattern = p.toLowerCase();
    if (pattern === '*' || pattern === '*/*') return true;
    if (pattern.endsWith('/*')) return mime.startsWith(pattern.slice(0, -1));
    return mime === pattern;
  });
}

/**
 * Every JavaScript MIME type of the WHATWG MIME Sniffing standard (§4.6): a browser runs a script served
 * with any of them, even under nosniff (`text/x-javascript` and `text/jscript` are text subtypes a client
 * may declare, which effectiveMime keeps).
 */
const JAVASCRIPT_TYPES: ReadonlySet<string> = new Set([
  'application/ecmascript', 'application/javascript', 'application/x-ecmascript', 'application/x-javascript',
  'text/ecmascript', 'text/javascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2',
  'text/javascript1.3', 'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript',
  'text/x-ecmascript', 'text/x-javascript',
]);

/** Types a browser would render as a document or run: served with `Content-Disposition: attachment`. */
export function isActiveContent(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml' || mime === 'image/svg+xml' ||
    mime === 'text/xml' || mime === 'application/xml' || mime.endsWith('+xml') || JAVASCRIPT_TYPES.has(mime);
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'application/pdf': 'pdf',
  'application/zip': 'zip', 'text/plain': 'txt', 'text/html': 'html', 'image/svg+xml': 'svg', 'application/xml': 'xml',
  'text/csv': 'csv', 'application/json': 'json', 'text/markdown': 'md',
};

/** The storage key's extension (cosmetic: files are served with the stored type, never by extension). */
export function extensionFor(mime: string): string {
  return EXTENSIONS[mime] ?? 'bin';
}

/** Display name: the last path segment, no control or bidi-override characters, at most 255 characters. */
export function sanitizeFileName(raw: string | null | undefined): string {
  const last = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = last.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  const name = clean === '.' || clean === '..' ? '' : clean.replace(/^\.+/, '');
  return [...name].slice(0, 255).join('') || 'file';
}

/** RFC 6266 `Content-Disposition`: attachment for active types, inline otherwise; an ASCII fallback plus the UTF-8 name. */
export function contentDisposition(mime: string, name: string): string {
  const kind = isActiveContent(mime) ? 'attachment' : 'inline';
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // encodeURIComponent leaves ' ( ) * as they are, which RFC 5987's attr-char does not allow (a `'` ends the charset part)
  const extended = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${extended}`;
}
