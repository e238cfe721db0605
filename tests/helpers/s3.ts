/**
 * A real S3-protocol server for tests: s3rver in a child process on 127.0.0.1 (a free port, a temporary
 * folder), so its memory is not the service's and stopping it is a real outage. Never a mocked SDK.
 */
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERVER = String.raw`const S3rver = require(process.argv[1]);
const [port, dir, bucket] = process.argv.slice(2);
new S3rver({ port: Number(port), address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket }] })
  .run().then((a) => console.log(JSON.stringify({ port: a.port })), (e) => { console.error(e); process.exit(1); });`;

export const TEST_BUCKET = 'media-test';
export const TEST_PREFIX = 'media/';

export interface S3TestServer {
  readonly endpoint: string;
  readonly bucket: string;
  /** Settings for startTestApp / the admin CLI: UPLOADS_DRIVER=s3 and a private bucket under TEST_PREFIX. */
  env(extra?: Record<string, string>): Record<string, string>;
  readonly client: S3Client;
  /** Storage keys (prefix removed) of the objects under the prefix, sorted. */
  keys(): Promise<string[]>;
  /** Size of the object of a storage key, or null. */
  size(key: string): Promise<number | null>;
  put(key: string, body: Buffer): Promise<void>;
  remove(key: string): Promise<void>;
  /** An outage: the process is killed; `start()` brings it back on the same port and folder. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function launch(port: number, dir: string, bucket: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SERVER, require.resolve('s3rver'), String(port), dir, bucket], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, port: (JSON.parse(line) as { port: number }).port });
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`s3rver exited ${code}: ${err}`)));
  });
}

export async function startS3(bucket = TEST_BUCKET): Promise<S3TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  let { child, port } = await launch(0, dir, bucket);
  let running = true;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const stop = async (): Promise<void> => {
    if (!running) return;
    running = false;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    endpoint,
    bucket,
    client,
    env: (extra = {}) => ({
      UPLOADS_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: TEST_PREFIX,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      ...extra,
    }),
    async keys() {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: TEST_PREFIX, ContinuationToken: token }));
        for (const o of page.Contents ?? []) out.push((o.Key ?? '').slice(TEST_PREFIX.length));
        token = page.NextContinuationToken;
      } while (token);
      return out.sort();
    },
    async size(key) {
      try {
        return Number((await client.send(new HeadObjectCommand({ Bucket: bucket, Key: TEST_PREFIX + key }))).ContentLength);
      } catch {
        return null;
      }
    },
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: TEST_PREFIX + key, Body: body }));
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: TEST_PREFIX + key }));
    },
    stop,
    async start() {
      if (running) return;
      ({ child, port } = await launch(port, dir, bucket));
      running = true;
    },
    async close() {
      await stop();
      client.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it holds (storage deletes after a commit run in the background). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A TCP proxy to `port` that fails mid-stream: once `cutAfterBytes` bytes have gone upstream it resets
 * every connection and refuses new ones (S3 lost in the middle of a multipart upload).
 */
export async function cuttingProxy(port: number, cutAfterBytes: number): Promise<{ readonly endpoint: string; close(): Promise<void> }> {
  const { createServer, connect } = await import('node:net');
  let sent = 0;
  let cut = false;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (d: Buffer) => {
      sent += d.length;
      if (sent > cutAfterBytes) {
        cut = true;
        for (const s of sockets) s.resetAndDestroy();
        return;
      }
      upstream.write(d);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return listening(server, sockets);
}

/** Starts `server` on a free port of 127.0.0.1: its address, and a close that destroys `sockets` first. */
async function listening(server: import('node:net').Server, sockets: ReadonlySet<import('node:net').Socket>): Promise<{ readonly endpoint: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address() as import('node:net').AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A TCP proxy to `port` that can be made to hang (`hang()`): from then on it accepts connections and
 * takes their bytes but sends nothing back, and stalls the connections already open (S3 that stops
 * answering without closing anything).
 */
export async function hangingProxy(port: number): Promise<{ readonly endpoint: string; hang(): void; close(): Promise<void> }> {
  const { createServer, connect } = await import('node:net');
  let hanging = false;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (hanging) return void client.resume();
    const upstream = connect(port, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => undefined);
    client.on('data', (d: Buffer) => {
      if (!hanging) upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!hanging) client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return {
    ...(await listening(server, sockets)),
    hang: () => {
      hanging = true;
    },
  };
}
