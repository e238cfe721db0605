import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from './state';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** X-Request-Id in (when well-formed) and out; a child logger carrying it; one access-log line per request. */
export function requestId(log: Logger, trustProxy: boolean): Middleware<RequestState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = SAFE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.state.log = log.child({ requestId: id });
    ctx.state.actor = null;
    ctx.state.clientIp = (trustProxy ? ctx.ips[0] : undefined) ?? ctx.socket.remoteAddress ?? 'unknown';
    ctx.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}
