/**
 * Preloaded into a soak server (`node --expose-gc --require …/heap-probe.js`; test code, the service has
 * none of it): on SIGUSR2 a full garbage collection, then the heap still in use, as one stderr line
 * `heap-after-gc <bytes>`. Resident memory alone rises and falls with the collector's sizing; what is
 * left after a full collection is what a leak would grow.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('heap-probe needs node --expose-gc');
process.on('SIGUSR2', () => {
  gc();
  process.stderr.write(`heap-after-gc ${process.memoryUsage().heapUsed}\n`);
});
export {};
