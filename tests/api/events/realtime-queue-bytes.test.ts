/**
 * A slow realtime client is dropped by the bytes waiting for it, not only by their count, on every
 * database: a client that stops reading while large records change (~256 KB each) is dropped once
 * REALTIME_QUEUE_MAX_BYTES of them wait for it (and its socket has taken nothing for a second), long
 * before REALTIME_QUEUE_MAX (1000) events would; the client sees what it sees past REALTIME_QUEUE_MAX
 * (the connection cut; it resumes with Last-Event-ID), and the others keep every event.
 * The bound itself, at the limit and one byte past it: tests/unit/realtime/stream.test.ts.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { makeRole } from '../../helpers/roles';
import { openSse, type SseClient } from '../../helpers/sse';
import { FIXTURE_MODELS, startTestApp, type TestApp } from '../../helpers/test-app';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`realtime: REALTIME_QUEUE_MAX_BYTES drops a client that stopped reading [${dialect}]`, function () {
    this.timeout(180_000);
    let app: TestApp;
    const open: SseClient[] = [];

    before(async () => {
      app = await startTestApp(dialect, {
        contentTypesDir: FIXTURE_MODELS,
        env: { REALTIME_QUEUE_MAX: '1000', REALTIME_QUEUE_MAX_BYTES: '1048576', REALTIME_MAX_CONNECTIONS: '1', REALTIME_HEARTBEAT: '60s' },
      });
    });
    after(async () => {
      for (const c of open.splice(0)) c.close();
      await app?.close();
    });

    it('large records: dropped past 1 MiB waiting (far fewer than REALTIME_QUEUE_MAX events); a reading client gets them all', async () => {
      await makeRole(app, 'rt-bytes', ['author.find']);
      const u = await app.createUser({ roles: ['rt-bytes'] });
      const headers = { Authorization: `Bearer ${u.accessToken}` };
      const slow = await openSse(`${app.url}/api/realtime?models=author`, headers);
      const fast = await openSse(`${app.url}/api/realtime?models=author`, { Authorization: `Bearer ${app.admin!.accessToken}` });
      open.push(slow, fast);
      expect([slow.status, fast.status]).to.deep.equal([200, 200]);
      slow.pause();
      const id = (await app.http.post('/api/author', { name: `Large ${dialect}` })).body.data.id as number;
      const bio = 'y'.repeat(256 * 1024);
      let sent = 0;
      let dropped = false;
      // At most 200 events (50 MB): far below REALTIME_QUEUE_MAX, far above socket buffers plus 1 MiB.
      for (let i = 0; i < 200 && !dropped; i++) {
        const res = await app.http.patch(`/api/author/${id}`, { bio: `${i} ${bio}` });
        expect(res.status, res.text).to.equal(200);
        sent += 1;
        // The slow client's caller holds REALTIME_MAX_CONNECTIONS (1): another stream opens only once it was dropped.
        const probe = await openSse(`${app.url}/api/realtime?models=author`, headers);
        open.push(probe);
        if (probe.status === 200) dropped = true;
        else expect(probe.status).to.equal(429);
        probe.close();
        await sleep(20);
      }
      expect(dropped, `the slow client was dropped (${sent} events sent)`).to.equal(true);
      expect(sent).to.be.below(1000);
      slow.resume();
      await Promise.race([slow.ended, sleep(5000)]);
      expect(slow.isEnded(), 'its connection was cut').to.equal(true);
      expect(slow.events.some((e) => e.event === 'error'), 'no error frame: cut as past REALTIME_QUEUE_MAX').to.equal(false);
      expect(slow.events.length).to.be.below(sent);
      // The reading client got every event and is still connected.
      await fast.waitFor(() => fast.events.filter((e) => e.event === 'record.update').length === sent, 20_000).catch(() => undefined);
      expect(fast.events.filter((e) => e.event === 'record.update')).to.have.length(sent);
      expect(fast.isEnded()).to.equal(false);
    });
  });
}
