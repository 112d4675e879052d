export { LogWriter, appendNote, ensureDir, formatLine, tagOf, streamOf, MAX_LINE_BYTES } from './format.js';
export type { LogWriterOptions, StreamTag, StreamName } from './format.js';
export { readLines, followLines, parseLine, mergeByTime, mergeStreamsByTime, interleave } from './read.js';
export type { LogRecord, ReadOptions, FollowOptions } from './read.js';
