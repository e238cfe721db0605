/** Pure value parsers for configuration (durations, booleans, integers, lists). */

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** `60m`, `1d`, `90s`, `500ms` or a bare number of seconds → seconds. */
export function parseDuration(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!m) throw new Error(`"${raw}" is not a duration (examples: 60m, 1d, 3600)`);
  return Number(m[1]) * UNIT_SECONDS[m[2] ?? 's'];
}

/** REALTIME_FLUSH: a duration of at most one second (an event must reach its streams within a second). */
export function parseFlushWindow(raw: string): number {
  const seconds = parseDuration(raw);
  if (seconds > 1) throw new Error(`"${raw}" is more than 1s (an event must reach its streams within a second)`);
  return seconds;
}

/** An http(s) URL without its trailing slashes; '' when unset. */
export function parseHttpUrl(raw: string): string {
  const v = raw.trim().replace(/\/+$/, '');
  if (v === '') return '';
  if (!/^https?:\/\/[^/\s]+/i.test(v) || !URL.canParse(v)) throw new Error(`"${raw.slice(0, 100)}" is not an http(s) URL`);
  return v;
}

export function parseBoolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  throw new Error(`"${raw}" is not a boolean (true or false)`);
}

export function parsePositiveInt(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`"${raw}" is not a whole number`);
  return n;
}

/** A whole number of at least 1 (a count of turns: 0 would let nothing run). */
export function parseAtLeastOne(raw: string): number {
  const n = parsePositiveInt(raw);
  if (n < 1) throw new Error(`"${raw}" is less than 1 (nothing could run)`);
  return n;
}

/** SQLITE_READERS: 0 to MAX_SQLITE_READERS read-only connections; by default more than CALLER_CONCURRENCY's 6, so one caller cannot take them all. */
export const MAX_SQLITE_READERS = 16;
export const SQLITE_READERS_DEFAULT = 8;
export function parseSqliteReaders(raw: string): number {
  const n = parsePositiveInt(raw);
  if (n > MAX_SQLITE_READERS) throw new Error(`"${raw}" is more than ${MAX_SQLITE_READERS} (each reader is a connection with its own page cache; SQLite gains nothing past the cores that run them)`);
  return n;
}

/** NODE_HEAP_GROWTH_PERCENT: 0 (V8's own heap growing) to MAX_HEAP_GROWTH_PERCENT. */
export const MAX_HEAP_GROWTH_PERCENT = 400;
export function parseHeapGrowth(raw: string): number {
  const n = parsePositiveInt(raw);
  if (n > MAX_HEAP_GROWTH_PERCENT) throw new Error(`"${raw}" is more than ${MAX_HEAP_GROWTH_PERCENT} (0 leaves the heap's growth to V8)`);
  return n;
}

export function parseList(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** `email`, `mobile` or `email,mobile`. */
export function parseSources(raw: string): ('email' | 'mobile')[] {
  const list = parseList(raw);
  for (const s of list) if (s !== 'email' && s !== 'mobile') throw new Error(`"${s}" is not a validation source (email, mobile)`);
  return [...new Set(list)] as ('email' | 'mobile')[];
}

/** pino's levels, quietest last: a name outside them would crash the logger with a stack trace. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function parseLogLevel(raw: string): LogLevel {
  const v = raw.trim().toLowerCase();
  const level = LOG_LEVELS.find((l) => l === v);
  if (!level) throw new Error(`"${raw}" is not a log level (one of: ${LOG_LEVELS.join(', ')})`);
  return level;
}
