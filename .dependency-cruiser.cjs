/**
 * The import rules of iris (docs/architecture.md, "Layers"), checked by dependency-cruiser in
 * `npm test` (scripts/check-imports.js). Layers, top to bottom:
 *
 *   commands -> ui / client -> server / sim -> config -> api / cluster -> runtime / kube -> logs -> model
 *
 * A module imports only its own layer or layers below it; `src/cluster/**` receives resolved
 * settings and never sees the wire protocol, the server, clients or the config file; the
 * scheduler (placement, queue policies, planner) is pure and imports no Node built-in with side
 * effects. Type-only imports count: a layer that names a type of a higher layer depends on it.
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
    layer('model-is-the-ground-floor', '^src/model/', ['api', 'client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'base-command', 'kube'],
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
    layer('scheduler-is-pure-of-the-engine', '^src/cluster/scheduler/', ['cluster/state', 'cluster/controller', 'cluster/admission', 'runtime', 'logs'],
      'The scheduler decides from a snapshot; it never reads the store, the controller or runtimes.'),
    {
      name: 'scheduler-has-no-side-effects',
      comment: 'Placement, queue policies and the planner are pure: no fs, processes, sockets, timers or clocks from Node.',
      severity: 'error',
      from: { path: '^src/cluster/scheduler/' },
      to: { dependencyTypes: ['core'], path: SIDE_EFFECT_BUILTINS },
    },
    {
      name: 'lifecycle-is-pure',
      comment: 'src/cluster/lifecycle holds the rules of what happens next (transitions, budgets, cascades, dependencies, cache hints): it imports only the model and the scheduler\'s pure types, and returns changes the store and the simulator apply.',
      severity: 'error',
      from: { path: '^src/cluster/lifecycle/' },
      to: { path: '^src/', pathNot: '^src/(model/|cluster/lifecycle/|cluster/scheduler/types\\.ts$)' },
    },
    {
      name: 'lifecycle-has-no-side-effects',
      comment: 'The lifecycle rules are pure: no Node built-in at all (no fs, clock, timers, processes); time is an input.',
      severity: 'error',
      from: { path: '^src/cluster/lifecycle/' },
      to: { dependencyTypes: ['core'] },
    },
    layer('admission-uses-pure-rules', '^src/cluster/admission/', ['cluster/state', 'cluster/controller'],
      'Admission checks a submission with pure rules (its own, the lifecycle\'s, the scheduler\'s); it never reaches into the store or the controller.'),
    layer('api-is-the-protocol', '^src/api/', ['client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'base-command', 'kube'],
      'src/api holds the protocol only: request/response types and request-shape schemas.'),
    layer('config-resolves-settings', '^src/config/', ['api', 'client', 'commands', 'server', 'sim', 'ui', 'base-command', 'cluster/state', 'cluster/controller', 'runtime', 'logs', 'kube'],
      'The config layer reads files into resolved settings; the server hands them to the engine.'),
    layer('server-below-clients', '^src/server/', ['client', 'commands', 'sim', 'ui', 'base-command'],
      'The server is the composition root of the cluster process; clients and commands sit above it.'),
    layer('sim-below-ui', '^src/sim/', ['api', 'client', 'commands', 'server', 'ui', 'base-command', 'cluster/state', 'cluster/controller', 'runtime', 'kube'],
      'The simulator drives the pure scheduler on a virtual clock; rendering its results is ui work.'),
    layer('client-speaks-the-protocol', '^src/client/', ['cluster', 'commands', 'config', 'server', 'sim', 'ui', 'base-command', 'kube'],
      'Clients reach the cluster only through the protocol in src/api.'),
    layer('ui-renders-data', '^src/ui/', ['cluster', 'commands', 'config', 'server', 'runtime', 'logs', 'base-command', 'kube'],
      'Renderers turn protocol and model data into text; they never reach into the engine.'),
  ],
  required: [
    {
      name: 'state-and-sim-apply-the-lifecycle',
      comment: 'The store\'s applier and the simulator\'s state apply the lifecycle\'s changes (lifecycle/reconcile.ts): neither keeps a rule of its own.',
      severity: 'error',
      module: { path: '^src/(cluster/state/lifecycle|sim/state)\\.ts$' },
      to: { path: '^src/cluster/lifecycle/reconcile\\.ts$' },
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
