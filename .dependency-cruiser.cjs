/**
 * The import rules of iris (docs/architecture.md, "Layers"; DESIGN.md, "Import rules"), checked by
 * dependency-cruiser: `npm run check:imports`, and in `npm test` by test/architecture/imports.test.ts.
 * Every file under src/ falls under a rule. Layers, top to bottom:
 *
 *   commands (with base-command.ts and oclif.ts) -> ui / client -> server / sim -> config
 *     -> api / cluster -> runtime / kube -> logs -> model
 *
 * A module imports only its own layer or layers below it; `src/cluster/**` receives resolved
 * settings and never sees the wire protocol, the server, clients or the config file; the
 * scheduler (placement, queue policies, planner) is pure and imports no Node built-in with side
 * effects. Type-only imports count: a layer that names a type of a higher layer depends on it.
 * The few arrows that cross a rule on purpose are rules of their own, each with its reason:
 * the offline reader (client -> server/offline.ts) and `cluster start` (commands -> server/daemon.ts),
 * both loaded only by a dynamic import.
 */
const SIDE_EFFECT_BUILTINS = '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|dns|tls|timers|timers/promises|worker_threads|cluster|os|process|readline|vm)$';

/** A rule forbidding `from` to import any of `to` (folders under src/). */
function layer(name, from, to, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: `^src/(${to.join('|')})(/|\\.ts$|\\.tsx$)` },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules form a tree of layers: no import cycles.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('commands-speak-through-ui-and-client', '^src/(commands/|base-command\\.ts$)', ['cluster', 'config', 'runtime', 'logs', 'kube'],
      'A command parses flags, makes one client call and renders: it reaches the cluster through src/client, never its engine.'),
    {
      name: 'commands-start-the-cluster-only',
      comment: 'The one server module a command reaches is server/daemon.ts (`cluster start --foreground`), by a dynamic import.',
      severity: 'error',
      from: { path: '^src/(commands/|base-command\\.ts$)' },
      to: { path: '^src/server/', pathNot: '^src/server/daemon\\.ts$' },
    },
    {
      name: 'commands-start-the-cluster-only',
      severity: 'error',
      from: { path: '^src/(commands/|base-command\\.ts$)' },
      to: { path: '^src/server/daemon\\.ts$', dynamic: false },
    },
    {
      name: 'base-command-is-for-commands',
      comment: 'BaseCommand (errors, --json, clients, interrupts) is the base class of the commands and of nothing else.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(commands/|base-command\\.ts$)' },
      to: { path: '^src/base-command\\.ts$' },
    },
    {
      name: 'oclif-through-its-door',
      comment: 'src/oclif.ts is the one door to oclif (bundled into dist/oclif.js by scripts/bundle.js): no other module imports @oclif/*.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/oclif\\.ts$' },
      to: { path: '(^|/)@oclif/' },
    },
    {
      name: 'oclif-door-holds-only-oclif',
      comment: 'src/oclif.ts re-exports oclif and imports nothing of iris.',
      severity: 'error',
      from: { path: '^src/oclif\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'oclif-is-for-the-command-layer',
      comment: 'Only the commands, BaseCommand and the flag helpers of ui (ui/*-flags.ts) use oclif; renderers, clients and the cluster never do.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(commands/|base-command\\.ts$|oclif\\.ts$|ui/[^/]+-flags\\.ts$)' },
      to: { path: '^src/oclif\\.ts$' },
    },
    layer('model-is-the-ground-floor', '^src/model/', ['api', 'client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'base-command', 'oclif', 'kube', 'plot', 'host'],
      'src/model holds the vocabulary every layer shares; it imports nothing else of iris.'),
    layer('logs-below-runtime', '^src/logs/', ['api', 'client', 'cluster', 'commands', 'config', 'runtime', 'server', 'sim', 'ui', 'base-command', 'kube'],
      'The log file format sits under the runtimes that write it and the server that reads it.'),
    layer('runtime-executes-only', '^src/runtime/', ['api', 'client', 'cluster', 'commands', 'config', 'server', 'sim', 'ui', 'base-command', 'kube'],
      'Runtimes execute fully resolved launches: they see the model and log files, nothing that decides.'),
    layer('kube-is-an-adapter', '^src/kube/', ['api', 'client', 'cluster', 'commands', 'config', 'server', 'sim', 'ui', 'base-command'],
      'src/kube is an adapter like src/runtime: it executes launches and maps Nodes and Pods, nothing that decides; only the server composes it (by a dynamic import).'),
    {
      name: 'kube-loaded-only-when-configured',
      comment: 'The kubernetes backend (src/kube, server/kube-cluster.ts, @kubernetes/client-node) is reached only by a dynamic import, so a local cluster never loads it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(kube/|server/kube-cluster\\.ts$)' },
      to: { path: '(^src/(kube/|server/kube-cluster\\.ts$))|@kubernetes/client-node', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    layer('cluster-gets-resolved-settings', '^src/cluster/', ['api', 'client', 'commands', 'config', 'server', 'sim', 'ui', 'base-command', 'kube'],
      'The engine never imports the wire protocol, the server, clients or the config file.'),
    layer('cluster-reaches-logs-through-runtime', '^src/cluster/', ['logs'],
      'An attempt\'s log is its runtime\'s: the controller writes its notes there through runtime/notes.ts, never src/logs.'),
    layer('scheduler-is-pure-of-the-engine', '^src/cluster/scheduler/', ['cluster/state', 'cluster/controller', 'cluster/admission', 'runtime', 'logs', 'host'],
      'The scheduler decides from a snapshot; it never reads the store, the controller or runtimes.'),
    {
      name: 'scheduler-has-no-side-effects',
      comment: 'Placement, queue policies and the planner are pure: no fs, processes, sockets, timers or clocks from Node.',
      severity: 'error',
      from: { path: '^src/cluster/scheduler/' },
      to: { dependencyTypes: ['core'], path: SIDE_EFFECT_BUILTINS },
    },
    {
      name: 'pure-rules-have-no-side-effects',
      comment: 'Admission and the lifecycle are pure rule sets like the scheduler: no fs, processes, sockets, timers or clocks from Node.',
      severity: 'error',
      from: { path: '^src/cluster/(admission|lifecycle)/' },
      to: { dependencyTypes: ['core'], path: SIDE_EFFECT_BUILTINS },
    },
    layer('pure-rules-read-no-host', '^src/cluster/(admission|lifecycle)/', ['host', 'runtime', 'logs'],
      'Admission and the lifecycle decide from data they are given; they read neither the host nor log files.'),
    {
      name: 'host-is-a-leaf',
      comment: 'src/host reads facts of this Linux host (/proc, small kernel files) for the runtimes and the client: it imports nothing of iris.',
      severity: 'error',
      from: { path: '^src/host/' },
      to: { path: '^src/', pathNot: '^src/host/' },
    },
    layer('api-is-the-protocol', '^src/api/', ['client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'base-command', 'kube'],
      'src/api holds the protocol only: request/response types and request-shape schemas.'),
    layer('config-resolves-settings', '^src/config/', ['api', 'client', 'commands', 'server', 'sim', 'ui', 'base-command', 'cluster/state', 'cluster/controller', 'runtime', 'logs', 'kube'],
      'The config layer reads files into resolved settings; the server hands them to the engine.'),
    layer('server-below-clients', '^src/server/', ['client', 'commands', 'sim', 'ui', 'base-command'],
      'The server is the composition root of the cluster process; clients and commands sit above it.'),
    layer('sim-below-ui', '^src/sim/', ['api', 'client', 'commands', 'server', 'ui', 'base-command', 'cluster/state', 'cluster/controller', 'runtime', 'kube'],
      'The simulator drives the pure scheduler on a virtual clock; rendering its results is ui work.'),
    layer('client-speaks-the-protocol', '^src/client/', ['cluster', 'commands', 'config', 'runtime', 'logs', 'sim', 'ui', 'base-command', 'oclif', 'kube'],
      'Clients reach the cluster only through the protocol in src/api.'),
    {
      name: 'client-reaches-the-server-only-offline',
      comment: 'The one client that reads a stopped cluster (client/offline-client.ts) reaches the server through its seam, server/offline.ts; no other client module imports the server.',
      severity: 'error',
      from: { path: '^src/client/', pathNot: '^src/client/offline-client\\.ts$' },
      to: { path: '^src/server/' },
    },
    {
      name: 'client-reaches-the-server-only-offline',
      severity: 'error',
      from: { path: '^src/client/offline-client\\.ts$' },
      to: { path: '^src/server/', pathNot: '^src/server/offline\\.ts$' },
    },
    {
      name: 'offline-reader-loaded-only-when-no-cluster-answers',
      comment: 'The offline reader and the store behind it are reached only by a dynamic import (BaseCommand.readClient), so a command that reaches a running cluster never loads them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(client/offline-client|server/offline)\\.ts$' },
      to: { path: '^src/(client/offline-client|server/offline)\\.ts$', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    layer('ui-renders-data', '^src/ui/', ['cluster', 'commands', 'config', 'server', 'runtime', 'logs', 'base-command', 'kube'],
      'Renderers turn protocol and model data into text; they never reach into the engine.'),
    {
      name: 'ui-takes-only-types-from-sim',
      comment: 'ui renders what the simulator returns (its result types); helpers both need live below both (src/plot).',
      severity: 'error',
      from: { path: '^src/ui/' },
      to: { path: '^src/sim/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'plot-is-a-leaf',
      comment: 'src/plot holds the SVG primitives the simulator and ui share: pure, it imports nothing of iris.',
      severity: 'error',
      from: { path: '^src/plot/' },
      to: { path: '^src/', pathNot: '^src/plot/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|test|bench|scripts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    moduleSystems: ['es6'],
  },
};
