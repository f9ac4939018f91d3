/**
 * The platform's shared catalog (voices, languages, models, providers), loaded once
 * from `fixtures/*.json`. It is read-only data, the same for every simulator.
 */
import languagesJson from '../../../fixtures/languages.json' with { type: 'json' };
import voicesJson from '../../../fixtures/voices.json' with { type: 'json' };
import modelsJson from '../../../fixtures/models.json' with { type: 'json' };
import synthesizersJson from '../../../fixtures/synthesizer-providers.json' with { type: 'json' };
import transcribersJson from '../../../fixtures/transcriber-providers.json' with { type: 'json' };
import knowledgebasesJson from '../../../fixtures/knowledgebases.json' with { type: 'json' };
import toolsJson from '../../../fixtures/tools.json' with { type: 'json' };

export const MODES = ['pipeline', 'multimodal', 'dualplex'] as const;
export type Mode = (typeof MODES)[number];
export const MODEL_TYPES = ['llm', 'multimodal', 'dualplex'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export interface Language {
  id: number;
  name: string;
  iso_2: string;
  default_synthesizer_provider_id: number;
  default_transcriber_provider_id: number;
}

export interface Voice {
  id: number;
  name: string;
  language_id: number;
  gender: string;
  preview_url: string;
  accent: string;
  age: string;
  synthesizer_provider_id: number | null;
  modes: Mode[];
}

export interface Model {
  id: number;
  name: string;
  type: ModelType;
  code?: string;
}

export interface Provider {
  id: number;
  name: string;
  code: string;
  language_ids: number[];
}

/** A knowledge base every account starts with (ids are given per account). */
export interface KnowledgebaseTemplate {
  name: string;
  description: string;
  status: string;
  documents_count: number;
}

/** A custom mid-call tool every account starts with. */
export interface ToolTemplate {
  name: string;
  description: string;
  endpoint: string;
  /** One of the tools' methods (tools/schema TOOL_METHODS). */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  timeout: number;
  headers: Record<string, string>;
  schema: Record<string, unknown>;
}

function byId<T extends { id: number }>(rows: T[]): ReadonlyMap<number, T> {
  return new Map(rows.map((r) => [r.id, r]));
}

/** The catalog with id lookups. */
export class Catalog {
  readonly languages: readonly Language[] = languagesJson as Language[];
  readonly voices: readonly Voice[] = voicesJson as Voice[];
  readonly models: readonly Model[] = modelsJson as Model[];
  readonly synthesizerProviders: readonly Provider[] = synthesizersJson as Provider[];
  readonly transcriberProviders: readonly Provider[] = transcribersJson as Provider[];
  readonly knowledgebaseTemplates: readonly KnowledgebaseTemplate[] = knowledgebasesJson as KnowledgebaseTemplate[];
  readonly toolTemplates: readonly ToolTemplate[] = toolsJson as ToolTemplate[];

  private readonly languageById = byId(this.languages as Language[]);
  private readonly voiceById = byId(this.voices as Voice[]);
  private readonly modelById = byId(this.models as Model[]);
  private readonly synthesizerById = byId(this.synthesizerProviders as Provider[]);
  private readonly transcriberById = byId(this.transcriberProviders as Provider[]);

  language(id: number): Language | undefined {
    return this.languageById.get(id);
  }

  voice(id: number): Voice | undefined {
    return this.voiceById.get(id);
  }

  model(id: number): Model | undefined {
    return this.modelById.get(id);
  }

  synthesizer(id: number): Provider | undefined {
    return this.synthesizerById.get(id);
  }

  transcriber(id: number): Provider | undefined {
    return this.transcriberById.get(id);
  }

  /** The default model of an engine mode: the first model of that type (decisions: Mode change defaults). */
  defaultModel(type: ModelType): Model {
    return this.models.find((m) => m.type === type)!;
  }
}

/** One catalog shared by every simulator: it never changes. */
export const catalog = new Catalog();
