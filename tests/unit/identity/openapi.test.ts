/** The identity plugin documents every /api/iam route it serves. */
import { expect } from 'chai';
import { identityOpenApi } from '../../../core/plugins/users-permissions/openapi';

describe('identity: OpenAPI fragment', () => {
  it('has every endpoint of spec 4.1 and 4.2 and the API-token endpoints (issue 16), bearer ones marked', () => {
    const paths = identityOpenApi().paths as Record<string, Record<string, { security?: unknown }>>;
    expect(Object.keys(paths).sort()).to.deep.equal(
      ['register', 'authenticate', 'refresh-tokens', 'initiate/forgot-password', 'confirm/forgot-password', 'change-password', 'me', 'logout', 'otp/register/initiate', 'otp/register/confirm', 'otp/login/initiate', 'otp/login/confirm', 'api-tokens', 'api-tokens/{id}', 'api-tokens/{id}/regenerate'].map((p) => `/api/iam/${p}`).sort(),
    );
    expect(paths['/api/iam/me'].get.security).to.deep.equal([{ bearerAuth: [] }]);
    expect(paths['/api/iam/change-password'].post.security).to.deep.equal([{ bearerAuth: [] }]);
    expect(paths['/api/iam/authenticate'].post.security).to.deep.equal([]);
    for (const [path, method] of [['api-tokens', 'get'], ['api-tokens', 'post'], ['api-tokens/{id}', 'patch'], ['api-tokens/{id}', 'delete'], ['api-tokens/{id}/regenerate', 'post']]) {
      expect(paths[`/api/iam/${path}`][method].security, `${method} ${path}`).to.deep.equal([{ bearerAuth: [] }]);
    }
  });
});
