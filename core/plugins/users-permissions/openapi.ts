/** The /api/iam/* routes for /docs (an OpenAPI 3.1 fragment the core merges; spec 4.1, 4.2). */
import { OPENAPI_REFS, type OpenApiFragment } from '../../plugin-api';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties, ...(required.length && { required }) });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const roles: Schema = { type: 'array', items: str };
const sources: Schema = { type: 'array', items: { enum: ['email', 'mobile'] } };
const idType: Schema = { enum: ['email', 'mobile', 'username'] };
const ERROR_RESPONSES: Record<number, string> = {
  400: OPENAPI_REFS.responses.badRequest,
  401: OPENAPI_REFS.responses.unauthorized,
  403: OPENAPI_REFS.responses.forbidden,
  409: OPENAPI_REFS.responses.conflict,
  413: OPENAPI_REFS.responses.payloadTooLarge,
  415: OPENAPI_REFS.responses.unsupportedMediaType,
  422: OPENAPI_REFS.responses.validationFailed,
  429: OPENAPI_REFS.responses.tooManyRequests,
};

function op(operationId: string, summary: string, body: Schema | null, answer: Schema, opts: { bearer?: boolean; errors?: number[] } = {}): Record<string, unknown> {
  const responses: Record<string, unknown> = { '200': { description: 'success', content: { 'application/json': { schema: answer } } } };
  for (const code of [400, 413, 415, ...(opts.errors ?? [422, 429])]) responses[String(code)] = { $ref: ERROR_RESPONSES[code] };
  responses.default = { $ref: OPENAPI_REFS.responses.error };
  return {
    operationId,
    tags: ['identity'],
    summary,
    security: opts.bearer ? [{ [OPENAPI_REFS.bearerAuth]: [] }] : [],
    ...(body && { requestBody: { required: true, content: { 'application/json': { schema: body } } } }),
    responses,
  };
}

const ERRORS_OF_ADMIN_CALLS = [401, 403];
/** An admin-only /api/iam/api-tokens operation (bearer: an admin's access token; an API token gets 403). */
function tokenOp(operationId: string, summary: string, body: Schema | null, answer: Schema, errors: number[]): Record<string, unknown> {
  const o = op(operationId, summary, body, obj({ data: answer }, ['data']), { bearer: true, errors: [...ERRORS_OF_ADMIN_CALLS, ...errors] });
  return { ...o, tags: ['api-tokens'] };
}
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const notFound = { '404': { $ref: OPENAPI_REFS.responses.notFound } };
const withId = (o: Record<string, unknown>): Record<string, unknown> => ({ ...o, parameters: [idParam], responses: { ...(o.responses as Record<string, unknown>), ...notFound } });

export function identityOpenApi(): OpenApiFragment {
  const pair = obj({ accessToken: str, refreshToken: str }, ['accessToken', 'refreshToken']);
  const sessionUser = obj({ email: str, username: str, roles });
  return {
    tags: [
      { name: 'identity', description: 'Registration, sign-in (password or one-time code), sessions' },
      { name: 'api-tokens', description: 'Long-lived tokens for servers and build pipelines (admins only). Send one as `Authorization: Bearer ris_…` on the record API; it cannot reach /api/iam.' },
    ],
    components: {
      schemas: {
        IamApiToken: obj(
          {
            id: { type: 'integer' },
            name: str,
            description: strOrNull,
            kind: { enum: ['read-only', 'full-access', 'custom'] },
            permissions: { type: 'array', items: str, description: 'kind custom: the `<model>.<action>` names it holds (empty for the other kinds)' },
            expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'null: never expires' },
            lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'written at most once a minute' },
            createdAt: { type: 'string', format: 'date-time' },
            updatedAt: { type: 'string', format: 'date-time' },
          },
          ['id', 'name', 'description', 'kind', 'permissions', 'expiresAt', 'lastUsedAt', 'createdAt', 'updatedAt'],
        ),
        IamApiTokenWithSecret: {
          allOf: [ref('IamApiToken'), obj({ secret: { type: 'string', pattern: '^ris_', description: 'Shown only in this answer: store it now. Stored by the service only as a keyed hash.' } }, ['secret'])],
        },
        IamUser: obj({ id: { type: 'integer' }, fullName: { type: ['string', 'null'] }, username: str, email: str, mobile: { type: ['string', 'null'] }, forcePasswordChange: { type: 'boolean' }, roles, createdAt: str, updatedAt: str }),
      },
    },
    paths: {
      '/api/iam/register': { post: op('iamRegister', 'Register (only with IAM_ALLOW_PUBLIC_REGISTRATION)', obj({ fullName: str, username: str, email: str, password: str, mobile: str, roles }, ['username', 'email', 'password']), ref('IamUser'), { errors: [403, 409, 422, 429] }) },
      '/api/iam/authenticate': { post: op('iamAuthenticate', 'Sign in with e-mail or username and password', obj({ email: str, username: str, password: str }, ['password']), obj({ data: obj({ user: sessionUser, accessToken: str, refreshToken: str }) }), { errors: [401, 422, 429] }) },
      '/api/iam/refresh-tokens': { post: op('iamRefreshTokens', 'Rotate a refresh token into a new pair', obj({ refreshToken: str }, ['refreshToken']), pair, { errors: [401, 422, 429] }) },
      '/api/iam/initiate/forgot-password': { post: op('iamInitiateForgotPassword', 'Mail a reset token (same answer whether or not the account exists)', obj({ email: str, username: str }), obj({ status: str, message: str, data: obj({ user: obj({ email: { type: ['string', 'null'] }, username: { type: ['string', 'null'] } }) }) })) },
      '/api/iam/confirm/forgot-password': { post: op('iamConfirmForgotPassword', 'Set a new password with the mailed token', obj({ username: str, email: str, verificationToken: str, password: str }, ['verificationToken', 'password']), obj({ status: str, message: str, error: str, errorCode: str, data: obj({}) })) },
      '/api/iam/change-password': { post: op('iamChangePassword', "Change the caller's own password (ends every session)", obj({ id: { type: 'integer' }, email: str, currentPassword: str, newPassword: str }, ['currentPassword', 'newPassword']), obj({ message: str }), { bearer: true, errors: [401, 403, 422, 429] }) },
      '/api/iam/me': { get: op('iamMe', 'The current user', null, obj({ user: sessionUser, accessToken: str, refreshToken: { type: 'null' } }), { bearer: true, errors: [401] }) },
      '/api/iam/api-tokens': {
        get: tokenOp('iamApiTokensList', 'List API tokens (never their secrets)', null, { type: 'array', items: ref('IamApiToken') }, []),
        post: tokenOp(
          'iamApiTokensCreate',
          'Create an API token: read-only (find + findOne on every model), full-access (every permission) or custom (the listed permissions); the secret is shown only here',
          obj({ name: str, description: strOrNull, kind: { enum: ['read-only', 'full-access', 'custom'] }, permissions: { type: 'array', items: str }, lifetimeDays: { enum: [7, 30, 90, null] } }, ['name', 'kind']),
          ref('IamApiTokenWithSecret'),
          [409, 422],
        ),
      },
      '/api/iam/api-tokens/{id}': {
        patch: withId(tokenOp('iamApiTokensUpdate', 'Rename an API token or change its description', obj({ name: str, description: strOrNull }), ref('IamApiToken'), [409, 422])),
        delete: withId(tokenOp('iamApiTokensRevoke', 'Revoke (delete) an API token: it answers 401 from then on', null, ref('IamApiToken'), [])),
      },
      '/api/iam/api-tokens/{id}/regenerate': {
        post: withId(tokenOp('iamApiTokensRegenerate', 'A new secret for an API token (shown only here); the old one answers 401 from then on', null, ref('IamApiTokenWithSecret'), [])),
      },
      '/api/iam/logout': { post: op('iamLogout', 'End the session (or every session with allDevices)', obj({ refreshToken: str, allDevices: { type: 'boolean' } }, ['refreshToken']), obj({ message: str }), { errors: [401, 422, 429] }) },
      '/api/iam/otp/register/initiate': { post: op('iamOtpRegisterInitiate', 'Start a passwordless registration: a code per validation source', obj({ username: str, email: str, mobile: str, fullName: str, validationSources: sources, customPayload: { type: 'object' } }, ['username', 'email']), obj({ message: str }), { errors: [403, 409, 422, 429] }) },
      '/api/iam/otp/register/confirm': { post: op('iamOtpRegisterConfirm', 'Confirm a registration code', obj({ type: idType, identifier: str, otp: str }, ['identifier', 'otp']), obj({ active: { type: 'boolean' }, message: str }), { errors: [401, 403, 422, 429] }) },
      '/api/iam/otp/login/initiate': { post: op('iamOtpLoginInitiate', 'Send a sign-in code (same answer whether or not the account exists)', obj({ identifier: str, type: idType, validationSources: sources }, ['identifier']), obj({ message: str }), { errors: [403, 422, 429] }) },
      '/api/iam/otp/login/confirm': { post: op('iamOtpLoginConfirm', 'Confirm a sign-in code: tokens (null, with `pending` sources, while codes sent to other sources are still unconfirmed)', obj({ type: idType, identifier: str, otp: str }, ['identifier', 'otp']), obj({ accessToken: strOrNull, refreshToken: strOrNull, user: obj({ id: { type: 'integer' }, username: str, email: str, mobile: { type: ['string', 'null'] }, lastLoginProvider: { const: 'otp' }, roles }), message: str, pending: sources }), { errors: [401, 403, 422, 429] }) },
    },
  };
}
