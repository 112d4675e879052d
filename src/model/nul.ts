/**
 * The one rule for the NUL character (U+0000) in what a user or a task gives iris: text that can
 * become a command's argument, an environment variable, a path or a name may not contain it. The
 * kernel's strings end at a NUL, so such a value could only fail later (an attempt that is
 * accepted and then cannot launch) or mean less than what was written. Every string of a submit
 * and pipeline request is checked with it at submit (src/api/request-schema.ts `text`), so the
 * refusal names the field (`command[1]`, `env.LR`, `stages.train.cwd`).
 */

/** How a refusal reads after the field's name: `command[1] may not contain a NUL character (\0)`. */
export const NUL_REFUSAL = 'may not contain a NUL character (\\0)';

export const hasNul = (text: string): boolean => text.includes('\u0000');
