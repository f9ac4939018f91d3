/**
 * Drift (issue 28): a recorded session replayed on a fresh simulator, in recorded order on
 * its virtual clock, through `handle` (no HTTP), and each answer compared with the
 * recorded one by the rules of compare.ts. Ids the session created are mapped onto the
 * simulator's; an id used but never created is a missing prerequisite, not a drift.
 */
import type { RouteDef } from '../core/http.js';
import { answerText } from '../core/json.js';
import { formatControlTime, parseInstant } from '../core/time.js';
import type { Wire } from '../core/wire.js';
import type { CatalogDocumentInput } from '../domain/catalog/document.js';
import { DEFAULT_API_KEY } from '../domain/accounts/schema.js';
import { readScenario } from '../scenario/load.js';
import { playScenario, type ScenarioHost } from '../scenario/runner.js';
import type { ScenarioInput } from '../scenario/schema.js';
import { compareExchange, CREATED_KINDS, IdMap, mapIdFields, mapRequestIds, routeKind, type Difference } from './compare.js';
import { readHar, type Exchange } from './har.js';
import { selectSession, Timeline, type PlatformExchange } from './session.js';

export interface DriftOptions {
  /** The wire the simulator answers in (default `spec`); compare with the platform's own: `live`. */
  wire?: Wire;
  /** The platform's base path in the recorded URLs (default `/api`); entries outside it are ignored and counted. */
  basePath?: string;
  /** A scenario (file path, YAML/JSON text or object) whose `given` seeds what the session used but did not create. */
  given?: string | ScenarioInput;
  /** Where the virtual clock starts (default: inferred, see Timeline). */
  start?: string | number;
  /** Seed of the simulator (default 1). */
  seed?: number;
  /**
   * A catalog document of the account's own (docs/catalog.md), as `createSimulator({ catalog })`
   * takes it: without it, an account whose voices or models differ from the wire's catalog
   * drifts on every catalog answer and refuses assistants naming them.
   */
  catalog?: CatalogDocumentInput;
  /** The file the HAR came from, for errors and the report. */
  file?: string;
}

/** An id a request used that the recording never created (nor `given` seeded). */
export interface MissingPrerequisite {
  kind: string;
  id: number | string;
  /** Where the request used it: `path`, `query.campaign_id`, `body.assistant_id`. */
  where: string;
}

export type ExchangeOutcome = 'same' | 'different' | 'missing-prerequisite';

export interface ExchangeResult {
  /** 1-based index in the HAR's `log.entries`. */
  entry: number;
  operation: string;
  method: string;
  /** The recorded path under the base path, with its query. */
  path: string;
  /** Virtual time the request was replayed at (ISO 8601). */
  at: string;
  outcome: ExchangeOutcome;
  recorded_status: number;
  /** voxsim's status; null when the exchange was not replayed (a missing prerequisite). */
  voxsim_status: number | null;
  differences: Difference[];
  missing: MissingPrerequisite[];
}

export interface OperationSummary {
  operation: string;
  exchanges: number;
  same: number;
  different: number;
  missing_prerequisites: number;
}

/** A difference located in its exchange. */
export interface LocatedDifference extends Difference {
  entry: number;
  operation: string;
}

export interface DriftReport {
  file: string;
  wire: Wire;
  /** Entries in the HAR. */
  entries: number;
  /** Entries left out (outside the base path, preflights, no answer), by reason. */
  ignored: { count: number; reasons: Record<string, number> };
  /** Where the replay's clock started (ISO 8601). */
  start: string;
  operations: OperationSummary[];
  exchanges: ExchangeResult[];
  /** Every difference, in recorded order. */
  differences: LocatedDifference[];
  /** Every missing prerequisite, in recorded order. */
  missing: (MissingPrerequisite & { entry: number; operation: string })[];
}

/** The simulator drift replays on, and what it needs to build one (given by the package's entry point). */
export interface DriftHost extends ScenarioHost {
  dispose(): void;
}
export interface DriftEnvironment {
  createHost(options: { wire: Wire; seed: number; startAt: number; catalog?: CatalogDocumentInput }): DriftHost;
  routes: readonly RouteDef<unknown>[];
}

/** Lists of the kinds `given` may seed, read after it to map the session's unknown ids in order of use. */
const GIVEN_LISTS: [string, string][] = [
  ['assistant', '/user/assistants'],
  ['campaign', '/user/campaigns'],
  ['lead', '/user/leads?per_page=100'],
  ['knowledgebase', '/user/knowledgebases'],
  ['tool', '/user/tools'],
  ['phone_number', '/user/phone-numbers/all'],
  ['folder', '/user/folders'],
  ['label', '/user/labels'],
];

type Json = Record<string, unknown>;

/** A request rewritten onto the simulator's ids, or the ids it lacks. */
interface Rewritten {
  path: string;
  search: string;
  body: unknown;
  missing: MissingPrerequisite[];
}

/**
 * Replays one recorded session and compares. The HAR is its text, its parsed object or
 * its exchanges (readHar).
 * @example const report = await replayDrift(harText, { wire: 'live' }, env); report.differences // []
 */
export async function replayDrift(har: string | object | Exchange[], options: DriftOptions, env: DriftEnvironment): Promise<DriftReport> {
  const file = options.file ?? '<har>';
  const all = Array.isArray(har) ? har : readHar(har, file);
  const { exchanges, ignored } = selectSession(all, env.routes, options.basePath);
  const wire = options.wire ?? 'spec';
  const startOption = options.start === undefined ? undefined : typeof options.start === 'number' ? options.start : parseInstant(options.start);
  if (options.start !== undefined && startOption === undefined) throw new RangeError(`start is not an ISO 8601 time: ${String(options.start)}`);
  const timeline = new Timeline(exchanges, startOption);
  const host = env.createHost({ wire, seed: options.seed ?? 1, startAt: timeline.start, ...(options.catalog && { catalog: options.catalog }) });
  const ids = new IdMap();
  const seeded = new Map<string, (number | string)[]>();
  let key = DEFAULT_API_KEY;
  try {
    if (options.given !== undefined) {
      const loaded = await readScenario(options.given);
      await playScenario(host, loaded, { steps: false });
      key = loaded.scenario.accounts?.find((a) => a.api_key)?.api_key ?? DEFAULT_API_KEY;
      for (const [kind, path] of GIVEN_LISTS) seeded.set(kind, await listedIds(host, path, key));
    }
    const results: ExchangeResult[] = [];
    for (const exchange of exchanges) {
      const target = timeline.before(exchange);
      if (target > host.clock.now()) await host.clock.advanceTo(target);
      const at = formatControlTime(host.clock.now());
      const rewritten = rewrite(exchange, ids, seeded);
      const base = { entry: exchange.entry, operation: exchange.operation, method: exchange.method, path: exchange.path + (exchange.search ? `?${exchange.search}` : ''), at, recorded_status: exchange.status };
      if (rewritten.missing.length > 0) {
        results.push({ ...base, outcome: 'missing-prerequisite', voxsim_status: null, differences: [], missing: rewritten.missing });
        timeline.after(exchange);
        continue;
      }
      const response = await host.handle(requestOf(exchange, rewritten, key, wire));
      const text = answerText(response.body);
      const body = text === '' ? undefined : (JSON.parse(text) as unknown);
      const differences = compareExchange(
        { status: exchange.status, body: exchange.responseBody, request: exchange.requestBody },
        { status: response.status, body, request: rewritten.body },
      );
      if (exchange.status < 300 && response.status < 300) ids.learn(exchange.responseBody, body, exchange.template && routeKind(exchange.template));
      results.push({ ...base, outcome: differences.length === 0 ? 'same' : 'different', voxsim_status: response.status, differences, missing: [] });
      timeline.after(exchange);
    }
    return report(file, wire, all.length, ignored, formatControlTime(timeline.start), results);
  } finally {
    host.dispose();
  }
}

/** The ids of a list answer (a bare list, or `data`), ascending. */
async function listedIds(host: ScenarioHost, path: string, key: string): Promise<(number | string)[]> {
  const res = await host.handle({ method: 'GET', path, headers: { authorization: `Bearer ${key}` } });
  const body = JSON.parse(answerText(res.body) || 'null') as unknown;
  const list = Array.isArray(body) ? body : Array.isArray((body as Json | null)?.data) ? ((body as Json).data as unknown[]) : [];
  return list
    .map((item) => (item as Json | null)?.id)
    .filter((id): id is number | string => typeof id === 'number' || typeof id === 'string')
    .sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))));
}

/**
 * voxsim's id for a recorded one: mapped, else (with `given`) the next seeded resource of
 * its kind that nothing maps onto yet; undefined when there is none.
 */
function mapped(ids: IdMap, seeded: Map<string, (number | string)[]>, kind: string, value: number | string): number | string | undefined {
  const known = ids.get(kind, value);
  if (known !== undefined) return known;
  const free = seeded.get(kind)?.find((id) => !ids.isTaken(kind, id));
  if (free === undefined) return undefined;
  ids.set(kind, value, free);
  return free;
}

/** The recorded request with the session's ids replaced by voxsim's: path parameters, `*_id` query fields and body fields. */
function rewrite(exchange: PlatformExchange, ids: IdMap, seeded: Map<string, (number | string)[]>): Rewritten {
  const missing: MissingPrerequisite[] = [];
  const swap = (kind: string, value: unknown, where: string): unknown => {
    if (!CREATED_KINDS.has(kind)) return value;
    const id = typeof value === 'string' && /^\d+$/.test(value) && where !== 'body' ? Number(value) : value;
    if (typeof id !== 'number' && typeof id !== 'string') return value;
    const found = mapped(ids, seeded, kind, id) ?? (typeof id === 'number' ? mapped(ids, seeded, kind, String(id)) : undefined);
    if (found === undefined) {
      missing.push({ kind, id, where });
      return value;
    }
    return typeof value === 'string' ? String(found) : found;
  };
  const { path, search } = mapRequestIds(exchange, (kind, value, where) => encodeURIComponent(String(swap(kind, value, where))));
  return { path, search, body: mapIdFields(exchange.requestBody, swap), missing };
}

/** The recorded headers a replay keeps (the rest are the client's and the connection's). */
const KEPT_HEADERS = ['content-type', 'accept', 'idempotency-key'];

/**
 * The simulator's request for an exchange: the rewritten path, query and body, the body's
 * type, and the account's key where the recording had one (redacted in the file): a
 * recorded 401 keeps the recorded header, so voxsim sees the same unknown key.
 */
function requestOf(exchange: PlatformExchange, rewritten: Rewritten, key: string, wire: Wire) {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (exchange.requestHeaders[name] !== undefined) headers[name] = exchange.requestHeaders[name]!;
  const auth = exchange.requestHeaders.authorization;
  if (auth !== undefined) headers.authorization = exchange.status === 401 ? auth : `Bearer ${key}`;
  const json = !exchange.multipart && typeof exchange.requestBody === 'object' && exchange.requestBody !== null;
  const url = new URL(exchange.url.href);
  url.pathname = url.pathname.slice(0, url.pathname.length - exchange.path.length) + rewritten.path;
  url.search = rewritten.search;
  return {
    method: exchange.method,
    path: rewritten.path + (rewritten.search ? `?${rewritten.search}` : ''),
    headers,
    wire,
    url: url.href,
    ...(json
      ? { body: JSON.stringify(rewritten.body) }
      : exchange.multipart
        ? { bytes: exchange.requestBytes }
        : { body: exchange.requestBytes === null ? null : new TextDecoder().decode(exchange.requestBytes) }),
  };
}

function report(file: string, wire: Wire, entries: number, ignored: DriftReport['ignored'], start: string, results: ExchangeResult[]): DriftReport {
  const operations = new Map<string, OperationSummary>();
  for (const r of results) {
    const row = operations.get(r.operation) ?? { operation: r.operation, exchanges: 0, same: 0, different: 0, missing_prerequisites: 0 };
    row.exchanges++;
    if (r.outcome === 'same') row.same++;
    else if (r.outcome === 'different') row.different++;
    else row.missing_prerequisites++;
    operations.set(r.operation, row);
  }
  return {
    file,
    wire,
    entries,
    ignored,
    start,
    operations: [...operations.values()],
    exchanges: results,
    differences: results.flatMap((r) => r.differences.map((d) => ({ entry: r.entry, operation: r.operation, ...d }))),
    missing: results.flatMap((r) => r.missing.map((m) => ({ entry: r.entry, operation: r.operation, ...m }))),
  };
}
