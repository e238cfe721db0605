import type { Logger } from 'pino';
import type { Actor } from '../plugin-api';

/** A smaller limit than BODY_MAX_BYTES for one route's JSON body, and the setting that sets it (named in the 413). */
export interface BodyLimit {
  readonly maxBytes: number;
  readonly setting: string;
}

/** A route's own body limit declared up front (Plugin.bodyLimits): method and exact path, as the route is registered. */
export interface RouteBodyLimit {
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly limit: BodyLimit;
}

/** The typed per-request state, declared once (DESIGN: core/http/state.ts). */
export interface RequestState {
  requestId: string;
  log: Logger;
  actor: Actor | null;
  clientIp: string;
  /**
   * Reads and parses the JSON body (core/http/body.ts) and answers it, also as `ctx.request.body`. Nothing
   * reads a body before a route calls this, which it does once the caller may send it (after the
   * permission check, or a public endpoint's rate limit): an unread body is discarded by Node. Once per
   * request: later calls answer the first one's body. Multipart and GET bodies answer undefined.
   */
  readBody(limit?: BodyLimit): Promise<unknown>;
}
