/**
 * Where file bytes live. The core talks to this interface only: the local-disk provider (local-disk.ts)
 * and the S3 provider (s3.ts), chosen by UPLOADS_DRIVER at the composition root (storage-of.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

export interface StoredObject {
  readonly key: string;
  readonly size: number;
}

export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface PutOptions {
  readonly extension: string;
  readonly contentType: string;
  /** Stored with the object where the provider can (S3), so the bucket serves it like /uploads/ does. */
  readonly contentDisposition?: string;
}

export interface StorageProvider {
  /** Stores the stream under a new unique key and answers it. */
  put(body: Readable, opts: PutOptions): Promise<StoredObject>;
  /**
   * Optional fast path: take over a local file (the upload's temporary file), e.g. by renaming it.
   * Providers without it get the file as a stream through `put`.
   */
  adopt?(path: string, opts: PutOptions): Promise<StoredObject>;
  /** The bytes of `key` (only `range`, both ends inclusive, when given), or null when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Every object the provider holds, with its last change (for `media:prune`). */
  list(): AsyncIterable<{ readonly key: string; readonly modifiedAt: Date }>;
  /**
   * Where clients fetch the bytes of `key`, when the provider serves them itself (an S3 object URL or a
   * presigned GET). Providers without it are served by this service at `/uploads/<key>`.
   */
  url?(key: string): Promise<string>;
  /** Releases connections (at shutdown). */
  close?(): void;
}

/**
 * Keys are random (never derived from the client's file name): `ab/<32 hex>.<ext>`. Unique keys make
 * served files immutable, so they can be cached forever, and deleting one record's file never
 * touches another's even when the bytes are the same.
 */
export const STORAGE_KEY = /^[0-9a-f]{2}\/[0-9a-f]{32}\.[a-z0-9]{1,8}$/;

export function isStorageKey(key: string): boolean {
  return STORAGE_KEY.test(key);
}

export function newStorageKey(extension: string): string {
  const id = randomBytes(16).toString('hex');
  const ext = /^[a-z0-9]{1,8}$/.test(extension) ? extension : 'bin';
  return `${id.slice(0, 2)}/${id}.${ext}`;
}
