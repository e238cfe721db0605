/**
 * `$startsWith` as a range of code points, for MariaDB. Its LIKE 'abc%' on an indexed utf8mb4 column is
 * answered from an index range whose upper end is 'abc' followed by U+FFFF (the largest character of
 * the Basic Multilingual Plane), so a value whose next character lies past it ('abc😀', an emoji, a CJK
 * extension ideograph, a math letter) fell outside the range and was not found, while SQLite and
 * PostgreSQL found it. `column >= 'abc' AND column < 'abd'` is the same set in code-point order (the
 * binary collations order by it) and uses the same index.
 */

/** The smallest string above every string that starts with `prefix` (code-point order); null when none is (every character U+10FFFF). */
export function prefixUpperBound(prefix: string): string | null {
  const points = Array.from(prefix, (c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    let last = (points.pop() as number) + 1;
    if (last === 0xd800) last = 0xe000; // surrogates are not characters: the one after U+D7FF is U+E000
    if (last <= 0x10ffff) return String.fromCodePoint(...points, last);
  }
  return null;
}
