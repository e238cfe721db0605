/**
 * Loaded by mocha before the specs (see .mocharc.yml): resolves the dialect list once, early, and at the
 * end names the network connections still open. The run ends when its tests have (mocha's `exit`): a
 * pooled database connection that finished opening after its app had closed (seen once in CI: an idle
 * PostgreSQL connection kept a finished run alive for 20 minutes) must not hold it; it is reported here
 * instead, so a leak is still seen.
 */
import { DIALECTS } from './dialects';

console.log(`test databases: ${DIALECTS.join(', ')}`);

export const mochaHooks = {
  afterAll(): void {
    const sockets = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter(
      (h): h is { remoteAddress?: string; remotePort?: number } => typeof h === 'object' && h !== null && (h as { constructor?: { name?: string } }).constructor?.name === 'Socket' && typeof (h as { remotePort?: unknown }).remotePort === 'number',
    );
    if (sockets.length > 0) console.log(`still open after the tests: ${sockets.map((s) => `${s.remoteAddress}:${s.remotePort}`).join(', ')}`);
  },
};
