/**
 * `voxsim catalog pull` (issue 27): reads the catalog routes of a running platform (the
 * live one, or another voxsim) with a user's key and makes the catalog document that
 * `--catalog` takes. Each voice's modes come from the voice list filtered by each mode,
 * each provider's languages from the provider lists filtered by each language, so the
 * document answers those routes as the platform did.
 */
import { MODEL_TYPES, MODES } from '../domain/catalog/data.js';
import { CatalogDocument, type FullCatalogDocument } from '../domain/catalog/document.js';

/** A pull that cannot finish: the message is one line. */
export class CatalogPullError extends Error {}

type Row = Record<string, unknown> & { id: number };

/**
 * The catalog document of the platform at `from` (its API base URL) as `key` sees it.
 * @example const doc = await pullCatalog('https://api.example.test/api', 'sk_live_...')
 */
export async function pullCatalog(from: string, key: string, fetchFn: typeof fetch = fetch): Promise<FullCatalogDocument & { merge: 'replace' }> {
  const base = from.replace(/\/+$/, '');
  const read = async (path: string, query: Record<string, string> = {}): Promise<Row[]> => {
    const qs = Object.keys(query).length === 0 ? '' : `?${new URLSearchParams(query)}`;
    const url = `${base}${path}${qs}`;
    let res: Response;
    try {
      res = await fetchFn(url, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CatalogPullError(`cannot reach ${url} (${cause?.code ?? cause?.message ?? (error as Error).message})`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CatalogPullError(`GET ${url} answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
      const message = typeof body === 'object' && body !== null ? ((body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error) : undefined;
      throw new CatalogPullError(`GET ${url} was refused with ${res.status}${typeof message === 'string' ? `: ${message}` : ''}`);
    }
    // The live platform answers bare arrays; a `{data: [...]}` wrapper is read too.
    const rows = Array.isArray(body) ? body : (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(rows) || !rows.every((r) => typeof r === 'object' && r !== null && Number.isInteger((r as Row).id))) {
      throw new CatalogPullError(`GET ${url} answered ${res.status} with something that is not a list of catalog entries`);
    }
    return rows as Row[];
  };
  const ids = (rows: Row[]) => new Set(rows.map((r) => r.id));

  const languages = await read('/user/assistants/languages');
  const voices = await read('/user/assistants/voices');
  const byMode = await Promise.all(MODES.map(async (mode) => [mode, ids(await read('/user/assistants/voices', { mode }))] as const));
  const models = Object.fromEntries(await Promise.all(MODEL_TYPES.map(async (type) => [type, (await read('/user/assistants/models', { type })).map(({ id, name, code }) => ({ id, name, ...(code !== undefined && code !== null && { code }) }))])));
  const providers = async (path: string) => {
    const all = await read(path);
    const speaking = await Promise.all(languages.map(async (l) => [l.id, ids(await read(path, { language_id: String(l.id) }))] as const));
    return all.map(({ id, name, code }) => ({ id, name, code, language_ids: speaking.filter(([, s]) => s.has(id)).map(([languageId]) => languageId) }));
  };
  const doc = {
    merge: 'replace',
    languages: languages.map(({ id, name, iso_2 }) => ({ id, name, iso_2 })),
    voices: voices.map(({ id, name, language_id, gender, preview_url, accent, age, synthesizer_provider_id }) => ({
      id, name, language_id, gender, preview_url, accent, age, synthesizer_provider_id,
      modes: byMode.filter(([, s]) => s.has(id)).map(([mode]) => mode),
    })),
    models,
    synthesizer_providers: await providers('/user/assistants/synthesizer-providers'),
    transcriber_providers: await providers('/user/assistants/transcriber-providers'),
  };
  const checked = CatalogDocument.safeParse(doc);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new CatalogPullError(`${base} answered a catalog this simulator cannot take (${issue.path.join('.')}: ${issue.message})`);
  }
  return doc as unknown as FullCatalogDocument & { merge: 'replace' };
}
