/**
 * A list of rules that each apply a counted number of `times`, the first match used
 * up first: forced webhook failures and forced request faults both work this way.
 */

export interface CountedRule {
  id: number;
  times: number;
}

/**
 * Counted rules with their own id sequence.
 * @example
 * const rules = new CountedRules<{ id: number; times: number; url: string }>()
 * rules.add({ times: 2, url: 'http://127.0.0.1/hook' })
 * rules.take((r) => r.url === 'http://127.0.0.1/hook') // the rule, now with times 1
 */
export class CountedRules<R extends CountedRule> {
  private rules: R[] = [];
  private seq = 0;
  private changes = 0;

  /** Grows with every change of the rules (the state file writes them only when it moved). */
  get revision(): number {
    return this.changes;
  }

  /** Adds a rule after the others; answers a copy with its id. */
  add(fields: Omit<R, 'id'>): R {
    const rule = { id: ++this.seq, ...fields } as R;
    this.rules.push(rule);
    this.changes++;
    return { ...rule };
  }

  /** How many rules are in force (a request path checks it before looking for a match). */
  get size(): number {
    return this.rules.length;
  }

  /** Copies of the rules still in force, oldest first. */
  list(): R[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** Uses one time of the first rule that `matches`; a rule used up is dropped. */
  take(matches: (rule: R) => boolean): R | undefined {
    const rule = this.rules.find(matches);
    if (!rule) return undefined;
    this.changes++;
    rule.times -= 1;
    if (rule.times <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return { ...rule };
  }

  /** Drops every rule; ids go on from where they were. */
  clear(): void {
    this.rules = [];
    this.changes++;
  }

  /** Drops every rule and starts ids again from 1. */
  reset(): void {
    this.rules = [];
    this.seq = 0;
    this.changes++;
  }

  snapshot(): { rules: R[]; seq: number } {
    return { rules: this.list(), seq: this.seq };
  }

  restore(state: { rules: R[]; seq: number }): void {
    this.rules = state.rules.map((r) => ({ ...r }));
    this.seq = state.seq;
    this.changes++;
  }
}
