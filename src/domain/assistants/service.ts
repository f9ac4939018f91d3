/**
 * Assistant rules (spec: Assistant; Create-time rules 1-4; Update rules; decisions:
 * Mode change defaults, Voices and languages, Secondary languages).
 */
import { ErrorBag, cloneJson, ruleMessage } from '../../core/validation.js';
import type { Mode } from '../catalog/data.js';
import type { AccountCtx } from '../context.js';
import { isUsable } from '../phone-numbers/service.js';
import { ASSISTANT_MESSAGES, assistantErrors } from './errors.js';
import { DEFAULTS, TOOL_MESSAGES, type Assistant, type AssistantInput, type AssistantSettings } from './schema.js';

type Provided = AssistantInput;

/** The settings that depend on the engine mode, at the new mode's defaults (decisions: Mode change defaults). */
function modeDefaults(ctx: AccountCtx, mode: Mode, languageId: number): Partial<AssistantSettings> {
  const language = ctx.catalog.language(languageId);
  const pipeline = mode === 'pipeline';
  return {
    llm_model_id: pipeline ? (ctx.catalog.defaultModel('llm')?.id ?? null) : null,
    multimodal_model_id: pipeline ? null : (ctx.catalog.defaultModel(mode)?.id ?? null),
    chat_llm_fallback_id: null,
    turn_detection_threshold: null,
    synthesizer_provider_id: language?.default_synthesizer_provider_id ?? null,
    transcriber_provider_id: pipeline ? (language?.default_transcriber_provider_id ?? null) : null,
    knowledgebase_mode: 'function_call',
    fillers: false,
    allow_interruptions: true,
  };
}

/** Applies the provided fields over `base`; a null on a provider means the language default (spec: Assistant table). */
function applyInput(ctx: AccountCtx, base: AssistantSettings, input: Provided): AssistantSettings {
  const next = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined) next[key] = cloneJson(value);
  }
  const settings = next as unknown as AssistantSettings;
  const language = ctx.catalog.language(settings.language_id);
  if (input.synthesizer_provider_id === null) settings.synthesizer_provider_id = language?.default_synthesizer_provider_id ?? null;
  if (input.transcriber_provider_id === null) {
    settings.transcriber_provider_id = settings.mode === 'pipeline' ? (language?.default_transcriber_provider_id ?? null) : null;
  }
  return settings;
}

/** A language change keeps a provider only if it speaks the new language; otherwise the language default takes over. */
function followLanguage(ctx: AccountCtx, settings: AssistantSettings, input: Provided): void {
  const language = ctx.catalog.language(settings.language_id);
  if (!language) return;
  const synth = settings.synthesizer_provider_id === null ? undefined : ctx.catalog.synthesizer(settings.synthesizer_provider_id);
  if (input.synthesizer_provider_id === undefined && (!synth || !synth.language_ids.includes(language.id))) {
    settings.synthesizer_provider_id = language.default_synthesizer_provider_id;
  }
  if (settings.mode !== 'pipeline') return;
  const trans = settings.transcriber_provider_id === null ? undefined : ctx.catalog.transcriber(settings.transcriber_provider_id);
  if (input.transcriber_provider_id === undefined && (!trans || !trans.language_ids.includes(language.id))) {
    settings.transcriber_provider_id = language.default_transcriber_provider_id;
  }
}

/** Every rule that needs the catalog, the account or more than one field (spec: Create-time rules; decisions). */
function checkSettings(ctx: AccountCtx, s: AssistantSettings, input: Provided, selfId?: number): void {
  const bag = new ErrorBag();
  const { catalog } = ctx;
  const pipeline = s.mode === 'pipeline';

  const language = catalog.language(s.language_id);
  if (!language) bag.rule('language_id', 'exists');
  s.secondary_language_ids.forEach((id, i) => {
    if (!catalog.language(id)) bag.rule(`secondary_language_ids.${i}`, 'exists');
  });

  const voice = catalog.voice(s.voice_id);
  if (!voice) bag.rule('voice_id', 'exists');
  else if (!voice.modes.includes(s.mode)) bag.add('voice_id', ASSISTANT_MESSAGES.voiceIncompatible);

  // Rule 1: the model that drives the mode is required, and must be of that mode's type.
  if (pipeline) {
    if (s.llm_model_id === null) bag.add('llm_model_id', ASSISTANT_MESSAGES.llmModelRequired);
    else if (!catalog.model('llm', s.llm_model_id)) bag.rule('llm_model_id', 'exists');
    for (const field of ['multimodal_model_id', 'chat_llm_fallback_id', 'turn_detection_threshold'] as const) {
      if (input[field] !== undefined && input[field] !== null) bag.add(field, ASSISTANT_MESSAGES.realtimeOnly(field));
    }
  } else {
    if (s.multimodal_model_id === null) bag.add('multimodal_model_id', ASSISTANT_MESSAGES.multimodalModelRequired);
    else if (!catalog.model(s.mode as Exclude<Mode, 'pipeline'>, s.multimodal_model_id)) bag.rule('multimodal_model_id', 'exists');
    for (const field of ['llm_model_id', 'transcriber_provider_id'] as const) {
      if (input[field] !== undefined && input[field] !== null) bag.add(field, ASSISTANT_MESSAGES.pipelineOnly(field));
    }
    if (s.fillers) bag.add('fillers', ASSISTANT_MESSAGES.pipelineOnly('fillers'));
    if (!s.allow_interruptions) bag.add('allow_interruptions', ASSISTANT_MESSAGES.interruptionsRequired);
    if (s.knowledgebase_mode === 'prompt') bag.add('knowledgebase_mode', ASSISTANT_MESSAGES.knowledgebaseModeFunctionCall);
  }
  if (s.chat_llm_fallback_id !== null && !catalog.model('llm', s.chat_llm_fallback_id)) bag.rule('chat_llm_fallback_id', 'exists');

  if (s.synthesizer_provider_id !== null) {
    const provider = catalog.synthesizer(s.synthesizer_provider_id);
    if (!provider) bag.rule('synthesizer_provider_id', 'exists');
    else if (language && !provider.language_ids.includes(language.id)) bag.add('synthesizer_provider_id', ASSISTANT_MESSAGES.providerLanguage('synthesizer'));
  }
  if (s.transcriber_provider_id !== null && pipeline) {
    const provider = catalog.transcriber(s.transcriber_provider_id);
    if (!provider) bag.rule('transcriber_provider_id', 'exists');
    else if (language && !provider.language_ids.includes(language.id)) bag.add('transcriber_provider_id', ASSISTANT_MESSAGES.providerLanguage('transcriber'));
  }

  if (s.knowledgebase_id !== null && !ctx.knowledgebases.get(s.knowledgebase_id)) bag.rule('knowledgebase_id', 'exists');

  // live-platform C.3: the account's own folder and labels; a foreign or missing id is 422 on its field.
  if (s.folder_id != null && !ctx.folders.get(s.folder_id)) bag.rule('folder_id', 'exists');
  (input.label_ids ?? []).forEach((id, i) => {
    if (!ctx.labels.get(id)) bag.rule(`label_ids.${i}`, 'exists');
  });

  // Rules 2 and 3: the number belongs to the account; an inbound assistant cannot take a caller ID or a held number.
  if (s.phone_number_id !== null) {
    const number = ctx.phoneNumbers.get(s.phone_number_id);
    // A released number is still the account's until its period ends, but cannot be newly assigned.
    if (!number || (input.phone_number_id !== undefined && !isUsable(number))) bag.rule('phone_number_id', 'exists');
    else if (s.type === 'inbound') {
      if (number.type === 'caller_id') bag.add('phone_number_id', ASSISTANT_MESSAGES.callerIdInbound);
      else if (ctx.assistants.where('inbound_number', number.id).some((a) => a.id !== selfId)) bag.add('phone_number_id', ASSISTANT_MESSAGES.numberTaken);
    }
  }

  // Rule 3 for tools, and the plan's mid-call tool maximum (decisions: Plan).
  const seenTools = new Set<number>();
  s.tool_ids.forEach((id, i) => {
    if (!ctx.tools.get(id)) bag.rule(`tool_ids.${i}`, 'exists');
    else if (seenTools.has(id)) bag.rule(`tool_ids.${i}`, 'distinct');
    seenTools.add(id);
  });
  if (input.tool_ids && input.tool_ids.length > ctx.account.plan.max_tools) bag.rule('tool_ids', 'maxArray', { max: ctx.account.plan.max_tools });

  s.tools.forEach((tool, i) => {
    if (tool.type === 'warm_call_transfer' && !ctx.phoneNumbers.get(tool.outbound_phone_id)) bag.rule(`tools.${i}.outbound_phone_id`, 'exists');
    // live-platform G.2: the target is checked when the tools are written (a target deleted later stays, decision);
    // an assistant being created is the id the next insert takes.
    if (tool.type === 'assistant_transfer' && input.tools !== undefined) {
      const field = `tools.${i}.assistant_id`;
      if (tool.assistant_id === (selfId ?? ctx.assistants.nextId())) bag.add(field, ruleMessage(TOOL_MESSAGES.selfTransfer, field));
      else if (!ctx.assistants.get(tool.assistant_id)) bag.rule(field, 'exists');
    }
  });

  const names = new Set<string>();
  s.post_call_schema.forEach((item, i) => {
    if (names.has(item.name)) bag.rule(`post_call_schema.${i}.name`, 'distinct');
    names.add(item.name);
  });

  if (s.is_webhook_active && s.webhook_url === null) bag.add('webhook_url', ASSISTANT_MESSAGES.webhookUrlRequired);

  // Rule 4: every violation is one 422.
  if (!bag.empty) throw assistantErrors.invalid(bag.errors, selfId === undefined ? 'create' : 'update');
}

function settingsOf(a: Assistant): AssistantSettings {
  const { id: _id, account_id: _account, uuid: _uuid, status: _status, created_at: _c, updated_at: _u, ...settings } = a;
  return cloneJson(settings);
}

function finish(s: AssistantSettings): AssistantSettings {
  // decisions: Secondary languages: duplicates removed, the primary may stay.
  s.secondary_language_ids = [...new Set(s.secondary_language_ids)];
  // live-platform C.3: labels are de-duplicated, keeping the first place of each.
  if (s.label_ids) s.label_ids = [...new Set(s.label_ids)];
  return s;
}

/**
 * Creates an assistant, `inactive` (spec: Create assistant).
 * @example createAssistant(ctx, { name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', ... })
 */
export function createAssistant(ctx: AccountCtx, input: Provided): Assistant {
  const mode = input.mode!;
  const base = { ...cloneJson(DEFAULTS), ...modeDefaults(ctx, mode, input.language_id!) } as AssistantSettings;
  // Rule 1: on create the mode's model is required, not defaulted.
  if (mode === 'pipeline') base.llm_model_id = null;
  else base.multimodal_model_id = null;
  const settings = applyInput(ctx, base, input);
  checkSettings(ctx, settings, input);
  const now = ctx.now();
  return ctx.assistants.insert({ ...finish(settings), uuid: ctx.random.uuid(), status: 'inactive', inbound_webhook_url: null, created_at: now, updated_at: now });
}

/**
 * Updates an assistant: omitted fields keep their values, null clears, collections
 * replace, a mode change resets mode-specific settings first (spec: Update rules).
 */
export function updateAssistant(ctx: AccountCtx, id: number, input: Provided): Assistant {
  const stored = findAssistant(ctx, id);
  let base = settingsOf(stored);
  const mode = input.mode ?? stored.mode;
  if (mode !== stored.mode) base = { ...base, ...modeDefaults(ctx, mode, input.language_id ?? stored.language_id) };
  const settings = applyInput(ctx, base, input);
  if (settings.language_id !== stored.language_id) followLanguage(ctx, settings, input);
  checkSettings(ctx, settings, input, stored.id);
  return ctx.assistants.update(stored.id, { ...finish(settings), updated_at: ctx.now() });
}

/** Deletes an assistant and its configuration (spec: Delete assistant). */
export function deleteAssistant(ctx: AccountCtx, id: number): void {
  const assistant = ctx.assistants.get(id);
  // live-platform D.5: delete's live 404 names ownership; the spec has one 404 for both.
  if (!assistant) throw assistantErrors.deleteNotFound();
  ctx.assistants.delete(assistant.id);
}

/** The assistant, or 404 shape A when it is missing or foreign. */
export function findAssistant(ctx: AccountCtx, id: number): Assistant {
  const assistant = ctx.assistants.get(id);
  if (!assistant) throw assistantErrors.notFound();
  return assistant;
}

/** The account's assistants in id order (decisions: List assistants). */
export function listAssistants(ctx: AccountCtx): Assistant[] {
  return ctx.assistants.list();
}

/** The account's outbound assistants (decisions: Outbound assistants). */
export function listOutboundAssistants(ctx: AccountCtx): Assistant[] {
  return ctx.assistants.list().filter((a) => a.type === 'outbound');
}


/**
 * The assistant a switch route names: the integer id (digits) or the uuid (decisions:
 * Switch routes' {assistantId}; live-platform A.1); 404 shape A when missing or foreign.
 */
export function findAssistantByRef(ctx: AccountCtx, ref: string): Assistant {
  const assistant = assistantByRef(ctx, ref);
  if (!assistant) throw assistantErrors.notFound();
  return assistant;
}

/** The account's assistant of an integer id (digits) or a uuid, if any. */
export function assistantByRef(ctx: AccountCtx, ref: string): Assistant | undefined {
  return /^\d{1,15}$/.test(ref) ? ctx.assistants.get(Number(ref)) : ctx.assistants.first('uuid', ref);
}

/** Sets or clears the inbound webhook URL (live-platform B). No delivery goes to it: its payload is undocumented. */
export function setInboundWebhook(ctx: AccountCtx, ref: string, url: string | null): Assistant {
  const assistant = findAssistantByRef(ctx, ref);
  return ctx.assistants.update(assistant.id, { inbound_webhook_url: url, updated_at: ctx.now() });
}

/** Turns the post-call webhook on to `url`, or off with null (live-platform B: enable-webhook, disable-webhook). */
export function setPostCallWebhook(ctx: AccountCtx, ref: string, url: string | null): Assistant {
  const assistant = findAssistantByRef(ctx, ref);
  return ctx.assistants.update(assistant.id, { is_webhook_active: url !== null, webhook_url: url, updated_at: ctx.now() });
}
