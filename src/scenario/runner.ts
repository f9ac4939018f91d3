/**
 * Playing scenarios (ARCHITECTURE §7): `given` through the public API, the scripts
 * through the control plane, then the steps, each expectation checked by partial
 * matching. Uses the public API and `/__sim` operations only (STYLE 11).
 */
import type { VirtualClock } from '../core/clock.js';
import type { EventBus } from '../core/events.js';
import type { SimEventMap } from '../domain/sim-events.js';
import { SimError } from '../core/errors.js';
import type { SimRequest, SimResponse } from '../core/http.js';
import { formatSqlUtc } from '../core/time.js';
import { accountKeyOf, inSandbox } from '../core/sandbox-keys.js';
import type { Wire } from '../core/wire.js';
import type { Control } from '../control/control.js';
import { attributeName } from '../core/validation.js';
import { DEFAULT_API_KEY } from '../domain/accounts/schema.js';
import { catalogRefusal } from '../domain/catalog/check.js';
import { ScenarioError, loadScenario, valueAt, type LoadedScenario, type ParsedStep } from './load.js';
import { collectionMatch, partialMatch, type Mismatch } from './match.js';
import { WebhookReceiver } from './receiver.js';
import type { ScenarioInput } from './schema.js';

export interface Ref {
  id: number | string;
  uuid?: string;
  phone_number?: string;
}

export interface StepResult {
  index: number;
  kind: string;
  line: number | null;
  /** `file:line` of the step (the file alone when it has no lines), for reports. */
  location: string;
  /** Clock time after the step. */
  at: number;
  ok: boolean;
  expectation: boolean;
  summary: string;
  mismatches: Mismatch[];
}

export interface ScenarioRun {
  name: string;
  file: string;
  refs: Record<string, Ref>;
  steps: StepResult[];
  passed: boolean;
}

export interface RunOptions {
  /** Play the steps too (default true). */
  steps?: boolean;
  /** Called after each step (the CLI prints the timeline as it goes). */
  onStep?: (result: StepResult) => void;
  /** Called while long clock runs progress. */
  onProgress?: (message: string) => void;
}

type Json = Record<string, unknown>;

/**
 * Scenario data (refs resolved) handed to a `sim.control` operation: typed as the
 * operation's input because that operation validates it against its own schema, the
 * failure then naming the scenario's file and line.
 */
function asInput<T>(value: unknown): T {
  return value as T;
}

/** The fields of a shape B refusal (`{message, errors: {field: [message...]}}`), in order; none for another answer. */
function refusedFields(body: unknown): [string, string[]][] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  return typeof errors === 'object' && errors !== null ? (Object.entries(errors) as [string, string[]][]) : [];
}

/**
 * A control refusal's message with the field named by the scenario's key, as the loader
 * names keys (`{to: 'advance_to'}`): "The to may not be before…" becomes "The advance_to
 * may not be before…". Other errors keep their message.
 */
function inScenarioWords(error: unknown, keys: Record<string, string>): string {
  const [field, messages] = (error instanceof SimError && refusedFields(error.body)[0]) || [];
  const key = field === undefined ? undefined : keys[field];
  // Laravel-style messages spell the field out in words (`sender id`) after "The " or "The selected ".
  if (key !== undefined && messages?.[0]) return messages[0].replace(` ${attributeName(field!.split('.'))} `, ` ${key} `);
  return (error as Error).message;
}

/** Runs a control operation of a step; a refusal is told in the step's words (inScenarioWords). */
async function underStepKeys<T>(keys: Record<string, string>, operation: () => T | Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw error instanceof SimError ? new Error(inScenarioWords(error, keys)) : error;
  }
}

/** What a scenario plays against: the public API, the control plane, the clock and the event history. */
export interface ScenarioHost {
  handle(request: SimRequest): Promise<SimResponse>;
  reset(options: { seed?: number | undefined; start?: string | number | undefined; wire?: Wire | undefined }): void;
  readonly control: Control;
  readonly clock: VirtualClock;
  readonly events: EventBus<SimEventMap>;
  /** The key of the sandbox the simulator is (issue 35), else null: the scenario's keys are written in it. */
  readonly sandboxKey: string | null;
}

class Player {
  readonly refs: Record<string, Ref> = {};
  private readonly defaultKey: string;

  constructor(
    private readonly sim: ScenarioHost,
    private readonly loaded: LoadedScenario,
  ) {
    this.defaultKey = loaded.scenario.accounts?.find((a) => a.api_key)?.api_key ?? DEFAULT_API_KEY;
  }

  /**
   * A key of the scenario as the simulator holds it. In a sandbox (issue 35) every key must
   * name the sandbox: the scenario's default key (its first account's, else sim_test_key)
   * is the sandbox's own, any other `<sandbox key>_<key>`; elsewhere keys are as written.
   */
  keyOf(key: string): string {
    const sandbox = this.sim.sandboxKey;
    if (inSandbox(sandbox, key)) return key;
    return key === this.defaultKey ? sandbox! : accountKeyOf(sandbox!, key);
  }

  fail(message: string, path: (string | number)[]): never {
    throw new ScenarioError(message, this.loaded.file, this.loaded.lineOf(path), path.join('.'));
  }

  /** `$name` -> the ref's id, `$name.uuid` -> a field; inside longer strings too (paths). */
  resolve(value: unknown, path: (string | number)[]): unknown {
    if (typeof value === 'string') {
      const whole = /^\$([A-Za-z_][A-Za-z0-9_-]*)(?:\.([a-z_]+))?$/.exec(value);
      if (whole) return this.refField(whole[1]!, whole[2] ?? 'id', path);
      return value.replace(/\$([A-Za-z_][A-Za-z0-9_-]*)(?:\.([a-z_]+))?/g, (_, name: string, field?: string) => String(this.refField(name, field ?? 'id', path)));
    }
    if (Array.isArray(value)) return value.map((v, i) => this.resolve(v, [...path, i]));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, [...path, k])]));
    }
    return value;
  }

  private refField(name: string, field: string, path: (string | number)[]): unknown {
    const ref = this.refs[name];
    if (!ref) this.fail(`Unknown ref "$${name}" (refs so far: ${Object.keys(this.refs).join(', ') || 'none'}).`, path);
    const value = (ref as unknown as Json)[field];
    if (value === undefined) this.fail(`The ref "$${name}" has no ${field}.`, path);
    return value;
  }

  /** A ref written bare (`sales`) or as `$sales`, or a literal id. */
  refId(value: unknown, path: (string | number)[]): unknown {
    if (typeof value === 'string' && /^\$?[A-Za-z_][A-Za-z0-9_-]*$/.test(value)) return this.refField(value.replace(/^\$/, ''), 'id', path);
    return value;
  }

  async call(method: string, path: string, body?: unknown, key: string | null = this.defaultKey, headers: Record<string, string> = {}) {
    const res = await this.sim.handle({
      method,
      path,
      headers: { ...headers, ...(key !== null && { authorization: `Bearer ${this.keyOf(key)}` }) },
      body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: res.body as Json };
  }

  /**
   * Where in `given` a refusal points: at the first field it names that the item writes
   * (`names` gives the scenario's key for a field of the API: `{assistant_id: 'assistant'}`),
   * else at the item.
   */
  refusedAt(body: unknown, at: (string | number)[], names: Record<string, string> = {}): (string | number)[] {
    for (const [field] of refusedFields(body)) {
      const [head, ...rest] = field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
      for (const key of [names[head!] ?? head!, head!]) {
        if (valueAt(this.loaded.scenario, [...at, key, ...rest]) !== undefined) return [...at, key, ...rest];
      }
    }
    return at;
  }

  /** A `given` creation that must succeed; a refusal is reported at the field it names, else at the item. */
  async create(method: string, path: string, body: unknown, key: string | undefined, at: (string | number)[], headers?: Record<string, string>, names?: Record<string, string>) {
    const res = await this.call(method, path, body, key ?? this.defaultKey, headers);
    if (res.status >= 300) this.fail(`${method} ${path} was refused with ${res.status}: ${JSON.stringify(res.body)}`, this.refusedAt(res.body, at, names));
    return res.body;
  }

  async given(): Promise<void> {
    const { scenario } = this.loaded;
    this.sim.reset({ seed: scenario.seed, start: scenario.start, wire: scenario.wire });
    // An account whose key exists already (the default one) is updated; others are created.
    for (const account of scenario.accounts ?? []) {
      const { ref, ...written } = account;
      const input = written.api_key === undefined ? written : { ...written, api_key: this.keyOf(written.api_key) };
      const existing = this.sim.control.accounts.list().data.find((a) => input.api_key !== undefined && a.api_key === input.api_key);
      const created = existing ? this.sim.control.accounts.patch(existing.id, input) : this.sim.control.accounts.create(input);
      if (ref) this.refs[ref] = { id: created.id };
    }
    const given = scenario.given ?? {};
    // issue 27: the catalog first, so every assistant is checked against it.
    if (given.catalog !== undefined) {
      try {
        this.sim.control.catalog.set(given.catalog);
      } catch (error) {
        const { path, message } = catalogRefusal(error);
        this.fail(`The catalog was refused: ${message}`, ['given', 'catalog', ...path]);
      }
    }
    for (const [i, n] of (given.phone_numbers ?? []).entries()) {
      const at = ['given', 'phone_numbers', i];
      const accountId = this.sim.control.accounts.list().data.find((a) => a.api_key === this.keyOf(n.key ?? this.defaultKey))?.id;
      if (accountId === undefined) this.fail(`No account has the key "${n.key ?? this.defaultKey}".`, at);
      let number: Json;
      if (n.type === 'normal') {
        const query = new URLSearchParams({ country_code: n.country_code ?? 'US', ...(n.contains && { contains: n.contains }) });
        const found = (await this.create('GET', `/user/phone-numbers/search?${query}`, undefined, n.key, at)).data as Json[];
        const offer = n.phone_number ? found.find((o) => o.phone_number === n.phone_number) : found[0];
        if (!offer) this.fail('No number of the search matches.', at);
        number = (await this.create('POST', '/user/phone-numbers/purchase', { phone_number: offer.phone_number }, n.key, at)).data as Json;
      } else {
        if (!n.phone_number) this.fail('A sip or caller_id number needs phone_number.', at);
        try {
          number = this.sim.control.phoneNumbers.add({ account_id: accountId, type: n.type, phone_number: n.phone_number });
        } catch (error) {
          this.fail(`The number was refused: ${(error as Error).message}`, this.refusedAt((error as SimError).body, at));
        }
      }
      if (n.ref) this.refs[n.ref] = { id: number.id as number, phone_number: number.phone_number as string };
    }
    // Knowledge bases and tools come before the assistants that name them.
    for (const [i, item] of (given.knowledgebases ?? []).entries()) {
      const at = ['given', 'knowledgebases', i];
      const { ref, key, documents, ...rest } = item as Json;
      const created = (await this.create('POST', '/user/knowledgebases', this.resolve(rest, at), key as string | undefined, at)).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: created.id as number };
      for (const [d, document] of ((documents ?? []) as Json[]).entries()) {
        const docAt = [...at, 'documents', d];
        const { ref: docRef, file, ...fields } = document;
        const path = `/user/knowledgebases/${created.id}/documents`;
        const resolved = this.resolve(fields, docAt) as Json;
        const made = (
          file === undefined
            ? await this.create('POST', path, resolved, key as string | undefined, docAt)
            : await this.create('POST', path, uploadForm(resolved, file as GivenUpload), key as string | undefined, docAt, { 'content-type': `multipart/form-data; boundary=${FORM_BOUNDARY}` })
        ).data as Json;
        if (typeof docRef === 'string') this.refs[docRef] = { id: made.id as number };
      }
    }
    for (const [i, item] of (given.tools ?? []).entries()) {
      const at = ['given', 'tools', i];
      const { ref, key, ...rest } = item as Json;
      const created = (await this.create('POST', '/user/tools', this.resolve(rest, at), key as string | undefined, at)).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: created.id as number };
    }
    for (const [i, item] of (given.sip_trunks ?? []).entries()) {
      const at = ['given', 'sip_trunks', i];
      const { ref, key, ...rest } = item as Json;
      const created = (await this.create('POST', '/user/phone-numbers/sip-trunks', this.resolve(rest, at), key as string | undefined, at)).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: created.id as number, phone_number: created.phone_number as string };
    }
    for (const [i, item] of (given.sms ?? []).entries()) {
      const at = ['given', 'sms', i];
      const { ref, key, ...rest } = item as Json;
      const sent = (await this.create('POST', '/user/sms', this.resolve(rest, at), key as string | undefined, at)).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: sent.sms_id as string };
    }
    for (const kind of ['folders', 'labels'] as const) {
      for (const [i, item] of (given[kind] ?? []).entries()) {
        const at = ['given', kind, i];
        const { ref, key, ...rest } = item as Json;
        const created = (await this.create('POST', `/user/${kind}`, this.resolve(rest, at), key as string | undefined, at)).data as Json;
        if (typeof ref === 'string') this.refs[ref] = { id: created.id as number };
      }
    }
    for (const [i, item] of (given.assistants ?? []).entries()) {
      const at = ['given', 'assistants', i];
      const { ref, key, ...rest } = item as Json;
      const created = (await this.create('POST', '/user/assistant', this.resolve(rest, at), key as string | undefined, at)).data as Json;
      const read = (await this.create('GET', `/user/assistant/${created.id}`, undefined, key as string | undefined, at)).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: created.id as number, uuid: read.uuid as string };
    }
    for (const [i, s] of (given.senders ?? []).entries()) {
      const at = ['given', 'senders', i];
      const assistant = s.assistant === undefined ? undefined : s.assistant === null ? null : this.refId(s.assistant, [...at, 'assistant']);
      const fields = {
        ...(assistant !== undefined && { assistant_id: assistant }),
        ...(s.messaging_limit !== undefined && { messaging_limit: s.messaging_limit }),
        ...(s.read_receipts_webhook_url !== undefined && { read_receipts_webhook_url: s.read_receipts_webhook_url }),
      };
      try {
        if (s.id !== undefined) {
          this.sim.control.msgapp.patchSender(Number(this.refId(s.id, [...at, 'id'])), asInput({ ...(s.online !== undefined && { online: s.online }), ...fields }));
        } else {
          // live-platform H.5: a sender of one's own.
          const { id: _id, ref: name, online, assistant: _assistant, ...own } = s;
          const created = this.sim.control.msgapp.createSender(asInput({ ...own, ...fields, ...(online !== undefined && { status: online ? 'online' : 'offline' }) }));
          if (typeof name === 'string') this.refs[name] = { id: created.id, phone_number: created.phone_number };
        }
      } catch (error) {
        const names = { assistant_id: 'assistant' };
        this.fail(`The sender was refused: ${inScenarioWords(error, names)}`, this.refusedAt((error as SimError).body, at, names));
      }
    }
    for (const [i, t] of (given.templates ?? []).entries()) {
      const at = ['given', 'templates', i];
      const { ref: name, sender, ...rest } = t;
      try {
        const created = this.sim.control.msgapp.createTemplate(asInput({ ...rest, sender_id: this.refId(sender, [...at, 'sender']) }));
        if (typeof name === 'string') this.refs[name] = { id: created.id };
      } catch (error) {
        const names = { sender_id: 'sender' };
        this.fail(`The template was refused: ${inScenarioWords(error, names)}`, this.refusedAt((error as SimError).body, at, names));
      }
    }
    for (const [i, item] of (given.campaigns ?? []).entries()) {
      const at = ['given', 'campaigns', i];
      const { ref, key, assistant, ...rest } = item as Json;
      const bodyWithAssistant = { ...(assistant !== undefined && { assistant_id: this.refId(assistant, [...at, 'assistant']) }), ...rest };
      const created = (await this.create('POST', '/user/campaign', this.resolve(bodyWithAssistant, at), key as string | undefined, at, undefined, { assistant_id: 'assistant' })).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: created.id as number };
    }
    for (const [i, item] of (given.leads ?? []).entries()) {
      const at = ['given', 'leads', i];
      const { ref, key, campaign, ...rest } = item as Json;
      const bodyWithCampaign = { ...(campaign !== undefined && { campaign_id: this.refId(campaign, [...at, 'campaign']) }), ...rest };
      const created = (await this.create('POST', '/user/lead', this.resolve(bodyWithCampaign, at), key as string | undefined, at, undefined, { campaign_id: 'campaign' })).data as Json;
      if (typeof ref === 'string') this.refs[ref] = { id: created.id as number, phone_number: created.phone_number as string };
    }
    // The scripts come after the resources they name and before conversation messages, which they answer.
    if (scenario.outcomes) {
      const rules = Array.isArray(scenario.outcomes)
        ? scenario.outcomes
        : Object.entries(scenario.outcomes).map(([phone_number, outcomes]) => ({ match: { phone_number }, outcomes }));
      this.sim.control.outcomes.set({ rules: asInput(this.resolve(rules, ['outcomes'])) });
    }
    if (scenario.msgapp_outcomes) {
      const rules = Array.isArray(scenario.msgapp_outcomes)
        ? scenario.msgapp_outcomes
        : Object.entries(scenario.msgapp_outcomes).map(([recipient_phone, outcomes]) => ({ match: { recipient_phone }, outcomes }));
      this.sim.control.msgapp.outcomes.set({ rules: asInput(this.resolve(rules, ['msgapp_outcomes'])) });
    }
    if (scenario.replies) this.sim.control.replies.set({ rules: asInput(this.resolve(scenario.replies, ['replies'])) });
    for (const [i, rule] of (scenario.webhook_failures ?? []).entries()) this.sim.control.webhooks.failNext(asInput(this.resolve(rule, ['webhook_failures', i])));
    for (const [i, c] of (given.conversations ?? []).entries()) {
      const at = ['given', 'conversations', i];
      const uuid = this.refField(c.assistant.replace(/^\$/, ''), 'uuid', [...at, 'assistant']);
      const created = await this.create('POST', '/conversations', { assistant_id: uuid, ...(c.type && { type: c.type }), ...(c.variables && { variables: this.resolve(c.variables, at) }) }, undefined, at);
      const id = created.conversation_id as string;
      for (const [m, text] of (c.messages ?? []).entries()) await this.create('POST', `/conversations/${id}/messages`, { message: text }, undefined, [...at, 'messages', m]);
      if (c.ref) this.refs[c.ref] = { id, uuid: id };
    }
  }

  private async all(path: string): Promise<Json[]> {
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const res = await this.call('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
      const body = res.body as { data: Json[]; last_page: number };
      items.push(...body.data);
      if (page >= body.last_page) return items;
    }
  }

  /** Runs one step; answers its summary and the mismatches of an expectation. */
  async step(step: ParsedStep, onProgress?: (message: string) => void): Promise<{ summary: string; mismatches: Mismatch[]; expectation: boolean }> {
    const at = ['steps', step.index, step.kind];
    const v = this.resolve(step.value, ['steps', step.index]) as Json;
    const arg = v[step.kind] as Json;
    switch (step.kind) {
      case 'request': {
        const [method, path] = (v.request as string).split(/\s+/);
        const key = v.key === undefined ? this.defaultKey : (v.key as string | null);
        const file = v.file as GivenUpload | undefined;
        const res =
          file === undefined
            ? await this.call(method!, path!, v.body, key)
            : await this.call(method!, path!, uploadForm((v.body ?? {}) as Json, file), key, { 'content-type': `multipart/form-data; boundary=${FORM_BOUNDARY}` });
        const expect = (v.expect ?? {}) as { status?: number; body?: unknown };
        const mismatches: Mismatch[] = [];
        // A ref names an id of the answer (a created resource) for the steps after this one.
        for (const [name, at] of Object.entries((step.value.refs ?? {}) as Record<string, string>)) {
          const value = valueAt(res.body, at.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)));
          if (typeof value === 'number' || typeof value === 'string') this.refs[name] = { id: value, ...(typeof value === 'string' && { uuid: value }) };
          else mismatches.push({ path: `refs.${name}`, expected: `an id at ${at}`, actual: value });
        }
        if (expect.status !== undefined && res.status !== expect.status) mismatches.push({ path: 'status', expected: expect.status, actual: res.status });
        if (expect.body !== undefined) partialMatch(expect.body, res.body, 'body', mismatches);
        return { summary: `${method} ${path} → ${res.status}`, mismatches, expectation: v.expect !== undefined };
      }
      case 'advance': {
        const res = await underStepKeys({ by: 'advance' }, () => this.sim.control.clock.advance({ by: v.advance as string }));
        return { summary: `${v.advance} (${res.ran} events)`, mismatches: [], expectation: false };
      }
      case 'advance_to': {
        const res = await underStepKeys({ to: 'advance_to' }, () => this.sim.control.clock.advance({ to: v.advance_to as string }));
        return { summary: `to ${v.advance_to} (${res.ran} events)`, mismatches: [], expectation: false };
      }
      case 'run_until_idle': {
        const limit = typeof v.run_until_idle === 'object' ? (v.run_until_idle as { max_events: number }).max_events : Infinity;
        let ran = 0;
        // In chunks, so a long run can report progress.
        for (;;) {
          const chunk = Math.min(50_000, limit - ran);
          const res = await this.sim.control.clock.runUntilIdle({ max_events: chunk });
          ran += res.ran;
          if (res.ran < chunk || ran >= limit) break;
          onProgress?.(`… ${ran.toLocaleString('en-US')} events, clock at ${formatSqlUtc(this.sim.clock.now())}`);
        }
        return { summary: `${ran} events`, mismatches: [], expectation: false };
      }
      case 'customer_message': {
        const sender = this.refId(arg.sender ?? 1, [...at, 'sender']);
        const res = await underStepKeys({ sender_id: 'sender' }, () => this.sim.control.msgapp.inbound(asInput({ ...arg, sender_id: sender, sender: undefined })));
        const said = arg.text ?? (arg.voice_note ? 'voice note' : `[${String((arg.media as { type?: unknown } | undefined)?.type ?? "media")}]`);
        return { summary: `${arg.from}: ${JSON.stringify(said)} → conversation ${res.conversation_id}`, mismatches: [], expectation: false };
      }
      case 'inbound_call': {
        const res = this.sim.control.calls.inbound(asInput(arg));
        return { summary: `${arg.from} → ${arg.to}: call ${res.call_id}`, mismatches: [], expectation: false };
      }
      case 'expect_lead': {
        const { lead, phone_number, campaign, ...fields } = arg;
        const query = new URLSearchParams();
        if (campaign !== undefined) query.set('campaign_id', String(this.refId(campaign, [...at, 'campaign'])));
        const leads = (await this.all(`/user/leads?${query}`)).filter(
          (l) => (lead === undefined || l.id === this.refId(lead, [...at, 'lead'])) && (phone_number === undefined || l.phone_number === phone_number),
        );
        const name = String(lead ?? phone_number ?? 'lead');
        if (leads.length !== 1) return { summary: name, mismatches: [{ path: 'leads matching', expected: 1, actual: leads.length }], expectation: true };
        return { summary: `${name} ${JSON.stringify(fields)}`, mismatches: partialMatch(fields, leads[0], 'lead'), expectation: true };
      }
      case 'expect_leads': {
        const { campaign, ...rest } = arg;
        const query = campaign === undefined ? '' : `?campaign_id=${this.refId(campaign, [...at, 'campaign'])}`;
        return { summary: JSON.stringify(rest), mismatches: collectionMatch(await this.all(`/user/leads${query}`), rest, 'leads'), expectation: true };
      }
      case 'expect_calls': {
        const { phone_number, campaign, ...rest } = arg;
        const calls = (await this.all('/user/calls'))
          .sort((a, b) => (a.id as number) - (b.id as number))
          .filter(
            (c) =>
              (phone_number === undefined || c.client_phone_number === phone_number) &&
              (campaign === undefined || c.campaign_id === this.refId(campaign, [...at, 'campaign'])),
          );
        return { summary: JSON.stringify(arg), mismatches: collectionMatch(calls, rest, 'calls'), expectation: true };
      }
      case 'expect_campaign': {
        const { campaign, ...fields } = arg;
        const id = this.refId(campaign, [...at, 'campaign']);
        const found = ((await this.call('GET', '/user/campaigns')).body as unknown as Json[]).find((c) => c.id === id);
        return { summary: `${campaign} ${JSON.stringify(fields)}`, mismatches: partialMatch(fields, found, 'campaign'), expectation: true };
      }
      case 'expect_assistant': {
        const { assistant, ...fields } = arg;
        const res = await this.call('GET', `/user/assistant/${this.refId(assistant, [...at, 'assistant'])}`);
        return { summary: `${assistant} ${JSON.stringify(fields)}`, mismatches: partialMatch(fields, res.body.data, 'assistant'), expectation: true };
      }
      case 'expect_knowledgebase': {
        const { knowledgebase, documents, ...fields } = arg;
        const id = this.refId(knowledgebase, [...at, 'knowledgebase']);
        const mismatches = partialMatch(fields, (await this.call('GET', `/user/knowledgebases/${id}`)).body.data, 'knowledgebase');
        if (documents !== undefined) {
          const listed = ((await this.call('GET', `/user/knowledgebases/${id}/documents`)).body.data ?? []) as Json[];
          mismatches.push(...collectionMatch(listed, documents as Json, 'documents'));
        }
        return { summary: `${knowledgebase} ${JSON.stringify(fields)}`, mismatches, expectation: true };
      }
      case 'expect_tool': {
        const { tool, ...fields } = arg;
        const res = await this.call('GET', `/user/tools/${this.refId(tool, [...at, 'tool'])}`);
        return { summary: `${tool} ${JSON.stringify(fields)}`, mismatches: partialMatch(fields, res.body, 'tool'), expectation: true };
      }
      case 'expect_conversation': {
        const { conversation, ...fields } = arg;
        const uuid = this.refField(String(conversation).replace(/^\$/, ''), 'uuid', [...at, 'conversation']);
        const read = (await this.call('GET', `/conversations/${uuid}`, undefined, null)).body;
        const listed = (await this.all('/user/conversations')).find((c) => c.id === uuid) ?? {};
        return { summary: `${conversation} ${JSON.stringify(fields)}`, mismatches: partialMatch(fields, { ...listed, history: read.history, variables: read.variables }, 'conversation'), expectation: true };
      }
      case 'expect_deliveries': {
        const deliveries = (await this.call('GET', '/__sim/webhooks/deliveries')).body.data as Json[];
        return { summary: JSON.stringify(arg), mismatches: collectionMatch(deliveries, arg, 'deliveries'), expectation: true };
      }
      case 'expect_events': {
        const { type, ...rest } = arg;
        const events = this.sim.events.history().filter((e) => type === undefined || e.type === type).map((e) => ({ type: e.type, at: formatSqlUtc(e.at), ...e.data }));
        return { summary: JSON.stringify(arg), mismatches: collectionMatch(events, rest, 'events'), expectation: true };
      }
      case 'expect_balance': {
        const me = (await this.call('GET', '/user/me')).body;
        const expected = typeof v.expect_balance === 'number' ? { total_balance: v.expect_balance } : (v.expect_balance as Json);
        return { summary: JSON.stringify(v.expect_balance), mismatches: partialMatch(expected, me, 'me'), expectation: true };
      }
    }
  }
}

interface GivenUpload {
  name?: string;
  size?: number;
  content?: string;
}

const FORM_BOUNDARY = 'voxsim-scenario-form';

/** A multipart/form-data body of text fields and one file: `content`, else `size` bytes of "x" (default 1024). */
function uploadForm(fields: Json, file: GivenUpload): string {
  const part = (disposition: string, value: string, type?: string) =>
    `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${value}\r\n`;
  const text = Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]) => part(`name="${name}"`, typeof value === 'string' ? value : JSON.stringify(value)))
    .join('');
  const filename = (file.name ?? 'document').replace(/["\r\n]/g, '_');
  const content = file.content ?? 'x'.repeat(file.size ?? 1024);
  return `${text}${part(`name="file"; filename="${filename}"`, content, 'application/octet-stream')}--${FORM_BOUNDARY}--\r\n`;
}

/**
 * Applies a loaded scenario to `sim` (after resetting it to the scenario's seed and
 * start) and plays its steps.
 * @example const run = await playScenario(sim, loadScenario(text, file)); run.passed
 */
export async function playScenario(sim: ScenarioHost, loaded: LoadedScenario, options: RunOptions = {}): Promise<ScenarioRun> {
  const player = new Player(sim, loaded);
  // A scenario that names `$receiver` gets a local receiver for its webhooks, for the run.
  const receiver = JSON.stringify(loaded.scenario).includes('$receiver') ? new WebhookReceiver() : undefined;
  try {
    if (receiver) player.refs.receiver = { id: await receiver.start() };
    return await play(sim, player, loaded, options);
  } finally {
    await receiver?.stop();
  }
}

async function play(sim: ScenarioHost, player: Player, loaded: LoadedScenario, options: RunOptions): Promise<ScenarioRun> {
  await player.given();
  const results: StepResult[] = [];
  if (options.steps !== false) {
    for (const step of loaded.steps) {
      let outcome: { summary: string; mismatches: Mismatch[]; expectation: boolean };
      try {
        outcome = await player.step(step, options.onProgress);
      } catch (error) {
        if (error instanceof ScenarioError) throw error;
        outcome = { summary: `failed: ${(error as Error).message}`, mismatches: [{ path: 'step', expected: 'to run', actual: (error as Error).message }], expectation: true };
      }
      const location = step.line === null ? loaded.file : `${loaded.file}:${step.line}`;
      const result: StepResult = { index: step.index, kind: step.kind, line: step.line, location, at: sim.clock.now(), ok: outcome.mismatches.length === 0, ...outcome };
      results.push(result);
      options.onStep?.(result);
    }
  }
  return { name: loaded.scenario.name, file: loaded.file, refs: player.refs, steps: results, passed: results.every((r) => r.ok) };
}

/** One line of the timeline; a failed step adds its diff and where it is (`at file:line`). */
export function formatStep(result: StepResult): string {
  const mark = result.ok ? (result.expectation ? '✓' : '·') : '✗';
  const lines = [`  ${formatSqlUtc(result.at)}  ${mark} ${result.kind.padEnd(20)} ${result.summary}`];
  for (const m of result.mismatches) {
    lines.push(`        ${m.path}: expected ${JSON.stringify(m.expected)}, ${m.unknown_field ?? `got ${JSON.stringify(m.actual)}`}`);
  }
  if (!result.ok) lines.push(`        at ${result.location}`);
  return lines.join('\n');
}

/**
 * Applies a scenario's set-up without its steps (`POST /__sim/scenario`): the source is
 * YAML or JSON text, never a file path, or an object. A failure is a ScenarioError or an
 * Error whose message names the scenario.
 * @example await applyScenario(sim, 'name: demo\nseed: 7\n')
 */
export async function applyScenario(sim: ScenarioHost, source: string | ScenarioInput): Promise<{ name: string; refs: Record<string, Ref> }> {
  try {
    const run = await playScenario(sim, loadScenario(source, '<scenario>'), { steps: false });
    return { name: run.name, refs: run.refs };
  } catch (error) {
    if (error instanceof ScenarioError) throw error;
    throw new Error(`<scenario>: ${(error as Error).message}`);
  }
}
