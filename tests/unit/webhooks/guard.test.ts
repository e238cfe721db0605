/** Issue 15 webhooks, pure parts: the SSRF address ranges, URL checks, backoff, and the signature against standardwebhooks. */
import { expect } from 'chai';
import { Webhook as Verifier } from 'standardwebhooks';
import { backoffMs } from '../../../core/plugins/webhooks/backoff';
import { urlProblem } from '../../../core/plugins/webhooks/send';
import { messageId, newSecret, signedHeaders } from '../../../core/plugins/webhooks/signature';
import { embeddedIpv4, guardedLookup, isBlockedAddress } from '../../../core/plugins/webhooks/ssrf';

describe('webhooks: SSRF guard, backoff, signature', () => {
  it('refuses loopback, private, link-local, metadata, CGNAT, multicast and IPv4-mapped forms of them', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::7f00:1']) {
      expect(isBlockedAddress(a), a).to.equal(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isBlockedAddress(a), a).to.equal(false);
  });

  it('checks IPv6 forms that carry an IPv4 address as that address: compatible, mapped, translated, NAT64, 6to4', () => {
    const refused = ['::7f00:1', '::127.0.0.1', '::a00:1', '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101:1::5', '64:ff9b:1::a00:1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '::ffff:127.0.0.1%eth0'];
    for (const a of refused) expect(isBlockedAddress(a), a).to.equal(true);
    // the same forms of a public address are let through, as that address is
    for (const a of ['::808:808', '::ffff:0:808:808', '64:ff9b::808:808', '2002:808:808::1']) expect(isBlockedAddress(a), a).to.equal(false);
    expect(embeddedIpv4('::7f00:1')).to.equal('127.0.0.1');
    expect(embeddedIpv4('::ffff:0:127.0.0.1')).to.equal('127.0.0.1');
    expect(embeddedIpv4('2002:a9fe:a9fe::1')).to.equal('169.254.169.254');
    expect(embeddedIpv4('2606:4700::1111')).to.equal(null);
    // as a URL's host (the URL parser rewrites [::ffff:0:127.0.0.1] to [::ffff:0:7f00:1])
    for (const url of ['http://[::7f00:1]:4555/', 'http://[::ffff:0:127.0.0.1]/', 'http://[64:ff9b::a9fe:a9fe]/latest', 'http://[2002:7f00:1::]/']) expect(urlProblem(url, []), url).to.match(/private/);
  });

  it('refuses those forms after DNS resolution too (the lookup of each attempt)', async () => {
    const lookup = guardedLookup([]);
    for (const host of ['::7f00:1', '::ffff:0:7f00:1', '2002:7f00:1::']) {
      const err = await new Promise<NodeJS.ErrnoException | null>((res) => lookup(host, {}, (e) => res(e)));
      expect(err?.code, host).to.equal('EWEBHOOKREFUSED');
    }
    const ok = await new Promise<string | unknown>((res) => lookup('::ffff:0:808:808', {}, (e, address) => res(e ?? address)));
    expect(ok).to.equal('::ffff:0:808:808');
  });

  it('checks a URL: http(s) only, no credentials, address literals in blocked ranges unless allowed by name', () => {
    expect(urlProblem('https://example.com/hook', [])).to.equal(null);
    expect(urlProblem('ftp://example.com', [])).to.match(/http or https/);
    expect(urlProblem('https://user:pw@example.com', [])).to.match(/credentials/);
    expect(urlProblem('not-a-url', [])).to.match(/absolute/);
    expect(urlProblem('not a url', [])).to.match(/spaces/);
    expect(urlProblem(' https://example.com/hook', [])).to.match(/spaces/);
    expect(urlProblem('https://example.com/a\tb', [])).to.match(/control characters/);
    expect(urlProblem('\x01https://example.com/hook', [])).to.match(/control characters/);
    expect(urlProblem('http://127.0.0.1:9000/x', [])).to.match(/WEBHOOK_ALLOW_HOSTS/);
    expect(urlProblem('http://127.0.0.1:9000/x', ['127.0.0.1'])).to.equal(null);
    expect(urlProblem('http://[::1]/x', [])).to.match(/private/);
    expect(urlProblem('http://169.254.169.254/latest', ['127.0.0.1'])).to.match(/private/);
  });

  it('backs off exponentially up to the maximum, jittered between 50 and 100 %', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 1000, 5000, () => 1))).to.deep.equal([1000, 2000, 4000, 5000]);
    expect(backoffMs(3, 1000, 60_000, () => 0)).to.equal(2000);
    for (let i = 0; i < 100; i++) expect(backoffMs(2, 1000, 60_000)).to.be.within(1000, 2000);
  });

  it('signs as standardwebhooks does: its verifier accepts, and its signer writes the same signature', () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: 'record.create', data: { a: 1 } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = signedHeaders(secret, 'msg_1', ts, body);
    expect(messageId(42, '2026-11-25T20:50:32.123Z')).to.equal('msg_42_1795639832123');
    expect(new Verifier(secret).verify(body, headers)).to.deep.equal(JSON.parse(body));
    expect(new Verifier(secret).sign('msg_1', new Date(ts * 1000), body)).to.equal(headers['webhook-signature']);
  });
});

describe('webhooks: settings', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadConfig } = require('../../../config') as typeof import('../../../config');
  const base = { NODE_ENV: 'test', IAM_JWT_SECRET: 'x'.repeat(32) };

  it('reads the documented defaults', () => {
    const w = loadConfig(base).webhooks;
    expect(w).to.deep.include({ deliver: true, timeoutMs: 10_000, retryForMs: 86_400_000, backoffBaseMs: 10_000, backoffMaxMs: 3_600_000, leaseMs: 60_000, pollMs: 1000, concurrency: 8, concurrencyPerHook: 4, configFile: null });
    expect(loadConfig({ ...base, WEBHOOK_CONCURRENCY: '5' }).webhooks.concurrencyPerHook).to.equal(3);
    expect(loadConfig({ ...base, WEBHOOK_CONCURRENCY_PER_HOOK: '2' }).webhooks.concurrencyPerHook).to.equal(2);
    expect(loadConfig({ ...base, WEBHOOK_CONCURRENCY: '4', WEBHOOK_CONCURRENCY_PER_HOOK: '9' }).webhooks.concurrencyPerHook).to.equal(4);
    expect(() => loadConfig({ ...base, WEBHOOK_CONCURRENCY_PER_HOOK: '0' })).to.throw(/WEBHOOK_CONCURRENCY_PER_HOOK/);
    expect(w.allowHosts).to.deep.equal([]);
    expect(loadConfig(base).events).to.deep.equal({ pollMs: 500, gapWaitMs: 30_000, retentionMs: 7 * 86_400_000 });
  });

  it('raises WEBHOOK_LEASE to WEBHOOK_TIMEOUT + 1 s; lower-cases WEBHOOK_ALLOW_HOSTS; names a bad value', () => {
    const w = loadConfig({ ...base, WEBHOOK_TIMEOUT: '30s', WEBHOOK_LEASE: '5s', WEBHOOK_ALLOW_HOSTS: 'Hooks.Internal, 10.0.0.5' }).webhooks;
    expect(w.leaseMs).to.equal(31_000);
    expect(w.allowHosts).to.deep.equal(['hooks.internal', '10.0.0.5']);
    expect(() => loadConfig({ ...base, WEBHOOK_RETRY_FOR: 'forever' })).to.throw(/WEBHOOK_RETRY_FOR/);
    // EVENTS_RETENTION must outlast the retries: at the limit refused, past it accepted
    expect(() => loadConfig({ ...base, EVENTS_RETENTION: '2h', WEBHOOK_RETRY_FOR: '2h' })).to.throw(/EVENTS_RETENTION .* must be longer than WEBHOOK_RETRY_FOR/);
    expect(loadConfig({ ...base, EVENTS_RETENTION: '2h', WEBHOOK_RETRY_FOR: '119m' }).events.retentionMs).to.equal(7_200_000);
  });
});
