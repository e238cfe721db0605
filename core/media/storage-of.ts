/** The storage provider UPLOADS_DRIVER names: the one place that chooses (app and admin CLI alike). */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import { LocalDiskStorage } from './local-disk';
import type { StorageProvider } from './storage';

export function storageOf(config: Config, log: Logger): StorageProvider {
  if (config.uploads.driver === 's3' && config.uploads.s3 !== null) {
    // Loaded only here: the AWS SDK costs ~20 MB of memory a local-disk deployment never uses (issue 17).
    const { S3Storage } = require('./s3') as typeof import('./s3');
    return new S3Storage(config.uploads.s3, log);
  }
  return new LocalDiskStorage(config.uploadsDir);
}
