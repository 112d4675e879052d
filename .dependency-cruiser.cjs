/**
 * The import rules of iris (docs/architecture.md, "Layers"; DESIGN.md, "Import rules"), checked by
 * dependency-cruiser: `npm run check:imports` runs them alone, and `npm test` runs them in
 * test/architecture/imports.test.ts. Every file under src/ falls under a rule. Layers, top to bottom:
 *
 *   commands (with base-command.ts, oclif.ts and the oclif hooks in src/hooks) -> ui / client -> server / sim -> config
 *     -> api / cluster -> runtime / kube -> logs -> model
 *
 * and two leaves any layer may use that import nothing of iris: src/host (facts of this Linux
 * host: /proc, small kernel files) and src/plot (SVG primitives).
 *
 * src/web is the dashboard's page, a browser bundle (scripts/web.js): it imports src/api's types and
 * the pure model modules, and nothing imports it.
 *
 * src/user-file (reading a YAML or JSON file a user wrote) sits beside logs: config, ui and sim
 * read through it, and it imports only src/model.
 *
 * A module imports only its own layer or layers below it; `src/cluster/**` receives resolved
 * settings and never sees the wire protocol, the server, clients or the config file; the
 * scheduler (placement, queue policies, planner), admission and the lifecycle are pure and import
 * no Node built-in with side effects. Type-only imports count: a layer that names a type of a
 * higher layer depends on it. The arrows that cross a layer on purpose are rules of their own,
 * each with its reason, and each is loaded only by a dynamic import: the offline reader (client ->
 * server/offline.ts), `cluster start` (commands -> server/daemon.ts), `iris config` (commands ->
 * config/effective.ts), the check before a cluster is started for a submission (commands ->
 * server/preflight.ts), the saved state's dashboard (commands -> server/dashboard/offline.ts) and
 * the Kubernetes backend.
 */
const SIDE_EFFECT_BUILTINS = `^(node:)?(${[
  'fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'http2', 'dgram', 'dns', 'tls', 'timers',
  'timers/promises', 'worker_threads', 'cluster', 'os', 'process', 'readline', 'vm',
].join('|')})$`;

/** A rule forbidding `from` to import any of `to` (folders or files under src/, without `.ts`). */
function layer(name, from, to, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: `^src/(${to.join('|')})(/|\\.ts$|\\.tsx$)` },
  };
}

/** A rule forbidding the modules of `folder` to import anything of iris outside it. */
function leaf(name, folder, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `^src/${folder}/` },
    to: { path: '^src/', pathNot: `^src/${folder}/` },
  };
}

const COMMANDS = '^src/(commands/|hooks/|base-command\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules form a tree of layers: no import cycles.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },

    // The command layer: the commands, their base class and the door to oclif.
    layer(
      'commands-speak-through-ui-and-client',
      COMMANDS,
      ['cluster', 'runtime', 'logs', 'kube', 'host'],
      'A command parses flags, makes one client call and renders: it reaches the cluster through src/client.',
    ),
    {
      name: 'commands-read-the-config-only-in-iris-config',
      comment:
        'The one config module a command reaches is config/effective.ts (`iris config` reads the file as a start ' +
        'would), from commands/config.ts only, by a dynamic import: no other command loads the schema (zod).',
      severity: 'error',
      from: { path: COMMANDS },
      to: { path: '^src/config/', pathNot: '^src/config/effective\\.ts$' },
    },
    {
      name: 'commands-read-the-config-only-in-iris-config',
      severity: 'error',
      from: { path: COMMANDS, pathNot: '^src/commands/config\\.ts$' },
      to: { path: '^src/config/effective\\.ts$' },
    },
    {
      name: 'commands-read-the-config-only-in-iris-config',
      severity: 'error',
      from: { path: '^src/commands/config\\.ts$' },
      to: { path: '^src/config/effective\\.ts$', dynamic: false, dependencyTypesNot: ['type-only'] },
    },

    layer(
      'user-file-reads-only',
      '^src/user-file/',
      ['api', 'client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'base-command',
        'kube', 'host'],
      'src/user-file reads and parses a YAML or JSON file a user wrote (config, pipeline, workload file); '
        + 'it imports only src/model.',
    ),
    {
      name: 'user-file-read-above-the-engine',
      comment: 'Files a user wrote are read by config, ui, sim (and the server or commands above them); '
        + 'the engine, runtimes, logs, the protocol and the model never read one.',
      severity: 'error',
      from: { path: '^src/(model|logs|runtime|kube|api|cluster)/' },
      to: { path: '^src/user-file/' },
    },
    {
      name: 'commands-start-the-cluster-only',
      comment:
        'The server modules a command reaches are server/daemon.ts (`cluster start --foreground`), ' +
        'server/preflight.ts (what a cluster about to be started would answer a submission: a refused one ' +
        'starts none) and server/dashboard/offline.ts (`iris dashboard` with no cluster running serves the ' +
        'saved state read-only), each by a dynamic import.',
      severity: 'error',
      from: { path: COMMANDS },
      to: { path: '^src/server/', pathNot: '^src/server/(daemon|preflight|dashboard/offline)\\.ts$' },
    },
    {
      name: 'commands-start-the-cluster-only',
      severity: 'error',
      from: { path: COMMANDS },
      to: { path: '^src/server/(daemon|preflight|dashboard/offline)\\.ts$', dynamic: false },
    },
    {
      name: 'base-command-is-for-commands',
      comment: 'BaseCommand (errors, --json, clients, interrupts) is the base class of the commands, of nothing else.',
      severity: 'error',
      from: { path: '^src/', pathNot: COMMANDS },
      to: { path: '^src/base-command\\.ts$' },
    },
    {
      name: 'oclif-through-its-door',
      comment:
        'src/oclif.ts is the one door to oclif (one bundled file after scripts/bundle.js): ' +
        'nothing else imports @oclif/*.',
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
      comment: 'Only the commands, BaseCommand and the flag helpers of ui (ui/*-flags.ts) use oclif.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(commands/|base-command\\.ts$|oclif\\.ts$|ui/[^/]+-flags\\.ts$)' },
      to: { path: '^src/oclif\\.ts$' },
    },

    // ui and the clients.
    layer(
      'ui-renders-data',
      '^src/ui/',
      ['cluster', 'commands', 'config', 'server', 'runtime', 'logs', 'kube', 'host'],
      'Renderers turn protocol and model data into text; they never reach into the engine.',
    ),
    {
      name: 'ui-takes-only-types-from-sim',
      comment: 'ui renders what the simulator returns (its result types); what both use lives below both (src/plot).',
      severity: 'error',
      from: { path: '^src/ui/' },
      to: { path: '^src/sim/', dependencyTypesNot: ['type-only'] },
    },
    layer(
      'client-speaks-the-protocol',
      '^src/client/',
      ['cluster', 'commands', 'config', 'runtime', 'logs', 'sim', 'ui', 'kube'],
      'Clients reach the cluster only through the protocol in src/api.',
    ),
    {
      name: 'client-reaches-the-server-only-offline',
      comment:
        'Only the reader of a stopped cluster (client/offline-client.ts) reaches the server, ' +
        'and only through server/offline.ts.',
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
      comment:
        'The offline reader and the store behind it are loaded only by a dynamic import (BaseCommand.readClient): ' +
        'a command that reaches a running cluster never loads them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(client/offline-client|server/offline)\\.ts$' },
      to: {
        path: '^src/(client/offline-client|server/offline)\\.ts$',
        dynamic: false,
        dependencyTypesNot: ['type-only'],
      },
    },

    // The server, the simulator and the config layer.
    layer(
      'server-below-clients',
      '^src/server/',
      ['client', 'commands', 'sim', 'ui'],
      'The server is the composition root of the cluster process; clients and commands sit above it.',
    ),
    layer(
      'sim-below-ui',
      '^src/sim/',
      ['api', 'client', 'commands', 'server', 'ui', 'cluster/state', 'cluster/controller', 'runtime', 'kube'],
      'The simulator drives the pure scheduler on a virtual clock; rendering its results is ui work.',
    ),
    layer(
      'config-resolves-settings',
      '^src/config/',
      [
        'api', 'client', 'commands', 'server', 'sim', 'ui', 'cluster/state', 'cluster/controller', 'runtime', 'logs',
        'kube',
      ],
      'The config layer reads files into resolved settings; the server hands them to the engine.',
    ),

    // The protocol and the engine.
    layer(
      'api-is-the-protocol',
      '^src/api/',
      ['client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'kube'],
      'src/api holds the protocol only: request/response types and request-shape schemas.',
    ),
    layer(
      'cluster-gets-resolved-settings',
      '^src/cluster/',
      ['api', 'client', 'commands', 'config', 'server', 'sim', 'ui', 'kube'],
      'The engine never imports the wire protocol, the server, clients or the config file.',
    ),
    layer(
      'cluster-reaches-logs-through-runtime',
      '^src/cluster/',
      ['logs'],
      "An attempt's log is its runtime's: the controller writes its notes there through runtime/notes.ts.",
    ),
    layer(
      'scheduler-is-pure-of-the-engine',
      '^src/cluster/scheduler/',
      ['cluster/state', 'cluster/controller', 'cluster/admission', 'runtime', 'logs', 'host'],
      'The scheduler decides from a snapshot; it never reads the store, the controller or runtimes.',
    ),
    {
      name: 'scheduler-has-no-side-effects',
      comment: 'Placement, queue policies and the planner are pure: no fs, processes, sockets, timers or clocks.',
      severity: 'error',
      from: { path: '^src/cluster/scheduler/' },
      to: { dependencyTypes: ['core'], path: SIDE_EFFECT_BUILTINS },
    },
    {
      name: 'pure-rules-have-no-side-effects',
      comment: 'Admission and the lifecycle are pure rule sets like the scheduler: no I/O, timers or clocks from Node.',
      severity: 'error',
      from: { path: '^src/cluster/(admission|lifecycle)/' },
      to: { dependencyTypes: ['core'], path: SIDE_EFFECT_BUILTINS },
    },
    layer(
      'pure-rules-read-no-host',
      '^src/cluster/(admission|lifecycle)/',
      ['host', 'runtime', 'logs'],
      'Admission and the lifecycle decide from data they are given; they read neither the host nor log files.',
    ),
    {
      name: 'lifecycle-is-pure',
      comment:
        'src/cluster/lifecycle holds the rules of what happens next (transitions, budgets, cascades, dependencies, ' +
        "cache hints): it imports only the model and the scheduler's pure types, and returns changes the store and " +
        'the simulator apply.',
      severity: 'error',
      from: { path: '^src/cluster/lifecycle/' },
      to: { path: '^src/', pathNot: '^src/(model/|cluster/lifecycle/|cluster/scheduler/types\\.ts$)' },
    },
    {
      name: 'lifecycle-has-no-side-effects',
      comment: 'The lifecycle rules are pure: no Node built-in at all (no fs, clock, timers, processes).',
      severity: 'error',
      from: { path: '^src/cluster/lifecycle/' },
      to: { dependencyTypes: ['core'] },
    },

    // The adapters that execute, and what they write.
    layer(
      'runtime-executes-only',
      '^src/runtime/',
      ['api', 'client', 'cluster', 'commands', 'config', 'server', 'sim', 'ui', 'kube'],
      'Runtimes execute fully resolved launches: they see the model and log files, nothing that decides.',
    ),
    layer(
      'kube-is-an-adapter',
      '^src/kube/',
      ['api', 'client', 'cluster', 'commands', 'config', 'server', 'sim', 'ui'],
      'src/kube executes launches and maps Nodes and Pods like src/runtime; only the server composes it.',
    ),
    {
      name: 'kube-loaded-only-when-configured',
      comment:
        'The kubernetes backend (src/kube, server/kube-cluster.ts, @kubernetes/client-node) is reached only by a ' +
        'dynamic import, so a local cluster never loads it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(kube/|server/kube-cluster\\.ts$)' },
      to: {
        path: '(^src/(kube/|server/kube-cluster\\.ts$))|@kubernetes/client-node',
        dynamic: false,
        dependencyTypesNot: ['type-only'],
      },
    },
    layer(
      'logs-below-runtime',
      '^src/logs/',
      ['api', 'client', 'cluster', 'commands', 'config', 'runtime', 'server', 'sim', 'ui', 'kube'],
      'The log file format sits under the runtimes that write it and the server that reads it.',
    ),
    layer(
      'model-is-the-ground-floor',
      '^src/model/',
      [
        'api', 'client', 'cluster', 'commands', 'config', 'logs', 'runtime', 'server', 'sim', 'ui', 'kube', 'host',
        'plot',
      ],
      'src/model holds the vocabulary every layer shares; it imports nothing else of iris.',
    ),

    // The dashboard's page (src/web): browser code bundled by scripts/web.js, reached by nothing of iris.
    {
      name: 'web-is-the-page',
      comment:
        'The page speaks to the cluster only through the HTTP API: it may import src/api (types only) and src/model, ' +
        'never the server, the engine, clients or commands.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/(web|api|model)/' },
    },
    {
      name: 'web-takes-only-types-from-api',
      comment: 'The page names the wire types of src/api; it runs none of its code (schemas are the server\'s).',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/api/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-runs-only-browser-safe-model-code',
      comment:
        'The page runs only model modules that are pure and import no Node built-in (listed here); any other ' +
        'model module it may name by type only.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: {
        path: '^src/model/',
        pathNot: '^src/model/(band|dependency-outcome|duration|errors|reason-instants|since|states)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'web-has-no-node',
      comment: 'The page runs in a browser: no Node built-in.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-is-served-not-imported',
      comment: 'The dashboard server serves the built page (dist/web) as files; no module of iris imports src/web.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { path: '^src/web/' },
    },

    // The leaves.
    leaf(
      'host-is-a-leaf',
      'host',
      'src/host reads facts of this Linux host (/proc, small kernel files) for the runtimes and the client.',
    ),
    leaf(
      'plot-is-a-leaf',
      'plot',
      'src/plot holds the SVG primitives the simulator and ui share; it is pure.',
    ),
  ],
  required: [
    {
      name: 'state-and-sim-apply-the-lifecycle',
      comment:
        "The store's applier and the simulator's state apply the lifecycle's changes (lifecycle/reconcile.ts): " +
        'neither keeps a rule of its own.',
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
