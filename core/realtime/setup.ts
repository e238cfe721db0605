/** Builds realtime's router from the app's parts (core/http/app.ts calls this once). */
import type Router from '@koa/router';
import type { RequestState } from '../http/state';
import { realtimeRouter } from './routes';
import { Realtime, type RealtimeDeps } from './service';
import { Tickets } from './ticket';

export function realtimeOf(deps: RealtimeDeps, parseQuery: (raw: string) => unknown): Router<RequestState> {
  const realtime = new Realtime(deps);
  const tickets = new Tickets(deps.config.iam.jwtSecret, deps.config.realtime.ticketTtlMs);
  return realtimeRouter(realtime, tickets, deps.authenticator, parseQuery);
}
