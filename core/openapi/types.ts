/** The slice of OpenAPI 3.1 the document builder writes: plain JSON data, typed loosely where the spec is open. */

/** A JSON Schema (2020-12, the OpenAPI 3.1 dialect) as plain data. */
export type Schema = Record<string, unknown>;

export interface TagObject {
  readonly name: string;
  readonly description?: string;
}

export interface OpenApiComponents {
  schemas: Record<string, Schema>;
  responses: Record<string, unknown>;
  parameters: Record<string, unknown>;
  requestBodies: Record<string, unknown>;
  headers: Record<string, unknown>;
  examples: Record<string, unknown>;
  securitySchemes: Record<string, unknown>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  security: Record<string, string[]>[];
  tags: TagObject[];
  paths: Record<string, Record<string, unknown>>;
  components: OpenApiComponents;
}

export const ref = (section: keyof OpenApiComponents, name: string): { $ref: string } => ({ $ref: `#/components/${section}/${name}` });
export const schemaRef = (name: string): { $ref: string } => ref('schemas', name);

/** `fee-type` → `FeeType` (component names). */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

/** A nullable variant: `type: [t, 'null']` where the schema allows it, `anyOf` otherwise. */
export function nullable(s: Schema): Schema {
  if (Object.keys(s).length === 0) return s; // `{}` already admits null
  if (typeof s.type === 'string' && !('$ref' in s)) {
    const out: Schema = { ...s, type: [s.type, 'null'] };
    if (Array.isArray(s.enum)) out.enum = [...(s.enum as unknown[]), null];
    return out;
  }
  return { anyOf: [s, { type: 'null' }] };
}
