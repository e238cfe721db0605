/** Loaded by mocha before the specs (see .mocharc.yml): resolves the dialect list once, early. */
import { DIALECTS } from './dialects';

console.log(`test databases: ${DIALECTS.join(', ')}`);
