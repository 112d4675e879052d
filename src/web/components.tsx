/**
 * Small pieces the views share: the state badge, an error box, a horizontally scrolling table, the
 * filters' text box and state choice.
 */
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { JOB_STATES } from '../model/states.js';
import type { ApiError } from './api.js';
import { stateClass } from './format.js';

/** Whether the page shows a stopped cluster's saved state (no actions). */
export const ReadOnly = createContext(false);

/** The state as text, coloured by its family; `data-state` holds the state itself. */
export function State({ state }: { state: string | null | undefined }) {
  if (!state) return <span class="muted">-</span>;
  return (
    <span class={`state st-${stateClass(state)}`} data-state={state}>
      {state}
    </span>
  );
}

export function ErrorBox({ error, what }: { error: ApiError | null; what?: string }) {
  if (!error) return null;
  return (
    <div class="error" role="alert" data-error={error.code}>
      <strong>
        {what ? `${what}: ` : ''}
        {error.message}
      </strong>
      {error.hint ? <div class="hint">{error.hint}</div> : null}
    </div>
  );
}

export function Table({ children, label }: { children: ComponentChildren; label?: string }) {
  return (
    <div class="scroll">
      <table aria-label={label}>{children}</table>
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export const Loading = () => <p class="muted">loading…</p>;

/** A bar showing `used` of `total` with the numbers written beside it. */
export function Meter({ used, total, label }: { used: number; total: number; label: string }) {
  const share = total > 0 ? Math.min(1, used / total) : 0;
  return (
    <span class="meter" title={label}>
      <span class="bar">
        <span class="fill" style={{ width: `${Math.round(share * 100)}%` }} />
      </span>
      <span class="num">{label}</span>
    </span>
  );
}

/** Sets one filter of the view's URL (`key` is the query parameter). */
export type SetFilter = (key: string, value: string) => void;

/**
 * A filter's text box (`data-filter=KEY`): `live` sets it at every keystroke as typed, otherwise
 * when the box changes, trimmed.
 */
export function TextFilter(props: {
  name: string;
  label?: string;
  value: string | undefined;
  placeholder: string;
  size: number;
  set: SetFilter;
  live?: boolean;
}) {
  const { name, value, placeholder, size, set, live = false } = props;
  const read = (e: Event) => (e.target as HTMLInputElement).value;
  const handler = live
    ? { onInput: (e: Event) => set(name, read(e)) }
    : { onChange: (e: Event) => set(name, read(e).trim()) };
  return (
    <label>
      {props.label ?? name}{' '}
      <input value={value ?? ''} placeholder={placeholder} size={size} {...handler} data-filter={name} />
    </label>
  );
}

/** The state filter (`data-filter=state`): any, the `extra` options, then every job state. */
export function StateFilter({
  value,
  set,
  extra,
}: {
  value: string | undefined;
  set: SetFilter;
  extra?: ComponentChildren;
}) {
  return (
    <label>
      state{' '}
      <select
        value={value ?? ''}
        onChange={(e) => set('state', (e.target as HTMLSelectElement).value)}
        data-filter="state"
      >
        <option value="">any</option>
        {extra}
        {JOB_STATES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
    </label>
  );
}
