/**
 * The S3 storage provider (AWS S3 or an S3-compatible service: MinIO, R2, …), on the official SDK v3.
 * Uploads stream through `Upload` (multipart beyond one part): at most PART_BYTES × PARTS_IN_FLIGHT of a
 * file is in memory, whatever its size. `_full_url` is the object under S3_PUBLIC_URL (public buckets)
 * or a presigned GET living S3_SIGNED_URL_TTL (private buckets). A storage failure on upload answers
 * 503 (ServiceUnavailableError): the write stops before its transaction, so no record names a missing
 * object.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Logger } from 'pino';
import { Readable, Transform } from 'node:stream';
import type { S3Config } from '../../config/schema';
import { ServiceUnavailableError } from '../errors/errors';
import { type ByteRange, isStorageKey, newStorageKey, type PutOptions, type StorageProvider, type StoredObject } from './storage';

/** Multipart part size (S3's minimum is 5 MiB) and parts uploaded at once: the memory one upload may take. */
export const PART_BYTES = 8 * 1024 * 1024;
export const PARTS_IN_FLIGHT = 2;

/** Connection time bound of one S3 call (its idle bound is S3_REQUEST_TIMEOUT), so a hung service fails the call instead of hanging it. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The SDK's "no such object" answers (GetObject: NoSuchKey; HeadObject has no body: NotFound / 404). */
function isMissing(e: unknown): boolean {
  const err = e as { name?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}

/** The SDK gave up on a call that went S3_REQUEST_TIMEOUT without a byte (or could not connect in time). */
function timedOut(e: unknown): boolean {
  return (e as { name?: unknown }).name === 'TimeoutError';
}

/** The 503 of a storage call that failed: one that timed out names S3_REQUEST_TIMEOUT. */
export function unavailable(e: unknown, cfg: S3Config, what: string): ServiceUnavailableError {
  if (!timedOut(e)) return new ServiceUnavailableError(`file storage is unavailable; ${what}, try again later`);
  const s = cfg.requestTimeoutMs / 1000;
  return new ServiceUnavailableError(`file storage did not answer within S3_REQUEST_TIMEOUT (${s} s); ${what}, try again later`, { setting: 'S3_REQUEST_TIMEOUT', limit: s });
}

function failure(e: unknown): { name: string; message: string; status: unknown } {
  const err = e as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return { name: String(err.name), message: String(err.message), status: err.$metadata?.httpStatusCode };
}

export function s3ClientConfig(cfg: S3Config): S3ClientConfig {
  return {
    region: cfg.region,
    ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
    forcePathStyle: cfg.forcePathStyle,
    ...(cfg.credentials
      ? { credentials: { accessKeyId: cfg.credentials.accessKeyId, secretAccessKey: cfg.credentials.secretAccessKey, ...(cfg.credentials.sessionToken ? { sessionToken: cfg.credentials.sessionToken } : {}) } }
      : {}),
    // Checksums only where S3 requires them: many S3-compatible services refuse the newer default
    // trailing CRC32 headers (and the bytes are checked by their sha256 on intake anyway).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // `socketTimeout` is the SDK's inactivity bound (it fails the attempt with a TimeoutError). Its
    // `requestTimeout` only logs a warning unless `throwOnRequestTimeout` is set: the 60 s bound given
    // there before bounded nothing, and an upload to an S3 that stopped answering never ended.
    requestHandler: { connectionTimeout: Math.min(CONNECT_TIMEOUT_MS, cfg.requestTimeoutMs), socketTimeout: cfg.requestTimeoutMs },
  };
}

export class S3Storage implements StorageProvider {
  readonly client: S3Client;

  constructor(
    private readonly cfg: S3Config,
    private readonly log: Logger,
    client?: S3Client,
  ) {
    this.client = client ?? new S3Client(s3ClientConfig(cfg));
  }

  /** The object key of a storage key: S3_PREFIX + key. */
  objectKey(key: string): string {
    if (!isStorageKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return this.cfg.prefix + key;
  }

  async put(body: Readable, opts: PutOptions): Promise<StoredObject> {
    const key = newStorageKey(opts.extension);
    return { key, size: await this.putAt(key, body, opts) };
  }

  /**
   * Streams `body` to the object of `key` (media:migrate keeps the keys the rows name) and answers its
   * size. Any storage failure → 503; a multipart upload that fails is aborted (no parts left behind).
   */
  async putAt(key: string, body: Readable, opts: PutOptions): Promise<number> {
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        cb(null, chunk);
      },
    });
    body.on('error', (e) => counted.destroy(e));
    body.pipe(counted);
    const upload = new Upload({
      client: this.client,
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
      params: {
        Bucket: this.cfg.bucket,
        Key: this.objectKey(key),
        Body: counted,
        ContentType: opts.contentType,
        ...(opts.contentDisposition ? { ContentDisposition: opts.contentDisposition } : {}),
        // Keys are random and never reused: the object never changes.
        CacheControl: 'public, max-age=31536000, immutable',
      },
    });
    try {
      await upload.done();
    } catch (e) {
      body.destroy();
      counted.destroy();
      this.log.error({ storage: 's3', op: 'put', key, ...failure(e) }, 'file storage: upload failed');
      throw unavailable(e, this.cfg, 'the file was not stored');
    }
    return size;
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    if (!isStorageKey(key)) return null;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      if (!(out.Body instanceof Readable)) throw new Error('S3 GetObject answered no stream');
      return out.Body;
    } catch (e) {
      if (isMissing(e)) return null;
      this.log.error({ storage: 's3', op: 'get', key, ...failure(e) }, 'file storage: read failed');
      throw unavailable(e, this.cfg, 'the file could not be read');
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a missing key as well.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: this.objectKey(key) }));
  }

  /** The object's size in bytes, or null when there is no such object. */
  async size(key: string): Promise<number | null> {
    if (!isStorageKey(key)) return null;
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.cfg.bucket, Key: this.objectKey(key) }));
      return Number(out.ContentLength ?? 0);
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.size(key)) !== null;
  }

  async *list(): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const { prefix, bucket } = this.cfg;
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: bucket, Prefix: prefix })) {
      for (const o of page.Contents ?? []) {
        const key = (o.Key ?? '').slice(prefix.length);
        if (isStorageKey(key)) yield { key, modifiedAt: o.LastModified ?? new Date(0) };
      }
    }
  }

  /**
   * Where a client fetches the bytes: the object under S3_PUBLIC_URL, or a presigned GET (a local
   * computation, no call to S3). Only answers the caller may read carry one (MediaService.attach).
   */
  async url(key: string): Promise<string> {
    const objectKey = this.objectKey(key);
    if (this.cfg.publicUrl) return `${this.cfg.publicUrl}/${objectKey.split('/').map(encodeURIComponent).join('/')}`;
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.cfg.bucket, Key: objectKey }), { expiresIn: this.cfg.signedUrlTtlSeconds });
  }

  close(): void {
    this.client.destroy();
  }
}
