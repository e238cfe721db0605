/** /health (process up) and /health/ready (database answers within a second). */
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { RequestState } from './state';

const READY_TIMEOUT_MS = 1000;

export function healthRouter(db: Knex): Router<RequestState> {
  const router = new Router<RequestState>();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health/ready', async (ctx) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([db.raw('select 1'), timeout]);
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable' };
    } finally {
      clearTimeout(timer);
    }
  });
  return router;
}
