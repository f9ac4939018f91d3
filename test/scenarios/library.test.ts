/**
 * The scenario library (issue 6, "Must show"): every file in `scenarios/` passes through
 * `sim.loadScenario` and through `voxsim scenario run`; a deliberately wrong expectation
 * makes the runner exit 1 with a diff; `{steps: false}` applies only `given` and the
 * scripts; text, objects and JSON files load like YAML files (ARCHITECTURE §7).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

const root = new URL('../..', import.meta.url).pathname;
const LIBRARY = join(root, 'scenarios');
const FILES = readdirSync(LIBRARY)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();
const PATHS = FILES.map((name) => join('scenarios', name));
const VOICEMAIL = join(LIBRARY, 'voicemail-then-human.yaml');
const VOICEMAIL_TEXT = readFileSync(VOICEMAIL, 'utf8');
const VOICEMAIL_STEP_KINDS = ['request', 'advance', 'expect_lead', 'advance', 'expect_lead', 'expect_calls', 'expect_campaign'];
const KEY = 'sim_test_key';
/** One timeline line: indent, clock time, mark, step kind. */
const TIMELINE_LINE = /^ {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} {2}[✓·✗] [a-z_]+/;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `voxsim` command from the package root (or from `cwd`). */
function voxsim(args: string[], cwd = root): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'dist/src/bin.js'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function get(sim: Simulator, path: string): Promise<{ status: number; body: any }> {
  const res = await sim.handle({ method: 'GET', path, headers: { authorization: `Bearer ${KEY}` }, body: null });
  return { status: res.status, body: res.body };
}

let temp: string;
/** voicemail-then-human with its last expect_calls asking for 3 calls where 2 are made. */
let wrongFile: string;

beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'voxsim-scenarios-'));
  const wrong = VOICEMAIL_TEXT.replace('expect_calls: { count: 2,', 'expect_calls: { count: 3,');
  expect(wrong).not.toBe(VOICEMAIL_TEXT);
  wrongFile = join(temp, 'voicemail-then-human-wrong.yaml');
  writeFileSync(wrongFile, wrong);
});

afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('every scenario in scenarios/ through sim.loadScenario', () => {
  let sim: Simulator | undefined;
  afterEach(() => {
    sim?.dispose();
    sim = undefined;
    vi.restoreAllMocks();
  });

  it('finds at least the twelve scenarios of the library', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(12);
    expect(FILES).toContain('voicemail-then-human.yaml');
  });

  it.each(FILES)('plays %s with every step passing, silently', async (name) => {
    const spies = (['log', 'info', 'warn', 'error'] as const).map((method) => vi.spyOn(console, method));
    const loaded = loadScenario(readFileSync(join(LIBRARY, name), 'utf8'), name);
    sim = createSimulator();
    const run = await sim.loadScenario(join(LIBRARY, name));
    expect(run.name).toBe(loaded.scenario.name);
    expect(run.file).toBe(join(LIBRARY, name));
    expect(run.steps.map((s) => s.kind)).toEqual(loaded.steps.map((s) => s.kind));
    expect(run.steps.filter((s) => !s.ok)).toEqual([]);
    expect(run.passed).toBe(true);
    expect(run.steps.filter((s) => s.expectation).length).toBeGreaterThanOrEqual(1);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

describe('voxsim scenario run over the whole library', () => {
  let result: CliResult;
  beforeAll(async () => {
    result = await voxsim(['scenario', 'run', ...PATHS]);
  }, 60_000);

  it('exits 0 and ends with the count of passed files', () => {
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().endsWith(`\n${FILES.length} passed, 0 failed`)).toBe(true);
  });

  it('prints one block per file: its name and path, a timeline, and a PASS line', () => {
    const blocks = result.stdout.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(FILES.length + 1);
    PATHS.forEach((path, i) => {
      const lines = blocks[i]!.split('\n');
      const { name } = loadScenario(readFileSync(join(root, path), 'utf8'), path).scenario;
      expect(lines[0]).toBe(`${name}  (${path})`);
      expect(lines.slice(1, -1).length).toBeGreaterThanOrEqual(1);
      for (const line of lines.slice(1, -1)) expect(line).toMatch(TIMELINE_LINE);
      expect(lines.at(-1)).toMatch(/^PASS {2}(\d+)\/\1 expectations, clock at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });
  });

  it('shows the clock time of each step, starting at the scenario start', () => {
    const block = result.stdout.split('\n\n').find((b) => b.startsWith('voicemail then human on retry'))!;
    expect(block.split('\n').slice(1, 4)).toEqual([
      expect.stringMatching(/^ {2}2026-03-02 08:55:00 {2}✓ request {14}POST \/user\/campaigns\/update-status → 200$/),
      expect.stringMatching(/^ {2}2026-03-02 09:25:00 {2}· advance {14}30m \(\d+ events\)$/),
      '  2026-03-02 09:25:00  ✓ expect_lead          +15551230003 {"status":"rescheduled"}',
    ]);
    expect(block.split('\n').at(-1)).toBe('PASS  5/5 expectations, clock at 2026-03-02 11:25:00');
  });

  it('writes nothing to stderr when no run is long', () => {
    expect(result.stderr).toBe('');
  });
});

describe('a deliberately wrong expectation', () => {
  it('makes voxsim scenario run exit 1 with FAIL, a ✗ line and the diff', async () => {
    const { code, stdout } = await voxsim(['scenario', 'run', wrongFile]);
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    const cross = lines.findIndex((line) => line.includes('✗'));
    expect(lines[cross]).toBe('  2026-03-02 11:25:00  ✗ expect_calls         {"count":3,"answered_by":["machine","human"],"status":["ended","completed"]}');
    expect(lines[cross + 1]).toBe('        calls.count: expected 3, got 2');
    expect(lines.filter((line) => line.includes('✗'))).toHaveLength(1);
    expect(lines).toContain('FAIL  4/5 expectations, clock at 2026-03-02 11:25:00');
    expect(lines.at(-1)).toBe('0 passed, 1 failed');
  });

  it('counts the failing file among the good ones and still exits 1', async () => {
    const { code, stdout } = await voxsim(['scenario', 'run', 'scenarios/voicemail-without-retry.yaml', wrongFile]);
    expect(code).toBe(1);
    expect(stdout).toContain('PASS  4/4 expectations');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 1 failed');
  });

  it('answers passed false from sim.loadScenario with the mismatch of the failed step', async () => {
    const sim = createSimulator();
    const run = await sim.loadScenario(wrongFile);
    sim.dispose();
    expect(run.passed).toBe(false);
    expect(run.steps.filter((s) => !s.ok)).toEqual([
      expect.objectContaining({ index: 5, kind: 'expect_calls', ok: false, expectation: true, mismatches: [{ path: 'calls.count', expected: 3, actual: 2 }] }),
    ]);
    expect(run.steps.filter((s) => s.ok)).toHaveLength(6);
  });

  it('gives the failed step the line of the step in its file', async () => {
    const sim = createSimulator();
    const run = await sim.loadScenario(wrongFile);
    sim.dispose();
    const failed = run.steps.find((s) => !s.ok)!;
    const lineText = readFileSync(wrongFile, 'utf8').split('\n')[failed.line! - 1];
    expect(lineText).toBe('  - expect_calls: { count: 3, answered_by: [machine, human], status: [ended, completed] }');
  });
});

describe('where a failed step is', () => {
  /** The line of the wrong expect_calls step in wrongFile. */
  const wrongLine = () => readFileSync(wrongFile, 'utf8').split('\n').findIndex((line) => line.includes('expect_calls: { count: 3,')) + 1;

  it('prints `at file:line` after the diff of a failed expectation', async () => {
    const { stdout } = await voxsim(['scenario', 'run', wrongFile]);
    const lines = stdout.split('\n');
    const cross = lines.findIndex((line) => line.includes('✗'));
    expect(lines.slice(cross + 1, cross + 3)).toEqual(['        calls.count: expected 3, got 2', `        at ${wrongFile}:${wrongLine()}`]);
    expect(lines.filter((line) => line.startsWith('        at '))).toHaveLength(1);
  });

  it('names file:line in the run result of every step', async () => {
    const sim = createSimulator();
    const run = await sim.loadScenario(wrongFile);
    sim.dispose();
    expect(run.steps.find((s) => !s.ok)!.location).toBe(`${wrongFile}:${wrongLine()}`);
    for (const step of run.steps) expect(step.location).toBe(`${wrongFile}:${step.line}`);
  });

  it('names file:line for a step that fails while it runs', async () => {
    const file = join(temp, 'inbound-nobody.yaml');
    writeFileSync(file, 'name: inbound to nobody\nstart: 2026-03-02T09:00:00Z\nsteps:\n  - advance: 1m\n  - inbound_call: { to: "+14155550100", from: "+15551230003" }\n');
    const { code, stdout } = await voxsim(['scenario', 'run', file]);
    expect(code).toBe(1);
    expect(stdout.split('\n').slice(2, 5)).toEqual([
      '  2026-03-02 09:01:00  ✗ inbound_call         failed: No inbound assistant answers this number.',
      '        step: expected "to run", got "No inbound assistant answers this number."',
      `        at ${file}:5`,
    ]);
  });

  it("names a field that only the other wire's record has when the step runs", async () => {
    const sim = createSimulator();
    const run = await sim.loadScenario('name: live field on the spec wire\nwire: spec\nsteps:\n  - expect_knowledgebase: { knowledgebase: 1, status_label: Ready }\n');
    sim.dispose();
    expect(run.steps[0]).toMatchObject({
      ok: false,
      location: '<scenario>:4',
      mismatches: [{ path: 'knowledgebase.status_label', expected: 'Ready', actual: undefined, unknown_field: 'there is no field status_label' }],
    });
  });
});

describe('shipped scenarios by name', () => {
  let elsewhere: string;
  beforeAll(() => {
    elsewhere = mkdtempSync(join(tmpdir(), 'voxsim-cwd-'));
  });
  afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('lists every shipped scenario with its name and description, from any folder', async () => {
    const { code, stdout, stderr } = await voxsim(['scenario', 'list'], elsewhere);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(FILES.length * 2);
    FILES.forEach((name, i) => {
      const { scenario } = loadScenario(readFileSync(join(LIBRARY, name), 'utf8'), name);
      expect(lines[2 * i]).toBe(name.replace(/\.yaml$/, ''));
      expect(lines[2 * i + 1]).toBe(`    ${scenario.name}${scenario.description ? `: ${scenario.description.replace(/\s+/g, ' ').trim()}` : ''}`);
    });
  });

  it('runs a shipped scenario by its name from another folder', async () => {
    const { code, stdout } = await voxsim(['scenario', 'run', 'voicemail-then-human'], elsewhere);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe(`voicemail then human on retry  (${VOICEMAIL})`);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('refuses an unknown name as a usage error (exit 2), suggesting the close one', async () => {
    const { code, stdout, stderr } = await voxsim(['scenario', 'run', 'voicemail-then-humn'], elsewhere);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe('no file and no shipped scenario is named "voicemail-then-humn"; did you mean voicemail-then-human? (voxsim scenario list shows them)');
  });

  it('still takes a path that exists', async () => {
    const { code, stdout } = await voxsim(['scenario', 'run', 'scenarios/voicemail-then-human.yaml']);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('voicemail then human on retry  (scenarios/voicemail-then-human.yaml)');
  });
});

describe('sim.loadScenario with {steps: false}', () => {
  let sim: Simulator;
  let run: Awaited<ReturnType<Simulator['loadScenario']>>;
  beforeAll(async () => {
    sim = createSimulator({ seed: 1, startAt: '2026-01-01T00:00:00Z' });
    run = await sim.loadScenario(VOICEMAIL, { steps: false });
  });
  afterAll(() => sim.dispose());

  it('answers the refs of the given resources and plays no step', () => {
    expect(run).toEqual({
      name: 'voicemail then human on retry',
      file: VOICEMAIL,
      refs: {
        caller: { id: 1, phone_number: '+14155550100' },
        sales: { id: 1, uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) },
        spring: { id: 1 },
      },
      steps: [],
      passed: true,
    });
  });

  it('creates the given campaign, left in draft', async () => {
    const res = await get(sim, '/user/campaigns');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ id: run.refs.spring!.id, name: 'Spring', status: 'draft', max_retries: 2, retry_interval: 60 })]);
  });

  it('creates the given lead, not called', async () => {
    const res = await get(sim, '/user/leads');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({ campaign_id: run.refs.spring!.id, phone_number: '+15551230003', variables: { first_name: 'Ann' }, status: 'created', created_at: '2026-03-02 08:55:00' }),
    ]);
  });

  it('makes no call', async () => {
    const res = await get(sim, '/user/calls');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], total: 0 });
  });

  it('sets the outcome script of the scenario', () => {
    expect(sim.control.outcomes.list()).toEqual({ rules: [{ match: { phone_number: '+15551230003' }, outcomes: ['voicemail', 'human'] }] });
  });

  it('leaves the clock at the scenario start with nothing pending', () => {
    expect(sim.control.clock.get()).toMatchObject({ now: '2026-03-02T08:55:00Z', pending_events: 0 });
  });
});

describe('sim.loadScenario sources', () => {
  let sim: Simulator | undefined;
  afterEach(() => {
    sim?.dispose();
    sim = undefined;
  });

  it('plays YAML text, named <scenario>', async () => {
    sim = createSimulator();
    const run = await sim.loadScenario(VOICEMAIL_TEXT);
    expect(run.file).toBe('<scenario>');
    expect(run.steps.map((s) => s.kind)).toEqual(VOICEMAIL_STEP_KINDS);
    expect(run.passed).toBe(true);
  });

  it('plays a plain object', async () => {
    sim = createSimulator();
    const run = await sim.loadScenario({
      name: 'a draft campaign',
      seed: 3,
      start: '2026-03-02T09:00:00Z',
      given: {
        assistants: [
          {
            ref: 'sales',
            name: 'Sales',
            type: 'outbound',
            mode: 'pipeline',
            voice_id: 1,
            language_id: 1,
            llm_model_id: 1,
            timezone: 'Europe/Berlin',
            initial_message: 'Hello.',
            system_prompt: 'You book demos.',
          },
        ],
        campaigns: [{ ref: 'spring', name: 'Spring', assistant: 'sales' }],
      },
      steps: [
        { expect_campaign: { campaign: 'spring', name: 'Spring', status: 'draft' } },
        { request: 'GET /user/assistant/$sales', expect: { status: 200, body: { data: { id: 1, name: 'Sales', uuid: '$sales.uuid' } } } },
      ],
    });
    expect(run.file).toBe('<scenario>');
    expect(run.steps.map((s) => [s.kind, s.ok, s.line])).toEqual([
      ['expect_campaign', true, null],
      ['request', true, null],
    ]);
    expect(run.passed).toBe(true);
  });

  it('plays the same scenario from a JSON file, with the lines of the JSON', async () => {
    const file = join(temp, 'voicemail-then-human.json');
    writeFileSync(file, JSON.stringify(parse(VOICEMAIL_TEXT), null, 2));
    sim = createSimulator();
    const run = await sim.loadScenario(file);
    expect(run.file).toBe(file);
    expect(run.name).toBe('voicemail then human on retry');
    expect(run.steps.map((s) => s.kind)).toEqual(VOICEMAIL_STEP_KINDS);
    expect(run.passed).toBe(true);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[run.steps[2]!.line! - 1]).toMatch(/^\s+\{$/);
    expect(lines[run.steps[2]!.line!]).toMatch(/^\s+"expect_lead": \{$/);
  });

  it('answers the same step results for YAML text, a YAML file and a JSON file', async () => {
    const file = join(temp, 'same.json');
    writeFileSync(file, JSON.stringify(parse(VOICEMAIL_TEXT)));
    const results = [];
    for (const source of [VOICEMAIL_TEXT, VOICEMAIL, file]) {
      const fresh = createSimulator();
      const run = await fresh.loadScenario(source);
      fresh.dispose();
      results.push(run.steps.map(({ kind, at, ok, summary, mismatches }) => ({ kind, at, ok, summary, mismatches })));
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });
});
