/**
 * The event outbox: one row per committed change (issue 15), written in the transaction of the change
 * itself, so a rolled-back write leaves none and a crash after commit loses none. A core system table,
 * declared like the media table through database/schema/desired.ts (every registry has it).
 */
import type { TableDef } from '../../database/schema/types';

export const EVENTS_TABLE = 'event_outbox';

const TIMESTAMP = { method: 'timestamp', args: [{ useTz: true, precision: 3 }] } as const;

export function eventsTableDef(): TableDef {
  return {
    name: EVENTS_TABLE,
    columns: [
      // The event id: monotonic per commit order up to in-flight transactions (hub.ts closes the gaps).
      { name: 'id', spec: { method: 'increments', args: [] }, nullable: false },
      { name: 'type', spec: { method: 'string', args: [64] }, nullable: false },
      { name: 'model', spec: { method: 'string', args: [64] }, nullable: true },
      { name: 'record_id', spec: { method: 'integer', args: [] }, nullable: true },
      { name: 'actor_user_id', spec: { method: 'integer', args: [] }, nullable: true },
      { name: 'actor_token_id', spec: { method: 'integer', args: [] }, nullable: true },
      { name: 'created_at', spec: TIMESTAMP, nullable: false },
      // The record as FindOne answers it (JSON text; private fields never), or the identity event's data.
      { name: 'data', spec: { method: 'text', args: [] }, nullable: true },
    ],
    indexes: [
      { name: `${EVENTS_TABLE}_model_record_id_index`, columns: ['model', 'record_id'], unique: false },
      { name: `${EVENTS_TABLE}_created_at_index`, columns: ['created_at'], unique: false },
    ],
  };
}

/** An outbox row as the driver returns it. */
export interface EventRow {
  readonly id: number | string;
  readonly type: string;
  readonly model: string | null;
  readonly record_id: number | string | null;
  readonly actor_user_id: number | string | null;
  readonly actor_token_id: number | string | null;
  readonly created_at: unknown;
  readonly data: string | null;
}
