/**
 * Lifecycle hooks (issue 15): code that runs around every record write, registered by plugins
 * (`Plugin.hooks`) and by project files in `hooks/` (loader.ts). README.md of this folder: the API.
 */
import type { Knex } from 'knex';
import type { Actor } from '../plugin-api';

/** `publish` / `unpublish`: a draft-enabled model's entry published or taken back (issue 14). */
export type WriteKind = 'create' | 'update' | 'delete' | 'recover' | 'publish' | 'unpublish';
export const WRITE_KINDS: readonly WriteKind[] = ['create', 'update', 'delete', 'recover', 'publish', 'unpublish'];

export type BeforeHookName = `before${Capitalize<WriteKind>}`;
export type AfterHookName = `after${Capitalize<WriteKind>}`;
export type HookName = BeforeHookName | AfterHookName;

/** What a `before*` hook gets: it runs inside the write's transaction, before the write. */
export interface BeforeContext {
  /** The model's name (e.g. `fee-type`). */
  readonly model: string;
  /** The record's id (null on create). */
  readonly id: number | null;
  /**
   * The validated body of a create or update, as the service will write it: change it in place to
   * change what is written (it is not validated again), server-only (`writable: false`) attributes
   * included: they are written in the same INSERT or UPDATE. `{}` on delete and recover.
   */
  readonly data: Record<string, unknown>;
  /** `create`, `patch`, `put`, `delete`, `recover`, `publish` or `unpublish`. */
  readonly mode: 'create' | 'patch' | 'put' | 'delete' | 'recover' | 'publish' | 'unpublish';
  readonly actor: Actor | null;
  /** The write's transaction: read and write through it (on SQLite another connection would wait for it). */
  readonly trx: Knex.Transaction;
  /** Shared with the `after*` hooks of the same record's write. */
  readonly state: Record<string, unknown>;
}

/** What an `after*` hook gets: it runs after the commit and cannot undo it (its errors are logged). */
export interface AfterContext {
  readonly model: string;
  readonly id: number;
  /** The record as the write answers it. A hook may add fields to it (the client sees them). */
  readonly record: Record<string, unknown>;
  readonly mode: BeforeContext['mode'];
  readonly actor: Actor | null;
  readonly state: Record<string, unknown>;
}

export type BeforeHook = (ctx: BeforeContext) => void | Promise<void>;
export type AfterHook = (ctx: AfterContext) => void | Promise<void>;

/**
 * A set of hooks: each key is optional. `models` limits them to those models (absent: every model).
 * A `before*` hook refuses the write by throwing `new HookError(status, message)` (core/hooks/error.ts,
 * also exported by plugin-api.ts): the client gets that status and message, and nothing is written.
 */
export interface LifecycleHooks {
  readonly models?: readonly string[];
  readonly beforeCreate?: BeforeHook;
  readonly afterCreate?: AfterHook;
  readonly beforeUpdate?: BeforeHook;
  readonly afterUpdate?: AfterHook;
  readonly beforeDelete?: BeforeHook;
  readonly afterDelete?: AfterHook;
  readonly beforeRecover?: BeforeHook;
  readonly afterRecover?: AfterHook;
  readonly beforePublish?: BeforeHook;
  readonly afterPublish?: AfterHook;
  readonly beforeUnpublish?: BeforeHook;
  readonly afterUnpublish?: AfterHook;
}
