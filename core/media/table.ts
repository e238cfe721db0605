/**
 * The media table: one row per stored file, pointing at (model, field, record id). It is a core system
 * table produced by the same registry-driven schema mechanism as the models (database/schema/desired.ts),
 * so `migrate:make` and the snapshot see it. A record's id is not a foreign key: rows of every model share it.
 */
import type { TableDef } from '../../database/schema/types';

export const MEDIA_TABLE = 'media_files';
/**
 * The media rows of published copies (issue 14): a published entry keeps the files it was published
 * with while its draft's files change. Same columns; a storage key may be named here and in MEDIA_TABLE.
 */
export const PUBLISHED_MEDIA_TABLE = 'media_files__published';

const TIMESTAMP = { method: 'timestamp', args: [{ useTz: true, precision: 3 }] } as const;

export function mediaTableDef(name: string = MEDIA_TABLE): TableDef {
  return {
    name,
    columns: [
      { name: 'id', spec: { method: 'increments', args: [] }, nullable: false },
      { name: 'name', spec: { method: 'string', args: [255] }, nullable: false },
      { name: 'mime', spec: { method: 'string', args: [255] }, nullable: false },
      { name: 'size', spec: { method: 'bigInteger', args: [] }, nullable: false },
      { name: 'sha256', spec: { method: 'string', args: [64] }, nullable: false },
      { name: 'storage_key', spec: { method: 'string', args: [255] }, nullable: false },
      { name: 'model', spec: { method: 'string', args: [64] }, nullable: false },
      { name: 'field', spec: { method: 'string', args: [64] }, nullable: false },
      { name: 'record_id', spec: { method: 'integer', args: [] }, nullable: false },
      { name: 'created_at', spec: TIMESTAMP, nullable: false },
    ],
    indexes: [
      { name: `${name}_storage_key_unique`, columns: ['storage_key'], unique: true },
      { name: `${name}_model_record_id_field_index`, columns: ['model', 'record_id', 'field'], unique: false },
    ],
  };
}

/** A media row as the driver returns it. */
export interface MediaRow {
  readonly id: number;
  readonly name: string;
  readonly mime: string;
  readonly size: number | string;
  readonly sha256: string;
  readonly storage_key: string;
  readonly model: string;
  readonly field: string;
  readonly record_id: number;
  readonly created_at: unknown;
}
