/**
 * GET /api/realtime (the stream) and POST /api/realtime/ticket (a ticket for EventSource). README.md
 * in this folder; registered once, in core/http/app.ts.
 */
import Router from '@koa/router';
import { BadRequestError, UnauthorizedError } from '../errors/errors';
import type { RequestState } from '../http/state';
import type { Authenticator } from '../plugin-api';
import type { Realtime } from './service';
import { REALTIME_SEGMENT } from './segment';
import type { Tickets } from './ticket';
import { clip } from '../errors/client-text';

export function realtimeRouter(realtime: Realtime, tickets: Tickets, authenticator: Authenticator | null, parseQuery: (raw: string) => unknown): Router<RequestState> {
  const router = new Router<RequestState>({ prefix: `/api/${REALTIME_SEGMENT}` });

  router.post('/ticket', async (ctx) => {
    const bearer = ctx.get('Authorization') || undefined;
    // A ticket stands for credentials: without them there is nothing to seal (anonymous streams need none).
    const actor = authenticator ? await authenticator.authenticate(bearer, ctx.state) : null;
    if (!actor || bearer === undefined) throw new UnauthorizedError('authentication required: a ticket is issued for the bearer in the Authorization header');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: tickets.issue(bearer) };
  });

  router.get('/', async (ctx) => {
    const query = parseQuery(ctx.querystring) as Record<string, unknown>;
    for (const k of Object.keys(query)) {
      if (!['models', 'filters', 'ticket', 'lastEventId'].includes(k)) throw new BadRequestError(`${clip(k)}: unknown query parameter (known: models, filters, ticket, lastEventId)`, { parameter: clip(k) });
    }
    const header = ctx.get('Authorization') || undefined;
    let bearer = header;
    if (query.ticket !== undefined) {
      if (header !== undefined) throw new BadRequestError('give either the Authorization header or a ticket, not both', { parameter: 'ticket' });
      if (typeof query.ticket !== 'string') throw new BadRequestError('ticket: one ticket from POST /api/realtime/ticket', { parameter: 'ticket' });
      bearer = tickets.open(query.ticket);
    }
    if (query.lastEventId !== undefined && typeof query.lastEventId !== 'string') throw new BadRequestError('lastEventId: one event id', { parameter: 'lastEventId' });
    const lastEventId = ctx.get('Last-Event-ID') || query.lastEventId;
    await realtime.open({ bearer, state: ctx.state, models: query.models, filters: query.filters, lastEventId, res: ctx.res });
    // The stream writes to the socket itself from here on.
    ctx.respond = false;
  });

  return router;
}
