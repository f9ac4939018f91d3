/**
 * The platform's catalog (voices, languages, models, providers) as a `Catalog` with id
 * lookups, built from its tables: the wire's built-in catalog (builtin.ts), or one a user
 * brought (document.ts). A `Catalog` is read-only; a simulator swaps whole catalogs.
 */
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
  /** Null when no provider of the catalog speaks it. */
  default_synthesizer_provider_id: number | null;
  default_transcriber_provider_id: number | null;
}

export interface Voice {
  id: number;
  name: string;
  language_id: number;
  gender: string;
  preview_url: string | null;
  accent: string | null;
  age: string | null;
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

/** The tables of a catalog, every implied field filled in (document.ts `catalogTables`). */
export interface CatalogTables {
  languages: Language[];
  voices: Voice[];
  /** Every model with its type; ids are unique per type (live-platform G.1: LLM 1 and multimodal 1 are different models). */
  models: Model[];
  synthesizerProviders: Provider[];
  transcriberProviders: Provider[];
}

function byId<T extends { id: number }>(rows: readonly T[]): ReadonlyMap<number, T> {
  return new Map(rows.map((r) => [r.id, r]));
}

const KNOWLEDGEBASE_TEMPLATES = knowledgebasesJson as KnowledgebaseTemplate[];
const TOOL_TEMPLATES = toolsJson as ToolTemplate[];

/**
 * A catalog with id lookups.
 * @example new Catalog(tables).voice(13)?.language_id // 5
 */
export class Catalog {
  readonly languages: readonly Language[];
  readonly voices: readonly Voice[];
  readonly models: readonly Model[];
  readonly synthesizerProviders: readonly Provider[];
  readonly transcriberProviders: readonly Provider[];
  /** The knowledge bases and tools every account starts with: account fixtures, the same under every catalog. */
  readonly knowledgebaseTemplates: readonly KnowledgebaseTemplate[] = KNOWLEDGEBASE_TEMPLATES;
  readonly toolTemplates: readonly ToolTemplate[] = TOOL_TEMPLATES;

  private readonly languageById: ReadonlyMap<number, Language>;
  private readonly voiceById: ReadonlyMap<number, Voice>;
  private readonly modelByType: ReadonlyMap<ModelType, ReadonlyMap<number, Model>>;
  private readonly synthesizerById: ReadonlyMap<number, Provider>;
  private readonly transcriberById: ReadonlyMap<number, Provider>;

  constructor(readonly tables: CatalogTables) {
    this.languages = tables.languages;
    this.voices = tables.voices;
    this.models = tables.models;
    this.synthesizerProviders = tables.synthesizerProviders;
    this.transcriberProviders = tables.transcriberProviders;
    this.languageById = byId(this.languages);
    this.voiceById = byId(this.voices);
    this.modelByType = new Map(MODEL_TYPES.map((type) => [type, byId(this.models.filter((m) => m.type === type))]));
    this.synthesizerById = byId(this.synthesizerProviders);
    this.transcriberById = byId(this.transcriberProviders);
  }

  language(id: number): Language | undefined {
    return this.languageById.get(id);
  }

  voice(id: number): Voice | undefined {
    return this.voiceById.get(id);
  }

  /** The model of a type with an id (ids are per type). */
  model(type: ModelType, id: number): Model | undefined {
    return this.modelByType.get(type)!.get(id);
  }

  synthesizer(id: number): Provider | undefined {
    return this.synthesizerById.get(id);
  }

  transcriber(id: number): Provider | undefined {
    return this.transcriberById.get(id);
  }

  /** The default model of an engine mode: the first model of that type (decisions: Mode change defaults); none in a catalog without one. */
  defaultModel(type: ModelType): Model | undefined {
    return this.models.find((m) => m.type === type);
  }
}
