/** Catalog operations (decisions: Routes the specification names without a path); knowledge bases and tools are domains of their own. */
import * as z from 'zod';
import { ok } from '../../core/http.js';
import { userRoute } from '../routing.js';
import {
  EligibleNumberRecord,
  LanguageRecord,
  ModelRecord,
  ProviderRecord,
  VoiceRecord,
  EligibleNumbersQuery,
  ModelsQuery,
  ProvidersQuery,
  VoicesQuery,
  serialiseEligibleNumber,
  serialiseLanguage,
  serialiseModel,
  serialiseProvider,
  serialiseVoice,
} from './schema.js';
import { listEligibleNumbers, listModels, listProviders, listVoices } from './service.js';

export const catalogRoutes = [
  userRoute({
    method: 'GET', path: '/user/assistants/voices', query: VoicesQuery, responses: () => ({ 200: z.array(VoiceRecord) }),
    handle: ({ ctx, query }) => ok(listVoices(ctx, query).map(serialiseVoice)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/languages', responses: () => ({ 200: z.array(LanguageRecord) }),
    handle: ({ ctx }) => ok(ctx.catalog.languages.map(serialiseLanguage)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/models', query: ModelsQuery, responses: () => ({ 200: z.array(ModelRecord) }),
    handle: ({ ctx, query }) => ok(listModels(ctx, query.type).map(serialiseModel)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/synthesizer-providers', query: ProvidersQuery, responses: () => ({ 200: z.array(ProviderRecord) }),
    handle: ({ ctx, query }) => ok(listProviders(ctx.catalog.synthesizerProviders, query.language_id).map(serialiseProvider)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/transcriber-providers', query: ProvidersQuery, responses: () => ({ 200: z.array(ProviderRecord) }),
    handle: ({ ctx, query }) => ok(listProviders(ctx.catalog.transcriberProviders, query.language_id).map(serialiseProvider)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/phone-numbers', query: EligibleNumbersQuery, responses: () => ({ 200: z.array(EligibleNumberRecord) }),
    handle: ({ ctx, query }) =>
      ok(listEligibleNumbers(ctx, query.type).map((n) => serialiseEligibleNumber(n, ctx.wire))),
  }),
];
