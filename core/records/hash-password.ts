import bcrypt from 'bcryptjs';

/** `password` attributes are stored as bcrypt hashes (async: never blocks the event loop). */
export function passwordHasher(cost: number): (plain: string) => Promise<string> {
  return (plain) => bcrypt.hash(plain, cost);
}
