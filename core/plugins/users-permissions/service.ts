/** The identity flows of spec 4.1 and 4.2 (HTTP-free: bodies in, response objects out). */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../../config/schema';
import { BadRequestError, ConflictError, ForbiddenError, ServiceUnavailableError, UnauthorizedError, ValidationError } from '../../errors/errors';
import { type Actor, type EventActor, eventActor } from '../../plugin-api';
import type { BatchState, CodeRow, Codes, Purpose } from './codes';
import type { Delivery } from './delivery';
import { type AccountFields, checkAccountFields, userLengths } from './account-fields';
import { type Body, bodyOf, FieldCheck } from './input';
import { type Passwords, passwordProblems } from './passwords';
import type { Bucket, RateLimiter } from './rate-limit';
import { ADMIN, AUTHENTICATED } from './seed';
import type { Sessions } from './sessions';
import type { IdentityStore, UserRow } from './store';
import type { Tokens } from './tokens';
import { type IdentifierType, inferType, normalize, normalizeMobile, type Source, SOURCES } from './util';

/** The account's owner as the actor of a self-service flow's events (they proved who they are). */
const self = (userId: number): EventActor => ({ userId, apiTokenId: null });

export interface ServiceDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly store: IdentityStore;
  readonly sessions: Sessions;
  readonly tokens: Tokens;
  readonly passwords: Passwords;
  readonly codes: Codes;
  readonly delivery: Delivery;
  readonly limiter: RateLimiter;
}

const SAME_ANSWER_LOGIN = 'If the account exists, a code has been sent.';
const SAME_ANSWER_RESET = 'If the account exists, a reset token has been sent to its e-mail address.';
const BAD_CODE = 'invalid or expired code';

/** Does a JSON value hold a NUL character in a string or a key? */
function holdsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(holdsNul);
  if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => k.includes('\u0000') || holdsNul(x));
  return false;
}

/**
 * May a new OTP registration replace account `u`, which holds one of its identifiers? Only while `u` is an
 * OTP registration nobody finished nor made into an account: still pending, inactive, without a password,
 * never signed in, and with no address proven, unless its codes can no longer all be proven (`failed`:
 * one died or expired; its registrant can only start again). An account an admin activated, gave a password
 * or marked verified (which also ends the pending state: afterUserWrite), or whose registrant has proven
 * an address and may still finish, is in use.
 */
function unfinishedRegistration(u: UserRow, failed: boolean): boolean {
  return u.pendingVerification !== null && !u.active && u.passwordHash === null && u.lastLoginProvider === null && (failed || (!u.emailVerified && !u.mobileVerified));
}

function minutes(seconds: number): string {
  const m = Math.max(1, Math.round(seconds / 60));
  return `${m} minute${m === 1 ? '' : 's'}`;
}

export class IdentityService {
  constructor(private readonly d: ServiceDeps) {}

  private get iam(): Config['iam'] {
    return this.d.config.iam;
  }

  private checkPassword(check: FieldCheck, field: string, value: string | undefined): void {
    if (value !== undefined) for (const p of passwordProblems(value)) check.fail(field, p);
  }

  /** Spec 2.6 (never the password or its hash). */
  private async userView(u: UserRow): Promise<Record<string, unknown>> {
    return { id: u.id, fullName: u.fullName, username: u.username, email: u.email, mobile: u.mobile, forcePasswordChange: u.forcePasswordChange, roles: await this.d.store.rolesOf(u.id), createdAt: u.createdAt, updatedAt: u.updatedAt };
  }

  /** `verifiedHash`: the password hash a sign-in checked (Sessions.create re-checks it). */
  private async pair(userId: number, provider: string, verifiedHash?: string): Promise<{ accessToken: string; refreshToken: string }> {
    const s = await this.d.sessions.create(userId, provider, verifiedHash);
    return { accessToken: this.d.tokens.sign({ userId, sessionId: s.sessionId }), refreshToken: s.refreshToken };
  }

  /** Sends without letting the caller wait on (or learn from) the gateway. */
  private sendLater(p: Promise<void>): void {
    p.catch((err: unknown) => this.d.log.error({ err }, 'identity: delivery failed'));
  }

  /**
   * Work an answer must not wait for: the code a sign-in or reset issues to an existing account. Issuing
   * is a write, which a missing account skips; awaited, it made the answer measurably slower for accounts
   * that exist (PostgreSQL: 6.8 vs 2.3 ms for forgot-password), telling who has an account. So the answer
   * goes first, the same for both, and the code follows (a failure is logged: the caller asks again).
   */
  private afterAnswer(work: () => Promise<void>): void {
    this.sendLater(new Promise<void>((resolve) => setImmediate(resolve)).then(work));
  }

  private send(channel: Source, u: { email: string; mobile: string | null }, subject: string, text: string): Promise<void> {
    if (channel === 'email') return this.d.delivery.mail(u.email, subject, text);
    return this.d.delivery.sms(u.mobile ?? '', text);
  }

  /** `validationSources` may add to the configured sources, never remove (CONTRACT). */
  private sources(check: FieldCheck, body: Body, configured: readonly Source[]): Source[] {
    const asked = check.stringArray(body, 'validationSources') ?? [];
    for (const s of asked) if (!SOURCES.includes(s as Source)) check.fail('validationSources', `"${s}" is not a validation source (email, mobile)`);
    return SOURCES.filter((s) => configured.includes(s) || asked.includes(s));
  }

  private identifierType(check: FieldCheck, body: Body, identifier: string | undefined): IdentifierType {
    const t = check.string(body, 'type', { max: 16 });
    if (t !== undefined && t !== 'email' && t !== 'mobile' && t !== 'username') check.fail('type', 'must be email, mobile or username');
    return (t as IdentifierType | undefined) ?? inferType(identifier ?? '');
  }

  private accountKey(type: IdentifierType, value: string): string {
    return `${type}:${type === 'mobile' ? normalizeMobile(value) : normalize(value)}`;
  }

  /**
   * One per-account counter (issue 13 item 8): an identifier naming an account counts against that
   * account, whichever of its username, e-mail or mobile named it (`user:<id>`, the key
   * change-password counts against too); one naming none counts against itself. A caller trying one
   * identifier gets the same number of tries either way, so the limit does not tell which exist.
   */
  private limitAccount(bucket: Bucket, user: UserRow | undefined, type: IdentifierType, identifier: string): Promise<void> {
    return this.d.limiter.checkAccount(bucket, user ? `user:${user.id}` : this.accountKey(type, identifier));
  }

  /** Spec 4.1 rule 1: the sign-in name is a username, or an e-mail typed into `username`. */
  private async userBySignInName(name: string): Promise<UserRow | undefined> {
    return (await this.d.store.userBy('username', name)) ?? (name.includes('@') ? this.d.store.userBy('email', name) : undefined);
  }

  /**
   * Before a public endpoint (no token) reads its body: the feature it belongs to is on (403), and the
   * caller's address has tries left in the endpoint's bucket (429). Every call counts, whatever its body
   * (invalid JSON, too large, invalid fields): a flood from one address is limited before anything parses
   * it. The endpoints below count only their account keys; their routes call this first.
   */
  async admit(bucket: Bucket, ip: string): Promise<void> {
    if (bucket === 'register' && !this.iam.allowPublicRegistration) throw new ForbiddenError('public registration is disabled');
    if (bucket === 'otp') this.requirePasswordLess();
    await this.d.limiter.checkAddress(bucket, ip);
  }

  // ---- 4.1 password flow ----

  async register(raw: unknown): Promise<Record<string, unknown>> {
    if (!this.iam.allowPublicRegistration) throw new ForbiddenError('public registration is disabled');
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const { fields, email } = checkAccountFields(check, body, userLengths(this.d.store.deps.registry));
    if (email) await this.d.limiter.checkAccount('register', normalize(email));
    const asked = (check.stringArray(body, 'roles') ?? [AUTHENTICATED]).map(normalize);
    check.done('invalid registration');
    const allowed = new Set(this.iam.publicRegistrationRoles.map(normalize));
    // Asking for admin in any spelling, or for a role not offered to the public, is refused outright.
    const refused = asked.filter((r) => r === ADMIN || !allowed.has(r));
    if (refused.length) throw new ForbiddenError(`a public registration cannot ask for role ${refused.join(', ')}`);
    const roles = [...new Set(asked.length ? asked : [AUTHENTICATED])];
    const known = await this.d.store.roleIds(roles);
    const unknown = roles.filter((r) => !known.has(r));
    if (unknown.length) throw new ValidationError('invalid registration', { roles: [`unknown role ${unknown.join(', ')}`] });
    const account = fields as AccountFields; // check.done() above threw unless every account field passed
    const id = await this.d.store.createUser({ fullName: account.fullName, username: account.username, email: account.email, mobile: account.mobile, passwordHash: await this.d.passwords.hash(account.password), active: true, roles });
    return this.userView((await this.d.store.userById(id)) as UserRow);
  }

  async authenticate(raw: unknown): Promise<Record<string, unknown>> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const email = check.string(body, 'email', { max: 255 });
    const username = check.string(body, 'username', { max: 255 });
    const password = check.string(body, 'password', { required: true, max: 1024 });
    if (email === undefined && username === undefined) check.fail('email', 'email or username is required');
    check.done('invalid sign-in request');
    const identifier = (email ?? username) as string;
    const user = email !== undefined ? await this.d.store.userBy('email', email) : await this.userBySignInName(identifier);
    await this.limitAccount('authenticate', user, identifier.includes('@') ? 'email' : 'username', identifier);
    // Unknown user and wrong password answer alike, after the same bcrypt work (dummy hash).
    const ok = await this.d.passwords.verify(password as string, user?.passwordHash);
    if (!user || !ok || !user.active) throw new UnauthorizedError('invalid credentials');
    if (user.lastLoginProvider !== 'local') await this.d.store.updateUser(user.id, { last_login_provider: 'local' }, self(user.id));
    const pair = await this.pair(user.id, 'local', user.passwordHash as string); // ok: a hash was there
    return { data: { user: { email: user.email, username: user.username, roles: await this.d.store.rolesOf(user.id) }, ...pair } };
  }

  async refresh(raw: unknown): Promise<Record<string, unknown>> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const token = check.string(body, 'refreshToken', { required: true, max: 200 });
    check.done('invalid refresh request');
    const s = await this.d.sessions.refresh(token as string);
    return { accessToken: this.d.tokens.sign({ userId: s.userId, sessionId: s.sessionId }), refreshToken: s.refreshToken };
  }

  async initiateForgotPassword(raw: unknown): Promise<Record<string, unknown>> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const email = check.string(body, 'email', { max: 255 });
    const username = check.string(body, 'username', { max: 255 });
    if (email === undefined && username === undefined) check.fail('email', 'email or username is required');
    check.done('invalid request');
    const byEmail = email !== undefined ? await this.d.store.userBy('email', email) : undefined;
    const byName = username !== undefined ? await this.d.store.userBy('username', username) : undefined;
    const user = email !== undefined && username !== undefined ? (byEmail && byName && byEmail.id === byName.id ? byEmail : undefined) : (byEmail ?? byName);
    await this.limitAccount('forgot-password', user ?? byEmail ?? byName, email !== undefined ? 'email' : 'username', email ?? (username as string));
    if (user && user.active) {
      const ttl = this.iam.forgotPasswordExpirySeconds;
      this.afterAnswer(async () => {
        const token = await this.d.codes.issue(user.id, 'reset', 'email', randomBytes(8).toString('hex'), ttl);
        await this.d.delivery.mail(user.email, 'Password reset', `Your password reset token is:\n\n${token}\n\nIt expires in ${minutes(ttl)}. If you did not ask for it, ignore this message.`);
      });
    }
    // The same status and shape whether or not the account exists (no enumeration).
    return { status: 'success', message: SAME_ANSWER_RESET, data: { user: { email: email ?? null, username: username ?? null } } };
  }

  async confirmForgotPassword(raw: unknown): Promise<Record<string, unknown>> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const email = check.string(body, 'email', { max: 255 });
    const username = check.string(body, 'username', { max: 255 });
    const token = check.string(body, 'verificationToken', { required: true, max: 200 });
    const password = check.string(body, 'password', { required: true });
    this.checkPassword(check, 'password', password);
    check.done('invalid password reset');
    const invalid = new BadRequestError('invalid or expired reset token', { errorCode: 'INVALID_RESET_TOKEN' });
    let user: UserRow | undefined;
    // The token is spent only by a request that names its account rightly (a typo leaves it usable);
    // each use counts against the account the token was issued to.
    const code = await this.d.codes.consumeToken('reset', token as string, async (userId) => {
      await this.d.limiter.checkAccount('forgot-password', `user:${userId}`);
      user = await this.d.store.userById(userId);
      // An inactive account gets no reset (initiate sends none): a password set now would await its reactivation.
      return user !== undefined && user.active && (email === undefined || normalize(email) === normalize(user.email)) && (username === undefined || normalize(username) === normalize(user.username));
    });
    if (!code || !user) throw invalid;
    // The token reached the account's mailbox: the address is proven (a later OTP sign-in keeps this password).
    await this.d.store.updateUser(user.id, { password: await this.d.passwords.hash(password as string), force_password_change: false, email_verified: true }, self(user.id));
    await this.d.codes.voidAll(user.id, 'reset');
    await this.d.sessions.revokeAll(user.id, 'password-reset', self(user.id));
    return { status: 'success', message: 'The password has been reset; sign in with the new password.', error: '', errorCode: '', data: {} };
  }

  async changePassword(actor: Actor, raw: unknown): Promise<Record<string, unknown>> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const id = body.id;
    if (id !== undefined && id !== null && (typeof id !== 'number' || !Number.isSafeInteger(id))) check.fail('id', 'must be an integer');
    const email = check.string(body, 'email', { max: 255 });
    const current = check.string(body, 'currentPassword', { required: true, max: 1024 });
    const next = check.string(body, 'newPassword', { required: true });
    this.checkPassword(check, 'newPassword', next);
    check.done('invalid password change');
    // CONTRACT: always the bearer's own account; naming another one is refused.
    if ((typeof id === 'number' && id !== actor.id) || (email !== undefined && normalize(email) !== normalize(actor.email))) {
      throw new ForbiddenError('a password can only be changed for your own account');
    }
    await this.d.limiter.check('authenticate', `user:${actor.id}`, `user:${actor.id}`);
    const user = await this.d.store.userById(actor.id);
    if (!user) throw new UnauthorizedError('the account no longer exists');
    if (!(await this.d.passwords.verify(current as string, user.passwordHash))) throw new ValidationError('invalid password change', { currentPassword: ['is not the current password'] });
    await this.d.store.updateUser(user.id, { password: await this.d.passwords.hash(next as string), force_password_change: false }, eventActor(actor));
    await this.d.sessions.revokeAll(user.id, 'password-change', eventActor(actor));
    return { message: 'The password has been changed; every session has ended, sign in again.' };
  }

  me(actor: Actor, accessToken: string): Record<string, unknown> {
    return { user: { email: actor.email, username: actor.username, roles: [...actor.roles] }, accessToken, refreshToken: null };
  }

  /**
   * After a record write to a user (PATCH/PUT /api/user/:id) succeeded: a deactivation, or a new (or
   * cleared) password, ends every session of that user, as change-password and reset do. Otherwise a
   * deactivated user's tokens would work again on reactivation, and an admin resetting a stolen
   * account's password would leave the thief signed in.
   * A write that makes a pending OTP registration an account (activates it, sets a password, marks an
   * address verified) ends its pending state: the account is the admin's to run from then on, never
   * replaced by a new registration (unfinishedRegistration), and its registrant's codes no longer decide
   * whether it is active (verified). Other writes (a name corrected) leave the registration running. The
   * column is private (no answer shows it): no event of its own.
   */
  async afterUserWrite(userId: number, before: UserRow, by: EventActor | null): Promise<void> {
    const after = await this.d.store.userById(userId);
    if (!after) return;
    const turnedOn = (flag: 'active' | 'emailVerified' | 'mobileVerified'): boolean => after[flag] && !before[flag];
    if (after.pendingVerification !== null && (turnedOn('active') || turnedOn('emailVerified') || turnedOn('mobileVerified') || (after.passwordHash !== null && after.passwordHash !== before.passwordHash))) {
      await this.d.store.db(this.d.store.users).where('id', userId).update({ pending_verification: null });
    }
    // A code or reset token went to an address as it was when sent: once the address changes, the old
    // mailbox (or number) no longer speaks for the account, so what it holds neither signs in, resets the
    // password, nor proves the new address. A deactivation ends the pending resets and sign-ins too: a
    // password set while inactive would await whoever reactivates the account.
    if (normalize(after.email) !== normalize(before.email)) await this.d.codes.voidSentTo(userId, 'email');
    if (normalizeMobile(after.mobile ?? '') !== normalizeMobile(before.mobile ?? '')) await this.d.codes.voidSentTo(userId, 'mobile');
    if (before.active && !after.active) for (const purpose of ['reset', 'login'] as const) await this.d.codes.voidAll(userId, purpose);
    if (!after.active) await this.d.sessions.revokeAll(userId, 'deactivated', by);
    else if (after.passwordHash !== before.passwordHash) await this.d.sessions.revokeAll(userId, 'password-set', by);
  }

  async logout(raw: unknown): Promise<Record<string, unknown>> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const token = check.string(body, 'refreshToken', { required: true, max: 200 });
    const allDevices = check.boolean(body, 'allDevices') ?? false;
    check.done('invalid logout request');
    const s = await this.d.sessions.sessionOf(token as string);
    // the refresh token is the owner's: the owner signs out
    if (allDevices) await this.d.sessions.revokeAll(s.userId, 'logout-all', self(s.userId));
    else await this.d.sessions.revoke([s.sessionId], 'logout', self(s.userId));
    return { message: allDevices ? 'Signed out on every device.' : 'Signed out.' };
  }

  // ---- 4.2 OTP flow ----

  private requirePasswordLess(): void {
    if (!this.iam.passwordLess) throw new ForbiddenError('passwordless registration and login are disabled');
  }

  private async issueAndSend(user: UserRow, purpose: Purpose, channels: readonly Source[], batch: string): Promise<Promise<void>[]> {
    const ttl = this.iam.otpExpirySeconds;
    const sends: Promise<void>[] = [];
    for (const ch of channels) {
      const code = await this.d.codes.issue(user.id, purpose, ch, batch, ttl);
      const what = purpose === 'register' ? 'verification' : 'sign-in';
      sends.push(this.send(ch, user, `Your ${what} code`, `Your ${what} code is ${code}. It expires in ${minutes(ttl)}.`));
    }
    return sends;
  }

  /**
   * A source is proven. While nothing of the account was ever proven, a password on it was set by
   * whoever registered it (public password registration checks no address), who may not be the owner
   * proving the address now: that password and every session go. Once anything is proven (an OTP, a
   * reset by the mailed token) or asserted (CLI-created users), a password was set by the owner and
   * stays. The account activates once nothing is pending.
   */
  private async verified(user: UserRow, channel: Source): Promise<{ active: boolean }> {
    // The first proof of an address on an account nothing was proven of: sessions opened before it were
    // opened by whoever registered it (public registration checks no address), so they end. The password
    // stays: it may be the owner's own, and an owner's password is never erased (issue 13 item 14);
    // someone who finds an account they did not register under their address resets it by forgot-password.
    if (!user.emailVerified && !user.mobileVerified) await this.d.sessions.revokeAll(user.id, 'first-verified-proof', self(user.id));
    // From the account as it is in the write's transaction: a proof of the other address confirmed at
    // the same moment is not lost.
    const active = await this.d.store.updateUserFrom(
      user.id,
      (now) => {
        const pending = (now.pendingVerification ?? '').split(',').filter((s) => s !== '' && s !== channel);
        const changes: Record<string, unknown> = { [channel === 'email' ? 'email_verified' : 'mobile_verified']: true, pending_verification: pending.length ? pending.join(',') : null };
        if (now.pendingVerification !== null && pending.length === 0) changes.active = true;
        return { changes, result: now.pendingVerification !== null ? pending.length === 0 : now.active };
      },
      self(user.id),
    );
    return { active: active ?? false };
  }

  /**
   * Can the pending registration `u`, an address of which is proven, no longer be finished (a code of its
   * batch died, expired or was replaced unproven)? Not asked of others: unfinishedRegistration needs no answer.
   */
  private async registrationFailed(u: UserRow): Promise<boolean> {
    if (u.pendingVerification === null || !(u.emailVerified || u.mobileVerified)) return false;
    return (await this.d.codes.latestBatchState(u.id, 'register'))?.failed ?? true;
  }

  async otpRegisterInitiate(raw: unknown): Promise<Record<string, unknown>> {
    this.requirePasswordLess();
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const email = check.email(body, 'email', true);
    if (email) await this.d.limiter.checkAccount('otp', this.accountKey('email', email));
    const username = check.username(body, 'username', true);
    const fullName = check.string(body, 'fullName', { max: 255 });
    const sources = this.sources(check, body, this.iam.registrationValidateWhat);
    const mobile = check.mobile(body, 'mobile', sources.includes('mobile'));
    const payload = this.customPayload(check, body.customPayload);
    check.done('invalid registration');
    // An unfinished registration holding these identifiers is replaced (deleted as DELETE /api/user/{id}
    // deletes, announced); any other account holding one is in use: a conflict.
    const holders: [string, UserRow | undefined][] = [
      ['email', await this.d.store.userBy('email', email as string)],
      ['username', await this.d.store.userBy('username', username as string)],
      ['mobile', mobile ? await this.d.store.userBy('mobile', mobile) : undefined],
    ];
    const inUse: string[] = [];
    const replace = new Map<number, { fields: string[]; failed: boolean }>();
    for (const [field, h] of holders) {
      if (!h) continue;
      const failed = await this.registrationFailed(h);
      if (unfinishedRegistration(h, failed)) replace.set(h.id, { fields: [...(replace.get(h.id)?.fields ?? []), field], failed });
      else inUse.push(field);
    }
    if (!inUse.length) {
      // Re-checked in the delete's transaction: one made into an account meanwhile is in use after all.
      for (const [id, r] of replace) if (!(await this.d.store.deleteUserIf(id, (u) => unfinishedRegistration(u, r.failed)))) inUse.push(...r.fields);
    }
    const sent = { message: `A verification code has been sent to your ${sources.join(' and ')}.` };
    if (inUse.length && this.iam.registrationRevealsTaken) throw new ConflictError(`${inUse.join(', ')} already taken`, { fields: Object.fromEntries(inUse.map((f) => [f, ['is already taken']])) });
    if (inUse.length) {
      // IAM_REGISTRATION_REVEALS_TAKEN=false: the caller gets the answer of a fresh registration; only the
      // addresses given learn why nothing follows (awaited like the codes, so both take about as long).
      await this.deliverOrFail(this.noticeTaken(inUse, sources, { email: email as string, mobile: mobile ?? null }));
      return sent;
    }
    const id = await this.d.store.createUser({ fullName: fullName ?? null, username: username as string, email: email as string, mobile: mobile ?? null, active: false, roles: [AUTHENTICATED], pendingVerification: sources.join(','), customPayload: payload });
    const user = (await this.d.store.userById(id)) as UserRow;
    await this.deliverOrFail(this.issueAndSend(user, 'register', sources, randomBytes(8).toString('hex')));
    return sent;
  }

  /** `customPayload` (spec 4.2): an object, stored with the user as sent; bounded, and free of NUL characters (PostgreSQL's jsonb refuses them). */
  private customPayload(check: FieldCheck, payload: unknown): Record<string, unknown> | null {
    if (payload === undefined || payload === null) return null;
    if (typeof payload !== 'object' || Array.isArray(payload)) {
      check.fail('customPayload', 'must be an object');
      return null;
    }
    const max = this.iam.customPayloadMaxBytes;
    if (Buffer.byteLength(JSON.stringify(payload), 'utf8') > max) check.fail('customPayload', `must be at most ${max} bytes as JSON (IAM_CUSTOM_PAYLOAD_MAX_BYTES)`);
    else if (holdsNul(payload)) check.fail('customPayload', 'must not contain NUL characters (\\u0000)');
    return payload as Record<string, unknown>;
  }

  private async deliverOrFail(sends: Promise<Promise<void>[]>): Promise<void> {
    try {
      await Promise.all(await sends);
    } catch (err) {
      this.d.log.error({ err }, 'identity: delivery failed');
      throw new ServiceUnavailableError('the verification code could not be sent; try again shortly');
    }
  }

  /**
   * What the addresses of a registration that cannot proceed are told instead of a code. A taken address
   * is told someone tried. Another address is told of a taken username (the registrant chose it), but
   * never which other address is taken: whoever controls this one need not control that one.
   */
  private async noticeTaken(inUse: readonly string[], sources: readonly Source[], to: { email: string; mobile: string | null }): Promise<Promise<void>[]> {
    const label: Record<string, string> = { email: 'e-mail address', mobile: 'mobile number' };
    return sources.map((ch) => {
      const text = inUse.includes(ch)
        ? `Someone asked to register a new account with this ${label[ch]}, but an account already uses it. Sign in, or reset your password if you forgot it. If it was not you, ignore this message.`
        : inUse.includes('username')
          ? 'Your registration could not be completed: the username you gave is already in use. Start again with another.'
          : 'Your registration could not be completed. If you already have an account, sign in or reset your password; otherwise start again.';
      return this.send(ch, to, 'Your registration', text);
    });
  }

  /**
   * The account and code a confirmation names, its tries counted against the account whichever of its
   * identifiers named it (limitAccount), as the initiate counted (the route counted the address: admit).
   */
  private async confirmTarget(raw: unknown): Promise<{ user: UserRow | undefined; channel: Source | null; otp: string }> {
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const identifier = check.string(body, 'identifier', { required: true, max: 255 });
    const type = this.identifierType(check, body, identifier);
    const otp = check.string(body, 'otp', { required: true, max: 16 });
    check.done('invalid confirmation');
    const user = await this.d.store.userBy(type, identifier as string);
    await this.limitAccount('otp', user, type, identifier as string);
    if (!/^\d{6}$/.test(otp as string)) throw new UnauthorizedError(BAD_CODE);
    return { user, channel: type === 'username' ? null : type, otp: otp as string };
  }

  /**
   * After a right guess spent `code`: the batch it came with (one code per source of one initiate) is
   * proven only when a right guess spent every code of it. One that died (MAX_ATTEMPTS wrong tries),
   * expired or was replaced unproven fails the whole batch: this confirmation answers as a wrong code
   * does and proves nothing, and the caller starts again with a new initiate. Otherwise: the sources
   * whose codes still wait.
   */
  private async provenSoFar(code: CodeRow): Promise<BatchState> {
    const state = await this.d.codes.batchState(code.batch);
    if (state.failed) throw new UnauthorizedError(BAD_CODE);
    return state;
  }

  async otpRegisterConfirm(raw: unknown): Promise<Record<string, unknown>> {
    this.requirePasswordLess();
    const { user, channel, otp } = await this.confirmTarget(raw);
    const code = user ? await this.d.codes.consume(user.id, 'register', channel, otp) : null;
    if (!user || !code) throw new UnauthorizedError(BAD_CODE);
    await this.provenSoFar(code);
    const { active } = await this.verified(user, code.channel);
    return { active, message: `Your ${code.channel === 'email' ? 'e-mail address' : 'mobile number'} has been verified.` };
  }

  async otpLoginInitiate(raw: unknown): Promise<Record<string, unknown>> {
    this.requirePasswordLess();
    const body = bodyOf(raw);
    const check = new FieldCheck();
    const identifier = check.string(body, 'identifier', { required: true, max: 255 });
    const type = this.identifierType(check, body, identifier);
    const sources = this.sources(check, body, this.iam.loginValidateWhat);
    check.done('invalid sign-in request');
    const user = await this.d.store.userBy(type, identifier as string);
    await this.limitAccount('otp', user, type, identifier as string);
    if (user && user.active) {
      const reachable = sources.filter((s) => (s === 'email' ? user.email : user.mobile));
      if (reachable.length === sources.length) this.afterAnswer(async () => void (await Promise.all(await this.issueAndSend(user, 'login', sources, randomBytes(8).toString('hex')))));
    }
    // The same answer whether or not the account exists.
    return { message: SAME_ANSWER_LOGIN };
  }

  async otpLoginConfirm(raw: unknown): Promise<Record<string, unknown>> {
    this.requirePasswordLess();
    const { user, channel, otp } = await this.confirmTarget(raw);
    const code = user ? await this.d.codes.consume(user.id, 'login', channel, otp) : null;
    if (!user || !code || !user.active) throw new UnauthorizedError(BAD_CODE);
    const { open } = await this.provenSoFar(code);
    await this.verified(user, code.channel);
    if (open.length > 0) return { accessToken: null, refreshToken: null, message: `Confirm the code sent to your ${open.join(' and ')} too.`, pending: open };
    if (user.lastLoginProvider !== 'otp') await this.d.store.updateUser(user.id, { last_login_provider: 'otp' }, self(user.id));
    const pair = await this.pair(user.id, 'otp');
    const fresh = (await this.d.store.userById(user.id)) as UserRow;
    return { ...pair, user: { id: fresh.id, username: fresh.username, email: fresh.email, mobile: fresh.mobile, lastLoginProvider: 'otp', roles: await this.d.store.rolesOf(fresh.id) } };
  }
}
