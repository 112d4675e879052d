/** The labels GKE gives the hosts of one TPU v5e slice of topology 4x4 (node pool `pool-a`): four hosts of 4 chips. */
export const TPU_POOL_LABELS: Readonly<Record<string, string>> = {
  'cloud.google.com/gke-nodepool': 'pool-a',
  'cloud.google.com/gke-tpu-accelerator': 'tpu-v5-lite-podslice',
  'cloud.google.com/gke-tpu-topology': '4x4',
};
