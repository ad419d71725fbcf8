import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Where a header is set: an HTTP response, or anything with its `setHeader`. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

type HeaderValue = string | number | readonly string[];
/** A list as writeHead takes it: name, value, name, value… (a value undefined is Node's to refuse). */
type Line = HeaderValue | undefined;
type OwnHeaders = OutgoingHttpHeaders | readonly Line[] | readonly (readonly HeaderValue[])[];
type WriteHead = (this: ServerResponse, statusCode: number, reasonOrHeaders?: unknown, headers?: unknown) => unknown;

/** The headers held for one response, until its head is written. */
interface Held {
  /** Name, value, name, value… in the order they were first set. */
  readonly lines: Line[];
  /** The response's writeHead before holding began (the prototype's, or another wrapper's). */
  readonly writeHead: WriteHead;
  sent: boolean;
}

const HELD = Symbol('kobana.heldHeaders');
type Holding = ServerResponse & { [HELD]?: Held };

/**
 * From now until its head is written, the headers set on `res` with setHeldHeader are kept in a
 * list and given to Node with the answer's own in one `writeHead(status, [name, value, …])`.
 * Each `res.setHeader` costs a validation, a lower-cased copy of the name and an entry in a
 * dictionary the head then walks; when no header was set that way, Node writes a list given to
 * writeHead as it is (about 0.5 µs a header: bench/RESULTS.md, issue 32, fourteenth pass).
 * Whoever writes the head — the endpoint's answer, an exception filter, Express's `res.send` —
 * goes through `res.writeHead` (Node's end() calls it too), which is where the list is added:
 * nothing held is lost whichever code answers. Headers set with `res.setHeader` keep working
 * and win over a held one of the same name set before them, as a later setHeader would.
 *
 * A response that has headers set already (Express's `X-Powered-By`, an app's middleware) is not
 * held: Node walks its dictionary for the head whatever is added, so setHeldHeader is setHeader.
 * Whether `res` holds its headers now is the answer.
 */
export function holdHeaders(res: ServerResponse): boolean {
  const holding = res as Holding;
  if (holding[HELD]) return !holding[HELD].sent;
  if (res.headersSent || res.getHeaderNames().length > 0) return false;
  holding[HELD] = { lines: [], writeHead: res.writeHead as WriteHead, sent: false };
  res.writeHead = writeHeadWithHeld as ServerResponse['writeHead'];
  return true;
}

/** Whether holdHeaders(res) holds this response's headers now (its head not written yet). */
export function holdsHeaders(res: ServerResponse): boolean {
  const held = (res as Holding)[HELD];
  return held !== undefined && !held.sent;
}

/** `res.setHeader(name, value)`, held for the head when holdHeaders(res) holds this response. */
export function setHeldHeader(res: HeaderSink, name: string, value: string): void {
  const held = (res as Holding)[HELD];
  // Set with setHeader since holding began (or after the head): setHeader's own answer, in its place.
  if (held === undefined || held.sent || (res as ServerResponse).hasHeader(name)) {
    res.setHeader(name, value);
    return;
  }
  const { lines } = held;
  const at = lineOf(lines, name);
  if (at < 0) lines.push(name, value);
  else lines[at + 1] = value;
}

/** `res.getHeader(name)`, held headers included, before and after the head is written. */
export function getHeldHeader(res: ServerResponse, name: string): HeaderValue | undefined {
  const set = res.getHeader(name);
  if (set !== undefined) return set;
  const lines = (res as Holding)[HELD]?.lines;
  const at = lines ? lineOf(lines, name) : -1;
  return at < 0 ? undefined : lines![at + 1];
}

/** writeHead as Node's, the held headers first, unless the call's own or a later setHeader names them. */
function writeHeadWithHeld(this: Holding, statusCode: number, reasonOrHeaders?: unknown, headers?: unknown): unknown {
  const held = this[HELD]!;
  const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
  const own = (reason === undefined ? reasonOrHeaders : headers) as OwnHeaders | undefined;
  held.sent = true;
  // Back to the writeHead it replaced: a second call is Node's to refuse; getHeldHeader still reads the list.
  this.writeHead = held.writeHead as ServerResponse['writeHead'];
  let given: unknown = own;
  if (this.getHeaderNames().length === 0) given = withOwn(held.lines, own);
  else {
    // Headers were set with setHeader meanwhile (a refusal's challenge, an app's filter): Node walks
    // its dictionary for this head anyway. The held ones join it as setHeader would have set them,
    // where a later setHeader has not; the call's own are Node's to merge, as always.
    const { lines } = held;
    for (let i = 0; i < lines.length; i += 2) {
      const name = lines[i];
      if (typeof name === 'string' && !this.hasHeader(name)) this.setHeader(name, lines[i + 1]!);
    }
  }
  return reason === undefined
    ? held.writeHead.call(this, statusCode, given)
    : held.writeHead.call(this, statusCode, reason, given);
}

/**
 * The list given to Node: held headers the call's own do not name again, then its own flattened.
 * Written into the held list itself (the head is being written: nothing adds to it after), so
 * that getHeldHeader reads what was sent.
 */
function withOwn(lines: Line[], own: OwnHeaders | undefined): Line[] {
  if (own === undefined || own === null) return lines;
  const ownLines = flatten(own);
  let kept = 0;
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i];
    if (typeof name === 'string' && lineOf(ownLines, name) >= 0) continue;
    lines[kept++] = name;
    lines[kept++] = lines[i + 1];
  }
  lines.length = kept;
  for (const item of ownLines) lines.push(item);
  return lines;
}

function flatten(own: OwnHeaders): readonly Line[] {
  if (!Array.isArray(own)) return Object.entries(own as OutgoingHttpHeaders).flat(1);
  return own.length > 0 && Array.isArray(own[0]) ? (own as readonly (readonly HeaderValue[])[]).flat(1) : own;
}

/** Where `name` is in a list (its index, the value's is the next), else -1. */
function lineOf(lines: readonly Line[], name: string): number {
  for (let i = 0; i < lines.length; i += 2) {
    const line = lines[i];
    if (typeof line === 'string' && sameName(line, name)) return i;
  }
  return -1;
}

/** Header names compared as HTTP does (case-insensitive), without making lower-cased copies. */
function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only letters differ by case: the same code but for bit 0x20, a to z once lower-cased.
    const lower = x | 0x20;
    if (lower !== (y | 0x20) || lower < 0x61 || lower > 0x7a) return false;
  }
  return true;
}
