/** Small pure helpers shared by the identity plugin. */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { MOBILE_PATTERN } from './input';

export { insertedId } from '../../plugin-api';

export const nowIso = (d: Date = new Date()): string => d.toISOString();
export const later = (seconds: number, from: Date = new Date()): string => new Date(from.getTime() + seconds * 1000).toISOString();
export const timeOf = (v: unknown): number => (v instanceof Date ? v.getTime() : new Date(String(v)).getTime());

/** SQLite answers 0/1, PostgreSQL true/false. */
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't';

export const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A URL-safe secret of 43 characters (256 bits). */
export const randomSecret = (): string => randomBytes(32).toString('base64url');

/** A 6-digit code from the CSPRNG (CONTRACT: an OTP is a 6-digit number). */
export const sixDigits = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The form identifiers are compared and rate-limited in: trimmed, lower-cased. */
export const normalize = (s: string): string => s.trim().toLowerCase();
/** Mobile numbers: digits and a leading +, nothing else. */
export const normalizeMobile = (s: string): string => s.trim().replace(/[\s().-]/g, '');

export type Source = 'email' | 'mobile';
export type IdentifierType = 'email' | 'mobile' | 'username';
export const SOURCES: readonly Source[] = ['email', 'mobile'];

/** CONTRACT: `type` is inferred from the identifier when absent. */
export function inferType(identifier: string): IdentifierType {
  if (identifier.includes('@')) return 'email';
  if (MOBILE_PATTERN.test(identifier.trim())) return 'mobile';
  return 'username';
}
