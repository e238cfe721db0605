/** The local-disk storage provider: files under config.uploadsDir, written atomically (temp name + rename). */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ByteRange, isStorageKey, newStorageKey, type StorageProvider, type StoredObject } from './storage';

export class LocalDiskStorage implements StorageProvider {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Only keys of the `ab/<hex>.<ext>` form map to a path, and the path must stay under the root. */
  private pathOf(key: string): string {
    if (!isStorageKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`storage key escapes the root: ${key}`);
    return path;
  }

  async put(body: Readable, opts: { extension: string }): Promise<StoredObject> {
    const key = newStorageKey(opts.extension);
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.part`;
    try {
      await pipeline(body, createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, path);
    } catch (e) {
      await rm(partial, { force: true });
      throw e;
    }
    return { key, size: (await stat(path)).size };
  }

  /** The temporary upload file lives under the same root (same file system): a rename, no copy. */
  async adopt(source: string, opts: { extension: string }): Promise<StoredObject> {
    const key = newStorageKey(opts.extension);
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    try {
      await rename(source, path);
    } catch {
      return this.put(createReadStream(source), opts); // another file system (EXDEV): copy
    }
    return { key, size: (await stat(path)).size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    if (!(await this.exists(key))) return null;
    return createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    if (!isStorageKey(key)) return false;
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch {
      return false;
    }
  }

  async *list(): AsyncIterable<{ key: string; modifiedAt: Date }> {
    let shards: string[];
    try {
      shards = await readdir(this.root);
    } catch {
      return;
    }
    for (const shard of shards.sort()) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const f of (await readdir(join(this.root, shard))).sort()) {
        const key = `${shard}/${f}`;
        if (!isStorageKey(key)) continue;
        const st = await stat(join(this.root, shard, f)).catch(() => null);
        if (st?.isFile()) yield { key, modifiedAt: st.mtime };
      }
    }
  }
}
