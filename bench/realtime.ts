/**
 * Realtime cost (issue 15): write throughput (the `create` scenario) with N SSE listeners on
 * GET /api/realtime?models=fee-type against the same writes with none, and the event-to-receiver
 * latency (receipt time − the event's `time`, stamped when the change was written) over every
 * listener's receipts. Rounds alternate none / listeners; the ratio is the median of the rounds.
 */
import { get, type ClientRequest } from 'node:http';

export interface RealtimeBenchInput {
  readonly url: string;
  readonly token: string;
  readonly listeners: number;
  readonly rounds: number;
  /** Runs the create scenario for one measurement; answers requests per second and the service's CPU ms per request. */
  readonly writes: () => Promise<{ rps: number; cpuMsPerReq: number }>;
  /** Between measurements (the caller's cleanup and settling). */
  readonly between: () => Promise<void>;
}

export interface RealtimeBenchResult {
  readonly listeners: number;
  readonly rpsWithout: number[];
  readonly rpsWith: number[];
  /** Service CPU ms per create, without / with the listeners (medians). */
  readonly cpuMsWithout: number;
  readonly cpuMsWith: number;
  readonly ratio: number;
  readonly received: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
  readonly latencyMax: number;
}

const median = (xs: readonly number[]): number => {
  const v = [...xs].sort((x, y) => x - y);
  return v.length === 0 ? NaN : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const quantile = (sorted: readonly number[], q: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);

/** Opens one stream; every record.create's latency goes into `latencies`. */
function listen(url: string, token: string, latencies: number[]): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/api/realtime?models=fee-type`, { agent: false, headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /api/realtime answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const at = block.indexOf('\ndata: ');
          if (at < 0 || !block.includes('event: record.create')) continue;
          // Only the time is needed: read it without parsing the whole record (the bench shares the machine).
          const m = /"time":"([^"]+)"/.exec(block.slice(at + 7, at + 200));
          if (m) latencies.push(Date.now() - Date.parse(m[1]));
        }
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

export async function realtimeBench(i: RealtimeBenchInput): Promise<RealtimeBenchResult> {
  const rpsWithout: number[] = [];
  const rpsWith: number[] = [];
  const latencies: number[] = [];
  const cpuWithout: number[] = [];
  const cpuWith: number[] = [];
  for (let round = 0; round < Math.max(1, i.rounds); round++) {
    const none = await i.writes();
    rpsWithout.push(none.rps);
    cpuWithout.push(none.cpuMsPerReq);
    await i.between();
    const streams = await Promise.all(Array.from({ length: i.listeners }, () => listen(i.url, i.token, latencies)));
    try {
      const some = await i.writes();
      rpsWith.push(some.rps);
      cpuWith.push(some.cpuMsPerReq);
      await new Promise((r) => setTimeout(r, 1000)); // the last events reach the listeners
    } finally {
      for (const s of streams) s.destroy();
    }
    await i.between();
  }
  const ratios = rpsWith.map((w, k) => w / Math.max(1, rpsWithout[k]));
  const sorted = [...latencies].sort((x, y) => x - y);
  return {
    listeners: i.listeners,
    rpsWithout,
    rpsWith,
    cpuMsWithout: Math.round(median(cpuWithout) * 1000) / 1000,
    cpuMsWith: Math.round(median(cpuWith) * 1000) / 1000,
    ratio: Math.round(median(ratios) * 100) / 100,
    received: latencies.length,
    latencyP50: quantile(sorted, 0.5),
    latencyP99: quantile(sorted, 0.99),
    latencyMax: sorted.at(-1) ?? NaN,
  };
}
