/**
 * Issue 7 in a real browser: Chromium (Debian's, driven by playwright-core) opens /docs, authorizes
 * with a bearer token, runs "try it out" on GET /api/fee-type and sees 200 with the seeded records.
 * SQLite only: the page does not depend on the database. A missing Chromium fails the test (never a skip).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { bearerTokenFor } from '../helpers/auth-token';
import { startTestApp, type TestApp } from '../helpers/test-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const OP = '#operations-fee-type-findFeeType';

describe('browser: /docs in Chromium: authorize, try it out on GET /api/fee-type [sqlite]', function () {
  this.timeout(60_000);
  let app: TestApp;
  let context: BrowserContext | null = null;
  let profile: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get update && apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH. This test fails rather than skips.`);
    }
    app = await startTestApp('sqlite');
    const inst = await app.http.post('/api/institute', { name: 'Browser High', code: 'BRW' });
    for (const feeType of ['Browser tuition', 'Browser library']) {
      expect((await app.http.post('/api/fee-type', { feeType, instituteId: inst.body.data.id })).status).to.equal(200);
    }
    profile = mkdtempSync(join(tmpdir(), 'ris-chromium-profile-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 1400 } });
  });

  after(async () => {
    await context?.close();
    await app?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('authorizes with a bearer token and runs try-it-out: 200 with the records; nothing is fetched from another origin', async () => {
    if (!context) throw new Error('no browser');
    const token = await bearerTokenFor(app);
    const page = context.pages()[0] ?? (await context.newPage());
    const foreign: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(app.url) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));

    await page.goto(`${app.url}/docs`);
    await page.waitForSelector(OP, { timeout: 20_000 });

    await page.click('button.authorize');
    await page.fill('.modal-ux-content input', token);
    await page.click('.modal-ux-content .auth-btn-wrapper button.authorize');
    await page.click('.modal-ux-content button.btn-done');

    await page.click(`${OP} .opblock-summary`);
    await page.click(`${OP} .try-out__btn`);
    const [request] = await Promise.all([
      page.waitForRequest((r) => new URL(r.url()).pathname === '/api/fee-type', { timeout: 20_000 }),
      page.click(`${OP} .execute`),
    ]);
    expect(request.headers().authorization).to.equal(`Bearer ${token}`);
    expect(new URL(request.url()).origin).to.equal(app.url);

    const status = page.locator(`${OP} .live-responses-table tbody .response .response-col_status`).first();
    await status.waitFor({ timeout: 20_000 });
    expect((await status.textContent())?.trim()).to.equal('200');
    const bodyText = (await page.locator(`${OP} .live-responses-table .response-col_description pre`).first().textContent()) ?? '';
    const body = JSON.parse(bodyText) as { records: { feeType: string }[]; meta: { totalRecords: number } };
    expect(body.records.map((r) => r.feeType).sort()).to.deep.equal(['Browser library', 'Browser tuition']);
    expect(body.meta.totalRecords).to.equal(2);

    const shots = mkdtempSync(join(tmpdir(), 'ris-docs-screenshot-'));
    const shot = join(shots, 'docs-try-it-out.png');
    await page.locator(OP).screenshot({ path: shot });
    console.log(`      screenshot: ${shot}`);

    expect(foreign, 'requests to other origins').to.deep.equal([]);
    expect(pageErrors, 'page errors').to.deep.equal([]);
  });
});
