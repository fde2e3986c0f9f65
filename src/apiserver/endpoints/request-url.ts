// A request target's path and query as the handlers read them. WHATWG URL parsing costs a few
// microseconds a request (about 1.5% of a create's CPU); for a target it would leave as it is (a
// path of plain characters without dot segments or percent signs, a query without the characters it
// escapes), the parts are taken as they stand. Anything else goes through `new URL`, so both give
// the same pathname, search and searchParams (request-url.test.ts compares them).

/** The parts of a request's URL the handlers read (a URL has them too). */
export interface RequestUrl {
  readonly pathname: string;
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

/** A path URL parsing keeps as it is: not "//" (a host), no "%", no dot segment, no character it escapes. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
/** A query URL parsing keeps as it is (https: "'" is escaped there); not one URLSearchParams would cut a "?" off. */
const PLAIN_QUERY = /^(?!\?)[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;

class PlainUrl implements RequestUrl {
  private params: URLSearchParams | undefined;
  constructor(
    readonly pathname: string,
    private readonly query: string,
  ) {}
  get search(): string {
    return this.query === "" ? "" : `?${this.query}`;
  }
  get searchParams(): URLSearchParams {
    return (this.params ??= new URLSearchParams(this.query));
  }
}

export function parseRequestUrl(target: string): RequestUrl {
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? "" : target.slice(q + 1);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && PLAIN_QUERY.test(query)) return new PlainUrl(path, query);
  return new URL(target, "https://apiserver.local");
}
