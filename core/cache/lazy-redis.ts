/**
 * ioredis, loaded on the first client: ~20 MB of memory a deployment without REDIS_URL never uses
 * (issue 17, footprint). Every Redis client of the service is made here.
 */
import type { Redis, RedisOptions } from 'ioredis';

export function redisClient(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  return new Client(url, options);
}
