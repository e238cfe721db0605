/** Helpers of the draft & publish tests (issue 14): the fixture models and a few one-liners over HTTP. */
import { expect } from 'chai';
import { join } from 'node:path';
import type { Client } from './http';
import { ROOT } from './test-app';

/** article (drafts, soft delete, media, relations), category (drafts), tag (no drafts). */
export const DRAFT_MODELS = join(ROOT, 'tests', 'fixtures', 'draft-models');

export async function created(http: Client, model: string, body: Record<string, unknown>, status?: 'published' | 'draft'): Promise<number> {
  const res = await http.post(`/api/${model}${status ? `?status=${status}` : ''}`, body);
  expect(res.status, res.text).to.equal(200);
  return res.body.data.id as number;
}

export async function publish(http: Client, model: string, id: number): Promise<Record<string, any>> {
  const res = await http.post(`/api/${model}/${id}/publish`);
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

export async function unpublish(http: Client, model: string, id: number): Promise<Record<string, any>> {
  const res = await http.post(`/api/${model}/${id}/unpublish`);
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** The records of a Find (status and query string as given), asserting 200. */
export async function listed(http: Client, path: string): Promise<Record<string, any>[]> {
  const res = await http.get(path);
  expect(res.status, res.text).to.equal(200);
  return res.body.records;
}
