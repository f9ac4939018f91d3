/**
 * Calls grouped by what they never change: the account, the type, the campaign and the
 * assistant a call is placed with. Each group gets a small integer, so the calls index by
 * group and status (db.ts `group_status`) keys a call by one integer however many of
 * the list filters it stands for (spec: List calls): a list with several filters reads
 * exactly the keys its filters name, and its total is their sizes.
 */
import { CALL_STATUSES } from '../../core/vocabulary.js';
import type { Call, CallStatus, CallType } from './schema.js';

/** The fields of a call that name its group. */
export interface CallGroup {
  readonly id: number;
  readonly account_id: number;
  readonly type: CallType;
  readonly campaign_id: number | null;
  readonly assistant_id: number | null;
}

/** Each status's place in CALL_STATUSES (a lookup instead of a search on every status change). */
const STATUS_PLACES: ReadonlyMap<CallStatus, number> = new Map(CALL_STATUSES.map((status, i) => [status, i]));

/** Room for every status in a group's keys (CALL_STATUSES has 10). */
const STATUS_SLOTS = 16;

/**
 * The `group_status` key of a group's calls in one status.
 * @example groupStatusKey(3, 'completed') // 53: group 3, status 5
 */
export function groupStatusKey(group: number, status: CallStatus): number {
  return group * STATUS_SLOTS + STATUS_PLACES.get(status)!;
}

/**
 * The groups of a database's calls, numbered in the order they first appear. A group
 * stays once its calls are gone (a few records per distinct combination): its keys are
 * then empty.
 * @example
 * const groups = new CallGroups()
 * groups.key(call) // groupStatusKey(groups.ofAccount(call.account_id)[0].id, call.status)
 */
export class CallGroups {
  /**
   * The groups by their campaign (a campaign's calls share an assistant and a type, but
   * for a campaign whose assistant changed), or by their assistant when they have no
   * campaign (negative: -1 - assistant id, -1 without one): a few groups under each.
   */
  private readonly bySlot = new Map<number, CallGroup[]>();
  private readonly byAccount = new Map<number, CallGroup[]>();
  private count = 0;
  /** The group last asked for: a dialing campaign's calls ask for the same one over and over. */
  private last: CallGroup | undefined;

  /** The call's `group_status` key. */
  key(call: Call): number {
    let group = this.last;
    if (group === undefined || group.campaign_id !== call.campaign_id || group.assistant_id !== call.assistant_id || group.type !== call.type || group.account_id !== call.account_id) {
      group = this.groupOf(call);
      this.last = group;
    }
    return groupStatusKey(group.id, call.status);
  }

  /** An account's groups, in the order they first appeared. */
  ofAccount(accountId: number): readonly CallGroup[] {
    return this.byAccount.get(accountId) ?? [];
  }

  /** Forgets every group, with the calls table's rows (ids start over: a call left keyed by an old id could not be found). */
  clear(): void {
    this.bySlot.clear();
    this.byAccount.clear();
    this.count = 0;
    this.last = undefined;
  }

  private groupOf(call: Call): CallGroup {
    const slot = call.campaign_id ?? -1 - (call.assistant_id ?? 0);
    let groups = this.bySlot.get(slot);
    if (groups === undefined) this.bySlot.set(slot, (groups = []));
    for (const group of groups) {
      if (group.campaign_id === call.campaign_id && group.assistant_id === call.assistant_id && group.type === call.type && group.account_id === call.account_id) return group;
    }
    const group: CallGroup = { id: this.count++, account_id: call.account_id, type: call.type, campaign_id: call.campaign_id, assistant_id: call.assistant_id };
    groups.push(group);
    const ofAccount = this.byAccount.get(call.account_id);
    if (ofAccount) ofAccount.push(group);
    else this.byAccount.set(call.account_id, [group]);
    return group;
  }
}
