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

/** Sends `fields` (each a JSON value, stringified) and `files` as multipart/form-data; `fetchImpl`: e.g. a TestApp's checking fetch; `token` as a bearer. */
export async function sendForm<T = any>(url: string, method: string, fields: Record<string, unknown>, files: readonly FilePart[], fetchImpl: typeof fetch = fetch, token: string | null = null): Promise<MultipartReply<T>> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  for (const f of files) form.append(f.part, new Blob([f.bytes], { type: f.type }), f.name);
  const res = await fetchImpl(url, { method, body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: body as T, headers: res.headers };
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
