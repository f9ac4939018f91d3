/** Every table of a simulator, with the secondary indexes its queries read. */
import { DeferredFills, Table, type TableSnapshot } from '../core/store.js';
import type { Account } from './accounts/schema.js';
import type { Assistant } from './assistants/schema.js';
import { callCodec } from './calls/row.js';
import type { Call } from './calls/schema.js';
import type { Campaign } from './campaigns/schema.js';
import type { ChatMessage, Conversation } from './conversations/schema.js';
import type { Knowledgebase, KnowledgebaseDocument } from './knowledgebases/schema.js';
import { campaignStatusKey, type Lead, type SecondaryContact } from './leads/schema.js';
import { CALL_TYPES } from './calls/schema.js';
import { CallGroups, type CallGroup } from './calls/groups.js';
import type { ChannelMessage, Sender, Session, Template } from './msgapp/schema.js';
import type { Charge, NumberOffer, PhoneNumber } from './phone-numbers/schema.js';
import type { Tool } from './tools/schema.js';
import type { Folder, Label } from './folders-labels/schema.js';
import type { Sms } from './sms/schema.js';

const callCreatedAt = (c: Call) => c.created_at;

/** Each type's place in CALL_TYPES (a lookup instead of a search on every insert). */
const TYPE_PLACES: ReadonlyMap<string, number> = new Map(CALL_TYPES.map((type, i) => [type, i]));

/** The key of an account's calls with one client number: `<account>|<number>` (the account's keys share the prefix). */
export function callNumberKey(accountId: number, number: string): string {
  return `${accountId}|${number}`;
}

/** The integer key of an account's calls of one type. */
export function callTypeKey(accountId: number, type: Call['type']): number {
  return accountId * 4 + (TYPE_PLACES.get(type) ?? -1);
}

export class Database {
  /** Each account's fixtures, written when one of their tables is first used (accounts/service createAccount). */
  readonly fixtures = new DeferredFills();
  // Indexes name the fields their keys read where rows change often (a balance charged per call, a campaign per dial).
  readonly accounts = new Table<Account>('accounts').index('api_key', (a) => a.api_key, { fields: ['api_key'] });
  readonly assistants = new Table<Assistant>('assistants')
    .index('account', (a) => a.account_id)
    .index('uuid', (a) => a.uuid)
    .index('phone_number', (a) => a.phone_number_id)
    .index('inbound_number', (a) => (a.type === 'inbound' ? a.phone_number_id : null))
    .index('knowledgebase', (a) => a.knowledgebase_id)
    .index('folder', (a) => a.folder_id ?? null);
  readonly phoneNumbers = new Table<PhoneNumber>('phone_numbers')
    .index('account', (n) => n.account_id)
    .index('number', (n) => n.phone_number);
  readonly numberOffers = new Table<NumberOffer>('number_offers')
    .index('account', (o) => o.account_id)
    .index('account_number', (o) => `${o.account_id}:${o.phone_number}`);
  readonly charges = new Table<Charge>('charges').index('account', (c) => c.account_id);
  readonly knowledgebases = new Table<Knowledgebase>('knowledgebases').index('account', (k) => k.account_id).fillFrom(this.fixtures);
  readonly tools = new Table<Tool>('tools').index('account', (t) => t.account_id).fillFrom(this.fixtures);
  readonly documents = new Table<KnowledgebaseDocument>('knowledgebase_documents')
    .index('account', (d) => d.account_id)
    .index('knowledgebase', (d) => d.knowledgebase_id)
    .fillFrom(this.fixtures);
  readonly campaigns = new Table<Campaign>('campaigns')
    .index('account', (c) => c.account_id, { fields: ['account_id'] })
    .index('assistant', (c) => c.assistant_id, { fields: ['assistant_id'] });
  // Each index names the fields its key reads: the dialer's many lead updates re-key only campaign_status.
  readonly leads = new Table<Lead>('leads')
    .index('account', (l) => l.account_id, { fields: ['account_id'], fewKeys: true })
    .index('campaign', (l) => l.campaign_id, { fields: ['campaign_id'], fewKeys: true })
    .index('campaign_status', (l) => campaignStatusKey(l.campaign_id, l.status), { fields: ['campaign_id', 'status'], fewKeys: true })
    // Keyed by the number alone, the row's own string (a key per lead joining the campaign would be a second string per lead).
    .index('number', (l) => l.phone_number, { fields: ['phone_number'] });
  readonly secondaryContacts = new Table<SecondaryContact>('secondary_contacts')
    .index('account', (c) => c.account_id)
    .index('lead', (c) => c.lead_id);
  /** The calls' groups (account, type, campaign, assistant) that `group_status` keys calls by, with their status; read through `callGroupsOf`. */
  private readonly callGroups = new CallGroups();
  // List calls reads its page from the newest ends of the keys its filters name (calls/service listCalls);
  // created_at grows with the id unless a record was inserted back-dated, so date filters binary-search it.
  // Only `group_status` moves when a call changes status (the dialer's hot path).
  readonly calls = new Table<Call>('calls', callCodec())
    .index('account', (c) => c.account_id, { fields: ['account_id', 'created_at'], monotone: callCreatedAt, fewKeys: true })
    .index('assistant', (c) => c.assistant_id, { fields: ['assistant_id', 'created_at'], monotone: callCreatedAt, fewKeys: true })
    .index('campaign', (c) => c.campaign_id, { fields: ['campaign_id', 'created_at'], monotone: callCreatedAt, fewKeys: true })
    // A call's status moves three or four times while the clock runs, with no list read in between: moved once, when read.
    .index('group_status', (c) => this.callGroups.key(c), { fields: ['account_id', 'type', 'campaign_id', 'assistant_id', 'status', 'created_at'], monotone: callCreatedAt, fewKeys: true, coalesce: true })
    .index('account_type', (c) => callTypeKey(c.account_id, c.type), { fields: ['account_id', 'type', 'created_at'], monotone: callCreatedAt, fewKeys: true })
    // Deferred: only the phone_number filter reads it, so a campaign's calls cost it nothing (a joined key string per
    // call, hashed on every insert) until someone filters by number.
    .index('account_number', (c) => callNumberKey(c.account_id, c.client_phone_number), { fields: ['account_id', 'client_phone_number', 'created_at'], monotone: callCreatedAt, deferred: true });
  readonly conversations = new Table<Conversation>('conversations')
    .index('account', (c) => c.account_id)
    .index('uuid', (c) => c.uuid)
    .index('assistant', (c) => c.assistant_id)
    .index('channel', (c) => (c.sender_id === null ? null : `${c.sender_id}:${c.customer_phone}`))
    .index('external', (c) => (c.external_identifier == null ? null : `${c.assistant_id}:${c.external_identifier}`));
  readonly messages = new Table<ChatMessage>('messages').index('account', (m) => m.account_id).index('conversation', (m) => m.conversation_id);
  readonly senders = new Table<Sender>('msgapp_senders').index('account', (s) => s.account_id).fillFrom(this.fixtures);
  readonly templates = new Table<Template>('msgapp_templates').index('account', (t) => t.account_id).index('sender', (t) => t.sender_id).fillFrom(this.fixtures);
  readonly sessions = new Table<Session>('msgapp_sessions')
    .index('account', (s) => s.account_id)
    .index('pair', (s) => `${s.sender_id}:${s.recipient_phone}`);
  readonly channelMessages = new Table<ChannelMessage>('msgapp_messages').index('account', (m) => m.account_id).index('sender', (m) => m.sender_id);
  readonly folders = new Table<Folder>('folders').index('account', (f) => f.account_id);
  readonly labels = new Table<Label>('labels').index('account', (l) => l.account_id);
  readonly sms = new Table<Sms>('sms').index('account', (m) => m.account_id);

  /** An account's call groups, every call keyed first (a group is made as its first call is keyed: `Table.keysCurrent`). */
  callGroupsOf(accountId: number): readonly CallGroup[] {
    this.calls.keysCurrent();
    return this.callGroups.ofAccount(accountId);
  }

  /**
   * Puts in up to `count` of the rows a restore left (`Table.unpackSome`), the next table's
   * that has any; answers whether it had any to put in. Until then the rows are held as
   * parsed: on the 100k-lead bench state a heap of about 420 MB, 175 MB once they are records.
   */
  unpackSome(count: number): boolean {
    for (const table of this.tables()) if (table.unpackSome(count)) return true;
    return false;
  }

  /** How many rows restores left that no table has put in yet (`unpackSome`). */
  get rowsWaiting(): number {
    let rows = 0;
    for (const table of this.tables()) rows += table.waiting;
    return rows;
  }

  /** Every table, in snapshot order (the state file walks them to write and observe them). */
  tables(): Table<{ id: number }>[] {
    return [
      this.accounts,
      this.assistants,
      this.phoneNumbers,
      this.numberOffers,
      this.charges,
      this.knowledgebases,
      this.tools,
      this.documents,
      this.campaigns,
      this.leads,
      this.secondaryContacts,
      this.calls,
      this.conversations,
      this.messages,
      this.senders,
      this.templates,
      this.sessions,
      this.channelMessages,
      this.folders,
      this.labels,
      this.sms,
    ] as unknown as Table<{ id: number }>[];
  }

  /** The names every snapshot must hold a table for. */
  tableNames(): string[] {
    return this.tables().map((t) => t.name);
  }

  /**
   * Tables newer than the snapshot format: a snapshot taken before they existed may lack
   * them, and restores with them empty (live-platform C.1, C.3, C.5: knowledge base
   * documents, folders, labels, SMS).
   */
  tablesNewerThanFormat(): string[] {
    return [this.documents, this.folders, this.labels, this.sms].map((t) => t.name);
  }

  clear(): void {
    this.fixtures.clear();
    this.callGroups.clear();
    for (const table of this.tables()) table.clear();
  }

  snapshot(): Record<string, TableSnapshot<{ id: number }>> {
    return Object.fromEntries(this.tables().map((t) => [t.name, t.snapshot()]));
  }

  /** Replaces every table's rows; `owned` rows are used as they are (see `Table.restore`). */
  restore(snapshot: Record<string, TableSnapshot<{ id: number }>>, owned = false): void {
    // The snapshot holds every row it had; fixtures still queued here belong to the state it replaces.
    this.fixtures.clear();
    this.callGroups.clear();
    for (const table of this.tables()) {
      const saved = snapshot[table.name];
      if (saved) table.restore(saved, owned);
      else table.clear();
    }
  }
}
