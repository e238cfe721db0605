/** Access tokens: verified once, remembered until expiry; nothing else gets through the memory. */
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { AUDIENCE, ISSUER, Tokens } from '../../../core/plugins/users-permissions/tokens';

const SECRET = 'unit-secret-unit-secret-unit-secret-0123456789';

function refused(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).name;
  }
  throw new Error('accepted');
}

describe('identity: access tokens', () => {
  const realNow = Date.now;
  afterEach(() => {
    Date.now = realNow;
  });

  it('a token verifies to its claims, again and again', () => {
    const tokens = new Tokens(SECRET, 60);
    const token = tokens.sign({ userId: 7, sessionId: 11 });
    expect(tokens.verify(token)).to.deep.equal({ userId: 7, sessionId: 11 });
    expect(tokens.verify(token)).to.deep.equal({ userId: 7, sessionId: 11 });
  });

  it('a remembered token is refused once it has expired', () => {
    const tokens = new Tokens(SECRET, 60);
    const token = tokens.sign({ userId: 7, sessionId: 11 });
    tokens.verify(token);
    const later = realNow() + 61_000;
    Date.now = () => later;
    expect(refused(() => tokens.verify(token))).to.equal('UnauthorizedError');
  });

  it('a tampered copy of a remembered token, a foreign key and alg none are refused', () => {
    const tokens = new Tokens(SECRET, 60);
    const token = tokens.sign({ userId: 7, sessionId: 11 });
    tokens.verify(token);
    const [head, body, sig] = token.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: '1' })).toString('base64url');
    expect(refused(() => tokens.verify(`${head}.${forged}.${sig}`))).to.equal('UnauthorizedError');
    const foreign = jwt.sign({ sid: '11', typ: 'access' }, 'another-secret-another-secret-0123456789', { algorithm: 'HS256', issuer: ISSUER, audience: AUDIENCE, subject: '7', expiresIn: 60 });
    expect(refused(() => tokens.verify(foreign))).to.equal('UnauthorizedError');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${body}.`;
    expect(refused(() => tokens.verify(none))).to.equal('UnauthorizedError');
  });
});
