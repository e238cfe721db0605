/** What the event pipeline carries (issue 15). See README.md in this folder for the consumer API. */

export const RECORD_EVENT_TYPES = ['record.create', 'record.update', 'record.delete', 'record.recover', 'record.publish', 'record.unpublish'] as const;
export const IDENTITY_EVENT_TYPES = ['user.create', 'user.delete', 'session.revoke'] as const;
export type RecordEventType = (typeof RECORD_EVENT_TYPES)[number];
export type IdentityEventType = (typeof IDENTITY_EVENT_TYPES)[number];
export type EventType = RecordEventType | IdentityEventType | `record.${string}`;
export const EVENT_TYPES: readonly string[] = [...RECORD_EVENT_TYPES, ...IDENTITY_EVENT_TYPES];

/** What `eventCarriesModel` reads of a model (registry ContentType). */
export interface EventModel {
  readonly name: string;
  readonly softDelete?: boolean;
  readonly draftAndPublish?: boolean;
}

/**
 * Whether an event of `type` can be about a record of `model`: `record.create|update|delete` of any model,
 * `record.recover` of a soft-delete one, `record.publish|unpublish` of a draft-enabled one, `user.create|delete`
 * of `user` (core/plugins/users-permissions/runtime.ts), `session.revoke` of `session` (sessions.ts).
 * A subscription pairing a type with a model it never carries would never fire.
 */
export function eventCarriesModel(type: string, model: EventModel): boolean {
  switch (type) {
    case 'record.create':
    case 'record.update':
    case 'record.delete':
      return true;
    case 'record.recover':
      return model.softDelete === true;
    case 'record.publish':
    case 'record.unpublish':
      return model.draftAndPublish === true;
    case 'user.create':
    case 'user.delete':
      return model.name === 'user';
    case 'session.revoke':
      return model.name === 'session';
    default:
      return false;
  }
}

/** Who made the change: a user account, or an API token (no account), or nobody (the system). */
export interface EventActor {
  readonly userId: number | null;
  readonly apiTokenId: number | null;
}

/** An event before it is written (the outbox gives it its id and time). */
export interface NewEvent {
  readonly type: EventType;
  readonly model: string | null;
  readonly recordId: number | null;
  readonly actor: EventActor | null;
  /** The record as FindOne answers it (private fields never); identity events: their data. */
  readonly record: Record<string, unknown> | null;
}

/** A committed event, as consumers receive it. */
export interface StoredEvent extends NewEvent {
  /** Monotonic outbox id (resume point: `readAfter(id)`). */
  readonly id: number;
  /** ISO 8601 time of the change. */
  readonly time: string;
}
