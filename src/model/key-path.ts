/**
 * How iris writes a key path in a message (`workers[1].gpu.count`, `quotas["a b"]`): one rule for
 * config files, request bodies, workload files and pipeline stages. Pure and free of imports, so
 * the CLI's reading commands can use it without loading a schema library.
 */

export type KeyPath = ReadonlyArray<PropertyKey>;

/** `workers[1].gpu.count`, `quotas.alice.cpu`, `quotas["a b"]`. */
export function formatKeyPath(keys: KeyPath): string {
  let out = '';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z0-9_-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
