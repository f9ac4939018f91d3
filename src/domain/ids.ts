/** Path ids: a segment that is not a positive integer names nothing, so it is answered like a missing record. */
export function pathId(segment: string | undefined): number {
  return segment !== undefined && /^\d{1,15}$/.test(segment) ? Number(segment) : 0;
}
