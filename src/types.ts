/**
 * The payload types of the platform API, the control API, webhooks and events, for
 * integrators' code and tests. Request bodies are the `z.input` of the schemas the
 * simulator validates with (what a client may send); records and answers are the `z.output`
 * of the answer schemas the routes name for the OpenAPI document (what a client receives,
 * spec wire unless `Live...`), and the serialisers that write them are typed by the same
 * schemas; control inputs are the parameters of `sim.control`. Nothing here is written twice.
 * @example
 * import type { CreateAssistantRequest, Assistant } from 'voxsim'
 */
import type * as z from 'zod';
import type { EventMap, SimEvent as BusEvent, SimEventListener as BusEventListener, WireEvent as BusWireEvent } from './core/events.js';
import type { SimEventMap } from './domain/sim-events.js';
import type { Control, OutcomesInput } from './control/control.js';
import type { OverviewRecord } from './control/overview.js';
import type {
  AdvanceBody,
  ChargesQuery,
  ClockModeBody,
  ClockMoveRecord,
  ClockRecord,
  DeliveriesQuery,
  DeliveryRecord,
  DocumentsQuery,
  EventStreamQuery,
  FailureRuleRecord,
  FaultBody,
  HealthAnswer,
  InboundCallBody,
  OverviewQuery,
  RequestsQuery,
  ResetAnswer,
  ResetBody,
  RunUntilIdleBody,
  ToolCallRecord,
  WebhookFailureBody,
} from './control/schema.js';
import type { AccountInput as AccountInputSchema, AccountPatch, AccountRecord, MeRecord } from './domain/accounts/schema.js';
import type {
  AssistantInput,
  AssistantRecord,
  AssistantSummaryRecord,
  AssistantSwitchBody,
  AssistantWebhookBody,
  LiveAssistantRecord,
  REQUIRED_ON_CREATE,
} from './domain/assistants/schema.js';
import type { CallListQuery as CallListQuerySchema, CallRecord, InsertCallBody, LiveCallRecord, LivePostCallWebhookBody, MakeCallBody, PostCallWebhookBody } from './domain/calls/schema.js';
import type { CampaignRecord, CampaignStatusChangeRecord, CreateCampaignBody, UpdateStatusBody } from './domain/campaigns/schema.js';
import type { EligibleNumberRecord, LanguageRecord, ModelRecord, ProviderRecord, VoiceRecord } from './domain/catalog/schema.js';
import type {
  ChatMessageRecord,
  ConversationEndedWebhookBody,
  ConversationReadRecord,
  ConversationRecord,
  ConversationStarted,
  CreateConversationBody,
  EnableEndedWebhookBody,
  GenerateReplyBody,
  GeneratedReply,
  LiveConversationReadRecord,
  LiveConversationRecord,
  MessageReply,
  SendMessageBody,
} from './domain/conversations/schema.js';
import type { CreateFolderLabelBody, FolderLabelRecord, UpdateFolderLabelBody } from './domain/folders-labels/schema.js';
import type {
  CreateDocumentBody,
  CreateKnowledgebaseBody,
  DocumentRecord,
  KnowledgebaseRecord,
  LiveKnowledgebaseRecord,
  StoredDocumentRecord,
  UpdateDocumentBody,
  UpdateKnowledgebaseBody,
} from './domain/knowledgebases/schema.js';
import type { CreateLeadBody, LeadListQuery as LeadListQuerySchema, LeadRecord, UpdateLeadBody } from './domain/leads/schema.js';
import type {
  FreeformSentAnswer,
  InboundBody,
  LiveSenderRecord,
  SendFreeformBody,
  SendTemplateBody,
  SenderPatchBody,
  SenderRecord,
  SessionStatusAnswer,
  SessionStatusRecord,
  TemplateRecord,
  TemplateSentAnswer,
} from './domain/msgapp/schema.js';
import type {
  ChargeRecord,
  InsertNumberBody,
  LivePhoneNumberRecord,
  NicknamedNumberRecord,
  NumberOfferRecord,
  PhoneNumberRecord,
  PurchaseBody,
  PurchasedNumberRecord,
  SearchQuery,
  UpdateNumberBody,
} from './domain/phone-numbers/schema.js';
import type { CreateSipTrunkBody, SipTrunkRecord, UpdateSipTrunkBody } from './domain/sip-trunks/schema.js';
import type { SendSmsBody, SentSmsRecord, SmsRecord as SmsRecordSchema } from './domain/sms/schema.js';
import type { CreateToolBody, LiveToolRecord, ToolRecord, UpdateToolBody } from './domain/tools/schema.js';
import type { OutcomeRuleSchema, OutcomeRulesBody } from './engine/outcomes.js';
import type { ReplyRuleSchema, ReplyRulesBody } from './engine/replies.js';

// ---- Platform API request bodies and queries (z.input: what a client may send) ----
/** The fields of an assistant, each optional; those of `REQUIRED_ON_CREATE` required on create. */
export type CreateAssistantRequest = AssistantInput & { [K in (typeof REQUIRED_ON_CREATE)[number]]-?: NonNullable<AssistantInput[K]> };
export type UpdateAssistantRequest = AssistantInput;
export type AssistantSwitchRequest = z.input<typeof AssistantSwitchBody>;
export type AssistantWebhookRequest = z.input<typeof AssistantWebhookBody>;
export type CreateCampaignRequest = z.input<typeof CreateCampaignBody>;
export type UpdateCampaignStatusRequest = z.input<typeof UpdateStatusBody>;
export type CreateLeadRequest = z.input<typeof CreateLeadBody>;
export type UpdateLeadRequest = z.input<typeof UpdateLeadBody>;
export type LeadListQuery = z.input<typeof LeadListQuerySchema>;
export type MakeCallRequest = z.input<typeof MakeCallBody>;
export type CallListQuery = z.input<typeof CallListQuerySchema>;
export type PurchaseNumberRequest = z.input<typeof PurchaseBody>;
export type UpdateNumberRequest = z.input<typeof UpdateNumberBody>;
export type NumberSearchQuery = z.input<typeof SearchQuery>;
export type CreateConversationRequest = z.input<typeof CreateConversationBody>;
export type SendMessageRequest = z.input<typeof SendMessageBody>;
export type GenerateReplyRequest = z.input<typeof GenerateReplyBody>;
export type EnableConversationEndedWebhookRequest = z.input<typeof EnableEndedWebhookBody>;
export type SendTemplateRequest = z.input<typeof SendTemplateBody>;
export type SendFreeformRequest = z.input<typeof SendFreeformBody>;
export type CreateKnowledgebaseRequest = z.input<typeof CreateKnowledgebaseBody>;
export type UpdateKnowledgebaseRequest = z.input<typeof UpdateKnowledgebaseBody>;
/** A document by JSON (a website); a file document is the same fields as multipart/form-data plus `file`. */
export type CreateDocumentRequest = z.input<typeof CreateDocumentBody>;
export type UpdateDocumentRequest = z.input<typeof UpdateDocumentBody>;
export type CreateToolRequest = z.input<typeof CreateToolBody>;
export type UpdateToolRequest = z.input<typeof UpdateToolBody>;
/** The body of a folder or label create (both take the same fields). */
export type CreateFolderRequest = z.input<typeof CreateFolderLabelBody>;
export type UpdateFolderRequest = z.input<typeof UpdateFolderLabelBody>;
export type CreateLabelRequest = CreateFolderRequest;
export type UpdateLabelRequest = UpdateFolderRequest;
export type CreateSipTrunkRequest = z.input<typeof CreateSipTrunkBody>;
export type UpdateSipTrunkRequest = z.input<typeof UpdateSipTrunkBody>;
export type SendSmsRequest = z.input<typeof SendSmsBody>;

// ---- Records and answers as the API sends them (z.output of the answer schemas; the serialisers return these) ----
export type Me = z.output<typeof MeRecord>;
/** The read record on the spec wire; `LiveAssistant` on the live wire. */
export type Assistant = z.output<typeof AssistantRecord>;
export type LiveAssistant = z.output<typeof LiveAssistantRecord>;
export type AssistantSummary = z.output<typeof AssistantSummaryRecord>;
export type Campaign = z.output<typeof CampaignRecord>;
export type CampaignStatusChange = z.output<typeof CampaignStatusChangeRecord>;
export type Lead = z.output<typeof LeadRecord>;
/** A call on the spec wire; `LiveCall` on the live wire. */
export type Call = z.output<typeof CallRecord>;
export type LiveCall = z.output<typeof LiveCallRecord>;
export type PhoneNumber = z.output<typeof PhoneNumberRecord>;
export type LivePhoneNumber = z.output<typeof LivePhoneNumberRecord>;
export type NicknamedNumber = z.output<typeof NicknamedNumberRecord>;
export type NumberOffer = z.output<typeof NumberOfferRecord>;
export type PurchasedNumber = z.output<typeof PurchasedNumberRecord>;
export type Conversation = z.output<typeof ConversationRecord>;
export type LiveConversation = z.output<typeof LiveConversationRecord>;
export type ConversationWithMessages = z.output<typeof ConversationReadRecord>;
export type LiveConversationWithMessages = z.output<typeof LiveConversationReadRecord>;
export type ChatMessage = z.output<typeof ChatMessageRecord>;
/** `POST /conversations`. */
export type ConversationStartedResponse = z.output<typeof ConversationStarted>;
/** `POST /conversations/{uuid}/messages`. */
export type MessageReplyResponse = z.output<typeof MessageReply>;
/** `POST /user/ai/generate-reply`. */
export type GenerateReplyResponse = z.output<typeof GeneratedReply>;
export type Voice = z.output<typeof VoiceRecord>;
export type Language = z.output<typeof LanguageRecord>;
export type Model = z.output<typeof ModelRecord>;
export type Provider = z.output<typeof ProviderRecord>;
export type Knowledgebase = z.output<typeof KnowledgebaseRecord>;
export type LiveKnowledgebase = z.output<typeof LiveKnowledgebaseRecord>;
export type Tool = z.output<typeof ToolRecord>;
export type LiveTool = z.output<typeof LiveToolRecord>;
export type KnowledgebaseDocument = z.output<typeof DocumentRecord>;
/** A folder or a label: `{id, name, color, assistants_count}`. */
export type Folder = z.output<typeof FolderLabelRecord>;
export type Label = Folder;
export type SipTrunk = z.output<typeof SipTrunkRecord>;
/** The `data` of a `POST /user/sms` answer. */
export type SentSms = z.output<typeof SentSmsRecord>;
export type EligibleNumber = z.output<typeof EligibleNumberRecord>;
export type Sender = z.output<typeof SenderRecord>;
export type LiveSender = z.output<typeof LiveSenderRecord>;
export type Template = z.output<typeof TemplateRecord>;
/** `session_status` of the messaging answers. */
export type SessionStatus = z.output<typeof SessionStatusRecord>;
/** `GET /user/msgapp/session-status`. */
export type SessionStatusResponse = z.output<typeof SessionStatusAnswer>;
/** `POST /user/msgapp/send`. */
export type SendTemplateResponse = z.output<typeof TemplateSentAnswer>;
/** `POST /user/msgapp/send-freeform`. */
export type SendFreeformResponse = z.output<typeof FreeformSentAnswer>;
/** The paginators: the spec wire's page, Laravel's full page (live wire) and the cursor page (`GET /user/conversations`). */
export type { Page, LaravelPage, CursorPage } from './core/pagination.js';

// ---- Webhook bodies ----
/** The body of a post-call webhook (the OpenAPI document's `webhooks.post_call`). */
export type PostCallWebhook = z.output<typeof PostCallWebhookBody>;
/** The body of a post-call webhook on the live wire (live-platform H.2: the reference's fields, no `total_cost`). */
export type LivePostCallWebhook = z.output<typeof LivePostCallWebhookBody>;
/** The body of a conversation-ended webhook (`webhooks.conversation_ended`). */
export type ConversationEndedWebhook = z.output<typeof ConversationEndedWebhookBody>;

// ---- Control API: inputs (z.input) and answers ----
export type ResetInput = z.input<typeof ResetBody>;
export type AdvanceInput = z.input<typeof AdvanceBody>;
export type RunUntilIdleInput = z.input<typeof RunUntilIdleBody>;
export type ClockModeInput = z.input<typeof ClockModeBody>;
export type AccountInput = z.input<typeof AccountInputSchema>;
export type AccountPatchInput = z.input<typeof AccountPatch>;
export type InsertNumberInput = z.input<typeof InsertNumberBody>;
export type InsertCallInput = z.input<typeof InsertCallBody>;
export type InboundCallInput = z.input<typeof InboundCallBody>;
export type OutcomeRuleInput = z.input<typeof OutcomeRuleSchema>;
export type OutcomeRulesInput = z.input<typeof OutcomeRulesBody>;
export type { OutcomesInput };
export type ReplyRuleInput = z.input<typeof ReplyRuleSchema>;
export type ReplyRulesInput = z.input<typeof ReplyRulesBody>;
export type WebhookFailureInput = z.input<typeof WebhookFailureBody>;
export type DeliveriesQuery = z.input<typeof DeliveriesQuery>;
export type ChargesQuery = z.input<typeof ChargesQuery>;
export type DocumentsQuery = z.input<typeof DocumentsQuery>;
export type SmsQuery = z.input<typeof ChargesQuery>;
export type RequestsQuery = z.input<typeof RequestsQuery>;
export type OverviewQuery = z.input<typeof OverviewQuery>;
export type EventStreamQuery = z.input<typeof EventStreamQuery>;
export type FaultInput = z.input<typeof FaultBody>;
export type MsgappInboundInput = z.input<typeof InboundBody>;
export type SenderPatchInput = z.input<typeof SenderPatchBody>;
export type Account = z.output<typeof AccountRecord>;
export type Charge = z.output<typeof ChargeRecord>;
/** A sent SMS as `GET /__sim/sms` shows it. */
export type SmsRecord = z.output<typeof SmsRecordSchema>;
/** A knowledge base document with its stored source, as `GET /__sim/documents` shows it. */
export type StoredDocument = z.output<typeof StoredDocumentRecord>;
export type Delivery = z.output<typeof DeliveryRecord>;
export type WebhookFailureRule = z.output<typeof FailureRuleRecord>;
/** A mid-call tool request and what came of it, as `GET /__sim/tool-calls` shows it (live-platform H.10). */
export type ToolCall = z.output<typeof ToolCallRecord>;
export type ClockState = z.output<typeof ClockRecord>;
export type ClockMoveResult = z.output<typeof ClockMoveRecord>;
/** `GET /__sim/health`. */
export type HealthResponse = z.output<typeof HealthAnswer>;
/** `POST /__sim/reset`. */
export type ResetResponse = z.output<typeof ResetAnswer>;
/** `GET /__sim/overview`: the dashboard's aggregate. */
export type Overview = z.output<typeof OverviewRecord>;
/** `sim.control`: every control operation, with typed inputs. */
export type SimControl = Control;
/** A scenario as an object (the JSON form of a scenario file): `sim.loadScenario(...)`, `sim.control.scenario.load(...)`. */
export type { ScenarioInput } from './scenario/schema.js';
/**
 * A catalog document as written (docs/catalog.md, catalog.schema.json): `createSimulator({ catalog })`,
 * `sim.control.catalog.set(...)`, `voxsim serve --catalog`, a scenario's `given.catalog`.
 */
export type { CatalogDocumentInput } from './domain/catalog/document.js';
/** A whole catalog document, every table and implied field written out: `GET /__sim/catalog`, `voxsim catalog pull`. */
export type { FullCatalogDocument } from './domain/catalog/document.js';

// ---- Events (z.output of SIM_EVENT_SCHEMAS) ----
/** Each event type of `sim.events` and `/__sim/events` with its `data`. */
export type { SimEventMap, SimEventType } from './domain/sim-events.js';
/**
 * An event of `sim.events` (or, given another map, of that bus): checking `type` narrows `data`.
 * @example sim.events.on('*', (e: SimEvent) => { if (e.type === 'call.status') console.log(e.data.call_id) })
 */
export type SimEvent<M extends EventMap = SimEventMap> = BusEvent<M>;
/** A listener of every event (`sim.events.on('*', listener)`, `sim.control.events.subscribe`). */
export type SimEventListener<M extends EventMap = SimEventMap> = BusEventListener<M>;
/** An event as one message of the `/__sim/events` WebSocket stream: times as ISO 8601 text, with `at_ms` beside. */
export type WireEvent<M extends EventMap = SimEventMap> = BusWireEvent<M>;
