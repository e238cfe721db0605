/**
 * A record answer as JSON bytes, bounded and without holding the event loop (issue 13): a small answer
 * (WHOLE_MAX_NODES) is one native JSON.stringify; a larger one is serialized piece by piece (a record
 * without nested records is one native JSON.stringify; records with populated relations are walked),
 * bytes are counted as they are made, and serializing yields to other requests (setImmediate) after
 * every SLICE_MS of work. The whole answer is made before anything
 * is sent, so a body past ANSWER_MAX_BYTES answers 413 instead of a cut-off 200.
 */
import { performance } from 'node:perf_hooks';
import { AnswerTooLargeError } from '../errors/errors';
import { answerHasher, etagOfHash } from './etag';

/** Longest stretch of serializing between two turns of the event loop. */
export const SLICE_MS = 8;
/** Characters gathered before they are encoded into one buffer. */
const CHUNK_CHARS = 1 << 16;
/** Below this nesting every value is stringified whole (deep `json` field values). */
const MAX_WALK_DEPTH = 32;
/** Pieces between two looks at the clock. */
const CLOCK_EVERY = 128;
/**
 * Answers of at most this many objects and arrays (a page of records with their populated lists) are
 * stringified whole: one native call, well under SLICE_MS, where walking them piece by piece cost more
 * than the stringify itself.
 */
export const WHOLE_MAX_NODES = 2000;

const isLeaf = (v: unknown): boolean => v === null || typeof v !== 'object';

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Scalars, or a list of scalars: small enough to stringify whole. */
function isFlat(v: unknown): boolean {
  if (isLeaf(v)) return true;
  if (Array.isArray(v)) return v.every(isLeaf);
  if (!isPlainObject(v as object)) return true;
  for (const k in v as Record<string, unknown>) if (!isLeaf((v as Record<string, unknown>)[k])) return false;
  return true;
}

/**
 * An object whose values are flat (a record with its to-one relations populated, `_media`): one
 * native JSON.stringify. Anything holding a list of objects (to-many populates, records) is walked.
 */
function isShallow(obj: Record<string, unknown>): boolean {
  for (const k in obj) if (!isFlat(obj[k])) return false;
  return true;
}

/** Are there at most `budget.left` objects and arrays in `v`? (stops counting once past it) */
function fitsWhole(v: unknown, budget: { left: number }): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (--budget.left < 0) return false;
  if (Array.isArray(v)) {
    for (const item of v) if (!fitsWhole(item, budget)) return false;
    return true;
  }
  if (!isPlainObject(v)) return true;
  for (const k in v as Record<string, unknown>) if (!fitsWhole((v as Record<string, unknown>)[k], budget)) return false;
  return true;
}

/** `v` as JSON text in pieces whose concatenation is exactly JSON.stringify(v). */
function* pieces(v: unknown, depth: number): Generator<string, void, undefined> {
  if (isLeaf(v) || depth >= MAX_WALK_DEPTH) {
    yield JSON.stringify(v) ?? 'null';
    return;
  }
  if (Array.isArray(v)) {
    if (v.every(isLeaf)) {
      yield JSON.stringify(v);
      return;
    }
    yield '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ',';
      yield* pieces(v[i], depth + 1);
    }
    yield ']';
    return;
  }
  // Dates, buffers and anything with toJSON: as JSON.stringify has them.
  if (!isPlainObject(v as object)) {
    yield JSON.stringify(v) ?? 'null';
    return;
  }
  const obj = v as Record<string, unknown>;
  if (isShallow(obj)) {
    yield JSON.stringify(obj);
    return;
  }
  // Flat properties are written one by one (key order kept); the others are walked.
  let text = '{';
  let first = true;
  for (const k of Object.keys(obj)) {
    const value = obj[k];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue; // as JSON.stringify
    text += `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    if (isFlat(value)) {
      text += JSON.stringify(value) ?? 'null';
      continue;
    }
    yield text;
    text = '';
    yield* pieces(value, depth + 1);
  }
  yield `${text}}`;
}

function tooLarge(maxBytes: number, afterWrite: boolean): AnswerTooLargeError {
  return new AnswerTooLargeError(
    `the answer is larger than ${maxBytes} bytes (ANSWER_MAX_BYTES); ` +
      (afterWrite ? 'the write itself was carried out: read the records back with fields or populate limits' : 'ask for fewer records or fields (limit, fields, populate[<relation>][limit])'),
    { setting: 'ANSWER_MAX_BYTES', limit: maxBytes },
  );
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The answer's bytes, in the buffers they were made in (not copied into one: a large copy stalls too). */
export interface JsonAnswer {
  readonly buffers: readonly Buffer[];
  readonly bytes: number;
  /** The strong ETag of the bytes, when asked for (hashed buffer by buffer, inside the slices). */
  readonly etag?: string;
}

/**
 * `body` as UTF-8 JSON, at most `maxBytes` long (else AnswerTooLargeError, 413). `afterWrite`: the
 * answer of a write that has been committed (the message says so). `tag`: compute its strong ETag too.
 */
export async function jsonAnswer(body: unknown, maxBytes: number, afterWrite = false, tag = false): Promise<JsonAnswer> {
  const hash = tag ? answerHasher() : null;
  if (fitsWhole(body, { left: WHOLE_MAX_NODES })) {
    const text = JSON.stringify(body) ?? 'null';
    // Each UTF-16 unit is at least one UTF-8 byte: past the bound in characters is past it in bytes.
    if (text.length > maxBytes) throw tooLarge(maxBytes, afterWrite);
    const b = Buffer.from(text, 'utf8');
    if (b.length > maxBytes) throw tooLarge(maxBytes, afterWrite);
    hash?.update(b);
    return hash ? { buffers: [b], bytes: b.length, etag: etagOfHash(hash) } : { buffers: [b], bytes: b.length };
  }
  const buffers: Buffer[] = [];
  let bytes = 0;
  let parts: string[] = [];
  let chars = 0;
  let count = 0;
  let sliceStart = performance.now();
  const flush = (): void => {
    const b = Buffer.from(parts.join(''), 'utf8');
    parts = [];
    chars = 0;
    bytes += b.length;
    if (bytes > maxBytes) throw tooLarge(maxBytes, afterWrite);
    hash?.update(b);
    buffers.push(b);
  };
  for (const piece of pieces(body, 0)) {
    parts.push(piece);
    chars += piece.length;
    // Each UTF-16 unit is at least one UTF-8 byte: past the bound in characters is past it in bytes.
    if (bytes + chars > maxBytes) throw tooLarge(maxBytes, afterWrite);
    if (chars >= CHUNK_CHARS) flush();
    if (++count % CLOCK_EVERY === 0 && performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  flush();
  return hash ? { buffers, bytes, etag: etagOfHash(hash) } : { buffers, bytes };
}

/** Largest piece an answer is written to the socket in (core/records/controller.ts; HTTP_SEND_TIMEOUT counts progress per piece). */
export const SEND_CHUNK_BYTES = 64 * 1024;

/** `buffers` cut into views of at most SEND_CHUNK_BYTES (no copy). */
export function* inPieces(buffers: readonly Buffer[]): Generator<Buffer, void, undefined> {
  for (const b of buffers) for (let at = 0; at < b.length; at += SEND_CHUNK_BYTES) yield b.subarray(at, at + SEND_CHUNK_BYTES);
}
