/**
 * Colour in the CLI's plain-text output: the one rule for when there is colour, and the one map
 * from a state (job, task, attempt or worker) to its colour (docs/cli.md, "Colour").
 *
 * When (colourEnabled), first match wins:
 *   1. `--json`                                  -> never (JSON is for programs);
 *   2. `NO_COLOR` set to any non-empty value     -> off (it wins over FORCE_COLOR, as no-color.org asks);
 *   3. `FORCE_COLOR` set: `0` or `false`         -> off; any other value (also empty) -> on;
 *   4. otherwise                                 -> on only when stdout is a terminal.
 *
 * How: a Style paints a state with the basic 16-colour SGR codes (what chalk writes at level 1,
 * the codes every terminal knows), on or off by the rule above, never a guess from the
 * environment. No colour library is loaded: that would cost every CLI start ~6 ms. Renderers
 * take a Style and default to PLAIN, so their output is plain text unless a command asks.
 * Painted strings carry escape codes; tables measure width without them (table.ts).
 */
export interface ColourSettings {
  env: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal. */
  isTTY: boolean;
  /** Whether the command prints JSON. */
  json: boolean;
}

export function colourEnabled({ env, isTTY, json }: ColourSettings): boolean {
  if (json) return false;
  if ((env.NO_COLOR ?? '') !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return isTTY;
}

/** How a state looks: a colour name (chalk's and ink's `color`), or dimmed. */
export interface StateColour {
  color?: 'red' | 'green' | 'yellow' | 'cyan' | 'gray';
  dim?: boolean;
}

const COLOURS: Readonly<Record<string, StateColour>> = {
  // jobs, tasks and attempts
  PENDING: { color: 'yellow' },
  ASSIGNED: { color: 'cyan' },
  RUNNING: { color: 'green' },
  SUCCEEDED: { dim: true },
  FAILED: { color: 'red' },
  TIMEOUT: { color: 'red' },
  OUT_OF_MEMORY: { color: 'red' },
  WORKER_FAILED: { color: 'red' },
  UNSCHEDULABLE: { color: 'red' },
  COSCHED_FAILED: { color: 'red' },
  PREEMPTED: { color: 'yellow' },
  KILLED: { color: 'gray' },
  CANCELLED: { color: 'gray' },
  // workers
  READY: { color: 'green' },
  DISABLED: { color: 'gray' },
  DRAINING: { color: 'yellow' },
  DRAINED: { color: 'gray' },
};

/** The colour of a state; `{}` (none) for a state this map does not know. */
export function stateColour(state: string): StateColour {
  return COLOURS[state] ?? {};
}

export interface Style {
  /** `state` painted in its colour (stateColour); unchanged when colour is off. */
  state(state: string): string;
}

/** No colour: what renderers use unless a command passes its own Style. */
export const PLAIN: Style = { state: (state) => state };

/** SGR codes that open and close each look (foreground colour, or dim). */
const SGR: Readonly<Record<NonNullable<StateColour['color']> | 'dim', readonly [number, number]>> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  gray: [90, 39],
  dim: [2, 22],
};

function paint(look: keyof typeof SGR, text: string): string {
  const [open, close] = SGR[look];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

const PAINTED: Style = {
  state(state) {
    const { color, dim } = stateColour(state);
    if (color) return paint(color, state);
    if (dim) return paint('dim', state);
    return state;
  },
};

/** A Style for the given decision (see colourEnabled). */
export function makeStyle(enabled: boolean): Style {
  return enabled ? PAINTED : PLAIN;
}
