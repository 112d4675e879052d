// Types of scripts/chromium.mjs for the TypeScript tests.
export declare const CHROMIUM_FLAGS: readonly string[];
export declare function chromiumPath(env?: NodeJS.ProcessEnv): string | null;
