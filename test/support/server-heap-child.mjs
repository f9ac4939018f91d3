// A child of test/unit/server-heap.test.ts: makes objects that survive a few young
// collections (as a loaded sandbox does) and prints the largest new space seen, with the
// server's heap tuning (young generation capped at argv[3] MB) or, for 0, V8's own.
const { tuneServerHeap } = await import(process.argv[2]);
const { getHeapSpaceStatistics } = await import('node:v8');
const limit = Number(process.argv[3]);
if (limit > 0) tuneServerHeap(limit);
const kept = [];
let max = 0;
for (let round = 0; round < 60; round++) {
  const batch = [];
  for (let i = 0; i < 20000; i++) batch.push({ i, text: `row ${i}`, list: [i, i + 1] });
  kept.push(batch);
  if (kept.length > 20) kept.shift();
  await new Promise((resolve) => setImmediate(resolve));
  max = Math.max(max, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
}
console.log(JSON.stringify({ max_mb: max / 1048576 }));
