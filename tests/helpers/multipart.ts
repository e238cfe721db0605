/** Multipart requests for API tests, with Node's own FormData and Blob (what a browser would send). */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface FilePart {
  readonly part: string;
  readonly bytes: Uint8Array;
  readonly type: string;
  readonly name: string;
}

export interface MultipartReply<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** The answer's status, headers and body (JSON when it parses, else the text). */
async function replyOf<T>(res: Response): Promise<MultipartReply<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

/** Sends `fields` (each a JSON value, stringified) and `files` as multipart/form-data; `fetchImpl`: e.g. a TestApp's checking fetch; `token` as a bearer. */
export async function sendForm<T = any>(url: string, method: string, fields: Record<string, unknown>, files: readonly FilePart[], fetchImpl: typeof fetch = fetch, token: string | null = null): Promise<MultipartReply<T>> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  for (const f of files) form.append(f.part, new Blob([f.bytes], { type: f.type }), f.name);
  const res = await fetchImpl(url, { method, body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return replyOf<T>(res);
}

/** One part of a hand-made multipart body: `type` and `filename` go into its headers only when given (curl's `-F 'data=…;type=…'`). */
export interface RawPart {
  readonly name: string;
  readonly value: string | Uint8Array;
  readonly type?: string;
  readonly filename?: string;
}

/** Sends `parts` as multipart/form-data written by hand, so a text part can carry its own Content-Type (FormData cannot say that without a file name). */
export async function sendParts<T = any>(url: string, method: string, parts: readonly RawPart[], fetchImpl: typeof fetch = fetch, token: string | null = null): Promise<MultipartReply<T>> {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type !== undefined ? `Content-Type: ${p.type}\r\n` : ''}\r\n`), Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}`, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const res = await fetchImpl(url, { method, body: Buffer.concat(chunks), headers });
  return replyOf<T>(res);
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A tiny valid PNG (1×1), plus `extra` bytes to make distinct files. */
export function png(extra = ''): Uint8Array {
  const base = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  return Buffer.concat([base, Buffer.from(extra)]);
}
export const pdf = (text = 'hello'): Uint8Array => Buffer.from(`%PDF-1.4\n% ${text}\n%%EOF\n`);
export const text = (s: string): Uint8Array => Buffer.from(s);

/** Every file under `dir` (relative paths), `.tmp` included; [] when it does not exist. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}
