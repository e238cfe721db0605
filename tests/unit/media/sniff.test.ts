/** The content sniffer, type rules and file-name sanitizer (issue 6, Limits). */
import { expect } from 'chai';
import { effectiveMime, isActiveContent, isAllowed, normalizeMime, sanitizeFileName } from '../../../core/media/mime';
import { sniffType } from '../../../core/media/sniff';
import { isStorageKey, newStorageKey } from '../../../core/media/storage';

const b = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const s = (text: string): Uint8Array => Buffer.from(text);

describe('media: sniffType', () => {
  const cases: { name: string; input: Uint8Array; expected: string }[] = [
    { name: 'png', input: b(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0), expected: 'image/png' },
    { name: 'jpeg', input: b(0xff, 0xd8, 0xff, 0xe0, 0, 0x10), expected: 'image/jpeg' },
    { name: 'gif89a', input: s('GIF89a\x01\x00'), expected: 'image/gif' },
    { name: 'gif87a', input: s('GIF87a'), expected: 'image/gif' },
    { name: 'webp', input: Buffer.concat([s('RIFF'), b(1, 2, 3, 4), s('WEBPVP8 ')]), expected: 'image/webp' },
    { name: 'RIFF but not webp (wav)', input: Buffer.concat([s('RIFF'), b(1, 2, 3, 4), s('WAVEfmt '), b(0, 0, 0)]), expected: 'application/octet-stream' },
    { name: 'pdf', input: s('%PDF-1.7\n'), expected: 'application/pdf' },
    { name: 'zip', input: b(0x50, 0x4b, 0x03, 0x04, 0x14, 0), expected: 'application/zip' },
    { name: 'utf-8 text', input: s('Grüße, 世界\nline two\t'), expected: 'text/plain' },
    { name: 'empty', input: b(), expected: 'text/plain' },
    { name: 'utf-8 cut at the end of the sample', input: Buffer.concat([s('abc'), b(0xe4, 0xb8)]), expected: 'text/plain' },
    { name: 'html', input: s('  <!DOCTYPE html><html></html>'), expected: 'text/html' },
    { name: 'svg', input: s('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), expected: 'image/svg+xml' },
    { name: 'xml', input: s('<?xml version="1.0"?><a/>'), expected: 'application/xml' },
    { name: 'binary with NUL', input: b(0x01, 0x00, 0x02, 0x03), expected: 'application/octet-stream' },
    { name: 'invalid utf-8', input: b(0x61, 0xff, 0xfe, 0x61), expected: 'application/octet-stream' },
  ];
  for (const c of cases) it(c.name, () => expect(sniffType(c.input)).to.equal(c.expected));
});

describe('media: type rules', () => {
  it('trusts the bytes over the declared type, and the declared type only where bytes cannot tell', () => {
    expect(effectiveMime('application/pdf', 'image/png')).to.equal('application/pdf');
    expect(effectiveMime('text/plain', 'image/png')).to.equal('text/plain');
    expect(effectiveMime('text/plain', 'text/csv')).to.equal('text/csv');
    expect(effectiveMime('application/zip', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).to.match(/openxml/);
    expect(effectiveMime('application/zip', 'image/png')).to.equal('application/zip');
    expect(effectiveMime('application/octet-stream', 'image/png')).to.equal('application/octet-stream');
  });
  it('matches allowedTypes patterns', () => {
    expect(isAllowed('image/png', ['image/*'])).to.equal(true);
    expect(isAllowed('application/pdf', ['image/*'])).to.equal(false);
    expect(isAllowed('application/pdf', ['image/*', 'application/pdf'])).to.equal(true);
    expect(isAllowed('anything/else', [])).to.equal(true);
  });
  it('normalizes declared types and names active content', () => {
    expect(normalizeMime('Image/PNG; charset=x')).to.equal('image/png');
    expect(normalizeMime('not a type')).to.equal(null);
    for (const t of ['text/html', 'image/svg+xml', 'application/xml', 'text/javascript']) expect(isActiveContent(t), t).to.equal(true);
    for (const t of ['image/png', 'text/plain', 'application/pdf']) expect(isActiveContent(t), t).to.equal(false);
  });
});

describe('media: sanitizeFileName and storage keys', () => {
  const cases: [string | null, string][] = [
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['report\u0000\u001b[31m.pdf', 'report[31m.pdf'],
    ['evil\u202egnp.exe', 'evilgnp.exe'],
    ['..', 'file'],
    ['', 'file'],
    [null, 'file'],
    ['.htaccess', 'htaccess'],
    ['Zeugnis Müller.pdf', 'Zeugnis Müller.pdf'],
  ];
  for (const [input, expected] of cases) it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => expect(sanitizeFileName(input)).to.equal(expected));
  it('keys are random, sharded and refuse anything else', () => {
    const k = newStorageKey('png');
    expect(isStorageKey(k)).to.equal(true);
    expect(newStorageKey('png')).to.not.equal(k);
    for (const bad of ['../etc/passwd', 'ab/../../x.png', '/etc/passwd', `${k}/..`, k.toUpperCase(), `${k}\u0000`]) expect(isStorageKey(bad), bad).to.equal(false);
  });
});
