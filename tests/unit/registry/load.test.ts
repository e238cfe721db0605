/** A YAML syntax error stops the boot with the file, line and column of the problem. */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryError } from '../../../core/registry';
import { loadDocuments } from '../../../core/registry/load';

function loadFailure(text: string): string {
  const root = mkdtempSync(join(tmpdir(), 'ris-load-'));
  mkdirSync(join(root, 'models'));
  writeFileSync(join(root, 'models', 'broken.yaml'), text);
  try {
    loadDocuments([{ dir: join(root, 'models'), plugin: null }], root);
  } catch (e) {
    expect(e).to.be.instanceOf(RegistryError);
    return (e as Error).message;
  }
  throw new Error('expected a RegistryError');
}

const CASES: { name: string; text: string; message: string }[] = [
  { name: 'unclosed flow map', text: 'attributes:\n  x: { type: string\n  y: { type: integer }\n', message: 'models/broken.yaml: line 3, column 3: Flow map in block collection must be sufficiently indented and end with a }' },
  { name: 'tab indentation', text: 'attributes:\n\tx: { type: string }\n', message: 'models/broken.yaml: line 2, column 1: Tabs are not allowed as indentation' },
  { name: 'duplicate key', text: 'attributes:\n  x: { type: string }\n  x: { type: integer }\n', message: 'models/broken.yaml: line 3, column 3: Map keys must be unique' },
  { name: 'mapping in a compact mapping', text: 'attributes:\n  x: type: string\n', message: 'models/broken.yaml: line 2, column 6: Nested mappings are not allowed in compact mappings' },
];

describe('registry: YAML syntax errors', () => {
  for (const c of CASES) {
    it(`${c.name}: names the file, line and column`, () => {
      expect(loadFailure(c.text)).to.equal(c.message);
    });
  }

  it('a valid file loads', () => {
    const root = mkdtempSync(join(tmpdir(), 'ris-load-'));
    writeFileSync(join(root, 'fine.yaml'), 'attributes:\n  x: { type: string }\n');
    const [doc] = loadDocuments([{ dir: root, plugin: null }], root);
    expect(doc).to.deep.include({ file: 'fine.yaml', stem: 'fine', data: { attributes: { x: { type: 'string' } } } });
  });
});
