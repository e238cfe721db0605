/** A bad content-type file stops the boot with one clear line: file, path inside it, problem. */
import { expect } from 'chai';
import { buildRegistry } from '../../../core/registry/build';
import { compileLinearPattern, toRe2Syntax } from '../../../core/registry/linear-pattern';
import { docs, failure } from '../../helpers/registry-docs';

const INSTITUTE = 'userKey: code\nattributes:\n  name: { type: string, required: true, unique: true }\n  code: { type: string, required: true, unique: true }\n';


const CASES: { name: string; files: Record<string, string>; message: string }[] = [
  {
    name: 'unknown relation target',
    files: { institute: INSTITUTE, 'fee-type': 'attributes:\n  institute: { type: relation, relation: manyToOne, target: institue }\n' },
    message: 'content-types/fee-type.yaml: attributes.institute.target: unknown model "institue"',
  },
  { name: 'unknown attribute type', files: { a: 'attributes:\n  x: { type: strin }\n' }, message: 'content-types/a.yaml: attributes.x.type: must be one of' },
  { name: 'unknown option', files: { a: 'attributes:\n  x: { type: string, requird: true }\n' }, message: 'content-types/a.yaml: attributes.x: unknown option "requird"' },
  { name: 'unknown model option', files: { a: 'softdelete: true\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: unknown option "softdelete"' },
  { name: 'no attributes', files: { a: 'displayName: A\n' }, message: "content-types/a.yaml: must have required property 'attributes'" },
  { name: 'enumeration without enum', files: { a: 'attributes:\n  x: { type: enumeration }\n' }, message: 'content-types/a.yaml: attributes.x.enum: required for type enumeration' },
  { name: 'option of another type', files: { a: 'attributes:\n  x: { type: boolean, target: b }\n' }, message: 'content-types/a.yaml: attributes.x.target: not allowed for type boolean' },
  // keyOf: a server-kept key of another attribute (its unique conflicts answer as that attribute's)
  { name: 'keyOf an unknown attribute', files: { a: 'attributes:\n  xKey: { type: string, unique: true, writable: false, keyOf: y }\n' }, message: 'content-types/a.yaml: attributes.xKey.keyOf: "y" is not another scalar attribute of this model' },
  { name: 'keyOf on a writable attribute', files: { a: 'attributes:\n  x: { type: string }\n  xKey: { type: string, unique: true, keyOf: x }\n' }, message: 'content-types/a.yaml: attributes.xKey.keyOf: only a unique attribute the server writes' },
  { name: 'keyOf on a media attribute', files: { a: 'attributes:\n  x: { type: string }\n  m: { type: media, keyOf: x }\n' }, message: 'content-types/a.yaml: attributes.m.keyOf: not allowed for type media' },
  { name: 'bad default', files: { a: 'attributes:\n  x: { type: integer, default: "ten" }\n' }, message: 'content-types/a.yaml: attributes.x.default: "ten" must be integer' },
  { name: 'bad pattern', files: { a: 'attributes:\n  x: { type: string, pattern: "[" }\n' }, message: 'content-types/a.yaml: attributes.x.pattern: not a valid regular expression' },
  // issue 13: patterns run on RE2 (linear time); what RE2 cannot run stops the boot, naming file and path.
  {
    name: 'backreference pattern',
    files: { x: "attributes:\n  code: { type: string, pattern: '^(a+)\\1$' }\n" },
    message: 'content-types/x.yaml: attributes.code.pattern: not supported by the linear-time pattern engine (RE2 syntax: no backreferences, no lookahead or lookbehind): invalid escape sequence: `\\1`',
  },
  {
    name: 'named backreference pattern',
    files: { x: "attributes:\n  code: { type: string, pattern: '^(?<c>a)\\k<c>$' }\n" },
    message: 'content-types/x.yaml: attributes.code.pattern: not supported by the linear-time pattern engine',
  },
  { name: 'lookahead pattern', files: { x: "attributes:\n  code: { type: string, pattern: '^(?=a)a+$' }\n" }, message: 'content-types/x.yaml: attributes.code.pattern: not supported by the linear-time pattern engine' },
  { name: 'lookbehind pattern', files: { x: "attributes:\n  code: { type: string, pattern: '(?<!a)b' }\n" }, message: 'content-types/x.yaml: attributes.code.pattern: not supported by the linear-time pattern engine' },
  { name: 'RE2-only syntax (not ECMAScript)', files: { x: "attributes:\n  code: { type: string, pattern: '(?i)abc' }\n" }, message: 'content-types/x.yaml: attributes.code.pattern: not a valid regular expression' },
  { name: 'a default outside the stored years', files: { a: "attributes:\n  d: { type: date, default: '0000-01-01' }\n" }, message: 'content-types/a.yaml: attributes.d.default: "0000-01-01" must be a date from 0001-01-01 to 9999-12-31' },
  {
    name: 'a default that does not match its pattern (checked by RE2)',
    files: { x: "attributes:\n  code: { type: string, pattern: '^(a+)+$', default: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' }\n" },
    message: 'content-types/x.yaml: attributes.code.default: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" must match pattern',
  },
  { name: 'system field name', files: { a: 'attributes:\n  createdAt: { type: string }\n' }, message: 'content-types/a.yaml: attributes.createdAt: "createdAt" is a system field name' },
  { name: 'attribute name not camelCase', files: { a: 'attributes:\n  Fee_Type: { type: string }\n' }, message: 'content-types/a.yaml: attributes: attribute name "Fee_Type" must be camelCase' },
  { name: 'bad model name', files: { A_b: 'attributes:\n  x: { type: string }\n' }, message: 'content-types/A_b.yaml: name: "A_b" must be lower-case words joined by hyphens' },
  {
    name: 'relation id field clash',
    files: { institute: INSTITUTE, b: 'attributes:\n  institute: { type: relation, relation: manyToOne, target: institute }\n  instituteId: { type: integer }\n' },
    message: 'content-types/b.yaml: attributes.instituteId: "instituteId" clashes with attribute "institute"',
  },
  { name: 'user key not unique', files: { a: 'userKey: x\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: userKey: "x" must be required and unique' },
  {
    name: 'oneToMany without mappedBy',
    files: { institute: INSTITUTE, b: 'attributes:\n  items: { type: relation, relation: oneToMany, target: institute }\n' },
    message: 'content-types/b.yaml: attributes.items.mappedBy: required',
  },
  {
    name: 'mappedBy names no relation back',
    files: { institute: INSTITUTE, b: 'attributes:\n  items: { type: relation, relation: oneToMany, target: institute, mappedBy: nope }\n' },
    message: 'content-types/b.yaml: attributes.items.mappedBy: model "institute" has no relation "nope" pointing back to "b"',
  },
  { name: 'duplicate table', files: { a: 'table: t\nattributes:\n  x: { type: string }\n', b: 'table: t\nattributes:\n  x: { type: string }\n' }, message: 'content-types/b.yaml: table: table "t" is already used by model "a"' },
  { name: 'index on unknown field', files: { a: 'attributes:\n  x: { type: string }\nindexes:\n  - { columns: [y] }\n' }, message: 'content-types/a.yaml: indexes.0.columns.0: "y" is not a column of this model' },
];

describe('registry: checked at boot', () => {
  for (const c of CASES) {
    it(`refuses ${c.name} with one line`, () => {
      const msg = failure(c.files);
      expect(msg).to.contain(c.message);
      expect(msg).to.not.contain('\n');
    });
  }

  it('builds the relation sides, user key fields and join tables', () => {
    const reg = buildRegistry(
      docs({
        institute: `${INSTITUTE}  fees: { type: relation, relation: oneToMany, target: fee, mappedBy: institute }\n`,
        fee: 'softDelete: true\nattributes:\n  institute: { type: relation, relation: manyToOne, target: institute, inversedBy: fees }\n  tags: { type: relation, relation: manyToMany, target: tag, inversedBy: fees }\n  secret: { type: password }\n',
        tag: 'attributes:\n  fees: { type: relation, relation: manyToMany, target: fee, mappedBy: tags }\n',
      }),
    );
    const fee = reg.get('fee');
    const rel = fee?.byName.get('institute');
    expect(rel).to.include({ kind: 'relation', owner: true, column: 'institute_id', idField: 'instituteId', userKeyField: 'instituteUserKey' });
    expect(fee?.byName.get('secret')).to.include({ private: true });
    const tags = fee?.byName.get('tags');
    expect(tags && tags.kind === 'relation' && tags.joinTable).to.deep.equal({ table: 'fee_tags_links', ownerColumn: 'fee_id', targetColumn: 'tag_id' });
    const inverse = reg.get('tag')?.byName.get('fees');
    expect(inverse && inverse.kind === 'relation' && inverse.joinTable).to.deep.equal({ table: 'fee_tags_links', ownerColumn: 'tag_id', targetColumn: 'fee_id' });
    expect(Object.isFrozen(reg.contentTypes)).to.equal(true);
  });

  it('reads keyOf: the attribute a server-kept key is derived from', () => {
    const reg = buildRegistry(docs({ a: 'attributes:\n  x: { type: string }\n  xKey: { type: string, unique: true, writable: false, keyOf: x }\n' }));
    expect(reg.get('a')?.byName.get('xKey')).to.include({ keyOf: 'x', unique: true, writable: false });
  });

  it('reads the model options internal and api (default: routes on, not internal)', () => {
    const reg = buildRegistry(docs({ a: 'internal: true\napi: false\nattributes:\n  x: { type: string }\n', b: 'attributes:\n  x: { type: string }\n' }));
    expect(reg.get('a')).to.include({ internal: true, api: false });
    expect(reg.get('b')).to.include({ internal: false, api: true });
    expect(failure({ a: 'api: "no"\nattributes:\n  x: { type: string }\n' })).to.contain('content-types/a.yaml: api: must be boolean');
  });
});

describe('registry: model patterns run on RE2 (linear time)', () => {
  it('answers an adversarial value for a backtracking-prone pattern at once', () => {
    const re = compileLinearPattern('^(a+)+$');
    const started = process.hrtime.bigint();
    expect(re.test(`${'a'.repeat(100_000)}!`)).to.equal(false);
    expect(re.test('a'.repeat(100_000))).to.equal(true);
    expect(Number(process.hrtime.bigint() - started) / 1e6).to.be.below(1000);
  });

  it('reads JavaScript \\u escapes; an escaped backslash stays a backslash', () => {
    expect(toRe2Syntax('^\\u0041\\u{1F600}$')).to.equal('^\\x{0041}\\x{1F600}$');
    expect(toRe2Syntax('^\\\\u0041$')).to.equal('^\\\\u0041$');
    expect(compileLinearPattern('^\\u0041+$').test('AAA')).to.equal(true);
    const reg = buildRegistry(docs({ a: "attributes:\n  x: { type: string, pattern: '^\\u0041+$', default: 'AA' }\n" }));
    expect(reg.get('a')?.byName.get('x')).to.include({ pattern: '^\\u0041+$' });
  });
});
