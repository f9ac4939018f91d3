/**
 * `voxsim scenario from-har` (issue 28): a recorded session written as a scenario file
 * that reproduces it. Each recorded request is a `request` step (ids the session created
 * replaced by `$refs`, named where an answer first showed them), the clock moves between
 * them as recorded (`advance_to`, on the timeline drift uses), and each step expects the
 * recorded status and the recorded answer's closed-set values, so a run of the file fails
 * at the step where voxsim drifts.
 */
import { bearerToken, type RouteDef } from '../core/http.js';
import { parseMultipart, UploadedFile } from '../core/multipart.js';
import { formatControlTime } from '../core/time.js';
import type { Wire } from '../core/wire.js';
import { loadScenario } from '../scenario/load.js';
import { CREATED_KINDS, idsIn, isClosedValue, mapIdFields, mapRequestIds, routeKind } from './compare.js';
import { readHar, type Exchange } from './har.js';
import { selectSession, Timeline, type PlatformExchange } from './session.js';
import { yaml } from '../scenario/yaml.js';

export interface FromHarOptions {
  wire?: Wire;
  basePath?: string;
  /** The HAR's file name, for the scenario's name and errors. */
  file?: string;
  /** Where the clock starts (default: inferred as drift does). */
  start?: number;
}

type Json = Record<string, unknown>;

/** A clock gap shorter than this is not written as a step (requests a few milliseconds apart). */
const MIN_GAP_MS = 1000;

/**
 * The recorded answer's closed-set values (isClosedValue), as a partial the scenario's
 * `expect.body` matches: objects by the keys kept, lists item by item when every item
 * keeps something (a list is matched whole, so one with nothing to check is left out).
 * @example closedPart({ data: { id: 3, status: 'active', name: 'x' } }) // { data: { status: 'active' } }
 */
export function closedPart(value: unknown, key?: string | number): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => closedPart(item));
    if (items.length === 0 || items.every((item) => item === undefined)) return undefined;
    if (value.some((item, i) => items[i] === undefined && (typeof item !== 'object' || item === null))) return undefined;
    return items.map((item) => item ?? {});
  }
  if (typeof value === 'object' && value !== null) {
    const kept = Object.entries(value as Json)
      .map(([k, v]) => [k, closedPart(v, k)] as const)
      .filter(([, v]) => v !== undefined);
    return kept.length === 0 ? undefined : Object.fromEntries(kept);
  }
  return isClosedValue(key, value) ? value : undefined;
}

/** The session's ids and the refs that stand for them. */
class Refs {
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  private static key(kind: string, value: number | string) {
    return `${kind}:${typeof value}:${value}`;
  }

  get(kind: string, value: number | string): string | undefined {
    return this.names.get(Refs.key(kind, value)) ?? (typeof value === 'string' && /^\d+$/.test(value) ? this.names.get(Refs.key(kind, Number(value))) : undefined);
  }

  /** A new ref for an id first seen in an answer: `assistant_1`, or `assistant_uuid_1` for a uuid. */
  add(kind: string, value: number | string, field: string): string | undefined {
    if (this.get(kind, value) !== undefined) return undefined;
    const base = field === 'uuid' || field.endsWith('_uuid') ? `${kind}_uuid` : kind;
    const n = (this.counts.get(base) ?? 0) + 1;
    this.counts.set(base, n);
    const name = `${base}_${n}`;
    this.names.set(Refs.key(kind, value), name);
    return name;
  }
}

/** A value of a created kind as its `$ref`, else as it is. */
function asRef(refs: Refs, kind: string | undefined, value: unknown): unknown {
  if (kind === undefined || !CREATED_KINDS.has(kind) || (typeof value !== 'number' && typeof value !== 'string')) return value;
  const name = refs.get(kind, value);
  return name === undefined ? value : `$${name}`;
}

/** A JSON body with `*_id` / `*_ids` values of created kinds as `$refs`. */
function bodyWithRefs(refs: Refs, body: unknown): unknown {
  return mapIdFields(body, (kind, value) => asRef(refs, kind, value));
}

/**
 * `METHOD /path?query` with path parameters and `*_id` query values of created kinds as
 * `$refs`. A `$ref` is written bare (the runner resolves it in the line); every recorded
 * value is escaped, so a space cannot split the line and a literal `$` is no ref.
 */
function requestLine(refs: Refs, exchange: PlatformExchange): string {
  const { path, search } = mapRequestIds(exchange, (kind, value) => {
    const ref = asRef(refs, kind, value);
    return ref === value ? encodeURIComponent(value) : String(ref);
  });
  return `${exchange.method} ${path}${search === '' ? '' : `?${search}`}`;
}

/** The body of a step: JSON with refs, or a form's text fields and its file (name and size). */
function stepBody(refs: Refs, exchange: PlatformExchange): { body?: unknown; file?: { name: string; size: number } } {
  if (exchange.multipart && exchange.requestBytes) {
    const form = parseMultipart(exchange.requestBytes, exchange.requestHeaders['content-type']!);
    if (form) {
      const fields: Json = {};
      let file: { name: string; size: number } | undefined;
      for (const [name, value] of Object.entries(form)) {
        if (value instanceof UploadedFile) file = { name: value.filename, size: value.size };
        else fields[name] = value;
      }
      return { body: bodyWithRefs(refs, fields), ...(file && { file }) };
    }
  }
  return exchange.requestBody === undefined ? {} : { body: bodyWithRefs(refs, exchange.requestBody) };
}

/**
 * The scenario (YAML text) of a recorded session; it passes the scenario schema.
 * @example const yaml = scenarioFromHar(readFileSync('session.har', 'utf8'), ROUTES, { file: 'session.har', wire: 'live' })
 */
export function scenarioFromHar(har: string | object | Exchange[], routes: readonly RouteDef<unknown>[], options: FromHarOptions = {}): string {
  const file = options.file ?? '<har>';
  const all = Array.isArray(har) ? har : readHar(har, file);
  const { exchanges, ignored } = selectSession(all, routes, options.basePath);
  const timeline = new Timeline(exchanges, options.start);
  const refs = new Refs();
  const steps: Json[] = [];
  // Where the scenario's clock stands after the steps so far (an `advance_to` is written only for a gap from it).
  let clock = timeline.start;
  for (const exchange of exchanges) {
    const target = timeline.before(exchange);
    if (target - clock >= MIN_GAP_MS) {
      steps.push({ advance_to: formatControlTime(target) });
      clock = target;
    }
    const step: Json = { request: requestLine(refs, exchange) };
    const auth = exchange.requestHeaders.authorization;
    if (auth === undefined) step.key = null;
    // A header that is no bearer token is sent as the key: voxsim refuses it as the platform did.
    else if (exchange.status === 401) step.key = bearerToken(auth) ?? auth;
    Object.assign(step, stepBody(refs, exchange));
    // Ids this answer shows first become refs for the steps after it.
    if (exchange.status >= 200 && exchange.status < 300) {
      const named: Json = {};
      for (const found of idsIn(exchange.responseBody, exchange.template && routeKind(exchange.template))) {
        const name = refs.add(found.kind, found.value, String(found.path.at(-1)));
        if (name !== undefined) named[name] = found.path.join('.');
      }
      if (Object.keys(named).length > 0) step.refs = named;
    }
    const body = closedPart(exchange.responseBody);
    step.expect = { status: exchange.status, ...(body !== undefined && { body }) };
    steps.push(step);
    // The step replays the clock move, so the scenario's clock goes where the upstream's went (back, too, for a restored state).
    clock = timeline.after(exchange) ?? Math.max(clock, target);
  }
  const name = file.replace(/^.*[\\/]/, '');
  const scenario = {
    name: `Recorded session ${name}`,
    description: `Written by voxsim scenario from-har from ${name}: ${exchanges.length} exchanges${ignored.count > 0 ? ` (${ignored.count} entries outside the platform left out)` : ''}. Each step expects the recorded status and the recorded answer's closed-set values.`,
    seed: 1,
    start: formatControlTime(timeline.start),
    ...(options.wire && { wire: options.wire }),
    steps,
  };
  const doc = new (yaml().Document)(scenario);
  const text = doc.toString({ lineWidth: 0 });
  // What is written must load: a scenario this cannot read is a bug here, not in the HAR.
  loadScenario(text, name);
  return text;
}
