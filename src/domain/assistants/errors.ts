/** Assistant answers and rule texts (spec: Errors; decisions: Finer points). Tests reuse these constants. */
import { shapeA } from '../../core/errors.js';

export const ASSISTANT_MESSAGES = {
  created: 'Assistant created successfully.',
  updated: 'Assistant updated successfully.',
  deleted: 'Assistant deleted successfully.',
  notFound: 'Assistant not found.',
  deleteFailed: 'Failed to delete assistant.',
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
  deleteFailed: () => shapeA(500, ASSISTANT_MESSAGES.deleteFailed),
};
