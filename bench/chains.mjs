// Chains benchmark (docs/benchmarks.md, "Chains"): admitting a long `needs` chain through the real
// CLI and cluster (the built dist/), issue 36.
//
//   CHAIN:    `iris submit -f` of a pipeline file of 10,000 stages, each needing the one before.
//   BASELINE: `iris submit -f` of a file of 10,000 independent stages (no needs), the same fields.
// The baseline is the same request through the same client, server and admission with the
// dependencies left out, so the ratio is what the chain's dependencies cost. (10,000 one-job
// `iris submit`s would time 10,000 CLI starts, ~0.3 s each, not admission.)
// Each side runs on a FRESH cluster (started and stopped outside the timed part), so one side's
// stages never run while the other is timed; the time is the CLI's wall time, start-up, reading
// the file and the answer included; the controller's VmHWM right after the submission is kept.
// Interleaved CHAIN, BASELINE, then BASELINE, CHAIN, … (bench/measure.mjs), one warm-up round,
// ROUNDS >= 5; min / median / max of both and the median of the per-round ratios.
// Targets: the chain admitted within TARGET_S seconds (median) and within TARGET_RATIO of the baseline.
// Then once, scaling: chains of 1,000, 10,000 and 100,000 stages, each on a fresh cluster: time
// and the controller's VmHWM.
//
// Build first: npm run build
//   node bench/chains.mjs      (or `node scripts/bench.js --only chains`)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBenchCluster } from './cluster.mjs';
import { interleave, loadAverage } from './measure.mjs';
import { memoryOf } from './memory.mjs';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js');
const CONFIG = 'workers:\n  - {name: w0, cpu: 4, memory: 8GiB}\n';
const STAGES = 10_000;
const SCALES = [1_000, 10_000, 100_000];
const TARGET_S = 5;
const TARGET_RATIO = 1.5;

/** A pipeline file of `n` stages of `true`, each needing the one before when `chain`. */
function pipelineText(n, chain) {
  const lines = [`name: p${n}${chain ? 'chain' : 'free'}`, 'stages:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  s${i}:`, '    command: "true"', '    cpu: 0.1', '    memory: 16MiB');
    if (chain && i > 0) lines.push(`    needs: [s${i - 1}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** Seconds of `iris submit -f` of `n` stages on a fresh cluster, and the controller's peak RSS just after. */
function admitOnce(n, chain) {
  const cluster = startBenchCluster(`chains-${n}`, CONFIG);
  try {
    const file = path.join(cluster.cwd, 'pipeline.yaml');
    writeFileSync(file, pipelineText(n, chain));
    const start = performance.now();
    const r = spawnSync(process.execPath, [BIN, 'submit', '-f', file], {
      cwd: cluster.cwd,
      env: cluster.ctx.env,
      encoding: 'utf8',
      timeout: 600_000,
      maxBuffer: 256 * 1024 * 1024,
    });
    const seconds = (performance.now() - start) / 1000;
    if (r.status !== 0) throw new Error(`iris submit -f (${n} stages) exit ${r.status}: ${r.stderr.slice(0, 300)}`);
    return { seconds, hwmMB: memoryOf(cluster.pid).hwmMB };
  } finally {
    cluster.stop();
    // A controller still ending 100,000 stages may outlive `cluster stop`'s answer: never leave it behind.
    try {
      process.kill(cluster.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export async function runChainsBench({ rounds = 5, log = () => {} } = {}) {
  const hwm = { chain: [], free: [] };
  const side = (name, chain) => () => {
    const x = admitOnce(STAGES, chain);
    hwm[name].push(x.hwmMB);
    return x.seconds * 1000;
  };
  log(`chains: ${STAGES}-stage chain vs ${STAGES} independent stages, interleaved`);
  const r = await interleave({ chain: side('chain', true), free: side('free', false) }, { rounds, warmup: 1 });
  const seconds = (s) => ({ min: s.min / 1000, median: s.median / 1000, max: s.max / 1000, n: s.n });
  const scaling = [];
  for (const n of SCALES) {
    log(`chains: scaling, a chain of ${n} stages`);
    const start = loadAverage();
    scaling.push({ stages: n, ...admitOnce(n, true), load: { start, end: loadAverage() } });
  }
  const chain = seconds(r.chain);
  const ratio = r.ratio.free.median;
  return {
    stages: STAGES,
    rounds: r.rounds,
    chain,
    free: seconds(r.free),
    ratio,
    hwmMB: { chain: Math.max(...hwm.chain), free: Math.max(...hwm.free) },
    scaling,
    targetS: TARGET_S,
    targetRatio: TARGET_RATIO,
    ok: chain.median <= TARGET_S && ratio <= TARGET_RATIO,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await runChainsBench({ log: (m) => process.stderr.write(`${m}\n`) });
  const f = (s) => `min ${s.min.toFixed(2)} / median ${s.median.toFixed(2)} / max ${s.max.toFixed(2)} s`;
  console.log(`${r.stages}-stage chain, iris submit -f: ${f(r.chain)} (peak RSS ${r.hwmMB.chain.toFixed(0)} MB)`);
  console.log(`${r.stages} independent stages, iris submit -f: ${f(r.free)} (peak RSS ${r.hwmMB.free.toFixed(0)} MB)`);
  console.log(
    `median per-round ratio ${r.ratio.toFixed(2)} (targets: chain <= ${r.targetS} s, ratio <= ${r.targetRatio}): ` +
      `${r.ok ? 'ok' : 'MISSED'}`,
  );
  for (const s of r.scaling)
    console.log(
      `chain of ${s.stages} stages: ${s.seconds.toFixed(2)} s, controller VmHWM ${s.hwmMB.toFixed(0)} MB ` +
        `(load ${s.load.start.join(' ')} -> ${s.load.end.join(' ')})`,
    );
}
