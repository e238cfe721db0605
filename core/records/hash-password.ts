import bcrypt from 'bcryptjs';
import { ValidationError } from '../errors/errors';
import { PASSWORD_MAX_BYTES } from '../registry/types';

/** `password` attributes are stored as bcrypt hashes (async: never blocks the event loop). */
export function passwordHasher(cost: number): (plain: string) => Promise<string> {
  return async (plain) => {
    if (Buffer.byteLength(plain, 'utf8') > PASSWORD_MAX_BYTES) throw new ValidationError('the password is too long', { password: [`must be at most ${PASSWORD_MAX_BYTES} bytes`] });
    return bcrypt.hash(plain, cost);
  };
}
