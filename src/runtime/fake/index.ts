export { FakeRuntime, type FakeRuntimeOptions } from './runtime.js';
export { FakeHost, FAKE_COMMANDS } from './process.js';
