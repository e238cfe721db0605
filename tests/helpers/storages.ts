/** STORAGES = ['local', 's3'] (UPLOADS_DRIVER), narrowed by TEST_STORAGES=local|s3 while iterating. */
export type TestStorage = 'local' | 's3';

export const STORAGES: readonly TestStorage[] = (process.env.TEST_STORAGES ?? 'local,s3')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is TestStorage => s === 'local' || s === 's3');
