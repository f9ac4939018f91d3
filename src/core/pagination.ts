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
