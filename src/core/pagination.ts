/**
 * Page-number pagination in the platform's paginator shape
 * `{data, current_page, per_page, total, last_page}` (spec: List leads, List calls), or
 * on the live wire Laravel's full paginator (live-platform D.1); and the cursor form (A.2).
 */
import * as z from 'zod';
import { integer } from './answers.js';
import { JsonText, encodeJson } from './json.js';
import { int, queryInt } from './validation.js';
import type { Wire } from './wire.js';
import { lazySchema } from './lazy-schema.js';

export interface Page<T> {
  data: T[];
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
}

/** The schema of a page of `item` on the spec wire (typed as `Page`, so the two cannot part). */
export function pageSchema<T extends z.ZodType>(item: T): z.ZodType<Page<z.output<T>>> {
  return z.object({ data: z.array(item), current_page: integer(), per_page: integer(), total: integer(), last_page: integer() });
}

/** The schema of `PageLink`. */
const PageLinkSchema = lazySchema(() => z.object({ url: z.string().nullable(), label: z.string(), active: z.boolean() }));

/** The schema of Laravel's full page paginator of `item` (typed as `LaravelPage`, live-platform D.1). */
export function laravelPageSchema<T extends z.ZodType>(item: T): z.ZodType<LaravelPage<z.output<T>>> {
  return z.object({
    current_page: integer(),
    data: z.array(item),
    first_page_url: z.string(),
    from: integer().nullable(),
    last_page: integer(),
    last_page_url: z.string(),
    links: z.array(PageLinkSchema),
    next_page_url: z.string().nullable(),
    path: z.string(),
    per_page: integer(),
    prev_page_url: z.string().nullable(),
    to: integer().nullable(),
    total: integer(),
  });
}

/** The schema of the cursor paginator of `item` (typed as `CursorPage`, live-platform A.2). */
export function cursorPageSchema<T extends z.ZodType>(item: T): z.ZodType<CursorPage<z.output<T>>> {
  return z.object({ data: z.array(item), path: z.string(), per_page: integer(), next_cursor: z.string().nullable(), prev_cursor: z.string().nullable() });
}

/** PAGE SIZE limit of the specification: per_page 1-100, page from 1. */
export const PER_PAGE_MAX = 100;

/**
 * The `page` / `per_page` query members with the route's default page size.
 * @example pageQuery(15).parse({ per_page: '20' }) // { page: 1, per_page: 20 }
 */
export function pageQuery(defaultPerPage: number) {
  return z.object({
    page: queryInt().pipe(int(1)).default(1),
    per_page: queryInt().pipe(int(1, PER_PAGE_MAX)).default(defaultPerPage),
  });
}

/** One entry of a Laravel paginator's `links` (live-platform D.1). */
export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

/** Laravel's full page paginator, keys in its order (live-platform D.1). */
export interface LaravelPage<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
}

/** Where a page is answered: its wire, and the request URL without query (`selfPath`) for the live links. */
export interface PageOn {
  wire: Wire;
  path: string;
}

/**
 * One page of `items` (already filtered and ordered). A page past the end is empty and
 * still reports the totals; `last_page` is at least 1. With `on` naming the live wire the
 * page is Laravel's full paginator (live-platform D.1); otherwise the spec's five keys.
 * @example paginate([1, 2, 3], 2, 2, String) // { data: ['3'], current_page: 2, per_page: 2, total: 3, last_page: 2 }
 */
export function paginate<T, R>(items: readonly T[], page: number, perPage: number, serialise: (item: T) => R): Page<R>;
export function paginate<T, R>(items: readonly T[], page: number, perPage: number, serialise: (item: T) => R, on: PageOn | undefined): Page<R> | LaravelPage<R>;
export function paginate<T, R>(items: readonly T[], page: number, perPage: number, serialise: (item: T) => R, on?: PageOn): Page<R> | LaravelPage<R> {
  const start = (page - 1) * perPage;
  return pageOf({ rows: items.slice(start, start + perPage), total: items.length }, page, perPage, serialise, on);
}

/** One page already cut from its list: the page's rows and how many the whole list holds. */
export interface PageCut<T> {
  rows: readonly T[];
  total: number;
}

/**
 * The paginator of a page a service cut itself (reading only the page from an index,
 * with the total from the index's size): the same answer `paginate` gives for the whole list.
 * @example pageOf({ rows: [3], total: 3 }, 2, 2, String) // { data: ['3'], current_page: 2, per_page: 2, total: 3, last_page: 2 }
 */
export function pageOf<T, R>(cut: PageCut<T>, page: number, perPage: number, serialise: (item: T) => R, on?: PageOn): Page<R> | LaravelPage<R> {
  const data = cut.rows.map(serialise);
  const lastPage = Math.max(1, Math.ceil(cut.total / perPage));
  if (on?.wire === 'live') return laravelPage(data, page, perPage, cut.total, lastPage, on.path);
  return { data, current_page: page, per_page: perPage, total: cut.total, last_page: lastPage };
}

/**
 * `pageOf` as JSON text, each row's text written by `encode` (a kept text, `Table.text`)
 * rather than serialised as a record and stringified: the same text as
 * `JSON.stringify(pageOf(cut, page, perPage, serialise, on))`.
 * @example pageText({ rows: [call], total: 1 }, 1, 15, callText(ctx)) // JsonText of '{"data":[{"id":1,...}],"current_page":1,...}'
 */
export function pageText<T>(cut: PageCut<T>, page: number, perPage: number, encode: (item: T) => string, on?: PageOn): JsonText {
  return new JsonText(encodeJson(pageOf(cut, page, perPage, (item) => new JsonText(encode(item)), on)));
}

/**
 * The pages `links` shows between Previous and Next, `null` for a gap: Laravel's
 * UrlWindow with three pages on each side (live-platform D.1, the window table).
 * @example pageWindow(5, 20) // [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 19, 20]
 */
export function pageWindow(current: number, last: number): (number | null)[] {
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (last < 14) return range(1, last);
  if (current <= 7) return [...range(1, 10), null, last - 1, last];
  if (current > last - 7) return [1, 2, null, ...range(last - 9, last)];
  return [1, 2, null, ...range(current - 3, current + 3), null, last - 1, last];
}

function laravelPage<R>(data: R[], page: number, perPage: number, total: number, lastPage: number, path: string): LaravelPage<R> {
  // live-platform D.1: links carry only `page`, never the request's other parameters (Laravel's default).
  const url = (p: number) => `${path}?page=${p}`;
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  return {
    current_page: page,
    data,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    links: [
      { url: prev, label: '&laquo; Previous', active: false },
      ...pageWindow(page, lastPage).map((p) => (p === null ? { url: null, label: '...', active: false } : { url: url(p), label: String(p), active: p === page })),
      { url: next, label: 'Next &raquo;', active: false },
    ],
    next_page_url: next,
    path,
    per_page: perPage,
    prev_page_url: prev,
    to: from === null ? null : from + data.length - 1,
    total,
  };
}

/** The cursor paginator's shape (live-platform A.2). */
export interface CursorPage<T> {
  data: T[];
  path: string;
  per_page: number;
  next_cursor: string | null;
  prev_cursor: string | null;
}

/** A Laravel cursor: base64url, no padding, of `{"id":<id>,"_pointsToNextItems":<forward>}`. */
export function encodeCursor(id: number, forward: boolean): string {
  return Buffer.from(JSON.stringify({ id, _pointsToNextItems: forward })).toString('base64url');
}

/** The id and direction of a cursor; `undefined` when it cannot be read (then it counts as no cursor, as in Laravel). */
export function decodeCursor(cursor: string): { id: number; forward: boolean } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id?: unknown; _pointsToNextItems?: unknown };
    if (typeof parsed?.id !== 'number' || !Number.isSafeInteger(parsed.id) || typeof parsed._pointsToNextItems !== 'boolean') return undefined;
    return { id: parsed.id, forward: parsed._pointsToNextItems };
  } catch {
    return undefined;
  }
}

/**
 * One cursor page of `items` (already filtered, in ascending id order): a forward cursor
 * gives the `perPage` items after its id, a backward one the `perPage` items before it,
 * still ascending (live-platform A.2).
 * @example cursorPaginate(rows, undefined, 15, '/user/conversations', serialise)
 */
export function cursorPaginate<T extends { id: number }, R>(items: readonly T[], cursor: string | undefined, perPage: number, path: string, serialise: (item: T) => R): CursorPage<R> {
  const at = cursor === undefined ? undefined : decodeCursor(cursor);
  let start = 0;
  let end = Math.min(items.length, perPage);
  if (at?.forward) {
    start = items.findIndex((item) => item.id > at.id);
    if (start < 0) start = items.length;
    end = Math.min(items.length, start + perPage);
  } else if (at) {
    end = items.findIndex((item) => item.id >= at.id);
    if (end < 0) end = items.length;
    start = Math.max(0, end - perPage);
  }
  const page = items.slice(start, end);
  const first = page[0];
  const last = page[page.length - 1];
  return {
    data: page.map(serialise),
    path,
    per_page: perPage,
    next_cursor: last && end < items.length ? encodeCursor(last.id, true) : null,
    prev_cursor: first && at && start > 0 ? encodeCursor(first.id, false) : null,
  };
}
