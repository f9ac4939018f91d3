/**
 * Page-number pagination in the platform's paginator shape
 * `{data, current_page, per_page, total, last_page}` (spec: List leads, List calls).
 */
import { z } from 'zod';
import { int, queryInt } from './validation.js';

export interface Page<T> {
  data: T[];
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
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

/**
 * One page of `items` (already filtered and ordered). A page past the end is empty and
 * still reports the totals; `last_page` is at least 1.
 * @example paginate([1, 2, 3], 2, 2, String) // { data: ['3'], current_page: 2, per_page: 2, total: 3, last_page: 2 }
 */
export function paginate<T, R>(items: readonly T[], page: number, perPage: number, serialise: (item: T) => R): Page<R> {
  const start = (page - 1) * perPage;
  return {
    data: items.slice(start, start + perPage).map(serialise),
    current_page: page,
    per_page: perPage,
    total: items.length,
    last_page: Math.max(1, Math.ceil(items.length / perPage)),
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
