/**
 * What every route shares, generated from the route table (`ROUTES`), never from a
 * hand-written list of paths: authentication (ARCHITECTURE §3: missing or unknown key ->
 * 401 shape A), ids in the path (decisions: Ids that point elsewhere: a missing, foreign
 * or non-numeric id is a 404 in the route family's shape) and JSON bodies (ARCHITECTURE
 * §2: malformed JSON -> 400 in the route family's shape).
 *
 * The tables below are the only per-route knowledge. A route the tables do not cover
 * fails the coverage tests (and its own generated tests), so a new route has to be
 * added here. Expected bodies are literal texts, never the source's constants: a
 * constant that drifts must fail a test.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/simulator.js';
import { contract, KEY, type Api, type ApiResponse } from '../support/api.js';
import { nested, pipelineAssistant } from '../support/fixtures.js';
import { buy, campaignId, createAssistant, search, startConversation } from '../support/records.js';

type Route = (typeof ROUTES)[number];
type Body = Record<string, unknown>;

const OTHER_KEY = 'sim_other_key';
const UNKNOWN_KEY = 'sim_unknown_key';
const CUSTOMER = '+14155550123';
const HOOK = 'https://hooks.example.test/conversation-ended';
const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const SIP_TRUNK = {
  sip_trunk_type: 'extension',
  phone_number: '100',
  sip_username: 'desk-100',
  sip_password: 'secret-100',
  sip_address: 'pbx.example.test',
  sip_calling_format: '+e164',
  inbound_authorization_type: 'auth',
  country_code: 'US',
};
/** Path ids that name nothing: an id no record has, and ids that are not positive integers. */
const IDS_OF_NOTHING = ['999999', 'abc', '1.5', '-1'];
const WRITE_METHODS = ['POST', 'PUT', 'PATCH'];

/** Records of one account, each made through the API the first time it is needed. */
class Records {
  private readonly made = new Map<string, Promise<unknown>>();

  constructor(
    readonly api: Api,
    readonly key: string,
    readonly accountId: number,
  ) {}

  private once<T>(kind: string, make: () => Promise<T>): Promise<T> {
    if (!this.made.has(kind)) this.made.set(kind, make());
    return this.made.get(kind) as Promise<T>;
  }

  private async made201(path: string, body: Body): Promise<number> {
    const res = await this.api.post(path, body, { key: this.key });
    expect(res.status, `POST ${path}: ${res.text}`).toBe(201);
    return res.body.data.id as number;
  }

  private async first(path: string, query: Record<string, string> = {}): Promise<number> {
    const res = await this.api.get(path, { key: this.key, query });
    expect(res.status, `GET ${path}`).toBe(200);
    const rows = (Array.isArray(res.body) ? res.body : res.body.data) as { id: number }[];
    return rows[0]!.id;
  }

  /** A bought (normal) number. */
  phoneNumber = () => this.once('phoneNumber', async () => (await buy(this.api, { key: this.key })).id);
  /** An outbound pipeline assistant holding the bought number, with a conversation-ended webhook URL. */
  assistant = () =>
    this.once('assistant', async () =>
      createAssistant(this.api, { phone_number_id: await this.phoneNumber(), conversation_ended_webhook_url: HOOK }, this.key),
    );
  campaign = () => this.once('campaign', async () => campaignId(this.api, (await this.assistant()).id, {}, this.key));
  /** A lead of the campaign with one secondary contact. */
  lead = () =>
    this.once('lead', async () => {
      const body = { campaign_id: await this.campaign(), phone_number: CUSTOMER, secondary_contacts: [{ phone_number: '+14155550125' }] };
      const res = await this.api.post('/user/lead', body, { key: this.key });
      expect(res.status).toBe(200);
      return res.body.data.id as number;
    });
  call = () =>
    this.once('call', async () => {
      const res = await this.api.post('/__sim/calls', { account_id: this.accountId, assistant_id: (await this.assistant()).id, client_phone_number: CUSTOMER });
      expect(res.status).toBe(201);
      return res.body.id as number;
    });
  conversation = () => this.once('conversation', async () => startConversation(this.api, (await this.assistant()).uuid));
  knowledgebase = () => this.once('knowledgebase', () => this.first('/user/knowledgebases'));
  tool = () => this.once('tool', () => this.first('/user/tools'));
  /** The first document of the first knowledge base (a fixture of every account), as both path ids. */
  document = () =>
    this.once('document', async () => {
      const knowledgebaseId = String(await this.knowledgebase());
      return { knowledgebaseId, documentId: String(await this.first(`/user/knowledgebases/${knowledgebaseId}/documents`)) };
    });
  folder = () => this.once('folder', () => this.made201('/user/folder', { name: 'Priority' }));
  label = () => this.once('label', () => this.made201('/user/label', { name: 'Hot lead' }));
  /** An extension trunk: its number is not E.164, so every account may register the same one. */
  sipTrunk = () => this.once('sipTrunk', () => this.made201('/user/phone-numbers/sip-trunks', SIP_TRUNK));
  /** The account's online sender (a fixture of every account). */
  sender = () => this.once('sender', () => this.first('/user/msgapp/senders'));
  /** An approved template of the online sender that takes no variables. */
  template = () =>
    this.once('template', async () => {
      const res = await this.api.get(`/user/msgapp/senders/${await this.sender()}/templates`, { key: this.key });
      return (res.body.data as { id: number; variables: string[] }[]).find((t) => t.variables.length === 0)!.id;
    });
  /** Opens the 24-hour window of the online sender and CUSTOMER (a customer wrote). */
  openSession = () =>
    this.once('openSession', async () => {
      const res = await this.api.post('/__sim/msgapp/inbound', { sender_id: await this.sender(), from: CUSTOMER, text: 'Hi' });
      expect(res.status).toBe(201);
    });
}

const ASSISTANT_NOT_FOUND = { message: 'Assistant not found.' };
const LEAD_NOT_FOUND = { message: 'Lead not found.' };
const CALL_NOT_FOUND = { message: 'Call not found.' };
const CONVERSATION_NOT_FOUND = { status: false, error: 'Conversation not found.' };
const KNOWLEDGEBASE_NOT_FOUND = { message: 'Knowledge base not found.' };
/** What fills a path's ids: one value for every id, or a value per id name (a document under its knowledge base). */
type PathIds = string | Record<string, string>;

const byId = (id: number) => [String(id)];
const assistantById = async (r: Records) => byId((await r.assistant()).id);
const assistantByIdOrUuid = async (r: Records) => {
  const { id, uuid } = await r.assistant();
  return [String(id), uuid];
};

/**
 * Every authenticated route with an id in its path: the exact answer to a record that
 * is not there (missing, foreign and non-numeric alike), and how to make a record of
 * the kind it names, as the account of `r` (every value that names it).
 */
const ID_ROUTES: Record<string, { missing: Body; names: (r: Records) => Promise<PathIds[]> }> = {
  'PUT /user/assistant/:id': { missing: ASSISTANT_NOT_FOUND, names: assistantById },
  'DELETE /user/assistant/:id': { missing: ASSISTANT_NOT_FOUND, names: assistantById },
  'GET /user/assistant/:id': { missing: ASSISTANT_NOT_FOUND, names: assistantById },
  'GET /user/knowledgebases/:id': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => byId(await r.knowledgebase()) },
  'GET /user/tools/:id': { missing: { message: 'Tool not found.' }, names: async (r) => byId(await r.tool()) },
  // live-platform C.1, C.2: a document's path names its knowledge base first, so a path of nothing is the knowledge base's 404.
  'PUT /user/knowledgebases/:id': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => byId(await r.knowledgebase()) },
  'DELETE /user/knowledgebases/:id': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => byId(await r.knowledgebase()) },
  'GET /user/knowledgebases/:knowledgebaseId/documents': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => byId(await r.knowledgebase()) },
  'POST /user/knowledgebases/:knowledgebaseId/documents': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => byId(await r.knowledgebase()) },
  'GET /user/knowledgebases/:knowledgebaseId/documents/:documentId': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => [await r.document()] },
  'PUT /user/knowledgebases/:knowledgebaseId/documents/:documentId': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => [await r.document()] },
  'DELETE /user/knowledgebases/:knowledgebaseId/documents/:documentId': { missing: KNOWLEDGEBASE_NOT_FOUND, names: async (r) => [await r.document()] },
  'PUT /user/tools/:id': { missing: { message: 'Tool not found.' }, names: async (r) => byId(await r.tool()) },
  'DELETE /user/tools/:id': { missing: { message: 'Tool not found.' }, names: async (r) => byId(await r.tool()) },
  'DELETE /user/phone-numbers/:id': { missing: { error: 'Phone number not found.' }, names: async (r) => byId(await r.phoneNumber()) },
  // A campaign with a lead: a delete that went through would take the lead too.
  'DELETE /user/campaign/:id': {
    missing: { message: 'Campaign not found.' },
    names: async (r) => {
      await r.lead();
      return byId(await r.campaign());
    },
  },
  'PUT /user/leads/:id': { missing: LEAD_NOT_FOUND, names: async (r) => byId(await r.lead()) },
  'PUT /leads/:id': { missing: LEAD_NOT_FOUND, names: async (r) => byId(await r.lead()) },
  'PATCH /user/leads/:id': { missing: LEAD_NOT_FOUND, names: async (r) => byId(await r.lead()) },
  'PUT /user/phone-numbers/:id': { missing: { error: 'Phone number not found.' }, names: async (r) => byId(await r.phoneNumber()) },
  'DELETE /user/leads/:id': { missing: LEAD_NOT_FOUND, names: async (r) => byId(await r.lead()) },
  'GET /user/calls/:id': { missing: CALL_NOT_FOUND, names: async (r) => byId(await r.call()) },
  'DELETE /user/calls/:id': { missing: CALL_NOT_FOUND, names: async (r) => byId(await r.call()) },
  'POST /automate/conversations/:uuid/enable-ai': { missing: CONVERSATION_NOT_FOUND, names: async (r) => [await r.conversation()] },
  'POST /automate/conversations/:uuid/disable-ai': { missing: CONVERSATION_NOT_FOUND, names: async (r) => [await r.conversation()] },
  'POST /assistants/:assistantId/enable-conversation-ended-webhook': { missing: ASSISTANT_NOT_FOUND, names: assistantByIdOrUuid },
  'POST /assistants/:assistantId/disable-conversation-ended-webhook': { missing: ASSISTANT_NOT_FOUND, names: assistantByIdOrUuid },
  'GET /user/msgapp/senders/:id/templates': {
    missing: { success: false, error: 'Sender not found or does not belong to you.', error_code: 'SENDER_NOT_FOUND' },
    names: async (r) => byId(await r.sender()),
  },
  'GET /user/whatsapp/senders/:id/templates': {
    missing: { success: false, error: 'Sender not found or does not belong to you.', error_code: 'SENDER_NOT_FOUND' },
    names: async (r) => byId(await r.sender()),
  },
  'PUT /user/folder/:id': { missing: { message: 'Folder not found' }, names: async (r) => byId(await r.folder()) },
  'PUT /user/folders/:id': { missing: { message: 'Folder not found' }, names: async (r) => byId(await r.folder()) },
  'DELETE /user/folder/:id': { missing: { message: 'Folder not found' }, names: async (r) => byId(await r.folder()) },
  'DELETE /user/folders/:id': { missing: { message: 'Folder not found' }, names: async (r) => byId(await r.folder()) },
  'PUT /user/label/:id': { missing: { message: 'Label not found' }, names: async (r) => byId(await r.label()) },
  'PUT /user/labels/:id': { missing: { message: 'Label not found' }, names: async (r) => byId(await r.label()) },
  'DELETE /user/label/:id': { missing: { message: 'Label not found' }, names: async (r) => byId(await r.label()) },
  'DELETE /user/labels/:id': { missing: { message: 'Label not found' }, names: async (r) => byId(await r.label()) },
  'GET /user/phone-numbers/sip-trunks/:id': { missing: { error: 'SIP trunk not found.' }, names: async (r) => byId(await r.sipTrunk()) },
  'PUT /user/phone-numbers/sip-trunks/:id': { missing: { error: 'SIP trunk not found.' }, names: async (r) => byId(await r.sipTrunk()) },
};

/**
 * A body each authenticated body route accepts from the account of `r` (set up as
 * needed), so a 401 or a 404 is never a 422 in disguise.
 */
const VALID_BODIES: Record<string, (r: Records) => Promise<Body>> = {
  'POST /user/assistant': async () => pipelineAssistant(),
  'PUT /user/assistant/:id': async () => ({ name: 'Renamed Assistant' }),
  'POST /user/phone-numbers/purchase': async (r) => ({ phone_number: (await search(r.api, {}, r.key))[0]!.phone_number }),
  'POST /user/campaign': async (r) => ({ name: 'Autumn Outreach', assistant_id: (await r.assistant()).id }),
  'POST /user/campaigns': async (r) => ({ name: 'Winter Outreach', assistant_id: (await r.assistant()).id }),
  'POST /user/campaigns/update-status': async (r) => {
    await r.lead();
    return { campaign_id: await r.campaign(), action: 'start' };
  },
  'POST /user/lead': async (r) => ({ campaign_id: await r.campaign(), phone_number: '+14155550124' }),
  'PUT /user/leads/:id': async () => ({ status: 'completed' }),
  'PUT /leads/:id': async () => ({ status: 'completed' }),
  'PATCH /user/leads/:id': async () => ({ status: 'completed' }),
  'PUT /user/phone-numbers/:id': async () => ({ nickname: 'Front desk' }),
  'POST /user/assistants/enable-inbound-webhook': async (r) => ({ assistant_id: (await r.assistant()).id, webhook_url: 'https://hooks.example.test/inbound' }),
  'POST /user/assistants/disable-inbound-webhook': async (r) => ({ assistant_id: (await r.assistant()).uuid }),
  'POST /user/assistants/enable-webhook': async (r) => ({ assistant_id: (await r.assistant()).id, webhook_url: 'https://hooks.example.test/calls' }),
  'POST /user/assistants/disable-webhook': async (r) => ({ assistant_id: String((await r.assistant()).id) }),
  'POST /user/assistants/enable-conversation-ended-webhook': async (r) => ({ assistant_id: (await r.assistant()).uuid, webhook_url: 'https://hooks.example.test/on' }),
  'POST /user/assistants/disable-conversation-ended-webhook': async (r) => ({ assistant_id: (await r.assistant()).id }),
  'POST /user/ai/generate-reply': async (r) => ({ assistant_id: (await r.assistant()).id, customer_identifier: 'crm-42', message: 'Hello?' }),
  'POST /ai/generate-reply': async (r) => ({ assistant_id: (await r.assistant()).id, customer_identifier: 'crm-43', message: 'Hello?' }),
  'POST /user/knowledgebases': async () => ({ name: 'Support articles' }),
  'PUT /user/knowledgebases/:id': async () => ({ name: 'Renamed articles' }),
  'POST /user/knowledgebases/:knowledgebaseId/documents': async () => ({ name: 'Pricing page', type: 'website', url: 'https://www.example.test/pricing' }),
  'PUT /user/knowledgebases/:knowledgebaseId/documents/:documentId': async () => ({ description: 'Prices and plans' }),
  'POST /user/tools': async () => ({ name: 'lookup_order', description: 'Looks an order up.', endpoint: 'https://crm.example.test/orders', method: 'GET' }),
  'PUT /user/tools/:id': async () => ({ timeout: 20 }),
  'POST /user/make_call': async (r) => ({ assistant_id: (await r.assistant()).id, phone_number: CUSTOMER }),
  'POST /assistants/:assistantId/enable-conversation-ended-webhook': async () => ({ webhook_url: 'https://hooks.example.test/switched-on' }),
  'POST /user/msgapp/send': async (r) => ({ sender_id: await r.sender(), template_id: await r.template(), recipient_phone: CUSTOMER }),
  'POST /user/msgapp/send-freeform': async (r) => {
    await r.openSession();
    return { sender_id: await r.sender(), recipient_phone: CUSTOMER, message: 'Your table is ready.' };
  },
  'POST /user/whatsapp/send': async (r) => ({ sender_id: await r.sender(), template_id: await r.template(), recipient_phone: CUSTOMER }),
  'POST /user/whatsapp/send-freeform': async (r) => {
    await r.openSession();
    return { sender_id: await r.sender(), recipient_phone: CUSTOMER, message: 'Your table is ready.' };
  },
  'POST /user/folder': async () => ({ name: 'Inbound lines', color: 'green' }),
  'POST /user/folders': async () => ({ name: 'Outbound lines' }),
  'PUT /user/folder/:id': async () => ({ name: 'Renamed folder', color: null }),
  'PUT /user/folders/:id': async () => ({ color: 'teal' }),
  'POST /user/label': async () => ({ name: 'Callback', color: 'red' }),
  'POST /user/labels': async () => ({ name: 'Churn risk' }),
  'PUT /user/label/:id': async () => ({ name: 'Renamed label' }),
  'PUT /user/labels/:id': async () => ({ color: 'pink' }),
  'POST /user/phone-numbers/sip-trunks': async () => ({ ...SIP_TRUNK, phone_number: '200', sip_username: 'desk-200' }),
  'PUT /user/phone-numbers/sip-trunks/:id': async () => ({ nickname: 'Front desk', outbound_proxy: true }),
  'POST /user/sms': async (r) => ({ from: await r.phoneNumber(), to: CUSTOMER, body: 'Your table is ready.' }),
};

/**
 * Write routes without a JSON body schema, and why. `ignoresBody`: the route reads no
 * body at all, so a malformed one is ignored.
 */
const WITHOUT_JSON_BODY: Record<string, { ignoresBody: boolean; why: string }> = {
  'POST /automate/conversations/:uuid/enable-ai': { ignoresBody: true, why: 'takes no parameters (decisions: AI on / off)' },
  'POST /automate/conversations/:uuid/disable-ai': { ignoresBody: true, why: 'takes no parameters (decisions: AI on / off)' },
  'POST /assistants/:assistantId/disable-conversation-ended-webhook': { ignoresBody: true, why: 'takes no body (spec: Conversation-ended webhook switches)' },
  'POST /__sim/scenario': {
    ignoresBody: false,
    why: 'reads YAML or JSON text itself; a syntax error is a 422 naming its line (scenario-control.test.ts)',
  },
};

/** The body-level failures in each route family's shape (ARCHITECTURE §2 Errors). */
const FAMILY_SHAPES: Record<string, (text: string) => Body> = {
  management: (text) => ({ message: text }),
  control: (text) => ({ message: text }),
  chat: (text) => ({ status: false, error: text }),
  messaging: (text) => ({ success: false, error: text, error_code: 'VALIDATION_ERROR' }),
};

const nameOf = (route: Route) => `${route.method} ${route.path}`;
const cases = (routes: Route[]) => routes.map((route) => [nameOf(route), route] as const);
const fill = (path: string, value: PathIds) =>
  path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(typeof value === 'string' ? value : value[name]!));
/** Everything the simulator holds (tables, clock and queue, random state, scripts, webhooks). */
const state = (api: Api) => JSON.stringify(api.sim.snapshot());

const BEARER = ROUTES.filter((r) => r.auth === 'bearer');
const BEARER_WITH_ID = BEARER.filter((r) => r.path.includes('/:'));
const BEARER_WITH_BODY = BEARER.filter((r) => r.body !== undefined);
const JSON_BODY = ROUTES.filter((r) => r.body !== undefined);
const WRITES_WITHOUT_BODY = ROUTES.filter((r) => r.body === undefined && WRITE_METHODS.includes(r.method));

function idRoute(route: Route) {
  const entry = ID_ROUTES[nameOf(route)];
  if (!entry) throw new Error(`${nameOf(route)} has an id in its path: add it to ID_ROUTES in test/contract/routes.test.ts`);
  return entry;
}

async function validBody(route: Route, r: Records): Promise<Body | undefined> {
  if (route.body === undefined) return undefined;
  const make = VALID_BODIES[nameOf(route)];
  if (!make) throw new Error(`${nameOf(route)} takes a body: add a valid one to VALID_BODIES in test/contract/routes.test.ts`);
  return make(r);
}

/** The route's path naming a record of `r`'s account where it takes an id (else `1`). */
async function pathOf(route: Route, r: Records): Promise<string> {
  const entry = ID_ROUTES[nameOf(route)];
  return fill(route.path, entry ? (await entry.names(r))[0]! : '1');
}

function familyShape(route: Route): (text: string) => Body {
  const shape = FAMILY_SHAPES[route.family];
  if (!shape) throw new Error(`route family ${route.family} has no error shape in FAMILY_SHAPES`);
  return shape;
}

function expectAnswer(res: ApiResponse, status: number, body: unknown) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toStrictEqual(body);
}

describe('the route tables cover the route table', () => {
  it('serves authenticated routes, id routes and body routes', () => {
    expect(BEARER.length).toBeGreaterThan(0);
    expect(BEARER_WITH_ID.length).toBeGreaterThan(0);
    expect(JSON_BODY.length).toBeGreaterThan(0);
  });

  it('knows the not-found answer and a record of every authenticated route with an id in its path', () => {
    expect(BEARER_WITH_ID.map(nameOf).filter((n) => !(n in ID_ROUTES))).toEqual([]);
    expect(Object.keys(ID_ROUTES).filter((n) => !BEARER_WITH_ID.map(nameOf).includes(n))).toEqual([]);
  });

  it('knows a valid body of every authenticated route that takes one', () => {
    expect(BEARER_WITH_BODY.map(nameOf).filter((n) => !(n in VALID_BODIES))).toEqual([]);
    expect(Object.keys(VALID_BODIES).filter((n) => !BEARER_WITH_BODY.map(nameOf).includes(n))).toEqual([]);
  });

  it('knows why every write route without a body schema reads no JSON', () => {
    expect(WRITES_WITHOUT_BODY.map(nameOf).filter((n) => !(n in WITHOUT_JSON_BODY))).toEqual([]);
    expect(Object.keys(WITHOUT_JSON_BODY).filter((n) => !WRITES_WITHOUT_BODY.map(nameOf).includes(n))).toEqual([]);
  });

  it('knows the error shape of every route family', () => {
    expect([...new Set(ROUTES.map((r) => r.family))].filter((f) => !(f in FAMILY_SHAPES))).toEqual([]);
  });
});

contract('every authenticated route: 401', (api) => {
  const credentials = BEARER.flatMap((route) =>
    [['without a key', null], ['to an unknown key', UNKNOWN_KEY]].map(([label, key]) => [nameOf(route), label, key, route] as const),
  );

  // Each route is asked twice where it takes a body: with an empty body and no query (the
  // 401 comes before validation), then with the request the account's key gets served
  // (a valid body, a real record in the path): the 401 still changes nothing.
  it.each(credentials)('%s answers 401 %s, before validating anything, and changes nothing', async (_name, _label, key, route) => {
    const own = new Records(api(), KEY, 1);
    const path = await pathOf(route, own);
    const bodies = route.body === undefined ? [undefined] : [{}, await validBody(route, own)];
    for (const body of bodies) {
      const before = state(api());
      expectAnswer(await api().call(route.method, path, body, { key }), 401, UNAUTHENTICATED);
      expect(state(api()), JSON.stringify(body)).toBe(before);
    }
  });

  it.each(cases(BEARER_WITH_BODY))('%s accepts its body from VALID_BODIES with the key', async (_name, route) => {
    const own = new Records(api(), KEY, 1);
    const path = await pathOf(route, own);
    const res = await api().call(route.method, path, await validBody(route, own));
    expect([200, 201], res.text).toContain(res.status);
  });
});

contract('every authenticated route with an id: 404', (api) => {
  const nothing = BEARER_WITH_ID.flatMap((route) => IDS_OF_NOTHING.map((id) => [nameOf(route), id, route] as const));

  it.each(nothing)('%s answers the id %s with its not-found 404 and changes nothing', async (_name, id, route) => {
    const { missing, names } = idRoute(route);
    // The caller has a record of the kind, so "not found" is not merely "nothing there".
    const own = new Records(api(), KEY, 1);
    await names(own);
    const body = await validBody(route, own);
    const before = state(api());
    expectAnswer(await api().call(route.method, fill(route.path, id), body), 404, missing);
    expect(state(api())).toBe(before);
  });

  it.each(cases(BEARER_WITH_ID))("%s answers another account's record with its not-found 404, changes nothing, and serves the owner", async (_name, route) => {
    const { missing, names } = idRoute(route);
    // The caller has a record of the same kind, so the foreign one is not the only candidate.
    const own = new Records(api(), KEY, 1);
    await names(own);
    api().sim.control.accounts.create({ api_key: OTHER_KEY });
    const theirs = new Records(api(), OTHER_KEY, 2);
    const foreign = await names(theirs);
    const body = await validBody(route, own);
    for (const value of foreign) {
      const before = state(api());
      expectAnswer(await api().call(route.method, fill(route.path, value), body), 404, missing);
      expect(state(api()), `${route.method} ${fill(route.path, value)}`).toBe(before);
    }
    // The record is real: its owner gets the same request served.
    const served = await api().call(route.method, fill(route.path, foreign[0]!), await validBody(route, theirs), { key: OTHER_KEY });
    expect([200, 201], served.text).toContain(served.status);
  });
});

/**
 * `JSON.stringify({ set_variables: nested(10_000) })`, written out: stringifying 10,000 levels
 * took ~25 ms a test (some 3 s of the file) and overflows a main thread's stack (pool forks).
 */
const NESTED_10_000 = `{"set_variables":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;

contract('every route with a JSON body: 400', (api) => {
  const keyFor = (route: Route) => (route.auth === 'bearer' || route.auth === 'optional' ? KEY : null);

  it.each(cases(JSON_BODY))('%s answers malformed JSON with 400 in its family shape and changes nothing', async (_name, route) => {
    const before = state(api());
    const res = await api().call(route.method, fill(route.path, '1'), undefined, { raw: '{"name":', key: keyFor(route) });
    expectAnswer(res, 400, familyShape(route)('Malformed JSON in request body.'));
    expect(state(api())).toBe(before);
  });

  it.each(cases(JSON_BODY))('%s answers a JSON body that is not an object with 400 in its family shape', async (_name, route) => {
    for (const raw of ['[{"name":"x"}]', '"text"', 'null', '42']) {
      const before = state(api());
      const res = await api().call(route.method, fill(route.path, '1'), undefined, { raw, key: keyFor(route) });
      expectAnswer(res, 400, familyShape(route)('The request body must be a JSON object.'));
      expect(state(api())).toBe(before);
    }
  });

  it.each(cases(JSON_BODY))('%s answers a body nested 10,000 deep with 422 in its family shape and changes nothing', async (_name, route) => {
    const before = state(api());
    const res = await api().call(route.method, fill(route.path, '1'), undefined, { raw: NESTED_10_000, key: keyFor(route) });
    // PUT /__sim/state takes a whole snapshot, which holds bodies' values a few levels down: its limit is 128.
    const text = `The set variables may not nest more than ${route.maxDepth ?? 64} levels deep.`;
    const expected = route.family === 'management' || route.family === 'control' ? { message: text, errors: { set_variables: [text] } } : familyShape(route)(text);
    expectAnswer(res, 422, expected);
    expect(state(api())).toBe(before);
  });

  it('accepts a body 64 levels deep (the body itself is the first) and refuses 65', async () => {
    const own = new Records(api(), KEY, 1);
    const campaign = await own.campaign();
    const deepest = await api().post('/user/lead', { campaign_id: campaign, phone_number: '+14155550177', variables: nested(63) });
    expect(deepest.status).toBe(200);
    expect(JSON.stringify(deepest.body.data.variables)).toBe(JSON.stringify(nested(63)));
    const deeper = await api().post('/user/lead', { campaign_id: campaign, phone_number: '+14155550178', variables: nested(64) });
    expectAnswer(deeper, 422, { message: 'The variables may not nest more than 64 levels deep.', errors: { variables: ['The variables may not nest more than 64 levels deep.'] } });
  });

  const ignoring = WRITES_WITHOUT_BODY.filter((r) => WITHOUT_JSON_BODY[nameOf(r)]?.ignoresBody);
  it.each(cases(ignoring))('%s reads no body: a malformed one is answered as no body', async (_name, route) => {
    const own = new Records(api(), KEY, 1);
    const path = await pathOf(route, own);
    const withBody = await api().call(route.method, path, undefined, { raw: '{"name":', key: keyFor(route), offDocument: 'a body to an operation that has no requestBody' });
    const without = await api().call(route.method, path, undefined, { key: keyFor(route) });
    expect([200, 201], withBody.text).toContain(withBody.status);
    expect({ status: withBody.status, body: withBody.body }).toStrictEqual({ status: without.status, body: without.body });
  });
});
