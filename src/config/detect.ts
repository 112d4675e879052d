/**
 * What this machine offers, behind one small injectable interface so config validation stays
 * testable on any host: CPUs, memory, NVIDIA GPUs with their memory (nvidia-smi) and TPU chip
 * device files. Detection never throws and never invents anything: a missing or failing
 * nvidia-smi means no GPUs, a memory it does not report means unknown memory, an unreadable /dev
 * means no chips.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';

export interface DetectedGpu {
  index: number;
  /** Full name as nvidia-smi prints it, e.g. "NVIDIA H100 80GB HBM3". */
  name: string;
  /** Memory of this GPU (`memory.total`); absent when nvidia-smi did not report it. */
  memoryBytes?: number;
}

export interface MachineProbe {
  cpus(): number;
  memoryBytes(): number;
  /** NVIDIA GPUs in index order; empty without nvidia-smi or when it fails. */
  gpus(): DetectedGpu[];
  /** TPU chip device files: `/dev/accel*`, else `/dev/vfio/<n>`, in index order; empty when none. */
  tpuDevicePaths(): string[];
}

const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,memory.total', '--format=csv,noheader,nounits'];
const MiB = 1024 ** 2;
const NVIDIA_SMI_TIMEOUT_MS = 10_000;

/**
 * Lines of `nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits`:
 * "0, NVIDIA H100 80GB HBM3, 81559" (memory in MiB; "81559 MiB" with units is read too). A line
 * without a memory column, or with one nvidia-smi could not fill ("[N/A]"), gives a GPU of
 * unknown memory.
 */
export function parseNvidiaSmi(output: string): DetectedGpu[] {
  const gpus: DetectedGpu[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s*,\s*(.+?)\s*$/.exec(line);
    if (!match) continue;
    const gpu: DetectedGpu = { index: Number(match[1]), name: match[2]! };
    const memory = /^(.+?)\s*,\s*([^,]*)$/.exec(gpu.name);
    if (memory) {
      gpu.name = memory[1]!;
      const mib = /^(\d+)(?:\s*MiB)?$/i.exec(memory[2]!.trim());
      if (mib && Number(mib[1]) > 0) gpu.memoryBytes = Number(mib[1]) * MiB;
    }
    gpus.push(gpu);
  }
  return gpus.sort((a, b) => a.index - b.index);
}

const VENDOR_WORDS = new Set(['NVIDIA', 'TESLA', 'GEFORCE', 'QUADRO']);
const SERIES_WORDS = new Set(['RTX', 'GTX', 'TITAN']);

/**
 * A short variant from a GPU's marketing name, as users write it in `--gpu`:
 * "NVIDIA H100 80GB HBM3" -> H100, "NVIDIA A100-SXM4-40GB" -> A100, "Tesla T4" -> T4,
 * "NVIDIA GeForce RTX 4090" -> RTX4090. Null when nothing usable is left.
 */
export function normalizeGpuName(name: string): string | null {
  const words = name
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '' && !VENDOR_WORDS.has(word.toUpperCase()));
  if (words.length === 0) return null;
  let model = words[0]!;
  if (SERIES_WORDS.has(model.toUpperCase()) && words[1] !== undefined) model += words[1];
  const variant = model
    .split('-')[0]!
    .replace(/[^A-Za-z0-9_.]/g, '')
    .toUpperCase();
  return variant === '' ? null : variant;
}

function numbered(dir: string, pattern: RegExp, prefix: string): string[] {
  try {
    return readdirSync(dir)
      .map((entry) => ({ entry, match: pattern.exec(entry) }))
      .filter((x): x is { entry: string; match: RegExpExecArray } => x.match !== null)
      .sort((a, b) => Number(a.match[1]) - Number(b.match[1]))
      .map((x) => `${prefix}${x.entry}`);
  } catch {
    return [];
  }
}

/** The real machine. */
export const hostProbe: MachineProbe = {
  cpus: () => Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length),
  memoryBytes: () => os.totalmem(),
  gpus: () => {
    try {
      const output = execFileSync('nvidia-smi', NVIDIA_SMI_ARGS, {
        encoding: 'utf8',
        timeout: NVIDIA_SMI_TIMEOUT_MS,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return parseNvidiaSmi(output);
    } catch {
      return [];
    }
  },
  tpuDevicePaths: () => {
    const accel = numbered('/dev', /^accel(\d+)$/, '/dev/');
    return accel.length > 0 ? accel : numbered('/dev/vfio', /^(\d+)$/, '/dev/vfio/');
  },
};
