// Opening an HTTP/2 stream without Node 20's cost of binding it: node:http2's request() binds a
// new AsyncResource per call (AsyncResource.prototype.bind), and Node 20's bind defines a
// deprecated `asyncResource` getter and setter on every bound function (util.deprecate wrappers,
// Object.defineProperties): about 15 µs of CPU per call, measured, where the rest of the bind takes
// well under 1 µs, and every create on etcd makes one call (docs/high-availability.md). While
// request() runs, bind is the same binding without that property; request() is synchronous, so
// nothing else sees the swap, and a Node that stops calling bind there is simply not affected.
import { AsyncResource } from "node:async_hooks";
import type { ClientHttp2Session, ClientHttp2Stream, OutgoingHttpHeaders } from "node:http2";

type Bind = AsyncResource["bind"];
const nodeBind: Bind = AsyncResource.prototype.bind;

/** AsyncResource#bind without the deprecated `asyncResource` property on the bound function. */
function leanBind(this: AsyncResource, fn: (...args: unknown[]) => unknown, thisArg?: unknown) {
  const run = this.runInAsyncScope.bind(this);
  return function (this: unknown, ...args: unknown[]) {
    return run(fn, thisArg === undefined ? this : thisArg, ...args);
  };
}

/** session.request(headers), with the lean bind. */
export function requestStream(session: ClientHttp2Session, headers: OutgoingHttpHeaders): ClientHttp2Stream {
  AsyncResource.prototype.bind = leanBind as Bind;
  try {
    return session.request(headers);
  } finally {
    AsyncResource.prototype.bind = nodeBind;
  }
}
