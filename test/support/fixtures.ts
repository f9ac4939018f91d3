/** Request bodies shared by the suites. */

/** `{"a": … 1 …}`: `levels` objects nested inside each other around a 1 (a body field nested that deep). */
export function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/**
 * A valid pipeline outbound assistant: the required fields plus the pipeline model. On the
 * live wire its voice is the live catalog's pipeline voice 10 (live-platform G.1).
 */
export function pipelineAssistant(overrides: Record<string, unknown> = {}, wire: 'spec' | 'live' = 'spec'): Record<string, unknown> {
  return {
    name: 'Sales Assistant',
    voice_id: wire === 'live' ? LIVE_CATALOG.pipelineVoice : 1,
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

/**
 * A valid multimodal assistant (voice 19 suits multimodal and dualplex; model 6 is the first
 * multimodal model). On the live wire: voice 1 (Alloy) and multimodal model 1 (live-platform G.1).
 */
export function multimodalAssistant(overrides: Record<string, unknown> = {}, wire: 'spec' | 'live' = 'spec'): Record<string, unknown> {
  return {
    name: 'Support Assistant',
    voice_id: wire === 'live' ? LIVE_CATALOG.realtimeVoice : 19,
    language_id: 1,
    type: 'inbound',
    mode: 'multimodal',
    timezone: 'America/New_York',
    initial_message: 'Thanks for calling Acme support.',
    system_prompt: 'You answer support questions.',
    multimodal_model_id: wire === 'live' ? LIVE_CATALOG.multimodalModel : 6,
    ...overrides,
  };
}

/** Live catalog ids the suites rely on (fixtures/live-catalog.json, live-platform G.1). */
export const LIVE_CATALOG = {
  /** Zephyr: English, ElevenLabs (every live voice suits every mode: live-platform G.1, corrected). */
  pipelineVoice: 10,
  /** Alloy: English, no synthesizer, the voice of the reference's realtime examples. */
  realtimeVoice: 1,
  llmModel: 1,
  multimodalModel: 1,
  dualplexModel: 1,
} as const;

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

/**
 * Webhook bodies as the platform sends them, for tests that queue a delivery straight into
 * the webhook engine (`sim.webhooks.send`): the contract suites check every delivery's
 * payload against the OpenAPI document's `webhooks`.
 */
export const POST_CALL_BODY = {
  id: 1,
  customer_phone: '+15551230001',
  assistant_phone: '+14155550100',
  duration: 42,
  status: 'completed',
  extracted_variables: {},
  input_variables: {},
  transcript: 'Assistant: Hello!\nCustomer: Hi.',
  created_at: '2026-03-02T10:00:00+01:00',
  finished_at: '2026-03-02T10:00:42+01:00',
  lead: null,
  campaign: null,
  total_cost: 0.1,
} as const;

export const CONVERSATION_ENDED_BODY = {
  conversation_id: '0b7e9f3c-0000-4000-8000-000000000001',
  assistant_id: '0b7e9f3c-0000-4000-8000-000000000002',
  type: 'widget',
  message_count: 2,
  status: 'ended',
  extracted_variables: {},
  input_variables: {},
  transcript: [
    { role: 'assistant', content: 'Hello!' },
    { role: 'user', content: 'Hi.' },
  ],
  formatted_transcript: 'AI: Hello!\nCustomer: Hi.',
  customer_phone: null,
  customer_name: null,
  sender: null,
  created_at: '2026-03-02T10:00:00+01:00',
  ended_at: '2026-03-02T10:05:00+01:00',
} as const;
