/**
 * Records made through the API, shared by the suites: each helper makes one record as
 * the account of `key` (the default account unless given) and answers what names it.
 */
import { expect } from 'vitest';
import { KEY, type Api } from './api.js';
import { pipelineAssistant } from './fixtures.js';

/** The request option that sends `key`, or nothing (the default account's key). */
export function asKey(key?: string): { key?: string } {
  return key === undefined ? {} : { key };
}

/** A purchasable number as `GET /user/phone-numbers/search` answers it. */
export interface Offer {
  phone_number: string;
  phone_number_formatted: string;
  country_code: string;
  price: number;
  billing_price_id: string;
  address_requirements: string;
  sms_capable: boolean;
}

/** The offers of a number search (US unless `country_code` is given). */
export async function search(api: Api, query: Record<string, string> = {}, key: string = KEY): Promise<Offer[]> {
  const res = await api.get('/user/phone-numbers/search', { query, key });
  expect(res.status).toBe(200);
  return res.body.data as Offer[];
}

/** Searches (in `country`) and buys the first result; answers the purchased record. */
export async function buy(api: Api, options: { country?: string; key?: string } = {}): Promise<{ id: number; phone_number: string }> {
  const key = options.key ?? KEY;
  const [offer] = await search(api, options.country ? { country_code: options.country } : {}, key);
  const res = await api.post('/user/phone-numbers/purchase', { phone_number: offer!.phone_number }, { key });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** Creates a pipeline assistant (outbound unless told otherwise) and reads its uuid. */
export async function createAssistant(api: Api, overrides: Record<string, unknown> = {}, key?: string): Promise<{ id: number; uuid: string }> {
  const res = await api.post('/user/assistant', pipelineAssistant(overrides, api.sim.wire), asKey(key));
  expect(res.status).toBe(201);
  const read = await api.get(`/user/assistant/${res.body.data.id}`, asKey(key));
  return { id: read.body.data.id, uuid: read.body.data.uuid };
}

/** Creates a draft campaign of an outbound assistant and answers its id. */
export async function campaignId(api: Api, assistantId: number, overrides: Record<string, unknown> = {}, key?: string): Promise<number> {
  const res = await api.post('/user/campaign', { name: 'Spring Outreach', assistant_id: assistantId, ...overrides }, asKey(key));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** `POST /conversations` without credentials; the new conversation's uuid. */
export async function startConversation(api: Api, assistantUuid: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/conversations', { assistant_id: assistantUuid, ...body }, { key: null });
  expect(res.status).toBe(200);
  return res.body.conversation_id as string;
}
