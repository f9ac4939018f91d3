/** Assistant answers and rule texts (spec: Errors; decisions: Finer points). Tests reuse these constants. */
import { shapeA, shapeB, type FieldErrors } from '../../core/errors.js';
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
  // live-platform B: the webhook switches answer the same text on both wires.
  webhookEnabled: 'Webhook enabled successfully',
  webhookDisabled: 'Webhook disabled successfully',
  inboundWebhookDisabled: 'Inbound webhook disabled successfully',
} as const;

export const assistantErrors = {
  notFound: () => shapeA(404, ASSISTANT_MESSAGES.notFound),
  deleteNotFound: () => shapeA(404, ASSISTANT_MESSAGES.deleteNotFound),
  deleteFailed: () => shapeA(500, ASSISTANT_MESSAGES.deleteFailed),
  /** A create or update rule broken: shape B, whose live `message` is "Validation failed" (live-platform D.5). */
  invalid: (errors: FieldErrors) => {
    const error = shapeB(errors);
    return error.withLive({ ...error.body, message: ASSISTANT_MESSAGES.invalid });
  },
};
