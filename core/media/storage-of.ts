/** The storage provider UPLOADS_DRIVER names: the one place that chooses (app and admin CLI alike). */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import { LocalDiskStorage } from './local-disk';
import { S3Storage } from './s3';
import type { StorageProvider } from './storage';

export function storageOf(config: Config, log: Logger): StorageProvider {
  if (config.uploads.driver === 's3' && config.uploads.s3 !== null) return new S3Storage(config.uploads.s3, log);
  return new LocalDiskStorage(config.uploadsDir);
}
