/** @koa/cors ships no types; only the options this service uses are declared. */
declare module '@koa/cors' {
  import type { Middleware, Context } from 'koa';
  interface CorsOptions {
    origin?: string | ((ctx: Context) => string | undefined | Promise<string | undefined>);
    allowMethods?: string | string[];
    allowHeaders?: string | string[];
    exposeHeaders?: string | string[];
    maxAge?: number | string;
    credentials?: boolean;
    keepHeadersOnError?: boolean;
  }
  function cors(options?: CorsOptions): Middleware;
  export = cors;
}
