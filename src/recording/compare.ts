/**
 * The comparison rules of drift (issue 28), in one place: which ids a session created
 * and how they map onto the simulator's, the shape of a body at every depth, and which
 * values are compared (closed sets and the request's own echoes). Ids, timestamps,
 * generated text and money are never compared: they differ between any two platforms.
 */
import type { PlatformExchange } from './session.js';

/** A JSON value as read from a HAR or answered by the simulator. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One place where the recorded answer and voxsim's differ. */
export interface Difference {
  /** `status`, or the JSON path in the body (`$.data[0].status`). */
  path: string;
  /**
   * `status`: the HTTP status; `missing`: a key the recorded answer has and voxsim's lacks;
   * `extra`: a key only voxsim's has; `type`: JSON types differ; `value`: a compared value differs.
   */
  kind: 'status' | 'missing' | 'extra' | 'type' | 'value';
  /** The recorded value (its JSON type for `type`), absent for `extra`. */
  recorded?: unknown;
  /** voxsim's value (its JSON type for `type`), absent for `missing`. */
  voxsim?: unknown;
}

/**
 * The kinds of resources a session creates, whose ids are mapped (and whose unknown ids
 * are missing prerequisites). Other `*_id` fields (catalog: `language_id`, `voice_id`;
 * senders; accounts) are the same on both sides and pass unchanged.
 */
export const CREATED_KINDS: ReadonlySet<string> = new Set([
  'assistant',
  'campaign',
  'lead',
  'call',
  'conversation',
  'knowledgebase',
  'document',
  'tool',
  'folder',
  'label',
  'sip_trunk',
  'phone_number',
  'sms',
]);

/** Last words of catalog routes (`/user/assistants/voices`): their ids are fixtures, not created. */
const CATALOG_WORDS: ReadonlySet<string> = new Set(['voices', 'languages', 'models', 'synthesizer-providers', 'transcriber-providers', 'search', 'templates', 'senders']);

/** Path words that name a kind otherwise than by its singular (`phone-numbers`, `sip-trunks`, `make_call`). */
const WORD_KINDS: Record<string, string> = { make_call: 'call', whatsapp: 'msgapp', uuid: 'conversation' };

/**
 * The kind a word of a path or a key names: singular, snake_case, when it is a created kind.
 * @example kindOfWord('phone-numbers') // 'phone_number'
 */
export function kindOfWord(word: string): string | undefined {
  const snake = word.replace(/-/g, '_').toLowerCase();
  const kind = WORD_KINDS[snake] ?? snake.replace(/(?<=[a-z])s$/, '');
  return CREATED_KINDS.has(kind) ? kind : CREATED_KINDS.has(snake) ? snake : undefined;
}

/**
 * The kind of resource an operation answers with: the last literal word of its route
 * template that names one (`/user/knowledgebases/:knowledgebaseId/documents` -> document).
 * @example routeKind('/user/campaigns/update-status') // 'campaign'
 */
export function routeKind(template: string): string | undefined {
  const words = template.split('/').filter((w) => w !== '' && !w.startsWith(':'));
  // The catalog's lists under a resource's path hold catalog ids, the same on both sides.
  if (CATALOG_WORDS.has(words.at(-1) ?? '')) return undefined;
  for (const word of words.reverse()) {
    const kind = kindOfWord(word);
    if (kind) return kind;
  }
  return undefined;
}

/**
 * The kind of a route parameter: `:knowledgebaseId` names its own, `:id` and `:uuid` the
 * word before them (`/user/assistant/:id` -> assistant).
 * @example paramKind('/user/knowledgebases/:knowledgebaseId/documents/:documentId', 'documentId') // 'document'
 */
export function paramKind(template: string, param: string): string | undefined {
  const own = /^([a-z]+)(Id|Uuid)$/.exec(param);
  if (own) return kindOfWord(own[1]!);
  const segments = template.split('/');
  const at = segments.indexOf(`:${param}`);
  for (let i = at - 1; i >= 0; i--) {
    const kind = segments[i]!.startsWith(':') ? undefined : kindOfWord(segments[i]!);
    if (kind) return kind;
  }
  return undefined;
}

/**
 * The kind of the ids held by a key: `assistant_id` and `label_ids` name theirs; `id` and
 * `uuid` take the kind of the object they stand in (`context`).
 * @example fieldKind('campaign_id') // 'campaign'
 */
export function fieldKind(key: string, context?: string): string | undefined {
  if (key === 'id' || key === 'uuid') return context;
  const named = /^([a-z_]+?)_(ids?|uuid)$/.exec(key);
  return named ? kindOfWord(named[1]!) : undefined;
}

/**
 * A request body with the values of its `*_id` / `*_ids` fields (at any depth, each item
 * of a list) passed through `swap` with their kind and where they are; everything else as
 * it is. A replay swaps recorded ids for the simulator's (drift), a scenario for `$refs`
 * (from-har).
 * @example mapIdFields({ campaign_id: 7 }, (kind, id) => `${kind}:${id}`) // { campaign_id: 'campaign:7' }
 */
export function mapIdFields(body: unknown, swap: (kind: string, value: unknown, where: string) => unknown, where = 'body'): unknown {
  if (Array.isArray(body)) return body.map((item, i) => mapIdFields(item, swap, `${where}[${i}]`));
  if (!isObject(body)) return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      const kind = key === 'id' ? undefined : fieldKind(key);
      if (kind !== undefined && Array.isArray(value)) return [key, value.map((v) => swap(kind, v, `${where}.${key}`))];
      if (kind !== undefined && value !== null && typeof value !== 'object') return [key, swap(kind, value, `${where}.${key}`)];
      return [key, mapIdFields(value, swap, `${where}.${key}`)];
    }),
  );
}

/**
 * A request's path and query with the ids they carry written by `swap`, as mapIdFields does
 * for a body: each parameter of the matched route whose kind paramKind knows (where `path`)
 * and each query value whose name names a kind (`campaign_id`, `label_ids[]`; where
 * `query.NAME`). `swap` answers the URL text that stands for the id, escaped by the caller
 * as it needs (drift escapes voxsim's id, from-har writes a `$ref` bare); every other value
 * is escaped here. The path is written from the route template and the parameters the router
 * read, so it is decoded once and the router's way (a malformed escape is text); a path no
 * route matched is left as recorded.
 * @example mapRequestIds({ template: '/user/assistant/:id', params: { id: '812' }, path: '/user/assistant/812', search: 'campaign_id=7&q=a b' }, (kind, id) => `${kind}-${id}`)
 *   // { path: '/user/assistant/assistant-812', search: 'campaign_id=campaign-7&q=a%20b' }
 */
export function mapRequestIds(
  request: Pick<PlatformExchange, 'template' | 'params' | 'path' | 'search'>,
  swap: (kind: string, value: string, where: string) => string,
): { path: string; search: string } {
  const { template, params } = request;
  const path =
    template === undefined
      ? request.path
      : template
          .split('/')
          .map((segment) => {
            if (!segment.startsWith(':')) return segment;
            const name = segment.slice(1);
            const kind = paramKind(template, name);
            return kind === undefined ? encodeURIComponent(params[name]!) : swap(kind, params[name]!, 'path');
          })
          .join('/');
  const search = [...new URLSearchParams(request.search)]
    .map(([name, value]) => {
      const kind = fieldKind(name.replace(/\[\]$/, ''));
      return `${encodeURIComponent(name)}=${kind === undefined ? encodeURIComponent(value) : swap(kind, value, `query.${name}`)}`;
    })
    .join('&');
  return { path, search };
}

/** A value that can be an id: a whole number or a non-empty string. */
function isIdValue(value: unknown): value is number | string {
  return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && value !== '');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An id found in a body: its kind, its value and where it is (keys and indexes). */
export interface FoundId {
  kind: string;
  value: number | string;
  path: (string | number)[];
}

/**
 * The ids of created kinds in an answer body, in document order: `id`/`uuid` of objects
 * whose kind is known (the route's at the top and under `data`, a key's that names a kind
 * below: `calls[0].id` is a call), and `*_id`/`*_ids` fields.
 * @example idsIn({ data: { id: 7, assistant_id: 3 } }, 'campaign') // [{kind:'campaign',value:7,...},{kind:'assistant',value:3,...}]
 */
export function idsIn(body: unknown, kind: string | undefined): FoundId[] {
  const found: FoundId[] = [];
  const walk = (value: unknown, context: string | undefined, path: (string | number)[]) => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, context, [...path, i]));
      return;
    }
    if (!isObject(value)) return;
    for (const [key, item] of Object.entries(value)) {
      const idKind = fieldKind(key, context);
      if (idKind && CREATED_KINDS.has(idKind)) {
        if (isIdValue(item)) found.push({ kind: idKind, value: item, path: [...path, key] });
        else if (Array.isArray(item)) item.forEach((v, i) => isIdValue(v) && found.push({ kind: idKind, value: v, path: [...path, key, i] }));
        continue;
      }
      // `data`, `items` and paginator wrappers keep the context; a key naming a kind sets it.
      const inner = key === 'data' || key === 'items' || key === 'results' ? context : kindOfWord(key);
      walk(item, inner, [...path, key]);
    }
  };
  walk(body, kind, []);
  return found;
}

/** The value at a path of keys and indexes. */
export function valueAtPath(value: unknown, path: readonly (string | number)[]): unknown {
  let at = value;
  for (const part of path) {
    if (Array.isArray(at) && typeof part === 'number') at = at[part];
    else if (isObject(at) && typeof part === 'string') at = at[part];
    else return undefined;
  }
  return at;
}

/** Whether the arrays along `path` have the same length in both bodies (items are paired by index only then). */
function sameArrays(a: unknown, b: unknown, path: readonly (string | number)[]): boolean {
  let x = a;
  let y = b;
  for (const part of path) {
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y) && x.length !== y.length) return false;
    x = (x as Record<string | number, unknown> | undefined)?.[part];
    y = (y as Record<string | number, unknown> | undefined)?.[part];
  }
  return true;
}

const keyOf = (value: number | string) => `${typeof value}:${value}`;

/**
 * The platform's ids and the simulator's, per kind, one to one: an id the platform
 * assigned maps to the id voxsim assigned at the same place of the same answer.
 * @example const ids = new IdMap(); ids.learn(recorded, replayed, 'assistant'); ids.get('assistant', 812) // 1
 */
export class IdMap {
  private readonly forward = new Map<string, Map<string, number | string>>();
  private readonly taken = new Map<string, Set<string>>();

  /** voxsim's id for a recorded one, if known. */
  get(kind: string, recorded: number | string): number | string | undefined {
    return this.forward.get(kind)?.get(keyOf(recorded));
  }

  /** Whether the recorded id has been mapped. */
  has(kind: string, recorded: number | string): boolean {
    return this.get(kind, recorded) !== undefined;
  }

  /** Maps one pair unless either side is mapped already; answers whether it did. */
  set(kind: string, recorded: number | string, replayed: number | string): boolean {
    const forward = this.forward.get(kind) ?? new Map<string, number | string>();
    const taken = this.taken.get(kind) ?? new Set<string>();
    if (forward.has(keyOf(recorded)) || taken.has(keyOf(replayed))) return false;
    forward.set(keyOf(recorded), replayed);
    taken.add(keyOf(replayed));
    this.forward.set(kind, forward);
    this.taken.set(kind, taken);
    return true;
  }

  /** Whether voxsim's id has a recorded id mapped onto it. */
  isTaken(kind: string, replayed: number | string): boolean {
    return this.taken.get(kind)?.has(keyOf(replayed)) ?? false;
  }

  /**
   * Learns the pairs of two answers to the same request: each id of the recorded body
   * with voxsim's id at the same path (arrays paired by index only when both have the
   * same length). Answers the pairs newly learned.
   */
  learn(recorded: unknown, replayed: unknown, kind: string | undefined): FoundId[] {
    const learned: FoundId[] = [];
    for (const found of idsIn(recorded, kind)) {
      if (this.has(found.kind, found.value) || !sameArrays(recorded, replayed, found.path)) continue;
      const mine = valueAtPath(replayed, found.path);
      if (isIdValue(mine) && this.set(found.kind, found.value, mine)) learned.push(found);
    }
    return learned;
  }
}

/** The JSON type of a value, as differences name it. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A JSON path: `$`, `.key` (or `["odd key"]`), `[index]`.
 * @example jsonPath(['data', 0, 'status']) // '$.data[0].status'
 */
export function jsonPath(path: readonly (string | number)[]): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `${text}.${part}` : `${text}[${JSON.stringify(part)}]`), '$');
}

/**
 * Keys whose values are one of a closed set: statuses, types, modes, states, who answered,
 * error codes. Their string values are compared; a key of another name is not (names,
 * texts, timestamps, money, ids), except booleans, which are always compared.
 */
const CLOSED_KEY = /^(status|type|state|mode|action|answered_by|direction|role|sender|error_code|channel|kind|[a-z_]+_(status|type|mode|state|code))$/;

/**
 * Whether a value at `key` is compared: a boolean anywhere, a string or whole number under a
 * closed-set key. Ids and timestamps are never (a `*_status` holding a time is not a status).
 * @example isClosedValue('status', 'completed') // true
 */
export function isClosedValue(key: string | number | undefined, value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof key !== 'string' || !CLOSED_KEY.test(key)) return false;
  if (typeof value === 'string') return value.length <= 64 && !/^\d{4}-\d{2}-\d{2}/.test(value);
  return typeof value === 'number' && Number.isInteger(value);
}

/**
 * The shape and closed-set differences of two bodies: keys missing or extra at every
 * depth, JSON types, array items paired by index (the shorter list's length), and the
 * values isClosedValue names.
 * @example compareBodies({ status: 'queued', n: 1 }, { status: 'done', m: 1 }) // value at $.status, missing $.n, extra $.m
 */
export function compareBodies(recorded: unknown, voxsim: unknown, out: Difference[] = [], path: (string | number)[] = []): Difference[] {
  const a = jsonType(recorded);
  const b = jsonType(voxsim);
  if (a !== b) {
    out.push({ path: jsonPath(path), kind: 'type', recorded: a, voxsim: b });
    return out;
  }
  if (a === 'object') {
    const left = recorded as Record<string, unknown>;
    const right = voxsim as Record<string, unknown>;
    for (const key of Object.keys(left)) {
      if (!(key in right)) out.push({ path: jsonPath([...path, key]), kind: 'missing', recorded: left[key] });
      else compareBodies(left[key], right[key], out, [...path, key]);
    }
    for (const key of Object.keys(right)) if (!(key in left)) out.push({ path: jsonPath([...path, key]), kind: 'extra', voxsim: right[key] });
    return out;
  }
  if (a === 'array') {
    const left = recorded as unknown[];
    const right = voxsim as unknown[];
    for (let i = 0; i < Math.min(left.length, right.length); i++) compareBodies(left[i], right[i], out, [...path, i]);
    return out;
  }
  const key = path.at(-1);
  if (isClosedValue(key, recorded) && isClosedValue(key, voxsim) && recorded !== voxsim) out.push({ path: jsonPath(path), kind: 'value', recorded, voxsim });
  return out;
}

/** Deep equality of JSON values. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (jsonType(a) !== jsonType(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  if (isObject(a)) {
    const bo = b as Record<string, unknown>;
    const keys = Object.keys(a);
    return keys.length === Object.keys(bo).length && keys.every((k) => k in bo && sameJson(a[k], bo[k]));
  }
  return false;
}

/**
 * The request's own values echoed in the answer: a top-level field of the request body
 * that the recorded answer repeats unchanged (at the top or under `data`) must be repeated
 * by voxsim as voxsim's request had it (ids rewritten). An echo the platform transformed
 * (an encoding) is left to the shape comparison.
 * @example compareEchoes({ name: 'Sales' }, { data: { name: 'Sales' } }, { name: 'Sales' }, { data: { name: 'sales' } }) // value at $.data.name
 */
export function compareEchoes(recordedRequest: unknown, recorded: unknown, voxsimRequest: unknown, voxsim: unknown, out: Difference[] = []): Difference[] {
  if (!isObject(recordedRequest) || !isObject(voxsimRequest)) return out;
  for (const [key, sent] of Object.entries(recordedRequest)) {
    for (const at of [[key], ['data', key]]) {
      const answered = valueAtPath(recorded, at);
      if (answered === undefined || !sameJson(answered, sent)) continue;
      const mine = valueAtPath(voxsim, at);
      const expected = voxsimRequest[key];
      // A missing key or another JSON type is told by the shape comparison already.
      if (mine !== undefined && jsonType(mine) === jsonType(expected) && !sameJson(mine, expected)) {
        out.push({ path: jsonPath(at), kind: 'value', recorded: answered, voxsim: mine });
      }
    }
  }
  return out;
}

/**
 * Every difference of one exchange: the status, then the bodies (shape, closed-set values
 * and echoes), each path once.
 * @example compareExchange({ status: 201, body: {...} }, { status: 201, body: {...} }) // []
 */
export function compareExchange(
  recorded: { status: number; body: unknown; request?: unknown },
  voxsim: { status: number; body: unknown; request?: unknown },
): Difference[] {
  const out: Difference[] = [];
  if (recorded.status !== voxsim.status) out.push({ path: 'status', kind: 'status', recorded: recorded.status, voxsim: voxsim.status });
  compareBodies(recorded.body, voxsim.body, out);
  const seen = new Set(out.map((d) => d.path));
  for (const echo of compareEchoes(recorded.request, recorded.body, voxsim.request, voxsim.body)) if (!seen.has(echo.path)) out.push(echo);
  return out;
}
