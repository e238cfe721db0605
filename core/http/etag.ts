/**
 * Validators of read answers (issue 17): a strong ETag computed from the answer's bytes, and the
 * If-None-Match test of RFC 9110 §13.1.2. Pure functions; core/records/controller.ts applies them.
 *
 * The tag is the SHA-1 of the bytes (base64url, 27 characters) — not for secrecy, only to tell two
 * answers apart; SHA-1 runs at about 1 GB/s with the CPU's SHA extensions, so a 16 MiB answer costs
 * ~15 ms (spread over the serializing slices, see json-answer.ts) and a small list a few µs. Two
 * answers with the same bytes are the same representation, whoever asked: a strong tag is honest.
 */
import { createHash, type Hash } from 'node:crypto';

/** Incremental hasher of an answer made in several buffers. */
export function answerHasher(): Hash {
  return createHash('sha1');
}

/** `"<base64url sha1>"` of a finished hasher. */
export function etagOfHash(h: Hash): string {
  return `"${h.digest('base64url')}"`;
}

/** `"<base64url sha1>"` of bytes at hand. */
export function etagOf(bytes: Buffer | string): string {
  return etagOfHash(createHash('sha1').update(bytes));
}

/**
 * One entity-tag of a header, `"x"` or `W/"x"`, with the commas around it: empty members are allowed
 * (RFC 9110 §5.6.1, §8.8.3), so a comma followed by nothing but commas and spaces ends the header.
 */
const ENTITY_TAG = /(?:\s*,)*\s*(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,(?:[\s,]*$)?|$)/y;

/**
 * Whether If-None-Match `header` matches the current representation tagged `etag` (a strong tag).
 * `*` (alone) matches any current representation; otherwise the weak comparison applies (`W/"x"`
 * matches `"x"`). A header with any malformed member matches nothing, whatever tags it names besides
 * (README: a malformed header never yields 304).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const h = header.trim();
  if (h === '') return false;
  if (h === '*') return true;
  ENTITY_TAG.lastIndex = 0;
  let hit = false;
  while (ENTITY_TAG.lastIndex < h.length) {
    const at = ENTITY_TAG.lastIndex;
    const m = ENTITY_TAG.exec(h);
    if (!m || ENTITY_TAG.lastIndex === at) return false;
    if (m[1] === etag) hit = true;
  }
  return hit;
}

/**
 * Cache-Control of record reads: `private` (a shared cache must not give one caller's answer to
 * another: answers depend on the caller's permissions), `no-cache` (a browser may keep it but must
 * revalidate every time: any write can change it, so no freshness lifetime is honest).
 */
export const READ_CACHE_CONTROL = 'private, no-cache';
