/** Request bodies shared by the suites. */

/** A valid pipeline outbound assistant: the required fields plus the pipeline model. */
export function pipelineAssistant(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Sales Assistant',
    voice_id: 1,
    language_id: 1,
    type: 'outbound',
    mode: 'pipeline',
    timezone: 'Europe/Berlin',
    initial_message: 'Hello, this is Ava from Acme. Do you have a minute?',
    system_prompt: 'You book product demos for Acme. Be brief and friendly.',
    llm_model_id: 1,
    ...overrides,
  };
}

/** A valid multimodal assistant (voice 19 suits multimodal and dualplex; model 6 is the first multimodal model). */
export function multimodalAssistant(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Support Assistant',
    voice_id: 19,
    language_id: 1,
    type: 'inbound',
    mode: 'multimodal',
    timezone: 'America/New_York',
    initial_message: 'Thanks for calling Acme support.',
    system_prompt: 'You answer support questions.',
    multimodal_model_id: 6,
    ...overrides,
  };
}

/** Catalog ids the suites rely on (fixtures/*.json). */
export const CATALOG = {
  pipelineVoice: 1,
  realtimeVoice: 19,
  multimodalOnlyVoice: 23,
  dualplexOnlyVoice: 25,
  allModesVoice: 27,
  llmModel: 1,
  multimodalModel: 6,
  dualplexModel: 9,
  englishUs: 1,
  /** Provider ids that support every language. */
  universalSynthesizer: 1,
  universalTranscriber: 1,
} as const;
