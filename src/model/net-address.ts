/**
 * The one parser of the controller's TCP addresses (docs/configuration.md, "task-door"):
 * - a listen address `HOST:PORT` (`0.0.0.0:7070`, `127.0.0.1:7070`, `[::]:7070`, `iris-host:7070`);
 * - a controller URL `http://HOST:PORT` (what tasks get in IRIS_CONTROLLER_ADDRESS).
 *
 * Guarantees: a port is an integer 1..65535 (a task must be told a fixed address, so no port 0);
 * an IPv6 host is written in brackets and kept without them; a URL has no user, path, query or
 * fragment, and only the `http:` scheme (the task door speaks plain HTTP; `https:` is refused with
 * a hint). Every failure is an IrisError('invalid_argument') naming the value and an example.
 * A host is a host name (isHostName, src/model/names.ts: RFC 1123) or an IP address (isHost, also
 * the config's `hostname`); notAHost is the words of its refusal. Pure: no I/O.
 */
import { describeValue, invalid } from './errors.js';
import { isHostName } from './names.js';

export interface TcpAddress {
  /** Host name or IP, IPv6 without brackets. */
  host: string;
  port: number;
}

/** A wildcard listen host: every interface; it cannot be handed to a task as an address. */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** `HOST:PORT` as written back (IPv6 in brackets). */
export function formatHostPort(address: TcpAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

/** The controller URL of an address: `http://HOST:PORT`. */
export function formatControllerUrl(address: TcpAddress): string {
  return `http://${formatHostPort(address)}`;
}

const IPV6 = /^[0-9A-Fa-f:.]+$/;

/** An IPv6 address as written without brackets (hex groups with `:`, maybe an IPv4 tail). */
function isIpv6(text: string): boolean {
  return text.includes(':') && IPV6.test(text);
}

/** A host iris can hand on: a host name (an IPv4 address is one) or an IPv6 address. */
export function isHost(text: string): boolean {
  return isHostName(text) || isIpv6(text);
}

/** What a refusal says of a value that is not a host (isHost). */
export function notAHost(value: unknown): string {
  return `${describeValue(value)} is not a host name or IP address`;
}

function parsePort(text: string, what: string, value: unknown, example: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw invalid(
      `invalid ${what} ${describeValue(value)}: the port must be a number from 1 to 65535`,
      `for example ${example}`,
    );
  }
  return Number(text);
}

/** `HOST:PORT` (IPv6 as `[ADDR]:PORT`) -> { host, port }. */
export function parseHostPort(value: unknown, what = 'address', example = '0.0.0.0:7070'): TcpAddress {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(`invalid ${what} ${describeValue(value)}: expected HOST:PORT`, `for example ${example}`);
  }
  const text = value.trim();
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(text);
  let host: string;
  let port: string;
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2]!;
    if (!isIpv6(host)) {
      const message = `invalid ${what} ${describeValue(value)}: ${describeValue(host)} is not an IPv6 address`;
      throw invalid(message, 'for example [::]:7070');
    }
  } else {
    const colon = text.lastIndexOf(':');
    if (colon < 0)
      throw invalid(
        `invalid ${what} ${describeValue(value)}: expected HOST:PORT (the port is missing)`,
        `for example ${example}`,
      );
    host = text.slice(0, colon);
    port = text.slice(colon + 1);
    if (host.includes(':'))
      throw invalid(`invalid ${what} ${describeValue(value)}: write an IPv6 host in brackets`, 'for example [::]:7070');
    if (!isHostName(host)) {
      throw invalid(`invalid ${what} ${describeValue(value)}: ${notAHost(host)}`, `for example ${example}`);
    }
  }
  return { host, port: parsePort(port, what, value, example) };
}

/** `http://HOST:PORT` (a trailing `/` allowed) -> { host, port }. */
export function parseControllerUrl(value: unknown, what = 'controller address'): TcpAddress {
  const example = 'http://iris-task-door:7070';
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(`invalid ${what} ${describeValue(value)}: expected http://HOST:PORT`, `for example ${example}`);
  }
  const text = value.trim();
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'https') {
    throw invalid(
      `invalid ${what} ${describeValue(value)}: the task door speaks plain HTTP, not https`,
      `use http://, for example ${example} (keep it inside the cluster's network)`,
    );
  }
  if (scheme !== 'http')
    throw invalid(`invalid ${what} ${describeValue(value)}: expected http://HOST:PORT`, `for example ${example}`);
  const rest = text.slice('http://'.length).replace(/\/$/, '');
  if (/[/?#@]/.test(rest)) {
    throw invalid(
      `invalid ${what} ${describeValue(value)}: only http://HOST:PORT, without a user, path or query`,
      `for example ${example}`,
    );
  }
  return parseHostPort(rest, what, example.slice('http://'.length));
}

/** Is this IRIS_CONTROLLER_ADDRESS value a URL (rather than a unix socket path)? */
export function isControllerUrl(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value.trim()) && !/^unix:/i.test(value.trim());
}
