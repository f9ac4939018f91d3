import { describe, expect, it } from 'vitest';
import { DeferredFills, lowerBound, Table } from '../../src/core/store.js';

interface Lead {
  id: number;
  account_id: number;
  campaign_id: number | null;
  status: string;
  name: string;
  tags: string[];
}

function leads(): Table<Lead> {
  return new Table<Lead>('leads')
    .index('account', (l) => l.account_id)
    .index('campaign', (l) => l.campaign_id)
    .index('status', (l) => l.status);
}

function lead(patch: Partial<Omit<Lead, 'id'>> = {}): Omit<Lead, 'id'> {
  return { account_id: 1, campaign_id: 10, status: 'pending', name: 'Ada', tags: [], ...patch };
}

const ids = (rows: { id: number }[]): number[] => rows.map((r) => r.id);

/** What a key of an index answers when its rows arrived as `arrivals` (ids, oldest first): their count, the oldest as `first`, all in id order from `where`. */
function expectArrivals<T extends { id: number }>(table: Table<T>, index: string, key: string | number, arrivals: readonly number[]): void {
  expect(table.count(index, key)).toBe(arrivals.length);
  expect(table.first(index, key)?.id).toBe(arrivals[0]);
  expect(ids(table.where(index, key))).toEqual([...arrivals].sort((a, b) => a - b));
}

describe('Table', () => {
  it('gives inserted rows the ids 1, 2, 3', () => {
    const table = leads();
    expect([table.insert(lead()), table.insert(lead()), table.insert(lead())].map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('returns the inserted row with its data and id', () => {
    const table = leads();
    expect(table.insert(lead({ name: 'Grace' }))).toEqual({ id: 1, account_id: 1, campaign_id: 10, status: 'pending', name: 'Grace', tags: [] });
  });

  it('gets a row by id', () => {
    const table = leads();
    table.insert(lead({ name: 'Ada' }));
    table.insert(lead({ name: 'Grace' }));
    expect(table.get(2)?.name).toBe('Grace');
    expect(table.get(3)).toBeUndefined();
  });

  it('counts its rows', () => {
    const table = leads();
    table.insert(lead());
    table.insert(lead());
    expect(table.size).toBe(2);
  });

  it('lists every row in ascending id order', () => {
    const table = leads();
    table.insert(lead());
    table.insert(lead());
    table.insert(lead());
    table.delete(2);
    expect(ids(table.all())).toEqual([1, 3]);
  });

  it('finds rows by index key in ascending id order', () => {
    const table = leads();
    table.insert(lead({ account_id: 1 }));
    table.insert(lead({ account_id: 2 }));
    table.insert(lead({ account_id: 1 }));
    expect(ids(table.where('account', 1))).toEqual([1, 3]);
    expect(ids(table.where('account', 2))).toEqual([2]);
  });

  it('finds nothing under an unused key', () => {
    const table = leads();
    table.insert(lead());
    expect(table.where('account', 99)).toEqual([]);
    expect(table.count('account', 99)).toBe(0);
    expect(table.first('account', 99)).toBeUndefined();
  });

  it('refuses a query on an index it does not have', () => {
    const table = leads();
    expect(() => table.where('phone', '+1')).toThrow('leads has no index "phone"');
  });

  it('counts the rows under a key', () => {
    const table = leads();
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'called' }));
    table.insert(lead({ status: 'pending' }));
    expect(table.count('status', 'pending')).toBe(2);
    expect(table.count('status', 'called')).toBe(1);
  });

  it('returns the first row under a key', () => {
    const table = leads();
    table.insert(lead({ status: 'called' }));
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'pending' }));
    expect(table.first('status', 'pending')?.id).toBe(2);
  });

  it('indexes rows that existed before the index was declared', () => {
    const table = new Table<Lead>('leads');
    table.insert(lead({ status: 'called' }));
    table.insert(lead({ status: 'pending' }));
    table.index('status', (l) => l.status);
    expect(ids(table.where('status', 'pending'))).toEqual([2]);
  });

  it('applies an update to the stored row and returns it', () => {
    const table = leads();
    table.insert(lead());
    const updated = table.update(1, { name: 'Grace', tags: ['vip'] });
    expect(updated).toEqual({ id: 1, account_id: 1, campaign_id: 10, status: 'pending', name: 'Grace', tags: ['vip'] });
    expect(table.get(1)).toEqual(updated);
  });

  it('moves an updated row from its old index key to the new one', () => {
    const table = leads();
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'pending' }));
    table.update(1, { status: 'called' });
    expect(ids(table.where('status', 'pending'))).toEqual([2]);
    expect(ids(table.where('status', 'called'))).toEqual([1]);
    expect(table.count('status', 'pending')).toBe(1);
  });

  it('lists a key in ascending id order after a row moved back to it', () => {
    const table = leads();
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'pending' }));
    table.update(1, { status: 'called' });
    table.update(1, { status: 'pending' });
    table.update(2, { status: 'called' });
    table.update(2, { status: 'pending' });
    expect(ids(table.where('status', 'pending'))).toEqual([1, 2, 3]);
  });

  it('keeps the other indexes when an update changes one key', () => {
    const table = leads();
    table.insert(lead({ account_id: 1, status: 'pending' }));
    table.update(1, { status: 'called' });
    expect(ids(table.where('account', 1))).toEqual([1]);
  });

  it('refuses to update a row that does not exist', () => {
    const table = leads();
    expect(() => table.update(5, { name: 'x' })).toThrow('leads 5 does not exist');
  });

  it('removes a deleted row from the table and its indexes', () => {
    const table = leads();
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'pending' }));
    const removed = table.delete(1);
    expect(removed?.id).toBe(1);
    expect(table.get(1)).toBeUndefined();
    expect(ids(table.where('status', 'pending'))).toEqual([2]);
    expect(table.count('account', 1)).toBe(1);
    expect(table.size).toBe(1);
  });

  it('answers undefined when deleting a row that does not exist', () => {
    expect(leads().delete(1)).toBeUndefined();
  });

  it('reports the next id without using it', () => {
    const table = leads();
    expect(table.nextId).toBe(1);
    expect(table.nextId).toBe(1);
    table.insert(lead());
    expect(table.nextId).toBe(2);
  });

  it('does not reuse the id of a deleted row', () => {
    const table = leads();
    table.insert(lead());
    table.insert(lead());
    table.delete(2);
    expect(table.nextId).toBe(3);
    expect(table.insert(lead()).id).toBe(3);
  });

  it('leaves a row with a null key out of that index', () => {
    const table = leads();
    table.insert(lead({ campaign_id: null }));
    table.insert(lead({ campaign_id: 10 }));
    expect(ids(table.where('campaign', 10))).toEqual([2]);
    expect(ids(table.where('account', 1))).toEqual([1, 2]);
  });

  it('adds a row to an index when its key changes from null', () => {
    const table = leads();
    table.insert(lead({ campaign_id: null }));
    table.update(1, { campaign_id: 20 });
    expect(ids(table.where('campaign', 20))).toEqual([1]);
  });

  it('removes a row from an index when its key changes to null', () => {
    const table = leads();
    table.insert(lead({ campaign_id: 20 }));
    table.update(1, { campaign_id: null });
    expect(table.where('campaign', 20)).toEqual([]);
    expect(table.count('campaign', 20)).toBe(0);
  });

  it('restores a snapshot with its rows, indexes and sequence', () => {
    const table = leads();
    table.insert(lead({ status: 'pending' }));
    table.insert(lead({ status: 'called' }));
    table.insert(lead({ status: 'pending' }));
    table.delete(3);
    const snap = table.snapshot();
    const copy = leads();
    copy.insert(lead({ status: 'other' }));
    copy.restore(snap);
    expect(copy.all()).toEqual(table.all());
    expect(ids(copy.where('status', 'pending'))).toEqual([1]);
    expect(copy.where('status', 'other')).toEqual([]);
    expect(copy.nextId).toBe(4);
  });

  it('describes a snapshot as the sequence and the rows', () => {
    const table = leads();
    table.insert(lead({ name: 'Ada' }));
    expect(table.snapshot()).toEqual({ seq: 1, rows: [{ id: 1, account_id: 1, campaign_id: 10, status: 'pending', name: 'Ada', tags: [] }] });
  });

  it('keeps a snapshot unchanged when the table changes afterwards', () => {
    const table = leads();
    table.insert(lead({ name: 'Ada', tags: ['a'] }));
    const snap = table.snapshot();
    table.update(1, { name: 'Grace' });
    table.get(1)!.tags.push('b');
    table.insert(lead());
    expect(snap).toEqual({ seq: 1, rows: [{ id: 1, account_id: 1, campaign_id: 10, status: 'pending', name: 'Ada', tags: ['a'] }] });
  });

  it('keeps a snapshot unchanged when restored rows are mutated', () => {
    const table = leads();
    table.insert(lead({ name: 'Ada', tags: ['a'] }));
    const snap = table.snapshot();
    const copy = leads();
    copy.restore(snap);
    copy.get(1)!.tags.push('b');
    copy.update(1, { name: 'Grace' });
    expect(snap.rows[0]).toEqual({ id: 1, account_id: 1, campaign_id: 10, status: 'pending', name: 'Ada', tags: ['a'] });
  });

  it('inserts a row of one account with the id first and the account last, as insert({ ...data, account_id }) does', () => {
    const table = leads();
    const { account_id: _, ...data } = lead({ account_id: 2 });
    const row = table.insertOwned(data, 7);
    expect(row).toEqual({ id: 1, ...data, account_id: 7 });
    expect(Object.keys(row)).toEqual(Object.keys(table.insert({ ...data, account_id: 7 })));
    expect(ids(table.where('account', 7))).toEqual([1, 2]);
  });

  it('keeps the indexes of two tables apart while both start empty', () => {
    const a = leads();
    const b = leads();
    a.insert(lead({ account_id: 1 }));
    expect(ids(a.where('account', 1))).toEqual([1]);
    expect(b.where('account', 1)).toEqual([]);
    expect(b.first('account', 1)).toBeUndefined();
    expect(b.ordered('account', 1).rows).toEqual([]);
    expect([...b.keys('account')]).toEqual([]);
    b.insert(lead({ account_id: 2 }));
    expect(ids([...b.ordered('account', 2).rows])).toEqual([1]);
    expect(b.first('account', 2)?.id).toBe(1);
    expect([...a.keys('account')]).toEqual([1]);
  });

  it('clears its rows and indexes and restarts ids at 1', () => {
    const table = leads();
    table.insert(lead());
    table.insert(lead());
    table.clear();
    expect(table.size).toBe(0);
    expect(table.where('account', 1)).toEqual([]);
    expect(table.nextId).toBe(1);
    expect(table.insert(lead()).id).toBe(1);
  });
});

describe('Table.text', () => {
  /** `table.text` with an encoder that counts its calls. */
  function counted(table: Table<Lead>) {
    let encoded = 0;
    const encode = (row: Lead) => (encoded++, JSON.stringify(row));
    return { text: (row: Lead) => table.text(row, encode), encoded: () => encoded };
  }

  it('encodes a row once while it does not change', () => {
    const table = leads();
    const row = table.insert(lead());
    const texts = counted(table);
    expect(texts.text(row)).toBe(JSON.stringify(row));
    expect(texts.text(row)).toBe(JSON.stringify(row));
    expect(texts.encoded()).toBe(1);
  });

  it('encodes a row again after an update, indexed field or not', () => {
    const table = leads();
    const row = table.insert(lead());
    const texts = counted(table);
    texts.text(row);
    table.update(row.id, { name: 'Grace' });
    expect(JSON.parse(texts.text(row))).toMatchObject({ name: 'Grace' });
    table.update(row.id, { status: 'done' });
    expect(JSON.parse(texts.text(row))).toMatchObject({ name: 'Grace', status: 'done' });
    expect(texts.encoded()).toBe(3);
  });

  it('keeps no text past a deletion, an emptying or a restore', () => {
    const table = leads();
    const texts = counted(table);
    const first = table.insert(lead());
    texts.text(first);
    table.delete(first.id);
    texts.text(first);
    const second = table.insert(lead());
    texts.text(second);
    const snap = table.snapshot();
    table.clear();
    texts.text(second);
    table.restore(snap, true);
    texts.text(snap.rows[0]!);
    expect(texts.encoded()).toBe(5);
  });

  it('keeps the texts of the latest 4,096 rows encoded, dropping the oldest first', () => {
    const table = leads();
    const rows = Array.from({ length: 4097 }, () => table.insert(lead()));
    const texts = counted(table);
    for (const row of rows) texts.text(row);
    texts.text(rows[4096]!);
    texts.text(rows[1]!);
    expect(texts.encoded()).toBe(4097);
    texts.text(rows[0]!);
    expect(texts.encoded()).toBe(4098);
  });
});

describe('Table.first as a FIFO under churn', () => {
  it('always answers the row that has been under the key the longest, through thousands of moves', async () => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(3);
    const table = new Table<{ id: number; state: string }>('churn').index('state', (r) => r.state);
    for (let i = 0; i < 3000; i++) table.insert({ state: random.int(0, 1) ? 'a' : 'b' });
    // The reference: a plain array per key, kept in arrival order.
    const order: Record<string, number[]> = { a: [], b: [] };
    for (const row of table.all()) order[row.state]!.push(row.id);
    for (let step = 0; step < 20_000; step++) {
      const key = random.int(0, 1) ? 'a' : 'b';
      const head = table.first('state', key);
      expect(head?.id).toBe(order[key]![0]);
      if (!head) continue;
      // Move the head (or sometimes a random row) to the other key, as the dialer does.
      const row = random.int(0, 3) === 0 ? table.get(order[key]![random.int(0, order[key]!.length - 1)]!)! : head;
      const to = row.state === 'a' ? 'b' : 'a';
      order[row.state] = order[row.state]!.filter((id) => id !== row.id);
      order[to]!.push(row.id);
      table.update(row.id, { state: to });
    }
  });
});

describe('a deferred index', () => {
  const table = () => new Table<Lead>('leads').index('status', (l) => l.status).index('name', (l) => l.name, { fields: ['name'], deferred: true });

  it('answers every row written before its first read, in id order, as an index kept from the start would', () => {
    const deferred = table();
    const kept = leads().index('name', (l) => l.name, { fields: ['name'] });
    for (const t of [deferred, kept]) {
      for (let i = 0; i < 30; i++) t.insert(lead({ name: `n${i % 4}`, status: i % 3 === 0 ? 'done' : 'pending' }));
      t.update(5, { name: 'n9' });
      t.update(6, { status: 'done' });
      t.delete(9);
    }
    for (const name of ['n0', 'n1', 'n2', 'n3', 'n9', 'none']) {
      expect(ids(deferred.where('name', name))).toEqual(ids(kept.where('name', name)));
      expect(deferred.count('name', name)).toBe(kept.count('name', name));
      expect(deferred.first('name', name)?.id).toBe(kept.first('name', name)?.id);
    }
    expect([...deferred.keys('name')]).toEqual([...kept.keys('name')]);
  });

  it('is kept current by the writes after its first read', () => {
    const t = table();
    t.insert(lead({ name: 'a' }));
    expect(t.count('name', 'a')).toBe(1);
    const b = t.insert(lead({ name: 'a' }));
    t.update(1, { name: 'b' });
    t.delete(b.id);
    t.insert(lead({ name: 'a' }));
    expect(ids(t.where('name', 'a'))).toEqual([3]);
    expect(ids(t.where('name', 'b'))).toEqual([1]);
  });

  it('is built from a restored snapshot on its first read', () => {
    const source = table();
    for (const name of ['x', 'y', 'x']) source.insert(lead({ name }));
    const t = table();
    t.restore(source.snapshot());
    expect(ids(t.where('name', 'x'))).toEqual([1, 3]);
  });
});

describe('rows a restore leaves', () => {
  /** A leads table whose codec counts the rows it makes, and keys one coalesced index by a groups map it fills as a side effect (as the calls' groups are). */
  function coded() {
    let made = 0;
    const groups = new Map<string, number>();
    const codec = {
      plain: (row: Lead) => ({ ...row }),
      row: (plain: Lead) => {
        made++;
        return { ...plain, name: plain.name.toUpperCase() };
      },
    };
    const table = new Table<Lead>('leads', codec)
      .index('status', (l) => l.status)
      .index('grouped', (l) => {
        groups.set(l.status, (groups.get(l.status) ?? 0) + 1);
        return l.status;
      }, { fields: ['status'], fewKeys: true, coalesce: true });
    return { table, made: () => made, groups };
  }
  const saved = { seq: 5, rows: [{ id: 1, ...lead({ name: 'a' }) }, { id: 2, ...lead({ name: 'b', status: 'called' }) }, { id: 5, ...lead({ name: 'c' }) }] };

  it('are made on the table\'s first use, not by the restore; the sequence answers without them', () => {
    const { table, made, groups } = coded();
    table.restore(structuredClone(saved), true);
    expect(made()).toBe(0);
    expect(groups.size).toBe(0);
    expect(table.lastId).toBe(5);
    expect(table.nextId).toBe(6);
    expect(made()).toBe(0);
    expect(table.size).toBe(3);
    expect(made()).toBe(3);
    expect(table.all().map((l) => l.name)).toEqual(['A', 'B', 'C']);
    expect(Object.fromEntries(groups)).toEqual({ pending: 2, called: 1 });
    expect(made()).toBe(3);
  });

  it('answer every read and write as rows restored at once would', () => {
    const reads: ((t: Table<Lead>) => unknown)[] = [
      (t) => t.get(2)?.name,
      (t) => t.size,
      (t) => ids(t.all()),
      (t) => ids(t.where('status', 'pending')),
      (t) => ids(t.select('grouped', 'pending')),
      (t) => t.count('grouped', 'called'),
      (t) => t.first('status', 'pending')?.id,
      (t) => ids([...t.ordered('status', 'pending').rows]),
      (t) => t.keyCount('status'),
      (t) => [...t.keys('grouped')],
      (t) => t.snapshot(),
      (t) => t.insert(lead({ name: 'd' })).id,
      (t) => t.update(1, { status: 'called' }).status,
      (t) => t.delete(5)?.id,
    ];
    const expected = reads.map((read) => {
      const { table } = coded();
      table.restore(structuredClone(saved), true);
      table.keysCurrent();
      return read(table);
    });
    for (const [i, read] of reads.entries()) {
      const { table, made } = coded();
      table.restore(structuredClone(saved), true);
      expect(read(table), `read ${i}`).toEqual(expected[i]);
      expect(made(), `read ${i}`).toBe(3);
    }
    expect(expected.slice(0, 4)).toEqual(['B', 3, [1, 2, 5], [1, 5]]);
  });

  it('are put in a slice at a time by unpackSome, in id order, and the rest by the next use', () => {
    const { table, made, groups } = coded();
    expect(table.unpackSome(2)).toBe(false);
    table.restore(structuredClone(saved), true);
    expect(table.waiting).toBe(3);
    expect(table.unpackSome(2)).toBe(true);
    expect([made(), table.waiting]).toEqual([2, 1]);
    expect(Object.fromEntries(groups)).toEqual({ pending: 1, called: 1 });
    // A use puts in what is left before it reads.
    expect(ids(table.where('grouped', 'pending'))).toEqual([1, 5]);
    expect([made(), table.waiting]).toEqual([3, 0]);
    expect(table.unpackSome(2)).toBe(false);
    table.restore(structuredClone(saved), true);
    while (table.unpackSome(1));
    expect(made()).toBe(6);
    expect(table.all().map((l) => l.name)).toEqual(['A', 'B', 'C']);
    expect(table.count('grouped', 'pending')).toBe(2);
  });

  it('have each index built on its first read alone, and the rest at the first write', () => {
    const keyed: Record<string, number> = { status: 0, name: 0 };
    const table = new Table<Lead>('leads')
      .index('status', (l) => (keyed.status!++, l.status))
      .index('name', (l) => (keyed.name!++, l.name));
    for (const l of saved.rows) table.insert(lead({ name: l.name, status: l.status }));
    const snap = table.snapshot();
    keyed.status = keyed.name = 0;
    table.restore(snap, true);
    expect(ids(table.where('status', 'pending'))).toEqual([1, 3]);
    expect(keyed).toEqual({ status: 3, name: 0 });
    table.update(2, { status: 'pending' });
    // The write built the other index first (three rows), then re-keyed the row it changed in both (its old key and its new).
    expect(keyed).toEqual({ status: 5, name: 5 });
    expect(ids(table.where('name', 'b'))).toEqual([2]);
    expect(ids(table.where('status', 'pending'))).toEqual([1, 2, 3]);
  });

  it('are dropped unmade by an emptying or another restore', () => {
    const { table, made } = coded();
    table.restore(structuredClone(saved), true);
    table.clear();
    expect(table.size).toBe(0);
    table.restore({ seq: 9, rows: [{ id: 9, ...lead({ name: 'z' }) }] });
    table.restore({ seq: 2, rows: [{ id: 2, ...lead({ name: 'y' }) }] });
    expect(table.all().map((l) => [l.id, l.name])).toEqual([[2, 'Y']]);
    expect(made()).toBe(1);
  });

  it('are made at once, and reported after the emptying, while an observer watches the table', () => {
    const { table, made } = coded();
    table.insert(lead());
    const seen: string[] = [];
    table.observe({ put: (row) => seen.push(`put ${row.id} ${row.name}`), delete: (id) => seen.push(`delete ${id}`), clear: () => seen.push('clear') });
    table.restore(structuredClone(saved), true);
    expect(made()).toBe(3);
    expect(seen).toEqual(['clear', 'put 1 A', 'put 2 B', 'put 5 C']);
  });

  it('are not reported to an observer that starts watching before they are made: the table held them already', () => {
    const { table } = coded();
    table.restore(structuredClone(saved), true);
    const seen: number[] = [];
    table.observe({ put: (row) => seen.push(row.id), delete: () => undefined, clear: () => undefined });
    table.update(2, { status: 'pending' });
    expect(seen).toEqual([2]);
    expect(ids(table.where('grouped', 'pending'))).toEqual([1, 2, 5]);
  });
});

describe('Table indexes that name their fields, ordered rows and single-row keys', () => {
  interface Call {
    id: number;
    account_id: number;
    status: string;
    created_at: number;
    note: string;
  }
  const calls = () =>
    new Table<Call>('calls')
      .index('account', (c) => c.account_id, { fields: ['account_id', 'created_at'], monotone: (c) => c.created_at })
      .index('status', (c) => c.status, { fields: ['status'] });
  const call = (patch: Partial<Omit<Call, 'id'>> = {}): Omit<Call, 'id'> => ({ account_id: 1, status: 'initiated', created_at: 1000, note: '', ...patch });

  it('re-keys an index when a patch touches one of its fields', () => {
    const table = calls();
    const row = table.insert(call());
    table.update(row.id, { status: 'completed' });
    expect(ids(table.where('status', 'completed'))).toEqual([row.id]);
    expect(table.count('status', 'initiated')).toBe(0);
  });

  it('leaves every index as it was when a patch touches none of their fields', () => {
    const table = calls();
    const row = table.insert(call());
    table.update(row.id, { note: 'x' });
    expect(ids(table.where('status', 'initiated'))).toEqual([row.id]);
    expect(table.get(row.id)!.note).toBe('x');
  });

  it('answers the rows of a key in ascending id order, and monotone while the value grows with the id', () => {
    const table = calls();
    for (const at of [1000, 2000, 3000]) table.insert(call({ created_at: at }));
    const ordered = table.ordered('account', 1);
    expect(ids([...ordered.rows])).toEqual([1, 2, 3]);
    expect(ordered.monotone).toBe(true);
  });

  it('keeps the ordered rows current as rows arrive, and not monotone once a back-dated one does', () => {
    const table = calls();
    table.insert(call({ created_at: 2000 }));
    table.ordered('account', 1);
    table.insert(call({ created_at: 3000 }));
    expect(ids([...table.ordered('account', 1).rows])).toEqual([1, 2]);
    table.insert(call({ created_at: 1000 }));
    expect(ids([...table.ordered('account', 1).rows])).toEqual([1, 2, 3]);
    expect(table.ordered('account', 1).monotone).toBe(false);
  });

  it('rebuilds the ordered rows after a deletion and after a row moved its ordered value', () => {
    const table = calls();
    for (const at of [1000, 2000, 3000]) table.insert(call({ created_at: at }));
    table.ordered('account', 1);
    table.delete(2);
    expect(ids([...table.ordered('account', 1).rows])).toEqual([1, 3]);
    table.update(1, { created_at: 5000 });
    expect(table.ordered('account', 1).monotone).toBe(false);
  });

  it('answers no ordered rows under an unused key', () => {
    expect(calls().ordered('account', 9).rows).toEqual([]);
  });

  it('keeps the ordered rows of a key read in order while rows near its newest end move in and out of it', () => {
    const table = calls().index('by_status', (c) => c.status, { fields: ['status', 'created_at'], monotone: (c) => c.created_at, fewKeys: true });
    for (let at = 1; at <= 6; at++) table.insert(call({ status: 'completed', created_at: at * 1000 }));
    const completed = table.ordered('by_status', 'completed');
    // A call that ends after later ones: it arrives before them, in the same array.
    table.update(4, { status: 'ringing' });
    expect(table.ordered('by_status', 'completed')).toBe(completed);
    expect(ids([...completed.rows])).toEqual([1, 2, 3, 5, 6]);
    table.update(4, { status: 'completed' });
    expect(table.ordered('by_status', 'completed')).toBe(completed);
    expect(ids([...completed.rows])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(completed.monotone).toBe(true);
    // A back-dated row that arrives in place makes the rows not monotone.
    table.insert(call({ status: 'ringing', created_at: 500 }));
    table.update(7, { status: 'completed' });
    expect(table.ordered('by_status', 'completed').monotone).toBe(false);
  });

  it('answers ordered rows equal to a fresh read, and monotone only when they are, through moves near and far from the newest end', async () => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(3);
    const STATUSES = ['initiated', 'ringing', 'completed', 'failed'];
    const table = calls().index('by_status', (c) => c.status, { fields: ['status', 'created_at'], monotone: (c) => c.created_at, fewKeys: true });
    let now = 0;
    for (let step = 0; step < 8000; step++) {
      const action = random.int(0, 19);
      const last = table.lastId;
      if (action < 6 || table.size === 0) {
        // Now and then a row dated before the latest few.
        now += 1000;
        table.insert(call({ status: 'initiated', created_at: random.int(0, 39) === 0 ? now - random.int(1, 50) * 1000 : now }));
      } else if (action < 18) {
        // Mostly recent rows change status; some from far back.
        const id = random.int(0, 9) === 0 ? random.int(1, last) : random.int(Math.max(1, last - 40), last);
        if (table.get(id)) table.update(id, { status: STATUSES[random.int(0, STATUSES.length - 1)]! });
      } else {
        const id = random.int(0, 2) === 0 ? random.int(1, last) : random.int(Math.max(1, last - 40), last);
        table.delete(id);
      }
      if (step % 20 !== 0) continue;
      for (const status of STATUSES) {
        const ordered = table.ordered('by_status', status);
        const expected = table.all().filter((c) => c.status === status);
        expect(ids([...ordered.rows])).toEqual(ids(expected));
        // Monotone is what lets a date range binary-search: it must never be claimed wrongly.
        if (ordered.monotone) expect(expected.every((c, i) => i === 0 || expected[i - 1]!.created_at <= c.created_at)).toBe(true);
      }
    }
  });

  it('holds a key with one row and with several alike (counts, lists, first, removal)', () => {
    const table = calls();
    table.insert(call({ status: 'a' }));
    expect(table.count('status', 'a')).toBe(1);
    expect(table.first('status', 'a')!.id).toBe(1);
    table.insert(call({ status: 'a' }));
    expect(ids(table.where('status', 'a'))).toEqual([1, 2]);
    table.delete(1);
    table.delete(2);
    expect(table.count('status', 'a')).toBe(0);
    expect(table.where('status', 'a')).toEqual([]);
  });

  it('keeps keys of rows with far-apart ids (a restored snapshot) in arrival order through moves', () => {
    const table = calls();
    const far = 2 ** 40;
    table.restore({ seq: far + 2, rows: [1, 2, far, far + 1, far + 2].map((id) => ({ id, ...call({ status: 'a' }) })) });
    table.update(far, { status: 'b' });
    table.update(1, { status: 'b' });
    table.update(far, { status: 'a' });
    expect(ids(table.where('status', 'a'))).toEqual([2, far, far + 1, far + 2]);
    expect(table.first('status', 'a')!.id).toBe(2);
    expect(table.first('status', 'b')!.id).toBe(1);
    table.delete(2);
    expect(table.first('status', 'a')!.id).toBe(far + 1);
    expect(table.count('status', 'a')).toBe(3);
  });

  it('keeps every row of a snapshot whose ids arrive out of order and far apart, through later inserts', () => {
    const table = calls();
    const restored = [5000, ...Array.from({ length: 4999 }, (_, i) => i + 1)];
    table.restore({ seq: 5000, rows: restored.map((id) => ({ id, ...call() })) });
    expect(table.size).toBe(5000);
    expect(table.get(5000)!.id).toBe(5000);
    expect(table.insert(call()).id).toBe(5001);
    expect([table.get(4999)!.id, table.get(5000)!.id, table.get(5001)!.id]).toEqual([4999, 5000, 5001]);
    table.delete(5000);
    expect(table.get(5000)).toBeUndefined();
    expect(table.size).toBe(5000);
    expect(ids(table.all()).slice(-3)).toEqual([4998, 4999, 5001]);
    expect(table.count('account', 1)).toBe(5000);
  });

  it('keeps a key of a few rows in arrival order as rows leave and come back, across ten rows and back to one', () => {
    const table = calls();
    for (let i = 0; i < 5; i++) table.insert(call({ status: 'a' }));
    table.update(1, { status: 'b' });
    table.update(1, { status: 'a' });
    expect([table.first('status', 'a')!.id, table.count('status', 'a')]).toEqual([2, 5]);
    for (let i = 0; i < 5; i++) table.insert(call({ status: 'a' }));
    expect([table.first('status', 'a')!.id, table.count('status', 'a')]).toEqual([2, 10]);
    expect(ids(table.where('status', 'a'))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const id of [2, 3, 4, 5, 6, 7, 8, 9, 10]) table.update(id, { status: 'b' });
    expect([table.first('status', 'a')!.id, table.count('status', 'a'), table.first('status', 'b')!.id]).toEqual([1, 1, 2]);
    for (const id of [2, 3, 4]) table.update(id, { status: 'c' });
    table.update(3, { status: 'b' });
    expect(ids(table.where('status', 'b'))).toEqual([3, 5, 6, 7, 8, 9, 10]);
    expect(table.first('status', 'b')!.id).toBe(5);
    table.delete(1);
    expect([table.first('status', 'a'), table.count('status', 'a')]).toEqual([undefined, 0]);
  });

  it('answers the same from an index of few keys: emptied keys are not listed, and fill again in arrival order', () => {
    const table = new Table<Call>('calls').index('status', (c) => c.status, { fields: ['status'], fewKeys: true });
    for (let i = 0; i < 3; i++) table.insert(call({ status: 'a' }));
    for (let i = 0; i < 100; i++) table.insert(call({ status: 'b' }));
    for (let id = 1; id <= 3; id++) table.update(id, { status: 'b' });
    expect([...table.keys('status')]).toEqual(['b']);
    expect([table.count('status', 'a'), table.first('status', 'a'), table.where('status', 'a')]).toEqual([0, undefined, []]);
    for (let id = 103; id >= 4; id--) table.update(id, { status: 'a' });
    expect([...table.keys('status')].sort()).toEqual(['a', 'b']);
    expect(table.first('status', 'a')!.id).toBe(103);
    expect(ids(table.where('status', 'a'))).toEqual(Array.from({ length: 100 }, (_, i) => i + 4));
    expect(ids(table.where('status', 'b'))).toEqual([1, 2, 3]);
    expect(table.first('status', 'b')!.id).toBe(1);
    expect(table.ordered('status', 'b').rows.map((r) => r.id)).toEqual([1, 2, 3]);
    for (let id = 4; id <= 103; id++) table.update(id, { status: 'b' });
    expect([...table.keys('status')]).toEqual(['b']);
    table.update(50, { status: 'a' });
    expect([table.first('status', 'a')!.id, table.count('status', 'a'), table.count('status', 'b')]).toEqual([50, 1, 102]);
  });

  it('answers a key in arrival order after most of its rows left and some came back', () => {
    const table = calls();
    for (let i = 0; i < 300; i++) table.insert(call({ status: 'a' }));
    for (let id = 1; id <= 250; id++) table.update(id, { status: 'b' });
    for (const id of [7, 3]) table.update(id, { status: 'a' });
    expect(table.count('status', 'a')).toBe(52);
    expect(table.first('status', 'a')!.id).toBe(251);
    expect(ids(table.where('status', 'a'))).toEqual([3, 7, ...Array.from({ length: 50 }, (_, i) => 251 + i)]);
    for (let id = 251; id <= 300; id++) table.update(id, { status: 'b' });
    expect(table.first('status', 'a')!.id).toBe(7);
  });

  it('leaves a key alone when a row that is not under it is removed from it', () => {
    const table = calls();
    table.insert(call({ status: 'a' }));
    table.insert(call({ status: 'b' }));
    table.update(2, { status: 'c' });
    expect(ids(table.where('status', 'a'))).toEqual([1]);
  });
});

describe('Table indexes against a plain model under random changes', () => {
  interface Item {
    id: number;
    group: number;
    state: number;
  }
  it.each([false, true])('answers what arrival-ordered lists per key answer (few keys: %s), through inserts, moves and deletes', async (fewKeys) => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(fewKeys ? 11 : 12);
    const table = new Table<Item>('items')
      .index('group', (r) => r.group, { fields: ['group'], fewKeys })
      .index('group_state', (r) => `${r.group}:${r.state}`, { fields: ['group', 'state'], fewKeys });
    // The model: each key's ids in the order they arrived under it.
    const model = new Map<string, number[]>();
    const at = (index: string, key: string | number) => model.get(`${index}/${key}`) ?? [];
    const move = (row: Item, from: Item | undefined) => {
      for (const [index, key, old] of [
        ['group', row.group, from?.group],
        ['group_state', `${row.group}:${row.state}`, from ? `${from.group}:${from.state}` : undefined],
      ] as const) {
        if (old === key) continue;
        if (old !== undefined) model.set(`${index}/${old}`, at(index, old).filter((id) => id !== row.id));
        model.set(`${index}/${key}`, [...at(index, key), row.id]);
      }
    };
    for (let step = 0; step < 6000; step++) {
      const action = random.int(0, 9);
      const live = table.all();
      if (action < 3 || live.length === 0) {
        const row = table.insert({ group: random.int(0, 3), state: random.int(0, 4) });
        move(row, undefined);
      } else if (action < 9) {
        const row = live[random.int(0, live.length - 1)]!;
        const before = { ...row };
        table.update(row.id, random.int(0, 3) === 0 ? { group: random.int(0, 3) } : { state: random.int(0, 4) });
        move(row, before);
      } else {
        const row = live[random.int(0, live.length - 1)]!;
        table.delete(row.id);
        for (const key of [`group/${row.group}`, `group_state/${row.group}:${row.state}`]) model.set(key, (model.get(key) ?? []).filter((id) => id !== row.id));
      }
      if (step % 50 !== 0) continue;
      for (let group = 0; group < 4; group++) {
        for (const [index, key] of [['group', group], ...[0, 1, 2, 3, 4].map((state) => ['group_state', `${group}:${state}`])] as [string, string | number][]) expectArrivals(table, index, key, at(index, key));
      }
      const listed = [...table.keys('group_state')].sort();
      expect(listed).toEqual([...model].filter(([k, v]) => k.startsWith('group_state/') && v.length > 0).map(([k]) => k.slice('group_state/'.length)).sort());
    }
  });
});

describe('Table indexes of keys that hold thousands of rows', () => {
  interface Item {
    id: number;
    group: number;
  }
  it.each([false, true])('answers lists, counts and FIFO heads across chunks, as rows arrive in id order, leave, and come back (few keys: %s)', async (fewKeys) => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(5);
    const table = new Table<Item>('items').index('group', (r) => r.group, { fields: ['group'], fewKeys });
    // Each group's ids in arrival order (a Map keeps insertion order; a deleted id that comes back arrives at the end).
    const model = [new Map<number, true>(), new Map<number, true>()];
    const check = () => {
      for (const group of [0, 1]) expectArrivals(table, 'group', group, [...model[group]!.keys()]);
    };
    // Ascending arrivals over several chunks, then deletions that compact them.
    for (let i = 0; i < 20_000; i++) model[table.insert({ group: i % 7 === 0 ? 1 : 0 }).group]!.set(i + 1, true);
    check();
    for (let id = 1; id <= 20_000; id++) {
      if (random.int(0, 2) === 0) continue;
      model[table.delete(id)!.group]!.delete(id);
    }
    check();
    // Rows moving between the groups arrive out of id order; more deletions compact again.
    for (let step = 0; step < 3000; step++) {
      const group = random.int(0, 1);
      const list = [...model[group]!.keys()];
      if (list.length === 0) continue;
      const id = list[random.int(0, list.length - 1)]!;
      model[group]!.delete(id);
      if (random.int(0, 1) === 0) {
        table.delete(id);
      } else {
        table.update(id, { group: 1 - group });
        model[1 - group]!.set(id, true);
      }
      if (step % 500 === 0) check();
    }
    check();
  });
});

describe('Table keys used as queues', () => {
  interface Item {
    id: number;
    queue: number;
  }
  it.each([false, true])('answers each queue in arrival order as rows leave from its head and its middle across many chunks, drain it and fill it again (few keys: %s)', async (fewKeys) => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(fewKeys ? 21 : 22);
    // Keys sharing their low bits (3, 19, 35): an index of few keys keeps recent keys by them.
    const queues = [3, 19, 35, 4];
    const table = new Table<Item>('items').index('queue', (r) => r.queue, { fields: ['queue'], fewKeys });
    const model = new Map(queues.map((queue) => [queue, new Map<number, true>()]));
    const check = () => {
      for (const queue of queues) expectArrivals(table, 'queue', queue, [...model.get(queue)!.keys()]);
      expect([...table.keys('queue')].sort()).toEqual(queues.filter((queue) => model.get(queue)!.size > 0).sort());
    };
    const move = (id: number, to: number) => {
      model.get(table.get(id)!.queue)!.delete(id);
      table.update(id, { queue: to });
      model.get(to)!.set(id, true);
    };
    for (let step = 0; step < 60_000; step++) {
      const action = random.int(0, 99);
      const queue = queues[random.int(0, queues.length - 1)]!;
      const other = queues[random.int(0, queues.length - 1)]!;
      if (action < 35) {
        model.get(queue)!.set(table.insert({ queue }).id, true);
      } else if (action < 80) {
        // The head leaves, as the dialer takes its next lead (to a queue of its own, or for good).
        const head = table.first('queue', queue);
        if (head === undefined) continue;
        if (other === queue || random.int(0, 3) === 0) {
          model.get(queue)!.delete(head.id);
          table.delete(head.id);
        } else move(head.id, other);
      } else if (action < 98) {
        const rows = [...model.get(queue)!.keys()];
        if (rows.length > 0 && other !== queue) move(rows[random.int(0, Math.min(rows.length - 1, 40))]!, other);
      } else if (random.int(0, 9) === 0) {
        // A whole queue drains.
        for (const id of [...model.get(queue)!.keys()]) {
          model.get(queue)!.delete(id);
          table.delete(id);
        }
      }
      if (step % 2000 === 0) check();
    }
    check();
  });
});

describe('lowerBound', () => {
  it('finds the first position at or above a value, both ends included', () => {
    const rows = [{ at: 1 }, { at: 3 }, { at: 3 }, { at: 7 }];
    const at = (r: { at: number }) => r.at;
    expect([0, 1, 3, 4, 7, 8].map((v) => lowerBound(rows, at, v))).toEqual([0, 0, 1, 3, 3, 4]);
  });
});

describe('DeferredFills', () => {
  it('runs the queued fills, oldest first, before the first use of a table that shares the queue', () => {
    const fills = new DeferredFills();
    const a = leads().fillFrom(fills);
    const b = leads().fillFrom(fills);
    // Each fill writes both tables: the first fill's rows come first in each, as if written at once.
    fills.add(() => (a.insert(lead({ name: 'a1' })), b.insert(lead({ name: 'b1' }))));
    fills.add(() => (b.insert(lead({ name: 'b2' })), a.insert(lead({ name: 'a2' }))));
    expect(b.all().map((r) => [r.id, r.name])).toEqual([[1, 'b1'], [2, 'b2']]);
    expect(a.all().map((r) => [r.id, r.name])).toEqual([[1, 'a1'], [2, 'a2']]);
  });

  it('runs each fill once', () => {
    const fills = new DeferredFills();
    const table = leads().fillFrom(fills);
    let runs = 0;
    fills.add(() => (runs++, table.insert(lead())));
    expect(table.size).toBe(1);
    expect(table.get(1)?.id).toBe(1);
    table.insert(lead());
    expect([runs, table.size]).toEqual([1, 2]);
  });

  it('runs before an insert, so a row written after a queued fill takes the next id', () => {
    const fills = new DeferredFills();
    const table = leads().fillFrom(fills);
    fills.add(() => table.insert(lead({ name: 'fixture' })));
    expect(table.insert(lead({ name: 'mine' })).id).toBe(2);
    expect(table.get(1)?.name).toBe('fixture');
  });

  it('runs a fill when queued while a table of the queue is observed, so the observer sees its rows', () => {
    const fills = new DeferredFills();
    const table = leads().fillFrom(fills);
    const seen: number[] = [];
    fills.add(() => table.insert(lead()));
    table.observe({ put: (row) => seen.push(row.id), delete: () => undefined, clear: () => undefined });
    expect(seen).toEqual([1]);
    fills.add(() => table.insert(lead()));
    expect(seen).toEqual([1, 2]);
    table.observe(undefined);
    fills.add(() => table.insert(lead()));
    expect(seen).toEqual([1, 2]);
    expect(table.size).toBe(3);
  });

  it('drops the fills it is told to clear, unrun', () => {
    const fills = new DeferredFills();
    const table = leads().fillFrom(fills);
    fills.add(() => table.insert(lead()));
    fills.clear();
    expect(table.size).toBe(0);
    expect(table.snapshot()).toEqual({ seq: 0, rows: [] });
  });
});

describe('an index of coalesced moves', () => {
  interface Item {
    id: number;
    created: number;
    state: number;
  }
  const tables = () =>
    new Table<Item>('items')
      // The same key twice: moved at once, and moved when read.
      .index('state', (r) => r.state, { fields: ['state'], fewKeys: true, monotone: (r) => r.created })
      .index('state_coalesced', (r) => r.state, { fields: ['state'], fewKeys: true, monotone: (r) => r.created, coalesce: true });
  const STATE_FIELDS = ['state'] as const;

  it('answers what an index moved at once answers, through bursts of moves (in place and by patch), deletes and inserts between reads', async () => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(21);
    const table = tables();
    for (let round = 0; round < 60; round++) {
      // Bursts up to 3,000 changes long: past the moves an index notes before it makes them.
      const burst = round % 10 === 9 ? 3000 : random.int(1, 200);
      for (let step = 0; step < burst; step++) {
        const action = random.int(0, 9);
        const live = table.size;
        if (action < 3 || live === 0) table.insert({ created: random.int(0, 3) === 0 ? 0 : table.nextId, state: random.int(0, 4) });
        else {
          const row = table.get(random.int(1, table.lastId));
          if (!row) continue;
          if (action < 6) table.update(row.id, { state: random.int(0, 4) });
          else if (action < 9) {
            const moving = table.changing(row, STATE_FIELDS);
            row.state = (row.state + 1) % 5;
            table.changed(row, moving);
          } else table.delete(row.id);
        }
      }
      for (let state = 0; state < 5; state++) {
        expect(table.count('state_coalesced', state)).toBe(table.count('state', state));
        expect(ids(table.where('state_coalesced', state))).toEqual(ids(table.where('state', state)));
        const plain = table.ordered('state', state);
        const coalesced = table.ordered('state_coalesced', state);
        expect(ids([...coalesced.rows])).toEqual(ids([...plain.rows]));
        expect(coalesced.monotone).toBe(plain.monotone);
        expect(ids(table.where('state_coalesced', state))).toEqual(ids(table.all().filter((r) => r.state === state)));
      }
      expect([...table.keys('state_coalesced')].sort()).toEqual([...table.keys('state')].sort());
    }
  });

  it('moves a row that went through several keys once, to the key it has when read', () => {
    const table = tables();
    const row = table.insert({ created: 1, state: 0 });
    for (const state of [1, 2, 3]) {
      const moving = table.changing(row, STATE_FIELDS);
      row.state = state;
      table.changed(row, moving);
    }
    expect([0, 1, 2, 3].map((state) => table.count('state_coalesced', state))).toEqual([0, 0, 0, 1]);
    // The keys it only passed through never held it, nor did the key it was inserted under.
    expect([...table.keys('state_coalesced')]).toEqual([3]);
    expect([table.keyCount('state'), table.keyCount('state_coalesced')]).toEqual([4, 1]);
  });

  it('forgets noted moves with the rows on clear and restore', () => {
    const table = tables();
    const row = table.insert({ created: 1, state: 0 });
    const snapshot = table.snapshot();
    table.update(row.id, { state: 4 });
    table.restore(snapshot);
    expect(table.count('state_coalesced', 4)).toBe(0);
    expect(ids(table.where('state_coalesced', 0))).toEqual([1]);
    table.update(1, { state: 2 });
    table.clear();
    const again = table.insert({ created: 1, state: 3 });
    table.update(again.id, { state: 1 });
    expect([0, 1, 2, 3, 4].map((state) => table.count('state_coalesced', state))).toEqual([0, 1, 0, 0, 0]);
  });

  it('answers no first row: it keeps no arrival order', () => {
    const table = tables();
    table.insert({ created: 1, state: 0 });
    expect(() => table.first('state_coalesced', 0)).toThrow('coalesces moves, so it keeps no arrival order');
  });

  it('is refused on a deferred index (moves are noted only by an index kept from the start)', () => {
    expect(() => new Table<Item>('items').index('state', (r) => r.state, { deferred: true, coalesce: true })).toThrow('an index of coalesced moves is kept from the start');
  });
});
