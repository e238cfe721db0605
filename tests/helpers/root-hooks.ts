/**
 * Loaded by mocha before the specs (see .mocharc.yml): resolves the dialect list once, early, and at the
 * end names the network connections still open. The run ends when its tests have (mocha's `exit`): a
 * pooled database connection that finished opening after its app had closed (seen once in CI: an idle
 * PostgreSQL connection kept a finished run alive for 20 minutes) must not hold it; it is reported here
 * instead, so a leak is still seen.
 */
import { DIALECTS } from './dialects';

console.log(`test databases: ${DIALECTS.join(', ')}`);

/** How long a connection closed by the last test may take to go (a MariaDB QUIT is answered by the server closing). */
const CLOSING_GRACE_MS = 2000;

function openSockets(): string[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles
    .filter((h): h is { remoteAddress?: string; remotePort?: number } => typeof h === 'object' && h !== null && (h as { constructor?: { name?: string } }).constructor?.name === 'Socket' && typeof (h as { remotePort?: unknown }).remotePort === 'number')
    .map((s) => `${s.remoteAddress}:${s.remotePort}`);
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    const until = Date.now() + CLOSING_GRACE_MS;
    let open = openSockets();
    while (open.length > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      open = openSockets();
    }
    if (open.length > 0) console.log(`still open ${CLOSING_GRACE_MS / 1000} s after the tests: ${open.join(', ')}`);
  },
};
