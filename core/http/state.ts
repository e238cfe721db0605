import type { Logger } from 'pino';
import type { Actor } from '../plugin-api';

/** The typed per-request state, declared once (DESIGN: core/http/state.ts). */
export interface RequestState {
  requestId: string;
  log: Logger;
  actor: Actor | null;
  clientIp: string;
}
