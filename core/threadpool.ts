/**
 * libuv's threadpool runs every sqlite3 statement (and fs, dns and some crypto work) and has 4 threads
 * unless UV_THREADPOOL_SIZE says otherwise. With SQLITE_READERS readers and the writer, one caller's 4
 * slow reads took every thread: the writer, the other readers, session lookups and /health/ready all
 * waited behind them (another caller's FindOne: 1–4 ms → 9–11 s). So, unless the operator set it, the
 * pool gets a thread per SQLite connection and SPARE_THREADS more. libuv reads the variable when the
 * pool starts (its first task), so this module is the first thing core/main.ts loads.
 */
import type { Logger } from 'pino';
import { SQLITE_READERS_DEFAULT } from '../config/parse';

/** Threads beyond the SQLite connections: fs (uploads, logs), dns, crypto. */
export const SPARE_THREADS = 4;

/** UV_THREADPOOL_SIZE for `readers` SQLite readers (and one writer). */
export function threadsFor(readers: number): number {
  return readers + 1 + SPARE_THREADS;
}

const url = process.env.DATABASE_URL ?? '';
if (url === '' || url.startsWith('sqlite:')) {
  const readers = Number.parseInt(process.env.SQLITE_READERS ?? '', 10);
  process.env.UV_THREADPOOL_SIZE ??= String(threadsFor(Number.isInteger(readers) && readers >= 0 ? readers : SQLITE_READERS_DEFAULT));
}

/** At start on SQLite: settings under which one caller can again hold every reader or every thread. */
export function warnSqliteShares(dialect: string, readers: number, callerConcurrency: number, log: Logger): void {
  if (dialect !== 'sqlite' || readers === 0) return;
  if (readers <= callerConcurrency) log.warn({ SQLITE_READERS: readers, CALLER_CONCURRENCY: callerConcurrency }, 'SQLITE_READERS is not above CALLER_CONCURRENCY: one caller\'s slow reads can hold every reader and stall everyone else\'s');
  const threads = Number(process.env.UV_THREADPOOL_SIZE);
  if (threads < threadsFor(readers)) log.warn({ UV_THREADPOOL_SIZE: threads, wanted: threadsFor(readers) }, 'UV_THREADPOOL_SIZE is below the SQLite connections plus 4: slow statements can hold every thread');
}
