/** Delay before retry `attempt` (1 = the first retry): base·2^(attempt−1), at most `max`, jittered to 50–100 %. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const full = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 40));
  return Math.round(full * (0.5 + random() * 0.5));
}
