/** Assistant answers and rule texts (spec: Errors; decisions: Finer points). Tests reuse these constants. */
import { shapeA, shapeB, type FieldErrors } from '../../core/errors.js';
import { ruleMessage } from '../../core/validation.js';
import { texts } from '../../core/wire.js';

export const ASSISTANT_MESSAGES = {
  // live-platform D.5: a pair is the specification's text and the live platform's.
  created: texts('Assistant created successfully.', 'Assistant created successfully'),
  updated: texts('Assistant updated successfully.', 'Assistant updated successfully'),
  deleted: texts('Assistant deleted successfully.', 'Assistant deleted successfully'),
  // live-platform D.5: update and get-one (get-one is a decision); the switch routes (A, B) answer it too.
  notFound: texts('Assistant not found.', 'Assistant not found'),
  deleteNotFound: texts('Assistant not found.', 'Assistant not found or does not belong to the authenticated user'),
  deleteFailed: texts('Failed to delete assistant.', 'Assistant deletion failed'),
  /** live-platform D.5: shape B's `message` of a failed create or update on the live wire. */
  invalid: 'Validation failed',
  voiceIncompatible: 'The selected voice is incompatible with the engine mode.',
  llmModelRequired: 'The llm model id field is required when mode is pipeline.',
  multimodalModelRequired: 'The multimodal model id field is required when mode is multimodal or dualplex.',
  pipelineOnly: (field: string) => `The ${field.replace(/_/g, ' ')} field is only available when mode is pipeline.`,
  realtimeOnly: (field: string) => `The ${field.replace(/_/g, ' ')} field is only available when mode is multimodal or dualplex.`,
  interruptionsRequired: 'The allow interruptions field cannot be false when mode is multimodal or dualplex.',
  knowledgebaseModeFunctionCall: 'The knowledgebase mode must be function_call when mode is multimodal or dualplex.',
  providerLanguage: (kind: 'synthesizer' | 'transcriber') => `The selected ${kind} provider does not support the assistant's language.`,
  callerIdInbound: 'The selected phone number is a caller ID number and cannot receive inbound calls.',
  numberTaken: 'The selected phone number is already assigned to another inbound assistant.',
  webhookUrlRequired: 'The webhook url field is required when is webhook active is true.',
  /** The speech speed range's refusal (the schema's `between` rule, spec: Assistant). */
  speechSpeedBetween: ruleMessage('between', 'speech_speed', { min: 0.7, max: 1.2 }),
  // live-platform B: the webhook switches answer the same text on both wires.
  webhookEnabled: 'Webhook enabled successfully',
  webhookDisabled: 'Webhook disabled successfully',
  inboundWebhookDisabled: 'Inbound webhook disabled successfully',
} as const;

/** A write of an assistant: the API reference words some refusals differently on create and on update. */
export type AssistantWrite = 'create' | 'update';

/**
 * live-platform G.3 item 4: the API reference's texts of these refusals on the live wire,
 * keyed by the spec wire's text. The voice's text differs between the create and the update page.
 */
export const LIVE_ASSISTANT_TEXTS: Record<AssistantWrite, Readonly<Record<string, string>>> = {
  create: liveTexts('The selected voice is not compatible with the chosen engine type.'),
  update: liveTexts('The selected voice is not compatible with the selected engine type.'),
};

function liveTexts(voice: string): Readonly<Record<string, string>> {
  return {
    [ASSISTANT_MESSAGES.voiceIncompatible]: voice,
    [ASSISTANT_MESSAGES.knowledgebaseModeFunctionCall]: 'Only function_call mode is available for multimodal assistants.',
    [ASSISTANT_MESSAGES.speechSpeedBetween]: 'Speech speed must be between 0.7 and 1.2.',
    [ASSISTANT_MESSAGES.interruptionsRequired]: 'Interruptions cannot be disabled in multimodal or dualplex mode.',
  };
}

/**
 * The live wire's body of a refused create or update: `message` "Validation failed" (live-platform
 * D.5) and the reference's texts where it shows them (G.3), every other message as on the spec wire.
 * @example liveInvalid('update')({ speech_speed: ['The speech speed must be between 0.7 and 1.2.'] })
 * // { message: 'Validation failed', errors: { speech_speed: ['Speech speed must be between 0.7 and 1.2.'] } }
 */
export function liveInvalid(write: AssistantWrite): (errors: FieldErrors) => Record<string, unknown> {
  const live = LIVE_ASSISTANT_TEXTS[write];
  return (errors) => ({
    message: ASSISTANT_MESSAGES.invalid,
    errors: Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((text) => live[text] ?? text)])),
  });
}

export const assistantErrors = {
  notFound: () => shapeA(404, ASSISTANT_MESSAGES.notFound),
  deleteNotFound: () => shapeA(404, ASSISTANT_MESSAGES.deleteNotFound),
  deleteFailed: () => shapeA(500, ASSISTANT_MESSAGES.deleteFailed),
  /** A create or update rule broken: shape B, on the live wire with "Validation failed" and the reference's texts (`liveInvalid`). */
  invalid: (errors: FieldErrors, write: AssistantWrite) => shapeB(errors).withLive(liveInvalid(write)(errors)),
};
