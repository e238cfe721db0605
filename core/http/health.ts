/**
 * /health (process up) and /health/ready (database answers within a second). A pool whose every
 * connection is held by other requests' work is busy, not down: the server is then asked on a
 * connection of its own (database/pool-busy.ts), and a server that answers is ready (`pool: busy`).
 */
import Router from '@koa/router';
import type { Knex } from 'knex';
import { poolWatchOf } from '../../database/pool-busy';
import type { RequestState } from './state';

const READY_TIMEOUT_MS = 1000;

const never = new Promise<never>(() => undefined);

export function healthRouter(db: Knex): Router<RequestState> {
  const router = new Router<RequestState>();
  const pool = poolWatchOf(db);
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health/ready', async (ctx) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
    });
    const direct = db.raw('select 1').then(() => ({ status: 'ready' }));
    // a full pool: the direct check waits for a slot; a probe outside it says whether the server answers
    const outside = pool?.full() ? pool.probe().then((r) => (r === 'answered' ? { status: 'ready', pool: 'busy' } : never)) : never;
    try {
      ctx.body = await Promise.race([direct, outside, timeout]);
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable' };
    } finally {
      clearTimeout(timer);
      direct.catch(() => undefined);
    }
  });
  return router;
}
