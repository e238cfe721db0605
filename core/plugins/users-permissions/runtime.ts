/** The identity plugin's parts, wired once per set of dependencies (one server or CLI run). */
import type { PluginDeps } from '../../plugin-api';
import { AccessRuleStore } from './access-rules';
import { ApiTokens } from './api-tokens';
import { IdentityAuthenticator } from './authenticate';
import { IdentityAuthorizer } from './authorize';
import { Codes } from './codes';
import { type Delivery, delivery } from './delivery';
import { Passwords } from './passwords';
import { memoryCounters, RateLimiter, redisCounters } from './rate-limit';
import { type RevocationBus, redisRevocationBus } from './revocation-bus';
import { IdentityService } from './service';
import { Sessions } from './sessions';
import { IdentityStore } from './store';
import { Tokens } from './tokens';

export interface Runtime {
  readonly store: IdentityStore;
  readonly passwords: Passwords;
  readonly sessions: Sessions;
  readonly tokens: Tokens;
  readonly apiTokens: ApiTokens;
  readonly accessRules: AccessRuleStore;
  readonly authenticator: IdentityAuthenticator;
  readonly authorizer: IdentityAuthorizer;
  readonly service: IdentityService;
  readonly delivery: Delivery;
  readonly limiter: RateLimiter;
  readonly bus: RevocationBus | null;
}

export function createRuntime(deps: PluginDeps): Runtime {
  const { config, log } = deps;
  const secret = config.iam.jwtSecret;
  if (!secret) throw new Error('users-permissions: IAM_JWT_SECRET is not set');
  if (config.iam.allowPublicRegistration && !config.iam.registrationRevealsTaken) {
    // Password registration answers the account itself (spec 4.1), so it cannot pretend a taken name is free.
    log.warn('IAM_REGISTRATION_REVEALS_TAKEN=false hides taken identifiers on OTP registration only: POST /api/iam/register still answers 409 for them');
  }
  const store = new IdentityStore(deps);
  const passwords = new Passwords(config.iam.bcryptCost);
  const sessions = new Sessions(store, config.iam);
  const tokens = new Tokens(secret, config.iam.accessTokenTtlSeconds);
  const apiTokens = new ApiTokens(store, secret, log);
  const authenticator = new IdentityAuthenticator(tokens, sessions, store, apiTokens);
  const accessRules = new AccessRuleStore(deps);
  const authorizer = new IdentityAuthorizer(store, apiTokens, accessRules);
  const forget = (ids: readonly number[], userId: number | null, apiTokenIds: readonly number[] = []): void => {
    authenticator.forget(ids, userId);
    if (apiTokenIds.length) apiTokens.forget(apiTokenIds);
  };
  const bus = config.redisUrl ? redisRevocationBus(config.redisUrl, config.redisNamespace, forget, log) : null;
  apiTokens.onChange = (apiTokenIds) => {
    apiTokens.forget(apiTokenIds);
    bus?.publish([], null, apiTokenIds);
  };
  sessions.onRevoke = (ids, userId) => {
    forget(ids, userId);
    bus?.publish(ids, userId);
  };
  // issue 15: accounts the record API creates or deletes are identity events too, in the same transaction.
  const events = deps.events;
  events?.onAppend(async (trx, appended) => {
    const derived = appended
      .filter((e) => e.model === 'user' && (e.type === 'record.create' || e.type === 'record.delete'))
      .map((e) => ({ type: e.type === 'record.create' ? ('user.create' as const) : ('user.delete' as const), model: 'user', recordId: e.recordId, actor: e.actor, record: e.record }));
    if (derived.length > 0) await events.append(trx, derived);
  });
  const codes = new Codes(store, secret);
  const mail = delivery(config.mail, log);
  const limiter = new RateLimiter(config.redisUrl ? redisCounters(config.redisUrl, config.redisNamespace, log) : memoryCounters(), config.iam.rateLimit);
  const service = new IdentityService({ config, log, store, sessions, tokens, passwords, codes, delivery: mail, limiter });
  return { store, passwords, sessions, tokens, apiTokens, accessRules, authenticator, authorizer, service, delivery: mail, limiter, bus };
}
