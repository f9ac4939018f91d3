/**
 * The payload types of the platform API, the control API, webhooks and events, for
 * integrators' code and tests. Request bodies are the `z.input` of the schemas the
 * simulator validates with (what a client may send); records are the return types of the
 * serialisers that write every answer (what a client receives, spec wire unless said);
 * control inputs are the parameters of `sim.control`. Nothing here is written twice.
 * @example
 * import type { CreateAssistantRequest, Assistant } from 'voxsim'
 */
import type { z } from 'zod';
import type { serialiseClock, serialiseClockMove, serialiseDelivery, serialiseFailureRule } from './control/schema.js';
import type { Control, OutcomesInput } from './control/control.js';
import type { AccountInput as AccountInputSchema, AccountPatch, serialiseAccount, serialiseMe } from './domain/accounts/schema.js';
import type {
  AssistantInput,
  AssistantSwitchBody,
  AssistantWebhookBody,
  REQUIRED_ON_CREATE,
  serialiseAssistant,
  serialiseAssistantSummary,
} from './domain/assistants/schema.js';
import type { postCallPayload } from './domain/calls/lifecycle.js';
import type { CallListQuery as CallListQuerySchema, InsertCallBody, MakeCallBody, serialiseCall } from './domain/calls/schema.js';
import type { CreateCampaignBody, UpdateStatusBody, serialiseCampaign, serialiseStatusChange } from './domain/campaigns/schema.js';
import type { serialiseEligibleNumber, serialiseLanguage, serialiseModel, serialiseProvider, serialiseVoice } from './domain/catalog/schema.js';
import type { CreateFolderLabelBody, UpdateFolderLabelBody, serialiseFolderLabel } from './domain/folders-labels/schema.js';
import type {
  CreateDocumentBody,
  CreateKnowledgebaseBody,
  UpdateDocumentBody,
  UpdateKnowledgebaseBody,
  serialiseDocument,
  serialiseKnowledgebase,
  serialiseStoredDocument,
} from './domain/knowledgebases/schema.js';
import type { CreateSipTrunkBody, UpdateSipTrunkBody, serialiseSipTrunk } from './domain/sip-trunks/schema.js';
import type { SendSmsBody, serialiseSentSms, serialiseSms } from './domain/sms/schema.js';
import type { CreateToolBody, UpdateToolBody, serialiseTool } from './domain/tools/schema.js';
import type { endedPayload } from './domain/conversations/service.js';
import type {
  CreateConversationBody,
  EnableEndedWebhookBody,
  GenerateReplyBody,
  SendMessageBody,
  serialiseConversation,
  serialiseConversationRead,
  serialiseMessage,
} from './domain/conversations/schema.js';
import type { CreateLeadBody, LeadListQuery as LeadListQuerySchema, UpdateLeadBody, serialiseLead } from './domain/leads/schema.js';
import type { InboundBody, SendFreeformBody, SendTemplateBody, SenderPatchBody, serialiseSender, serialiseTemplate } from './domain/msgapp/schema.js';
import type { InsertNumberBody, PurchaseBody, SearchQuery, UpdateNumberBody, serialiseCharge, serialiseOffer, serialisePhoneNumber, serialisePurchased } from './domain/phone-numbers/schema.js';
import type { OutcomeRuleSchema, OutcomeRulesBody } from './engine/outcomes.js';
import type { ReplyRuleSchema, ReplyRulesBody } from './engine/replies.js';
import type {
  AdvanceBody,
  ChargesQuery,
  ClockModeBody,
  DocumentsQuery,
  DeliveriesQuery,
  EventStreamQuery,
  FaultBody,
  InboundCallBody,
  OverviewQuery,
  RequestsQuery,
  ResetBody,
  RunUntilIdleBody,
  WebhookFailureBody,
} from './control/schema.js';

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

// ---- Records as the API answers them (the serialisers' results) ----
export type Me = ReturnType<typeof serialiseMe>;
export type Assistant = ReturnType<typeof serialiseAssistant>;
export type AssistantSummary = ReturnType<typeof serialiseAssistantSummary>;
export type Campaign = ReturnType<typeof serialiseCampaign>;
export type CampaignStatusChange = ReturnType<typeof serialiseStatusChange>;
export type Lead = ReturnType<typeof serialiseLead>;
export type Call = ReturnType<typeof serialiseCall>;
export type PhoneNumber = ReturnType<typeof serialisePhoneNumber>;
export type NumberOffer = ReturnType<typeof serialiseOffer>;
export type PurchasedNumber = ReturnType<typeof serialisePurchased>;
export type Conversation = ReturnType<typeof serialiseConversation>;
export type ConversationWithMessages = ReturnType<typeof serialiseConversationRead>;
export type ChatMessage = ReturnType<typeof serialiseMessage>;
export type Voice = ReturnType<typeof serialiseVoice>;
export type Language = ReturnType<typeof serialiseLanguage>;
export type Model = ReturnType<typeof serialiseModel>;
export type Provider = ReturnType<typeof serialiseProvider>;
export type Knowledgebase = ReturnType<typeof serialiseKnowledgebase>;
export type Tool = ReturnType<typeof serialiseTool>;
export type KnowledgebaseDocument = ReturnType<typeof serialiseDocument>;
/** A folder or a label: `{id, name, color, assistants_count}`. */
export type Folder = ReturnType<typeof serialiseFolderLabel>;
export type Label = Folder;
export type SipTrunk = ReturnType<typeof serialiseSipTrunk>;
/** The `data` of a `POST /user/sms` answer. */
export type SentSms = ReturnType<typeof serialiseSentSms>;
export type EligibleNumber = ReturnType<typeof serialiseEligibleNumber>;
export type Sender = ReturnType<typeof serialiseSender>;
export type Template = ReturnType<typeof serialiseTemplate>;

// ---- Webhook bodies ----
/** The body of a post-call webhook. */
export type PostCallWebhook = ReturnType<typeof postCallPayload>;
/** The body of a conversation-ended webhook. */
export type ConversationEndedWebhook = ReturnType<typeof endedPayload>;

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
export type Account = ReturnType<typeof serialiseAccount>;
export type Charge = ReturnType<typeof serialiseCharge>;
/** A sent SMS as `GET /__sim/sms` shows it. */
export type SmsRecord = ReturnType<typeof serialiseSms>;
/** A knowledge base document with its stored source, as `GET /__sim/documents` shows it. */
export type StoredDocument = ReturnType<typeof serialiseStoredDocument>;
export type Delivery = ReturnType<typeof serialiseDelivery>;
export type WebhookFailureRule = ReturnType<typeof serialiseFailureRule>;
export type ClockState = ReturnType<typeof serialiseClock>;
export type ClockMoveResult = ReturnType<typeof serialiseClockMove>;
/** `sim.control`: every control operation, with typed inputs. */
export type SimControl = Control;
