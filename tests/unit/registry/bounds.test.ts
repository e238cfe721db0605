/** Bounds no value could meet, or no database could hold, stop the boot with one line (at the limit: boots). */
import { expect } from 'chai';
import { MAX_VARCHAR_LENGTH } from '../../../core/registry/bounds';
import { buildRegistry } from '../../../core/registry/build';
import { docs, failure } from '../../helpers/registry-docs';

const model = (attr: string): Record<string, string> => ({ gauge: `attributes:\n  x: ${attr}\n` });

const REFUSED: { name: string; attr: string; message: string }[] = [
  { name: 'min above max (one past)', attr: '{ type: integer, min: 6, max: 5 }', message: 'attributes.x.min: 6 is greater than max (5): no value fits' },
  { name: 'min above max on a decimal', attr: '{ type: decimal, min: 1.5, max: 1.25 }', message: 'attributes.x.min: 1.5 is greater than max (1.25): no value fits' },
  { name: 'min above max on a float', attr: '{ type: float, min: 0.5, max: -0.5 }', message: 'attributes.x.min: 0.5 is greater than max (-0.5): no value fits' },
  { name: 'min above what an integer column holds', attr: '{ type: integer, min: 2147483648 }', message: 'attributes.x.min: 2147483648 is greater than 2147483647, the largest value the integer column holds: no value fits' },
  { name: 'minLength above maxLength (one past)', attr: '{ type: string, minLength: 11, maxLength: 10 }', message: 'attributes.x.minLength: 11 is greater than maxLength (10): no value fits' },
  { name: 'minLength above maxLength on text', attr: '{ type: text, minLength: 3, maxLength: 2 }', message: 'attributes.x.minLength: 3 is greater than maxLength (2): no value fits' },
  { name: 'minLength above the default varchar length', attr: '{ type: string, minLength: 256 }', message: 'attributes.x.minLength: 256 is greater than 255, the length a string has without maxLength: no value fits' },
  { name: 'maxLength below a password\'s least length', attr: '{ type: password, maxLength: 7 }', message: 'attributes.x.maxLength: 7 is less than the least length of a password (8): no value fits' },
  { name: 'maxLength past the longest varchar (one past)', attr: `{ type: string, maxLength: ${MAX_VARCHAR_LENGTH + 1} }`, message: `attributes.x.maxLength: ${MAX_VARCHAR_LENGTH + 1} is more than ${MAX_VARCHAR_LENGTH}, the longest string every database stores (use type: text for longer text)` },
  { name: 'maxLength past the longest varchar on an email', attr: `{ type: email, maxLength: ${MAX_VARCHAR_LENGTH + 1} }`, message: `attributes.x.maxLength: ${MAX_VARCHAR_LENGTH + 1} is more than ${MAX_VARCHAR_LENGTH}, the longest email every database stores` },
];

const ACCEPTED: { name: string; attr: string }[] = [
  { name: 'min equal to max', attr: '{ type: integer, min: 5, max: 5 }' },
  { name: 'min equal to max on a decimal', attr: '{ type: decimal, min: 1.25, max: 1.25 }' },
  { name: 'min at the integer column limit', attr: '{ type: integer, min: 2147483647 }' },
  { name: 'minLength equal to maxLength', attr: '{ type: string, minLength: 10, maxLength: 10 }' },
  { name: 'minLength at the default varchar length', attr: '{ type: string, minLength: 255 }' },
  { name: 'a password of exactly its least length', attr: '{ type: password, maxLength: 8 }' },
  { name: 'maxLength at the longest varchar', attr: `{ type: string, maxLength: ${MAX_VARCHAR_LENGTH} }` },
  { name: 'a long maxLength on text', attr: `{ type: text, maxLength: ${MAX_VARCHAR_LENGTH + 1} }` },
];

describe('registry: bounds', () => {
  for (const c of REFUSED) {
    it(`refuses ${c.name} with one line`, () => {
      const msg = failure(model(c.attr));
      expect(msg).to.contain(`content-types/gauge.yaml: ${c.message}`);
      expect(msg).to.not.contain('\n');
    });
  }
  for (const c of ACCEPTED) {
    it(`takes ${c.name}`, () => {
      expect(buildRegistry(docs(model(c.attr))).get('gauge')?.attributes).to.have.length(1);
    });
  }
});
