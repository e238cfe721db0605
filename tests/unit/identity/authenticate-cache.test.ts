/**
 * The actor cache: concurrent requests of one session share one lookup, and a lookup that a
 * revocation overtook is not cached. The session and user sources are in-memory stand-ins counting
 * their calls (the database behaviour itself is tested over HTTP in tests/api/iam).
 */
import { expect } from 'chai';
import { IdentityAuthenticator } from '../../../core/plugins/users-permissions/authenticate';
import type { Sessions } from '../../../core/plugins/users-permissions/sessions';
import type { IdentityStore } from '../../../core/plugins/users-permissions/store';
import { Tokens } from '../../../core/plugins/users-permissions/tokens';

const tick = () => new Promise((r) => setTimeout(r, 5));

function harness() {
  const calls = { live: 0, user: 0, roles: 0 };
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const sessions = {
    async live() {
      calls.live++;
      await gate;
      return 7;
    },
  } as unknown as Sessions;
  const store = {
    async userById() {
      calls.user++;
      return { id: 7, username: 'u', email: 'u@example.test', fullName: 'U', active: true };
    },
    async rolesOf() {
      calls.roles++;
      return ['authenticated'];
    },
  } as unknown as IdentityStore;
  const tokens = new Tokens('unit-secret-unit-secret-unit-secret-0123456789', 60);
  const auth = new IdentityAuthenticator(tokens, sessions, store);
  const hold = () => {
    gate = new Promise((r) => (release = r as () => void));
  };
  return { calls, auth, token: tokens.sign({ userId: 7, sessionId: 3 }), hold, release: () => release() };
}

describe('identity: actor cache', () => {
  it('fifty concurrent requests of one session make one lookup', async () => {
    const h = harness();
    h.hold();
    const pending = Array.from({ length: 50 }, () => h.auth.actorOf(h.token));
    await tick();
    h.release();
    const actors = await Promise.all(pending);
    expect(actors.every((a) => a.id === 7)).to.equal(true);
    expect(h.calls).to.deep.equal({ live: 1, user: 1, roles: 1 });
    await h.auth.actorOf(h.token);
    expect(h.calls.live).to.equal(1); // cached now
  });

  it('a lookup overtaken by a revocation is answered but not cached, and later requests look up afresh', async () => {
    const h = harness();
    h.hold();
    const first = h.auth.actorOf(h.token);
    await tick();
    h.auth.forget([3], null);
    const second = h.auth.actorOf(h.token); // begun after the revocation: its own lookup
    h.release();
    await Promise.all([first, second]);
    expect(h.calls.live).to.equal(2);
    await h.auth.actorOf(h.token);
    expect(h.calls.live).to.equal(2); // the second lookup, begun after forget, was cached
  });
});
