/**
 * Which environment variables are secrets as far as iris shows them: the one rule behind
 * `iris status`, `--dry-run` and the API's job views (docs/security.md, "The submitter's
 * environment"). A variable whose name contains TOKEN, KEY, SECRET or PASSWORD (any case:
 * `HF_TOKEN`, `WANDB_API_KEY`, `aws_secret_access_key`, `DB_PASSWORD`) is shown by name with its
 * value hidden. The task itself still gets the value; iris only never prints or serves it.
 */

const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** `env` as it may be shown: every value whose name looks secret is null ("hidden"). */
export function shownEnv(env: Readonly<Record<string, string>>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(env)) out[name] = isSecretEnvName(name) ? null : value;
  return out;
}
