// The dashboard's HTTP API as the logged-in user: the bearer token is kept in sessionStorage (gone
// with the tab; logout clears it) and sent on every request. Errors carry the server's Status
// message. See docs/dashboard.md.
const KEY = "dashboard.token";

export const auth = {
  token: () => sessionStorage.getItem(KEY) || "",
  set: (token) => sessionStorage.setItem(KEY, token),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

async function request(path, init = {}) {
  const res = await fetch(path, {
    ...init,
    headers: { authorization: `Bearer ${auth.token()}`, "x-requested-with": "XMLHttpRequest", accept: "application/json", ...init.headers },
  });
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new ApiError(res.status, body?.message || `the dashboard answered ${res.status}`);
  return body;
}

export const getUser = () => request("/api/user");
export const getProjects = () => request("/api/projects");
export const getShoots = (namespace) => request(`/api/namespaces/${encodeURIComponent(namespace)}/shoots`);

/** `POST /api/terminals` with `{method, params}`. */
export const terminals = (method, params) =>
  request("/api/terminals", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ method, params }) });

/** The recordings the user may read in a project namespace (newest first). */
export const listRecordings = (namespace) => terminals("listRecordings", { coordinate: { namespace } });

/** A recording's `.cast` text. */
export async function getRecording(namespace, id) {
  const res = await fetch(`/api/terminals/recordings/${encodeURIComponent(namespace)}/${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${auth.token()}`, "x-requested-with": "XMLHttpRequest" },
  });
  const text = await res.text();
  if (!res.ok) {
    let message = `the dashboard answered ${res.status}`;
    try {
      message = JSON.parse(text).message || message;
    } catch {
      /* not a Status */
    }
    throw new ApiError(res.status, message);
  }
  return text;
}
