/**
 * The primitives of iris's hand-written SVG plots, shared by the simulator's plot (sim/plot.ts)
 * and the density plot of `iris metrics density` (ui/density-plot.ts): text made safe for XML,
 * and round axis ticks. Pure functions of strings and numbers; imports nothing of iris.
 */

const XML_ENTITIES: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
};

/** `text` with the five XML special characters escaped, safe in element text and quoted attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => XML_ENTITIES[c]!);
}

/** Round steps 1, 2, 5 x 10^k, about `count` of them, the last one at or above max. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  const n = Math.ceil(max / step - 1e-9);
  for (let k = 0; k <= n; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}
