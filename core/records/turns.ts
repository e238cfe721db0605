/**
 * Long synchronous loops over rows (presenting 10,000 grouped records, their timestamps and JSON
 * values) give the event loop back every SLICE_MS: other requests wait about that long behind them,
 * not the ~400 ms one answer of 10,000 records held it in one piece (README: Answers nobody reads).
 */
import { performance } from 'node:perf_hooks';
import { nextTurn, SLICE_MS } from '../http/json-answer';

/** Items handled between two looks at the clock. */
const CLOCK_EVERY = 32;

/** `items` mapped by `fn` in order, yielding to other requests after every SLICE_MS of work; a short list is one synchronous map. */
export async function mapInTurns<T, U>(items: readonly T[], fn: (item: T, index: number) => U): Promise<U[]> {
  if (items.length <= CLOCK_EVERY) return items.map(fn);
  const out = new Array<U>(items.length);
  let start = performance.now();
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i], i);
    if (i % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() - start > SLICE_MS) {
      await nextTurn();
      start = performance.now();
    }
  }
  return out;
}
