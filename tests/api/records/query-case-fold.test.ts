/**
 * Issue 13 item 15 (part): the case-insensitive operators answer alike on SQLite and PostgreSQL for
 * text beyond ASCII, over HTTP. Every write path (create, bulk create, PUT, PATCH, multipart, identity
 * plugin writes) keeps the hidden fold column current, and the column never reaches a client.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { pdf, sendForm } from '../../helpers/multipart';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });
const answers = new Map<string, Map<string, string[]>>();
/** The order text sorts in on both databases: by bytes. */
const byBytes = (list: readonly string[]): string[] => [...list].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

const QUERIES: readonly [string, Record<string, unknown>, string[]][] = [
  ['$eqi umlaut', { feeType: { $eqi: 'ärger' } }, ['ÄRGER']],
  ['$containsi umlaut', { feeType: { $containsi: 'ÄRG' } }, ['ÄRGER', 'Lärgebühr']],
  ['$eqi accent, NFC needle, NFD value', { feeType: { $eqi: 'ÉCOLE' } }, ['e\u0301cole', 'École']],
  ['$startsWithi accent', { feeType: { $startsWithi: 'éc' } }, ['e\u0301cole', 'École']],
  ['$eqi ß against SS', { feeType: { $eqi: 'STRASSE' } }, ['STRASSE', 'Straße']],
  ['$endsWithi ß', { feeType: { $endsWithi: 'sse' } }, ['STRASSE', 'Straße']],
  ['$containsi Greek sigma in every form', { feeType: { $containsi: 'ς' } }, ['ΟΔΟΣ', 'σοφία']],
  ['$eqi Cyrillic', { feeType: { $eqi: 'дом' } }, ['ДОМ', 'дом']],
  ['$nei Cyrillic', { feeType: { $nei: 'ДОМ' }, partPaymentAllowed: { $eq: 'true' } }, ['ÄRGER', 'École', 'ΟΔΟΣ']],
  ['$notContainsi', { feeType: { $notContainsi: 'o' }, latePaymentFeesType: { $null: 'true' } }, ['ÄRGER', 'Lärgebühr', 'STRASSE', 'Straße', 'σοφία', 'ДОМ', 'дом', 'ΟΔΟΣ']],
  ['$containsi with wildcards stays literal', { feeType: { $containsi: 'ü%_x' } }, ['Ü%_X']],
  ['$containsi % alone does not match everything', { feeType: { $containsi: 'ü%x' } }, []],
  ['enumeration $eqi', { latePaymentFeesType: { $eqi: 'FIXED' } }, ['e\u0301cole']],
  ['through a relation', { institute: { name: { $containsi: 'zürich' } } }, ['ΟΔΟΣ']],
];

const FEE_TYPES: readonly { feeType: string; partPaymentAllowed?: boolean; latePaymentFeesType?: string }[] = [
  { feeType: 'ÄRGER', partPaymentAllowed: true },
  { feeType: 'Lärgebühr' },
  { feeType: 'École', partPaymentAllowed: true },
  { feeType: 'e\u0301cole', latePaymentFeesType: 'fixed' },
  { feeType: 'Straße' },
  { feeType: 'STRASSE' },
  { feeType: 'σοφία' },
  { feeType: 'ДОМ' },
  { feeType: 'дом', partPaymentAllowed: true },
  { feeType: 'Ü%_X', latePaymentFeesType: 'percentage' },
];

for (const dialect of DIALECTS) {
  describe(`case-insensitive operators beyond ASCII over HTTP [${dialect}]`, () => {
    let app: TestApp;
    let instituteId: number;
    const mine = new Map<string, string[]>();
    answers.set(dialect, mine);
    const names = async (filters: Record<string, unknown>, model = 'fee-type', field = 'feeType'): Promise<string[]> => {
      const res = await app.http.get(`/api/${model}?${q({ filters, sort: [field], limit: 100 })}`);
      expect(res.status, res.text).to.equal(200);
      return (res.body.records as Record<string, string>[]).map((r) => r[field]);
    };

    before(async () => {
      app = await startTestApp(dialect);
      const inst = await app.http.post('/api/institute', { name: 'ETH Zürich', code: 'ETHZ' });
      expect(inst.status, inst.text).to.equal(200);
      instituteId = inst.body.data.id;
      for (const f of FEE_TYPES) expect((await app.http.post('/api/fee-type', f)).status).to.equal(200);
      expect((await app.http.post('/api/fee-type', { feeType: 'ΟΔΟΣ', partPaymentAllowed: true, instituteId })).status).to.equal(200);
    });
    after(async () => app?.close());

    for (const [name, filters, want] of QUERIES) {
      it(`${name}: ${JSON.stringify(filters)}`, async () => {
        const got = await names(filters);
        mine.set(name, got);
        expect(got).to.deep.equal(byBytes(want));
      });
    }

    it('every write path keeps the fold current: bulk create, PUT, PATCH, multipart create and update', async () => {
      const bulk = await app.http.post('/api/fee-type/bulk', [{ feeType: 'Ångström A' }, { feeType: 'ÅNGSTRÖM B' }]);
      expect(bulk.status, bulk.text).to.equal(200);
      expect(await names({ feeType: { $startsWithi: 'ångström' } })).to.deep.equal(byBytes(['Ångström A', 'ÅNGSTRÖM B']));

      const id = bulk.body.data[0].id;
      expect((await app.http.put(`/api/fee-type/${id}`, { feeType: 'ÇAĞRI' })).status).to.equal(200);
      expect(await names({ feeType: { $eqi: 'çağrı' } })).to.deep.equal(['ÇAĞRI']);
      expect(await names({ feeType: { $containsi: 'ångström a' } })).to.deep.equal([]);

      expect((await app.http.patch(`/api/fee-type/${id}`, { feeType: 'Øre' })).status).to.equal(200);
      expect(await names({ feeType: { $eqi: 'ØRE' } })).to.deep.equal(['Øre']);
      expect(await names({ feeType: { $eqi: 'çağrı' } })).to.deep.equal([]);
      // PATCH of another field keeps the fold
      expect((await app.http.patch(`/api/fee-type/${id}`, { partPaymentAllowed: true })).status).to.equal(200);
      expect(await names({ feeType: { $eqi: 'øre' } })).to.deep.equal(['Øre']);

      const url = (p: string) => `${app.url}${p}`;
      const token = app.admin?.accessToken ?? null;
      const made = await sendForm(url('/api/fee-type'), 'POST', { data: { feeType: 'Ÿacht' } }, [{ part: 'attachments', bytes: pdf(), type: 'application/pdf', name: 'a.pdf' }], app.fetch, token);
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect(await names({ feeType: { $eqi: 'ÿACHT' } })).to.deep.equal(['Ÿacht']);
      const changed = await sendForm(url(`/api/fee-type/${made.body.data.id}`), 'PUT', { data: { feeType: 'Ħotel' } }, [{ part: 'attachments', bytes: pdf('b'), type: 'application/pdf', name: 'b.pdf' }], app.fetch, token);
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
      expect(await names({ feeType: { $eqi: 'ħOTEL' } })).to.deep.equal(['Ħotel']);
      expect(await names({ feeType: { $eqi: 'ÿacht' } })).to.deep.equal([]);
    });

    it('users written by the identity plugin are found alike ($eqi on username and fullName, $containsi)', async () => {
      const u = await app.createUser({ username: 'juergen.x', fullName: 'Jürgen Straße' });
      expect(await names({ username: { $eqi: 'JUERGEN.X' } }, 'user', 'username')).to.deep.equal(['juergen.x']);
      expect(await names({ fullName: { $eqi: 'JÜRGEN STRASSE' } }, 'user', 'username')).to.deep.equal(['juergen.x']);
      expect(await names({ fullName: { $containsi: 'STRASSE' } }, 'user', 'username')).to.deep.equal(['juergen.x']);
      // an admin's PATCH of the user goes through the record service
      expect((await app.http.patch(`/api/user/${u.id}`, { fullName: 'Jürgen Ωmega' })).status).to.equal(200);
      expect(await names({ fullName: { $containsi: 'ωMEGA' } }, 'user', 'username')).to.deep.equal(['juergen.x']);
      expect(await names({ fullName: { $containsi: 'strasse' } }, 'user', 'username')).to.deep.equal([]);
    });

    it('the fold column never reaches a client and cannot be named', async () => {
      const created = await app.http.post('/api/fee-type', { feeType: 'Ðoor' });
      const id = created.body.data.id;
      const seen = [created.body, (await app.http.get(`/api/fee-type/${id}`)).body, (await app.http.get('/api/fee-type?limit=100')).body, (await app.http.patch(`/api/fee-type/${id}`, { feeType: 'Ðoor 2' })).body, (await app.http.get(`/api/institute/${instituteId}?populate=feeTypes`)).body];
      for (const body of seen) expect(JSON.stringify(body)).to.not.match(/fold/i);
      for (const query of ['filters[fee_type__fold][$eq]=x', 'filters[feeTypeFold][$eq]=x', 'sort[0]=fee_type__fold', 'fields[0]=fee_type__fold']) {
        const res = await app.http.get(`/api/fee-type?${query}`);
        expect(res.status, query).to.equal(400);
        expect(res.body.error.name).to.equal('BadRequestError');
      }
    });
  });
}

if (DIALECTS.length > 1) {
  describe('case-insensitive operators: SQLite and PostgreSQL return the same records', () => {
    it('for every query', () => {
      const [a, b] = DIALECTS.map((d) => answers.get(d) as Map<string, string[]>);
      for (const [name] of QUERIES) expect(a.get(name), name).to.deep.equal(b.get(name));
    });
  });
}
