/**
 * How every process reads an event's `record` (core/events: `EventPipeline.recordOf`): the answer of a
 * FindOne without parameters, private fields never. core/boot.ts sets it on the pipeline of every
 * process (the server, the admin CLI, a test app), so an event a plugin appends outside a server (the
 * CLI's user:create) carries the record a server's would.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import type { Dialect } from '../../database/dialects/dialect';
import type { RecordReader } from '../events/pipeline';
import { MediaService } from '../media/service';
import { storageOf } from '../media/storage-of';
import type { StorageProvider } from '../media/storage';
import type { Registry } from '../registry/types';
import { passwordHasher } from './hash-password';
import { RecordService, type RecordServiceDeps } from './service';

/** The settings that shape a read answer: the server's record service and the reader take the same. */
export function recordReadOptions(config: Config): Pick<RecordServiceDeps, 'maxLimit' | 'populateDefaultLimit' | 'populateMaxLimit' | 'answerMaxRecords' | 'cost' | 'locales'> {
  return {
    maxLimit: config.apiMaxLimit,
    populateDefaultLimit: config.populateDefaultLimit,
    populateMaxLimit: config.populateMaxLimit,
    answerMaxRecords: config.answerMaxRecords,
    cost: config.query,
    locales: config.locales,
  };
}

export interface EventRecordReader {
  readonly read: RecordReader;
  /** Closes the storage client it opened (S3), if it read any record. */
  close(): void;
}

/**
 * A record service that only reads (no validators, events or hooks: it never writes), built at the
 * first record read: a CLI command that appends no event builds none, nor opens a storage client.
 *
 * @example events.setRecordReader(eventRecordReader({ config, db, dialect, registry, log }).read)
 */
export function eventRecordReader(deps: { readonly config: Config; readonly db: Knex; readonly dialect: Dialect; readonly registry: Registry; readonly log: Logger }): EventRecordReader {
  const { config, db, dialect, registry, log } = deps;
  let service: RecordService | null = null;
  let storage: StorageProvider | null = null;
  const serviceOf = (): RecordService => {
    if (!service) {
      storage = storageOf(config, log);
      const media = new MediaService({ storage, registry, publicUrl: config.publicUrl, log });
      service = new RecordService({ db, dialect, registry, validators: new Map(), hashPassword: passwordHasher(config.iam.bcryptCost), media, ...recordReadOptions(config) });
    }
    return service;
  };
  return {
    read: async (trx, name, id) => {
      const model = registry.get(name);
      return model ? serviceOf().findOneAnswer(trx, model, id, 'inclusive') : null;
    },
    close() {
      storage?.close?.();
      storage = null;
      service = null;
    },
  };
}
