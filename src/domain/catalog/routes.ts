/** Catalog operations (decisions: Routes the specification names without a path); knowledge bases and tools are domains of their own. */
import { ok } from '../../core/http.js';
import { userRoute } from '../routing.js';
import {
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
    method: 'GET', path: '/user/assistants/voices', query: VoicesQuery,
    handle: ({ ctx, query }) => ok(listVoices(ctx, query).map(serialiseVoice)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/languages',
    handle: ({ ctx }) => ok(ctx.catalog.languages.map(serialiseLanguage)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/models', query: ModelsQuery,
    handle: ({ ctx, query }) => ok(listModels(ctx, query.type).map(serialiseModel)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/synthesizer-providers', query: ProvidersQuery,
    handle: ({ ctx, query }) => ok(listProviders(ctx.catalog.synthesizerProviders, query.language_id).map(serialiseProvider)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/transcriber-providers', query: ProvidersQuery,
    handle: ({ ctx, query }) => ok(listProviders(ctx.catalog.transcriberProviders, query.language_id).map(serialiseProvider)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/phone-numbers', query: EligibleNumbersQuery,
    handle: ({ ctx, query }) =>
      ok(listEligibleNumbers(ctx, query.type).map((n) => serialiseEligibleNumber(n, ctx.wire))),
  }),
];
