// The floor plan of src/, checked in CI (`npm run lint:deps`, part of `npm test`).
//
// src/core is the pure core: it computes. It may read and write files (the repository under
// review, temporary copies) with node:fs, but it never starts a process and never talks to a
// network: those sit in src/adapters behind the ports of src/core/ports.ts. src/store keeps
// state (better-sqlite3) and knows no adapter. Only src/adapters/github speaks to GitHub's API.
//
// Type-only imports count (tsPreCompilationDeps): a type from an adapter ties the core to it too.
// What this cannot see: globals (`fetch`, `process.env`) need no import; keep them out of core by review.

const NETWORK = [
  '^(node:)?(http|https|http2|net|tls|dgram)$',
  'node_modules/(undici|probot|@octokit|@actions)/',
];
const PROCESSES = ['^(node:)?child_process$', 'node_modules/execa/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-not-to-adapters',
      comment: 'src/core is pure: an adapter fills a port of src/core/ports.ts instead of being imported.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'core-not-to-store',
      comment: 'src/core receives a Store (src/core/ports.ts); it does not open the database.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/store/' },
    },
    {
      name: 'core-spawns-nothing',
      comment: 'Process spawning (the harness, the sandbox, git) lives in src/adapters; core receives a HarnessRunner or another port.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: PROCESSES },
    },
    {
      name: 'core-no-network',
      comment: 'HTTP clients (LLM endpoints, GitHub) live in src/adapters; core receives an LlmClient, a PullRequestSource, a CommentSink.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: NETWORK },
    },
    {
      name: 'store-not-to-adapters',
      comment: 'src/store defines the types it persists (or takes them from src/core); adapters import the store, not the reverse.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'octokit-only-in-github-adapter',
      comment: 'Only src/adapters/github knows Octokit and the REST/GraphQL paths; other code goes through it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/adapters/(github|probot|action)/' },
      to: { path: 'node_modules/@octokit/' },
    },
    {
      name: 'octokit-types-only-in-framework-adapters',
      comment: 'The Probot and Action adapters receive an Octokit from their framework: they may name its type, never build or call one themselves.',
      severity: 'error',
      from: { path: '^src/adapters/(probot|action)/' },
      to: { path: 'node_modules/@octokit/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one; cut it by moving the shared part into a third module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
