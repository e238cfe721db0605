import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../config';
import type { StoredEvent } from '../../../core/events/types';
import { eventBytes, frame, SLOW_MS, SseStream } from '../../../core/realtime/stream';

/** A ServerResponse that records each write and always takes the data. */
class FakeResponse extends EventEmitter {
  readonly writes: string[] = [];
  destroyed = false;
  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
  end(): void {}
  destroy(): void {
    this.destroyed = true;
  }
}

const event = (id: number): StoredEvent => ({ id, type: 'record.create', model: 'fee-type', recordId: id, time: new Date(0).toISOString(), actor: null, record: { id } });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A stream on a fake response, opened; its writes after the opening lines. */
async function openStream(flushMs: number): Promise<{ stream: SseStream; writes: () => string[] }> {
  const res = new FakeResponse();
  const stream = new SseStream(res as unknown as ServerResponse, { queueMax: 100, queueMaxBytes: 1 << 20, heartbeatMs: 60_000, flushMs }, async (e) => frame(e.id, e.type, e.record), async () => null, () => undefined);
  stream.open(null);
  await sleep(0); // the opening pump (no backlog) has ended
  const opening = res.writes.length;
  return { stream, writes: () => res.writes.slice(opening) };
}

describe('realtime stream: REALTIME_FLUSH gathers live events into one write', () => {
  it('events within the window go out together, in order, once the window ends', async () => {
    const { stream, writes } = await openStream(60);
    stream.push(event(1));
    await sleep(15);
    stream.push(event(2));
    stream.push(event(3));
    await sleep(10);
    expect(writes(), 'nothing before the window ends').to.deep.equal([]);
    await sleep(100);
    expect(writes()).to.deep.equal([[1, 2, 3].map((id) => frame(id, 'record.create', { id })).join('')]);
    stream.end('test');
  });

  it('0 writes each event as it comes', async () => {
    const { stream, writes } = await openStream(0);
    stream.push(event(1));
    await sleep(15);
    stream.push(event(2));
    await sleep(15);
    expect(writes()).to.deep.equal([frame(1, 'record.create', { id: 1 }), frame(2, 'record.create', { id: 2 })]);
    stream.end('test');
  });

  it('an ended stream writes nothing its window still held', async () => {
    const { stream, writes } = await openStream(30);
    stream.push(event(1));
    stream.end('test');
    await sleep(60);
    expect(writes()).to.deep.equal([]);
  });

  it('the setting: 20ms by default, at most 1s (1s starts, more is refused naming REALTIME_FLUSH)', () => {
    const root = mkdtempSync(join(tmpdir(), 'ris-flush-'));
    const base = { DATA_DIR: join(root, 'data') };
    expect(loadConfig(base, root).realtime.flushMs).to.equal(20);
    expect(loadConfig({ ...base, REALTIME_FLUSH: '0' }, root).realtime.flushMs).to.equal(0);
    expect(loadConfig({ ...base, REALTIME_FLUSH: '1s' }, root).realtime.flushMs).to.equal(1000);
    expect(() => loadConfig({ ...base, REALTIME_FLUSH: '1001ms' }, root)).to.throw(ConfigError, /REALTIME_FLUSH.*more than 1s/);
    expect(() => loadConfig({ ...base, REALTIME_FLUSH: 'soon' }, root)).to.throw(ConfigError, /REALTIME_FLUSH/);
  });
});

describe('realtime stream: an ended stream stops its work, and gives its place back only then', () => {
  /** A render that waits until released, counting the renders begun. */
  function slowRender(): { render: (e: StoredEvent) => Promise<string | null>; begun: () => number; release: () => void } {
    let begun = 0;
    let waiting: (() => void)[] = [];
    return {
      render: async (e) => {
        begun += 1;
        await new Promise<void>((r) => waiting.push(r));
        return frame(e.id, e.type, e.record);
      },
      begun: () => begun,
      release: () => {
        const w = waiting;
        waiting = [];
        for (const r of w) r();
      },
    };
  }

  it('a client gone mid-render: no further event is rendered, and onEnd waits for the render in flight', async () => {
    const res = new FakeResponse();
    const slow = slowRender();
    const ended: string[] = [];
    const stream = new SseStream(res as unknown as ServerResponse, { queueMax: 100, queueMaxBytes: 1 << 20, heartbeatMs: 60_000, flushMs: 0 }, slow.render, async () => null, (r) => ended.push(r));
    stream.open(null);
    for (let i = 1; i <= 5; i++) stream.push(event(i));
    await sleep(5);
    expect(slow.begun()).to.equal(1);
    res.emit('close');
    expect(stream.closed).to.equal(true);
    expect(ended, 'the place is held while the render runs').to.deep.equal([]);
    expect(stream.stopped).to.equal(false);
    slow.release();
    await sleep(5);
    expect(ended).to.deep.equal(['client closed']);
    expect(stream.stopped).to.equal(true);
    slow.release();
    await sleep(5);
    expect(slow.begun(), 'nothing rendered after the close').to.equal(1);
  });

  it('a backlog abandoned mid-event: writeBacklog renders nothing more, and onEnd waits for the backlog to return', async () => {
    const res = new FakeResponse();
    const slow = slowRender();
    const ended: string[] = [];
    const stream = new SseStream(res as unknown as ServerResponse, { queueMax: 100, queueMaxBytes: 1 << 20, heartbeatMs: 60_000, flushMs: 0 }, slow.render, async () => null, (r) => ended.push(r));
    stream.open(async () => {
      for (let i = 1; i <= 5; i++) await stream.writeBacklog(event(i));
    });
    await sleep(5);
    res.emit('close');
    await sleep(5);
    expect(ended).to.deep.equal([]);
    slow.release();
    await sleep(5);
    expect(ended).to.deep.equal(['client closed']);
    expect(slow.begun()).to.equal(1);
  });

  it('a client that left before the stream opened: ended at once, nothing written nor rendered', async () => {
    const res = new FakeResponse();
    res.destroyed = true;
    const ended: string[] = [];
    let rendered = 0;
    const stream = new SseStream(res as unknown as ServerResponse, { queueMax: 100, queueMaxBytes: 1 << 20, heartbeatMs: 60_000, flushMs: 0 }, async () => (rendered++, null), async () => null, (r) => ended.push(r));
    stream.open(async () => {
      await stream.writeBacklog(event(1));
    });
    stream.push(event(2));
    await sleep(5);
    expect(ended).to.deep.equal(['client closed']);
    expect(res.writes).to.deep.equal([]);
    expect(rendered).to.equal(0);
  });
});

describe('realtime stream: REALTIME_QUEUE_MAX_BYTES drops a slow client by the bytes waiting, as REALTIME_QUEUE_MAX does by the events', () => {
  /** A ServerResponse whose socket takes nothing after the opening lines (a client that stopped reading). */
  class StuckResponse extends FakeResponse {
    override write(text: string): boolean {
      super.write(text);
      return this.writes.length <= 1;
    }
    override destroy(): void {
      super.destroy();
      this.emit('close');
    }
  }
  /** Events of one weight whatever their id (ids below 1000). */
  const big = (id: number): StoredEvent => ({ ...event(id), record: { id, bio: 'x'.repeat(10_000 - String(id).length) } });

  /** A stream whose socket has refused data for SLOW_MS, its first event written; then `n` more events pushed. */
  async function stuckWith(queueMaxBytes: number, n: number): Promise<{ res: StuckResponse; stream: SseStream; ended: string[] }> {
    const res = new StuckResponse();
    const ended: string[] = [];
    const stream = new SseStream(res as unknown as ServerResponse, { queueMax: 1000, queueMaxBytes, heartbeatMs: 60_000, flushMs: 0 }, async (e) => frame(e.id, e.type, e.record), async () => null, (r) => ended.push(r));
    stream.open(null);
    stream.push(big(1)); // written: the socket refuses it, the pump waits for a drain that never comes
    await sleep(SLOW_MS + 100);
    for (let i = 2; i < 2 + n; i++) stream.push(big(i));
    return { res, stream, ended };
  }

  it('at the limit (the queued records weigh exactly REALTIME_QUEUE_MAX_BYTES) the stream stays open', async () => {
    const size = eventBytes(big(2));
    expect(size).to.be.above(10_000);
    const { res, stream } = await stuckWith(3 * size, 3);
    expect(stream.closed).to.equal(false);
    expect(res.destroyed).to.equal(false);
    stream.end('test');
  });

  it('one byte past it the stream is dropped (the connection cut, as past REALTIME_QUEUE_MAX), naming the setting', async () => {
    const size = eventBytes(big(2));
    const { res, stream, ended } = await stuckWith(3 * size - 1, 3);
    expect(stream.closed).to.equal(true);
    expect(res.destroyed, 'cut, no last frame').to.equal(true);
    await sleep(5);
    expect(ended[0]).to.contain('REALTIME_QUEUE_MAX_BYTES');
  });

  it('a client still reading is not dropped at the bound: only past 10× it (a burst), as with REALTIME_QUEUE_MAX', async () => {
    const res = new StuckResponse();
    const ended: string[] = [];
    const size = eventBytes(big(2));
    const stream = new SseStream(res as unknown as ServerResponse, { queueMax: 1000, queueMaxBytes: size, heartbeatMs: 60_000, flushMs: 0 }, async (e) => frame(e.id, e.type, e.record), async () => null, (r) => ended.push(r));
    stream.open(null);
    stream.push(big(1));
    await sleep(5); // refused just now: not stuck yet
    for (let i = 2; i < 12; i++) stream.push(big(i));
    expect(stream.closed, '10 events of the bound each: 10× it').to.equal(false);
    stream.push(big(12));
    expect(stream.closed).to.equal(true);
    await sleep(5);
    expect(ended[0]).to.contain('REALTIME_QUEUE_MAX_BYTES');
  });

  it('the setting: 4 MiB by default, a positive whole number of bytes', () => {
    const root = mkdtempSync(join(tmpdir(), 'ris-qbytes-'));
    const base = { DATA_DIR: join(root, 'data') };
    expect(loadConfig(base, root).realtime.queueMaxBytes).to.equal(4 * 1024 * 1024);
    expect(loadConfig({ ...base, REALTIME_QUEUE_MAX_BYTES: '1048576' }, root).realtime.queueMaxBytes).to.equal(1048576);
    expect(() => loadConfig({ ...base, REALTIME_QUEUE_MAX_BYTES: '0' }, root)).to.throw(ConfigError, /REALTIME_QUEUE_MAX_BYTES/);
  });
});
