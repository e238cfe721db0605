/** LOCALES / DEFAULT_LOCALE (issue 14): documented defaults, validated at boot with one clear line. */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../config';

describe('config: LOCALES and DEFAULT_LOCALE', () => {
  const root = mkdtempSync(join(tmpdir(), 'ris-config-'));
  const base = { DATA_DIR: join(root, 'data') };
  const failure = (env: Record<string, string>): string => {
    try {
      loadConfig({ ...base, ...env }, root);
    } catch (e) {
      expect(e).to.be.instanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('defaults to LOCALES=en, DEFAULT_LOCALE=en', () => {
    expect(loadConfig({ ...base }, root).locales).to.deep.equal({ list: ['en'], defaultLocale: 'en' });
  });

  it('reads a list and its default', () => {
    expect(loadConfig({ ...base, LOCALES: 'en, fr,de,pt-BR', DEFAULT_LOCALE: 'fr' }, root).locales).to.deep.equal({ list: ['en', 'fr', 'de', 'pt-BR'], defaultLocale: 'fr' });
  });

  it('refuses a DEFAULT_LOCALE outside LOCALES, naming both', () => {
    expect(failure({ LOCALES: 'en,fr', DEFAULT_LOCALE: 'de' })).to.equal('DEFAULT_LOCALE: "de" is not one of LOCALES (en, fr)');
    expect(failure({ LOCALES: 'fr' })).to.equal('DEFAULT_LOCALE: "en" is not one of LOCALES (fr)');
  });

  it('refuses bad codes, `all`, repeats and an empty list', () => {
    expect(failure({ LOCALES: 'en,French' })).to.match(/^LOCALES: "French" is not a locale code/);
    expect(failure({ LOCALES: 'en,all' })).to.match(/^LOCALES: "all" is not a locale code/);
    expect(failure({ LOCALES: 'en,fr,en' })).to.equal('LOCALES: a locale is listed twice');
    expect(failure({ LOCALES: ' , ' })).to.match(/^LOCALES: at least one locale/);
  });
});
