/**
 * A record answer as JSON bytes, bounded and without holding the event loop (issue 13): a small answer
 * (WHOLE_MAX_NODES objects and arrays, WHOLE_MAX_CHARS of strings) is one native JSON.stringify; a
 * larger one is serialized piece by piece (a record without nested records or long strings is one
 * native JSON.stringify; records with populated relations are walked, long strings written in pieces
 * of LONG_STRING_CHARS), bytes are counted and hashed as they are made, and serializing yields to
 * other requests (setImmediate) after every SLICE_MS of work. Six large answers of one caller made at
 * once hold the event loop for about 6 × SLICE_MS per turn, so other requests wait that long, not the
 * 8 ms per answer per turn, or a whole stringify of a long text, they waited before (README: Answers
 * nobody reads). The whole answer is made before anything is sent, so a body past ANSWER_MAX_BYTES
 * answers 413 instead of a cut-off 200.
 */
import { performance } from 'node:perf_hooks';
import { AnswerTooLargeError } from '../errors/errors';
import { answerHasher, etagOfHash } from './etag';
import { isJsonLeaf } from './json-leaves';

/** Longest stretch of serializing one answer between two turns of the event loop. */
export const SLICE_MS = 1;
/** Characters of flat properties gathered into one piece of a walked object. */
const CHUNK_CHARS = 1 << 14;
/** Bytes of the buffers text is encoded into (the clock is looked at whenever one is full). */
const CHUNK_BYTES = 1 << 18;
/** A piece longer than this is encoded into a buffer of its own. */
const OWN_BUFFER_CHARS = 1 << 14;
/** Below this nesting every value is stringified whole (deep `json` field values). */
const MAX_WALK_DEPTH = 32;
/** Pieces between two looks at the clock (also after every buffer filled or piece encoded on its own). */
const CLOCK_EVERY = 64;
/**
 * Answers of at most this many objects and arrays (a page of records with their populated lists) are
 * stringified whole: one native call, well under SLICE_MS, where walking them piece by piece cost more
 * than the stringify itself.
 */
export const WHOLE_MAX_NODES = 2000;
/** …and of at most this many characters of strings (long text values): a whole stringify stays short. */
export const WHOLE_MAX_CHARS = 1 << 18;
/** A string longer than this is written in pieces of this many characters (a long text field). */
export const LONG_STRING_CHARS = 1 << 16;
/** A list of scalars longer than this is written element by element. */
const FLAT_LIST_MAX = 1024;
/** A record whose string values hold more characters than this is written property by property. */
const SHALLOW_MAX_CHARS = 1 << 16;

/** null, a boolean, a number, a string up to LONG_STRING_CHARS (or what JSON leaves out or fails on). */
const isLeaf = (v: unknown): boolean => v === null || (typeof v !== 'object' && (typeof v !== 'string' || v.length <= LONG_STRING_CHARS));

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Characters of `v` if it is a string, else 0. */
const charsOf = (v: unknown): number => (typeof v === 'string' ? v.length : 0);

/** Scalars, or a short list of scalars: small enough to stringify whole. */
function isFlat(v: unknown): boolean {
  if (isLeaf(v)) return true;
  if (typeof v !== 'object') return false; // a long string
  if (Array.isArray(v)) return v.length <= FLAT_LIST_MAX && v.every(isLeaf);
  if (!isPlainObject(v as object)) return true;
  for (const k in v as Record<string, unknown>) if (!isLeaf((v as Record<string, unknown>)[k])) return false;
  return true;
}

/**
 * An object whose values are flat and not long together (a record with its to-one relations
 * populated, `_media`): one native JSON.stringify. Anything holding a list of objects (to-many
 * populates, records) or long text is walked.
 */
function isShallow(obj: Record<string, unknown>): boolean {
  let chars = 0;
  for (const k in obj) {
    const v = obj[k];
    if (!isFlat(v)) return false;
    chars += charsOf(v);
  }
  return chars <= SHALLOW_MAX_CHARS;
}

interface Budget {
  nodes: number;
  chars: number;
}

/** Are there at most `budget.nodes` objects and arrays and `budget.chars` characters of strings in `v`? (stops counting once past either) */
function fitsWhole(v: unknown, budget: Budget): boolean {
  if (v === null || typeof v !== 'object') return typeof v !== 'string' || (budget.chars -= v.length) >= 0;
  if (--budget.nodes < 0) return false;
  if (Array.isArray(v)) {
    for (const item of v) if (!fitsWhole(item, budget)) return false;
    return true;
  }
  if (!isPlainObject(v)) return true;
  for (const k in v as Record<string, unknown>) if (!fitsWhole((v as Record<string, unknown>)[k], budget)) return false;
  return true;
}

/**
 * A long string's JSON in pieces: JSON.stringify escapes a string code unit by code unit, except that
 * a surrogate pair stays as it is, so cutting anywhere but inside a pair gives the same text.
 */
function* stringPieces(s: string): Generator<string, void, undefined> {
  yield '"';
  for (let at = 0; at < s.length; ) {
    let end = Math.min(at + LONG_STRING_CHARS, s.length);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield JSON.stringify(s.slice(at, end)).slice(1, -1);
    at = end;
  }
  yield '"';
}

/** A repeated object or list is kept as bytes the second time it is written if it is at most about this long. */
const REPEAT_MAX_CHARS = 1 << 18;

/**
 * The objects and lists one answer walks (not the ones stringified whole): those seen once, and the
 * bytes of those seen again. A populated record is one object under every parent that shows it (100
 * fee types of one institute carry the same institute object with its fee types), so its bytes are
 * kept the second time and reused from then on, the same buffer each time (JSON.stringify would make
 * its text anew each time, the same text: nothing changes the answer's objects while it is serialized).
 */
interface Repeats {
  readonly seen: Set<object>;
  readonly bytes: Map<object, Buffer>;
  /** The text of each `json` attribute value written (json-leaves.ts), as bytes when it is long. */
  readonly leaves: Map<object, Piece>;
}

/** A piece of the answer: text, or the bytes of a repeated object. */
type Piece = string | Buffer;

/**
 * `v` as JSON text in pieces whose concatenation is exactly JSON.stringify(v). `keeping`: `v` is a
 * repeated object whose pieces are being kept (walk it, do not look it up).
 */
function* pieces(v: unknown, depth: number, repeats: Repeats, keeping = false): Generator<Piece, void, undefined> {
  if (typeof v === 'string' && v.length > LONG_STRING_CHARS) {
    yield* stringPieces(v);
    return;
  }
  if (isLeaf(v) || depth >= MAX_WALK_DEPTH) {
    yield JSON.stringify(v) ?? 'null';
    return;
  }
  if (isJsonLeaf(v as object)) {
    // A `json` attribute's value: one native stringify, its text reused wherever the value appears again.
    let text = repeats.leaves.get(v as object);
    if (text === undefined) {
      const s = JSON.stringify(v) ?? 'null';
      text = s.length > OWN_BUFFER_CHARS ? Buffer.from(s, 'utf8') : s;
      repeats.leaves.set(v as object, text);
    }
    yield text;
    return;
  }
  if (Array.isArray(v) ? isFlat(v) : !isPlainObject(v as object) || isShallow(v as Record<string, unknown>)) {
    // Dates, buffers and anything with toJSON as JSON.stringify has them; flat lists and records whole.
    yield JSON.stringify(v) ?? 'null';
    return;
  }
  if (!keeping) {
    const known = repeats.bytes.get(v as object);
    if (known !== undefined) {
      yield known;
      return;
    }
    if (repeats.seen.has(v as object)) {
      yield* kept(v as object, depth, repeats);
      return;
    }
    repeats.seen.add(v as object);
  }
  if (Array.isArray(v)) {
    yield '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ',';
      yield* pieces(v[i], depth + 1, repeats);
    }
    yield ']';
    return;
  }
  const obj = v as Record<string, unknown>;
  // Flat properties are written one by one (key order kept, a CHUNK_CHARS of them at a time); the others are walked.
  let text = '{';
  let first = true;
  for (const k of Object.keys(obj)) {
    const value = obj[k];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue; // as JSON.stringify
    text += `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    if (isFlat(value)) {
      text += JSON.stringify(value) ?? 'null';
      if (text.length >= CHUNK_CHARS) {
        yield text;
        text = '';
      }
      continue;
    }
    yield text;
    text = '';
    yield* pieces(value, depth + 1, repeats);
  }
  yield `${text}}`;
}

/** A walked object seen before: its pieces, and its bytes kept to be reused (if it is not too long). */
function* kept(obj: object, depth: number, repeats: Repeats): Generator<Piece, void, undefined> {
  let kept: Piece[] | null = [];
  let size = 0;
  for (const piece of pieces(obj, depth, repeats, true)) {
    if (kept) {
      kept.push(piece);
      size += piece.length;
      if (size > REPEAT_MAX_CHARS) kept = null;
    }
    yield piece;
  }
  if (kept) repeats.bytes.set(obj, Buffer.concat(kept.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))));
}

const tooLarge = (maxBytes: number, afterWrite: boolean): AnswerTooLargeError => AnswerTooLargeError.bytes(maxBytes, afterWrite);

/** Gives the event loop to other requests (after SLICE_MS of one answer's work). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
  if (fitsWhole(body, { nodes: WHOLE_MAX_NODES, chars: WHOLE_MAX_CHARS })) {
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
  const emit = (b: Buffer): void => {
    bytes += b.length;
    if (bytes > maxBytes) throw tooLarge(maxBytes, afterWrite);
    hash?.update(b);
    buffers.push(b);
  };
  // Small pieces are joined a CHUNK_CHARS at a time and encoded into CHUNK_BYTES buffers; what is
  // written of one is emitted as a view. A long piece, or the bytes of a repeated object, go as they are.
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let start = 0;
  let used = 0;
  const cut = (): void => {
    if (used > start) emit(chunk.subarray(start, used));
    start = used;
  };
  let parts: string[] = [];
  let chars = 0;
  const encode = (): void => {
    const text = parts.length === 1 ? parts[0] : parts.join('');
    parts = [];
    chars = 0;
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair: 4 for 2).
    if (text.length * 3 > CHUNK_BYTES - used) {
      cut();
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      start = used = 0;
    }
    used += chunk.write(text, used, 'utf8');
    if (bytes + used - start > maxBytes) throw tooLarge(maxBytes, afterWrite);
  };
  let count = 0;
  let sliceStart = performance.now();
  for (const piece of pieces(body, 0, { seen: new Set(), bytes: new Map(), leaves: new Map() })) {
    let look = ++count % CLOCK_EVERY === 0;
    if (typeof piece !== 'string' || piece.length > OWN_BUFFER_CHARS) {
      if (chars > 0) encode();
      cut();
      // Each UTF-16 unit is at least one UTF-8 byte: past the bound in characters is past it in bytes.
      if (bytes + piece.length > maxBytes) throw tooLarge(maxBytes, afterWrite);
      emit(typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
      look = true;
    } else {
      parts.push(piece);
      chars += piece.length;
      if (bytes + used - start + chars > maxBytes) throw tooLarge(maxBytes, afterWrite);
      if (chars >= CHUNK_CHARS) {
        encode();
        look = true;
      }
    }
    if (look && performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  if (chars > 0) encode();
  cut();
  return hash ? { buffers, bytes, etag: etagOfHash(hash) } : { buffers, bytes };
}

/** Largest piece an answer is written to the socket in (core/records/controller.ts; HTTP_SEND_TIMEOUT counts progress per piece). */
export const SEND_CHUNK_BYTES = 64 * 1024;

/** `buffers` cut into views of at most SEND_CHUNK_BYTES (no copy). */
export function* inPieces(buffers: readonly Buffer[]): Generator<Buffer, void, undefined> {
  for (const b of buffers) for (let at = 0; at < b.length; at += SEND_CHUNK_BYTES) yield b.subarray(at, at + SEND_CHUNK_BYTES);
}
