/** Request-body readers: unknown → typed values, or 400/422 naming the field. Never 500 for bad input. */
import { BadRequestError, ValidationError } from '../../errors/errors';

export type Body = Record<string, unknown>;

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{2,255}$/;
/** A phone number as registration accepts it: digits, with spaces, dots, dashes and parentheses, an optional leading `+`. */
export const MOBILE_PATTERN = /^\+?[0-9][0-9\s().-]{5,}$/;

export function bodyOf(raw: unknown): Body {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new BadRequestError('the body must be a JSON object');
  return raw as Body;
}

/** Collects field errors and throws one 422 with `details.fields` at the end. */
export class FieldCheck {
  readonly fields: Record<string, string[]> = {};

  fail(field: string, message: string): void {
    (this.fields[field] ??= []).push(message);
  }

  string(body: Body, field: string, opts: { required?: boolean; max?: number; min?: number } = {}): string | undefined {
    const v = body[field];
    if (v === undefined || v === null || v === '') {
      if (opts.required) this.fail(field, 'is required');
      return undefined;
    }
    if (typeof v !== 'string') {
      this.fail(field, 'must be a string');
      return undefined;
    }
    if (opts.max !== undefined && v.length > opts.max) this.fail(field, `must be at most ${opts.max} characters`);
    if (opts.min !== undefined && v.length < opts.min) this.fail(field, `must be at least ${opts.min} characters`);
    return v;
  }

  email(body: Body, field: string, required = false, max = 255): string | undefined {
    const v = this.string(body, field, { required, max });
    if (v !== undefined && !EMAIL_PATTERN.test(v.trim())) this.fail(field, 'must be an e-mail address');
    return v?.trim();
  }

  mobile(body: Body, field: string, required = false, max = 32): string | undefined {
    const v = this.string(body, field, { required, max });
    if (v !== undefined && !MOBILE_PATTERN.test(v.trim())) this.fail(field, 'must be a phone number');
    return v?.trim();
  }

  username(body: Body, field: string, required = false, max = 255): string | undefined {
    const v = this.string(body, field, { required, max });
    if (v !== undefined && !USERNAME_PATTERN.test(v.trim())) this.fail(field, 'must be 2 or more letters, digits, ".", "_" or "-"');
    return v?.trim();
  }

  boolean(body: Body, field: string): boolean | undefined {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') this.fail(field, 'must be a boolean');
    return v === true;
  }

  stringArray(body: Body, field: string): string[] | undefined {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string') || v.length > 20) {
      this.fail(field, 'must be an array of strings');
      return undefined;
    }
    return v as string[];
  }

  done(message = 'invalid request'): void {
    if (Object.keys(this.fields).length > 0) throw new ValidationError(message, this.fields);
  }
}
