/**
 * A meeting point of two concurrent tasks (deadlock tests): the first to arrive waits for the second, or
 * for `timeoutMs` when none comes (SQLite runs one transaction at a time: the second cannot arrive
 * before the first has finished). Each call of the returned function is one arrival.
 */
export function meetingPoint(timeoutMs: number): () => Promise<void> {
  let waiting: (() => void) | null = null;
  return () =>
    new Promise((resolve) => {
      if (waiting) {
        waiting();
        waiting = null;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        waiting = null;
        resolve();
      }, timeoutMs);
      waiting = () => {
        clearTimeout(timer);
        resolve();
      };
    });
}
