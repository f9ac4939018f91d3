/**
 * The layering of src/, checked by dependency-cruiser (`npm run deps`, and test/architecture.test.ts).
 *
 *   core      <- engine <- domain (type-only imports of engine) <- control / scenario / state
 *             <- recording (above scenario: drift plays a scenario's given; it gets its simulator
 *                from the entry point that calls it)
 *             <- simulator.ts <- sandboxes/** <- adapters/**, cli.ts, cli/** <- bin.ts
 *                             <- index.ts
 *
 * Paths are relative to the directory cruised from (the repository root). Type-only imports
 * (`import type`, `import { type A }`) are edges too (tsPreCompilationDeps), so they count for
 * cycles and for every rule that does not exempt them explicitly.
 */

/** A module resolved inside some node_modules, or a bare name that could not be resolved. */
const npm = (names) => [`(^|/)node_modules/(@types/)?(${names})(/|$)`, `^(${names})(/|$)`];

/** Imports that resolve to an npm package (node_modules) rather than to a file of the project. */
const NODE_MODULES = '(^|/)node_modules/';

/** Type-level only: `import type ...`, `export type ... from`, and `import('...').T` in a type position. */
const TYPE_LEVEL = ['type-only', 'type-import'];

/** The composition root and the entry points above it. */
const ENTRY_POINTS = ['^src/simulator\\.ts$', '^src/index\\.ts$', '^src/adapters/', '^src/cli\\.ts$', '^src/cli/', '^src/bin\\.ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere in src/, type-only imports included.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'transports-only-in-adapters',
      severity: 'error',
      comment: 'Only src/adapters/** imports the transports msw, express and ws (and their subpaths); cli.ts and bin.ts reach them through src/adapters.',
      from: { path: '^src/', pathNot: '^src/adapters/' },
      to: { path: npm('msw|express|ws') },
    },
    {
      name: 'core-is-self-contained',
      severity: 'error',
      comment: 'src/core/** imports only src/core/**, npm packages and node builtins.',
      from: { path: '^src/core/' },
      to: { pathNot: ['^src/core/', NODE_MODULES], dependencyTypesNot: ['core'] },
    },
    {
      name: 'engine-only-core',
      severity: 'error',
      comment: 'src/engine/** imports only src/engine/**, src/core/**, npm packages and node builtins.',
      from: { path: '^src/engine/' },
      to: { pathNot: ['^src/(engine|core)/', NODE_MODULES], dependencyTypesNot: ['core'] },
    },
    {
      name: 'domain-not-engine-at-runtime',
      severity: 'error',
      comment: 'src/domain/** may import types from src/engine/** but must not load it at run time.',
      from: { path: '^src/domain/' },
      to: { path: '^src/engine/', dependencyTypesNot: TYPE_LEVEL },
    },
    {
      name: 'domain-not-upper-layers',
      severity: 'error',
      comment: 'src/domain/** never imports (not even types from) control, scenario, recording, simulator.ts, index.ts, adapters, cli.ts or bin.ts.',
      from: { path: '^src/domain/' },
      to: { path: ['^src/control/', '^src/scenario/', '^src/recording/', ...ENTRY_POINTS] },
    },
    {
      name: 'services-not-entry-points',
      severity: 'error',
      comment: 'src/control/**, src/scenario/**, src/state/** and src/recording/** may import core, engine, domain and each other (recording from above), never simulator.ts, index.ts, adapters, cli.ts or bin.ts.',
      from: { path: '^src/(control|scenario|state|recording)/' },
      to: { path: ENTRY_POINTS },
    },
    {
      name: 'recording-above-scenario',
      severity: 'error',
      comment: 'src/recording/** (record, drift, from-har) sits above the simulator like scenario/ and uses it: nothing below imports it (core, engine, domain, control, scenario, state), not even for types.',
      from: { path: '^src/(core|engine|domain|control|scenario|state)/' },
      to: { path: '^src/recording/' },
    },
    {
      name: 'simulator-only-from-entry-points',
      severity: 'error',
      comment: 'Only src/index.ts, src/sandboxes/**, src/adapters/**, src/cli.ts and src/cli/** import src/simulator.ts (tests are outside src/).',
      from: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/sandboxes/', '^src/adapters/', '^src/cli\\.ts$', '^src/cli/'] },
      to: { path: '^src/simulator\\.ts$' },
    },
    {
      name: 'sandboxes-between-simulator-and-adapters',
      severity: 'error',
      comment: 'src/sandboxes/** (one server, many simulators: issue 35) sits above simulator.ts and below the adapters: only the adapters and the CLI import it, and it imports neither.',
      from: { path: '^src/', pathNot: ['^src/sandboxes/', '^src/adapters/', '^src/cli\\.ts$', '^src/cli/', '^src/bin\\.ts$'] },
      to: { path: '^src/sandboxes/' },
    },
    {
      name: 'sandboxes-not-transports',
      severity: 'error',
      comment: 'src/sandboxes/** never imports the adapters or the CLI: it is transport-free, like the simulator it hosts.',
      from: { path: '^src/sandboxes/' },
      to: { path: ['^src/adapters/', '^src/cli\\.ts$', '^src/cli/', '^src/bin\\.ts$', '^src/index\\.ts$'] },
    },
  ],
  options: {
    // Record npm packages as leaves (their own imports are not cruised).
    doNotFollow: { path: NODE_MODULES },
    tsConfig: { fileName: 'tsconfig.json' },
    // Keep imports that TypeScript erases (import type, type-only named imports) as edges.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
