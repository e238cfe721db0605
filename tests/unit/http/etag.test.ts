/**
 * core/http/etag.ts: If-None-Match against a strong tag (RFC 9110 §13.1.2, weak comparison). A header
 * with any malformed member never matches (README: a malformed header never yields 304).
 */
import { expect } from 'chai';
import { ifNoneMatchHits } from '../../../core/http/etag';

const TAG = '"AbC-123_xyz"';

describe('If-None-Match', () => {
  const cases: [string, string | undefined, boolean][] = [
    ['absent', undefined, false],
    ['empty', '', false],
    ['the tag', TAG, true],
    ['any (*)', '*', true],
    ['the weak form', `W/${TAG}`, true],
    ['in a list', `"old", ${TAG} , W/"x"`, true],
    ['empty members around it', `, ,${TAG}, ,`, true],
    ['a comma inside a tag', `"a,b", ${TAG}`, true],
    ['another tag', '"old"', false],
    ['the tag unquoted', TAG.slice(1, -1), false],
    ['a malformed member before it', `garbage, ${TAG}`, false],
    ['a malformed member after it', `${TAG}, garbage`, false],
    ['an unterminated tag after it', `${TAG}, "open`, false],
    ['W/ alone after it', `${TAG}, W/`, false],
    ['two tags without a comma', `${TAG} ${TAG}`, false],
    ['* in a list', `${TAG}, *`, false],
    ['only commas', ', ,', false],
  ];
  for (const [name, header, hits] of cases) it(`${name}: ${hits ? '304' : '200'}`, () => expect(ifNoneMatchHits(header, TAG)).to.equal(hits));
});
