/**
 * Docker image references, checked before anything reaches an engine: `busybox`,
 * `iris-test/node:24`, `host:5000/team/img@sha256:...`.
 */
import { invalid } from './errors.js';

const IMAGE_PATTERN = /^[a-z0-9][a-z0-9._\-/]*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Check a Docker image reference; returns it unchanged or throws a clear IrisError. */
export function checkImageReference(image: string): string {
  const host = image.includes('/') ? image.slice(0, image.indexOf('/')) : '';
  // A registry host may carry a port (`host:5000/img`); check the rest of the reference.
  const rest = /[.:]/.test(host) ? image.slice(host.length + 1) : image;
  if (image.length > 255 || !IMAGE_PATTERN.test(rest)) {
    throw invalid(`invalid image reference ${JSON.stringify(image)}`, 'use NAME[:TAG] in lower case, e.g. python:3.12 or iris-test/busybox');
  }
  return image;
}

