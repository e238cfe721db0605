/**
 * Checks every response the API tests receive against the OpenAPI document the server serves:
 * the operation is found by path template + method, the response by status (exact, `4XX`,
 * `default`), the body by its media type's schema (ajv, JSON Schema 2020-12 with formats).
 * A response the document does not describe is a failure, so the document cannot drift from the code.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';
import { linearRegExp } from '../../core/registry/linear-pattern';

type Doc = { paths: Record<string, Record<string, unknown>>; components?: Record<string, Record<string, unknown>> };

export interface ObservedResponse {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  /** X-Request-Id: every answer of the service carries one (CONTRACT: Operations). */
  readonly requestId?: string | null;
}

const DOC_ID = 'urn:ris:openapi';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

interface Matcher {
  readonly template: string;
  readonly re: RegExp;
  readonly params: number;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export class ResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly matchers: Matcher[];
  private readonly compiled = new Map<string, ValidateFunction>();

  private readonly doc: Doc;

  constructor(document: object) {
    const doc = document as Doc;
    this.doc = doc;
    // Model patterns run on RE2 as in the server: a JavaScript RegExp could backtrack for minutes.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, code: { regExp: linearRegExp } });
    addFormats(this.ajv);
    // The whole document is one schema resource: `#/components/schemas/X` refs resolve inside it.
    this.ajv.addSchema(doc as object, DOC_ID);
    this.matchers = Object.keys(doc.paths)
      .map((template) => {
        const parts = template.split(/\{[^}]+\}/);
        return { template, re: new RegExp(`^${parts.map(escapeRe).join('[^/]+')}$`), params: parts.length - 1 };
      })
      // Literal segments win over parameters: `/api/x/bulk` before `/api/x/{id}`.
      .sort((a, b) => a.params - b.params);
  }

  private resolve(node: unknown): Record<string, unknown> | undefined {
    let n = node as Record<string, unknown> | undefined;
    for (let i = 0; n && typeof n.$ref === 'string' && i < 10; i++) {
      const parts = (n.$ref as string).replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      n = parts.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], this.doc) as Record<string, unknown> | undefined;
    }
    return n;
  }

  private validator(ptr: string): ValidateFunction {
    let v = this.compiled.get(ptr);
    if (!v) {
      v = this.ajv.getSchema(`${DOC_ID}#${ptr}`);
      if (!v) throw new Error(`openapi-validator: cannot compile ${ptr}`);
      this.compiled.set(ptr, v);
    }
    return v;
  }

  /** The problems of one response; empty when the document describes it. */
  check(r: ObservedResponse): string[] {
    const method = r.method.toLowerCase();
    const path = decodeURIComponent(new URL(r.url, 'http://x').pathname);
    const what = `${r.method.toUpperCase()} ${path} → ${r.status}`;
    if (method === 'head') return [];
    // Node's HTTP parser answers some malformed requests itself (431, 400) before the service runs: no request id, no body.
    if (r.requestId === null && r.status >= 400 && r.text === '') return [];
    const match = this.matchers.find((m) => m.re.test(path));
    const operation = match ? (this.doc.paths[match.template][method] as Record<string, unknown> | undefined) : undefined;
    let schemaPtr: string;
    let mediaTypes: string[];
    if (!match || !operation || !METHODS.has(method)) {
      // No operation: only error answers are expected (404 unknown path, 405 method); they must be spec-7 bodies.
      if (!path.startsWith('/api/') && !match) return [];
      if (r.status < 400) return [`${what}: the document has no operation ${r.method.toUpperCase()} ${match?.template ?? path}`];
      schemaPtr = '/components/schemas/Error';
      mediaTypes = ['application/json'];
    } else {
      const responses = operation.responses as Record<string, unknown>;
      // 304 (conditional reads) must be documented as itself, and has no body.
      if (r.status === 304) return !('304' in responses) ? [`${what}: status 304 is not documented for ${r.method.toUpperCase()} ${match.template}`] : r.text === '' ? [] : [`${what}: a 304 came with a body`];
      const key = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find((k) => k in responses);
      if (!key) return [`${what}: status ${r.status} is not documented for ${r.method.toUpperCase()} ${match.template}`];
      const response = this.resolve(responses[key]);
      const content = response?.content as Record<string, unknown> | undefined;
      const responsePtr = typeof (responses[key] as { $ref?: unknown }).$ref === 'string'
        ? ((responses[key] as { $ref: string }).$ref.slice(1))
        : `/${pointer('paths', match.template, method, 'responses', key)}`;
      if (!content) return r.text === '' ? [] : [`${what}: the document says no body, but one came`];
      mediaTypes = Object.keys(content);
      const type = (r.contentType ?? '').split(';')[0].trim().toLowerCase();
      const mt = mediaTypes.find((m) => m === type);
      if (!mt) return [`${what}: content type "${type}" is not one of ${mediaTypes.join(', ')}`];
      schemaPtr = `${responsePtr}/${pointer('content', mt, 'schema')}`;
    }
    if (!(r.contentType ?? '').toLowerCase().startsWith('application/json')) return [`${what}: expected JSON, got "${r.contentType ?? 'none'}"`];
    let body: unknown;
    try {
      body = JSON.parse(r.text);
    } catch {
      return [`${what}: the body is not JSON`];
    }
    const validate = this.validator(schemaPtr);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${what}: body${e.instancePath} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''} (schema ${e.schemaPath})`);
  }
}

const cache = new Map<string, ResponseValidator>();

/** One validator per distinct document (test files that share models share it). */
export function validatorFor(doc: unknown): ResponseValidator {
  const key = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
  let v = cache.get(key);
  if (!v) {
    v = new ResponseValidator(doc as object);
    cache.set(key, v);
  }
  return v;
}

export class ResponseMismatchError extends Error {
  override readonly name = 'ResponseMismatchError';
}

/** Off with OPENAPI_RESPONSE_CHECK=0 (e.g. while changing the code and the document together). */
export const RESPONSE_CHECK_ON = process.env.OPENAPI_RESPONSE_CHECK !== '0';

/** A fetch that checks each response against the document and rejects on a mismatch (the test fails there). */
export function validatingFetch(validator: ResponseValidator, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const res = await base(req);
    const text = await res.clone().text();
    const problems = validator.check({ method: req.method, url: req.url, status: res.status, contentType: res.headers.get('content-type'), text, requestId: res.headers.get('x-request-id') });
    if (problems.length > 0) {
      throw new ResponseMismatchError(`the response does not match the OpenAPI document:\n  ${problems.slice(0, 20).join('\n  ')}\nbody: ${text.slice(0, 1000)}`);
    }
    return res;
  };
}
