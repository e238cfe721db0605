/**
 * A model's `pattern` runs on RE2 (re2js, pure JavaScript), never on the JavaScript RegExp engine:
 * RE2 matches in time linear in the value, so no value can make a pattern backtrack for minutes
 * (issue 13: `^(a+)+$` and 47 characters hung the process). RE2 has no backreferences and no
 * lookaround; such patterns are refused when the models are loaded (build.ts).
 */
import { RE2JS } from 're2js';

/** What ajv's `code.regExp` option takes (ajv's RegExpEngine). */
export interface LinearRegExpEngine {
  (pattern: string, flags: string): { test(s: string): boolean; toString(): string };
  /** For ajv's standalone code generation (unused here, required by the type). */
  code: string;
}

/**
 * JavaScript escapes RE2 spells differently: `\uXXXX` and `\u{X…}` → `\x{X…}`. Everything else is
 * copied as is; an escaped backslash (`\\u0041`) stays a literal backslash followed by `u0041`.
 */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== '\\' || i + 1 >= pattern.length) {
      out += c;
      continue;
    }
    const next = pattern[i + 1];
    if (next === 'u') {
      const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(i + 2));
      const four = /^[0-9A-Fa-f]{4}/.exec(pattern.slice(i + 2));
      if (braced) {
        out += `\\x{${braced[1]}}`;
        i += 1 + braced[0].length;
        continue;
      }
      if (four) {
        out += `\\x{${four[0]}}`;
        i += 1 + four[0].length;
        continue;
      }
    }
    out += c + next;
    i += 1;
  }
  return out;
}

/** Why `pattern` cannot be a model's pattern, or null when it can (valid JavaScript and RE2 both). */
export function patternProblem(pattern: string): string | null {
  try {
    // The OpenAPI document publishes the pattern as written: clients read it as an ECMAScript regex.
    new RegExp(pattern, 'u');
  } catch {
    return `not a valid regular expression: ${pattern}`;
  }
  try {
    RE2JS.compile(toRe2Syntax(pattern));
  } catch (e) {
    const reason = (e instanceof Error ? e.message : String(e)).replace(/^error parsing regexp: /, '');
    return `not supported by the linear-time pattern engine (RE2 syntax: no backreferences, no lookahead or lookbehind): ${reason}`;
  }
  return null;
}

/** `pattern` compiled for RE2; test() finds a match anywhere in the value, as RegExp.prototype.test does. */
export function compileLinearPattern(pattern: string): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(toRe2Syntax(pattern));
  return {
    test: (s: string) => re.test(s),
    // ajv caches compiled patterns by this text: it must differ per pattern.
    toString: () => `re2:${pattern}`,
  };
}

/** The ajv option: `new Ajv({ code: { regExp: linearRegExp } })`. */
export const linearRegExp: LinearRegExpEngine = Object.assign((pattern: string) => compileLinearPattern(pattern), {
  code: 'require("re2js").RE2JS.compile',
});
