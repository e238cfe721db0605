/** JSON bodies with a size limit; write requests must say they send JSON. */
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { UnsupportedMediaTypeError } from '../errors/errors';
import type { RequestState } from './state';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function jsonBody(maxBytes: number): Middleware<RequestState>[] {
  const requireJson: Middleware<RequestState> = async (ctx, next) => {
    const hasBody = Number(ctx.get('Content-Length') || '0') > 0 || ctx.get('Transfer-Encoding') !== '';
    if (WRITES.has(ctx.method) && hasBody && !ctx.is('application/json', '+json', 'multipart/form-data')) {
      throw new UnsupportedMediaTypeError(`unsupported content type "${ctx.get('Content-Type') || 'none'}"; send application/json`);
    }
    await next();
  };
  const parse = koaBody({
    json: true,
    jsonLimit: maxBytes,
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  }) as unknown as Middleware<RequestState>;
  return [requireJson, parse];
}
