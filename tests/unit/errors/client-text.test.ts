/** clip: client text quoted in an error is cut to 100 characters and an ellipsis, never inside a surrogate pair. */
import { expect } from 'chai';
import { CLIENT_TEXT_MAX, clip } from '../../../core/errors/client-text';

describe('clip (core/errors/client-text.ts)', () => {
  it('keeps text of at most 100 characters; cuts one more to 100 and …', () => {
    expect(CLIENT_TEXT_MAX).to.equal(100);
    expect(clip('')).to.equal('');
    expect(clip('a'.repeat(100))).to.equal('a'.repeat(100));
    expect(clip('a'.repeat(101))).to.equal(`${'a'.repeat(100)}…`);
    expect(clip('a'.repeat(30_000_000))).to.equal(`${'a'.repeat(100)}…`);
    expect(clip('abcdef', 3)).to.equal('abc…');
  });

  it('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(99)}😀${'b'.repeat(10)}`;
    const cut = clip(text);
    expect(cut).to.equal(`${'a'.repeat(99)}…`);
    expect(clip(`${'a'.repeat(98)}😀${'b'.repeat(10)}`)).to.equal(`${'a'.repeat(98)}😀…`);
  });
});
