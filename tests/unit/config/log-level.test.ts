/** LOG_LEVEL is validated with the other settings: a wrong name is one clear line, not a logger's stack. */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../config';
import { LOG_LEVELS } from '../../../config/parse';

describe('config: LOG_LEVEL', () => {
  const root = mkdtempSync(join(tmpdir(), 'ris-config-'));
  const base = { DATA_DIR: join(root, 'data') };

  it('defaults to info and accepts every pino level, in any case', () => {
    expect(loadConfig({ ...base }, root).logLevel).to.equal('info');
    for (const level of LOG_LEVELS) expect(loadConfig({ ...base, LOG_LEVEL: level }, root).logLevel).to.equal(level);
    expect(loadConfig({ ...base, LOG_LEVEL: ' DEBUG ' }, root).logLevel).to.equal('debug');
  });

  it('refuses another name with a ConfigError naming the setting and the allowed values', () => {
    for (const bad of ['verbose', 'warning', '30', '']) {
      let message = '';
      try {
        loadConfig({ ...base, LOG_LEVEL: bad }, root);
      } catch (e) {
        expect(e).to.be.instanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message, bad).to.equal(`LOG_LEVEL: "${bad}" is not a log level (one of: fatal, error, warn, info, debug, trace, silent)`);
    }
  });
});
