// The seeded generator every benchmark input is drawn from, so inputs are the same from run to
// run: prng(seed)() returns numbers in [0, 1). It is the simulator's (mulberry32, src/sim/study.ts),
// so benchmarks and the dispatch study share one implementation. Build first.
export { prng } from '../dist/sim/study.js';
