/**
 * Issue 8: graceful shutdown of a real server process under load. SIGTERM → requests in flight
 * finish, the process exits 0, no write answered 200 is lost, and no client sees a broken
 * connection for a request the server accepted (every request carries an X-Request-Id; the server
 * logs one line per request it handled).
 */
import { expect } from 'chai';
import { DIALECTS } from '../helpers/dialects';
import { freshDatabase, type FreshDatabase } from './helpers/fresh-service';
import { figures, type Outcome, runLoad, send, tally } from './helpers/load';
import { type ServerProcess, startServerProcess } from './helpers/server-process';

const LOAD_BEFORE_SIGTERM_MS = 1500;

for (const dialect of DIALECTS) {
  describe(`graceful shutdown under load [${dialect}]`, function () {
    this.timeout(60_000);
    let fresh: FreshDatabase;
    let server: ServerProcess;

    before(async () => {
      fresh = await freshDatabase(dialect);
      server = await startServerProcess({ ...fresh.env, LOG_LEVEL: 'info' });
    });
    after(async () => {
      server?.kill('SIGKILL');
      await fresh?.drop();
    });

    it('finishes requests in flight, exits 0, loses no acknowledged write, resets no accepted request', async () => {
      const inst = await send(server.url, { kind: 'setup', method: 'POST', path: '/api/institute', body: { name: 'Shutdown High', code: 'SDH' } });
      expect(inst.status).to.equal(200);
      const instituteId = (inst.body as { data: { id: number } }).data.id;

      let exited = false;
      let exitCode: number | string | null = null;
      void server.exited.then((c) => {
        exitCode = c;
        exited = true;
      });
      let sigtermAt = Infinity;
      const load = runLoad({
        baseUrl: server.url,
        workers: 16,
        until: () => exited,
        next: (w, i) => {
          const r = i % 4;
          if (r === 0) return { kind: 'create', method: 'POST', path: '/api/fee-type', body: { feeType: `s-${w}-${i}`, instituteId }, tag: [`s-${w}-${i}`] };
          if (r === 1 && w % 4 === 0) {
            // a bulk create of 100: a long request, likely in flight when SIGTERM lands
            const names = Array.from({ length: 100 }, (_, k) => `b-${w}-${i}-${k}`);
            return { kind: 'bulk', method: 'POST', path: '/api/fee-type/bulk', body: names.map((feeType) => ({ feeType, instituteId })), tag: names };
          }
          if (r === 2) return { kind: 'list', method: 'GET', path: '/api/fee-type?limit=20&sort[0]=-id&populate[0]=institute' };
          return { kind: 'findOne', method: 'GET', path: `/api/institute/${instituteId}` };
        },
      });
      await new Promise((r) => setTimeout(r, LOAD_BEFORE_SIGTERM_MS));
      sigtermAt = Date.now();
      server.kill('SIGTERM');
      const outcomes: Outcome[] = await load;
      const exitMs = Date.now() - sigtermAt;

      const handled = new Set(server.logs.filter((l) => l.msg === 'request').map((l) => String(l.requestId)));
      const broken = outcomes.filter((o) => o.error !== null);
      const brokenButAccepted = broken.filter((o) => handled.has(o.requestId));
      const fiveHundreds = outcomes.filter((o) => o.status !== null && o.status >= 500);
      const inFlight = outcomes.filter((o) => o.startedAt < sigtermAt && o.startedAt + o.ms > sigtermAt && o.status !== null);
      const acknowledged = outcomes.filter((o) => o.status === 200 && (o.kind === 'create' || o.kind === 'bulk')).flatMap((o) => o.tag as string[]);
      const db = fresh.inspect();
      const present = new Set((await db('fee_type').select('fee_type')).map((r: { fee_type: string }) => r.fee_type));
      const lost = acknowledged.filter((n) => !present.has(n));

      const at = (msg: string): number => { const l = server.logs.find((x) => x.msg === msg); return l ? Date.parse(String(l.time)) - sigtermAt : -1; };
      figures(`shutdown [${dialect}]`, {
        logMsAfterSigterm: { shuttingDown: at('shutting down'), shutDownCleanly: at('shut down cleanly'), lastRequestLine: Math.max(...server.logs.filter((l) => l.msg === 'request').map((l) => Date.parse(String(l.time)) - sigtermAt)) },
        requests: outcomes.length,
        byStatus: tally(outcomes, (o) => String(o.status ?? o.error)),
        inFlightAtSigterm: inFlight.length,
        inFlightAnswered: tally(inFlight, (o) => String(o.status)),
        writesAcknowledged: acknowledged.length,
        writesPresent: acknowledged.length - lost.length,
        rowsInTable: present.size,
        brokenConnections: broken.length,
        brokenButAccepted: brokenButAccepted.length,
        exitCode,
        exitMsAfterSigterm: exitMs,
      });

      expect(exitCode, server.stderr()).to.equal(0);
      expect(server.logs.some((l) => l.msg === 'shut down cleanly')).to.equal(true);
      expect(fiveHundreds, 'no 5xx').to.deep.equal([]);
      expect(inFlight.length, 'some requests were in flight at SIGTERM').to.be.greaterThan(0);
      expect(inFlight.every((o) => o.status === 200)).to.equal(true);
      expect(lost, 'acknowledged writes lost').to.deep.equal([]);
      expect(brokenButAccepted.map((o) => `${o.kind} ${o.error}`), 'accepted requests whose connection broke').to.deep.equal([]);
      // Whatever failed, failed after SIGTERM and was never handled: ECONNREFUSED once the port is closed,
      // or ECONNRESET for a connection still in the kernel's accept queue when the listening socket closed.
      // (Idle keep-alive sockets are not cut during the drain, so no request races a closing idle socket.)
      expect(broken.every((o) => o.startedAt >= sigtermAt)).to.equal(true);
    });
  });
}
