/**
 * The only core surface a plugin imports (besides core/errors/* and core/registry/types.ts).
 * The core calls these hooks; it never names a plugin (DESIGN: "core never imports the plugin").
 */
import type Router from '@koa/router';
import type { Command } from 'commander';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import type { Dialect } from '../database/dialects/dialect';
import type { Registry } from './registry/types';
import type { RequestState } from './http/state';

/** The record actions a permission names: `<model>.<action>` (CONTRACT: Roles and permissions). */
export const RECORD_ACTIONS = ['find', 'findOne', 'create', 'update', 'delete', 'recover'] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

/** Who is calling: built by the plugin's Authenticator, read by the core. */
export interface Actor {
  readonly id: number;
  readonly username: string;
  readonly email: string;
  readonly fullName: string | null;
  readonly active: boolean;
  readonly roles: readonly string[];
  /** The access token's session id, when the actor came from a token. */
  readonly sessionId: string | null;
}

export interface PluginDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly dialect: Dialect;
  readonly registry: Registry;
  readonly log: Logger;
}

export interface Authenticator {
  /** Bearer header → Actor; null when the request carries no credentials; throws 401 on bad ones. */
  authenticate(authorization: string | undefined, state: RequestState): Promise<Actor | null>;
}

export interface Authorizer {
  /** May `actor` (null: the public role) perform `action` on `model`? */
  can(actor: Actor | null, model: string, action: RecordAction): Promise<boolean>;
}

export interface OpenApiFragment {
  readonly paths: Record<string, unknown>;
  readonly components?: { readonly schemas?: Record<string, unknown> };
  readonly tags?: readonly { name: string; description?: string }[];
}

export interface Plugin {
  readonly name: string;
  /** Extra YAML models for the registry. */
  readonly contentTypesDir?: string;
  routes?(router: Router<RequestState>, deps: PluginDeps): void;
  authenticator?(deps: PluginDeps): Authenticator;
  authorizer?(deps: PluginDeps): Authorizer;
  /** Runs after migrations, at every start (idempotent): seed roles, etc. */
  bootstrap?(deps: PluginDeps): Promise<void>;
  cli?(program: Command, deps: () => Promise<PluginDeps>): void;
  openapi?(): OpenApiFragment;
  close?(): Promise<void>;
}
