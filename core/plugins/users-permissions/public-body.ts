/**
 * The identity endpoints that take no token read at most IAM_BODY_MAX_BYTES (routes.ts, after counting
 * the caller's address). The same limit is declared to the core (Plugin.bodyLimits), so a body whose
 * Content-Length is past BODY_MAX_BYTES, refused before any route runs, names IAM_BODY_MAX_BYTES as well.
 */
import type { BodyLimit, RouteBodyLimit } from '../../plugin-api';

export const PUBLIC_BODY_PATHS = [
  '/api/iam/register',
  '/api/iam/authenticate',
  '/api/iam/refresh-tokens',
  '/api/iam/initiate/forgot-password',
  '/api/iam/confirm/forgot-password',
  '/api/iam/logout',
  '/api/iam/otp/register/initiate',
  '/api/iam/otp/register/confirm',
  '/api/iam/otp/login/initiate',
  '/api/iam/otp/login/confirm',
] as const;

export type PublicBodyPath = (typeof PUBLIC_BODY_PATHS)[number];

export const publicBodyLimit = (maxBytes: number): BodyLimit => ({ maxBytes, setting: 'IAM_BODY_MAX_BYTES' });

export const publicBodyLimits = (maxBytes: number): RouteBodyLimit[] => PUBLIC_BODY_PATHS.map((path) => ({ method: 'POST', path, limit: publicBodyLimit(maxBytes) }));
